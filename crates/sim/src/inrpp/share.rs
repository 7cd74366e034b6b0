//! Processor sharing of a host's interface among its INRPP senders
//! (Reñé et al., §III-C: "The INRPP sender initially transmits in an
//! open-loop manner and forwards packets according to processor sharing";
//! §I: open loop "in a processor sharing manner", after Dukkipati et al.,
//! "Processor sharing flows in the internet", IWQoS 2005, the paper's [8]).
//!
//! The interface sends one packet at a time at its rate C. A sender books
//! the interface's next free slot for its next packet only once its
//! previous one has left, so the senders with a packet to send take turns,
//! one packet each: with n of them, each gets C/n, a lone one all of C, and
//! together they never send faster than the interface (a sender in closed
//! loop books a slot for each packet an ACK allows it, §II-B). Each sender of
//! a host interface holds the same `InterfaceShare`.

use std::cell::Cell;
use std::rc::Rc;

use crate::time::Time;

#[derive(Debug)]
pub struct InterfaceShare {
    /// C, the interface's rate, wire bit/s.
    rate_bps: f64,
    /// When the last booked packet will have left.
    free_at: Cell<Time>,
}

impl InterfaceShare {
    pub fn new(rate_bps: f64) -> Rc<InterfaceShare> {
        Rc::new(InterfaceShare { rate_bps, free_at: Cell::new(Time::ZERO) })
    }

    /// C, wire bit/s.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// Books the next free slot, from `now` on, for a packet of `bits` wire
    /// bits: when it may leave.
    pub fn book(&self, now: Time, bits: f64) -> Time {
        let at = now.max(self.free_at.get());
        self.free_at.set(at + Time::from_secs_f64(bits / self.rate_bps));
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bookings_follow_each_other_at_the_interface_rate() {
        let s = InterfaceShare::new(12e6);
        // 1500-byte packets at 12 Mb/s: one a millisecond.
        assert_eq!(s.book(Time::ZERO, 12_000.0), Time::ZERO);
        assert_eq!(s.book(Time::ZERO, 12_000.0), Time::from_millis(1));
        assert_eq!(s.book(Time::from_micros(500), 12_000.0), Time::from_millis(2));
        // An idle interface is free at once.
        assert_eq!(s.book(Time::from_millis(10), 12_000.0), Time::from_millis(10));
        assert_eq!(s.rate_bps(), 12e6);
    }
}
