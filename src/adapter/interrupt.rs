//! SIGINT and SIGTERM: what was found so far is kept, and no adapter outlives the harness.
//!
//! One handler (installed by [`install`], at the start of every command) serves the whole
//! process:
//!
//! - While a command that can write a partial result is running (it holds a [`Graceful`]
//!   guard: `check`, `run`), the first signal only *requests* a stop: [`requested`] turns
//!   true, the guard's flag is set, and the command stops feeding inputs, writes what it
//!   found, marked as partial, and exits 130.
//! - Otherwise (any other command, or a second signal), every adapter process group still
//!   alive is killed with SIGKILL and the process exits at once with 130 (128 + SIGINT,
//!   the shell convention; SIGTERM exits the same way, since the handler cannot tell
//!   them apart).
//!
//! Adapters run in their own process groups, so a Ctrl-C at the terminal does not reach
//! them; [`AdapterProcess`](super::process::AdapterProcess) registers each group here
//! for as long as it is not reaped, so the hard exit can end them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Exit status after a signal.
pub const EXIT_INTERRUPTED: u8 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);
static LISTENERS: Mutex<Vec<Arc<AtomicBool>>> = Mutex::new(Vec::new());
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Installs the process-wide SIGINT/SIGTERM/SIGHUP handler. Calling it again is harmless.
pub fn install() {
    // Fails only when a handler is already installed, which is then this one.
    let _ = ctrlc::set_handler(on_signal);
}

/// True once a stop was requested by a signal.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// While alive, a signal requests a graceful stop instead of exiting.
pub struct Graceful {
    flag: Arc<AtomicBool>,
}

impl Graceful {
    /// Starts a graceful section; `flag` is also set when a stop is requested.
    pub fn new(flag: Arc<AtomicBool>) -> Graceful {
        lock(&LISTENERS).push(Arc::clone(&flag));
        Graceful { flag }
    }
}

impl Drop for Graceful {
    fn drop(&mut self) {
        lock(&LISTENERS).retain(|listener| !Arc::ptr_eq(listener, &self.flag));
    }
}

/// Notes a live adapter process group (its leader's pid).
pub fn register_group(process_group: u32) {
    lock(&GROUPS).push(process_group);
}

/// Forgets a process group: called before its leader is reaped.
pub fn unregister_group(process_group: u32) {
    lock(&GROUPS).retain(|&group| group != process_group);
}

/// The process groups noted as live (their leaders' pids).
pub fn groups() -> Vec<u32> {
    lock(&GROUPS).clone()
}

fn on_signal() {
    let listeners = lock(&LISTENERS).clone();
    if !listeners.is_empty() && !REQUESTED.swap(true, Ordering::SeqCst) {
        for listener in listeners {
            listener.store(true, Ordering::SeqCst);
        }
        eprintln!(
            "\nutf8conf: interrupted; stopping and writing what was found so far (again to quit now)"
        );
        return;
    }
    kill_groups();
    std::process::exit(i32::from(EXIT_INTERRUPTED));
}

fn kill_groups() {
    #[cfg(unix)]
    for &group in lock(&GROUPS).iter() {
        // First what left the group (setsid), while its parentage still leads there.
        super::tree::kill_descendants(group);
        if let Ok(group) = libc::pid_t::try_from(group) {
            // SAFETY: kill(2) takes plain integers and touches no memory of ours. Each
            // registered group's leader is an adapter child that has not been reaped (it is
            // unregistered before it is waited for), so its pid, which is the group id, is
            // still reserved and cannot name another process group.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
