//! One running adapter process and the threads that keep the harness from ever blocking on
//! it.
//!
//! A misbehaving adapter can stop reading its stdin, stop writing its stdout, write
//! forever without a newline, or flood its stderr. The harness must survive all of these
//! (issue: "The harness never hangs"), so no pipe is ever read or written on the calling
//! thread:
//!
//! - a *writer* thread takes frames from a channel and writes them to the adapter's stdin
//!   (so the caller can pipeline many frames without a pipe-buffer deadlock: the adapter
//!   may be blocked writing answers nobody reads yet while we would be blocked writing
//!   frames it reads no more);
//! - a *reader* thread splits stdout into lines and sends them over a channel, which the
//!   caller reads with `recv_timeout`, the per-input timeout;
//! - a *stderr* thread drains stderr, keeping only a bounded tail for error messages.
//!
//! The adapter runs in its own process group, and stopping it kills the whole group: an
//! adapter that is a shell script running the real program as a child (a compile-on-first
//! -use wrapper) must not leave that child behind holding the pipes open.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The longest answer line accepted (a line for a large input lists every scalar).
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// How much of the adapter's stderr is kept for messages.
const STDERR_TAIL_BYTES: usize = 4096;
/// The writer thread coalesces queued frames into writes of about this size.
const WRITE_CHUNK_BYTES: usize = 64 << 10;

/// What the reader thread saw on the adapter's stdout.
#[derive(Debug)]
pub enum StdoutEvent {
    /// One line, without its newline.
    Line(Vec<u8>),
    /// A line longer than [`MAX_LINE_BYTES`] (its bytes are discarded).
    TooLong,
    /// End of stdout: the adapter closed it or exited.
    End,
    /// Reading failed.
    Failed(String),
}

/// What came back when waiting for the next line.
#[derive(Debug)]
pub enum NextLine {
    /// A line.
    Line(Vec<u8>),
    /// A line over the size limit.
    TooLong,
    /// The adapter ended its output (crashed, or exited).
    Ended,
    /// Nothing within the time limit.
    TimedOut,
}

/// A running adapter process.
pub struct AdapterProcess {
    child: Child,
    frames: Option<Sender<Vec<u8>>>,
    lines: Receiver<StdoutEvent>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    argv: Vec<String>,
}

impl AdapterProcess {
    /// Starts `argv[0]` with the rest as arguments, in its own process group, with all three
    /// standard streams piped. Fails when the program cannot be executed.
    pub fn spawn(argv: &[String]) -> std::io::Result<AdapterProcess> {
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr = child.stderr.take().expect("stderr was piped");

        let (frame_sender, frame_receiver) = mpsc::channel::<Vec<u8>>();
        thread::Builder::new()
            .name("adapter-stdin".into())
            .spawn(move || write_frames(stdin, frame_receiver))?;
        let (line_sender, lines) = mpsc::channel();
        thread::Builder::new()
            .name("adapter-stdout".into())
            .spawn(move || read_lines(stdout, line_sender))?;
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr_tail);
        thread::Builder::new()
            .name("adapter-stderr".into())
            .spawn(move || drain_stderr(stderr, tail))?;
        Ok(AdapterProcess {
            child,
            frames: Some(frame_sender),
            lines,
            stderr_tail,
            argv: argv.to_vec(),
        })
    }

    /// Queues one input as a protocol frame: "a 4-byte little-endian length N, then N raw
    /// bytes" (DESIGN.md §3.3). Never blocks; a dead adapter simply never answers.
    pub fn send_frame(&self, input: &[u8]) {
        let length = u32::try_from(input.len()).expect("inputs are shorter than 4 GiB");
        let mut frame = Vec::with_capacity(4 + input.len());
        frame.extend_from_slice(&length.to_le_bytes());
        frame.extend_from_slice(input);
        if let Some(frames) = &self.frames {
            // An error means the writer thread ended (the adapter closed its stdin); the
            // missing answer is then found by the reader side.
            let _ = frames.send(frame);
        }
    }

    /// Waits until `deadline` for the next stdout line.
    pub fn next_line(&self, deadline: Instant) -> NextLine {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(StdoutEvent::Line(line)) => NextLine::Line(line),
            Ok(StdoutEvent::TooLong) => NextLine::TooLong,
            Ok(StdoutEvent::End | StdoutEvent::Failed(_)) => NextLine::Ended,
            Err(RecvTimeoutError::Disconnected) => NextLine::Ended,
            Err(RecvTimeoutError::Timeout) => NextLine::TimedOut,
        }
    }

    /// The exit status, waiting up to `grace` for the process to exit (it may still be
    /// flushing after closing stdout). `None` if it is still running.
    pub fn exit_status(&mut self, grace: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// The last few KiB the adapter wrote to stderr, as one line.
    pub fn stderr_tail(&self) -> String {
        // Give the stderr thread a moment to collect what a dying process wrote last.
        thread::sleep(Duration::from_millis(20));
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&tail);
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The program and arguments it was started with.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// Closes stdin (the protocol's "end of stdin: the adapter exits 0") and waits up to
    /// `grace` for it to exit; kills it if it does not. Returns its exit status if it exited
    /// by itself.
    pub fn finish(mut self, grace: Duration) -> Option<ExitStatus> {
        self.frames = None;
        let status = self.exit_status(grace);
        if status.is_none() {
            self.kill();
        }
        status
    }

    /// Kills the adapter's whole process group and reaps the adapter.
    pub fn kill(&mut self) {
        self.frames = None;
        #[cfg(unix)]
        {
            if let Ok(process_group) = libc::pid_t::try_from(self.child.id()) {
                // SAFETY: kill(2) takes plain integers and touches no memory of ours. The
                // negative pid names the process group the child leads: it was spawned with
                // process_group(0), so its group id is its pid, and it has not been reaped
                // yet (we still hold the Child), so the id cannot have been reused.
                unsafe {
                    libc::kill(-process_group, libc::SIGKILL);
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for AdapterProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}

fn write_frames(mut stdin: ChildStdin, frames: Receiver<Vec<u8>>) {
    while let Ok(first) = frames.recv() {
        let mut chunk = first;
        while chunk.len() < WRITE_CHUNK_BYTES {
            match frames.try_recv() {
                Ok(more) => chunk.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        if stdin.write_all(&chunk).is_err() {
            // The adapter closed stdin or died; the reader side reports it.
            return;
        }
    }
    // Channel closed: dropping stdin here is the end-of-input signal.
}

fn read_lines(stdout: impl Read, lines: Sender<StdoutEvent>) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let (consumed, found_newline) = match reader.fill_buf() {
            Ok([]) => {
                let event = if too_long {
                    StdoutEvent::TooLong
                } else if line.is_empty() {
                    StdoutEvent::End
                } else {
                    StdoutEvent::Line(std::mem::take(&mut line))
                };
                let ended = matches!(event, StdoutEvent::End);
                let _ = lines.send(event);
                if !ended {
                    let _ = lines.send(StdoutEvent::End);
                }
                return;
            }
            Ok(buffer) => {
                let newline = buffer.iter().position(|&b| b == b'\n');
                let taken = newline.map_or(buffer.len(), |at| at);
                if !too_long {
                    if line.len() + taken > MAX_LINE_BYTES {
                        too_long = true;
                        line = Vec::new();
                    } else {
                        line.extend_from_slice(&buffer[..taken]);
                    }
                }
                (newline.map_or(taken, |at| at + 1), newline.is_some())
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                let _ = lines.send(StdoutEvent::Failed(error.to_string()));
                return;
            }
        };
        reader.consume(consumed);
        if found_newline {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let event = if too_long {
                StdoutEvent::TooLong
            } else {
                StdoutEvent::Line(std::mem::take(&mut line))
            };
            too_long = false;
            if lines.send(event).is_err() {
                return;
            }
        }
    }
}

fn drain_stderr(mut stderr: impl Read, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buffer = [0u8; 4096];
    loop {
        match stderr.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                if let Ok(mut tail) = tail.lock() {
                    tail.extend_from_slice(&buffer[..n]);
                    if tail.len() > STDERR_TAIL_BYTES {
                        let excess = tail.len() - STDERR_TAIL_BYTES;
                        tail.drain(..excess);
                    }
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}
