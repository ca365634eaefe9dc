//! One running library worker, harness side: start it, read its hello, send a batch and
//! read the answers against a deadline, say why it died.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::wire::{self, Record};
use crate::decoders::{DecoderFailure, FailureKind};
use crate::outcome::Outcome;

/// Bytes of the worker's stderr kept for messages.
const STDERR_TAIL_BYTES: usize = 2048;
/// Bytes read from the worker's answers per `read` call.
const READ_CHUNK: usize = 1 << 16;

/// A started worker.
pub struct WorkerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    buffer: Vec<u8>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
}

/// How a batch ended when not every input got an answer.
pub struct Interrupted {
    /// The answers received before it stopped, in input order.
    pub answers: Vec<Result<Outcome, DecoderFailure>>,
    /// Why the rest is missing.
    pub failure: DecoderFailure,
}

/// What the worker has sent so far.
enum Progress {
    Data,
    Ended,
    TimedOut,
}

impl WorkerProcess {
    /// Starts `worker lib-worker --lib LIBRARY --symbol SYMBOL` in its own process group
    /// and waits for its hello; returns the library's version. Every failure is one line.
    pub fn start(
        worker: &Path,
        library: &Path,
        symbol: &str,
        hello_timeout: Duration,
    ) -> Result<(WorkerProcess, String), String> {
        let mut command = Command::new(worker);
        command
            .arg("lib-worker")
            .arg("--lib")
            .arg(library)
            .arg("--symbol")
            .arg(symbol)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start the library worker {}: {e}", worker.display()))?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let mut stderr = child.stderr.take().expect("stderr was piped");
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr_tail);
        thread::Builder::new()
            .name("lib-worker-stderr".into())
            .spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(n @ 1..) = stderr.read(&mut chunk) {
                    let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
                    tail.extend_from_slice(&chunk[..n]);
                    let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
                    tail.drain(..excess);
                }
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        let mut process = WorkerProcess {
            child,
            stdin: Some(stdin),
            stdout,
            buffer: Vec::new(),
            stderr_tail,
        };
        let deadline = Instant::now() + hello_timeout;
        loop {
            if let Some((text, used)) = wire::parse_text(&process.buffer) {
                process.buffer.drain(..used);
                if let Some(version) = text.strip_prefix("ok ") {
                    return Ok((process, version.to_string()));
                }
                let reason = text.strip_prefix("error ").unwrap_or(&text).to_string();
                process.kill();
                return Err(reason);
            }
            match process.read_more(deadline) {
                Progress::Data => {}
                Progress::Ended => {
                    let death = process.death();
                    return Err(format!("the library worker {death} before its hello"));
                }
                Progress::TimedOut => {
                    process.kill();
                    return Err(format!(
                        "the library worker said no hello within {} s (is a library constructor hanging?)",
                        hello_timeout.as_secs_f64()
                    ));
                }
            }
        }
    }

    /// Sends `inputs` as one batch and reads one answer per input until `deadline`.
    pub fn run_batch(
        &mut self,
        inputs: &[&[u8]],
        name: &str,
        request: &mut Vec<u8>,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Vec<Result<Outcome, DecoderFailure>>, Interrupted> {
        request.clear();
        wire::encode_batch(inputs, request);
        let mut answers = Vec::with_capacity(inputs.len());
        let sent = self
            .stdin
            .as_mut()
            .map(|stdin| stdin.write_all(request).and_then(|()| stdin.flush()));
        let mut ended = !matches!(sent, Some(Ok(())));
        let mut parsed = 0;
        while answers.len() < inputs.len() {
            match wire::parse_record(&self.buffer[parsed..], name) {
                Ok(Some((record, used))) => {
                    parsed += used;
                    answers.push(match record {
                        Record::Answer(outcome) => Ok(outcome),
                        Record::Unusable(reason) => Err(DecoderFailure {
                            kind: FailureKind::Protocol,
                            message: reason,
                        }),
                    });
                    continue;
                }
                Ok(None) => {}
                Err(reason) => {
                    return Err(Interrupted {
                        answers,
                        failure: DecoderFailure {
                            kind: FailureKind::Protocol,
                            message: format!("the library worker's stream broke: {reason}"),
                        },
                    })
                }
            }
            self.buffer.drain(..parsed);
            parsed = 0;
            let read = if ended {
                Progress::Ended
            } else {
                self.read_more(deadline)
            };
            match read {
                Progress::Data => {}
                Progress::Ended => {
                    ended = true;
                    // Everything the worker wrote before dying may still be parsed.
                    if self.drain_rest() {
                        continue;
                    }
                    let failure = DecoderFailure {
                        kind: FailureKind::Crash,
                        message: format!("the library worker {}", self.death()),
                    };
                    return Err(Interrupted { answers, failure });
                }
                Progress::TimedOut => {
                    let failure = DecoderFailure {
                        kind: FailureKind::Timeout,
                        message: format!("no answer within {} s", timeout.as_secs_f64()),
                    };
                    return Err(Interrupted { answers, failure });
                }
            }
        }
        self.buffer.drain(..parsed);
        Ok(answers)
    }

    /// Reads what the worker has written, waiting until `deadline`.
    fn read_more(&mut self, deadline: Instant) -> Progress {
        let wait = deadline.saturating_duration_since(Instant::now());
        let mut poll = libc::pollfd {
            fd: self.stdout.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: poll reads and writes the one pollfd we own for the duration of the call.
        let ready = unsafe { libc::poll(&mut poll, 1, millis) };
        if ready == 0 {
            return Progress::TimedOut;
        }
        if ready < 0 {
            return if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                Progress::Data
            } else {
                Progress::Ended
            };
        }
        // Straight into the buffer's tail: no copy through a stack chunk.
        let start = self.buffer.len();
        self.buffer.resize(start + READ_CHUNK, 0);
        let read = self.stdout.read(&mut self.buffer[start..]);
        self.buffer.truncate(start + *read.as_ref().unwrap_or(&0));
        match read {
            Ok(0) | Err(_) => Progress::Ended,
            Ok(_) => Progress::Data,
        }
    }

    /// After the end of output: true if unread bytes remain to be parsed.
    fn drain_rest(&mut self) -> bool {
        let before = self.buffer.len();
        let _ = self.stdout.read_to_end(&mut self.buffer);
        self.buffer.len() > before
    }

    /// How the worker ended ("was killed by signal 11 (SIGSEGV)", "exited with status
    /// 3"), with the end of its stderr; reaps it.
    pub fn death(&mut self) -> String {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                _ => break None,
            }
        };
        let how = match status {
            Some(status) => match (status.signal(), status.code()) {
                (Some(signal), _) => {
                    format!("was killed by signal {signal} ({})", signal_name(signal))
                }
                (None, Some(code)) => format!("exited with status {code}"),
                (None, None) => format!("ended ({status})"),
            },
            None => {
                self.kill();
                "closed its output".to_string()
            }
        };
        // Give the stderr thread a moment to collect what a dying process wrote last.
        thread::sleep(Duration::from_millis(10));
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default();
        let tail = tail.split_whitespace().collect::<Vec<_>>().join(" ");
        if tail.is_empty() {
            how
        } else {
            format!("{how}; stderr: {tail}")
        }
    }

    /// Closes the worker's input (its signal to exit 0) and waits up to `grace`; kills
    /// it if it does not exit. Returns a note unless it exited cleanly.
    pub fn finish(mut self, grace: Duration) -> Option<String> {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return None,
                Ok(Some(status)) => return Some(format!("the library worker ended with {status}")),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                _ => {
                    self.kill();
                    return Some(format!(
                        "the library worker did not exit within {} s of the end of its input",
                        grace.as_secs_f64()
                    ));
                }
            }
        }
    }

    /// Kills the worker's process group and reaps the worker.
    pub fn kill(&mut self) {
        self.stdin = None;
        if let Ok(group) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) takes plain integers. The negative pid names the group the
            // worker leads (spawned with process_group(0)); the worker is not reaped yet
            // (we hold the Child), so the id cannot have been reused.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The usual name of a signal number.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGABRT => "SIGABRT",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTRAP => "SIGTRAP",
        _ => "signal",
    }
}
