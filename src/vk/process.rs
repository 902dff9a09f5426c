//! Leaving the process at once, for an interrupt that cannot wait for the GPU.

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
    // stdout may hold a partial line buffered; stderr is unbuffered.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: _exit takes any int status, is async-signal-safe, touches no Rust state and
    // never returns.
    unsafe { _exit(code) }
}
