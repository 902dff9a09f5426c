//! Leaving the process at once, for an interrupt that cannot wait for the GPU; and the process
//! groups of reference commands, ended with them (issue 30: a command's own children outlived
//! its time limit).
use std::sync::Mutex;

/// Process groups of running reference commands (their leader's pid).
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Remember a child started as the leader of its own process group.
pub fn register_group(pid: u32) {
    if let Ok(mut g) = GROUPS.lock() {
        g.push(pid);
    }
}

/// End every process of the group `pid` leads (SIGKILL) and forget it; a group already empty
/// is fine.
pub fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        if pid > 0 {
            // SAFETY: kill(2) with a negative pid signals that process group; it touches no
            // memory of ours. pid > 0, so -pid never means "every process" (-1) or our group (0).
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }
    if let Ok(mut g) = GROUPS.lock() {
        g.retain(|&p| p != pid);
    }
}

/// End the groups of every reference command still running (an interrupt, an exit).
pub fn kill_registered_groups() {
    let pids: Vec<u32> = GROUPS.lock().map(|g| g.clone()).unwrap_or_default();
    for p in pids {
        kill_group(p);
    }
}

extern "C" {
    /// POSIX `_exit(2)`.
    fn _exit(status: i32) -> !;
}

/// End the process now, without atexit handlers or library destructors. The Vulkan driver's
/// destructors would tear down a device that another thread is still recording into or
/// waiting on: NVIDIA's driver took 3 s and then crashed (SIGSEGV) when `std::process::exit`
/// ran them during a 100 000-repetition batch. The kernel frees the process's GPU context,
/// as it does after SIGKILL. Rows on disk are whole already (the caller holds the row lock).
pub fn exit_now(code: i32) -> ! {
    kill_registered_groups();
    // stdout may hold a partial line buffered; stderr is unbuffered.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: _exit takes any int status, is async-signal-safe, touches no Rust state and
    // never returns.
    unsafe { _exit(code) }
}
