//! One direction of a scenario link, in model time: the simulator's link
//! model (`sim::world`: `offer`, `start_tx`, `tx_done`, `arrive`,
//! `set_link_state`), driven by a real clock instead of an event queue.
//!
//! A packet offered to an idle transmitter starts at once; otherwise it
//! waits in the drop-tail queue (`sim::net::queue::DropTail`, whose limit
//! counts only the packets behind the one in transmission). Transmission
//! ends at `Capacity::finish_time(start, bytes)` — constant rate, schedule
//! or Mahimahi trace — when the next queued packet starts. The loss model
//! draws once per transmitted packet, in transmission order, from the
//! direction's own stream. A packet not lost reaches the far end the
//! propagation delay in force when its transmission started after its last
//! bit left, but never before the packet sent before it
//! (`sim::net::delay::Wire`, constant or scheduled). A link going down
//! empties the queue, loses what is on the wire and refuses what is offered
//! until it comes back up; events apply before anything else due at the same time,
//! as the simulator schedules them first.
//!
//! Every type of the model is the simulator's own, so the two planes cannot
//! diverge; only "now" differs. Packets are the forwarder's buffer slots.

use std::collections::VecDeque;

use pathpool_sim::engine::RngStream;
use pathpool_sim::net::capacity::Capacity;
use pathpool_sim::net::delay::Wire;
use pathpool_sim::net::jitter::Jitter;
use pathpool_sim::net::loss::LossModel;
use pathpool_sim::net::packet::PacketId;
use pathpool_sim::net::queue::{DropTail, Queue};
use pathpool_sim::scenario::model::DirectionModel;
use pathpool_sim::Time;

/// Why the model dropped a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropCause {
    /// The drop-tail queue was full.
    Queue,
    /// The random loss model.
    Loss,
    /// The link was down, or went down while the packet was queued or on the wire.
    Down,
}

pub struct Direction {
    capacity: Capacity,
    wire: Wire,
    loss: LossModel,
    rng: RngStream,
    queue: DropTail,
    /// IP bytes of the packet in each slot, read when its transmission starts.
    sizes: Vec<u32>,
    /// The transmitter is busy until then.
    busy_until: Time,
    /// (arrival at the far end, slot) of the packets on the wire, in arrival order.
    in_flight: VecDeque<(Time, PacketId)>,
    up: bool,
    /// The link's (time, up?) events not yet applied, in time order.
    events: VecDeque<(Time, bool)>,
    /// The latest time the model has been run to: it never runs backwards.
    latest: Time,
}

impl Direction {
    /// `events` are the link's, `rng` the direction's loss stream and
    /// `jitter` its jitter stream (`net::jitter`, drawn only if the direction has jitter).
    pub fn new(model: &DirectionModel, events: &[(Time, bool)], rng: RngStream, jitter: RngStream) -> Direction {
        Direction {
            capacity: model.capacity.clone(),
            wire: Wire::new(model.delay.clone(), Jitter::new(model.jitter, jitter)),
            loss: LossModel::from_spec(model.loss.as_ref()),
            rng,
            queue: DropTail::new(model.limit),
            sizes: Vec::new(),
            busy_until: Time::ZERO,
            in_flight: VecDeque::new(),
            up: true,
            events: events.iter().copied().collect(),
            latest: Time::ZERO,
        }
    }

    /// What waits in the queue now (not the packet in transmission): IP
    /// bytes and packets.
    pub fn queued(&self) -> (u64, u64) {
        (self.queue.len_bytes(), self.queue.len_packets())
    }

    /// Applies, in time order, the link events and transmission starts due
    /// at or before `now`.
    pub fn advance(&mut self, now: Time, drops: &mut Vec<(PacketId, DropCause)>) {
        let now = self.latest.max(now);
        self.latest = now;
        loop {
            let tx = (self.queue.len_packets() > 0).then_some(self.busy_until).filter(|&t| t <= now);
            let event = self.events.front().copied().filter(|&(t, _)| t <= now);
            match (event, tx) {
                (Some((t, up)), tx) if tx.is_none_or(|tx| t <= tx) => {
                    self.events.pop_front();
                    self.set_state(t, up, drops);
                }
                (_, Some(start)) => {
                    let slot = self.queue.dequeue().expect("a queued packet");
                    self.start_tx(start, slot, drops);
                }
                _ => return,
            }
        }
    }

    /// A packet of `bytes` IP bytes, held in `slot`, arrives at `at` — or,
    /// if the model has already run past that, at the latest time it ran to.
    pub fn offer(&mut self, at: Time, slot: PacketId, bytes: u32, drops: &mut Vec<(PacketId, DropCause)>) {
        self.advance(at, drops);
        let now = self.latest;
        if !self.up {
            return drops.push((slot, DropCause::Down));
        }
        let i = slot as usize;
        if i >= self.sizes.len() {
            self.sizes.resize(i + 1, 0);
        }
        self.sizes[i] = bytes;
        if self.queue.len_packets() == 0 && now >= self.busy_until {
            return self.start_tx(now, slot, drops);
        }
        if !self.queue.enqueue(slot, bytes) {
            drops.push((slot, DropCause::Queue));
        }
    }

    /// The next packet that has reached the far end by `now`, with the time it did.
    pub fn pop_arrived(&mut self, now: Time) -> Option<(Time, PacketId)> {
        self.in_flight.pop_front_if(|(at, _)| *at <= now)
    }

    /// When something next happens if nothing arrives: an arrival at the far
    /// end, the transmitter freeing up for a queued packet, or a link event.
    pub fn next_deadline(&self) -> Option<Time> {
        let wire = self.in_flight.front().map(|w| w.0);
        let tx = (self.queue.len_packets() > 0).then_some(self.busy_until);
        let event = self.events.front().map(|e| e.0);
        [wire, tx, event].into_iter().flatten().min()
    }

    fn start_tx(&mut self, start: Time, slot: PacketId, drops: &mut Vec<(PacketId, DropCause)>) {
        let finish = self.capacity.finish_time(start, self.sizes[slot as usize]);
        self.busy_until = finish;
        if self.loss.lose(&mut self.rng) {
            return drops.push((slot, DropCause::Loss));
        }
        self.in_flight.push_back((self.wire.arrival(start, finish), slot));
    }

    fn set_state(&mut self, at: Time, up: bool, drops: &mut Vec<(PacketId, DropCause)>) {
        self.up = up;
        if up {
            return;
        }
        self.busy_until = at;
        drops.extend(self.queue.drain().into_iter().map(|s| (s, DropCause::Down)));
        // What arrived before `at` is delivered; the rest dies on the wire.
        let delivered = self.in_flight.partition_point(|w| w.0 < at);
        drops.extend(self.in_flight.drain(delivered..).map(|(_, s)| (s, DropCause::Down)));
        self.wire.cut();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathpool_sim::engine::Seeds;
    use pathpool_sim::net::capacity::MahimahiLink;
    use pathpool_sim::net::delay::Delay;
    use pathpool_sim::net::queue::QueueLimit;
    use pathpool_sim::scenario::spec::LossSpec;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    fn us(v: u64) -> Time {
        Time::from_micros(v)
    }

    fn model(capacity: Capacity, delay: Time, limit: QueueLimit, loss: Option<LossSpec>) -> DirectionModel {
        DirectionModel { rate_bps: 0.0, delay: Delay::constant(delay), jitter: Time::ZERO, limit, loss, capacity }
    }

    /// 12 Mb/s: a 1500-byte packet takes 1 ms.
    fn twelve_mbps(limit: QueueLimit, events: &[(Time, bool)]) -> Direction {
        let m = model(Capacity::Constant { bps: 12e6 }, ms(10), limit, None);
        Direction::new(&m, events, Seeds { master: 1 }.stream("t"), Seeds { master: 1 }.stream("jitter"))
    }

    /// (arrival time, slot) of every delivered packet, and the drops.
    type Outcome = (Vec<(Time, PacketId)>, Vec<(PacketId, DropCause)>);

    /// Offers `(time, slot, bytes)` in order, then runs to `end`.
    fn run(d: &mut Direction, offers: &[(Time, PacketId, u32)], end: Time) -> Outcome {
        let (mut out, mut drops) = (Vec::new(), Vec::new());
        let mut step = |d: &mut Direction, now: Time, drops: &mut Vec<_>| {
            // Deliver everything due before `now`, in deadline order, as the forwarder does.
            while let Some(t) = d.next_deadline().filter(|&t| t <= now) {
                d.advance(t, drops);
                while let Some(a) = d.pop_arrived(t) {
                    out.push(a);
                }
            }
        };
        for &(t, slot, bytes) in offers {
            step(d, t, &mut drops);
            d.offer(t, slot, bytes, &mut drops);
        }
        step(d, end, &mut drops);
        (out, drops)
    }

    #[test]
    fn transmitter_serialises_then_wire_delays() {
        let mut d = twelve_mbps(QueueLimit::Packets(10), &[]);
        let (out, drops) = run(&mut d, &[(ms(0), 0, 1500), (ms(0), 1, 1500), (us(2500), 2, 750)], ms(100));
        // 1 ms each back to back; the third starts when it arrives (idle link), 0.5 ms long.
        assert_eq!(out, [(ms(11), 0), (ms(12), 1), (us(13_000), 2)]);
        assert!(drops.is_empty());
    }

    #[test]
    fn queue_limit_excludes_the_packet_in_transmission() {
        let mut d = twelve_mbps(QueueLimit::Packets(2), &[]);
        let offers: Vec<_> = (0..4).map(|i| (ms(0), i, 1500)).collect();
        let (out, drops) = run(&mut d, &offers, ms(100));
        assert_eq!(out.len(), 3);
        assert_eq!(drops, [(3, DropCause::Queue)]);
        let mut d = twelve_mbps(QueueLimit::Bytes(3000), &[]);
        let (out, drops) = run(&mut d, &[(ms(0), 0, 1500), (ms(0), 1, 1500), (ms(0), 2, 1500), (ms(0), 3, 1)], ms(100));
        assert_eq!(out.len(), 3);
        assert_eq!(drops, [(3, DropCause::Queue)]);
    }

    #[test]
    fn loss_draws_once_per_transmission_from_the_stream() {
        let loss = Some(LossSpec::Bernoulli { p: 0.3 });
        let m = model(Capacity::Constant { bps: 12e6 }, ms(1), QueueLimit::Packets(1000), loss.clone());
        let seeds = Seeds { master: 9 };
        let mut d = Direction::new(&m, &[], seeds.stream("s"), Seeds { master: 1 }.stream("jitter"));
        let offers: Vec<_> = (0..500).map(|i| (ms(0), i, 1500)).collect();
        let (out, drops) = run(&mut d, &offers, Time::from_secs(10));
        let (mut model, mut rng) = (LossModel::from_spec(loss.as_ref()), seeds.stream("s"));
        let expected: Vec<PacketId> = (0..500).filter(|_| model.lose(&mut rng)).collect();
        assert_eq!(drops, expected.iter().map(|&s| (s, DropCause::Loss)).collect::<Vec<_>>());
        assert_eq!(out.len() + drops.len(), 500);
        // A lost packet still used the transmitter: packet k arrives at (k + 1) ms + 1 ms.
        assert!(out.iter().all(|&(t, s)| t == ms(s as u64 + 2)));
    }

    #[test]
    fn jitter_is_the_simulators_draws_in_order() {
        // Jitter of mean 2 ms on the 12 Mb/s direction: each arrival is at least 11 + k ms, and exactly what
        // the simulator's wire gives with the same stream (`sim::net::delay::Wire`).
        let mut m = model(Capacity::Constant { bps: 12e6 }, ms(10), QueueLimit::Packets(100), None);
        m.jitter = ms(2);
        let mut d = Direction::new(&m, &[], Seeds { master: 1 }.stream("t"), Seeds { master: 3 }.stream("j"));
        let offers: Vec<_> = (0..50).map(|i| (ms(0), i, 1500)).collect();
        let (out, _) = run(&mut d, &offers, Time::from_secs(1));
        let mut wire = Wire::new(Delay::constant(ms(10)), Jitter::new(ms(2), Seeds { master: 3 }.stream("j")));
        let expected: Vec<(Time, PacketId)> = (0..50).map(|k| (wire.arrival(ms(k as u64), ms(k as u64 + 1)), k)).collect();
        assert_eq!(out, expected);
        assert!(out.iter().any(|&(t, k)| t > ms(k as u64 + 11)), "some packet is late");
    }

    #[test]
    fn link_down_empties_queue_and_wire_and_refuses_offers() {
        let mut d = twelve_mbps(QueueLimit::Packets(10), &[(ms(5), false), (ms(20), true)]);
        let offers = [(ms(0), 0, 1500), (ms(0), 1, 1500), (ms(0), 2, 1500), (ms(6), 3, 1500), (ms(21), 4, 1500)];
        let (out, drops) = run(&mut d, &offers, ms(100));
        // 0, 1, 2 left by 3 ms but arrive at 11, 12, 13 ms: lost on the wire.
        assert_eq!(drops, [(0, DropCause::Down), (1, DropCause::Down), (2, DropCause::Down), (3, DropCause::Down)]);
        // Back up at 20 ms: the link is idle.
        assert_eq!(out, [(ms(32), 4)]);
        // Arrived before the failure: delivered; still on the wire: lost.
        let mut d = twelve_mbps(QueueLimit::Packets(10), &[(ms(12), false)]);
        let offers: Vec<_> = (0..5).map(|i| (ms(0), i, 1500)).collect();
        let (out, drops) = run(&mut d, &offers, ms(100));
        assert_eq!(out, [(ms(11), 0)]);
        assert_eq!(drops, (1..5).map(|s| (s, DropCause::Down)).collect::<Vec<_>>());
        // Queued packets are lost too, the one in transmission with the wire's.
        let mut d = twelve_mbps(QueueLimit::Packets(10), &[(us(2500), false)]);
        let (out, drops) = run(&mut d, &offers, ms(100));
        assert!(out.is_empty());
        assert_eq!(drops, [3, 4, 0, 1, 2].map(|s| (s, DropCause::Down)));
    }

    #[test]
    fn a_delay_schedule_applies_at_transmission_start_in_order() {
        // 12 Mb/s, 50 ms until 10 ms, then 10 ms; a 1500-byte packet offered every millisecond.
        let mut m = model(Capacity::Constant { bps: 12e6 }, ms(0), QueueLimit::Packets(10), None);
        m.delay = Delay::schedule(vec![(ms(0), ms(50)), (ms(10), ms(10))]);
        let mut d = Direction::new(&m, &[], Seeds { master: 1 }.stream("t"), Seeds { master: 1 }.stream("jitter"));
        let offers: Vec<_> = (0..80).map(|i| (ms(i), i as PacketId, 1500)).collect();
        let (out, _) = run(&mut d, &offers, ms(200));
        let at = |slot: u64| out.iter().find(|a| a.1 == slot as PacketId).unwrap().0;
        // Started before the step: 1 ms + 50 ms; just after it: held behind
        // packet 9 (60 ms) until 1 ms + 10 ms catches up, from packet 49 on.
        assert_eq!([at(0), at(9), at(10), at(48), at(49), at(79)], [ms(51), ms(60), ms(60), ms(60), ms(60), ms(90)]);
        assert!(out.windows(2).all(|p| p[0].0 <= p[1].0 && p[0].1 < p[1].1));
    }

    #[test]
    fn time_never_runs_backwards() {
        let mut d = twelve_mbps(QueueLimit::Packets(10), &[]);
        let mut drops = Vec::new();
        d.advance(ms(5), &mut drops);
        // Stamped 3 ms, offered after the model ran to 5 ms: it arrives at 5 ms.
        d.offer(ms(3), 0, 1500, &mut drops);
        assert_eq!(d.next_deadline(), Some(ms(16)));
    }

    #[test]
    fn mahimahi_trace_paces_departures() {
        // 1500-byte opportunities at 1, 3, 3 and 5 ms, looping every 5 ms.
        let m = model(Capacity::Mahimahi(MahimahiLink::new(vec![1, 3, 3, 5], Time::ZERO)), ms(0), QueueLimit::Packets(10), None);
        let mut d = Direction::new(&m, &[], Seeds { master: 1 }.stream("t"), Seeds { master: 1 }.stream("jitter"));
        let offers: Vec<_> = (0..6).map(|i| (ms(0), i, 1500)).collect();
        let (out, _) = run(&mut d, &offers, ms(100));
        assert_eq!(out.iter().map(|a| a.0).collect::<Vec<_>>(), [ms(1), ms(3), ms(3), ms(5), ms(6), ms(8)]);
        // Two 700-byte packets share one opportunity (Mahimahi's leftover bytes):
        // the one stamped 5 ms in the fourth loop, at 20 ms exactly.
        let (out, _) = run(&mut d, &[(ms(20), 6, 700), (ms(20), 7, 700)], ms(100));
        assert_eq!(out, [(ms(20), 6), (ms(20), 7)]);
    }
}
