//! What a host's controllers see (`control::View`), built as the
//! simulator's `World::view` builds it: the host's interfaces and the
//! connections it is an end of that are under way, with interfaces by
//! index and (local, remote) from the host's point of view — from the
//! host's own sockets (`TCP_INFO`, tcp(7); `MPTCP_INFO` and
//! `MPTCP_TCPINFO`, uapi `linux/mptcp.h`) and the emulator's counters of
//! its interfaces, nothing of other hosts but the addresses its peers have.

use std::os::fd::AsFd;

use pathpool_sim::control::view::{ConnectionView, InterfaceView, Role, SenderSample, SubflowView};
use pathpool_sim::control::{ConnId, View};
use pathpool_sim::Time;

use super::super::estimate::Estimate;
use super::links::interface_links;
use super::Host;
use crate::traffic::info::{self, SubflowInfo, TcpInfo};

impl Host<'_> {
    pub(super) fn view(&self, now: Time) -> View {
        let model = self.s.model;
        let node = &model.nodes[self.id as usize];
        let stats = self.s.emulator.stats();
        let interfaces = interface_links(model, self.id)
            .into_iter()
            .zip(&node.interfaces)
            .enumerate()
            .map(|(k, (l, name))| {
                // Direction 2l is a→b: out of this interface if it is the link's `a` end.
                let at_a = model.links[l].a == self.id && &model.links[l].a_interface == name;
                let (out, inbound) = if at_a { (2 * l, 2 * l + 1) } else { (2 * l + 1, 2 * l) };
                InterfaceView {
                    name: name.clone(),
                    up: self.links.is_up(l),
                    mtu: self.s.mtus[self.id as usize].get(k).copied().flatten(),
                    bytes_sent: stats[out].bytes,
                    bytes_received: stats[inbound].bytes,
                    signal_dbm: None,
                    rat: None,
                    bandwidth_bps: None,
                    over_data_limit: false,
                    // No IPv6 on the lab: `support.rs` refuses it.
                    v6: false,
                }
            })
            .collect();
        let connections = (0..model.flows.len() as ConnId).filter_map(|i| self.view_connection(i, now)).collect();
        let sessions = self.session_views();
        let mut view = View { now, host: node.name.clone(), device: Default::default(), interfaces, connections, sessions };
        self.hints.latest.fill(&mut view);
        view
    }

    /// Connection `conn` as this host sees it, if it is one of its
    /// connections under way (started, and not finished before `now`).
    pub(super) fn view_connection(&self, conn: ConnId, now: Time) -> Option<ConnectionView> {
        let model = self.s.model;
        let f = &model.flows[conn as usize];
        let state = &self.s.flows[conn as usize];
        let at_src = f.src == self.id;
        let under_way = state.started().is_some() && state.finished().is_none_or(|t| t >= now);
        if !(at_src || f.dst == self.id) || !under_way {
            return None;
        }
        // A closed fetch connection leaves the view, as in the simulator.
        let fetch = if at_src { None } else { self.fetch_conn_view(conn).ok()? };
        let peer = if at_src { f.dst } else { f.src };
        let turn = |(l, r): (u16, u16)| if at_src { (l, r) } else { (r, l) };
        let seen = &self.seen[conn as usize];
        let socket = state.socket(at_src);
        let mut view = ConnectionView {
            id: conn,
            flow: f.name.clone(),
            role: if at_src { Role::Sender } else { Role::Receiver },
            client: f.client == self.id,
            multipath: false,
            established: seen.established,
            fallback: seen.fallback,
            path_manager: String::new(),
            initial: (0, 0),
            paths: Vec::new(),
            peer_interfaces: model.nodes[peer as usize].interfaces.clone(),
            peer_up: interface_links(model, peer).into_iter().map(|l| self.links.is_up(l)).collect(),
            bytes_sent: Some(0),
            bytes_received: 0,
            ooo_bytes: None,
            // The application's client is the flow's destination (`traffic/app.rs`).
            app: state.app.as_ref().filter(|_| !at_src).map(|a| crate::traffic::app::lock(a).view()),
            fetch,
            sender: None,
            subflows: Vec::new(),
        };
        if !at_src {
            // The receiving application is on this host.
            view.bytes_received = state.delivered.load(std::sync::atomic::Ordering::Relaxed);
        }
        let Some(conf) = &f.mptcp else {
            if let (true, Some(s)) = (at_src, &socket) {
                let tcp = info::tcp_info(s.as_fd()).ok();
                let est = info::socket_ends(s).and_then(|(l, r)| self.s.estimates.of(f, l, r));
                view.bytes_sent = Some(tcp.as_ref().map_or(0, |t| t.payload_acked()));
                view.sender = tcp.as_ref().map(|t| sender_sample(t, est));
            }
            return Some(view);
        };
        view.multipath = true;
        view.path_manager = conf.path_manager.clone();
        view.initial = turn(conf.initial);
        view.paths = conf.paths_seen_from(at_src);
        let fd = socket.as_ref().map(|s| s.as_fd());
        if let (true, Some(fd)) = (at_src, fd) {
            // Data acknowledged at the connection level (DATA_ACK, RFC 8684 §3.3.2).
            view.bytes_sent = Some(info::mptcp_info(fd).ok().flatten().map_or(0, |m| m.bytes_acked));
        }
        let infos = fd.and_then(|fd| info::mptcp_subflows(fd).ok()).unwrap_or_default();
        let records = self.s.conns[conn as usize].lock().unwrap_or_else(|e| e.into_inner()).subflows.clone();
        for (j, r) in records.iter().enumerate() {
            // A subflow the kernel no longer lists keeps the sender's last sample.
            let listed = infos.iter().find(|s| r.is_info(s, at_src));
            let tcp = listed.map(|s: &SubflowInfo| s.tcp).or(if at_src { r.last } else { None });
            let est = listed.filter(|_| at_src).and_then(|s| self.s.estimates.of(f, s.local, s.remote));
            let (local, remote) = turn((r.src_iface, r.dst_iface));
            view.subflows.push(SubflowView {
                id: j as u32,
                local,
                remote,
                backup: r.backup,
                open: r.is_open(),
                established: r.established.is_some(),
                // Acknowledged at the sender, received at the receiver.
                bytes: tcp.map_or(0, |t| if at_src { t.payload_acked() } else { t.bytes_received }),
                sender: if at_src { tcp.as_ref().map(|t| sender_sample(t, est)) } else { None },
            });
        }
        Some(view)
    }
}

/// What the data sender's `tcp_info` tells of a subflow, with its
/// congestion control's estimates (`estimate.rs`). The kernel counts no
/// retransmission time-outs per connection: `timeouts` is None.
fn sender_sample(t: &TcpInfo, est: Option<Estimate>) -> SenderSample {
    let mss = t.snd_mss as u64;
    SenderSample {
        cwnd: t.cwnd_bytes(),
        ssthresh: t.snd_ssthresh as u64 * mss,
        slow_start: t.snd_cwnd < t.snd_ssthresh,
        srtt: t.srtt_s().map(Time::from_secs_f64),
        delivery_rate: (t.delivery_rate > 0).then_some(t.delivery_rate as f64),
        bytes_sent: t.bytes_sent,
        bytes_acked: t.payload_acked(),
        in_flight: t.in_flight_bytes(),
        retransmits: t.total_retrans as u64,
        timeouts: None,
        bw_estimate: est.map(|e| e.bw_estimate),
        increment: est.and_then(|e| e.increment),
    }
}
