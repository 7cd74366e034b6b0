//! The RCP router (Dukkipati, Kobayashi, Zhang-Shen and McKeown, "Processor
//! Sharing Flows in the Internet", IWQoS 2005; Dukkipati and McKeown, "Why
//! Flow-Completion Time is the Right Metric for Congestion Control", CCR
//! 2006). Every outgoing direction offers one rate R(t) to all flows that
//! cross it, updated every control interval T from its spare capacity and
//! its queue:
//!
//!   R(t) = R(t − T) · [1 + (T/d) · (α·(C − y(t)) − β·q(t)/d) / C]
//!
//! with C the direction's capacity, y(t) the input traffic rate over the last
//! interval, q(t) the queue in bytes, d the running average RTT of the flows
//! and T = min(interval, d). SYN and data segments leave with their rate
//! field lowered to R, so a flow learns the smallest R on its path.
//!
//! As in Dukkipati's ns-2 router (`rcp.cc`): arrivals are counted when
//! offered, before the queue may drop them; the rate field is written when a
//! packet starts transmission; R starts at a fraction of C and is kept in
//! [floor, C]; d is averaged from the RTT field of arriving RCP packets
//! (weighted by their size), following larger RTTs with gain T/d and smaller
//! ones more slowly, with gain (R/C)·(d_T/d)·(T/d).

use std::any::Any;

use super::{RouterCtx, RouterModule, Verdict};
use crate::cc::Params;
use crate::net::packet::{Kind, Packet, PacketId};
use crate::net::LinkId;
use crate::time::Time;

#[derive(Debug, Clone)]
pub struct RcpParams {
    /// α: weight of spare capacity (the INRPP paper's comparison uses 0.1).
    pub alpha: f64,
    /// β: weight of the queue (1.0 there).
    pub beta: f64,
    /// Longest control interval; T = min(interval, d).
    pub interval: Time,
    /// R when the run starts, as a fraction of C (the ns-2 and ns-3 RCP routers' init_rate_fact).
    pub initial_rate: f64,
    /// d before any RTT has been seen (ns-2's 200 ms).
    pub initial_rtt: Time,
    /// The floor of R, as a fraction of C.
    pub min_rate: f64,
}

impl RcpParams {
    pub fn read(p: &mut Params) -> RcpParams {
        RcpParams {
            alpha: p.number("alpha", 0.1, |v| v > 0.0, "positive"),
            beta: p.number("beta", 1.0, |v| v >= 0.0, "non-negative"),
            interval: p.duration("interval", Time::from_millis(10), |t| t > Time::ZERO, "positive"),
            initial_rate: p.number("initial_rate", 0.05, |v| v > 0.0 && v <= 1.0, "in (0, 1]"),
            initial_rtt: p.duration("initial_rtt", Time::from_millis(200), |t| t > Time::ZERO, "positive"),
            min_rate: p.number("min_rate", 0.001, |v| v > 0.0 && v < 1.0, "in (0, 1)"),
        }
    }
}

/// The controller of one outgoing direction.
struct Direction {
    link: LinkId,
    /// R(t), wire bit/s.
    rate: f64,
    /// d, seconds.
    avg_rtt: f64,
    /// T of the interval under way.
    period: Time,
    /// Wire bits offered during the interval: y(t)·T.
    input_bits: f64,
    /// Σ RTT·bits and Σ bits over this interval's arrivals that carry an RTT.
    rtt_bit_sum: f64,
    rtt_bits: f64,
}

pub struct Rcp {
    params: RcpParams,
    /// Timer tokens index this.
    dirs: Vec<Direction>,
}

impl Rcp {
    pub fn new(params: RcpParams, links: &[LinkId]) -> Rcp {
        let dirs = links
            .iter()
            .map(|&link| Direction {
                link,
                rate: 0.0,
                avg_rtt: params.initial_rtt.secs(),
                period: params.interval.min(params.initial_rtt),
                input_bits: 0.0,
                rtt_bit_sum: 0.0,
                rtt_bits: 0.0,
            })
            .collect();
        Rcp { params, dirs }
    }

    fn dir(&mut self, link: LinkId) -> &mut Direction {
        self.dirs.iter_mut().find(|d| d.link == link).expect("the module owns the direction it is called for")
    }
}

impl RouterModule for Rcp {
    fn start(&mut self, ctx: &mut RouterCtx) {
        for (i, d) in self.dirs.iter_mut().enumerate() {
            d.rate = self.params.initial_rate * ctx.capacity_bps(d.link);
            ctx.schedule(ctx.now + d.period, i as u32);
        }
    }

    fn on_offer(&mut self, link: LinkId, _id: PacketId, pkt: &mut Packet, _ctx: &mut RouterCtx) -> Verdict {
        let bits = pkt.size as f64 * 8.0;
        let d = self.dir(link);
        d.input_bits += bits;
        if let Some(h) = pkt.rcp.filter(|h| h.rtt > Time::ZERO) {
            d.rtt_bit_sum += h.rtt.secs() * bits;
            d.rtt_bits += bits;
        }
        Verdict::Queue
    }

    fn on_transmit(&mut self, link: LinkId, pkt: &mut Packet, _ctx: &mut RouterCtx) {
        if !matches!(pkt.kind, Kind::Syn | Kind::Data) {
            return;
        }
        let rate = self.dir(link).rate;
        if let Some(h) = pkt.rcp.as_mut() {
            // Each router on the path sets the field to min(field, R).
            h.rate_bps = h.rate_bps.min(rate);
        }
    }

    fn on_timer(&mut self, token: u32, ctx: &mut RouterCtx) {
        let RcpParams { alpha, beta, interval, min_rate, .. } = self.params;
        let d = &mut self.dirs[token as usize];
        let t = d.period.secs();
        let c = ctx.capacity_bps(d.link);
        if d.rtt_bits > 0.0 {
            // d ← d + g·(d_T − d), d_T the interval's size-weighted mean RTT (ns-2 rcp.cc).
            let d_t = d.rtt_bit_sum / d.rtt_bits;
            let gain = if d_t >= d.avg_rtt {
                t / d.avg_rtt
            } else {
                (d.rate / c.max(f64::MIN_POSITIVE)).min(1.0) * (d_t / d.avg_rtt) * (t / d.avg_rtt)
            };
            d.avg_rtt += gain * (d_t - d.avg_rtt);
        }
        // A direction with no capacity now (a schedule's outage) keeps its R.
        if c > 0.0 {
            // y(t): input traffic rate over the interval just ended.
            let y = d.input_bits / t;
            // q(t): queue in bits, so that q/d is a rate like C and y.
            let q = ctx.queue_bytes(d.link) as f64 * 8.0;
            let avg = d.avg_rtt;
            // R(t) = R(t − T)·[1 + (T/d)·(α·(C − y(t)) − β·q(t)/d)/C].
            d.rate *= 1.0 + (t / avg) * (alpha * (c - y) - beta * q / avg) / c;
            // R ∈ [floor, C].
            d.rate = d.rate.clamp(min_rate * c, c);
        }
        d.input_bits = 0.0;
        d.rtt_bit_sum = 0.0;
        d.rtt_bits = 0.0;
        // T = min(user-set interval, d).
        d.period = interval.min(Time::from_secs_f64(d.avg_rtt));
        ctx.schedule(ctx.now + d.period, token);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ParamTable;
    use crate::engine::Seeds;
    use crate::router::Effects;
    use crate::net::capacity::Capacity;
    use crate::net::delay::{Delay, Wire};
    use crate::net::link::{Link, LinkStats};
    use crate::net::loss::LossModel;
    use crate::net::packet::RcpHeader;
    use crate::net::queue::{DropTail, QueueLimit};

    const C: f64 = 10e6;

    fn link() -> Link {
        Link {
            name: "l:a>b".into(),
            link_name: "l".into(),
            from: 0,
            to: 1,
            wire: Wire::new(Delay::constant(Time::from_millis(10)), None),
            capacity: Capacity::Constant { bps: C },
            loss: LossModel::from_spec(None),
            rng: Seeds { master: 1 }.stream("l"),
            queue: Box::new(DropTail::new(QueueLimit::Packets(100))),
            busy_until: Time::ZERO,
            tx_done_pending: false,
            up: true,
            epoch: 0,
            stats: LinkStats::default(),
        }
    }

    fn rcp(alpha: f64, beta: f64) -> Rcp {
        let table: ParamTable = [("alpha", alpha), ("beta", beta)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), crate::cc::ParamValue::Number(v)))
            .collect();
        let mut p = Params::new("rcp", &table);
        let params = RcpParams::read(&mut p);
        p.finish().expect("valid parameters");
        Rcp::new(params, &[0])
    }

    fn data(rtt: Time) -> Packet {
        let mut p = Packet::new(0, 0, 1, Kind::Data, 1500);
        p.rcp = Some(RcpHeader { rate_bps: f64::INFINITY, rtt });
        p
    }

    #[test]
    fn one_update_follows_the_rate_equation() {
        let links = [link()];
        let mut fx = Effects::default();
        let mut m = rcp(0.1, 1.0);
        let mut ctx = RouterCtx { now: Time::ZERO, links: &links, module: 0, owned: &[], fx: &mut fx };
        m.start(&mut ctx);
        let r0 = m.dirs[0].rate;
        assert_eq!(r0, 0.05 * C);
        // First interval: T = min(10 ms, d = 200 ms); 50 packets arrive (y = 6 Mb/s), none carry an RTT.
        assert_eq!(fx.timers, [(Time::from_millis(10), 0, 0)]);
        let mut ctx = RouterCtx { now: Time::from_millis(5), links: &links, module: 0, owned: &[], fx: &mut fx };
        for _ in 0..5 {
            m.on_offer(0, 0, &mut data(Time::ZERO), &mut ctx);
        }
        fx.timers.clear();
        let mut ctx = RouterCtx { now: Time::from_millis(10), links: &links, module: 0, owned: &[], fx: &mut fx };
        m.on_timer(0, &mut ctx);
        let (t, d, y) = (0.01, 0.2, 5.0 * 12_000.0 / 0.01);
        let expect = r0 * (1.0 + (t / d) * (0.1 * (C - y)) / C);
        assert!((m.dirs[0].rate - expect).abs() < 1e-6, "{} vs {expect}", m.dirs[0].rate);
        assert_eq!(fx.timers, [(Time::from_millis(20), 0, 0)]);
    }

    #[test]
    fn a_standing_queue_cuts_the_rate_to_the_floor_and_spare_capacity_raises_it_to_c() {
        let mut links = [link()];
        for id in 0..50 {
            links[0].queue.enqueue(id, 1500);
        }
        let mut fx = Effects::default();
        let mut m = rcp(0.1, 1.0);
        let mut ctx = RouterCtx { now: Time::ZERO, links: &links, module: 0, owned: &[], fx: &mut fx };
        m.start(&mut ctx);
        let mut now = Time::ZERO;
        for _ in 0..1000 {
            now += Time::from_millis(10);
            let mut ctx = RouterCtx { now, links: &links, module: 0, owned: &[], fx: &mut fx };
            m.on_timer(0, &mut ctx);
        }
        // 600 kbit queued over d = 200 ms is 3 Mb/s against α·C = 1 Mb/s of
        // spare capacity: R shrinks by 1% an interval down to its floor.
        assert_eq!(m.dirs[0].rate, 0.001 * C);
        links[0].queue.drain();
        for _ in 0..2000 {
            now += Time::from_millis(10);
            let mut ctx = RouterCtx { now, links: &links, module: 0, owned: &[], fx: &mut fx };
            m.on_timer(0, &mut ctx);
        }
        // No input, no queue: R grows by (T/d)·α per interval up to C.
        assert_eq!(m.dirs[0].rate, C);
    }

    #[test]
    fn data_leaves_with_the_smaller_rate_and_d_follows_the_rtt_field() {
        let links = [link()];
        let mut fx = Effects::default();
        let mut m = rcp(0.1, 1.0);
        let mut ctx = RouterCtx { now: Time::ZERO, links: &links, module: 0, owned: &[], fx: &mut fx };
        m.start(&mut ctx);
        let mut p = data(Time::from_millis(400));
        m.on_transmit(0, &mut p, &mut ctx);
        assert_eq!(p.rcp.unwrap().rate_bps, 0.05 * C);
        // A field already below R is kept; ACKs are not rewritten.
        p.rcp.as_mut().unwrap().rate_bps = 1e3;
        m.on_transmit(0, &mut p, &mut ctx);
        assert_eq!(p.rcp.unwrap().rate_bps, 1e3);
        let mut ack = data(Time::from_millis(400));
        ack.kind = Kind::Ack;
        m.on_transmit(0, &mut ack, &mut ctx);
        assert_eq!(ack.rcp.unwrap().rate_bps, f64::INFINITY);
        // An interval of 400 ms RTTs, above d = 200 ms: d moves by T/d of the gap.
        m.on_offer(0, 0, &mut p, &mut ctx);
        let mut ctx = RouterCtx { now: Time::from_millis(10), links: &links, module: 0, owned: &[], fx: &mut fx };
        m.on_timer(0, &mut ctx);
        assert!((m.dirs[0].avg_rtt - (0.2 + 0.05 * 0.2)).abs() < 1e-12, "{}", m.dirs[0].avg_rtt);
    }
}
