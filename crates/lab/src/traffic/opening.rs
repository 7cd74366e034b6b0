//! A connection's opening on the lab: the moment before its client's SYN
//! when the client's controllers may still set what the handshake announces
//! (`Event::ConnectionOpening`, `Action::SetMss`), as in the simulator.
//!
//! The client thread asks (`ask`) and waits; the client host's controller
//! thread sees the question at its next pass (`asked`), tells its
//! controllers `ConnectionOpening`, records a `SetMss` (`set_mss`) and
//! answers (`answer`). The client then sets TCP_MAXSEG on its socket before
//! `connect` (tcp(7); on an MPTCP socket the kernel keeps it and applies it
//! to every subflow, the joins included: `mptcp_setsockopt_sol_tcp` and
//! `sync_socket_options`, net/mptcp/sockopt.c, since Linux 6.17).

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

use super::{RunClock, POLL};

const ASKED: u8 = 1;
const ANSWERED: u8 = 2;

/// One flow's opening question and answer.
#[derive(Default)]
pub struct Opening {
    /// 0 until the client asks, then `ASKED`, then `ANSWERED`.
    state: AtomicU8,
    /// The MSS option to announce; 0: none set.
    mss: AtomicU32,
}

impl Opening {
    /// The client is about to connect and waits for `answer`.
    pub fn ask(&self) {
        self.state.store(ASKED, Ordering::Release);
    }

    /// Whether the client waits for an answer.
    pub fn asked(&self) -> bool {
        self.state.load(Ordering::Acquire) == ASKED
    }

    /// A controller's MSS for the handshake; refused once the client has its answer (its SYN may have left).
    pub fn set_mss(&self, mss: u16) -> Result<(), String> {
        if !self.asked() {
            return Err("its SYN has left (or the client did not ask); the MSS it announced stands (set it at connection_opening)".into());
        }
        self.mss.store(mss as u32, Ordering::Release);
        Ok(())
    }

    /// The controllers have heard of the opening: the client may connect.
    pub fn answer(&self) {
        self.state.store(ANSWERED, Ordering::Release);
    }

    /// Waits for the answer; None if the run stopped first, else the MSS set (if any).
    pub fn wait(&self, clock: &RunClock) -> Option<Option<u16>> {
        while self.state.load(Ordering::Acquire) != ANSWERED {
            if clock.stopped() {
                return None;
            }
            std::thread::sleep(POLL / 50);
        }
        Some(match self.mss.load(Ordering::Acquire) {
            0 => None,
            m => Some(m as u16),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn an_mss_is_taken_only_while_the_client_waits() {
        let clock = RunClock { epoch: Instant::now(), stop: Default::default() };
        let o = Opening::default();
        assert!(o.set_mss(1400).is_err());
        o.ask();
        assert!(o.asked());
        o.set_mss(1400).unwrap();
        o.answer();
        assert_eq!(o.wait(&clock), Some(Some(1400)));
        assert!(o.set_mss(1300).is_err());
        let none = Opening::default();
        none.ask();
        none.answer();
        assert_eq!(none.wait(&clock), Some(None));
    }
}
