//! Process trees: ending everything an adapter or library worker started, even what
//! left its process group.
//!
//! Killing the process group ends a shell wrapper's children, but a descendant that
//! called `setsid()` (a daemonising helper, a `nohup`ed server) is in a group of its own
//! and would survive, holding the adapter's pipes open. So, on Linux:
//!
//! - the harness makes itself a *child subreaper* (`PR_SET_CHILD_SUBREAPER`, prctl(2):
//!   "a subreaper fulfills the role of init(1) for its descendant processes"), so an
//!   orphaned descendant is re-parented to the harness instead of to PID 1 and stays
//!   findable;
//! - before killing a process, its descendants are found by walking `/proc/*/stat` (the
//!   fourth field is the parent's pid) and each is sent SIGKILL, whatever its group;
//! - after that, children re-parented to the harness that are not in the harness's own
//!   process group (the harness's own helpers are) and do not lead a group the harness
//!   still uses are strays of a killed tree: they are killed and reaped.
//!
//! Elsewhere only the process group is killed: a descendant that calls `setsid()` can
//! then outlive the check (documented in docs/PROTOCOL.md).

#[cfg(target_os = "linux")]
use std::sync::Once;
use std::sync::{Mutex, MutexGuard};

/// Held while a process is started and registered as a live group, and while strays are
/// reaped: a process between its start and its registration is not a stray.
static SPAWNING: Mutex<()> = Mutex::new(());

/// Holds off [`reap_strays`] while the caller starts a process and registers its group
/// ([`super::interrupt::register_group`]).
pub fn spawning() -> MutexGuard<'static, ()> {
    SPAWNING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes the harness the subreaper of its descendants, once; a no-op where the platform
/// has no such thing.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes a plain integer and changes
            // only how this process's orphaned descendants are re-parented.
            unsafe {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            }
        });
    }
}

/// Sends SIGKILL to every descendant of `pid` (not to `pid` itself), in any process group
/// or session. Best effort: a process created while the tree is walked may be missed,
/// which [`reap_strays`] catches once it is orphaned.
pub fn kill_descendants(pid: u32) {
    #[cfg(target_os = "linux")]
    {
        let parents = parent_table();
        let mut found = vec![pid];
        let mut at = 0;
        while at < found.len() {
            let parent = found[at];
            found.extend(
                parents
                    .iter()
                    .filter(|&&(_, p)| p == parent)
                    .map(|&(child, _)| child),
            );
            at += 1;
        }
        for &descendant in &found[1..] {
            send_kill(descendant);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

/// Kills and reaps the harness's children that are strays of a killed tree: not in the
/// harness's own process group and not leading a group still in use (registered with
/// [`super::interrupt::register_group`]).
pub fn reap_strays() {
    #[cfg(target_os = "linux")]
    {
        let _spawning = spawning();
        let live_groups = super::interrupt::groups();
        let me = std::process::id();
        // SAFETY: getpgrp takes no arguments and cannot fail.
        let own_group = unsafe { libc::getpgrp() };
        for (child, parent) in parent_table() {
            if parent != me || live_groups.contains(&child) {
                continue;
            }
            let Ok(pid) = libc::pid_t::try_from(child) else {
                continue;
            };
            // SAFETY: getpgid takes a plain pid; `pid` is our unreaped child, so it names
            // that process and no other.
            let group = unsafe { libc::getpgid(pid) };
            if group < 0 || group == own_group {
                continue;
            }
            // SAFETY: as above, `pid` is our child and not reaped, so it cannot have been
            // reused; waitpid with a null status pointer only reaps it.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// True when the child `pid` has exited, *without reaping it* (waitid with WNOWAIT), so its
/// pid stays reserved and its group can still be killed safely.
#[cfg(unix)]
pub fn has_exited(pid: u32) -> bool {
    // SAFETY: siginfo_t is a plain C struct for which all-zero bytes are a valid value.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is a live, writable siginfo_t for the duration of the call; the flags
    // make waitid return at once (WNOHANG) and leave the child waitable (WNOWAIT).
    let result = unsafe {
        libc::waitid(
            libc::P_PID,
            pid,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    // SAFETY: waitid filled `info` (or left it zeroed); si_pid is valid for SIGCHLD infos
    // and 0 in a zeroed one, meaning "has not exited".
    result == 0 && unsafe { info.si_pid() } != 0
}

#[cfg(target_os = "linux")]
fn send_kill(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) takes plain integers. `pid` was a descendant a moment ago; the
        // kernel recycles pids only after a wrap-around of the pid space, far longer than
        // the walk that found it.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// (pid, parent pid) of every process in `/proc`.
#[cfg(target_os = "linux")]
fn parent_table() -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so
            // the fields are counted after its last ')'.
            let rest = &stat[stat.rfind(')')? + 1..];
            let parent = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, parent))
        })
        .collect()
}
