//! Simulated time: integer nanoseconds since the start of the run.
//!
//! Integer time keeps event ordering exact and results bit-reproducible
//! (no floating-point drift when many small intervals are added).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond.
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * 1e9).round().max(0.0) as u64)
    }
    pub const fn nanos(self) -> u64 {
        self.0
    }
    /// Seconds; division (not multiplication by 1e-9) keeps decimal values exact where they can be.
    pub fn secs(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn saturating_sub(self, o: Time) -> Time {
        Time(self.0.saturating_sub(o.0))
    }
    /// Time to serialise `bytes` at `rate_bps`, rounded up to whole nanoseconds
    /// so a link never sends faster than its rate.
    pub fn transmission(bytes: u64, rate_bps: f64) -> Time {
        Time((bytes as f64 * 8e9 / rate_bps).ceil() as u64)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0;
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:.6}s", self.secs())
    }
}
