//! The two timers every sender keeps — retransmission (RFC 6298) and pacing —
//! what is due when one of them fires, and the handshake's SYN, sent and
//! resent on the retransmission timer. Shared by the TCP, RCP and INRPP
//! senders; each builds its own SYN (RCP's and INRPP's carry their headers).

use crate::engine::timer::{Fire, Timer};
use crate::net::packet::Packet;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::sender::SenderStats;
use crate::tcp::{Io, TimerKind};
use crate::time::Time;

#[derive(Debug, Default, Clone)]
pub struct SenderTimers {
    pub rto: Timer,
    pub pacing: Timer,
}

/// What a sender must do after one of its timers ran.
pub enum Due {
    /// The retransmission timer expired.
    Retransmit,
    /// Pacing lets the next segment leave.
    Send,
}

/// What an expired retransmission timer leaves the sender to do.
pub enum Expiry {
    /// The SYN is unanswered: send it again.
    ResendSyn,
    /// Nothing is outstanding.
    Nothing,
    /// Outstanding data to recover; `expired` is the timeout that ran out
    /// (before this expiry's backoff).
    Recover { expired: Time },
}

impl SenderTimers {
    /// Handles the event of timer `kind` at `io.now`: a stale or moved timer
    /// is ignored or rescheduled through `io`; otherwise says what is due.
    pub fn fire(&mut self, kind: TimerKind, io: &mut Io) -> Option<Due> {
        let timer = match kind {
            TimerKind::Retransmit => &mut self.rto,
            TimerKind::Pacing => &mut self.pacing,
            TimerKind::DelayedAck => unreachable!("the delayed-ACK timer belongs to the receiver"),
        };
        match timer.fire(io.now) {
            Fire::Ignore => None,
            Fire::Reschedule(at) => {
                io.timers.push((kind, at));
                None
            }
            Fire::Run if kind == TimerKind::Retransmit => Some(Due::Retransmit),
            Fire::Run => Some(Due::Send),
        }
    }

    /// (Re)starts the retransmission timer to expire one RTO from now,
    /// backoff included (RFC 6298 §5.1, §5.3).
    pub fn arm_rto(&mut self, rtt: &RttEstimator, io: &mut Io) {
        if let Some(at) = self.rto.arm(io.now + rtt.rto()) {
            io.timers.push((TimerKind::Retransmit, at));
        }
    }

    /// Sends `syn` stamped with the time now (the SYN-ACK's echo is the
    /// first RTT measurement, RFC 6298 §2.2) and starts the timer that
    /// resends it (RFC 6298 §5.1).
    pub fn send_syn(&mut self, mut syn: Packet, rtt: &RttEstimator, stats: &mut SenderStats, io: &mut Io) {
        syn.ts_val = io.now;
        stats.packets_sent += 1;
        io.out.push(syn);
        self.arm_rto(rtt, io);
    }
}

/// The retransmission timer expired: backs the timeout off (RFC 6298 §5.5),
/// counts it, and says what is left to do — resend the SYN while `syn_sent`
/// (it is the earliest unacknowledged segment, §5.4), nothing if no data is
/// `outstanding`, else recover.
pub fn expire(rtt: &mut RttEstimator, stats: &mut SenderStats, syn_sent: bool, outstanding: bool) -> Expiry {
    let expired = rtt.rto();
    rtt.back_off();
    stats.timeouts += 1;
    if syn_sent {
        Expiry::ResendSyn
    } else if !outstanding {
        Expiry::Nothing
    } else {
        Expiry::Recover { expired }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expiry_backs_off_counts_and_says_what_is_left() {
        let mut rtt = RttEstimator::new(Time::from_secs(1), Time::from_millis(200), Time::from_secs(60));
        let mut stats = SenderStats::default();
        assert!(matches!(expire(&mut rtt, &mut stats, true, false), Expiry::ResendSyn));
        assert_eq!((rtt.rto(), stats.timeouts), (Time::from_secs(2), 1));
        assert!(matches!(expire(&mut rtt, &mut stats, false, false), Expiry::Nothing));
        match expire(&mut rtt, &mut stats, false, true) {
            Expiry::Recover { expired } => assert_eq!(expired, Time::from_secs(4)),
            _ => panic!("outstanding data is to be recovered"),
        }
        assert_eq!((rtt.rto(), stats.timeouts), (Time::from_secs(8), 3));
    }

    #[test]
    fn a_syn_is_stamped_counted_and_timed() {
        let rtt = RttEstimator::new(Time::from_secs(1), Time::from_millis(200), Time::from_secs(60));
        let (mut timers, mut stats, mut out, mut pending) = (SenderTimers::default(), SenderStats::default(), Vec::new(), Vec::new());
        let now = Time::from_millis(5);
        let syn = Packet::new(0, 0, 1, crate::net::packet::Kind::Syn, 40);
        timers.send_syn(syn, &rtt, &mut stats, &mut Io { now, out: &mut out, timers: &mut pending });
        assert_eq!((out.len(), out[0].ts_val, stats.packets_sent), (1, now, 1));
        assert_eq!(pending, [(TimerKind::Retransmit, now + Time::from_secs(1))]);
    }
}
