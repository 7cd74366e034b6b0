//! TCP: a sender and a receiver that exchange packets through the network.
//!
//! Endpoints never touch the network or the event queue: they are handed
//! an `Io` to which they append packets to send and timers to schedule, and
//! `sim::World` carries those out. That keeps TCP testable on its own.

pub mod cwnd_usage;
pub mod prr;
pub mod rack;
pub mod rate_sample;
pub mod receiver;
pub mod rtt;
pub mod sack_compression;
pub mod scoreboard;
pub mod send_buffer;
pub mod sender;
pub mod sender_timers;

use crate::net::packet::Packet;
use crate::time::Time;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

/// Fully resolved TCP parameters of one flow (see `scenario::spec::TcpSpec`).
#[derive(Debug, Clone)]
pub struct TcpConfig {
    pub cc: String,
    /// The algorithm's parameters (`[tcp.cc_params]`), validated by `cc::check_params`.
    pub cc_params: crate::cc::ParamTable,
    pub mss: u32,
    pub initial_window: u32,
    /// Slow-start threshold at the start, segments; None: arbitrarily high (RFC 5681 §3.1).
    pub initial_ssthresh: Option<u32>,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    pub sack: bool,
    pub recovery: RecoveryAlgorithm,
    pub delayed_ack: bool,
    pub delayed_ack_segments: u32,
    pub delayed_ack_timeout: Time,
    pub rcv_buffer: u64,
    pub handshake: bool,
    pub dupack_threshold: u32,
    /// NewReno (`sack = false`): cwnd when fast recovery ends (RFC 6582 §3.2 step 3).
    pub newreno_exit: NewRenoExit,
    /// NewReno (`sack = false`): which partial ACKs re-arm the retransmission timer (RFC 6582's Impatient and Slow-but-Steady variants).
    pub newreno_timer: NewRenoTimer,
    /// When the congestion control may raise cwnd (`cwnd_usage`).
    pub cwnd_growth: CwndGrowth,
    /// How the retransmission timeout is computed from srtt and rttvar (`rtt.rs`).
    pub rto_formula: RtoFormula,
    /// Whether a single-path sender's application is bounded by a send buffer (`send_buffer.rs`).
    pub send_buffer: SendBufferModel,
    /// RACK loss detection (RFC 8985, `rack.rs`) beside RFC 6675's, with SACK.
    pub rack: bool,
    /// Linux's SACK compression at the receiver (`sack_compression.rs`), with SACK.
    pub sack_compression: bool,
    /// What a loss-based algorithm's reduction on entering fast recovery starts from.
    pub ssthresh_from: SsthreshFrom,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: "newreno".into(),
            cc_params: Default::default(),
            mss: 1448,
            // RFC 6928.
            initial_window: 10,
            initial_ssthresh: None,
            // Linux's TCP_RTO_MIN.
            min_rto: Time::from_millis(200),
            // RFC 6298 §2.1.
            initial_rto: Time::from_secs(1),
            // RFC 6298 §2.5 allows an upper bound of at least 60 s.
            max_rto: Time::from_secs(60),
            sack: true,
            recovery: RecoveryAlgorithm::Prr,
            delayed_ack: false,
            // RFC 5681 §4.2: at least every second full-sized segment.
            delayed_ack_segments: 2,
            // Linux's TCP_DELACK_MIN.
            delayed_ack_timeout: Time::from_millis(40),
            // Large enough not to limit a single flow at 1 Gb/s × 100 ms.
            rcv_buffer: 16 << 20,
            handshake: true,
            dupack_threshold: 3,
            newreno_exit: NewRenoExit::Ssthresh,
            newreno_timer: NewRenoTimer::SlowButSteady,
            cwnd_growth: CwndGrowth::Always,
            rto_formula: RtoFormula::Rfc6298,
            send_buffer: SendBufferModel::Unlimited,
            rack: false,
            sack_compression: false,
            ssthresh_from: SsthreshFrom::FlightSize,
        }
    }
}

/// How cwnd evolves during fast recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryAlgorithm {
    /// Proportional Rate Reduction (RFC 6937), as Linux and ns-3 do by default.
    Prr,
    /// cwnd = ssthresh at once; send while pipe < cwnd (RFC 6675 §5).
    Rfc6675,
}

/// NewReno's cwnd on a full acknowledgment, the end of fast recovery
/// (RFC 6582 §3.2 step 3 allows either).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewRenoExit {
    /// cwnd = ssthresh (option 2; Linux's tcp_end_cwnd_reduction, ns-3).
    Ssthresh,
    /// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) (option 1; htsim),
    /// which avoids a burst when little is in flight.
    Flight,
}

/// NewReno's retransmission timer during fast recovery (RFC 6582's Impatient and Slow-but-Steady variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewRenoTimer {
    /// Re-armed by every partial ACK, so recovery repairs one hole per RTT
    /// for as long as it takes (Linux, ns-3 and htsim re-arm it on every
    /// ACK that advances snd_una).
    SlowButSteady,
    /// Re-armed by the first partial ACK only (RFC 6582 §3.2 step 3): with
    /// many holes the timer fires and the rest is resent under slow start.
    Impatient,
}

/// When the congestion control may raise cwnd on an ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndGrowth {
    /// On every ACK, as RFC 5681 §3.1 allows (ns-3, htsim).
    Always,
    /// Only while the sender is cwnd-limited (Linux's `tcp_is_cwnd_limited`,
    /// RFC 7661 §4.3): see `cwnd_usage`.
    CwndLimited,
}

/// How the retransmission timeout follows the RTT estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoFormula {
    /// max(min_rto, srtt + max(G, 4·rttvar)): RFC 6298 §2 with `min_rto` as the
    /// floor of §2.4 (ns-3's `TcpSocketBase`).
    Rfc6298,
    /// srtt + max(4·rttvar, min_rto): Linux (`tcp_rtt_estimator`, `__tcp_set_rto`).
    Linux,
}

/// What fast recovery's window reduction is a fraction of: ssthresh (β of
/// it) and PRR's RecoverFS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// FlightSize, the data sent and not cumulatively acknowledged (RFC 5681
    /// eq. 4, RFC 9438 §4.6, RFC 6937's RecoverFS). It counts SACKed data
    /// above a hole, so a loss found soon after a recovery, with older SACKed
    /// data still outstanding, can set ssthresh above cwnd.
    FlightSize,
    /// cwnd, as Linux does (`tcp_reno_ssthresh`, CUBIC's
    /// `bictcp_recalc_ssthresh`, and `prior_cwnd` as PRR's RecoverFS in
    /// `tcp_init_cwnd_reduction`).
    Cwnd,
}

/// What bounds the data a single-path sender's application has handed over
/// and not yet had acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SendBufferModel {
    /// Nothing: the congestion and receive windows alone limit what is sent
    /// (the idealised sender of RFC 5681, and htsim's).
    Unlimited,
    /// Linux's autotuned `sk_sndbuf`, at most `tcp_wmem[2]` = 4 MiB.
    Linux,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerKind {
    /// Sender's retransmission timer (also guards the SYN).
    Retransmit,
    /// Receiver's delayed-ACK timer.
    DelayedAck,
    /// Sender's pacing timer: the next segment's departure time has come.
    Pacing,
}

impl TimerKind {
    /// Whether the timer belongs to the sender (else to the receiver).
    pub fn at_sender(self) -> bool {
        matches!(self, TimerKind::Retransmit | TimerKind::Pacing)
    }
}

/// What an endpoint hands back to the world while handling an event.
pub struct Io<'a> {
    pub now: Time,
    pub out: &'a mut Vec<Packet>,
    pub timers: &'a mut Vec<(TimerKind, Time)>,
}
