//! Congestion control behind one small trait, chosen by name per flow.
//!
//! The TCP sender owns loss detection and recovery (when to retransmit);
//! the algorithm owns the window (how much may be in flight) and, if it
//! wants, a pacing rate. This is the split of Linux's `tcp_congestion_ops`.
//! A new algorithm is a new file here plus one line in `build`.

pub mod bbr;
pub mod bbr_long_term;
pub mod cubic;
pub mod hystart;
pub mod minmax;
pub mod newreno;
pub mod params;
pub mod westwood;

use std::any::Any;

use crate::engine::RngStream;
pub use crate::tcp::rate_sample::RateSample;
use crate::time::Time;
pub use params::{ParamTable, ParamValue, Params};

/// The window state an algorithm reads and writes. Bytes throughout.
#[derive(Debug, Clone, Default)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// Bytes of payload per second; None sends as fast as the window allows.
    /// When set, the sender spaces segments by `len / pacing_rate`.
    pub pacing_rate: Option<f64>,
    /// Set by the algorithm to have the sender mark its delivery-rate samples
    /// application-limited until what is in flight now is delivered (Linux's
    /// `tp->app_limited`, which BBR sets in PROBE_RTT); the sender clears it.
    pub mark_app_limited: bool,
}

/// What one ACK tells the algorithm. Every ACK is reported, duplicates included.
#[derive(Debug, Clone, Default)]
pub struct AckInfo {
    pub now: Time,
    /// Bytes newly acknowledged by the cumulative ACK (not counted before by
    /// SACK); 0 for a duplicate ACK.
    pub acked: u64,
    /// RTT sample of this ACK for the congestion control, if any: Linux's
    /// `ca_rtt_us` (`rs->rtt_us`), from the most recently sent segment it
    /// newly delivers (see `TcpSender`), not srtt's timestamp echo.
    pub rtt: Option<Time>,
    pub srtt: Option<Time>,
    /// The minimum of the `rtt` samples so far (Linux's `tcp_min_rtt`).
    pub min_rtt: Option<Time>,
    /// Bytes in flight after this ACK (RFC 6675 "pipe").
    pub in_flight: u64,
    /// The sender is in fast recovery (Reno-style algorithms hold the window).
    pub in_recovery: bool,
    /// The sender is recovering from a retransmission timeout (Linux's CA_Loss).
    pub in_loss_recovery: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Earliest time pacing lets the next segment leave (`now` or earlier when
    /// nothing is waiting; Linux's `tcp_wstamp_ns`).
    pub next_departure: Time,
    /// The delivery-rate sample of this ACK (draft-cheng-iccrg-delivery-rate-estimation).
    pub rate: RateSample,
    /// The sender has not been using its window, so it must not grow: never
    /// with `[tcp] cwnd_growth = "always"`; with `"cwnd_limited"`, when
    /// Linux's `tcp_is_cwnd_limited` is false (`tcp::cwnd_usage`).
    /// Window-based algorithms then skip their increase, as Linux's
    /// `cong_avoid` hooks do.
    pub window_unused: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Congestion {
    /// Loss inferred from duplicate ACKs / SACK: entering fast recovery.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
}

/// Downcasting to the concrete algorithm, for controllers that drive one
/// (eMPTCP sets Westwood+'s increment coefficient): see `TcpSender::cc_as_mut`.
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

pub trait CongestionControl: AsAny {
    /// Called once when the sender is created (Linux's `init`).
    fn init(&mut self, _s: &mut CcState) {}
    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo);
    /// Sets ssthresh and cwnd on a congestion signal; `in_flight` is FlightSize.
    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, in_flight: u64);
    /// Fast recovery is over (the recovery point was acknowledged).
    fn on_recovery_exit(&mut self, s: &mut CcState);
    /// True if the algorithm sets cwnd itself during recovery, so the sender
    /// applies no PRR (Linux skips `tcp_cwnd_reduction` for algorithms with
    /// their own `cong_control`, as BBR).
    fn owns_recovery_window(&self) -> bool {
        false
    }
    /// The algorithm's estimate of the path's bandwidth, bytes of payload per
    /// second, if it keeps one (Westwood+'s BWE, BBR's max-bandwidth filter).
    fn bandwidth_estimate(&self) -> Option<f64> {
        None
    }
    /// The additive-increase coefficient a (W ← W + a/W per ACK), if the
    /// algorithm exposes one to controllers (Westwood+, for eMPTCP's a = x²).
    fn increment(&self) -> Option<f64> {
        None
    }
    /// Linux's `sndbuf_expand`: how many windows' worth of segment memory the
    /// socket's send buffer is autotuned to (`tcp/send_buffer.rs`).
    fn sndbuf_expand(&self) -> u64 {
        2
    }
}

/// Names accepted in scenarios.
pub fn names() -> &'static [&'static str] {
    &["newreno", "cubic", "bbr", "westwood"]
}

/// Builds algorithm `name` with the scenario's `cc_params`, or lists what is
/// wrong with them as (parameter, message) pairs.
pub fn build(name: &str, table: &ParamTable, rng: RngStream) -> Result<Box<dyn CongestionControl>, Vec<(String, String)>> {
    let mut p = Params::new(name, table);
    let cc: Box<dyn CongestionControl> = match name {
        "newreno" => Box::new(newreno::NewReno::default()),
        "cubic" => Box::new(cubic::Cubic::new(cubic::CubicParams::read(&mut p))),
        "bbr" => Box::new(bbr::Bbr::new(bbr::BbrParams::read(&mut p), rng)),
        "westwood" => Box::new(westwood::Westwood::new(westwood::WestwoodParams::read(&mut p))),
        other => return Err(vec![(String::new(), format!("unknown congestion control '{other}'"))]),
    };
    p.finish()?;
    Ok(cc)
}

/// Problems with `table` as parameters of algorithm `name` (empty if none).
pub fn check_params(name: &str, table: &ParamTable) -> Vec<(String, String)> {
    let rng = crate::engine::Seeds { master: 0 }.stream("check");
    build(name, table, rng).err().unwrap_or_default()
}

pub fn make(name: &str, table: &ParamTable, rng: RngStream) -> Box<dyn CongestionControl> {
    build(name, table, rng).unwrap_or_else(|e| panic!("congestion control '{name}' passed validation but: {e:?}"))
}
