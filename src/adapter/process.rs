//! One running adapter process and the threads that keep the harness from ever blocking on
//! it.
//!
//! A misbehaving adapter can stop reading its stdin, stop writing its stdout, write
//! forever without a newline, or flood its stderr. The harness must survive all of these
//! (the harness never hangs), so no pipe is ever read or written on the calling
//! thread:
//!
//! - a *writer* thread takes frames from a channel and writes them to the adapter's stdin
//!   (so the caller can pipeline many frames without a pipe-buffer deadlock: the adapter
//!   may be blocked writing answers nobody reads yet while we would be blocked writing
//!   frames it reads no more);
//! - a *reader* thread splits stdout into lines and sends them over a *bounded* channel
//!   ([`LINE_QUEUE`] batches of lines, each batch what one read of the pipe completed and
//!   at most [`BATCH_BYTES`] plus one line of at most [`MAX_LINE_BYTES`]), which the
//!   caller reads with a deadline, the per-input timeout. An adapter that floods its
//!   stdout is then simply blocked by the full pipe: the harness's memory stays bounded.
//!   Batches, not single lines, because a pipelined adapter answers thousands of short
//!   lines a second: one channel hand-over (and thread wake-up) per line was most of the
//!   harness's time on a fast adapter;
//! - a *stderr* thread drains stderr, keeping only a bounded tail for error messages.
//!
//! The adapter runs in its own process group, and stopping it kills the whole group: an
//! adapter that is a shell script running the real program as a child (a compile-on-first
//! -use wrapper) must not leave that child behind holding the pipes open. The group is
//! killed only while its leader is known to be unreaped (it has exited at most to a
//! zombie), which keeps its pid, and so the group id, from being reused; see
//! [`AdapterProcess::kill`].

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::interrupt;
use lines::read_lines;

mod lines;

/// The longest answer line accepted: 16 MiB. A line lists every scalar of its input (at
/// most 8 bytes each, `1114111,`), so this allows inputs of 2 MiB, far more than any check
/// input; a longer line is a `protocol` failure and its bytes are discarded as they come.
pub const MAX_LINE_BYTES: usize = 16 << 20;
/// Batches of complete lines queued between the reader thread and the caller. With
/// [`BATCH_BYTES`] and [`MAX_LINE_BYTES`], at most 4 x (1 + 16) MiB (plus the batch and the
/// line being read) are held.
pub const LINE_QUEUE: usize = 4;
/// A batch of lines is sent when the bytes read so far are used up, or once it holds this
/// many bytes.
pub const BATCH_BYTES: usize = 1 << 20;
/// Streaming mode: a frame header with this bit set is a chunk of the current input, its
/// length in the other 31 bits.
pub const CHUNK_FLAG: u32 = 0x8000_0000;
/// Streaming mode: the header (with no body) that ends an input sent as chunks.
pub const END_MARK: u32 = 0xFFFF_FFFF;
/// How often a wait for a line looks at [`interrupt::requested`].
const INTERRUPT_POLL: Duration = Duration::from_millis(100);
/// After the adapter exited, how long lines it wrote before exiting may take to arrive.
const EXITED_GRACE: Duration = Duration::from_millis(50);
/// How much of the adapter's stderr is kept for messages.
const STDERR_TAIL_BYTES: usize = 4096;
/// The writer thread coalesces queued frames into writes of about this size.
const WRITE_CHUNK_BYTES: usize = 64 << 10;

/// What the reader thread saw on the adapter's stdout.
#[derive(Debug)]
pub enum StdoutEvent {
    /// Lines in the order written, each without its newline (never empty).
    Lines(Vec<Vec<u8>>),
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
    /// A signal asked the harness to stop while it waited.
    Interrupted,
}

/// A running adapter process.
pub struct AdapterProcess {
    child: Child,
    frames: Option<Sender<Vec<u8>>>,
    lines: Receiver<StdoutEvent>,
    /// Lines of a received batch not yet taken by the caller.
    received: RefCell<VecDeque<Vec<u8>>>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    argv: Vec<String>,
    /// True once the child was waited for: from then on its pid may be reused.
    reaped: bool,
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
        super::tree::become_subreaper();
        let spawning = super::tree::spawning();
        let mut child = command.spawn()?;
        interrupt::register_group(child.id());
        drop(spawning);
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr = child.stderr.take().expect("stderr was piped");

        let (frame_sender, frame_receiver) = mpsc::channel::<Vec<u8>>();
        thread::Builder::new()
            .name("adapter-stdin".into())
            .spawn(move || write_frames(stdin, frame_receiver))?;
        let (line_sender, lines) = mpsc::sync_channel(LINE_QUEUE);
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
            received: RefCell::new(VecDeque::new()),
            stderr_tail,
            argv: argv.to_vec(),
            reaped: false,
        })
    }

    /// Queues one input as a protocol frame: "a 4-byte little-endian length N, then N raw
    /// bytes" (docs/PROTOCOL.md). Never blocks; a dead adapter simply never answers.
    pub fn send_frame(&self, input: &[u8]) {
        debug_assert!(
            input.len() < CHUNK_FLAG as usize,
            "plain frames are under 2 GiB"
        );
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

    /// Queues one input of streaming mode: each chunk as a chunk frame (its length with
    /// [`CHUNK_FLAG`] set, then its bytes), then the end mark [`END_MARK`]
    /// (docs/PROTOCOL.md, "Streaming mode").
    pub fn send_chunked(&self, chunks: &[&[u8]]) {
        let total: usize = chunks.iter().map(|chunk| 4 + chunk.len()).sum();
        let mut frames = Vec::with_capacity(total + 4);
        for chunk in chunks {
            let length = u32::try_from(chunk.len())
                .ok()
                .filter(|&length| length < CHUNK_FLAG - 1)
                .expect("chunks are shorter than 2 GiB");
            frames.extend_from_slice(&(CHUNK_FLAG | length).to_le_bytes());
            frames.extend_from_slice(chunk);
        }
        frames.extend_from_slice(&END_MARK.to_le_bytes());
        if let Some(writer) = &self.frames {
            // As in `send_frame`: a missing answer is found by the reader side.
            let _ = writer.send(frames);
        }
    }

    /// Waits until `deadline` for the next stdout line (or a stop request). The adapter's
    /// exit ends the wait even while a descendant still holds its stdout open: what it
    /// wrote before exiting is still read, then the wait ends as [`NextLine::Ended`].
    pub fn next_line(&self, deadline: Instant) -> NextLine {
        loop {
            if interrupt::requested() {
                return NextLine::Interrupted;
            }
            if let Some(line) = self.received.borrow_mut().pop_front() {
                return NextLine::Line(line);
            }
            if !self.reaped && self.has_exited() {
                return match self.lines.recv_timeout(EXITED_GRACE) {
                    Ok(event) => self.unbatched(event),
                    Err(_) => NextLine::Ended,
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left.min(INTERRUPT_POLL)) {
                Ok(event) => return self.unbatched(event),
                Err(RecvTimeoutError::Disconnected) => return NextLine::Ended,
                Err(RecvTimeoutError::Timeout) if left <= INTERRUPT_POLL => {
                    return NextLine::TimedOut
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// A line already waiting, or arriving within `grace`: the harness asked for nothing,
    /// so any line here is unsolicited. `None` when nothing comes.
    pub fn waiting_line(&self, grace: Duration) -> Option<NextLine> {
        if let Some(line) = self.received.borrow_mut().pop_front() {
            return Some(NextLine::Line(line));
        }
        let event = if grace.is_zero() {
            self.lines.try_recv().map_err(|error| match error {
                TryRecvError::Empty => RecvTimeoutError::Timeout,
                TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
            })
        } else {
            self.lines.recv_timeout(grace)
        };
        match event {
            Ok(StdoutEvent::End | StdoutEvent::Failed(_)) | Err(_) => None,
            Ok(event) => Some(self.unbatched(event)),
        }
    }

    /// The first line of a batch (the rest kept for the next calls), or what else came.
    fn unbatched(&self, event: StdoutEvent) -> NextLine {
        match event {
            StdoutEvent::Lines(lines) => {
                let mut received = self.received.borrow_mut();
                received.extend(lines);
                received.pop_front().map_or(NextLine::Ended, NextLine::Line)
            }
            StdoutEvent::TooLong => NextLine::TooLong,
            StdoutEvent::End | StdoutEvent::Failed(_) => NextLine::Ended,
        }
    }

    /// The exit status, waiting up to `grace` for the process to exit (it may still be
    /// flushing after closing stdout). `None` if it is still running.
    pub fn exit_status(&mut self, grace: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + grace;
        loop {
            if self.reaped || self.has_exited() {
                // Exited (a zombie, not reaped): end what is left of its group, then reap.
                self.kill();
                return self.child.try_wait().ok().flatten();
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// True when the child has exited, *without reaping it*, so its pid stays reserved
    /// and the group can still be killed safely.
    #[cfg(unix)]
    fn has_exited(&self) -> bool {
        super::tree::has_exited(self.child.id())
    }

    #[cfg(not(unix))]
    fn has_exited(&self) -> bool {
        false
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
    /// by itself, and the lines it still wrote after its last answer (an adapter in step
    /// writes none).
    pub fn finish(mut self, grace: Duration) -> Finished {
        self.frames = None;
        let deadline = Instant::now() + grace;
        let mut extra_lines = 0;
        let mut first_extra = None;
        loop {
            match self.next_line(deadline) {
                NextLine::Line(line) => {
                    extra_lines += 1;
                    first_extra.get_or_insert(line);
                }
                NextLine::TooLong => extra_lines += 1,
                NextLine::Ended | NextLine::TimedOut | NextLine::Interrupted => break,
            }
        }
        let status = self.exit_status(deadline.saturating_duration_since(Instant::now()));
        if status.is_none() {
            self.kill();
        }
        Finished {
            status,
            extra_lines,
            first_extra,
        }
    }

    /// Kills the adapter's whole process group and reaps the adapter.
    pub fn kill(&mut self) {
        self.frames = None;
        if self.reaped {
            return;
        }
        #[cfg(unix)]
        {
            // Descendants that left the group (setsid) are found by parentage, before the
            // group's end re-parents them.
            super::tree::kill_descendants(self.child.id());
            if let Ok(process_group) = libc::pid_t::try_from(self.child.id()) {
                // SAFETY: kill(2) takes plain integers and touches no memory of ours. The
                // negative pid names the process group the child leads: it was spawned with
                // process_group(0), so its group id is its pid. `reaped` is false, and
                // nothing reaps the child except the wait below (exit_status only peeks
                // with WNOWAIT), so the pid is still reserved for our child (running or a
                // zombie) and the group id cannot have been reused.
                unsafe {
                    libc::kill(-process_group, libc::SIGKILL);
                }
            }
        }
        let _ = self.child.kill();
        interrupt::unregister_group(self.child.id());
        let _ = self.child.wait();
        self.reaped = true;
        // What the adapter's descendants left orphaned was re-parented to the harness.
        super::tree::reap_strays();
    }
}

/// How an adapter ended at [`AdapterProcess::finish`].
#[derive(Debug)]
pub struct Finished {
    /// Its exit status, if it exited by itself within the grace time.
    pub status: Option<ExitStatus>,
    /// Lines it wrote after its last answer.
    pub extra_lines: usize,
    /// The first of them.
    pub first_extra: Option<Vec<u8>>,
}

impl Drop for AdapterProcess {
    fn drop(&mut self) {
        self.kill();
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
