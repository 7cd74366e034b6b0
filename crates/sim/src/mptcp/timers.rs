//! Subflow timers behind the world's per-flow timers.
//!
//! The world schedules timers by (flow, kind) and hands each back to the
//! flow's sender or receiver. An MPTCP connection has a TCP endpoint per
//! subflow, so it remembers which subflow asked for which (kind, time) and,
//! when the world's event comes, runs every subflow whose timer of that kind
//! was due then. (Two subflows asking for the same instant get two world
//! events; the second finds nothing left to run.) Each subflow's own
//! `engine::Timer` then decides whether its timer really fires.

use crate::tcp::TimerKind;
use crate::time::Time;

#[derive(Default)]
pub struct SubflowTimers {
    pending: Vec<(Time, TimerKind, u16)>,
}

impl SubflowTimers {
    /// Moves the timers subflow `sub` asked for from `asked` to `out` (the
    /// world's list), remembering whose they are.
    pub fn take(&mut self, sub: u16, asked: &mut Vec<(TimerKind, Time)>, out: &mut Vec<(TimerKind, Time)>) {
        for (kind, at) in asked.drain(..) {
            self.pending.push((at, kind, sub));
            out.push((kind, at));
        }
    }

    /// The subflows whose timer of `kind` is due at `now`, in the order they asked.
    pub fn due(&mut self, kind: TimerKind, now: Time) -> Vec<u16> {
        let mut subs = Vec::new();
        self.pending.retain(|&(at, k, sub)| {
            let due = at == now && k == kind;
            if due && !subs.contains(&sub) {
                subs.push(sub);
            }
            !due
        });
        subs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_world_event_runs_every_subflow_due_then() {
        let mut t = SubflowTimers::default();
        let mut out = Vec::new();
        let at = Time::from_millis(5);
        t.take(1, &mut vec![(TimerKind::Retransmit, at)], &mut out);
        t.take(0, &mut vec![(TimerKind::Retransmit, at), (TimerKind::Pacing, at)], &mut out);
        assert_eq!(out.len(), 3);
        assert_eq!(t.due(TimerKind::Retransmit, at), [1, 0]);
        assert!(t.due(TimerKind::Retransmit, at).is_empty());
        assert_eq!(t.due(TimerKind::Pacing, at), [0]);
    }
}
