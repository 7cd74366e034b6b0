//! The link emulator: every scenario link replayed in real time with the
//! simulator's own link model (issue 6; docs/lab-emulator.md has its
//! accuracy and ceiling, docs/lab-emulator-evaluation.md why it is ours and
//! not rattan).
//!
//! Shape. Link i joins node A's interface and node B's interface through
//! two veth pairs that meet in the run's emulator namespace
//! (`{prefix}+emu`, a name no node can take: node names have no `+`):
//!
//! ```text
//!   A: eth0 ══veth══ e{i}a ─┐  emulator namespace  ┌─ e{i}b ══veth══ eth0 :B
//!                           └─ a→b forwarder ──────┘
//!                           └─ b→a forwarder ──────┘
//! ```
//!
//! Each direction is one thread (`forwarder.rs`) reading Ethernet frames
//! from its ingress end with an AF_PACKET socket and writing them, unchanged,
//! to its egress end: an L2 forwarder between two point-to-point ports, so
//! MAC addresses, ARP and IPv6 neighbour discovery work as on a cable and the
//! testbed's addresses and routes are those of directly connected nodes.
//!
//! Why AF_PACKET on veth and not TUN: TUN would replace the nodes' Ethernet
//! interfaces by L3 devices, unlike the hosts the lab stands for; the veth
//! pairs keep each node's interface an ordinary Ethernet device that the
//! MPTCP path manager, `ss` and byte counters see as on a real host, and the
//! forwarder's per-frame cost is the same two system calls either way.
//! Why one emulator namespace per run: the emulator's ends carry no
//! addresses (IPv6 is disabled there), so nothing in it speaks and one
//! namespace holds every link's ends without interference; the run's prefix
//! names it, so the testbed's cleanup (drop, signals, `pathpool-lab clean`)
//! removes it with the nodes. Why a thread per direction: the directions are
//! independent models, and each sleeps until its own next deadline.
//!
//! The model (`direction.rs`) is the simulator's, type for type: drop-tail
//! queue, transmitter timed by `Capacity::finish_time`, propagation delay,
//! `LossModel` drawing from the stream the simulator uses for the same
//! direction (`link:{link}:{from}>{to}:loss` from the scenario seed), and
//! the link's up/down events; DNS answers leaving a resolver's node wait its
//! delay before entering the link (`hold.rs`). Model time zero is the `zero` given to
//! `start` (before it, the links are as at time zero).
//! ARP and neighbour discovery bypass the model (`frame.rs`). Frames must be
//! MTU-sized and checksummed by their sender: the testbed turns off the
//! nodes' offloads (`netdev.rs`).

mod clock;
mod direction;
mod forwarder;
mod frame;
mod hold;
pub(crate) mod netdev;
mod packet_socket;
pub mod stats;

use std::io;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use pathpool_sim::engine::Seeds;
use pathpool_sim::net::jitter::jitter_stream;
use pathpool_sim::net::link::loss_stream;
use pathpool_sim::scenario::model::DirectionModel;
use pathpool_sim::Model;

use crate::netns::Netns;
use clock::Clock;
use direction::Direction;
use forwarder::{Forwarder, Stop};
use hold::Hold;
use packet_socket::PacketSocket;
use stats::{Counters, DirectionStats};

/// Name of the emulator's namespace after the run prefix.
pub const NAMESPACE: &str = "+emu";

/// What the emulator models of direction `d` of link `link`: the scenario's
/// direction with the simulator's queue limit (`Model::queue_limit`), so
/// with `[sim] host_egress = "qdisc"` a direction leaving a host has no
/// queue limit here. Its queue is the host's qdisc
/// (`testbed/host_qdisc.rs`), which already holds the direction's limit and
/// releases frames no faster than its rate; what still queues here is
/// frames that reach the model closer together than that rate: the
/// kernel's receive path or this emulator's thread ran late, and a frame
/// read after the model ran past its arrival enters at the time the model
/// reached (`Direction::offer`). A second limit would drop them, as no
/// real host's link would (seed 2's scenario 029 once: 567 packets here).
fn emulated(model: &Model, link: usize, d: usize) -> DirectionModel {
    let mut dir = model.links[link].dirs[d].clone();
    dir.limit = model.queue_limit(link, d);
    dir
}

/// The emulator's ends of link `link`: towards its `a` node, towards its `b` node.
pub fn ends(link: usize) -> [String; 2] {
    [format!("e{link}a"), format!("e{link}b")]
}

/// The forwarders of every link direction; stopped when dropped.
pub struct Emulator {
    clock: Clock,
    stop: Arc<Stop>,
    /// In LinkId order: direction d of link i is 2i + d.
    directions: Vec<Running>,
}

struct Running {
    name: String,
    stats: Arc<Counters>,
    thread: Option<JoinHandle<()>>,
}

impl Emulator {
    /// Starts forwarding every link of `model` between its two `ends` in
    /// namespace `ns`, where they must exist and be up, with model time zero
    /// at `zero`.
    pub fn start(model: &Model, ns: &Netns, zero: Instant) -> io::Result<Emulator> {
        let sockets = ns.run(|| -> io::Result<Vec<(PacketSocket, PacketSocket, u32)>> {
            let mut sockets = Vec::with_capacity(model.links.len() * 2);
            for i in 0..model.links.len() {
                let ends = ends(i);
                for d in 0..2 {
                    let (ingress, mtu) = netdev::interface(&ends[d])?;
                    let (egress, _) = netdev::interface(&ends[1 - d])?;
                    sockets.push((PacketSocket::receiver(ingress)?, PacketSocket::sender(egress)?, mtu));
                }
            }
            Ok(sockets)
        })??;
        let seeds = Seeds { master: model.seed };
        let mut emulator = Emulator { clock: Clock::starting_at(zero), stop: Arc::new(Stop::new()?), directions: Vec::new() };
        for (k, (rx, tx, mtu)) in sockets.into_iter().enumerate() {
            let (i, d) = (k / 2, k % 2);
            let link = &model.links[i];
            let name = model.direction_name(i, d);
            let stats = Arc::new(Counters::default());
            let forwarder = Forwarder {
                rx,
                tx,
                frame_max: mtu as usize + frame::ETH_HEADER,
                model: Direction::new(&emulated(model, i, d), &link.events, seeds.stream(&loss_stream(&name)), seeds.stream(&jitter_stream(&name))),
                hold: resolver_delay(model, if d == 0 { link.a } else { link.b }).map(Hold::new),
                clock: emulator.clock,
                stats: stats.clone(),
                stop: emulator.stop.clone(),
            };
            let thread = std::thread::Builder::new().name(format!("pp-emu-{}", ends(i)[d])).spawn({
                let name = name.clone();
                move || {
                    if let Err(e) = forwarder.run() {
                        eprintln!("pathpool-lab: emulator of {name} stopped: {e}");
                    }
                }
            })?;
            emulator.directions.push(Running { name, stats, thread: Some(thread) });
        }
        Ok(emulator)
    }

    /// The instant of model time zero (link events, capacity schedules and
    /// traces count from it).
    pub fn epoch(&self) -> Instant {
        self.clock.epoch()
    }

    /// Counters of every direction so far, in LinkId order (2i: link i a→b, 2i + 1: b→a).
    pub fn stats(&self) -> Vec<DirectionStats> {
        self.directions.iter().map(|r| r.stats.snapshot(&r.name)).collect()
    }
}

/// The delay of the resolver on `node`, if one with a delay runs there
/// (the lab runs at most one per node, `support.rs`).
fn resolver_delay(model: &Model, node: pathpool_sim::net::NodeId) -> Option<pathpool_sim::Time> {
    model.resolvers.iter().find(|r| r.node == node).map(|r| r.delay).filter(|&d| d > pathpool_sim::Time::ZERO)
}

impl Drop for Emulator {
    /// Stops every forwarder and waits for it (one that failed printed its
    /// error when it did).
    fn drop(&mut self) {
        self.stop.signal();
        for r in &mut self.directions {
            if let Some(thread) = r.thread.take() {
                if thread.join().is_err() {
                    eprintln!("pathpool-lab: emulator of {} panicked", r.name);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathpool_sim::net::loss::LossModel;
    use pathpool_sim::scenario::{load, Format, Source};
    use pathpool_sim::world::World;

    /// The lab names each direction, and seeds its loss, as the simulator does.
    #[test]
    fn directions_and_loss_streams_match_the_simulator() {
        let src = Source { name: "<test>".into(), dir: ".".into(), data_dir: None };
        let toml = r#"
            [sim]
            duration = "1s"
            seed = 42
            [[nodes]]
            name = "h1"
            [[nodes]]
            name = "r"
            kind = "router"
            [[nodes]]
            name = "h2"
            [[links]]
            name = "access"
            a = "h1"
            b = "r"
            rate = "10Mbps"
            delay = "1ms"
            loss = { model = "bernoulli", p = 0.3 }
            [[links]]
            a = "h2"
            b = "r"
            rate = "10Mbps"
            delay = "1ms"
            loss = { model = "gilbert_elliott", p_good_to_bad = 0.2, p_bad_to_good = 0.3 }
        "#;
        let model = load(toml, Format::Toml, &src, None).unwrap();
        let mut world = World::new(&model);
        let seeds = Seeds { master: model.seed };
        for (id, sim) in world.links.iter_mut().enumerate() {
            let (i, d) = (id / 2, id % 2);
            let name = model.direction_name(i, d);
            assert_eq!(name, sim.name);
            let mut rng = seeds.stream(&loss_stream(&name));
            let mut loss = LossModel::from_spec(model.links[i].dirs[d].loss.as_ref());
            let ours: Vec<bool> = (0..200).map(|_| loss.lose(&mut rng)).collect();
            let theirs: Vec<bool> = (0..200).map(|_| sim.loss.lose(&mut sim.rng)).collect();
            assert_eq!(ours, theirs, "{name}");
        }
    }
}
