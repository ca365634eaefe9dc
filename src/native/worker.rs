//! The library worker: the process that loads a C decoder (`include/utf8conf.h`) and
//! answers the harness's batches (`utf8conf lib-worker`, hidden, started only by
//! [`super::NativeDecoder`]).
//!
//! The library runs here and not in the harness so that its crashes, aborts, hangs and
//! stray writes hurt only this process; the harness notices, names the input and starts
//! a new worker. Two things protect the answer channel: the worker keeps its own copy of
//! standard output and points descriptor 1 at standard error before loading the library
//! (a `printf` in the library cannot corrupt an answer), and it checks every answer
//! against the header's rules before sending it.

use std::ffi::{c_char, c_int, c_longlong, CStr, CString};
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::os::fd::FromRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::encode_call::EncodeFn;
use super::wire::{self, RawAnswer};
use crate::encoders::Form;

/// The worker's default address-space limit: a library that tries to allocate without
/// bound fails its allocation (a finding) instead of taking the machine's memory.
pub const DEFAULT_ADDRESS_SPACE_LIMIT: u64 = 8 << 30;
/// How often the watchdog thread flushes answers and looks at its parent.
const WATCH_EVERY: Duration = Duration::from_millis(10);
/// Written to stderr by the fatal-signal handler when the worker dies with its address
/// space near its limit; the harness looks for it to name a memory death as such.
pub const MEMORY_MARK: &str = "utf8conf lib-worker: address space at its limit";

/// The address-space limit and the page size, for the fatal-signal handler (which may
/// only read plain memory).
static LIMIT_BYTES: AtomicU64 = AtomicU64::new(u64::MAX);
static PAGE_BYTES: AtomicU64 = AtomicU64::new(4096);

/// `struct utf8conf_answer` of `include/utf8conf.h`.
#[repr(C)]
struct CAnswer {
    valid: c_int,
    valid_up_to: c_longlong,
    error_len: c_int,
    scalars_len: c_longlong,
}

/// `utf8conf_decode_fn` of `include/utf8conf.h`.
type DecodeFn = unsafe extern "C" fn(*const u8, usize, *mut u32, *mut CAnswer) -> c_int;

/// The library's function, of the type the mode asks for.
#[derive(Clone, Copy)]
enum Function {
    Decode(DecodeFn),
    Encode(EncodeFn),
}

impl Function {
    /// # Safety
    ///
    /// `address` is the non-null address of a function of the type `include/utf8conf.h`
    /// prescribes for the mode: `utf8conf_decode_fn` without `encode`, else
    /// `utf8conf_encode_utf16_fn` or `utf8conf_encode_utf32_fn`.
    unsafe fn from_symbol(address: *mut libc::c_void, encode: Option<Form>) -> Function {
        match encode {
            // SAFETY: the caller's promise: a decode function.
            None => Function::Decode(unsafe {
                std::mem::transmute::<*mut libc::c_void, DecodeFn>(address)
            }),
            // SAFETY: the caller's promise: an encode function of `form`.
            Some(form) => Function::Encode(unsafe { EncodeFn::from_symbol(address, form) }),
        }
    }
}
/// `utf8conf_version_fn` of `include/utf8conf.h`.
type VersionFn = unsafe extern "C" fn() -> *const c_char;

/// Answers computed but not yet written, and the channel they go to.
struct Output {
    pending: Vec<u8>,
    answers: File,
}

impl Output {
    fn flush(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.answers.write_all(&self.pending)?;
        self.pending.clear();
        self.answers.flush()
    }
}

fn lock(output: &Mutex<Output>) -> MutexGuard<'_, Output> {
    output
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs the worker for `symbol` in `library` until the harness closes standard input,
/// with an address space of at most `memory_limit` bytes. Returns the process exit code:
/// 0 at a clean end, 2 when the library or symbol cannot be loaded (after saying why in
/// the hello) or the harness's stream breaks.
///
/// Answers are written at the end of each batch and, by the watchdog thread, every
/// 10 ms while a batch runs: a slow library keeps showing progress, and when a
/// call hangs, every answer before it has reached the harness, which so knows the input.
pub fn serve(library: &Path, symbol: &str, memory_limit: u64, encode: Option<Form>) -> u8 {
    let mut answers = match private_stdout() {
        Ok(file) => file,
        Err(error) => {
            eprintln!("utf8conf lib-worker: cannot set up standard output: {error}");
            return 2;
        }
    };
    limit_resources(memory_limit);
    install_memory_handler(memory_limit);
    let mut hello = Vec::new();
    let loaded = load(library, symbol);
    match &loaded {
        Ok((_, version)) => wire::encode_hello(&format!("ok {version}"), &mut hello),
        Err(reason) => wire::encode_hello(&format!("error {reason}"), &mut hello),
    }
    if answers
        .write_all(&hello)
        .and_then(|()| answers.flush())
        .is_err()
    {
        return 2;
    }
    let Ok((address, _)) = loaded else {
        return 2;
    };
    // SAFETY: a non-null symbol address converted to the function type the header
    // prescribes for the mode the harness asked for; calls through it are covered at
    // the call sites.
    let function = unsafe { Function::from_symbol(address, encode) };
    let output = Arc::new(Mutex::new(Output {
        pending: Vec::with_capacity(1 << 20),
        answers,
    }));
    start_watchdog(Arc::clone(&output));
    let mut stdin = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut scalars: Vec<u32> = Vec::new();
    let mut batch = wire::Batch::default();
    loop {
        match wire::read_batch(&mut stdin, &mut batch) {
            Ok(true) => {}
            Ok(false) => return 0,
            Err(error) => {
                eprintln!("utf8conf lib-worker: reading a batch: {error}");
                return 2;
            }
        }
        for input in batch.inputs() {
            let answer = match function {
                Function::Decode(decode) => call(decode, input, &mut scalars),
                Function::Encode(encode) => encode.call(input, &mut scalars),
            };
            let mut output = lock(&output);
            match answer {
                Ok(raw) => {
                    let count = usize::try_from(raw.scalars_len).unwrap_or(0);
                    wire::encode_answer(&raw, &scalars[..count], &mut output.pending);
                }
                Err(reason) => wire::encode_unusable(&reason, &mut output.pending),
            }
        }
        if lock(&output).flush().is_err() {
            return 2;
        }
    }
}

/// The watchdog thread: flushes answers while a batch runs, and ends the worker when the
/// harness is gone (its parent changed: the worker was orphaned).
///
/// Watching the parent here, rather than asking for `PR_SET_PDEATHSIG`, is deliberate:
/// that signal follows the *thread* that started the worker, and the harness may start
/// workers from threads that end long before the harness does.
fn start_watchdog(output: Arc<Mutex<Output>>) {
    // SAFETY: getppid takes no arguments and cannot fail.
    let parent = unsafe { libc::getppid() };
    let watch = move || loop {
        std::thread::sleep(WATCH_EVERY);
        // SAFETY: as above.
        if unsafe { libc::getppid() } != parent {
            // SAFETY: _exit ends the process at once, running nothing of the library's
            // (no atexit handlers, no flushing of its buffers).
            unsafe { libc::_exit(3) };
        }
        if let Ok(mut output) = output.try_lock() {
            if output.flush().is_err() {
                // SAFETY: as above: the harness is gone, so is the worker.
                unsafe { libc::_exit(2) };
            }
        }
    };
    if std::thread::Builder::new()
        .name("lib-worker-watchdog".into())
        .spawn(watch)
        .is_err()
    {
        eprintln!("utf8conf lib-worker: cannot start the watchdog thread");
    }
}

/// Installs the handler that, when the library dies of SIGSEGV, SIGBUS or SIGABRT with
/// the address space within a quarter of its limit, says so on stderr ([`MEMORY_MARK`]):
/// a `malloc` that returned NULL at the limit, then a write through it, is a memory death,
/// not an ordinary crash. The handler runs once (`SA_RESETHAND`) and returns, so the
/// signal then takes its default action and the worker dies of it as before.
fn install_memory_handler(memory_limit: u64) {
    LIMIT_BYTES.store(memory_limit, Ordering::Relaxed);
    // SAFETY: sysconf takes a plain integer.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if let Ok(page) = u64::try_from(page) {
        PAGE_BYTES.store(page, Ordering::Relaxed);
    }
    for signal in [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT] {
        // SAFETY: sigaction is a plain C struct for which all-zero bytes are valid; the
        // handler is an `extern "C" fn(c_int)` that only makes async-signal-safe calls
        // (open, read, close, write) and reads atomics.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fatal_signal as extern "C" fn(c_int) as usize;
            action.sa_flags = libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_fatal_signal(_signal: c_int) {
    let mut text = [0u8; 64];
    // SAFETY: open, read and close are async-signal-safe; the path is NUL-terminated and
    // `text` is a live buffer of the length passed.
    let read = unsafe {
        let fd = libc::open(c"/proc/self/statm".as_ptr(), libc::O_RDONLY);
        if fd < 0 {
            return;
        }
        let read = libc::read(fd, text.as_mut_ptr().cast(), text.len());
        libc::close(fd);
        read
    };
    let Ok(read) = usize::try_from(read) else {
        return;
    };
    let pages = text[..read]
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .fold(0u64, |pages, &digit| {
            pages
                .saturating_mul(10)
                .saturating_add(u64::from(digit - b'0'))
        });
    let size = pages.saturating_mul(PAGE_BYTES.load(Ordering::Relaxed));
    let limit = LIMIT_BYTES.load(Ordering::Relaxed);
    if size >= limit - limit / 4 {
        let line = b"\nutf8conf lib-worker: address space at its limit\n";
        // SAFETY: write is async-signal-safe; `line` is a live buffer of that length.
        unsafe {
            libc::write(2, line.as_ptr().cast(), line.len());
        }
    }
}

/// Calls the decoder on `input` and checks its answer; the scalars are in `scalars`.
fn call(decode: DecodeFn, input: &[u8], scalars: &mut Vec<u32>) -> Result<RawAnswer, String> {
    let capacity = input.len().max(1);
    scalars.clear();
    scalars.resize(capacity, 0);
    let mut answer = CAnswer {
        valid: -1,
        valid_up_to: -1,
        error_len: -1,
        scalars_len: -1,
    };
    // SAFETY: `decode` was resolved from the symbol the user named, whose type the
    // header fixes as `utf8conf_decode_fn`; that it really has this type is the user's
    // promise (a wrong one can only crash this worker, which the harness survives).
    // The pointers are valid for the call: `input` for `input.len()` bytes, `scalars`
    // for `capacity` u32 values (the header promises max(len, 1)), `answer` for one
    // struct, and none is kept by the callee after it returns (the header's contract).
    let status = unsafe {
        decode(
            input.as_ptr(),
            input.len(),
            scalars.as_mut_ptr(),
            &mut answer,
        )
    };
    check_answer(status, &answer, input.len(), capacity)
}

/// The header's rules for an answer.
fn check_answer(
    status: c_int,
    answer: &CAnswer,
    len: usize,
    capacity: usize,
) -> Result<RawAnswer, String> {
    if status != 0 {
        return Err(format!("the function returned {status} (failure)"));
    }
    let valid = match answer.valid {
        0 => false,
        1 => true,
        other => return Err(format!("valid is {other}, not 0 or 1")),
    };
    let len = len as i64;
    let known_offset = answer.valid_up_to == -1 || (0..len).contains(&answer.valid_up_to);
    if !valid && !known_offset {
        return Err(format!(
            "valid_up_to is {} for an input of {len} bytes",
            answer.valid_up_to
        ));
    }
    if !valid && (answer.error_len < -1 || i64::from(answer.error_len) > len) {
        return Err(format!(
            "error_len is {} for an input of {len} bytes",
            answer.error_len
        ));
    }
    if answer.scalars_len < -1 || answer.scalars_len > capacity as i64 {
        return Err(format!(
            "scalars_len is {} but the buffer holds {capacity}",
            answer.scalars_len
        ));
    }
    Ok(RawAnswer {
        valid,
        valid_up_to: if valid { -1 } else { answer.valid_up_to },
        error_len: if valid { -1 } else { answer.error_len },
        scalars_len: answer.scalars_len,
    })
}

/// Loads `library` and resolves `symbol` (and `<symbol>_version` if present): the
/// symbol's address, and the version text.
fn load(library: &Path, symbol: &str) -> Result<(*mut libc::c_void, String), String> {
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(library.as_os_str().as_bytes())
        .map_err(|_| "the library path contains a NUL byte".to_string())?;
    let name = CString::new(symbol).map_err(|_| "the symbol contains a NUL byte".to_string())?;
    // SAFETY: dlopen reads the NUL-terminated path we own. Loading runs the library's
    // constructors, which is what the user asked for by naming it; they run in this
    // worker, not in the harness.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!("cannot load {}: {}", library.display(), dl_error()));
    }
    // SAFETY: `handle` is a live handle from dlopen (never closed: the worker keeps the
    // library for its whole life) and `name` is NUL-terminated.
    let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
    if address.is_null() {
        return Err(format!(
            "{} has no symbol {symbol}: {}",
            library.display(),
            dl_error()
        ));
    }
    let version_name = CString::new(format!("{symbol}_version")).expect("no NUL byte");
    // SAFETY: as for the decode symbol above.
    let version_address = unsafe { libc::dlsym(handle, version_name.as_ptr()) };
    let version = if version_address.is_null() {
        "unknown".to_string()
    } else {
        // SAFETY: the optional version symbol has the header's `utf8conf_version_fn`
        // type; it returns a NUL-terminated string or NULL, read once here and copied.
        unsafe {
            let version_fn = std::mem::transmute::<*mut libc::c_void, VersionFn>(version_address);
            let text = version_fn();
            if text.is_null() {
                "unknown".to_string()
            } else {
                CStr::from_ptr(text).to_string_lossy().into_owned()
            }
        }
    };
    Ok((address, one_line(&version)))
}

/// The last dlopen/dlsym error, as one line.
fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl*
    // call on this thread; it is copied at once.
    unsafe {
        let text = libc::dlerror();
        if text.is_null() {
            "unknown error".to_string()
        } else {
            one_line(&CStr::from_ptr(text).to_string_lossy())
        }
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Takes a private copy of standard output for the answers and points descriptor 1 at
/// standard error.
fn private_stdout() -> io::Result<File> {
    // SAFETY: dup and dup2 take plain descriptors. Descriptor 1 is open (the harness
    // piped it); the copy is owned by the File built from it and by nothing else.
    unsafe {
        let copy = libc::dup(1);
        if copy < 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(File::from_raw_fd(copy))
    }
}

/// No core files (a crashing library is expected here) and a bounded address space.
fn limit_resources(memory_limit: u64) {
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let address_space = libc::rlimit {
        rlim_cur: memory_limit,
        rlim_max: memory_limit,
    };
    // SAFETY: setrlimit reads the struct we pass; failure only leaves the limit as it
    // was, which is harmless.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::setrlimit(libc::RLIMIT_AS, &address_space);
    }
}
