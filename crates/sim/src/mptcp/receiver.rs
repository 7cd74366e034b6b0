//! The receiving end of an MPTCP connection: one TCP receiver per subflow,
//! created by the subflow's SYN (or first segment), and the connection-level
//! reassembly they feed.
//!
//! A subflow hands a segment's data to the connection once the subflow has
//! it in order (its own reassembly comes first, as in Linux, where the
//! meta-socket sees a subflow's data only in subflow order); the connection
//! then places it by DSN. Every ACK a subflow sends carries the Data ACK and
//! the connection-level window (RFC 8684 §3.3.2, §3.3.4); the subflow's own
//! buffer never limits.

use std::collections::BTreeMap;

use super::reassembly::Reassembly;
use super::timers::SubflowTimers;
use crate::net::packet::{Dss, Kind, Packet};
use crate::net::NodeId;
use crate::tcp::{Io, TcpConfig, TcpReceiver, TimerKind};
use crate::time::Time;

pub struct RxSubflow {
    rx: TcpReceiver,
    /// This end's interface and the peer's.
    local_if: u16,
    remote_if: u16,
    /// Mappings of segments received ahead of the subflow's next expected
    /// byte: subflow sequence number → (dsn, len).
    pending: BTreeMap<u64, (u64, u32)>,
    /// Payload bytes handed to the connection, duplicates included.
    pub delivered: u64,
}

pub struct MptcpReceiver {
    flow: u32,
    local: NodeId,
    peer: NodeId,
    header_bytes: u32,
    /// Subflow configuration: the flow's, with a buffer that never limits.
    cfg: TcpConfig,
    size: Option<u64>,
    subflows: Vec<Option<RxSubflow>>,
    pub reassembly: Reassembly,
    timers: SubflowTimers,
    scratch: Vec<(TimerKind, Time)>,
    /// The MSS option every subflow's SYN-ACK announces (0: none).
    announced_mss: u16,
    /// When the last byte reached the application.
    pub finished_at: Option<Time>,
}

impl MptcpReceiver {
    /// The connection-level buffer is `cfg.rcv_buffer`.
    pub fn new(flow: u32, local: NodeId, peer: NodeId, size: Option<u64>, header_bytes: u32, cfg: TcpConfig) -> MptcpReceiver {
        let reassembly = Reassembly::new(cfg.rcv_buffer);
        let cfg = TcpConfig { rcv_buffer: u64::MAX / 4, ..cfg };
        MptcpReceiver {
            flow,
            local,
            peer,
            header_bytes,
            cfg,
            size,
            subflows: Vec::new(),
            reassembly,
            timers: SubflowTimers::default(),
            scratch: Vec::new(),
            announced_mss: 0,
            finished_at: None,
        }
    }

    /// The MSS option the subflows announce from now on (`TcpReceiver::announce_mss`).
    pub fn announce_mss(&mut self, mss: u16) {
        self.announced_mss = mss;
    }

    /// In-order bytes delivered to the application.
    pub fn delivered(&self) -> u64 {
        self.reassembly.delivered()
    }

    /// Bytes held out of order at the connection level.
    pub fn ooo_bytes(&self) -> u64 {
        self.reassembly.ooo_bytes()
    }

    /// Bytes subflow `id` handed to the connection (0 if it never received any).
    pub fn subflow_delivered(&self, id: usize) -> u64 {
        self.subflows.get(id).and_then(Option::as_ref).map_or(0, |s| s.delivered)
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        let j = p.subflow as usize;
        if self.subflows.len() <= j {
            self.subflows.resize_with(j + 1, || None);
        }
        if self.subflows[j].is_none() {
            let mut rx = TcpReceiver::new(self.flow, self.local, self.peer, None, self.header_bytes, self.cfg.clone());
            rx.announce_mss(self.announced_mss);
            self.subflows[j] = Some(RxSubflow { rx, local_if: p.dst_if, remote_if: p.src_if, pending: BTreeMap::new(), delivered: 0 });
        }
        let sf = self.subflows[j].as_mut().expect("created above");
        let before = sf.rx.delivered();
        if let (Kind::Data, Some(dss)) = (p.kind, p.dss) {
            if p.seq >= before {
                sf.pending.insert(p.seq, (dss.dsn, p.len));
            }
        }
        let n0 = io.out.len();
        sf.rx.on_packet(p, &mut Io { now: io.now, out: io.out, timers: &mut self.scratch });
        let now_in_order = sf.rx.delivered();
        while let Some(entry) = sf.pending.first_entry() {
            if *entry.key() >= now_in_order {
                break;
            }
            let (dsn, len) = entry.remove();
            sf.delivered += len as u64;
            self.reassembly.insert(dsn, len, io.now);
        }
        self.timers.take(j as u16, &mut self.scratch, io.timers);
        self.address(j, &mut io.out[n0..]);
        if self.size.is_some_and(|s| self.reassembly.delivered() >= s) && self.finished_at.is_none() {
            self.finished_at = Some(io.now);
        }
    }

    /// A delayed-ACK timer fired.
    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        for sub in self.timers.due(kind, io.now) {
            let j = sub as usize;
            let n0 = io.out.len();
            let sf = self.subflows[j].as_mut().expect("timers belong to existing subflows");
            sf.rx.on_timer(kind, &mut Io { now: io.now, out: io.out, timers: &mut self.scratch });
            self.timers.take(sub, &mut self.scratch, io.timers);
            self.address(j, &mut io.out[n0..]);
        }
    }

    /// Puts subflow `j`'s addresses, the Data ACK and the connection-level
    /// window on the packets it just sent.
    fn address(&self, j: usize, out: &mut [Packet]) {
        let sf = self.subflows[j].as_ref().expect("sending subflow exists");
        for a in out {
            a.subflow = j as u16;
            a.src_if = sf.local_if;
            a.dst_if = sf.remote_if;
            a.dss = Some(Dss { dsn: 0, data_ack: self.reassembly.delivered() });
            a.rwnd = self.reassembly.window();
        }
    }
}
