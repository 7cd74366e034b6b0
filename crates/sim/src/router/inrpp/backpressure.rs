//! Hop-by-hop backpressure (Reñé et al., §II-A.3–4, §II-B, Fig. 5): the
//! notifications an interface piggybacks on the ACKs it sees, and the
//! nonces it stores for the interfaces downstream that asked it to slow
//! down.
//!
//! An interface in Backpressure tags every ACK of its flows with a
//! slow-down and its nonce; in Disable Backpressure with a cancel and its
//! nonce. The next interface upstream (where the ACK arrives, Algorithm 1
//! processes it) stores the nonce, caches the data packets that carry it
//! and sends one of them per slow-down ACK (closed loop); it passes the
//! slow-down further up only if it is itself in Backpressure, and otherwise
//! leaves the nonce alone in the ACK, for the sender to echo in its data. A
//! cancel removes the nonce wherever it is stored, all the way to the
//! sender.
//!
//! Stored nonces are soft state (as RSVP's, RFC 2205 §1.2): each slow-down
//! refreshes its nonce for `lifetime`, and a nonce not refreshed in time is
//! forgotten, so a lost cancel, or a downstream interface that no longer
//! sees ACKs, cannot keep a flow in closed loop for ever. The paper's
//! "expiration timers" leave the mechanism open; this is the usual one.
//! A router's nonce storage is bounded (§V-C: "a cache with an eviction
//! policy such as Least-Recently-Used"): the module evicts the least
//! recently refreshed nonce of any of its interfaces when it holds more
//! than `nonce_capacity`.

use std::collections::BTreeMap;

use super::state::State;
use crate::net::packet::{InrppOption, Nonce, Note};
use crate::time::Time;

/// The nonces stored at one interface, with when each expires.
pub struct NonceStore {
    expires: BTreeMap<Nonce, Time>,
    lifetime: Time,
}

impl NonceStore {
    pub fn new(lifetime: Time) -> NonceStore {
        NonceStore { expires: BTreeMap::new(), lifetime }
    }

    /// Algorithm 1, line 16 (and a refresh).
    pub fn store(&mut self, nonce: Nonce, now: Time) {
        self.expires.insert(nonce, now + self.lifetime);
    }

    /// Algorithm 1, line 24.
    pub fn forget(&mut self, nonce: Nonce) {
        self.expires.remove(&nonce);
    }

    /// Whether a packet carrying `opt` belongs to a flow served in closed
    /// loop here: one of its nonces is stored and alive.
    pub fn holds(&self, opt: &InrppOption, now: Time) -> bool {
        opt.nonces().any(|n| self.expires.get(&n).is_some_and(|&t| t > now))
    }

    /// Whether any stored nonce is alive: the interface serves some flow in
    /// closed loop (what `hold = "interface"` holds every INRPP packet for).
    pub fn any_alive(&self, now: Time) -> bool {
        self.expires.values().any(|&t| t > now)
    }

    /// Forgets the nonces that expired by `now`; whether there were any.
    pub fn expire(&mut self, now: Time) -> bool {
        let before = self.expires.len();
        self.expires.retain(|_, t| *t > now);
        self.expires.len() != before
    }

    pub fn count(&self) -> usize {
        self.expires.len()
    }

    /// The least recently stored or refreshed nonce, and when it expires.
    pub fn oldest(&self) -> Option<(Nonce, Time)> {
        self.expires.iter().min_by_key(|&(n, t)| (*t, *n)).map(|(&n, &t)| (n, t))
    }
}

/// What Algorithm 1 did with one ACK at one interface.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AckOutcome {
    /// A slow-down came from downstream: release one cached packet of the ACK's flow.
    pub release: bool,
    pub slow_downs_heard: u32,
    pub cancels_heard: u32,
    /// This interface tagged the ACK with its own slow-down / cancel.
    pub slow_down_sent: bool,
    pub cancel_sent: bool,
}

/// Algorithm 1 for ACK option `opt` at an interface now in `state` (lines
/// 2–13 already applied, see `state::next`), whose own nonce is `own`.
///
/// Lines 14–25 act on the notifications that came from downstream; the
/// slow-down or cancel this interface adds (lines 4 and 8) is appended
/// after them, so that line 14's test sees only what came from downstream —
/// otherwise an interface would release packets for its own slow-downs.
pub fn process_ack(opt: &mut InrppOption, state: State, own: Nonce, store: &mut NonceStore, now: Time) -> AckOutcome {
    let mut out = AckOutcome::default();
    let received = *opt;
    for &(nonce, note) in received.entries() {
        if nonce == own {
            continue;
        }
        match note {
            Note::SlowDown => {
                store.store(nonce, now);
                out.release = true;
                out.slow_downs_heard += 1;
                if state != State::Backpressure {
                    // Lines 19–21: the closed loop stops here; the nonce goes on alone.
                    opt.set(nonce, Note::Nonce);
                }
            }
            Note::Cancel => {
                store.forget(nonce);
                out.cancels_heard += 1;
            }
            Note::Nonce => {}
        }
    }
    match state {
        State::Backpressure => out.slow_down_sent = opt.set(own, Note::SlowDown),
        State::DisableBackpressure => out.cancel_sent = opt.set(own, Note::Cancel),
        State::Push | State::StoreAndDetour => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Time = Time::from_millis(100);

    fn ack(notes: &[(Nonce, Note)]) -> InrppOption {
        let mut o = InrppOption::default();
        for &(n, note) in notes {
            o.set(n, note);
        }
        o
    }

    fn store() -> NonceStore {
        NonceStore::new(Time::from_millis(100))
    }

    /// Each branch of Algorithm 1's lines 14–25 and the notifications of lines 4 and 8.
    #[test]
    fn algorithm_1_branches() {
        // A slow-down from downstream at an interface not in Backpressure:
        // store the nonce, release a packet, clear the slow-down but keep the nonce.
        let mut s = store();
        let mut o = ack(&[(5, Note::SlowDown)]);
        let r = process_ack(&mut o, State::StoreAndDetour, 1, &mut s, NOW);
        assert!(r.release && !r.slow_down_sent && !r.cancel_sent);
        assert_eq!(o.entries(), &[(5, Note::Nonce)]);
        assert!(s.holds(&ack(&[(5, Note::Nonce)]), NOW));
        // The same at an interface in Backpressure: the slow-down goes on, with ours.
        let mut o = ack(&[(5, Note::SlowDown)]);
        let r = process_ack(&mut o, State::Backpressure, 1, &mut s, NOW);
        assert!(r.release && r.slow_down_sent);
        assert_eq!(o.entries(), &[(5, Note::SlowDown), (1, Note::SlowDown)]);
        // A cancel: the nonce is forgotten, the cancel travels on.
        let mut o = ack(&[(5, Note::Cancel)]);
        let r = process_ack(&mut o, State::Push, 1, &mut s, NOW);
        assert!(!r.release && r.cancels_heard == 1);
        assert_eq!(o.entries(), &[(5, Note::Cancel)]);
        assert!(!s.holds(&ack(&[(5, Note::Nonce)]), NOW));
        // Disable Backpressure adds our cancel; a bare nonce is left as it is.
        let mut o = ack(&[(5, Note::Nonce)]);
        let r = process_ack(&mut o, State::DisableBackpressure, 1, &mut s, NOW);
        assert!(!r.release && r.cancel_sent);
        assert_eq!(o.entries(), &[(5, Note::Nonce), (1, Note::Cancel)]);
        // Nothing from downstream, Push: the ACK is untouched.
        let mut o = ack(&[]);
        assert_eq!(process_ack(&mut o, State::Push, 1, &mut s, NOW), AckOutcome::default());
        assert!(o.entries().is_empty());
    }

    #[test]
    fn stored_nonces_expire_unless_refreshed() {
        let mut s = store();
        s.store(5, NOW);
        let five = ack(&[(5, Note::Nonce)]);
        assert!(s.holds(&five, NOW + Time::from_millis(99)));
        assert!(s.any_alive(NOW + Time::from_millis(99)));
        assert!(!s.holds(&five, NOW + Time::from_millis(100)));
        assert!(!s.any_alive(NOW + Time::from_millis(100)));
        s.store(5, NOW + Time::from_millis(50));
        assert!(!s.expire(NOW + Time::from_millis(100)));
        assert!(s.expire(NOW + Time::from_millis(150)));
        assert_eq!(s.count(), 0);
    }
}
