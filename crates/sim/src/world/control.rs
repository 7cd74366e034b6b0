//! The simulator plane of device-side controllers (`crate::control`): which
//! controllers run on which host, the events the world feeds them, the views
//! it builds of a host, and how it carries out their actions.
//!
//! - Every host that is the client of an MPTCP flow runs the flows' path
//!   managers (`control::path_manager`) first; a host with timed actions
//!   then runs them (`control::timed`); then the scenario's `[[controllers]]`
//!   on that host, in file order. All of them see every event.
//! - Connection events come from comparing what the world last told the
//!   host's controllers with the endpoints' state after each call into a
//!   watched flow (one with a controller at either end); an MPTCP sender
//!   counts its changes, so the comparison is one integer per packet.
//! - With `reaction_delay` zero, actions are carried out at once, inside
//!   the event that caused them — where the path managers used to be called,
//!   so results are the same as before controllers existed; otherwise a
//!   `CtlApply` event carries them out that much later.

use std::collections::BTreeMap;
use std::mem;

use super::{Event, World};
use crate::control::log::ControllerLog;
use crate::control::view::{ConnectionView, InterfaceView, LatestHints, Role, SenderSample, SubflowView};
use crate::cc::westwood::Westwood;
use crate::control::action::SENDER_ONLY;
use crate::control::{Action, ActionKind, Attached as Instance, CloseReason, ConnId, Event as CtlEvent, Hint, View};
use crate::endpoint::{Receiver, Sender};
use crate::mptcp::sender::SubflowState;
use crate::mptcp::scheduler;
use crate::net::NodeId;
use crate::scenario::model::FlowModel;
use crate::tcp::Io;
use crate::time::Time;

/// What a host's controllers were last told about one connection.
#[derive(Default)]
pub struct Seen {
    /// A controller runs at either end.
    pub watched: bool,
    /// The end that connects (and opens subflows).
    pub client: NodeId,
    established: bool,
    closed: bool,
    /// The MPTCP sender's change count when last compared.
    changes: u64,
    /// Per subflow: established, state, backup.
    subflows: Vec<(bool, SubflowState, bool)>,
    /// (bytes, instance) that asked to hear when the connection carried them, in the order asked.
    thresholds: Vec<(u64, u32)>,
}

#[derive(Default)]
pub struct Controllers {
    pub instances: Vec<Instance>,
    /// Instance indices by host.
    by_host: Vec<Vec<u32>>,
    /// By flow.
    pub seen: Vec<Seen>,
    pub log: ControllerLog,
    /// Armed timers: (instance, token), by slot.
    timers: Vec<(u32, u64)>,
    /// Actions waiting for their reaction delay: (instance, cause, actions), by slot.
    delayed: Vec<Option<(u32, CtlEvent, Vec<Action>)>>,
    /// Scheduled device hints: (host, hint), by slot.
    hints: Vec<(NodeId, Hint)>,
    /// The latest hints of hosts that have any.
    pub devices: BTreeMap<NodeId, LatestHints>,
}

impl Controllers {
    pub fn new(instances: Vec<Instance>, nodes: usize, flows: &[FlowModel]) -> Controllers {
        let mut by_host = vec![Vec::new(); nodes];
        for (i, c) in instances.iter().enumerate() {
            by_host[c.host as usize].push(i as u32);
        }
        let seen = flows
            .iter()
            .map(|f| Seen {
                watched: !by_host[f.src as usize].is_empty() || !by_host[f.dst as usize].is_empty(),
                client: f.client,
                ..Default::default()
            })
            .collect();
        Controllers { instances, by_host, seen, ..Default::default() }
    }

    pub fn on_host(&self, host: NodeId) -> bool {
        !self.by_host[host as usize].is_empty()
    }
}

impl World<'_> {
    /// Schedules the scenario's device hints (`[[devices]]`).
    pub(super) fn schedule_hints(&mut self) {
        for d in &self.model.devices {
            self.ctl.devices.entry(d.host).or_default();
            for (at, hint) in &d.hints {
                let slot = self.ctl.hints.len() as u32;
                self.ctl.hints.push((d.host, hint.clone()));
                self.events.schedule(*at, Event::Hint { slot });
            }
        }
    }

    /// A scheduled hint is due, or a data limit was crossed: the host's view
    /// takes it, and its controllers hear it.
    pub(super) fn hint(&mut self, host: NodeId, hint: Hint) {
        self.ctl.devices.entry(host).or_default().note(&hint);
        self.tell_host(host, &CtlEvent::Hint(hint));
    }

    pub(super) fn scheduled_hint(&mut self, slot: u32) {
        let (host, hint) = self.ctl.hints[slot as usize].clone();
        self.hint(host, hint);
    }

    /// Tells every controller the run starts and schedules their sampling.
    pub(super) fn start_controllers(&mut self) {
        for i in 0..self.ctl.instances.len() as u32 {
            self.deliver(i, &CtlEvent::Start);
            let every = self.ctl.instances[i as usize].sample_interval;
            if every > Time::ZERO && every <= self.duration {
                self.events.schedule(every, Event::CtlSample { ctl: i });
            }
        }
    }

    pub(super) fn ctl_sample(&mut self, ctl: u32) {
        self.deliver(ctl, &CtlEvent::Sample);
        let next = self.now + self.ctl.instances[ctl as usize].sample_interval;
        if next <= self.duration {
            self.events.schedule(next, Event::CtlSample { ctl });
        }
    }

    pub(super) fn ctl_timer(&mut self, slot: u32) {
        let (ctl, token) = self.ctl.timers[slot as usize];
        self.deliver(ctl, &CtlEvent::Timer { token });
    }

    pub(super) fn ctl_apply(&mut self, slot: u32) {
        let Some((ctl, cause, actions)) = self.ctl.delayed[slot as usize].take() else { return };
        for a in actions {
            self.apply(ctl, &cause, a);
        }
    }

    /// Tells every controller on `host` about `event`.
    pub(super) fn tell_host(&mut self, host: NodeId, event: &CtlEvent) {
        for i in self.ctl.by_host[host as usize].clone() {
            self.deliver(i, event);
        }
    }

    /// Tells the controllers at both ends of `flow` about `event` (built per end: `peer` flags differ).
    fn tell_ends(&mut self, flow: u32, event: impl Fn(bool) -> CtlEvent) {
        let (src, dst) = (self.flows[flow as usize].src, self.flows[flow as usize].dst);
        self.tell_host(src, &event(false));
        if dst != src {
            self.tell_host(dst, &event(true));
        }
    }

    fn deliver(&mut self, i: u32, event: &CtlEvent) {
        let view = self.view(self.ctl.instances[i as usize].host);
        let mut out = Vec::new();
        self.ctl.instances[i as usize].controller.on_event(self.now, event, &view, &mut out);
        if out.is_empty() {
            return;
        }
        let delay = self.ctl.instances[i as usize].reaction_delay;
        if delay == Time::ZERO {
            for a in out {
                self.apply(i, event, a);
            }
        } else {
            let slot = self.ctl.delayed.len() as u32;
            self.ctl.delayed.push(Some((i, event.clone(), out)));
            self.events.schedule(self.now + delay, Event::CtlApply { slot });
        }
    }

    /// Compares `flow`'s endpoints with what its hosts' controllers were last
    /// told, and tells them what changed.
    pub(super) fn observe(&mut self, flow: u32) {
        let seen = &mut self.ctl.seen[flow as usize];
        if !seen.watched {
            return;
        }
        let f = &self.flows[flow as usize];
        let mut events = Vec::new();
        let established = f.started && f.sender.is_established();
        let newly_established = established && !seen.established;
        if newly_established {
            seen.established = true;
            events.push(CtlEvent::ConnectionEstablished { conn: flow });
            if let Sender::Mptcp(s) = &f.sender {
                if s.fell_back() {
                    events.push(CtlEvent::Fallback { conn: flow });
                }
            }
        }
        if let Sender::Mptcp(s) = &f.sender {
            if s.changes() != seen.changes {
                seen.changes = s.changes();
                for (j, sf) in s.subflows().iter().enumerate() {
                    let now = (sf.established_at.is_some(), sf.state, sf.backup);
                    if seen.subflows.len() <= j {
                        seen.subflows.push((false, SubflowState::Open, sf.backup));
                    }
                    let was = mem::replace(&mut seen.subflows[j], now);
                    let subflow = j as u32;
                    if now.0 && !was.0 {
                        events.push(CtlEvent::SubflowEstablished { conn: flow, subflow });
                    }
                    if was.1 == SubflowState::Open && now.1 != SubflowState::Open {
                        let reason = if now.1 == SubflowState::Failed { CloseReason::InterfaceDown } else { CloseReason::Closed };
                        events.push(CtlEvent::SubflowClosed { conn: flow, subflow, reason });
                    }
                    if now.2 != was.2 && now.1 == SubflowState::Open {
                        events.push(CtlEvent::SubflowPriority { conn: flow, subflow, backup: now.2 });
                    }
                }
            }
        }
        // What each end has carried, both ways, as its own stack counts it:
        // the source the data acknowledged, the destination the data received
        // (the simulator's connections carry data one way).
        let (acked, delivered) = (f.sender.data_acked().unwrap_or(0), f.receiver.delivered());
        let instances = &self.ctl.instances;
        let carried = |i: u32| if instances[i as usize].host == f.src { acked } else { delivered };
        let mut reached = Vec::new();
        seen.thresholds.retain(|&(b, i)| {
            let hit = b <= carried(i);
            if hit {
                reached.push((b, i));
            }
            !hit
        });
        if !seen.closed && f.receiver.finished_at().is_some() {
            seen.closed = true;
            events.push(CtlEvent::ConnectionClosed { conn: flow });
        }
        for (bytes, ctl) in reached {
            self.deliver(ctl, &CtlEvent::BytesCarried { conn: flow, bytes });
        }
        for e in events {
            self.tell_ends(flow, |_| e.clone());
        }
        if newly_established {
            // The sender held its first push back for the path managers' subflows (`MptcpSender::on_packet`).
            self.push(flow);
        }
    }

    /// Lets an MPTCP connection send what its subflows have room for.
    pub(super) fn push(&mut self, flow: u32) {
        if let Sender::Mptcp(s) = &mut self.flows[flow as usize].sender {
            s.push(&mut Io { now: self.now, out: &mut self.out, timers: &mut self.timers });
            self.flush(flow, true);
        }
    }

    /// `flow`'s interfaces in scenario link `link` changed: an interface of end
    /// `peer` (relative to the source) numbered `iface` came up.
    pub(super) fn path_up(&mut self, flow: u32, at_dst: bool, iface: u16) {
        let (src, dst) = (self.flows[flow as usize].src, self.flows[flow as usize].dst);
        // Each end hears whether the interface is its own or its peer's.
        self.tell_host(src, &CtlEvent::PathUp { conn: flow, peer: at_dst, iface });
        if dst != src {
            self.tell_host(dst, &CtlEvent::PathUp { conn: flow, peer: !at_dst, iface });
        }
        self.push(flow);
    }

    /// The view of `host`: its interfaces and the connections it is an end of
    /// that are under way (started, and not finished before now), as its
    /// controllers get it.
    pub fn view(&self, host: NodeId) -> View {
        let node = &self.model.nodes[host as usize];
        let interfaces = self
            .ifaces
            .of(host)
            .iter()
            .zip(&node.interfaces)
            .map(|(i, name)| {
                let (out, inbound) = (&self.links[i.out as usize], &self.links[i.inbound as usize]);
                InterfaceView {
                    name: name.clone(),
                    up: out.up,
                    mtu: Some(self.model.links[i.link as usize].mtu),
                    bytes_sent: out.stats.bytes_sent,
                    bytes_received: inbound.stats.bytes_delivered,
                    signal_dbm: None,
                    rat: None,
                    bandwidth_bps: None,
                    over_data_limit: false,
                    v6: self.model.links[i.link as usize].v6,
                }
            })
            .collect();
        let connections = (0..self.flows.len() as u32)
            .filter(|&i| {
                let f = &self.flows[i as usize];
                let closed = f.fetch.as_ref().is_some_and(|c| c.closed_at.is_some_and(|t| t < self.now));
                (f.src == host || f.dst == host) && f.started && f.receiver.finished_at().is_none_or(|t| t >= self.now) && !closed
            })
            .map(|i| self.connection_view(i, host))
            .collect();
        let sessions = self.session_views(host);
        let mut view = View { now: self.now, host: node.name.clone(), device: Default::default(), interfaces, connections, sessions };
        if let Some(d) = self.ctl.devices.get(&host) {
            d.fill(&mut view);
        }
        view
    }

    fn connection_view(&self, id: ConnId, host: NodeId) -> ConnectionView {
        let f = &self.flows[id as usize];
        let m = &self.flow_models[id as usize];
        let at_src = f.src == host;
        let peer = if at_src { f.dst } else { f.src };
        let role = if at_src { Role::Sender } else { Role::Receiver };
        // (local, remote) from the source's point of view, turned to this host's.
        let turn = |(l, r): (u16, u16)| if at_src { (l, r) } else { (r, l) };
        let peer_interfaces = self.model.nodes[peer as usize].interfaces.clone();
        let peer_up = self.ifaces.of(peer).iter().map(|i| self.links[i.out as usize].up).collect();
        let data_acked = f.sender.data_acked();
        let (bytes_sent, bytes_received) = if at_src { (data_acked, 0) } else { (Some(0), f.receiver.delivered()) };
        let mut view = ConnectionView {
            id,
            flow: m.name.clone(),
            role,
            client: self.ctl.seen[id as usize].client == host,
            multipath: false,
            established: f.sender.is_established(),
            fallback: false,
            path_manager: String::new(),
            initial: (0, 0),
            paths: Vec::new(),
            peer_interfaces,
            peer_up,
            bytes_sent,
            bytes_received,
            ooo_bytes: None,
            app: f.app.as_ref().filter(|_| !at_src).map(|a| a.view()),
            fetch: if at_src { None } else { self.fetch_conn_view(id) },
            sender: None,
            subflows: Vec::new(),
        };
        if let (Sender::Tcp(s), true) = (&f.sender, at_src) {
            view.sender = Some(sender_sample(s, s.stats.payload_sent));
        }
        let (Sender::Mptcp(tx), Receiver::Mptcp(rx), Some(conf)) = (&f.sender, &f.receiver, &m.mptcp) else { return view };
        view.multipath = true;
        view.ooo_bytes = (!at_src).then(|| rx.ooo_bytes());
        view.fallback = tx.fell_back();
        view.path_manager = conf.path_manager.clone();
        view.initial = turn(conf.initial);
        view.paths = conf.paths_seen_from(at_src);
        for (j, sf) in tx.subflows().iter().enumerate() {
            let (local, remote) = turn((sf.local, sf.remote));
            let s = &sf.sender;
            let sender = at_src.then(|| sender_sample(s, sf.bytes_sent));
            view.subflows.push(SubflowView {
                id: j as u32,
                local,
                remote,
                backup: sf.backup,
                open: sf.state == SubflowState::Open,
                established: sf.established_at.is_some(),
                bytes: if at_src { s.acked() } else { rx.subflow_delivered(j) },
                sender,
            });
        }
        view
    }

    /// Carries out `action` of controller `i`, taken on `cause`, and logs it.
    fn apply(&mut self, i: u32, cause: &CtlEvent, action: Action) {
        let host = self.ctl.instances[i as usize].host;
        // What a resuming steer cut, for the log's detail.
        let mut note = None;
        let outcome: Result<Option<u32>, String> = match &action {
            Action::ArmTimer { after, token } => {
                let slot = self.ctl.timers.len() as u32;
                self.ctl.timers.push((i, *token));
                self.events.schedule(self.now + *after, Event::CtlTimer { slot });
                Ok(None)
            }
            Action::Log { .. } => Ok(None),
            Action::Resolve { resolver, domain, interface } => {
                let lookup = super::dns::Lookup { host, resolver: resolver.clone(), domain: domain.clone(), interface: *interface, token: 0 };
                self.resolve(lookup, super::dns::tell_controllers).map(|()| None)
            }
            Action::WatchBytes { conn, bytes } => self.own(host, *conn).map(|()| {
                self.ctl.seen[*conn as usize].thresholds.push((*bytes, i));
                None
            }),
            Action::SetReceiveBuffer { conn, bytes } => self.set_receive_buffer(host, *conn, *bytes).map(|()| None),
            Action::SetMss { conn, mss } => self.set_mss(host, *conn, *mss).map(|()| None),
            Action::SetCongestionControl { conn, algorithm } => self.set_congestion_control(host, *conn, algorithm).map(|()| None),
            Action::SetIncrement { conn, subflow, a } => self.set_increment(host, *conn, *subflow, *a).map(|()| *subflow),
            Action::OpenSubflow { conn, local, remote, backup } => self.open(host, *conn, *local, *remote, *backup).map(Some),
            Action::CloseSubflow { conn, subflow } => self.on_subflow(host, *conn, *subflow, |s, id, io| s.close_subflow(id, io)),
            Action::SetBackup { conn, subflow, backup } => {
                let backup = *backup;
                self.on_subflow(host, *conn, *subflow, move |s, id, io| s.set_backup(id, backup, io))
            }
            Action::OpenConnection { session, mirror, local_interface, family } => {
                self.ctl_open_connection(host, *session, mirror, *local_interface, *family).map(|()| None)
            }
            Action::CloseConnection { conn } => self.ctl_close_connection(host, *conn).map(|()| None),
            Action::Steer { session, conn, resume } => self.ctl_steer(host, *session, *conn, *resume).map(|n| {
                note = n;
                None
            }),
            Action::Probe { conn, request_bytes, response_bytes } => self.ctl_probe(host, *conn, *request_bytes, *response_bytes).map(|()| None),
            Action::SetScheduler { conn, scheduler: name } => {
                if !scheduler::names().contains(&name.as_str()) {
                    Err(format!("unknown scheduler '{name}' (known: {})", scheduler::names().join(", ")))
                } else {
                    self.on_mptcp(host, *conn, |s, io| s.set_scheduler(name, io)).and_then(|r| r).map(|()| None)
                }
            }
        };
        let (subflow, refused) = match outcome {
            Ok(sub) => (sub, None),
            Err(e) => (None, Some(e)),
        };
        let detail = crate::control::log::detail(self.model, host, &action);
        let detail = match note {
            Some(n) => format!("{detail}: {n}"),
            None => detail,
        };
        let inst = &self.ctl.instances[i as usize];
        let host_name = &self.model.nodes[host as usize].name;
        self.ctl.log.record(self.now, host_name, &inst.name, cause, &action, subflow, refused, detail);
        // A fetch action sends what it sends itself: a flush here could issue a
        // session's next request before the rest of the controller's actions.
        if let Some(conn) = action.conn().filter(|_| !ActionKind::FETCH.contains(&action.kind())) {
            if (conn as usize) < self.flows.len() {
                self.flush(conn, true);
            }
        }
    }

    /// Err unless `conn` is a connection `host` is an end of.
    fn own(&self, host: NodeId, conn: ConnId) -> Result<(), String> {
        match self.flows.get(conn as usize) {
            Some(f) if f.src == host || f.dst == host => Ok(()),
            _ => Err(format!("connection {conn} is not one of this host's")),
        }
    }

    fn set_receive_buffer(&mut self, host: NodeId, conn: ConnId, bytes: u64) -> Result<(), String> {
        self.own(host, conn)?;
        let transport = &self.flow_models[conn as usize].transport;
        if transport != "tcp" && transport != "mptcp" {
            return Err(format!("a {transport} connection has no receive window to size"));
        }
        let f = &mut self.flows[conn as usize];
        if f.dst != host {
            return Err(crate::control::action::RECEIVER_ONLY.into());
        }
        if bytes == 0 {
            return Err("a receive buffer of 0 bytes would stall the connection".into());
        }
        f.receiver.set_buffer(bytes);
        Ok(())
    }

    /// `host` announces MSS option `mss` in `conn`'s handshakes. The
    /// simulator's handshake runs from the data sender, so the option rides
    /// on the receiver's SYN-ACK (a phone downloading answers with it as its
    /// SYN would carry it) and bounds the sender's segments. At the data
    /// sender it caps the segments directly, as TCP_MAXSEG does.
    fn set_mss(&mut self, host: NodeId, conn: ConnId, mss: u16) -> Result<(), String> {
        self.own(host, conn)?;
        let m = &self.flow_models[conn as usize];
        if m.transport != "tcp" && m.transport != "mptcp" {
            return Err(format!("a {} connection has no MSS option", m.transport));
        }
        if !m.tcp.handshake {
            return Err("the connection has no handshake (tcp.handshake = false) to announce an MSS in".into());
        }
        // TCP options are the same over IPv4 and IPv6.
        let options = self.model.header_bytes.saturating_sub(crate::net::mtu::IP_TCP_HEADERS);
        if (mss as u32) <= options {
            return Err(format!("an MSS of {mss} bytes leaves no payload beside the {options} bytes of TCP options"));
        }
        let family = m.family;
        let f = &mut self.flows[conn as usize];
        if f.sender.opened() {
            return Err("its SYN has left; the MSS it announced stands (set it at connection_opening)".into());
        }
        if f.dst == host {
            f.receiver.announce_mss(mss);
        } else {
            f.sender.cap_mss(crate::net::mtu::payload_under(mss as u32, family.header_bytes(self.model.header_bytes), family));
        }
        Ok(())
    }

    /// `host`, `conn`'s data sender, runs congestion control `algorithm`
    /// from the first SYN: TCP_CONGESTION before connect, on an MPTCP
    /// connection every subflow its own instance (uncoupled).
    fn set_congestion_control(&mut self, host: NodeId, conn: ConnId, algorithm: &str) -> Result<(), String> {
        self.own(host, conn)?;
        let m = &self.flow_models[conn as usize];
        if m.transport != "tcp" && m.transport != "mptcp" {
            return Err(format!("a {} connection has no congestion control to set", m.transport));
        }
        if !crate::cc::names().contains(&algorithm) {
            return Err(format!("unknown congestion control '{algorithm}' (known: {})", crate::cc::names().join(", ")));
        }
        // The TCP sender's new algorithm draws from its flow's stream, as the scenario's would.
        let rng = crate::engine::Seeds { master: self.model.seed }.stream(&format!("flow:{}:cc", m.name));
        let f = &mut self.flows[conn as usize];
        if f.src != host {
            return Err(crate::control::action::CC_SENDER_ONLY.into());
        }
        if f.sender.opened() {
            return Err("its SYN has left; set the congestion control at connection_opening".into());
        }
        f.sender.set_cc(algorithm, rng)
    }

    /// Sets the Westwood+ increment coefficient of `conn`'s subflow
    /// `subflow` (or of a single-path connection with None).
    fn set_increment(&mut self, host: NodeId, conn: ConnId, subflow: Option<u32>, a: f64) -> Result<(), String> {
        self.own(host, conn)?;
        if !(a > 0.0 && a.is_finite()) {
            return Err(format!("an increment coefficient must be positive and finite, got {a}"));
        }
        let f = &mut self.flows[conn as usize];
        if f.src != host {
            return Err(SENDER_ONLY.into());
        }
        let sender = match (&mut f.sender, subflow) {
            (Sender::Tcp(s), None) => s,
            (Sender::Mptcp(m), Some(id)) => m.subflow_sender_mut(id as usize).ok_or_else(|| format!("no subflow {id}"))?,
            (Sender::Mptcp(_), None) => return Err("an MPTCP connection's increment is set per subflow".into()),
            (Sender::Tcp(_), Some(_)) => return Err("a single-path connection has no subflows".into()),
            _ => return Err("only TCP and MPTCP connections have a congestion window".into()),
        };
        let westwood = sender.cc_as_mut::<Westwood>().ok_or("its congestion control is not westwood (only Westwood+ takes an increment coefficient)")?;
        westwood.set_increment(a);
        Ok(())
    }

    fn on_mptcp<R>(&mut self, host: NodeId, conn: ConnId, f: impl FnOnce(&mut crate::mptcp::MptcpSender, &mut Io) -> R) -> Result<R, String> {
        self.own(host, conn)?;
        match &mut self.flows[conn as usize].sender {
            Sender::Mptcp(s) => Ok(f(s, &mut Io { now: self.now, out: &mut self.out, timers: &mut self.timers })),
            _ => Err("not an MPTCP connection".into()),
        }
    }

    fn open(&mut self, host: NodeId, conn: ConnId, local: u16, remote: u16, backup: bool) -> Result<u32, String> {
        self.own(host, conn)?;
        if self.ctl.seen[conn as usize].client != host {
            return Err("only the connection's client opens subflows".into());
        }
        let f = &self.flows[conn as usize];
        let at_src = f.src == host;
        let peer = if at_src { f.dst } else { f.src };
        if local as usize >= self.ifaces.of(host).len() || remote as usize >= self.ifaces.of(peer).len() {
            return Err(format!("no interface pair ({local}, {remote})"));
        }
        let (l, r) = if at_src { (local, remote) } else { (remote, local) };
        self.on_mptcp(host, conn, |s, io| s.open_subflow(l, r, backup, io))?.map(|id| id as u32).map_err(|e| e.to_string())
    }

    fn on_subflow(&mut self, host: NodeId, conn: ConnId, subflow: u32, f: impl FnOnce(&mut crate::mptcp::MptcpSender, usize, &mut Io)) -> Result<Option<u32>, String> {
        self.on_mptcp(host, conn, |s, io| {
            let open = s.subflows().get(subflow as usize).is_some_and(|sf| sf.state == SubflowState::Open);
            if !open {
                return Err(format!("subflow {subflow} is not open"));
            }
            f(s, subflow as usize, io);
            Ok(Some(subflow))
        })?
    }
}

/// What the data sender knows of a TCP sender (a subflow's or a single-path
/// connection's), as Linux's `TCP_INFO` tells it; `bytes_sent` counts
/// retransmissions.
fn sender_sample(s: &crate::tcp::TcpSender, bytes_sent: u64) -> SenderSample {
    SenderSample {
        cwnd: s.ccs.cwnd,
        ssthresh: s.ccs.ssthresh,
        slow_start: s.ccs.cwnd < s.ccs.ssthresh,
        srtt: s.rtt.srtt(),
        delivery_rate: s.last_delivery_rate,
        bytes_sent,
        bytes_acked: s.acked(),
        in_flight: s.in_flight(),
        retransmits: s.stats.retransmits,
        timeouts: Some(s.stats.timeouts),
        bw_estimate: s.cc().bandwidth_estimate(),
        increment: s.cc().increment(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load, Format, Source};

    const TWO_PHONES: &str = r#"
[sim]
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "s"
[[links]]
a = "a:wlan0"
b = "r"
rate = "10Mbps"
delay = "5ms"
[[links]]
name = "lte"
a = "a:lte0"
b = "r"
rate = "10Mbps"
delay = "20ms"
[[links]]
a = "b"
b = "r"
rate = "10Mbps"
delay = "5ms"
[[links]]
a = "r"
b = "s"
rate = "100Mbps"
delay = "5ms"
[[flows]]
name = "from-a"
src = "a"
dst = "s"
transport = "mptcp"
[[flows]]
name = "to-b"
src = "s"
dst = "b"
client = "dst"
transport = "mptcp"
"#;

    #[test]
    fn a_controller_sees_and_acts_on_its_own_host_only() {
        let source = Source { name: "two.toml".into(), dir: ".".into(), data_dir: None };
        let model = load(TWO_PHONES, Format::Toml, &source, None).unwrap();
        let mut world = World::new(&model);
        world.duration = Time::from_secs(1);
        world.run(&mut |_| {});
        let (a, b) = (0, 1);
        let view = world.view(a);
        assert_eq!(view.host, "a");
        assert_eq!(view.interfaces.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["wlan0", "lte0"]);
        assert_eq!(view.connections.iter().map(|c| c.id).collect::<Vec<_>>(), [0]);
        let c = &view.connections[0];
        assert!(c.client && c.role == Role::Sender && c.established);
        assert!(c.subflows.iter().all(|s| s.sender.is_some()));
        // b downloads and is the client: its view is a receiver's, from its own side.
        let view = world.view(b);
        assert_eq!(view.connections.iter().map(|c| c.id).collect::<Vec<_>>(), [1]);
        let c = &view.connections[0];
        assert!(c.client && c.role == Role::Receiver && c.ooo_bytes.is_some());
        assert!(c.subflows.iter().all(|s| s.sender.is_none() && s.local == 0));
        // a's path manager may not touch b's connection.
        let on_a = world.ctl.by_host[a as usize][0];
        world.apply(on_a, &CtlEvent::Sample, Action::CloseSubflow { conn: 1, subflow: 0 });
        let row = world.ctl.log.rows.last().unwrap();
        assert_eq!(row.outcome, "refused: connection 1 is not one of this host's");
        assert!(world.flows[1].sender.is_established());
    }

    #[test]
    fn switching_to_green_needs_the_senders_energy_profile() {
        let source = Source { name: "two.toml".into(), dir: ".".into(), data_dir: None };
        let switch = |text: &str| {
            let model = load(text, Format::Toml, &source, None).unwrap();
            let mut world = World::new(&model);
            world.duration = Time::from_millis(300);
            world.run(&mut |_| {});
            let on_a = world.ctl.by_host[0][0];
            world.apply(on_a, &CtlEvent::Sample, Action::SetScheduler { conn: 0, scheduler: "green".into() });
            world.ctl.log.rows.last().unwrap().outcome.clone()
        };
        let refused = switch(TWO_PHONES);
        assert!(refused.starts_with("refused: 'green' needs the data sender's energy profile"), "{refused}");
        let with_costs = format!("{TWO_PHONES}[[devices]]\nhost = \"a\"\nlinear = {{ w = {{ wlan0 = 1, lte0 = 3 }} }}\n");
        assert_eq!(switch(&with_costs), "done");
    }

    #[test]
    fn only_a_connections_receiver_sizes_its_buffer() {
        let source = Source { name: "two.toml".into(), dir: ".".into(), data_dir: None };
        let model = load(TWO_PHONES, Format::Toml, &source, None).unwrap();
        let mut world = World::new(&model);
        world.duration = Time::from_millis(300);
        world.run(&mut |_| {});
        let (on_a, on_b) = (world.ctl.by_host[0][0], world.ctl.by_host[1][0]);
        let mut set = |i, conn, bytes| {
            world.apply(i, &CtlEvent::Sample, Action::SetReceiveBuffer { conn, bytes });
            world.ctl.log.rows.last().unwrap().outcome.clone()
        };
        // a sends on `from-a`; b receives on `to-b`, the server sends it.
        assert_eq!(set(on_a, 0, 20_000), format!("refused: {}", crate::control::action::RECEIVER_ONLY));
        assert_eq!(set(on_b, 1, 0), "refused: a receive buffer of 0 bytes would stall the connection");
        assert_eq!(set(on_b, 1, 20_000), "done");
        let Receiver::Mptcp(r) = &world.flows[1].receiver else { panic!("an MPTCP receiver") };
        assert_eq!(r.reassembly.window(), 20_000 - r.ooo_bytes());
    }

    #[test]
    fn only_a_connections_sender_sets_its_congestion_control_and_before_the_syn() {
        let source = Source { name: "two.toml".into(), dir: ".".into(), data_dir: None };
        let model = load(TWO_PHONES, Format::Toml, &source, None).unwrap();
        let mut world = World::new(&model);
        let (on_a, on_b) = (world.ctl.by_host[0][0], world.ctl.by_host[1][0]);
        let set = |world: &mut World, i, conn, algorithm: &str| {
            world.apply(i, &CtlEvent::Start, Action::SetCongestionControl { conn, algorithm: algorithm.into() });
            world.ctl.log.rows.last().unwrap().outcome.clone()
        };
        // b receives on `to-b`: the server's choice.
        assert_eq!(set(&mut world, on_b, 1, "bbr"), format!("refused: {}", crate::control::action::CC_SENDER_ONLY));
        assert!(set(&mut world, on_a, 0, "vegas").starts_with("refused: unknown congestion control 'vegas'"));
        assert_eq!(set(&mut world, on_a, 0, "bbr"), "done");
        world.duration = Time::from_millis(300);
        world.run(&mut |_| {});
        assert_eq!(world.flows[0].sender.cc_name(), "uncoupled/bbr");
        assert_eq!(world.flows[1].sender.cc_name(), "lia");
        // Every subflow of `from-a` runs its own BBR (a bandwidth estimate; LIA keeps none).
        let Sender::Mptcp(s) = &world.flows[0].sender else { panic!("an MPTCP sender") };
        assert!(s.subflows().len() >= 2, "{} subflows", s.subflows().len());
        assert!(s.subflows().iter().all(|sf| sf.sender.cc().bandwidth_estimate().is_some()));
        assert_eq!(set(&mut world, on_a, 0, "cubic"), "refused: its SYN has left; set the congestion control at connection_opening");
    }

    #[test]
    fn device_hints_reach_the_view_at_their_times() {
        let text = format!(
            "{TWO_PHONES}[[devices]]\nhost = \"a\"\nbattery = [[\"0s\", 80], [\"0.5s\", 15]]\nscreen = [[\"0.2s\", false]]\n\
             signal = {{ lte0 = [[\"0s\", -90], [\"0.6s\", -115]] }}\nrat = {{ lte0 = [[\"0.3s\", \"umts\"]] }}\ndata_limit = {{ wlan0 = \"200kB\" }}\n"
        );
        let source = Source { name: "two.toml".into(), dir: ".".into(), data_dir: None };
        let model = load(&text, Format::Toml, &source, None).unwrap();
        let mut world = World::new(&model);
        world.duration = Time::from_millis(400);
        world.run(&mut |_| {});
        let v = world.view(0);
        assert_eq!((v.device.battery_pct, v.device.screen_on), (Some(80.0), Some(false)));
        assert_eq!((v.interfaces[1].signal_dbm, v.interfaces[1].rat.as_deref()), (Some(-90.0), Some("umts")));
        assert!(v.interfaces[0].over_data_limit, "10 Mb/s for 0.4 s is over 200 kB");
        assert!(!v.interfaces[1].over_data_limit);
        world.duration = Time::from_secs(1);
        world.run(&mut |_| {});
        let v = world.view(0);
        assert_eq!((v.device.battery_pct, v.interfaces[1].signal_dbm), (Some(15.0), Some(-115.0)));
        assert_eq!(world.view(1).device, Default::default(), "b has no [[devices]] entry");
    }

    #[test]
    fn the_client_sees_its_application() {
        for (announced, size) in [(true, Some(500_000)), (false, None)] {
            let text = TWO_PHONES.replace(
                "client = \"dst\"\ntransport = \"mptcp\"",
                &format!("client = \"dst\"\ntransport = \"mptcp\"\napp = {{ kind = \"download\", size = \"500kB\", count = 3, size_announced = {announced} }}"),
            );
            let source = Source { name: "two.toml".into(), dir: ".".into(), data_dir: None };
            let model = load(&text, Format::Toml, &source, None).unwrap();
            let mut world = World::new(&model);
            world.duration = Time::from_millis(300);
            world.run(&mut |_| {});
            let phone = world.view(1);
            let app = phone.connections[0].app.as_ref().expect("the client sees its application");
            assert_eq!((app.category.as_str(), app.requests, app.object_size), ("download", 1, size));
            assert!(world.view(3).connections.iter().all(|c| c.app.is_none()), "the server's view has none");
        }
    }
}
