//! The end-points of a flow, by transport: the world drives each the same
//! way (start, packets, timers) and reads the same measurements from it.

use std::rc::Rc;

use crate::engine::RngStream;
use crate::inrpp::{InrppSender, InterfaceShare};
use crate::mptcp::{MptcpReceiver, MptcpSender};
use crate::net::packet::Packet;
use crate::net::NodeId;
use crate::rcp::RcpSender;
use crate::tcp::sender::SenderStats;
use crate::tcp::{Io, TcpConfig, TcpReceiver, TcpSender, TimerKind};
use crate::time::Time;

// One per flow, kept in place in the world's flow table: boxing the larger
// variant would only add an indirection on every packet.
#[allow(clippy::large_enum_variant)]
pub enum Sender {
    Tcp(TcpSender),
    Rcp(RcpSender),
    Inrpp(InrppSender),
    /// An MPTCP connection's sending end: its subflows and their scheduler.
    Mptcp(Box<MptcpSender>),
}

impl Sender {
    /// The sender for `transport` (validated: "tcp", "rcp" or "inrpp"); `rng`
    /// is the flow's random stream for TCP's congestion control,
    /// `interface` the flow's first link, which the source host's INRPP
    /// senders take turns on (INRPP's processor sharing).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        transport: &str,
        flow: u32,
        src: NodeId,
        dst: NodeId,
        size: Option<u64>,
        header_bytes: u32,
        cfg: TcpConfig,
        rng: RngStream,
        interface: Rc<InterfaceShare>,
    ) -> Sender {
        match transport {
            "rcp" => Sender::Rcp(RcpSender::new(flow, src, dst, size, header_bytes, &cfg)),
            "inrpp" => Sender::Inrpp(InrppSender::new(flow, src, dst, size, header_bytes, &cfg, interface)),
            _ => Sender::Tcp(TcpSender::new(flow, src, dst, size, header_bytes, cfg, rng)),
        }
    }

    /// Whether the connection's first SYN has left (TCP and MPTCP; the
    /// others count as opened).
    pub fn opened(&self) -> bool {
        match self {
            Sender::Tcp(s) => s.opened(),
            Sender::Mptcp(s) => s.opened(),
            _ => true,
        }
    }

    /// Runs over `family` (validation allows IPv6 on single-path TCP only).
    pub fn set_family(&mut self, family: crate::net::family::Family) {
        if let Sender::Tcp(s) = self {
            s.set_family(family);
        }
    }

    /// Caps the payload per segment before the handshake (TCP and MPTCP only).
    pub fn cap_mss(&mut self, payload: u32) {
        match self {
            Sender::Tcp(s) => s.cap_mss(payload),
            Sender::Mptcp(s) => s.cap_mss(payload),
            _ => {}
        }
    }

    pub fn start(&mut self, io: &mut Io) {
        match self {
            Sender::Tcp(s) => s.start(io),
            Sender::Rcp(s) => s.start(io),
            Sender::Inrpp(s) => s.start(io),
            Sender::Mptcp(s) => s.start(io),
        }
    }

    /// The application appends `bytes` to the connection's stream
    /// (`crate::app`; validation allows applications on TCP and MPTCP only).
    pub fn write(&mut self, bytes: u64, io: &mut Io) {
        match self {
            Sender::Tcp(s) => s.write(bytes, io),
            Sender::Mptcp(s) => s.write(bytes, io),
            Sender::Rcp(_) | Sender::Inrpp(_) => unreachable!("applications run on TCP and MPTCP only"),
        }
    }

    pub fn stop_writing(&mut self) {
        match self {
            Sender::Tcp(s) => s.stop_writing(),
            Sender::Rcp(s) => s.stop_writing(),
            Sender::Inrpp(s) => s.stop_writing(),
            Sender::Mptcp(s) => s.stop_writing(),
        }
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        match self {
            Sender::Tcp(s) => s.on_packet(p, io),
            Sender::Rcp(s) => s.on_packet(p, io),
            Sender::Inrpp(s) => s.on_packet(p, io),
            Sender::Mptcp(s) => s.on_packet(p, io),
        }
    }

    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        match self {
            Sender::Tcp(s) => s.on_timer(kind, io),
            Sender::Rcp(s) => s.on_timer(kind, io),
            Sender::Inrpp(s) => s.on_timer(kind, io),
            Sender::Mptcp(s) => s.on_timer(kind, io),
        }
    }

    /// The handshake is done (for MPTCP, the initial subflow's); rate-based
    /// senders have none and count as established once started.
    pub fn is_established(&self) -> bool {
        match self {
            Sender::Tcp(s) => s.is_established(),
            Sender::Rcp(_) | Sender::Inrpp(_) => true,
            Sender::Mptcp(s) => s.is_established(),
        }
    }

    /// Data bytes the receiver acknowledged (for MPTCP, by Data ACKs); None
    /// for the rate-based senders, which do not keep a cumulative count.
    pub fn data_acked(&self) -> Option<u64> {
        match self {
            Sender::Tcp(s) => Some(s.acked()),
            Sender::Rcp(_) | Sender::Inrpp(_) => None,
            Sender::Mptcp(s) => Some(s.data_acked()),
        }
    }

    /// Counters; an MPTCP connection's are its subflows' together.
    pub fn stats(&self) -> &SenderStats {
        match self {
            Sender::Tcp(s) => &s.stats,
            Sender::Rcp(s) => &s.stats,
            Sender::Inrpp(s) => &s.stats,
            Sender::Mptcp(s) => s.stats(),
        }
    }

    /// Smoothed RTT; for MPTCP the lowest among the open subflows.
    pub fn srtt(&self) -> Option<Time> {
        match self {
            Sender::Tcp(s) => s.rtt.srtt(),
            Sender::Rcp(s) => s.rtt.srtt(),
            Sender::Inrpp(s) => s.rtt.srtt(),
            Sender::Mptcp(s) => s.sample().srtt,
        }
    }

    /// The mean and the smallest RTT sample (over every subflow for MPTCP).
    pub fn rtt_mean_min(&self) -> (Option<Time>, Option<Time>) {
        match self {
            Sender::Tcp(s) => (s.rtt.mean(), s.rtt.min_rtt),
            Sender::Rcp(s) => (s.rtt.mean(), s.rtt.min_rtt),
            Sender::Inrpp(s) => (s.rtt.mean(), s.rtt.min_rtt),
            Sender::Mptcp(s) => s.rtt_mean_min(),
        }
    }

    /// Bytes in flight (MPTCP: Σ over the open subflows).
    pub fn in_flight(&self) -> u64 {
        match self {
            Sender::Tcp(s) => s.in_flight(),
            Sender::Rcp(s) => s.in_flight(),
            Sender::Inrpp(s) => s.in_flight(),
            Sender::Mptcp(s) => s.sample().in_flight,
        }
    }

    /// Payload bytes per second the sender paces at, if it paces (MPTCP:
    /// the sum over the subflows that pace).
    pub fn pacing_rate(&self) -> Option<f64> {
        match self {
            Sender::Tcp(s) => s.ccs.pacing_rate,
            Sender::Rcp(s) => s.payload_rate(),
            Sender::Inrpp(s) => s.payload_rate(),
            Sender::Mptcp(s) => s.sample().pacing_rate,
        }
    }

    /// The congestion window, bytes (MPTCP: Σ over the open subflows). RCP
    /// has none: it reports what its rate carries in one smoothed RTT (0
    /// before it has both). INRPP has none either: it reports its bytes in
    /// flight.
    pub fn cwnd(&self) -> u64 {
        match self {
            Sender::Tcp(s) => s.ccs.cwnd,
            Sender::Rcp(s) => match (s.payload_rate(), s.rtt.srtt()) {
                (Some(rate), Some(srtt)) => (rate * srtt.secs()) as u64,
                _ => 0,
            },
            Sender::Inrpp(s) => s.in_flight(),
            Sender::Mptcp(s) => s.sample().cwnd,
        }
    }

    /// The congestion control's bandwidth estimate, payload bytes per second
    /// (MPTCP: the sum over the subflows that keep one).
    pub fn bw_estimate(&self) -> Option<f64> {
        match self {
            Sender::Tcp(s) => s.cc().bandwidth_estimate(),
            Sender::Rcp(_) | Sender::Inrpp(_) => None,
            Sender::Mptcp(s) => s.sample().bw_estimate,
        }
    }

    /// The congestion control's additive-increase coefficient (Westwood+'s
    /// a) of a single-path TCP flow; MPTCP subflows each have their own
    /// (`subflow_ts.increment`).
    pub fn increment(&self) -> Option<f64> {
        match self {
            Sender::Tcp(s) => s.cc().increment(),
            Sender::Rcp(_) | Sender::Inrpp(_) | Sender::Mptcp(_) => None,
        }
    }

    /// Green MPTCP's flow imbalance inflight_D − Σ inflight_i, bytes: data
    /// outstanding at the connection level minus what its subflows have in
    /// flight. 0 for single-path flows, which have one path.
    pub fn imbalance(&self) -> i64 {
        match self {
            Sender::Tcp(_) | Sender::Rcp(_) | Sender::Inrpp(_) => 0,
            Sender::Mptcp(s) => s.sample().imbalance,
        }
    }

    /// The congestion control's name for the results: "rcp" for RCP flows,
    /// "inrpp" for INRPP ones;
    /// for MPTCP the coupling ("lia", "olia", "balia"), or "uncoupled/"
    /// followed by the subflows' algorithm. What the sender runs: the
    /// scenario's, or what a controller set (`Action::SetCongestionControl`).
    pub fn cc_name(&self) -> String {
        match self {
            Sender::Tcp(s) => s.cc_name().to_string(),
            Sender::Rcp(_) => "rcp".into(),
            Sender::Inrpp(_) => "inrpp".into(),
            Sender::Mptcp(s) => match s.coupling() {
                "uncoupled" => format!("uncoupled/{}", s.subflow_cc()),
                coupled => coupled.to_string(),
            },
        }
    }

    /// Runs congestion control `name` before the first SYN: a TCP sender's
    /// (`rng`, its flow's stream, for the new algorithm), or every subflow of
    /// an MPTCP one, uncoupled. Err for the transports without a window.
    pub fn set_cc(&mut self, name: &str, rng: RngStream) -> Result<(), String> {
        match self {
            // Already its algorithm: it keeps the scenario's parameters.
            Sender::Tcp(s) if s.cc_name() == name => {}
            Sender::Tcp(s) => s.set_cc(name, crate::cc::build(name, &Default::default(), rng).map_err(|e| format!("congestion control '{name}': {e:?}"))?),
            Sender::Mptcp(s) => s.set_uncoupled_cc(name),
            Sender::Rcp(_) | Sender::Inrpp(_) => return Err("only TCP and MPTCP connections have a congestion control to set".into()),
        }
        Ok(())
    }
}

/// The receiving end-point of a flow; like `Sender`, kept in place.
#[allow(clippy::large_enum_variant)]
pub enum Receiver {
    /// TCP's, which RCP and INRPP use too.
    Tcp(TcpReceiver),
    Mptcp(Box<MptcpReceiver>),
}

impl Receiver {
    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        match self {
            Receiver::Tcp(r) => r.on_packet(p, io),
            Receiver::Mptcp(r) => r.on_packet(p, io),
        }
    }

    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        match self {
            Receiver::Tcp(r) => r.on_timer(kind, io),
            Receiver::Mptcp(r) => r.on_timer(kind, io),
        }
    }

    /// In-order bytes delivered to the application.
    pub fn delivered(&self) -> u64 {
        match self {
            Receiver::Tcp(r) => r.delivered(),
            Receiver::Mptcp(r) => r.delivered(),
        }
    }

    /// The MSS option its handshakes announce (`Packet::mss`).
    pub fn announce_mss(&mut self, mss: u16) {
        match self {
            Receiver::Tcp(r) => r.announce_mss(mss),
            Receiver::Mptcp(r) => r.announce_mss(mss),
        }
    }

    /// Sets the receive buffer (for MPTCP the connection-level one, RFC 8684
    /// §3.3.4): the window advertised from the next ACK on is at most `bytes`.
    pub fn set_buffer(&mut self, bytes: u64) {
        match self {
            Receiver::Tcp(r) => r.set_buffer(bytes),
            Receiver::Mptcp(r) => r.reassembly.set_buffer(bytes),
        }
    }

    /// When the last byte of a sized flow reached the application.
    pub fn finished_at(&self) -> Option<Time> {
        match self {
            Receiver::Tcp(r) => r.finished_at,
            Receiver::Mptcp(r) => r.finished_at,
        }
    }
}
