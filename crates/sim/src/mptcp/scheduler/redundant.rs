//! Redundant (Linux `mptcp_redundant.c`): every chunk goes on every subflow.
//! Each subflow, in turn, takes the oldest chunk it has not carried that is
//! still not Data-ACKed — the reinjection head, then earlier chunks, then
//! new data — so a subflow that falls behind catches up on what the others
//! sent, skipping only what the receiver already has. Backup subflows join
//! in only when no non-backup subflow can send.

use super::{Chunk, ConnectionView, Scheduler, Step, SubflowView};

#[derive(Default)]
pub struct Redundant {
    /// Position (among the subflows shown) whose turn is next.
    next: usize,
    /// Per subflow id: every unacked chunk below this DSN has been on it.
    cursor: Vec<u64>,
}

impl Redundant {
    /// The oldest chunk `s` has not carried, if any.
    fn chunk_for(&mut self, s: &SubflowView, conn: &ConnectionView) -> Option<Chunk> {
        if let Some(c) = conn.reinject.filter(|c| c.sent_on & s.bit == 0) {
            return Some(c);
        }
        if self.cursor.len() <= s.id {
            self.cursor.resize(s.id + 1, 0);
        }
        let from = conn.unacked.partition_point(|c| c.dsn < self.cursor[s.id]);
        for c in conn.unacked.range(from..) {
            if c.sent_on & s.bit == 0 {
                return Some(*c);
            }
            self.cursor[s.id] = c.dsn + c.len as u64;
        }
        conn.new_data.filter(|_| !conn.window_limited)
    }
}

impl Scheduler for Redundant {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        let backups = !subflows.iter().any(|s| s.usable && !s.backup);
        let n = subflows.len();
        for k in 0..n {
            let pos = (self.next + k) % n;
            let s = &subflows[pos];
            if s.backup != backups || !s.available() {
                continue;
            }
            if let Some(chunk) = self.chunk_for(s, conn) {
                self.next = pos + 1;
                return Step::Send { subflow: s.id, chunk };
            }
        }
        Step::Wait
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, sf};
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn every_subflow_carries_every_unacked_chunk() {
        let s = vec![sf(0, 10, 10), sf(1, 100, 10)];
        // Chunk 0 was sent on subflow 0 only; chunk 1000 on both.
        let unacked: VecDeque<Chunk> =
            [Chunk { dsn: 0, len: 1000, sent_on: 1 }, Chunk { dsn: 1000, len: 1000, sent_on: 3 }].into();
        let c = conn(&unacked, Some(2000), false);
        let mut r = Redundant::default();
        // Subflow 0's turn: it carried both, so new data; subflow 1 catches up on chunk 0.
        assert_eq!(r.next(&s, &c), Step::Send { subflow: 0, chunk: Chunk { dsn: 2000, len: 1000, sent_on: 0 } });
        assert_eq!(r.next(&s, &c), Step::Send { subflow: 1, chunk: unacked[0] });
    }
}
