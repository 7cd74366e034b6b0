//! The simulated world: links, flows and the event loop that moves packets
//! between them.
//!
//! Per hop a packet costs one event when the link is idle (its arrival at
//! the far end is scheduled as soon as transmission starts) and two when it
//! had to queue (a TxDone event starts the next transmission), as in htsim.
//!
//! `control` feeds the hosts' device-side controllers and carries out their
//! actions; `apps` carries the applications' requests and responses; `dns`
//! the hosts' lookups and the resolvers' answers; `sessions` runs the fetch
//! sessions over their connections; `pages` hands a page's connections to
//! its objects.

mod apps;
mod control;
pub mod dns;
mod pages;
mod sessions;

use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Instant;

use crate::app::{self, App};
use crate::capture::Capture;
use crate::endpoint::{Receiver, Sender};
use crate::engine::{EventQueue, Seeds};
use crate::inrpp::InterfaceShare;
use crate::metrics::sampler::{FlowSample, LinkSample, Sampler, SubflowSample};
use crate::mptcp::{MptcpReceiver, MptcpSender};
use crate::net::ack_path::AckPath;
use crate::net::cell::Air;
use crate::net::interfaces::Interfaces;
use crate::net::capacity::Capacity;
use crate::net::delay::Wire;
use crate::net::jitter::{jitter_stream, Jitter};
use crate::net::link::{loss_stream, Link, LinkStats};
use crate::net::loss::LossModel;
use crate::scenario::mtu;
use crate::net::packet::{Kind, Packet, PacketId, PacketPool, ANY_INTERFACE};
use crate::net::queue::DropTail;
use crate::net::routing::Routes;
use crate::net::{LinkId, NodeId};
use crate::router::{Action, Arrival, RouterSet, Verdict};
use crate::scenario::model::FlowModel;
use crate::scenario::Model;
use crate::tcp::{Io, TcpReceiver, TimerKind};
use crate::time::Time;
use control::Controllers;
use crate::energy::accounts::Accounts;

#[derive(Debug, Clone, Copy)]
enum Event {
    /// A packet reaches the far end of a link direction.
    Arrive { pkt: PacketId, link: LinkId },
    /// A link direction finished sending; start the next queued packet.
    TxDone { link: LinkId },
    /// Both directions of scenario link `link` go up or down.
    LinkState { link: u32, up: bool },
    FlowStart { flow: u32 },
    FlowStop { flow: u32 },
    Timer { flow: u32, kind: TimerKind },
    /// A router module's control timer (see `router`).
    RouterTimer { module: u32, token: u32 },
    /// A controller's timer (`control`: the slot of its instance and token).
    CtlTimer { slot: u32 },
    /// A controller's sampling period elapsed.
    CtlSample { ctl: u32 },
    /// A controller's actions, after its reaction delay.
    CtlApply { slot: u32 },
    /// A device hint from the scenario (`control`: its slot).
    Hint { slot: u32 },
    /// Interfaces crossed their data limits: tell their hosts (after the packet that did).
    DataLimits,
    /// A flow's application asked to be woken now.
    AppWake { flow: u32 },
    /// A fetch session's start (`sessions`).
    SessionStart { session: u32 },
    /// An application request that was lost is due to be sent again.
    RequestResend { flow: u32, id: u32 },
    /// A cell's TTI in one direction (`net::cell`).
    CellTti { cell: u32, uplink: bool },
    /// A UE interface's signal level is due to its host.
    CellReport { ue: u32 },
    /// A resolver's answer leaves after its delay (`dns`: its outbox slot).
    DnsServe { slot: u32 },
    /// Send `attempt` of DNS query `query` waited its timeout.
    DnsTimeout { query: u32, attempt: u32 },
    /// An answer from a host's DNS cache is handed back.
    DnsCached { slot: u32 },
    Sample,
}

pub struct Flow {
    pub src: NodeId,
    pub dst: NodeId,
    /// When it started; until then, when it is due to (for a flow started
    /// by another's completion, the delay after it).
    pub start: Time,
    pub started: bool,
    /// Flows that start when this one completes (`FlowModel::after`).
    dependents: Vec<u32>,
    pub sender: Sender,
    pub receiver: Receiver,
    /// The application on the connection, if any (`crate::app`).
    pub app: Option<App>,
    /// The fetch session this connection is a candidate of, if any.
    pub fetch: Option<sessions::MirrorConn>,
}

/// Packet counts for the conservation check: sent = delivered + dropped + in flight.
#[derive(Debug, Default, Clone)]
pub struct PacketCounts {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub delivered_data: u64,
}

pub struct World<'m> {
    model: &'m Model,
    flow_models: &'m [FlowModel],
    pub now: Time,
    pub duration: Time,
    events: EventQueue<Event>,
    pool: PacketPool,
    pub links: Vec<Link>,
    routes: &'m Routes,
    ecmp: bool,
    /// `[sim] ack_path = "instant"`: SYN-ACKs and pure ACKs skip queues and transmitters.
    instant_acks: bool,
    pub flows: Vec<Flow>,
    pub counts: PacketCounts,
    pub events_run: u64,
    sampler: Sampler,
    out: Vec<Packet>,
    timers: Vec<(TimerKind, Time)>,
    routers: RouterSet,
    pub ifaces: Interfaces,
    /// The hosts' device-side controllers.
    pub ctl: Controllers,
    /// The hosts' radios and energy models.
    energy: Accounts,
    /// The applications' `app_ts` samples.
    pub app_ts: app::Series,
    /// The cells and the UE interfaces they serve; None without `[[cells]]` users.
    pub air: Option<Air>,
    /// The hosts' stub resolvers and the DNS messages under way.
    pub dns: dns::Dns,
    /// The fetch sessions (`[[fetches]]`, those `[[arrivals]]` drew, then
    /// the pages' objects), by id.
    pub sessions: Vec<sessions::Session>,
    /// Each page's objects waiting for a connection (`pages`).
    page_queues: pages::Queues,
    /// The pcap export of chosen links (`--pcap`), if asked for.
    capture: Option<Box<Capture>>,
}

impl<'m> World<'m> {
    pub fn new(model: &'m Model) -> World<'m> {
        World::build(model, &model.flows, true, Vec::new())
    }

    /// The world of `model` with `extra` controllers after the scenario's
    /// (a policy of one's own, not registered as a kind, on the seam).
    pub fn with_controllers(model: &'m Model, extra: Vec<crate::control::Attached>) -> World<'m> {
        World::build(model, &model.flows, true, extra)
    }

    /// The world of `model` with `flows` instead of its own (the single-path
    /// baselines of MPTCP flows), without the scenario's `[[controllers]]`.
    pub fn with_flows(model: &'m Model, flow_models: &'m [FlowModel]) -> World<'m> {
        World::build(model, flow_models, false, Vec::new())
    }

    fn build(model: &'m Model, flow_models: &'m [FlowModel], controllers: bool, extra: Vec<crate::control::Attached>) -> World<'m> {
        let seeds = Seeds { master: model.seed };
        let mut events = EventQueue::default();
        let mut links = Vec::with_capacity(model.links.len() * 2);
        for (i, l) in model.links.iter().enumerate() {
            for (d, dir) in l.dirs.iter().enumerate() {
                let (from, to) = model.direction_ends(i, d);
                let dir_name = model.direction_name(i, d);
                let wire = Wire::new(dir.delay.clone(), Jitter::new(dir.jitter, seeds.stream(&jitter_stream(&dir_name))));
                links.push(Link {
                    rng: seeds.stream(&loss_stream(&dir_name)),
                    name: dir_name,
                    link_name: l.name.clone(),
                    from,
                    to,
                    wire,
                    capacity: dir.capacity.clone(),
                    loss: LossModel::from_spec(dir.loss.as_ref()),
                    queue: Box::new(DropTail::new(model.queue_limit(i, d))),
                    busy_until: Time::ZERO,
                    tx_done_pending: false,
                    up: true,
                    epoch: 0,
                    stats: LinkStats::default(),
                });
            }
            for &(at, up) in &l.events {
                events.schedule(at, Event::LinkState { link: i as u32, up });
            }
        }
        let ifaces = crate::scenario::model::interfaces_of(&model.nodes, &model.links);
        let mut flows = Vec::with_capacity(flow_models.len());
        // Each host interface, which the INRPP senders leaving over it take turns on.
        let mut shares: BTreeMap<LinkId, Rc<InterfaceShare>> = BTreeMap::new();
        let host_mtus = mtu::host_mtus(&model.links, model.nodes.len());
        for (i, f) in flow_models.iter().enumerate() {
            let id = i as u32;
            // A fetch session's connection waits to be opened.
            if f.after.is_none() && f.fetch.is_none() {
                events.schedule(f.start, Event::FlowStart { flow: id });
            }
            if let Some(stop) = f.stop {
                events.schedule(stop, Event::FlowStop { flow: id });
            }
            // An application's server starts with nothing to send and writes as requests arrive.
            let sent = if f.app.is_some() || f.fetch.is_some() { Some(0) } else { f.size };
            // Each end's MSS option bounds the other's segments (RFC 9293 §3.7.1);
            // an IPv6 connection's headers are 20 bytes longer (`net::family`).
            let header_bytes = f.family.header_bytes(model.header_bytes);
            let tcp = mtu::fit(&f.tcp, host_mtus[f.src as usize], host_mtus[f.dst as usize], header_bytes, f.family);
            let (mut sender, receiver) = match &f.mptcp {
                None => (
                    Sender::new(
                        &f.transport,
                        id,
                        f.src,
                        f.dst,
                        sent,
                        header_bytes,
                        tcp.clone(),
                        seeds.stream(&format!("flow:{}:cc", f.name)),
                        first_hop(model, f, id, &mut shares),
                    ),
                    Receiver::Tcp({
                        let mut r = TcpReceiver::new(id, f.dst, f.src, f.size, header_bytes, tcp.clone());
                        r.forge_slow_downs(f.forged_slow_downs);
                        r
                    }),
                ),
                Some(conf) => {
                    let links = |n: NodeId| ifaces.of(n).iter().map(|i| i.link).collect();
                    let mtus = |n: NodeId| ifaces.of(n).iter().map(|i| model.links[i.link as usize].mtu).collect();
                    // Each subflow's MSS comes from its own two interfaces (`MptcpSender::new`), not from the hosts' smallest.
                    let sender = MptcpSender::new(
                        id,
                        &f.name,
                        seeds,
                        f.src,
                        f.dst,
                        sent,
                        model.header_bytes,
                        f.tcp.clone(),
                        conf.clone(),
                        (links(f.src), mtus(f.src)),
                        (links(f.dst), mtus(f.dst)),
                    );
                    let receiver = MptcpReceiver::new(id, f.dst, f.src, f.size, model.header_bytes, tcp.clone());
                    (Sender::Mptcp(Box::new(sender)), Receiver::Mptcp(Box::new(receiver)))
                }
            };
            sender.set_family(f.family);
            if let Sender::Inrpp(s) = &mut sender {
                s.timeout_open_loop = f.inrpp_timeout_open_loop;
            }
            let app = f.app.as_ref().map(App::new);
            let fetch = f.fetch.map(|s| sessions::MirrorConn::new(s, &f.tcp));
            flows.push(Flow { src: f.src, dst: f.dst, start: f.start, started: false, dependents: Vec::new(), sender, receiver, app, fetch });
        }
        for (i, f) in flow_models.iter().enumerate() {
            if let Some(a) = f.after {
                flows[a as usize].dependents.push(i as u32);
            }
        }
        let sampler = Sampler::new(model.sample_interval, flows.len(), links.len());
        let mut routers = RouterSet::new(&model.routers, links.len(), model.nodes.len());
        routers.start(Time::ZERO, &links);
        let mut attached = crate::control::attach(model, flow_models, controllers);
        attached.extend(extra);
        let ctl = Controllers::new(attached, model.nodes.len(), flow_models);
        let energy = Accounts::new(model, &ifaces, links.len());
        let air = (!model.ues.is_empty()).then(|| {
            let names: Vec<String> = model.links.iter().map(|l| l.name.clone()).collect();
            Air::new(&model.cells, &model.ues, links.len(), &seeds, &names)
        });
        if air.is_some() {
            for ue in 0..model.ues.len() as u32 {
                events.schedule(Time::ZERO, Event::CellReport { ue });
            }
        }
        let mut world = World {
            air,
            energy,
            model,
            flow_models,
            now: Time::ZERO,
            duration: model.duration,
            events,
            pool: PacketPool::default(),
            links,
            routes: &model.routes,
            ecmp: model.ecmp,
            instant_acks: model.ack_path == AckPath::Instant,
            flows,
            counts: PacketCounts::default(),
            events_run: 0,
            sampler,
            out: Vec::new(),
            timers: Vec::new(),
            routers,
            ifaces,
            ctl,
            app_ts: app::Series::default(),
            dns: dns::Dns::new(model),
            sessions: model.fetches.iter().map(|_| Default::default()).collect(),
            page_queues: model.pages.iter().map(|_| Default::default()).collect(),
            capture: None,
        };
        world.schedule_hints();
        world.schedule_sessions();
        world.start_controllers();
        if model.sample_interval > Time::ZERO {
            world.events.schedule(model.sample_interval, Event::Sample);
        }
        for (at, module, token) in world.routers.fx.timers.drain(..) {
            world.events.schedule(at, Event::RouterTimer { module, token });
        }
        world
    }

    /// Writes the packets crossing the capture's links as they start transmission.
    pub fn set_capture(&mut self, capture: Capture) {
        self.capture = Some(Box::new(capture));
    }

    pub fn take_capture(&mut self) -> Option<Capture> {
        self.capture.take().map(|c| *c)
    }

    /// Runs to the end; `progress(now)` is called about five times a second of wall time.
    pub fn run(&mut self, progress: &mut dyn FnMut(Time)) {
        let mut last_report = Instant::now();
        while let Some(t) = self.events.peek_time() {
            if t > self.duration {
                break;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            self.events_run += 1;
            self.dispatch(ev);
            if self.events_run & 0xffff == 0 && last_report.elapsed().as_millis() >= 200 {
                last_report = Instant::now();
                progress(self.now);
            }
        }
        self.now = self.duration;
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Arrive { pkt, link } => self.arrive(pkt, link),
            Event::TxDone { link } => self.tx_done(link),
            Event::LinkState { link, up } => self.set_link_state(link, up),
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::FlowStop { flow } => self.flows[flow as usize].sender.stop_writing(),
            Event::Timer { flow, kind } => {
                let f = &mut self.flows[flow as usize];
                let mut io = Io { now: self.now, out: &mut self.out, timers: &mut self.timers };
                let at_sender = kind.at_sender();
                if at_sender {
                    f.sender.on_timer(kind, &mut io);
                } else {
                    f.receiver.on_timer(kind, &mut io);
                }
                self.flush(flow, at_sender);
            }
            Event::RouterTimer { module, token } => {
                self.routers.timer(module, token, self.now, &self.links);
                self.after_router_hook();
            }
            Event::CtlTimer { slot } => self.ctl_timer(slot),
            Event::CtlSample { ctl } => self.ctl_sample(ctl),
            Event::CtlApply { slot } => self.ctl_apply(slot),
            Event::Hint { slot } => self.scheduled_hint(slot),
            Event::DataLimits => self.raise_data_limits(),
            Event::AppWake { flow } => self.app_wake(flow),
            Event::SessionStart { session } => self.session_start(session),
            Event::RequestResend { flow, id } => self.request_resend(flow, id),
            Event::CellTti { cell, uplink } => self.cell_tti(cell as usize, uplink),
            Event::CellReport { ue } => self.cell_report(ue),
            Event::DnsServe { slot } => self.dns_answer_leaves(slot),
            Event::DnsTimeout { query, attempt } => self.dns_timeout(query, attempt),
            Event::DnsCached { slot } => self.dns_cached(slot),
            Event::Sample => self.sample(),
        }
    }

    fn start_flow(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        f.started = true;
        f.start = self.now;
        if let Some(app) = &mut f.app {
            app.begin(self.now);
        }
        if self.ctl.seen[flow as usize].watched {
            // Before the SYN: what the handshake announces may still be set.
            let (src, dst) = (f.src, f.dst);
            let event = crate::control::Event::ConnectionOpening { conn: flow };
            self.tell_host(src, &event);
            if dst != src {
                self.tell_host(dst, &event);
            }
        }
        let f = &mut self.flows[flow as usize];
        let mut io = Io { now: self.now, out: &mut self.out, timers: &mut self.timers };
        f.sender.start(&mut io);
        self.flush(flow, true);
    }

    /// Schedules the control timers that router modules asked for and
    /// carries out their actions, in order (an action may call hooks that
    /// add more).
    fn after_router_hook(&mut self) {
        for (at, module, token) in self.routers.fx.timers.drain(..) {
            self.events.schedule(at, Event::RouterTimer { module, token });
        }
        while let Some(action) = self.routers.fx.actions.pop_front() {
            match action {
                Action::Kick { link } => self.refill(link),
                Action::Detour { link, id, to } => {
                    self.pool.get_mut(id).detour_to = Some(to);
                    self.offer(link, id);
                }
                Action::Inject { link, pkt } => {
                    self.counts.sent += 1;
                    let id = self.pool.insert(*pkt);
                    self.offer(link, id);
                }
            }
        }
    }

    /// Moves packets a router module kept into `l`'s queue while it has room.
    fn refill(&mut self, l: LinkId) {
        while self.links[l as usize].up {
            let Some(id) = self.routers.pull(l, self.now, &self.links) else { break };
            self.enqueue(l, id);
        }
    }

    /// Injects what an endpoint produced and schedules the timers it asked for.
    fn flush(&mut self, flow: u32, at_sender: bool) {
        let f = &self.flows[flow as usize];
        let node = if at_sender { f.src } else { f.dst };
        let (bound, bound_dst) = (self.flow_models[flow as usize].src_if, self.flow_models[flow as usize].dst_if);
        let mut out = std::mem::take(&mut self.out);
        for mut p in out.drain(..) {
            // A flow bound to a source interface (`interface`): its packets
            // leave by it and the receiver's come back to it.
            if let Some(i) = bound {
                if at_sender {
                    p.src_if = i;
                } else {
                    p.dst_if = i;
                }
            }
            // Bound to a destination interface (a fetch connection's client
            // interface): its packets go to it and the receiver's leave by it.
            if let Some(i) = bound_dst {
                if at_sender {
                    p.dst_if = i;
                } else {
                    p.src_if = i;
                }
            }
            self.counts.sent += 1;
            let src_if = p.src_if;
            let id = self.pool.insert(p);
            if src_if == ANY_INTERFACE {
                self.forward(id, node);
            } else {
                // Bound to an interface: it leaves over that interface's link.
                self.offer(self.ifaces.get(node, src_if).out, id);
            }
        }
        self.out = out;
        for (kind, at) in self.timers.drain(..) {
            self.events.schedule(at, Event::Timer { flow, kind });
        }
        self.observe(flow);
        self.app_step(flow);
        self.fetch_step(flow);
    }

    fn drop_packet(&mut self, id: PacketId) {
        let p = self.pool.get(id);
        if p.kind == Kind::Request {
            self.request_lost(p.flow, p.seq as u32);
        }
        let p = self.pool.get(id);
        if p.kind == Kind::Datagram {
            self.datagram_lost(p.seq as u32);
        }
        self.counts.dropped += 1;
        self.pool.release(id);
    }

    fn forward(&mut self, id: PacketId, at: NodeId) {
        let p = self.pool.get(id);
        if let Some(to) = p.detour_to {
            // A detoured packet goes to the next hop it was meant for first (INRPP §III-A).
            if to == at {
                self.pool.get_mut(id).detour_to = None;
            } else if let Some(i) = self.ifaces.of(at).iter().find(|i| i.peer == to) {
                return self.offer(i.out, id);
            }
        }
        let p = self.pool.get(id);
        let hop = if p.dst_if == ANY_INTERFACE {
            self.routes.next_hop(at, p.dst, p.flow, self.ecmp)
        } else {
            // Subflows of one connection hash apart over equal-cost paths, as their ports would.
            let key = p.flow ^ (p.subflow as u32).wrapping_mul(0x9e37_79b9);
            self.ifaces.next_hop(self.routes, at, p.dst, p.dst_if, key, self.ecmp)
        };
        match hop {
            Some(link) => self.offer(link, id),
            // Validation guarantees routes between flow endpoints; count it anyway.
            None => self.drop_packet(id),
        }
    }

    fn offer(&mut self, l: LinkId, id: PacketId) {
        let link = &mut self.links[l as usize];
        if !link.up {
            link.stats.drops_down += 1;
            return self.drop_packet(id);
        }
        match self.routers.offer(l, id, self.pool.get_mut(id), self.now, &self.links) {
            Verdict::Queue => self.enqueue(l, id),
            Verdict::Keep => {}
            Verdict::Drop => self.drop_packet(id),
        }
        self.after_router_hook();
    }

    /// Starts `id` on `l` if it is idle, else queues it (or drops it if the queue is full).
    fn enqueue(&mut self, l: LinkId, id: PacketId) {
        let size = self.pool.get(id).size;
        let link = &mut self.links[l as usize];
        if !link.up {
            link.stats.drops_down += 1;
            return self.drop_packet(id);
        }
        if self.instant_acks && matches!(self.pool.get(id).kind, Kind::Ack | Kind::SynAck) {
            // Straight onto the wire, behind what is already on it (`net::ack_path`).
            let at = link.wire.arrival(self.now, self.now);
            self.pool.get_mut(id).epoch = link.epoch;
            self.events.schedule(at, Event::Arrive { pkt: id, link: l });
            return;
        }
        if let Some(air) = self.air.as_mut().filter(|a| a.serves(l)) {
            // A cell's scheduler sends it, TTI by TTI.
            if !link.queue.enqueue(id, size) {
                link.stats.drops_queue += 1;
                return self.drop_packet(id);
            }
            link.note_queue();
            if let Some((cell, uplink, at)) = air.wake(l, self.now) {
                self.events.schedule(at, Event::CellTti { cell, uplink });
            }
            return;
        }
        if link.queue.len_packets() == 0 && self.now >= link.busy_until {
            return self.start_tx(l, id);
        }
        if !link.queue.enqueue(id, size) {
            link.stats.drops_queue += 1;
            return self.drop_packet(id);
        }
        link.note_queue();
        if !link.tx_done_pending {
            link.tx_done_pending = true;
            let at = link.busy_until;
            self.events.schedule(at, Event::TxDone { link: l });
        }
    }

    fn start_tx(&mut self, l: LinkId, id: PacketId) {
        self.routers.transmit(l, self.pool.get_mut(id), self.now, &self.links);
        let link = &mut self.links[l as usize];
        let size = self.pool.get(id).size;
        let finish = link.capacity.finish_time(self.now, size);
        link.busy_until = finish;
        link.stats.bytes_sent += size as u64;
        if self.energy.on_tx(l, self.now, size) {
            self.events.schedule(self.now, Event::DataLimits);
        }
        link.stats.packets_sent += 1;
        if let Some(c) = self.capture.as_deref_mut() {
            c.on_tx(l, self.now, self.pool.get(id));
        }
        if link.loss.lose(&mut link.rng) {
            link.stats.drops_loss += 1;
            self.drop_packet(id);
        } else {
            let arrive = link.wire.arrival(self.now, finish);
            self.pool.get_mut(id).epoch = link.epoch;
            self.events.schedule(arrive, Event::Arrive { pkt: id, link: l });
        }
        // Only now, with the transmitter busy, may the module's actions and kept packets follow.
        self.after_router_hook();
        if self.routers.owns(l) {
            self.refill(l);
        }
    }

    /// One TTI of a cell: the granted block carries bits of the chosen
    /// direction's queue (a packet may span TTIs); each packet whose last
    /// bit it carries leaves at the TTI's end, after HARQ's delay, in order.
    fn cell_tti(&mut self, cell: usize, uplink: bool) {
        let now = self.now;
        let links = &self.links;
        let queued = |l: LinkId| links[l as usize].queue.len_packets() > 0;
        let air = self.air.as_mut().expect("cells");
        if let Some(g) = air.tick(cell, uplink, now, &queued) {
            let harq = air.harq_delay(g.link);
            if let Capacity::Cell(c) = &mut self.links[g.link as usize].capacity {
                c.granted_bits += g.bits as f64;
            }
            let mut budget = g.bits;
            while budget > 0 {
                let air = self.air.as_mut().expect("cells");
                let (id, left) = match air.head(g.link).take() {
                    Some(h) => h,
                    None => match self.links[g.link as usize].queue.dequeue() {
                        Some(id) => (id, self.pool.get(id).size as u64 * 8),
                        None => break,
                    },
                };
                let sent = left.min(budget);
                budget -= sent;
                if sent < left {
                    *air.head(g.link) = Some((id, left - sent));
                    break;
                }
                self.cell_deliver(g.link, id, g.end, harq);
            }
        }
        let links = &self.links;
        let queued = |l: LinkId| links[l as usize].queue.len_packets() > 0;
        let air = self.air.as_mut().expect("cells");
        for (cell, uplink, at) in air.rearm(cell, uplink, now, &queued) {
            self.events.schedule(at, Event::CellTti { cell, uplink });
        }
    }

    /// A packet's last bit left in a TTI ending at `end`: as `start_tx`, with
    /// the cell's HARQ delay and residual loss, delivered in order.
    fn cell_deliver(&mut self, l: LinkId, id: PacketId, end: Time, harq: Time) {
        self.routers.transmit(l, self.pool.get_mut(id), self.now, &self.links);
        let size = self.pool.get(id).size;
        let link = &mut self.links[l as usize];
        link.stats.bytes_sent += size as u64;
        if self.energy.on_tx(l, self.now, size) {
            self.events.schedule(self.now, Event::DataLimits);
        }
        link.stats.packets_sent += 1;
        if let Some(c) = self.capture.as_deref_mut() {
            c.on_tx(l, self.now, self.pool.get(id));
        }
        let air = self.air.as_mut().expect("cells");
        let residual = air.residual_lost(l);
        if link.loss.lose(&mut link.rng) || residual {
            link.stats.drops_loss += 1;
            self.drop_packet(id);
        } else {
            // The cell keeps its directions in order itself (`in_order`).
            let arrive = air.in_order(l, end + harq + link.wire.delay.at(self.now) + link.wire.jitter());
            self.pool.get_mut(id).epoch = link.epoch;
            self.events.schedule(arrive, Event::Arrive { pkt: id, link: l });
        }
        self.after_router_hook();
    }

    /// Tells a UE's host its signal level and schedules the next report.
    fn cell_report(&mut self, ue: u32) {
        let (host, iface, dbm, next) = self.air.as_mut().expect("cells").report(ue as usize, self.now);
        self.hint(host, crate::control::Hint::Signal { iface, dbm });
        if next <= self.duration {
            self.events.schedule(next, Event::CellReport { ue });
        }
    }

    fn tx_done(&mut self, l: LinkId) {
        let link = &mut self.links[l as usize];
        link.tx_done_pending = false;
        let Some(id) = link.queue.dequeue() else { return };
        self.start_tx(l, id);
        let link = &mut self.links[l as usize];
        // A refill during start_tx may have scheduled the next TxDone already.
        if link.queue.len_packets() > 0 && !link.tx_done_pending {
            link.tx_done_pending = true;
            let at = link.busy_until;
            self.events.schedule(at, Event::TxDone { link: l });
        }
    }

    fn arrive(&mut self, id: PacketId, l: LinkId) {
        let link = &mut self.links[l as usize];
        if self.pool.get(id).epoch != link.epoch {
            // The link went down while this packet was on the wire.
            link.stats.drops_down += 1;
            return self.drop_packet(id);
        }
        let node = link.to;
        let p = self.pool.get(id);
        link.stats.bytes_delivered += p.size as u64;
        if self.energy.on_rx(l, self.now, p.size) {
            self.events.schedule(self.now, Event::DataLimits);
        }
        link.stats.packets_delivered += 1;
        if self.routers.runs_at(node) {
            let arrival = self.routers.arrive(l, node, self.pool.get_mut(id), self.now, &self.links);
            if arrival == Arrival::Consume {
                self.counts.delivered += 1;
                self.pool.release(id);
            }
            self.after_router_hook();
            if arrival == Arrival::Consume {
                return;
            }
        }
        let p = self.pool.get(id);
        if node != p.dst {
            return self.forward(id, node);
        }
        if p.kind == Kind::Control {
            // A module's packet that no module took: its node runs none.
            return self.drop_packet(id);
        }
        if p.kind == Kind::Request {
            return self.request_arrived(id);
        }
        if p.kind == Kind::Datagram {
            return self.datagram_arrived(id);
        }
        self.counts.delivered += 1;
        let flow = p.flow;
        let f = &mut self.flows[flow as usize];
        let mut io = Io { now: self.now, out: &mut self.out, timers: &mut self.timers };
        let at_sender = matches!(p.kind, Kind::Ack | Kind::SynAck);
        if at_sender {
            f.sender.on_packet(p, &mut io);
        } else {
            if p.kind == Kind::Data {
                self.counts.delivered_data += 1;
            }
            f.receiver.on_packet(p, &mut io);
            // Its last byte just reached the application: start what waits for it.
            let dependents = if f.receiver.finished_at() == Some(self.now) { std::mem::take(&mut f.dependents) } else { Vec::new() };
            for d in dependents {
                let delay = self.flows[d as usize].start;
                self.events.schedule(self.now + delay, Event::FlowStart { flow: d });
            }
        }
        self.pool.release(id);
        self.flush(flow, at_sender);
    }

    fn set_link_state(&mut self, link: u32, up: bool) {
        for l in [2 * link, 2 * link + 1] {
            let d = &mut self.links[l as usize];
            if up {
                d.up = true;
                continue;
            }
            d.up = false;
            d.epoch += 1;
            d.wire.cut();
            d.busy_until = self.now;
            let mut lost = d.queue.drain();
            if let Some(air) = self.air.as_mut().filter(|a| a.serves(l)) {
                lost.extend(air.head(l).take().map(|h| h.0));
            }
            let d = &mut self.links[l as usize];
            d.stats.drops_down += lost.len() as u64;
            for id in lost {
                self.drop_packet(id);
            }
        }
        // MPTCP connections see their interfaces go down and come back; the
        // path managers and controllers hear of those that came back.
        for flow in 0..self.flows.len() as u32 {
            if let Sender::Mptcp(s) = &mut self.flows[flow as usize].sender {
                let touched = s.interface_event(link, up, &mut Io { now: self.now, out: &mut self.out, timers: &mut self.timers });
                self.flush(flow, true);
                if up && !touched.is_empty() {
                    for (at_dst, iface) in touched {
                        self.path_up(flow, at_dst, iface);
                    }
                }
            }
        }
        let l = &self.model.links[link as usize];
        for node in [l.a, l.b] {
            if !self.ctl.on_host(node) {
                continue;
            }
            if let Some(iface) = self.ifaces.of(node).iter().position(|i| i.link == link) {
                let iface = iface as u16;
                let event = if up { crate::control::Event::InterfaceUp { iface } } else { crate::control::Event::InterfaceDown { iface } };
                self.tell_host(node, &event);
            }
        }
    }

    fn sample(&mut self) {
        self.routers.sample(self.now, &self.links);
        self.energy.sample(self.now, self.model);
        let s = &mut self.sampler;
        let now = self.now;
        for (i, f) in self.flows.iter().enumerate() {
            let done = f.receiver.finished_at().is_some_and(|t| t < now);
            if !f.started || done {
                continue;
            }
            s.flow(
                now,
                i as u32,
                FlowSample {
                    delivered: f.receiver.delivered(),
                    cwnd: f.sender.cwnd(),
                    srtt: f.sender.srtt(),
                    in_flight: f.sender.in_flight(),
                    pacing_rate: f.sender.pacing_rate(),
                    bw_estimate: f.sender.bw_estimate(),
                    imbalance: f.sender.imbalance(),
                    increment: f.sender.increment(),
                },
            );
            if let (Sender::Mptcp(tx), Receiver::Mptcp(rx)) = (&f.sender, &f.receiver) {
                for (j, sf) in tx.subflows().iter().enumerate() {
                    if sf.state != crate::mptcp::sender::SubflowState::Open {
                        continue;
                    }
                    let sample = SubflowSample {
                        delivered: rx.subflow_delivered(j),
                        cwnd: sf.sender.ccs.cwnd,
                        srtt: sf.sender.rtt.srtt(),
                        in_flight: sf.sender.in_flight(),
                        bw_estimate: sf.sender.cc().bandwidth_estimate(),
                        increment: sf.sender.cc().increment(),
                    };
                    s.subflow(now, i as u32, j as u32, sample);
                }
            }
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            if let Some(sample) = f.app.as_mut().filter(|_| f.started).and_then(|a| a.sample(now)) {
                self.app_ts.push(now, i as u32, sample);
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            s.link(
                now,
                i as u32,
                LinkSample {
                    queue_bytes: l.queue.len_bytes(),
                    queue_packets: l.queue.len_packets(),
                    bytes_sent: l.stats.bytes_sent,
                    capacity_bits: l.capacity.bits_until(now),
                    delay: l.wire.delay.at(now),
                },
            );
        }
        let next = now + s.interval;
        if next <= self.duration {
            self.events.schedule(next, Event::Sample);
        }
    }

    /// Tells the hosts whose interfaces just crossed their data limit.
    fn raise_data_limits(&mut self) {
        for (host, iface, bytes) in self.energy.take_crossed() {
            self.hint(host, crate::control::Hint::DataLimit { iface, bytes });
        }
    }

    /// The router modules, for their result tables.
    pub fn routers(&self) -> &RouterSet {
        &self.routers
    }

    /// Packets still in queues, router caches or on wires.
    pub fn packets_in_flight(&self) -> u64 {
        self.pool.live() as u64
    }

    /// The time series (empty tables when sampling is off).
    pub fn into_time_series(self) -> [crate::metrics::Table; 3] {
        self.sampler.into_tables()
    }

    /// The `energy` and `radio_ts` tables and the summary's `energy` object
    /// (the energy models' accounts closed at the end of the run).
    pub fn energy_results(&mut self) -> (crate::metrics::Table, crate::metrics::Table, serde_json::Value) {
        let delivered = |host: NodeId| -> u64 {
            self.flows.iter().filter(|f| f.src == host || f.dst == host).map(|f| f.receiver.delivered()).sum()
        };
        std::mem::take(&mut self.energy).finish(self.duration, self.model, delivered)
    }
}

/// The first link on `f`'s route (flow number `id`, for ECMP's hash), as
/// the INRPP flows leaving over it share it: they send open loop at their
/// interface's rate, taking turns on it (§III-C's processor sharing).
fn first_hop(model: &Model, f: &FlowModel, id: u32, shares: &mut BTreeMap<LinkId, Rc<InterfaceShare>>) -> Rc<InterfaceShare> {
    match model.routes.next_hop(f.src, f.dst, id, model.ecmp) {
        Some(l) => shares.entry(l).or_insert_with(|| InterfaceShare::new(model.links[l as usize / 2].dirs[l as usize % 2].rate_bps)).clone(),
        None => InterfaceShare::new(0.0),
    }
}
