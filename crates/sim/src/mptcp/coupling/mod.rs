//! Congestion control of an MPTCP connection's subflows, chosen by name per
//! connection: `uncoupled` (each subflow runs a single-path algorithm, the
//! flow's `tcp.cc`) or a coupled algorithm — LIA (RFC 6356), OLIA (Khalili
//! et al.), BALIA (Peng et al.) — that sees every subflow of the connection.
//!
//! Each coupled algorithm is an ordinary `CongestionControl` per subflow
//! with a handle on the connection's `Shared` table, which the connection
//! refreshes from its subflows before it hands any of them an event (so
//! window changes made outside the algorithm — PRR, penalisation — are
//! seen). All three are Reno-based: slow start and fast recovery are
//! NewReno's; only the congestion-avoidance increase (and BALIA's decrease)
//! is coupled. Windows grow in whole segments, as Linux's do.
//!
//! eMPTCP plugs in with `uncoupled` Westwood+ subflows, whose increment
//! coefficient a controller sets through `MptcpSender::subflow_sender_mut`.

pub mod balia;
pub mod lia;
pub mod olia;

use std::cell::RefCell;
use std::rc::Rc;

use crate::cc::{self, CcState, CongestionControl};
use crate::engine::RngStream;
use crate::tcp::TcpConfig;
use crate::time::Time;

/// What one subflow shares with its siblings' congestion control.
#[derive(Debug, Clone, Default)]
pub struct PathState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    pub srtt: Option<Time>,
    /// Established, open and with an RTT sample: it takes part in the
    /// coupling (Linux's `mptcp_sk_can_send(sk) && tp->srtt`).
    pub active: bool,
    /// In fast recovery (OLIA then counts ssthresh as the window, Linux `mptcp_get_crt_cwnd`).
    pub in_recovery: bool,
    /// OLIA's ℓ_r, bytes: kept by the subflow's own OLIA instance.
    pub loss_interval: u64,
}

impl PathState {
    /// srtt in seconds; only meaningful for active paths.
    pub fn rtt(&self) -> f64 {
        self.srtt.map_or(f64::NAN, Time::secs)
    }
}

/// Per-connection table of every subflow's state, indexed by subflow id.
pub type Shared = Rc<RefCell<Vec<PathState>>>;

/// Coupling names accepted in scenarios.
pub fn names() -> &'static [&'static str] {
    &["uncoupled", "lia", "olia", "balia"]
}

/// The congestion control of subflow `id` under coupling `name`.
pub fn make(name: &str, shared: &Shared, id: usize, cfg: &TcpConfig, rng: RngStream) -> Box<dyn CongestionControl> {
    match name {
        "uncoupled" => cc::make(&cfg.cc, &cfg.cc_params, rng),
        "lia" => Box::new(lia::Lia::new(shared.clone(), id)),
        "olia" => Box::new(olia::Olia::new(shared.clone(), id)),
        "balia" => Box::new(balia::Balia::new(shared.clone(), id)),
        other => panic!("coupling '{other}' passed validation but is unknown"),
    }
}

/// Reno's slow start with byte counting (RFC 5681 §3.1, RFC 3465), as
/// `cc::newreno`: grows cwnd by the bytes acknowledged up to ssthresh and
/// returns what is left over for congestion avoidance.
pub fn slow_start(s: &mut CcState, acked: u64) -> u64 {
    if s.cwnd >= s.ssthresh {
        return acked;
    }
    let grow = acked.min(s.ssthresh - s.cwnd);
    s.cwnd += grow;
    acked - grow
}

/// Reno's response to loss (RFC 5681 eq. 4): ssthresh = FlightSize / 2;
/// cwnd = ssthresh after fast retransmit, one segment after a timeout.
pub fn reno_decrease(s: &mut CcState, ev: cc::Congestion, in_flight: u64) {
    s.ssthresh = (in_flight / 2).max(2 * s.mss);
    s.cwnd = match ev {
        cc::Congestion::FastRetransmit => s.ssthresh,
        cc::Congestion::Timeout => s.mss,
    };
}

/// Fractional window increases, applied a whole segment at a time (Linux
/// counts `snd_cwnd_cnt` towards one-segment steps); a negative credit (OLIA)
/// shrinks the window a segment at a time, never below one segment.
#[derive(Debug, Default)]
pub struct Credit(f64);

impl Credit {
    pub fn add(&mut self, s: &mut CcState, bytes: f64) {
        self.0 += bytes;
        let mss = s.mss as f64;
        // A segment's worth, less rounding noise (increments rarely sum exactly).
        let step = mss * (1.0 - 1e-9);
        while self.0 >= step {
            self.0 -= mss;
            s.cwnd += s.mss;
        }
        while self.0 <= -step {
            self.0 += mss;
            s.cwnd = s.cwnd.saturating_sub(s.mss).max(s.mss);
        }
    }

    pub fn reset(&mut self) {
        self.0 = 0.0;
    }
}

/// Writes this subflow's current window into the shared table (the
/// algorithm is called with its newest state) and returns the active paths
/// and the position of this one among them, if it is active.
pub fn snapshot(shared: &Shared, me: usize, s: &CcState, srtt: Option<Time>) -> (Vec<PathState>, Option<usize>) {
    let mut table = shared.borrow_mut();
    let own = &mut table[me];
    own.cwnd = s.cwnd;
    own.ssthresh = s.ssthresh;
    if srtt.is_some() {
        own.srtt = srtt;
    }
    let mut active = Vec::with_capacity(table.len());
    let mut pos = None;
    for (i, p) in table.iter().enumerate() {
        if p.active && p.srtt.is_some() {
            if i == me {
                pos = Some(active.len());
            }
            active.push(p.clone());
        }
    }
    (active, pos)
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A shared table of active paths with (cwnd bytes, srtt ms), mss 1000.
    pub fn table(paths: &[(u64, u64)]) -> Shared {
        Rc::new(RefCell::new(
            paths
                .iter()
                .map(|&(cwnd, ms)| PathState {
                    cwnd,
                    ssthresh: 1000,
                    mss: 1000,
                    srtt: Some(Time::from_millis(ms)),
                    active: true,
                    ..PathState::default()
                })
                .collect(),
        ))
    }

    pub fn state(cwnd: u64) -> CcState {
        CcState { cwnd, ssthresh: 1000, mss: 1000, ..CcState::default() }
    }
}
