//! A timer that is cheap to re-arm many times (an RTO restarted on every ACK).
//!
//! Re-arming to a later deadline schedules nothing: when the pending event
//! fires early, `fire` pushes it on to the new deadline (the lazy timer idea
//! of Linux's `sk_reset_timer` users and htsim). Only an earlier deadline
//! schedules a new event; the superseded event is recognised as stale.

use crate::time::Time;

#[derive(Debug, Default, Clone)]
pub struct Timer {
    deadline: Option<Time>,
    scheduled: Option<Time>,
}

/// What `Timer::fire` tells the caller to do with the event that just ran.
pub enum Fire {
    /// Stale or cancelled: ignore.
    Ignore,
    /// The deadline moved: schedule an event at this time.
    Reschedule(Time),
    /// The deadline is now: run the handler.
    Run,
}

impl Timer {
    /// Arms (or re-arms) the timer; returns a time at which the caller must
    /// schedule an event, or None if an earlier event is already pending.
    #[must_use]
    pub fn arm(&mut self, at: Time) -> Option<Time> {
        self.deadline = Some(at);
        match self.scheduled {
            Some(s) if s <= at => None,
            _ => {
                self.scheduled = Some(at);
                Some(at)
            }
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Called when an event scheduled for this timer runs at `now`.
    pub fn fire(&mut self, now: Time) -> Fire {
        if self.scheduled != Some(now) {
            return Fire::Ignore;
        }
        self.scheduled = None;
        match self.deadline {
            None => Fire::Ignore,
            Some(d) if d > now => {
                self.scheduled = Some(d);
                Fire::Reschedule(d)
            }
            Some(_) => {
                self.deadline = None;
                Fire::Run
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rearm_later_defers_and_cancel_ignores() {
        let mut t = Timer::default();
        assert_eq!(t.arm(Time(10)), Some(Time(10)));
        assert_eq!(t.arm(Time(20)), None);
        assert!(matches!(t.fire(Time(10)), Fire::Reschedule(Time(20))));
        assert!(matches!(t.fire(Time(20)), Fire::Run));
        assert_eq!(t.arm(Time(30)), Some(Time(30)));
        t.cancel();
        assert!(matches!(t.fire(Time(30)), Fire::Ignore));
    }

    #[test]
    fn rearm_earlier_makes_old_event_stale() {
        let mut t = Timer::default();
        assert_eq!(t.arm(Time(50)), Some(Time(50)));
        assert_eq!(t.arm(Time(10)), Some(Time(10)));
        assert!(matches!(t.fire(Time(10)), Fire::Run));
        assert!(matches!(t.fire(Time(50)), Fire::Ignore));
    }
}
