//! Model time in real time: `Time` since an epoch on the monotonic clock
//! (`Instant` is CLOCK_MONOTONIC on Linux), and a wait that is precise to a
//! few microseconds.
//!
//! A timed `ppoll(2)` sleeps on an hrtimer, which the kernel may defer by
//! the thread's timer slack (50 µs by default, prctl(2) PR_SET_TIMERSLACK)
//! and which then wakes the thread tens to hundreds of µs later, depending on
//! the machine (docs/lab-emulator.md). So a `Waiter` sleeps, with slack 1 ns,
//! until a spin margin before the deadline and polls without sleeping for
//! the rest; either way it returns as soon as one of its descriptors is
//! readable. The margin is learnt: each timed sleep's overshoot feeds a
//! smoothed mean and mean deviation (the estimator of RFC 6298 §2, gains 1/8
//! and 1/4), and the margin is mean + 4 × deviation, within [`SPIN_MIN`,
//! `SPIN_MAX`] and at most a quarter of the wait. And a woken thread must still get a CPU:
//! the emulator's threads are real-time (SCHED_FIFO, sched(7)), so that a
//! busy machine — the senders and receivers of the experiment itself, or a
//! compiler — delays them by microseconds, not by a scheduler time slice.
//! They sleep whenever they have nothing due, and the kernel's real-time
//! throttling (`kernel.sched_rt_runtime_us`) bounds them anyway.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant, SystemTime};

use pathpool_sim::Time;

/// Bounds of the spin margin: how long before a deadline a wait stops
/// sleeping and polls. The upper one caps the CPU a wait may burn.
const SPIN_MIN: Time = Time::from_micros(50);
const SPIN_MAX: Time = Time::from_micros(500);

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

/// Waits of one thread, with the wake-up overshoot it has seen.
#[derive(Debug)]
pub struct Waiter {
    /// Smoothed overshoot of a timed sleep and its mean deviation (ns).
    overshoot: f64,
    deviation: f64,
}

impl Default for Waiter {
    fn default() -> Waiter {
        Waiter { overshoot: 0.0, deviation: SPIN_MIN.nanos() as f64 / 4.0 }
    }
}

impl Waiter {
    /// How long before a deadline to stop sleeping: mean + 4 × deviation of
    /// the overshoot (RFC 6298 §2's RTO form), within [SPIN_MIN, SPIN_MAX].
    pub fn spin(&self) -> Time {
        let margin = Time((self.overshoot + 4.0 * self.deviation) as u64);
        margin.clamp(SPIN_MIN, SPIN_MAX)
    }

    /// Feeds one timed sleep's overshoot (RFC 6298 §2.3, α = 1/8, β = 1/4).
    fn observe(&mut self, late: Time) {
        let late = late.nanos() as f64;
        self.deviation += ((self.overshoot - late).abs() - self.deviation) / 4.0;
        self.overshoot += (late - self.overshoot) / 8.0;
    }

    /// Returns when one of `fds` is readable or at `deadline` (model time;
    /// `None` or `Time::MAX`: no deadline), whichever comes first.
    pub fn wait(&mut self, clock: &Clock, fds: &[BorrowedFd], deadline: Option<Time>) -> io::Result<()> {
        let deadline = deadline.filter(|&d| d != Time::MAX);
        // Spin at most a quarter of the wait, however short: with packets due
        // every few tens of µs (a 138 Mb/s link's transmissions and
        // arrivals) a floor of SPIN_MIN had a busy direction's forwarder spin
        // all the time, a whole core, and on this 2-core machine the
        // experiment's own receivers went unscheduled for ~15 ms at a time
        // (docs/lab-emulator.md, "The endpoints' CPU").
        let budget = deadline.map_or(SPIN_MAX, |d| Time(d.saturating_sub(clock.now()).nanos() / 4));
        let spin = self.spin().min(budget);
        loop {
            let sleep = match deadline.map(|d| d.saturating_sub(clock.now())) {
                Some(Time::ZERO) => return Ok(()),
                Some(left) if left <= spin => Some(Duration::ZERO),
                Some(left) => Some(Duration::from_nanos((left - spin).nanos())),
                None => None,
            };
            let woke_by = sleep.filter(|d| !d.is_zero()).map(|d| clock.now() + Time(d.as_nanos() as u64));
            if poll(fds, sleep)? {
                return Ok(());
            }
            // A timed sleep that ran out: how much later than asked it woke.
            if let Some(asked) = woke_by {
                self.observe(clock.now().saturating_sub(asked));
            }
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
        let mut waiter = Waiter::default();
        let mut late: Vec<Time> = (1..=21u64)
            .map(|k| {
                let deadline = Time::from_micros(k * 700);
                waiter.wait(&clock, &[], Some(deadline)).unwrap();
                // Never early (this would underflow).
                clock.now() - deadline
            })
            .collect();
        late.sort();
        // A loaded machine may delay a few wake-ups, not the typical one.
        assert!(late[10] < Time::from_micros(200), "median lateness {}", late[10]);
    }

    #[test]
    fn the_spin_margin_follows_the_overshoot() {
        let mut w = Waiter::default();
        assert_eq!(w.spin(), SPIN_MIN);
        for _ in 0..50 {
            w.observe(Time::from_micros(150));
        }
        // Converged: mean 150 µs, deviation ~0.
        assert!(w.spin() > Time::from_micros(150) && w.spin() < Time::from_micros(160), "{}", w.spin());
        for _ in 0..50 {
            w.observe(Time::from_millis(5));
        }
        assert_eq!(w.spin(), SPIN_MAX);
    }
}
