//! One running library worker, harness side: start it, read its hello, send a batch and
//! read the answers against a per-call time limit, say why it died.
//!
//! Every wait looks at the stop condition (a signal, the whole check's deadline) at least
//! every 100 ms, so a library that never returns cannot keep the harness from
//! stopping. The worker is registered with [`interrupt`] for as long as it is not reaped,
//! so a hard exit kills it too, and killing it kills its process group and every
//! descendant ([`crate::adapter::tree`]).

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::wire::{self, Record};
use super::worker::MEMORY_MARK;
use crate::adapter::{interrupt, tree, Stop};
use crate::encoders::Form;
use crate::outcome::{Answer, DecoderFailure, FailureKind};

/// Bytes of the worker's stderr kept for messages.
const STDERR_TAIL_BYTES: usize = 2048;
/// Bytes read from the worker's answers per `read` call.
const READ_CHUNK: usize = 1 << 16;
/// How often a wait looks at the stop condition.
const STOP_POLL: Duration = Duration::from_millis(100);
/// What allocators print when an allocation fails (Rust's `handle_alloc_error`, glibc's
/// and C++'s messages), besides the worker's own [`MEMORY_MARK`].
const OUT_OF_MEMORY_SIGNS: [&str; 4] = [
    MEMORY_MARK,
    "memory allocation of",
    "Cannot allocate memory",
    "std::bad_alloc",
];

/// The stop condition a wait looks at: `Some` when the harness must stop.
pub type StopCheck<'a> = &'a dyn Fn() -> Option<Stop>;

/// A started worker.
pub struct WorkerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    buffer: Vec<u8>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    /// The exit status, once reaped.
    status: Option<std::process::ExitStatus>,
}

/// How a batch ended when not every input got an answer.
pub struct Interrupted {
    /// The answers received before it stopped, in input order.
    pub answers: Vec<Answer>,
    /// Why the rest is missing.
    pub ending: Ending,
}

/// Why a batch has no answer for its next input.
pub enum Ending {
    /// The worker failed on it (or, in a batch, somewhere after the answers received).
    Failed(Death),
    /// The harness must stop.
    Stopped(Stop),
}

/// A worker's failure on an input.
pub struct Death {
    /// The `crash`, `timeout` or `protocol` failure.
    pub failure: DecoderFailure,
    /// True when the worker died at its memory limit.
    pub memory: bool,
}

/// What the worker has sent so far.
enum Progress {
    Data,
    Ended,
    TimedOut,
    Stopped(Stop),
}

impl WorkerProcess {
    /// Starts `worker lib-worker --lib LIBRARY --symbol SYMBOL --memory-limit BYTES
    /// [--encode=FORM]` in its own process group and waits for its hello; returns the library's version. Every
    /// failure is one line.
    pub fn start(
        worker: &Path,
        library: &Path,
        symbol: &str,
        memory_limit: u64,
        encode: Option<Form>,
        hello_timeout: Duration,
    ) -> Result<(WorkerProcess, String), String> {
        let mut command = Command::new(worker);
        command
            .arg("lib-worker")
            .arg("--lib")
            .arg(library)
            .arg("--symbol")
            .arg(symbol)
            .arg("--memory-limit")
            .arg(memory_limit.to_string())
            .args(encode.map(|form| format!("--encode={}", form.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        tree::become_subreaper();
        let spawning = tree::spawning();
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start the library worker {}: {e}", worker.display()))?;
        interrupt::register_group(child.id());
        drop(spawning);
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
            status: None,
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
            let interrupted = || interrupt::requested().then_some(Stop::Interrupted);
            match process.read_more(deadline, &interrupted) {
                Progress::Data => {}
                Progress::Stopped(_) => {
                    process.kill();
                    return Err("interrupted while loading the library".into());
                }
                Progress::Ended => {
                    let (death, _) = process.death();
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

    /// Sends `inputs` as one batch and reads one answer per input, each within `timeout`
    /// of the previous one (the worker passes on answers as they are ready, so this is a
    /// time limit per call), until `stop` says to stop.
    pub fn run_batch(
        &mut self,
        inputs: &[&[u8]],
        name: &str,
        request: &mut Vec<u8>,
        timeout: Duration,
        stop: StopCheck<'_>,
    ) -> Result<Vec<Answer>, Interrupted> {
        request.clear();
        wire::encode_batch(inputs, request);
        let mut answers = Vec::with_capacity(inputs.len());
        let sent = self
            .stdin
            .as_mut()
            .map(|stdin| stdin.write_all(request).and_then(|()| stdin.flush()));
        let mut ended = !matches!(sent, Some(Ok(())));
        let mut parsed = 0;
        let mut deadline = Instant::now() + timeout;
        while answers.len() < inputs.len() {
            match wire::parse_record(&self.buffer[parsed..], name) {
                Ok(Some((record, used))) => {
                    parsed += used;
                    deadline = Instant::now() + timeout;
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
                    let failure = DecoderFailure {
                        kind: FailureKind::Protocol,
                        message: format!("the library worker's stream broke: {reason}"),
                    };
                    return Err(failed(answers, failure, false));
                }
            }
            self.buffer.drain(..parsed);
            parsed = 0;
            let read = if ended {
                Progress::Ended
            } else {
                self.read_more(deadline, stop)
            };
            match read {
                Progress::Data => {}
                Progress::Ended => {
                    ended = true;
                    // Everything the worker wrote before dying may still be parsed.
                    if self.drain_rest() {
                        continue;
                    }
                    let (death, memory) = self.death();
                    let failure = DecoderFailure {
                        kind: FailureKind::Crash,
                        message: format!("the library worker {death}"),
                    };
                    return Err(failed(answers, failure, memory));
                }
                Progress::TimedOut => {
                    let failure = DecoderFailure {
                        kind: FailureKind::Timeout,
                        message: format!("no answer within {} s", timeout.as_secs_f64()),
                    };
                    return Err(failed(answers, failure, false));
                }
                Progress::Stopped(why) => {
                    return Err(Interrupted {
                        answers,
                        ending: Ending::Stopped(why),
                    })
                }
            }
        }
        self.buffer.drain(..parsed);
        Ok(answers)
    }

    /// Reads what the worker has written, waiting until `deadline` or until `stop` says
    /// to stop (looked at every [`STOP_POLL`]).
    fn read_more(&mut self, deadline: Instant, stop: StopCheck<'_>) -> Progress {
        let mut poll = libc::pollfd {
            fd: self.stdout.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ready = loop {
            if let Some(why) = stop() {
                return Progress::Stopped(why);
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            if wait.is_zero() {
                return Progress::TimedOut;
            }
            let slice = wait.min(STOP_POLL);
            // Rounded up, so that a wait never ends early and spins.
            let millis =
                libc::c_int::try_from(slice.as_micros().div_ceil(1000)).unwrap_or(libc::c_int::MAX);
            poll.revents = 0;
            // SAFETY: poll reads and writes the one pollfd we own for the duration of the
            // call.
            let ready = unsafe { libc::poll(&mut poll, 1, millis) };
            if ready != 0 {
                break ready;
            }
        };
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
    /// 3"), with the end of its stderr, and whether it died at its memory limit; kills
    /// what is left of its tree and reaps it.
    pub fn death(&mut self) -> (String, bool) {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(1);
        while !tree::has_exited(self.child.id()) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(2));
        }
        let exited = tree::has_exited(self.child.id());
        // Exited or not, nothing of its tree may stay; `kill` reaps it.
        self.kill();
        let status = if exited { self.status } else { None };
        let how = match status {
            Some(status) => match (status.signal(), status.code()) {
                (Some(signal), _) => {
                    format!("was killed by signal {signal} ({})", signal_name(signal))
                }
                (None, Some(code)) => format!("exited with status {code}"),
                (None, None) => format!("ended ({status})"),
            },
            None => "closed its output".to_string(),
        };
        // Give the stderr thread a moment to collect what a dying process wrote last.
        thread::sleep(Duration::from_millis(10));
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default();
        let tail = tail.split_whitespace().collect::<Vec<_>>().join(" ");
        let memory = OUT_OF_MEMORY_SIGNS.iter().any(|sign| tail.contains(sign));
        let how = if memory {
            format!("{how} at its memory limit (RLIMIT_AS)")
        } else {
            how
        };
        if tail.is_empty() {
            (how, memory)
        } else {
            (format!("{how}; stderr: {tail}"), memory)
        }
    }

    /// Closes the worker's input (its signal to exit 0) and waits up to `grace`; kills
    /// it if it does not exit. Returns a note unless it exited cleanly.
    pub fn finish(mut self, grace: Duration) -> Option<String> {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        while !tree::has_exited(self.child.id()) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(2));
        }
        let exited = tree::has_exited(self.child.id());
        self.kill();
        match self.status {
            Some(status) if exited && status.success() => None,
            Some(status) if exited => Some(format!("the library worker ended with {status}")),
            _ => Some(format!(
                "the library worker did not exit within {} s of the end of its input",
                grace.as_secs_f64()
            )),
        }
    }

    /// Kills the worker's descendants and process group, and reaps the worker (its exit
    /// status is kept). Nothing is killed once it is reaped: its pid may be reused.
    pub fn kill(&mut self) {
        self.stdin = None;
        if self.status.is_some() {
            return;
        }
        tree::kill_descendants(self.child.id());
        if let Ok(group) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) takes plain integers. The negative pid names the group the
            // worker leads (spawned with process_group(0)); the worker is not reaped yet
            // (`status` is None and only this function reaps), so the id cannot have been
            // reused.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        interrupt::unregister_group(self.child.id());
        self.status = self.child.wait().ok();
        tree::reap_strays();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A batch's end by a failure, with the answers before it.
fn failed(answers: Vec<Answer>, failure: DecoderFailure, memory: bool) -> Interrupted {
    Interrupted {
        answers,
        ending: Ending::Failed(Death { failure, memory }),
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
