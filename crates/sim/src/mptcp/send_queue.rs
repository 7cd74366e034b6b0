//! The connection-level send side (RFC 8684 §3.3): data sequence numbers,
//! the chunks sent and not yet Data-ACKed, the reinjection queue and the
//! peer's receive window.
//!
//! New data is cut into chunks of one segment of the subflow it goes to
//! (`cut`; the subflows' MSS may differ). A chunk re-sent on another
//! subflow (reinjection, §3.3.6) keeps its DSN range, so the receiver
//! recognises the duplicate bytes by DSN; a subflow with a smaller MSS
//! carries it in pieces.

use std::collections::{BTreeSet, VecDeque};

use super::scheduler::{Chunk, ConnectionView};
use crate::time::Time;

pub struct SendQueue {
    /// Bytes the application has handed over (u64::MAX: bulk).
    limit: u64,
    /// Bytes per new chunk offered to the scheduler: the largest MSS among
    /// the established subflows (`cut` then fits it to the one chosen).
    chunk: u64,
    /// The next new DSN.
    snd_nxt: u64,
    /// The cumulative Data ACK (§3.3.2).
    data_una: u64,
    /// The right edge of the peer's receive window, data_ack + window at
    /// its largest: the sender never lets it move left (RFC 7323 §2.4; Linux's
    /// `tcp_select_window` never shrinks the offered window).
    right_edge: u64,
    unacked: VecDeque<Chunk>,
    /// DSNs of chunks to re-send on another subflow, oldest first.
    reinject: BTreeSet<u64>,
}

impl SendQueue {
    pub fn new(size: Option<u64>, chunk: u64, initial_window: u64) -> SendQueue {
        SendQueue {
            limit: size.unwrap_or(u64::MAX),
            chunk,
            snd_nxt: 0,
            data_una: 0,
            right_edge: initial_window,
            unacked: VecDeque::new(),
            reinject: BTreeSet::new(),
        }
    }

    /// The new chunks' size (the initial subflow's MSS, or TCP_MAXSEG).
    pub fn set_chunk(&mut self, chunk: u64) {
        self.chunk = chunk;
    }

    /// A subflow with MSS `mss` is up: new chunks are at least that large.
    pub fn raise_chunk(&mut self, mss: u64) {
        self.chunk = self.chunk.max(mss);
    }

    /// `chunk` as it goes to a subflow of MSS `mss`: new data no longer
    /// than `mss`; data already sent keeps its range.
    pub fn cut(&self, chunk: Chunk, mss: u32) -> Chunk {
        if chunk.dsn == self.snd_nxt {
            Chunk { len: chunk.len.min(mss), ..chunk }
        } else {
            chunk
        }
    }

    /// The application hands over `bytes` more (a sized source only).
    pub fn write(&mut self, bytes: u64) {
        self.limit += bytes;
    }

    /// A bulk application stops writing.
    pub fn stop_writing(&mut self) {
        self.limit = self.limit.min(self.snd_nxt);
    }

    pub fn data_una(&self) -> u64 {
        self.data_una
    }

    /// Bytes sent at the connection level and not yet Data-ACKed (Green MPTCP's inflight_D).
    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.data_una
    }

    /// A Data ACK with the window the receiver advertises from it (§3.3.4).
    pub fn on_data_ack(&mut self, data_ack: u64, window: u64) {
        if data_ack > self.data_una {
            self.data_una = data_ack.min(self.snd_nxt);
            while self.unacked.front().is_some_and(|c| c.dsn + c.len as u64 <= self.data_una) {
                self.unacked.pop_front();
            }
            self.reinject = self.reinject.split_off(&self.data_una);
        }
        self.right_edge = self.right_edge.max(data_ack + window);
    }

    /// Queues for reinjection the chunks holding `mappings` (those of the
    /// subflow with bit `bit`; a piece of a chunk names its chunk) that are
    /// not yet Data-ACKed and that no other subflow carries (Linux
    /// `mptcp_reinject_data`); returns how many.
    pub fn queue_reinjection(&mut self, mappings: impl Iterator<Item = (u64, u32)>, bit: u64) -> usize {
        let before = self.reinject.len();
        for (dsn, _) in mappings {
            if let Some(i) = self.find(dsn) {
                if self.unacked[i].sent_on & !bit == 0 {
                    self.reinject.insert(self.unacked[i].dsn);
                }
            }
        }
        self.reinject.len() - before
    }

    /// The unacknowledged chunk holding DSN `dsn`.
    fn find(&self, dsn: u64) -> Option<usize> {
        let i = self.unacked.partition_point(|c| c.dsn + c.len as u64 <= dsn);
        (self.unacked.get(i)?.dsn <= dsn).then_some(i)
    }

    /// What the scheduler sees.
    pub fn view(&self, now: Time) -> ConnectionView<'_> {
        let reinject = self.reinject.first().and_then(|&dsn| self.find(dsn)).map(|i| self.unacked[i]);
        let new_data = (self.snd_nxt < self.limit).then(|| Chunk {
            dsn: self.snd_nxt,
            len: (self.limit - self.snd_nxt).min(self.chunk) as u32,
            sent_on: 0,
        });
        ConnectionView {
            now,
            reinject,
            new_data,
            window_limited: new_data.is_some_and(|c| c.dsn + c.len as u64 > self.right_edge),
            send_window: self.right_edge - self.data_una,
            unacked: &self.unacked,
        }
    }

    /// Records that `chunk` goes on the subflow with bit `bit`; returns
    /// whether it had been sent before (a reinjection or a redundant copy).
    pub fn assign(&mut self, chunk: Chunk, bit: u64) -> bool {
        self.reinject.remove(&chunk.dsn);
        if chunk.dsn == self.snd_nxt {
            self.unacked.push_back(Chunk { sent_on: bit, ..chunk });
            self.snd_nxt += chunk.len as u64;
            return false;
        }
        let i = self.find(chunk.dsn).expect("scheduled chunks are new or unacknowledged");
        self.unacked[i].sent_on |= bit;
        true
    }

    /// A subflow with bit `bit` closed: its bit may be reused, and no chunk counts as carried by it.
    pub fn forget(&mut self, bit: u64) {
        for c in &mut self.unacked {
            c.sent_on &= !bit;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_window_and_reinjection() {
        let mut q = SendQueue::new(Some(2500), 1000, 2000);
        let v = q.view(Time::ZERO);
        assert_eq!(v.new_data, Some(Chunk { dsn: 0, len: 1000, sent_on: 0 }));
        assert!(!v.window_limited);
        assert!(!q.assign(v.new_data.unwrap(), 1));
        let c = q.view(Time::ZERO).new_data.unwrap();
        q.assign(c, 1);
        // The third chunk (500 bytes) is beyond the 2000-byte window.
        let v = q.view(Time::ZERO);
        assert_eq!(v.new_data, Some(Chunk { dsn: 2000, len: 500, sent_on: 0 }));
        assert!(v.window_limited);
        // Subflow 1 fails: both chunks are reinjected; the Data ACK then covers the first.
        assert_eq!(q.queue_reinjection([(0, 1000), (1000, 1000)].into_iter(), 1), 2);
        q.on_data_ack(1000, 2000);
        let v = q.view(Time::ZERO);
        assert_eq!(v.reinject, Some(Chunk { dsn: 1000, len: 1000, sent_on: 1 }));
        assert!(!v.window_limited);
        assert_eq!(v.send_window, 2000);
        assert!(q.assign(v.reinject.unwrap(), 2));
        assert_eq!(q.view(Time::ZERO).reinject, None);
        assert_eq!(q.unacked[0].sent_on, 3);
        q.forget(1);
        assert_eq!(q.unacked[0].sent_on, 2);
        // The window's right edge never moves left.
        q.on_data_ack(1000, 500);
        assert_eq!(q.view(Time::ZERO).send_window, 2000);
        assert_eq!(q.in_flight(), 1000);
    }

    #[test]
    fn new_data_is_cut_at_the_subflows_mss_and_pieces_name_their_chunk() {
        let mut q = SendQueue::new(None, 1388, 100_000);
        // A join with a larger MSS is up: new chunks are offered at 1448.
        q.raise_chunk(1448);
        let c = q.view(Time::ZERO).new_data.unwrap();
        assert_eq!(c.len, 1448);
        // Cut for the 1388-byte subflow (bit 1), then a 1448-byte one for bit 2.
        q.assign(q.cut(c, 1388), 1);
        let c = q.view(Time::ZERO).new_data.unwrap();
        assert_eq!((c.dsn, q.cut(c, 1448).len), (1388, 1448));
        q.assign(q.cut(c, 1448), 2);
        // Data already sent keeps its range whatever the subflow.
        assert_eq!(q.cut(q.unacked[1], 1388).len, 1448);
        // Bit 2 fails: a mapping inside its chunk (a piece of it, as a smaller-MSS subflow sends it) names the chunk.
        assert_eq!(q.queue_reinjection([(1388 + 1388, 60)].into_iter(), 2), 1);
        assert_eq!(q.view(Time::ZERO).reinject, Some(Chunk { dsn: 1388, len: 1448, sent_on: 2 }));
    }
}
