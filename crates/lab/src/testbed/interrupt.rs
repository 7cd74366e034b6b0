//! Cleanup on SIGINT (Ctrl-C), SIGTERM and SIGHUP, which would otherwise end
//! the process without running destructors. The signal handler only writes
//! the signal number to a pipe (write(2) is async-signal-safe,
//! signal-safety(7)); a watcher thread reads it, deletes the namespaces of
//! every registered prefix, unregisters the BPF Westwood+ if this process
//! registered it, and exits with 128 + the signal number.

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::netns;

static WRITE_FD: AtomicI32 = AtomicI32::new(-1);
static PREFIXES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// While alive, a signal removes the namespaces named with this prefix.
#[derive(Debug)]
pub struct Registration(String);

impl Drop for Registration {
    fn drop(&mut self) {
        let mut list = PREFIXES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = list.iter().position(|p| *p == self.0) {
            list.swap_remove(i);
        }
    }
}

pub fn register(prefix: &str) -> io::Result<Registration> {
    INSTALLED.get_or_init(|| install().map_err(|e| e.to_string())).clone().map_err(io::Error::other)?;
    PREFIXES.lock().unwrap_or_else(|e| e.into_inner()).push(prefix.to_string());
    Ok(Registration(prefix.to_string()))
}

extern "C" fn on_signal(sig: libc::c_int) {
    let byte = sig as u8;
    // SAFETY: write(2) on a pipe fd with a one-byte buffer; async-signal-safe.
    unsafe { libc::write(WRITE_FD.load(Ordering::Relaxed), (&byte as *const u8).cast(), 1) };
}

fn install() -> io::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: fds has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    WRITE_FD.store(fds[1], Ordering::Relaxed);
    let read_fd = fds[0];
    std::thread::Builder::new().name("pathpool-lab-signals".into()).spawn(move || {
        let mut byte = 0u8;
        // SAFETY: reading one byte into a local from our own pipe.
        while unsafe { libc::read(read_fd, (&mut byte as *mut u8).cast(), 1) } != 1 {}
        let prefixes = PREFIXES.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for p in prefixes {
            if let Err(e) = netns::clean(&p) {
                eprintln!("pathpool-lab: cleaning up after a signal: {e}");
            }
        }
        if let Err(e) = crate::bpf::unregister_own() {
            eprintln!("pathpool-lab: cleaning up after a signal: {e}");
        }
        std::process::exit(128 + byte as i32);
    })?;
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a handler that only calls write(2).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(sig, &sa, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}
