//! Congestion control behind one small trait, chosen by name per flow.
//!
//! The TCP sender owns loss detection and recovery (when to retransmit);
//! the algorithm owns the window (how much may be in flight) and, if it
//! wants, a pacing rate. This is the split of Linux's `tcp_congestion_ops`.
//! A new algorithm is a new file here plus one line in `make`.

pub mod newreno;

use crate::time::Time;

/// The window state an algorithm reads and writes. Bytes throughout.
#[derive(Debug, Clone)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// Bytes per second; None sends as fast as the window allows.
    pub pacing_rate: Option<f64>,
}

/// What one ACK tells the algorithm.
#[derive(Debug, Clone)]
pub struct AckInfo {
    pub now: Time,
    /// Bytes newly acknowledged by the cumulative ACK (not counted before by SACK).
    pub acked: u64,
    /// RTT sample taken from this ACK (RFC 7323 timestamp echo), if any.
    pub rtt: Option<Time>,
    pub srtt: Option<Time>,
    pub min_rtt: Option<Time>,
    /// Bytes in flight after this ACK (RFC 6675 "pipe").
    pub in_flight: u64,
    /// The sender is in fast recovery (Reno-style algorithms hold the window).
    pub in_recovery: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Congestion {
    /// Loss inferred from duplicate ACKs / SACK: entering fast recovery.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
}

pub trait CongestionControl {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo);
    /// Sets ssthresh and cwnd on a congestion signal; `in_flight` is FlightSize.
    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, in_flight: u64);
    /// Fast recovery is over (the recovery point was acknowledged).
    fn on_recovery_exit(&mut self, s: &mut CcState);
}

/// Names accepted in scenarios.
pub fn names() -> &'static [&'static str] {
    &["newreno"]
}

pub fn make(name: &str) -> Box<dyn CongestionControl> {
    match name {
        "newreno" => Box::new(newreno::NewReno::default()),
        other => panic!("congestion control '{other}' passed validation but is unknown"),
    }
}
