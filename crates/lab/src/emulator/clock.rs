//! Model time in real time: `Time` since an epoch on the monotonic clock
//! (`Instant` is CLOCK_MONOTONIC on Linux), and a wait that is precise to a
//! few microseconds.
//!
//! A timed `ppoll(2)` sleeps on an hrtimer, which the kernel may defer by
//! the thread's timer slack (50 µs by default, prctl(2) PR_SET_TIMERSLACK)
//! and which then wakes the thread tens of µs later (docs/lab-emulator.md).
//! So a wait sleeps, with slack 1 ns, until `SPIN` before the deadline and
//! polls without sleeping for the rest; either way it returns as soon as one
//! of its descriptors is readable. And a woken thread must still get a CPU:
//! the emulator's threads are real-time (SCHED_FIFO, sched(7)), so that a
//! busy machine — the senders and receivers of the experiment itself, or a
//! compiler — delays them by microseconds, not by a scheduler time slice.
//! They sleep whenever they have nothing due, and the kernel's real-time
//! throttling (`kernel.sched_rt_runtime_us`) bounds them anyway.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant, SystemTime};

use pathpool_sim::Time;

/// How long before a deadline the wait stops sleeping and polls.
const SPIN: Time = Time::from_micros(50);

#[derive(Debug, Clone, Copy)]
pub struct Clock {
    epoch: Instant,
}

impl Clock {
    /// A clock whose time zero is `epoch`; before it, model time is zero.
    pub fn starting_at(epoch: Instant) -> Clock {
        Clock { epoch }
    }

    /// The instant of model time zero.
    pub fn epoch(&self) -> Instant {
        self.epoch
    }

    pub fn now(&self) -> Time {
        Time(self.epoch.elapsed().as_nanos() as u64)
    }

    /// Model time of `at`, an instant on the real-time clock in the recent
    /// past (a kernel timestamp): now minus its age.
    pub fn model_time(&self, at: SystemTime) -> Time {
        let age = SystemTime::now().duration_since(at).unwrap_or(Duration::ZERO);
        self.now().saturating_sub(Time(age.as_nanos() as u64))
    }
}

/// Real-time priority of the emulator's threads: above every normal thread,
/// below the kernel's threaded interrupt handlers (50).
const PRIORITY: libc::c_int = 10;

/// Makes the calling thread wake on time: timer slack 1 ns, SCHED_FIFO.
pub fn precise_thread() -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument and affects only this thread.
    if unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let param = libc::sched_param { sched_priority: PRIORITY };
    // SAFETY: pid 0 is the calling thread; param is a valid sched_param.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("SCHED_FIFO for the link emulator: {e}")));
    }
    Ok(())
}

/// Returns when one of `fds` is readable or at `deadline` (model time;
/// `None` or `Time::MAX`: no deadline), whichever comes first.
pub fn wait(clock: &Clock, fds: &[BorrowedFd], deadline: Option<Time>) -> io::Result<()> {
    let deadline = deadline.filter(|&d| d != Time::MAX);
    loop {
        let sleep = match deadline.map(|d| d.saturating_sub(clock.now())) {
            Some(Time::ZERO) => return Ok(()),
            Some(left) if left <= SPIN => Some(Duration::ZERO),
            Some(left) => Some(Duration::from_nanos((left - SPIN).nanos())),
            None => None,
        };
        if poll(fds, sleep)? {
            return Ok(());
        }
    }
}

/// `ppoll` for readability; `None` waits forever. True if one is readable.
fn poll(fds: &[BorrowedFd], timeout: Option<Duration>) -> io::Result<bool> {
    let mut pfds: Vec<libc::pollfd> =
        fds.iter().map(|fd| libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 }).collect();
    let ts = timeout.map(|d| libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as libc::c_long });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: pfds and ts outlive the call; no signal mask is changed.
    let n = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ts_ptr, std::ptr::null()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(e) };
    }
    Ok(n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_until_the_deadline() {
        // Unprivileged, the thread keeps its normal priority.
        if let Err(e) = precise_thread() {
            eprintln!("waits_until_the_deadline: {e}");
        }
        let clock = Clock::starting_at(Instant::now());
        let mut late: Vec<Time> = (1..=21u64)
            .map(|k| {
                let deadline = Time::from_micros(k * 700);
                wait(&clock, &[], Some(deadline)).unwrap();
                // Never early (this would underflow).
                clock.now() - deadline
            })
            .collect();
        late.sort();
        // A loaded machine may delay a few wake-ups, not the typical one.
        assert!(late[10] < Time::from_micros(200), "median lateness {}", late[10]);
    }
}
