//! The INRPP router (Reñé, Ascigil, Psaras and Pavlou, "A Congestion
//! Control Framework Based on In-Network Resource Pooling", IEEE/ACM ToN
//! 2022, §II–III). One instance per router; each of its outgoing directions
//! is an INRPP *interface* with
//!
//! - a cache beside its queue (`cache`): INRPP data the queue cannot take
//!   is kept instead of dropped ("cut-through" while the cache is empty,
//!   Fig. 7), and goes back into the queue, flow by flow in turn, whenever
//!   the queue has room; only a full cache drops;
//! - a state (`state`): Push, Store and Detour, Backpressure, Disable
//!   Backpressure, from the cache occupancy against S_high and S_low;
//! - ACK processing (`backpressure`, Algorithm 1) on the ACKs arriving over
//!   the interface's link: slow-down and cancel notifications with the
//!   interface's nonce, stored nonces of the interfaces downstream, and in
//!   closed loop one cached data packet released per ACK;
//! - one-hop detours (`detour`, Table III): probes every T_p, rate
//!   decisions every T_d (eqs. 1–3), and cached packets sent around the
//!   congested link at that rate, tagged with the next hop they were meant
//!   for, while both detour egresses are in Push state.
//!
//! Only INRPP packets (data segments and SYNs carrying the INRPP option)
//! are cached in the INRPP partition, detoured and pushed back; other
//! transports' data that the queue cannot take goes to a small TCP
//! partition (`partition`, §V-A; `fair` schedules the two partitions under
//! the `fair_queue` option), and ACKs, other handshakes and probes meet
//! the drop-tail queue as without the module. `record` keeps what the result
//! tables report.

pub mod auth;
pub mod backpressure;
pub mod cache;
pub mod detour;
pub mod fair;
pub mod partition;
pub mod record;
pub mod state;

use std::any::Any;
use std::collections::BTreeMap;
use std::f64::consts::{PI, SQRT_2};

use self::backpressure::{process_ack, NonceStore};
use self::cache::{Cache, Cached, Hold};
use self::detour::{Detour, Meter};
use self::fair::{Class, Drr};
use self::partition::TcpPartition;
use self::record::Record;
use self::state::{State, Thresholds};
use super::{Arrival, RouterCtx, RouterModule, Verdict};
use crate::cc::Params;
use crate::net::packet::{Feedback, InrppOption, Kind, Nonce, Packet, PacketId, Probe};
use crate::net::{LinkId, NodeId};
use crate::time::Time;

/// Wire bytes of a probe or its answer: an ICMP-sized control packet
/// (§III-A: "similar to ICMP packets, probes are control packets").
pub const PROBE_BYTES: u32 = 64;

#[derive(Debug, Clone)]
pub struct InrppParams {
    /// S_total, bytes; None: `cache_time` of the interface's capacity.
    pub cache: Option<u64>,
    /// Default cache size as seconds of traffic (§IV-B: 12.5 MB, "10 seconds worth of traffic").
    pub cache_time: Time,
    /// S_high, bytes; None: S_total − RTT·C (§II-B).
    pub s_high: Option<u64>,
    /// S_low, bytes; None: S_high / 2 (§II-B).
    pub s_low: Option<u64>,
    /// The RTT in S_high = S_total − RTT·C.
    pub rtt: Time,
    /// T_p: probes and load measurements.
    pub probe_interval: Time,
    /// T_d: detour rate decisions.
    pub decision_interval: Time,
    /// α and β of eq. 1.
    pub alpha: f64,
    pub beta: f64,
    /// How long Disable Backpressure sends cancels, and how long a stored
    /// nonce lives without a slow-down refreshing it.
    pub expiry: Time,
    /// Use one-hop detours.
    pub detours: bool,
    /// The TCP partition holds this much traffic at the interface's rate (§V-A); zero: none.
    pub tcp_partition: Time,
    /// Deficit round robin between the INRPP cache and the TCP partition, with the
    /// queue kept to one waiting packet while either holds any (`fair`); off: they take turns refilling the queue.
    pub fair_queue: bool,
    /// Nonces a router stores at most, over all its interfaces (LRU, §V-C).
    pub nonce_capacity: usize,
    /// Sign and check the notifications between neighbours (§V-C).
    pub authenticate: bool,
    /// Which packets a closed-loop interface holds (`cache::Hold`).
    pub hold: Hold,
}

impl InrppParams {
    pub fn read(p: &mut Params) -> InrppParams {
        // Kandula et al.'s stability bound on α, which the paper adopts (§III-B).
        let alpha_max = PI / (4.0 * SQRT_2);
        let alpha = p.number("alpha", 0.4, |a| a > 0.0 && a < alpha_max, &format!("in (0, π/(4√2) = {alpha_max:.4})"));
        let params = InrppParams {
            cache: p.bytes("cache", |b| b >= 1500, "at least one 1500-byte packet"),
            cache_time: p.duration("cache_time", Time::from_secs(10), |t| t > Time::ZERO, "positive"),
            s_high: p.bytes("s_high", |b| b > 0, "positive"),
            s_low: p.bytes("s_low", |_| true, "a size"),
            rtt: p.duration("rtt", Time::from_millis(250), |_| true, "a duration"),
            probe_interval: p.duration("probe_interval", Time::from_millis(10), |t| t > Time::ZERO, "positive"),
            decision_interval: p.duration("decision_interval", Time::from_millis(50), |t| t > Time::ZERO, "positive"),
            alpha,
            beta: p.number("beta", alpha * alpha * SQRT_2, |b| b > 0.0, "positive"),
            expiry: p.duration("expiry", Time::from_millis(100), |t| t > Time::ZERO, "positive"),
            detours: p.flag("detours", true),
            tcp_partition: p.duration("tcp_partition", Time::from_millis(50), |_| true, "a duration"),
            fair_queue: p.flag("fair_queue", false),
            nonce_capacity: p.number("nonce_capacity", 1024.0, |n| n >= 1.0 && n.fract() == 0.0, "a whole number, at least 1") as usize,
            authenticate: p.flag("authenticate", false),
            hold: Hold::from_name(p.choice("hold", "nonce", &Hold::NAMES)).expect("one of Hold::NAMES"),
        };
        if params.fair_queue && params.tcp_partition == Time::ZERO {
            p.problem("fair_queue", "schedules the INRPP cache against the TCP partition: needs a tcp_partition above 0".to_string());
        }
        // §III-B, after Kandula et al.: T_d ≥ 5·T_p is necessary for stability.
        if params.decision_interval < Time(5 * params.probe_interval.nanos()) {
            p.problem(
                "decision_interval",
                format!(
                    "must be at least 5 × probe_interval = {} s for stable detour rates (§III-B), got {} s",
                    5.0 * params.probe_interval.secs(),
                    params.decision_interval.secs()
                ),
            );
        }
        params
    }

    /// The cache size and thresholds of an interface of capacity `rate_bps`
    /// (§II-B), or the parameter that makes them impossible and why.
    pub fn thresholds(&self, rate_bps: f64) -> Result<Thresholds, (&'static str, String)> {
        let total = self.cache.unwrap_or((self.cache_time.secs() * rate_bps / 8.0) as u64);
        let high = match self.s_high {
            Some(h) => h,
            None => {
                let margin = (self.rtt.secs() * rate_bps / 8.0) as u64;
                if margin >= total {
                    return Err((
                        "s_high",
                        format!(
                            "the default S_total − RTT·C is not positive: a {total}-byte cache holds less than rtt = {} s at {} bit/s; set s_high, or a larger cache",
                            self.rtt.secs(),
                            rate_bps
                        ),
                    ));
                }
                total - margin
            }
        };
        if high >= total {
            return Err(("s_high", format!("must be below the cache size ({total} bytes), got {high}")));
        }
        let low = self.s_low.unwrap_or(high / 2);
        if low >= high {
            return Err(("s_low", format!("must be below s_high ({high} bytes), got {low}")));
        }
        Ok(Thresholds { total, high, low })
    }
}

/// What an interface counts.
#[derive(Debug, Default, Clone)]
pub struct InterfaceStats {
    /// INRPP packets (data and SYNs) that went into the cache.
    pub cached: u64,
    /// INRPP packets dropped because the cache was full.
    pub drops: u64,
    pub slow_downs_sent: u64,
    pub cancels_sent: u64,
    pub slow_downs_heard: u64,
    pub cancels_heard: u64,
    /// Cached packets released by ACKs (closed loop).
    pub releases: u64,
    /// Stored nonces evicted to make room (LRU).
    pub nonces_evicted: u64,
    /// Notifications stripped from ACKs that failed authentication.
    pub notifications_rejected: u64,
    /// Time spent in each state (by `State as usize`) before `since`.
    pub time_in: [Time; 4],
    /// When the current state began.
    pub since: Time,
}

/// One outgoing direction of the router.
pub struct Interface {
    pub link: LinkId,
    /// The node at the far end (the primary next hop of what it carries).
    pub peer: NodeId,
    /// This interface's alias in notifications.
    pub nonce: Nonce,
    pub th: Thresholds,
    pub state: State,
    /// Disable Backpressure ends then.
    db_expires: Time,
    pub cache: Cache,
    pub tcp: TcpPartition,
    /// The partitions' scheduler under `fair_queue`.
    drr: Drr,
    store: NonceStore,
    meter: Meter,
    /// Routers that probed this interface as a detour's second leg, last seen.
    probers: BTreeMap<NodeId, Time>,
    /// Detours of this interface (indices into `Inrpp::detours`).
    detours: Vec<usize>,
    pub stats: InterfaceStats,
}

impl Interface {
    pub fn nonces_stored(&self) -> usize {
        self.store.count()
    }

    /// Nothing cached in either partition: arrivals may cut through.
    fn cache_empty(&self) -> bool {
        self.cache.is_empty() && self.tcp.is_empty()
    }
}

/// What a control timer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// Every T_p: measure load, send probes, expire nonces.
    Probe,
    /// Every T_d: detour rate decisions.
    Decide,
    /// A detour's next packet may leave.
    Pace(usize),
    /// An interface's Disable Backpressure may end.
    Expire(usize),
}

impl Token {
    fn encode(self) -> u32 {
        match self {
            Token::Probe => 0,
            Token::Decide => 1,
            Token::Pace(k) => 2 + 2 * k as u32,
            Token::Expire(i) => 3 + 2 * i as u32,
        }
    }

    fn decode(t: u32) -> Token {
        match t {
            0 => Token::Probe,
            1 => Token::Decide,
            t if t % 2 == 0 => Token::Pace((t - 2) as usize / 2),
            t => Token::Expire((t - 3) as usize / 2),
        }
    }
}

/// Whether interface store `store` holds a cached packet `c` (closed
/// loop) at `now` under rule `hold`.
fn holds(hold: Hold, store: &NonceStore, c: &Cached, now: Time) -> bool {
    match hold {
        Hold::Nonce => store.holds(&c.nonces, now),
        Hold::Interface => c.data && store.any_alive(now),
    }
}

/// An interface's nonce, "derived from i's IP address" (§II-A.3): here a
/// bijective scramble of its direction id, so distinct interfaces never share one.
fn nonce_of(link: LinkId) -> Nonce {
    (link + 1).wrapping_mul(0x9e37_79b9)
}

pub struct Inrpp {
    params: InrppParams,
    /// The directions this instance runs on, as given.
    links: Vec<LinkId>,
    pub node: NodeId,
    pub ifaces: Vec<Interface>,
    pub detours: Vec<Detour>,
    pub record: Record,
}

impl Inrpp {
    pub fn new(params: InrppParams, links: &[LinkId]) -> Inrpp {
        Inrpp { params, links: links.to_vec(), node: 0, ifaces: Vec::new(), detours: Vec::new(), record: Record::default() }
    }

    fn index(&self, link: LinkId) -> Option<usize> {
        self.ifaces.iter().position(|f| f.link == link)
    }

    /// Moves interface `i` to the state its occupancy now calls for (Fig. 3).
    fn update_state(&mut self, i: usize, ctx: &mut RouterCtx) {
        let now = ctx.now;
        let f = &mut self.ifaces[i];
        let new = state::next(f.state, f.cache.bytes(), &f.th, now >= f.db_expires);
        if new == f.state {
            return;
        }
        f.stats.time_in[f.state as usize] += now - f.stats.since;
        f.stats.since = now;
        self.record.transition(now, f.link, f.state, new, f.cache.bytes());
        if new == State::DisableBackpressure {
            // Algorithm 1, line 5.
            f.db_expires = now + self.params.expiry;
            ctx.schedule(f.db_expires, Token::Expire(i).encode());
        }
        f.state = new;
    }

    /// Eq. 2's answer for interface `i` shared by `contenders` routers.
    fn feedback(&self, i: usize, contenders: usize, ctx: &RouterCtx) -> Feedback {
        let f = &self.ifaces[i];
        let t_p = self.params.probe_interval.secs();
        let sc = f.meter.spare(self.params.alpha, self.params.beta, t_p, ctx.queue_bytes(f.link));
        f.meter.feedback(sc, contenders, t_p, f.state == State::Push)
    }

    /// Forgets probers not heard from within one T_d; how many remain.
    fn contenders(&mut self, i: usize, now: Time) -> usize {
        let window = self.params.decision_interval;
        let probers = &mut self.ifaces[i].probers;
        probers.retain(|_, seen| now.saturating_sub(*seen) < window);
        probers.len()
    }

    /// Algorithm 1 for an ACK of `flow` arriving over interface `i`'s link.
    fn on_ack(&mut self, i: usize, flow: u32, opt: &mut InrppOption, ctx: &mut RouterCtx) {
        // Lines 2–13.
        self.update_state(i, ctx);
        let f = &mut self.ifaces[i];
        let out = process_ack(opt, f.state, f.nonce, &mut f.store, ctx.now);
        if out.slow_downs_heard > 0 {
            self.bound_nonces(ctx);
        }
        let f = &mut self.ifaces[i];
        let s = &mut f.stats;
        s.slow_downs_heard += out.slow_downs_heard as u64;
        s.cancels_heard += out.cancels_heard as u64;
        s.slow_downs_sent += out.slow_down_sent as u64;
        s.cancels_sent += out.cancel_sent as u64;
        // Lines 17–18: one data packet of this flow for the ACK.
        if out.release && f.cache.release(flow) {
            s.releases += 1;
        }
        if !f.cache_empty() {
            ctx.kick(f.link);
        }
    }

    /// Evicts the least recently refreshed nonces while the router stores
    /// more than `nonce_capacity` (§V-C).
    fn bound_nonces(&mut self, ctx: &mut RouterCtx) {
        while self.ifaces.iter().map(|f| f.store.count()).sum::<usize>() > self.params.nonce_capacity {
            let (i, nonce) = (0..self.ifaces.len())
                .filter_map(|i| self.ifaces[i].store.oldest().map(|(n, t)| (t, i, n)))
                .min()
                .map(|(_, i, n)| (i, n))
                .expect("a router over capacity stores a nonce");
            let f = &mut self.ifaces[i];
            f.store.forget(nonce);
            f.stats.nonces_evicted += 1;
            if !f.cache_empty() {
                ctx.kick(f.link);
            }
        }
    }

    /// A probe or a probe's answer from neighbour `from`, which came in over `link`.
    fn on_probe(&mut self, link: LinkId, from: NodeId, probe: Probe, ctx: &mut RouterCtx) {
        match probe.feedback {
            None => {
                // We are the detour node: answer for our interface towards the target.
                let Some(i) = self.ifaces.iter().position(|f| f.peer == probe.target) else { return };
                self.ifaces[i].probers.insert(from, ctx.now);
                let n = self.contenders(i, ctx.now);
                let feedback = self.feedback(i, n, ctx);
                let mut answer = Packet::new(u32::MAX, self.node, from, Kind::Control, PROBE_BYTES);
                answer.probe = Some(Box::new(Probe { target: probe.target, feedback: Some(feedback) }));
                ctx.inject(link ^ 1, answer);
            }
            Some(feedback) => {
                if let Some(d) = self.detours.iter_mut().find(|d| d.via == from && d.target == probe.target) {
                    d.remote = Some(feedback);
                    d.answers += 1;
                }
            }
        }
    }

    /// Sends detour `k`'s next packet if it is due and the detour usable, and
    /// arms its pacer for the one after.
    fn send_detour(&mut self, k: usize, ctx: &mut RouterCtx) {
        let now = ctx.now;
        let d = &self.detours[k];
        let (p, v) = (d.primary, d.via_iface);
        if !d.usable(self.ifaces[v].state) || self.ifaces[p].cache.is_empty() {
            return;
        }
        if now < d.next_departure {
            let at = d.next_departure;
            self.arm_pacer(k, at, ctx);
            return;
        }
        let hold = self.params.hold;
        let f = &mut self.ifaces[p];
        let store = &f.store;
        let Some(c) = f.cache.pick(|_| true, |c| holds(hold, store, c, now)) else { return };
        let d = &mut self.detours[k];
        ctx.detour(d.via_link, c.id, d.target);
        d.packets += 1;
        d.bytes += c.size as u64;
        d.next_departure = now + Time::from_secs_f64(c.size as f64 * 8.0 / d.rate_bps);
        let at = d.next_departure;
        self.arm_pacer(k, at, ctx);
        self.update_state(p, ctx);
    }

    fn arm_pacer(&mut self, k: usize, at: Time, ctx: &mut RouterCtx) {
        let d = &mut self.detours[k];
        if d.pacer.is_none_or(|t| at < t) {
            d.pacer = Some(at);
            ctx.schedule(at, Token::Pace(k).encode());
        }
    }

    /// `pull` under `fair_queue`: one packet at a time, only once the queue has
    /// nothing waiting, so that the link serves the partitions in DRR order
    /// (`fair`) and a TCP packet waits behind its own partition's backlog and
    /// the INRPP packets of its share, not behind a queue the cache refilled.
    fn pull_fair(&mut self, i: usize, ctx: &mut RouterCtx) -> Option<PacketId> {
        let (link, now, hold) = (self.ifaces[i].link, ctx.now, self.params.hold);
        if ctx.queue_bytes(link) > 0 {
            return None;
        }
        let f = &mut self.ifaces[i];
        let (cache, tcp, store) = (&mut f.cache, &mut f.tcp, &f.store);
        let fits = |size| ctx.queue_fits(link, size);
        let mut id = None;
        let class = f.drr.next(|class| {
            let (got, size) = match class {
                Class::Inrpp => cache.pick(fits, |c| holds(hold, store, c, now)).map(|c| (c.id, c.size)).unzip(),
                Class::Tcp => tcp.take_sized(fits).unzip(),
            };
            id = got;
            size
        })?;
        if class == Class::Inrpp {
            self.update_state(i, ctx);
        }
        id
    }

    /// Every T_p: load measurements (eq. 1), nonce expiry, probes (§III-A).
    fn probe_tick(&mut self, ctx: &mut RouterCtx) {
        let now = ctx.now;
        let t_p = self.params.probe_interval.secs();
        for f in &mut self.ifaces {
            f.meter.sample(ctx.bytes_sent(f.link), ctx.capacity_bps(f.link), t_p);
            if f.store.expire(now) && !f.cache_empty() {
                ctx.kick(f.link);
            }
        }
        for d in &mut self.detours {
            let mut probe = Packet::new(u32::MAX, self.node, d.via, Kind::Control, PROBE_BYTES);
            probe.probe = Some(Box::new(Probe { target: d.target, feedback: None }));
            ctx.inject(d.via_link, probe);
            d.probes += 1;
        }
        ctx.schedule(now + self.params.probe_interval, Token::Probe.encode());
    }

    /// Every T_d: each detour's new rate (eq. 3).
    fn decide_tick(&mut self, ctx: &mut RouterCtx) {
        let now = ctx.now;
        for k in 0..self.detours.len() {
            let v = self.detours[k].via_iface;
            // This router contends for its own first leg with those that probe it.
            let n = 1 + self.contenders(v, now);
            let local = self.feedback(v, n, ctx);
            self.detours[k].decide(local);
            self.send_detour(k, ctx);
        }
        ctx.schedule(now + self.params.decision_interval, Token::Decide.encode());
    }
}

impl RouterModule for Inrpp {
    fn start(&mut self, ctx: &mut RouterCtx) {
        let ends: BTreeMap<LinkId, (NodeId, NodeId)> = ctx.directions().map(|(l, a, b)| (l, (a, b))).collect();
        for &link in &self.links {
            let (from, peer) = ends[&link];
            self.node = from;
            let th = self.params.thresholds(ctx.capacity_bps(link)).expect("thresholds passed validation");
            self.ifaces.push(Interface {
                link,
                peer,
                nonce: nonce_of(link),
                th,
                state: State::Push,
                db_expires: Time::ZERO,
                cache: Cache::new(th.total, self.params.hold),
                tcp: TcpPartition::new((self.params.tcp_partition.secs() * ctx.capacity_bps(link) / 8.0) as u64),
                drr: Drr::default(),
                store: NonceStore::new(self.params.expiry),
                meter: Meter::default(),
                probers: BTreeMap::new(),
                detours: Vec::new(),
                stats: InterfaceStats { since: ctx.now, ..Default::default() },
            });
        }
        if self.params.detours {
            let ifaces: Vec<(LinkId, NodeId)> = self.ifaces.iter().map(|f| (f.link, f.peer)).collect();
            for (p, v, second_link) in detour::table(&ifaces, ctx.directions(), |l| ctx.runs_module(l)) {
                let max_bps = ctx.capacity_bps(ifaces[v].0).min(ctx.capacity_bps(second_link));
                self.ifaces[p].detours.push(self.detours.len());
                self.detours.push(Detour {
                    primary: p,
                    target: ifaces[p].1,
                    via_iface: v,
                    via_link: ifaces[v].0,
                    via: ifaces[v].1,
                    second_link,
                    rate_bps: 0.0,
                    max_bps,
                    remote: None,
                    next_departure: Time::ZERO,
                    pacer: None,
                    packets: 0,
                    bytes: 0,
                    probes: 0,
                    answers: 0,
                });
            }
        }
        if !self.ifaces.is_empty() {
            ctx.schedule(ctx.now + self.params.probe_interval, Token::Probe.encode());
            ctx.schedule(ctx.now + self.params.decision_interval, Token::Decide.encode());
        }
    }

    fn on_offer(&mut self, link: LinkId, id: PacketId, pkt: &mut Packet, ctx: &mut RouterCtx) -> Verdict {
        if let (true, Kind::Ack, Some(opt)) = (self.params.authenticate, pkt.kind, pkt.inrpp.as_deref_mut()) {
            // §V-C: the next router checks our notifications with the key of this link.
            opt.mac = auth::mac(link, pkt.flow, pkt.ack, opt);
            return Verdict::Queue;
        }
        // INRPP SYNs (they carry the option) are cached like INRPP data: the
        // cache takes the packets that overflow the queue (§III-D), and a
        // handshake lost to a full queue would cost the flow its initial RTO.
        let inrpp_syn = pkt.kind == Kind::Syn && pkt.inrpp.is_some();
        let Some(i) = self.index(link).filter(|_| pkt.kind == Kind::Data || inrpp_syn) else { return Verdict::Queue };
        let f = &mut self.ifaces[i];
        let Some(nonces) = pkt.inrpp.as_deref().copied() else {
            // Other transports' data: the TCP partition (§V-A) takes what the queue cannot.
            if !f.tcp.enabled() || (f.cache_empty() && ctx.queue_fits(link, pkt.size)) {
                return Verdict::Queue;
            }
            if !f.tcp.offer(id, pkt.size) {
                return Verdict::Drop;
            }
            ctx.kick(link);
            return Verdict::Keep;
        };
        let c = Cached { id, size: pkt.size, nonces, data: pkt.kind == Kind::Data };
        let held = holds(self.params.hold, &f.store, &c, ctx.now);
        // Cut-through (Fig. 7, arrow 4): nothing cached, the queue has room, not held.
        if !held && f.cache_empty() && ctx.queue_fits(link, pkt.size) {
            return Verdict::Queue;
        }
        if !f.cache.fits(pkt.size) {
            f.stats.drops += 1;
            return Verdict::Drop;
        }
        f.cache.insert(pkt.flow, c);
        f.stats.cached += 1;
        self.update_state(i, ctx);
        ctx.kick(link);
        for j in 0..self.ifaces[i].detours.len() {
            let k = self.ifaces[i].detours[j];
            self.send_detour(k, ctx);
        }
        Verdict::Keep
    }

    fn on_transmit(&mut self, _link: LinkId, _pkt: &mut Packet, _ctx: &mut RouterCtx) {}

    fn on_timer(&mut self, token: u32, ctx: &mut RouterCtx) {
        match Token::decode(token) {
            Token::Probe => self.probe_tick(ctx),
            Token::Decide => self.decide_tick(ctx),
            Token::Pace(k) => {
                if self.detours[k].pacer == Some(ctx.now) {
                    self.detours[k].pacer = None;
                    self.send_detour(k, ctx);
                }
            }
            Token::Expire(i) => self.update_state(i, ctx),
        }
    }

    fn on_arrive(&mut self, link: LinkId, pkt: &mut Packet, ctx: &mut RouterCtx) -> Arrival {
        match pkt.kind {
            Kind::Control if pkt.dst == self.node => {
                if let Some(probe) = pkt.probe.as_deref().copied() {
                    self.on_probe(link, pkt.src, probe, ctx);
                }
                Arrival::Consume
            }
            Kind::Ack => {
                // Algorithm 1 runs at the interface the ACK arrives on: the
                // reverse of its link, which carries the flow's data.
                let (flow, ack) = (pkt.flow, pkt.ack);
                if let (Some(i), Some(opt)) = (self.index(link ^ 1), pkt.inrpp.as_deref_mut()) {
                    if self.params.authenticate && !auth::verify(link, ctx.runs_module(link), flow, ack, opt) {
                        self.ifaces[i].stats.notifications_rejected += opt.strip_notifications() as u64;
                    }
                    self.on_ack(i, flow, opt, ctx);
                }
                Arrival::Forward
            }
            _ => Arrival::Forward,
        }
    }

    fn pull(&mut self, link: LinkId, ctx: &mut RouterCtx) -> Option<PacketId> {
        let i = self.index(link)?;
        let now = ctx.now;
        if self.params.fair_queue {
            return self.pull_fair(i, ctx);
        }
        let f = &mut self.ifaces[i];
        let fits = |size| ctx.queue_fits(link, size);
        // The partitions take turns (§V-A); either sends when the other has nothing.
        if f.tcp.has_turn() {
            if let Some(id) = f.tcp.take(fits) {
                return Some(id);
            }
        }
        let (hold, store) = (self.params.hold, &f.store);
        match f.cache.pick(fits, |c| holds(hold, store, c, now)) {
            Some(c) => {
                f.tcp.inrpp_served();
                self.update_state(i, ctx);
                Some(c.id)
            }
            None => f.tcp.take(fits),
        }
    }

    fn on_sample(&mut self, ctx: &mut RouterCtx) {
        self.record.sample(ctx.now, &self.ifaces, &self.detours);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
