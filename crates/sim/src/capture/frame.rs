//! One simulated packet as an Ethernet II / IPv4 / TCP or UDP frame
//! (docs/results.md, "pcap export"), built with `etherparse`.
//!
//! Sequence numbers: both ends' initial sequence number is 2^32 − 1, so the
//! SYN occupies 2^32 − 1 and the first payload byte is 0: a data segment's
//! sequence number is the simulator's byte offset modulo 2^32, and an ACK's
//! acknowledgement number the simulator's cumulative ACK modulo 2^32. The
//! receiving end sends no data, so its segments' sequence number is 0.
//! Likewise MPTCP's initial data sequence numbers are taken as 2^64 − 1, so
//! DSS carries the simulator's data offsets unchanged. The payload is not
//! captured: the frame holds the headers, its original length counts the
//! payload, and the checksums are those of an all-zero payload.

use etherparse::{IpNumber, PacketBuilder};

use super::addresses::{client_port, dns_client_port, mac, Addresses, DNS_PORT, SERVER_PORT};
use super::mptcp_option as mptcp;
use crate::net::packet::{Kind, Packet, ANY_INTERFACE};
use crate::net::NodeId;
use crate::scenario::Model;
use crate::time::Time;

/// Initial sequence number of both ends (see the module comment).
const ISN: u32 = u32::MAX;
/// IPv4 time to live of every packet (Linux's default).
const TTL: u8 = 64;
/// IP protocol number of router modules' control packets (INRPP's detour
/// probes): 253, reserved for experimentation (RFC 3692).
const CONTROL_PROTOCOL: u8 = 253;
/// Option bytes a TCP header can hold (RFC 9293 §3.1: data offset ≤ 15 words).
const MAX_OPTIONS: usize = 40;
const NOP: u8 = 1;
const EOL: u8 = 0;

/// What a flow's connection looks like on the wire.
struct Conn {
    /// The end that sends the SYN (the flow's source).
    opener: NodeId,
    mptcp: bool,
    sack: bool,
    /// MSS option value: the flow's payload MSS plus its header bytes beyond 40 (the timestamp option).
    mss_option: u16,
    /// Window scale shift (RFC 7323 §2): the least that fits the receive buffer in 16 bits, at most 14.
    wscale: u8,
    rcv_buffer: u64,
    /// Its segments' header bytes: `sim.header_bytes`, 20 more over IPv6
    /// (written as IPv4 frames all the same: docs/scenario.md, `families`).
    header_bytes: u32,
}

pub struct Frames {
    addresses: Addresses,
    conns: Vec<Conn>,
    /// Nodes that run a DNS resolver (their UDP port is 53).
    resolver: Vec<bool>,
    options: Vec<u8>,
    zeros: Vec<u8>,
    buf: Vec<u8>,
}

impl Frames {
    pub fn new(model: &Model, addresses: Addresses) -> Frames {
        let conns = model
            .flows
            .iter()
            .map(|f| {
                let wscale = (0..14u8).find(|&s| f.tcp.rcv_buffer >> s <= u16::MAX as u64).unwrap_or(14);
                Conn {
                    opener: f.src,
                    mptcp: f.mptcp.is_some(),
                    sack: f.tcp.sack,
                    mss_option: (f.tcp.mss as u64 + model.header_bytes.saturating_sub(40) as u64).min(u16::MAX as u64) as u16,
                    wscale,
                    rcv_buffer: f.tcp.rcv_buffer,
                    header_bytes: f.family.header_bytes(model.header_bytes),
                }
            })
            .collect();
        let mut resolver = vec![false; model.nodes.len()];
        for r in &model.resolvers {
            resolver[r.node as usize] = true;
        }
        Frames {
            addresses,
            conns,
            resolver,
            options: Vec::with_capacity(MAX_OPTIONS),
            zeros: Vec::new(),
            buf: Vec::with_capacity(256),
        }
    }

    /// The frame of `p` on link direction `dir` (2k + side) of scenario link k:
    /// the captured bytes (headers only) and the frame's full length.
    pub fn build(&mut self, dir: u32, p: &Packet) -> (&[u8], u32) {
        let (link, side) = (dir / 2, dir % 2);
        let eth = PacketBuilder::ethernet2(
            mac(super::addresses::interface_ip(link, side)),
            mac(super::addresses::interface_ip(link, 1 - side)),
        );
        let ip = eth.ipv4(self.addresses.ip(p.src, p.src_if), self.addresses.ip(p.dst, p.dst_if), TTL);
        let payload = match p.kind {
            Kind::Datagram => p.len as usize,
            Kind::Control => p.size.saturating_sub(20) as usize,
            Kind::Request => p.size.saturating_sub(self.conns[p.flow as usize].header_bytes) as usize,
            _ => p.len as usize,
        };
        if self.zeros.len() < payload {
            self.zeros.resize(payload, 0);
        }
        self.buf.clear();
        let zeros = &self.zeros[..payload];
        let written = match p.kind {
            Kind::Datagram => {
                let port = |n: NodeId| if self.resolver[n as usize] { DNS_PORT } else { dns_client_port(n) };
                ip.udp(port(p.src), port(p.dst)).write(&mut self.buf, zeros).map_err(|e| e.to_string())
            }
            Kind::Control => ip.write(&mut self.buf, IpNumber(CONTROL_PROTOCOL), zeros).map_err(|e| e.to_string()),
            _ => {
                let c = &self.conns[p.flow as usize];
                let from_opener = p.src == c.opener;
                let port = client_port(p.flow, p.subflow);
                let (sport, dport) = if from_opener { (port, SERVER_PORT) } else { (SERVER_PORT, port) };
                let scaled = |w: u64| (w >> c.wscale).min(u16::MAX as u64) as u16;
                let unscaled = |w: u64| w.min(u16::MAX as u64) as u16;
                tcp_options(&mut self.options, c, p);
                let tcp = match p.kind {
                    Kind::Syn => ip.tcp(sport, dport, ISN, unscaled(c.rcv_buffer)).syn(),
                    Kind::SynAck => ip.tcp(sport, dport, ISN, unscaled(p.rwnd)).syn().ack(ISN.wrapping_add(1)),
                    Kind::Data => ip.tcp(sport, dport, p.seq as u32, scaled(c.rcv_buffer)).ack(ISN.wrapping_add(1)),
                    Kind::Ack => ip.tcp(sport, dport, ISN.wrapping_add(1), scaled(p.rwnd)).ack(p.ack as u32),
                    // The simulator keeps no sequence space for requests: they carry the initial one.
                    _ => ip.tcp(sport, dport, ISN.wrapping_add(1), scaled(c.rcv_buffer)).psh().ack(ISN.wrapping_add(1)),
                };
                let tcp = tcp.options_raw(&self.options).expect("options are padded to 4 bytes and at most 40");
                tcp.write(&mut self.buf, zeros).map_err(|e| e.to_string())
            }
        };
        written.expect("frames are built in memory, below IPv4's 64 KiB");
        let full = self.buf.len();
        (&self.buf[..full - payload], full as u32)
    }
}

/// The options of a TCP segment, in Linux's order: MSS, SACK-permitted,
/// timestamps and window scale on handshakes (RFC 9293 §3.1, RFC 2018 §2,
/// RFC 7323 §2–3), then MPTCP's; timestamps, then DSS, then as many SACK
/// blocks as the remaining option space holds (RFC 2018 §3) on the others.
fn tcp_options(out: &mut Vec<u8>, c: &Conn, p: &Packet) {
    out.clear();
    match p.kind {
        Kind::Syn | Kind::SynAck => {
            out.extend_from_slice(&[2, 4]);
            out.extend_from_slice(&c.mss_option.to_be_bytes());
            out.extend_from_slice(if c.sack { &[4, 2] } else { &[NOP, NOP] });
            timestamps(out, p);
            out.extend_from_slice(&[NOP, 3, 3, c.wscale]);
            if c.mptcp {
                // An interface index as MPTCP's address id (§3.2): 0 when unbound.
                let address_id = if p.src_if == ANY_INTERFACE { 0 } else { p.src_if as u8 };
                match (p.kind, p.subflow) {
                    (Kind::Syn, 0) => mptcp::capable_syn(out),
                    (_, 0) => mptcp::capable_syn_ack(out, mptcp::listener_key(p.flow)),
                    (Kind::Syn, _) => mptcp::join_syn(out, address_id),
                    _ => mptcp::join_syn_ack(out, address_id),
                }
            }
        }
        _ => {
            out.extend_from_slice(&[NOP, NOP]);
            timestamps(out, p);
            match p.dss.filter(|_| c.mptcp) {
                Some(d) if p.kind == Kind::Data => {
                    // The relative subflow sequence number counts the SYN as 0 (RFC 8684 §3.3.1).
                    mptcp::dss_mapping(out, d.dsn, (p.seq as u32).wrapping_add(1), p.len as u16);
                    // End-of-option-list and its padding (RFC 9293 §3.1) fill the header to 4 bytes.
                    out.extend_from_slice(&[EOL, 0]);
                }
                Some(d) if p.kind == Kind::Ack => mptcp::dss_data_ack(out, d.data_ack),
                _ => {}
            }
            let room = (MAX_OPTIONS - out.len()).saturating_sub(4) / 8;
            let blocks = &p.sack_blocks()[..(p.n_sack as usize).min(room)];
            if !blocks.is_empty() {
                out.extend_from_slice(&[NOP, NOP, 5, 2 + 8 * blocks.len() as u8]);
                for &(start, end) in blocks {
                    out.extend_from_slice(&(start as u32).to_be_bytes());
                    out.extend_from_slice(&(end as u32).to_be_bytes());
                }
            }
        }
    }
}

/// The timestamps option (RFC 7323 §3): TSval and TSecr in microseconds of simulated time, modulo 2^32.
fn timestamps(out: &mut Vec<u8>, p: &Packet) {
    let us = |t: Time| ((t.nanos() / 1000) as u32).to_be_bytes();
    out.extend_from_slice(&[8, 10]);
    out.extend_from_slice(&us(p.ts_val));
    out.extend_from_slice(&us(p.ts_ecr));
}
