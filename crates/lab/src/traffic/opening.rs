//! A connection's opening on the lab: the moment before its client's SYN
//! when the client's controllers may still set what the handshake announces
//! and how the client sends (`Event::ConnectionOpening`, `Action::SetMss`,
//! `Action::SetCongestionControl`), as in the simulator.
//!
//! The client thread asks (`ask`) and waits; the client host's controller
//! thread sees the question at its next pass (`asked`), tells its
//! controllers `ConnectionOpening`, records a `SetMss` (`set_mss`) or a
//! congestion control (`set_cc`) and answers (`answer`). The client then
//! sets TCP_MAXSEG and TCP_CONGESTION on its socket before `connect`
//! (tcp(7)). On an MPTCP socket the kernel keeps both and applies them to
//! every subflow, the joins included: `mptcp_setsockopt_sol_tcp` (TCP_MAXSEG
//! since Linux 6.17) and `mptcp_setsockopt_sol_tcp_congestion`, then
//! `sync_socket_options` on each new subflow, net/mptcp/sockopt.c.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::Mutex;

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
    /// The congestion control to run (`cc::names()`); None: the client's own.
    cc: Mutex<Option<String>>,
}

/// What the client's controllers set before its SYN.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub mss: Option<u16>,
    /// A congestion control (`cc::names()`; the client sets its kernel name).
    pub cc: Option<String>,
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

    /// A controller's congestion control for the client's socket; refused
    /// once the client has its answer.
    pub fn set_cc(&self, algorithm: &str) -> Result<(), String> {
        if !self.asked() {
            return Err("its SYN has left (or the client did not ask); set the congestion control at connection_opening".into());
        }
        *self.cc.lock().unwrap_or_else(|e| e.into_inner()) = Some(algorithm.to_string());
        Ok(())
    }

    /// The congestion control a controller set, if any (the `flows` table's `cc`).
    pub fn cc(&self) -> Option<String> {
        self.cc.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The controllers have heard of the opening: the client may connect.
    pub fn answer(&self) {
        self.state.store(ANSWERED, Ordering::Release);
    }

    /// Waits for the answer; None if the run stopped first, else what was set.
    pub fn wait(&self, clock: &RunClock) -> Option<Answer> {
        while self.state.load(Ordering::Acquire) != ANSWERED {
            if clock.stopped() {
                return None;
            }
            std::thread::sleep(POLL / 50);
        }
        let mss = match self.mss.load(Ordering::Acquire) {
            0 => None,
            m => Some(m as u16),
        };
        Some(Answer { mss, cc: self.cc() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn an_mss_and_a_congestion_control_are_taken_only_while_the_client_waits() {
        let clock = RunClock { epoch: Instant::now(), stop: Default::default() };
        let o = Opening::default();
        assert!(o.set_mss(1400).is_err());
        assert!(o.set_cc("bbr").is_err());
        o.ask();
        assert!(o.asked());
        o.set_mss(1400).unwrap();
        o.set_cc("bbr").unwrap();
        o.answer();
        assert_eq!(o.wait(&clock), Some(Answer { mss: Some(1400), cc: Some("bbr".into()) }));
        assert!(o.set_mss(1300).is_err());
        assert!(o.set_cc("cubic").is_err());
        let none = Opening::default();
        none.ask();
        none.answer();
        assert_eq!(none.wait(&clock), Some(Answer::default()));
    }
}
