//! The two timers every sender keeps — retransmission (RFC 6298) and pacing —
//! and what is due when one of them fires. Shared by the TCP and RCP senders.

use crate::engine::timer::{Fire, Timer};
use crate::tcp::{Io, TimerKind};

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
}
