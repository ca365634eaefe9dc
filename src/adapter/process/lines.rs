//! The reader thread's half of the adapter's stdout: split into lines, handed over in
//! batches (see the module header of [`super`] for why batches and how they are bounded).

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::SyncSender;

use super::{StdoutEvent, BATCH_BYTES, MAX_LINE_BYTES};

/// Reads `stdout` to its end, sending its lines in batches, then [`StdoutEvent::End`].
pub(super) fn read_lines(stdout: impl Read, lines: SyncSender<StdoutEvent>) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut line = Vec::new();
    let mut too_long = false;
    let mut batch = LineBatch::default();
    loop {
        let (consumed, found_newline) = match reader.fill_buf() {
            Ok([]) => {
                if !too_long && !line.is_empty() {
                    batch.push(std::mem::take(&mut line));
                }
                if batch.send(&lines) {
                    let _ = lines.send(StdoutEvent::End);
                }
                return;
            }
            Ok(buffer) => {
                let newline = buffer.iter().position(|&b| b == b'\n');
                let taken = newline.map_or(buffer.len(), |at| at);
                if !too_long {
                    if line.len() + taken > MAX_LINE_BYTES {
                        // Said at once, not at a newline that may never come: an
                        // unterminated answer over the bound is a `protocol` failure,
                        // not a wait for the timeout.
                        too_long = true;
                        line = Vec::new();
                        if !batch.send(&lines) || lines.send(StdoutEvent::TooLong).is_err() {
                            return;
                        }
                    } else {
                        line.extend_from_slice(&buffer[..taken]);
                    }
                }
                (newline.map_or(taken, |at| at + 1), newline.is_some())
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                if batch.send(&lines) {
                    let _ = lines.send(StdoutEvent::Failed(error.to_string()));
                }
                return;
            }
        };
        reader.consume(consumed);
        if found_newline {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            // A line over the bound was reported when it crossed it.
            if !std::mem::take(&mut too_long) {
                batch.push(std::mem::take(&mut line));
            }
        }
        // Sent before the next read, which may wait: every complete line the adapter
        // wrote reaches the caller before the reader blocks.
        if (reader.buffer().is_empty() || batch.bytes >= BATCH_BYTES) && !batch.send(&lines) {
            return;
        }
    }
}

/// Complete lines read but not yet sent to the caller.
#[derive(Default)]
struct LineBatch {
    lines: Vec<Vec<u8>>,
    bytes: usize,
}

impl LineBatch {
    fn push(&mut self, line: Vec<u8>) {
        self.bytes += line.len();
        self.lines.push(line);
    }

    /// Sends the lines held, if any; false when the caller is gone.
    fn send(&mut self, lines: &SyncSender<StdoutEvent>) -> bool {
        self.bytes = 0;
        let batch = std::mem::take(&mut self.lines);
        batch.is_empty() || lines.send(StdoutEvent::Lines(batch)).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::super::StdoutEvent;
    use super::read_lines;

    /// A pipe that gives its chunks one per read, as an adapter's separate writes arrive.
    struct Writes(Vec<&'static [u8]>);

    impl std::io::Read for Writes {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let chunk = self.0.remove(0);
            buffer[..chunk.len()].copy_from_slice(chunk);
            Ok(chunk.len())
        }
    }

    fn events(writes: Vec<&'static [u8]>) -> Vec<String> {
        let (sender, receiver) = std::sync::mpsc::sync_channel(16);
        read_lines(Writes(writes), sender);
        receiver
            .try_iter()
            .map(|event| match event {
                StdoutEvent::Lines(lines) => {
                    let lines: Vec<_> = lines
                        .iter()
                        .map(|l| String::from_utf8_lossy(l).into_owned())
                        .collect();
                    format!("{lines:?}")
                }
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_lines_of_each_read_go_over_together_and_a_cut_line_waits_for_its_end() {
        assert_eq!(
            events(vec![b"a\nb\nc", b"d\r\n\n", b"e"]),
            [r#"["a", "b"]"#, r#"["cd", ""]"#, r#"["e"]"#, "End"]
        );
    }

    #[test]
    fn nothing_written_is_the_end_alone() {
        assert_eq!(events(vec![]), ["End"]);
    }
}
