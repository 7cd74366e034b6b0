//! Result tables beside `flows` and `links`: MPTCP subflows, per-interface
//! accounting, DNS lookups, and the single-path baselines behind the aggregation
//! percentage (S-MPTCP paper, eq. 1). The schema is in `docs/results.md`.

use crate::endpoint::{Receiver, Sender};
use crate::metrics::{Column, Table};
use crate::mptcp::{End, MptcpConfig};
use crate::scenario::model::FlowModel;
use crate::scenario::Model;
use crate::time::Time;
use crate::world::{Flow, World};

/// One row per subflow of every MPTCP flow.
pub fn subflows(model: &Model, world: &World) -> Table {
    let (mut flow, mut id, mut local, mut remote, mut backup, mut state) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut opened, mut established, mut closed) = (vec![], vec![], vec![]);
    let (mut sent, mut acked, mut reinjected, mut delivered) = (vec![], vec![], vec![], vec![]);
    let (mut segments, mut retransmits, mut timeouts, mut rtt_mean, mut rtt_min) = (vec![], vec![], vec![], vec![], vec![]);
    for (i, (m, f)) in model.flows.iter().zip(&world.flows).enumerate() {
        let (Sender::Mptcp(tx), Receiver::Mptcp(rx)) = (&f.sender, &f.receiver) else { continue };
        let iface = |node: u32, k: u16| format!("{}:{}", model.nodes[node as usize].name, model.nodes[node as usize].interfaces[k as usize]);
        for (j, s) in tx.subflows().iter().enumerate() {
            flow.push(i as u32);
            id.push(j as u32);
            local.push(iface(m.src, s.local));
            remote.push(iface(m.dst, s.remote));
            backup.push(s.backup);
            state.push(s.state.name().to_string());
            opened.push(s.opened_at.secs());
            established.push(s.established_at.map(Time::secs));
            closed.push(s.closed_at.map(Time::secs));
            sent.push(s.bytes_sent);
            acked.push(s.sender.acked());
            reinjected.push(s.bytes_reinjected);
            delivered.push(rx.subflow_delivered(j));
            segments.push(s.sender.stats.segments_sent);
            retransmits.push(s.sender.stats.retransmits);
            timeouts.push(s.sender.stats.timeouts);
            rtt_mean.push(s.sender.rtt.mean().map(Time::secs));
            rtt_min.push(s.sender.rtt.min_rtt.map(Time::secs));
        }
    }
    Table::new("subflows")
        .col("flow_id", Column::U32(flow))
        .col("subflow_id", Column::U32(id))
        .col("local_interface", Column::Str(local))
        .col("remote_interface", Column::Str(remote))
        .col("backup", Column::Bool(backup))
        .col("state", Column::Str(state))
        .col("opened_s", Column::F64(opened))
        .col("established_s", Column::OptF64(established))
        .col("closed_s", Column::OptF64(closed))
        .col("bytes_sent", Column::U64(sent))
        .col("bytes_acked", Column::U64(acked))
        .col("bytes_reinjected", Column::U64(reinjected))
        .col("bytes_delivered", Column::U64(delivered))
        .col("segments_sent", Column::U64(segments))
        .col("retransmits", Column::U64(retransmits))
        .col("timeouts", Column::U64(timeouts))
        .col("rtt_mean_s", Column::OptF64(rtt_mean))
        .col("rtt_min_s", Column::OptF64(rtt_min))
}

/// One row per interface of every node: what it sent and received.
pub fn interfaces(model: &Model, world: &World) -> Table {
    let (mut node, mut name, mut link) = (vec![], vec![], vec![]);
    let (mut bytes_sent, mut packets_sent, mut bytes_received, mut packets_received) = (vec![], vec![], vec![], vec![]);
    for (n, m) in model.nodes.iter().enumerate() {
        for (k, i) in world.ifaces.of(n as u32).iter().enumerate() {
            let (out, inbound) = (&world.links[i.out as usize].stats, &world.links[i.inbound as usize].stats);
            node.push(m.name.clone());
            name.push(m.interfaces[k].clone());
            link.push(model.links[i.link as usize].name.clone());
            bytes_sent.push(out.bytes_sent);
            packets_sent.push(out.packets_sent);
            bytes_received.push(inbound.bytes_delivered);
            packets_received.push(inbound.packets_delivered);
        }
    }
    Table::new("interfaces")
        .col("node", Column::Str(node))
        .col("interface", Column::Str(name))
        .col("link", Column::Str(link))
        .col("bytes_sent", Column::U64(bytes_sent))
        .col("packets_sent", Column::U64(packets_sent))
        .col("bytes_received", Column::U64(bytes_received))
        .col("packets_received", Column::U64(packets_received))
}

/// One row per DNS lookup, in the order the answers were handed back
/// (docs/dns.md); the kernel lab's too. A scenario with IPv6 links has an
/// `answer_v6` column, the AAAA records' mirrors, after `answer`.
pub fn dns(model: &Model, log: &[crate::dns::Answer]) -> Table {
    let node = |n: u32| model.nodes[n as usize].name.clone();
    let col = |f: &dyn Fn(&crate::dns::Answer) -> String| Column::Str(log.iter().map(f).collect());
    let names = |m: &[u32]| m.iter().map(|&m| node(m)).collect::<Vec<_>>().join(",");
    let table = Table::new("dns")
        .col("time_s", Column::F64(log.iter().map(|a| (a.asked + a.elapsed).secs()).collect()))
        .col("host", col(&|a| node(a.host)))
        .col("resolver", col(&|a| model.resolvers[a.resolver as usize].name.clone()))
        .col("domain", col(&|a| a.domain.clone()))
        .col("interface", col(&|a| model.nodes[a.host as usize].interfaces[a.interface as usize].clone()))
        .col("answer", col(&|a| names(&a.mirrors)));
    let table = if model.has_v6() { table.col("answer_v6", col(&|a| names(&a.mirrors_v6))) } else { table };
    table
        .col("ttl_s", Column::F64(log.iter().map(|a| a.ttl.secs()).collect()))
        .col("from_cache", Column::Bool(log.iter().map(|a| a.from_cache).collect()))
        .col("query_time_s", Column::F64(log.iter().map(|a| a.elapsed.secs()).collect()))
        .col("retries", Column::U32(log.iter().map(|a| a.retries).collect()))
        .col("outcome", col(&|a| a.outcome().to_string()))
}

/// The connection-level out-of-order delay of each flow, mean and p95
/// seconds (None for single-path flows and before any data).
pub fn ooo_delays(world: &World) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
    world
        .flows
        .iter()
        .map(|f| match &f.receiver {
            Receiver::Mptcp(rx) => {
                let d = &rx.reassembly.delay;
                (d.mean().map(Time::secs), d.quantile(0.95).map(Time::secs))
            }
            Receiver::Tcp(_) => (None, None),
        })
        .unzip()
}

/// A flow's goodput as the flows table defines it.
pub fn goodput(m: &FlowModel, f: &Flow, duration: Time) -> f64 {
    if !f.started {
        return 0.0;
    }
    let bytes = f.receiver.delivered().min(m.size.unwrap_or(u64::MAX));
    let active = f.receiver.finished_at().unwrap_or(duration).saturating_sub(f.start).secs();
    if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 }
}

/// The interface pairs an MPTCP flow's baselines run over: one per
/// interface of its multi-homed end (the end with more interfaces; the
/// destination on a tie), each paired with the other end's interface of the
/// initial subflow, or else the first it can reach.
fn baseline_pairs(c: &MptcpConfig) -> Vec<(u16, u16)> {
    let (locals, remotes) = (c.reachable.len() as u16, c.reachable.first().map_or(0, Vec::len) as u16);
    let end = if locals > remotes { End::Local } else { End::Remote };
    let reach = |l: u16, r: u16| c.reachable[l as usize][r as usize];
    match end {
        End::Local => (0..locals)
            .filter_map(|l| std::iter::once(c.initial.1).chain(0..remotes).find(|&r| reach(l, r)).map(|r| (l, r)))
            .collect(),
        End::Remote => (0..remotes)
            .filter_map(|r| std::iter::once(c.initial.0).chain(0..locals).find(|&l| reach(l, r)).map(|l| (l, r)))
            .collect(),
    }
}

/// Runs the single-path baselines of every MPTCP flow with `baselines =
/// true`: the same scenario with that flow replaced by single-path TCP over
/// one interface pair (an uncoupled MPTCP connection that never opens a
/// second subflow, which behaves as TCP). Returns the `baselines` table and
/// each flow's aggregation percentage, 100 · goodput / Σ baseline goodputs.
pub fn baselines(model: &Model, goodputs: &[f64]) -> (Table, Vec<Option<f64>>) {
    let (mut flow, mut local, mut remote, mut rate) = (vec![], vec![], vec![], vec![]);
    let mut aggregation = vec![None; model.flows.len()];
    let iface = |node: u32, k: u16| format!("{}:{}", model.nodes[node as usize].name, model.nodes[node as usize].interfaces[k as usize]);
    for (i, m) in model.flows.iter().enumerate() {
        let Some(c) = m.mptcp.as_ref().filter(|c| c.baselines) else { continue };
        let mut total = 0.0;
        for (l, r) in baseline_pairs(c) {
            let single = MptcpConfig {
                scheduler: "minrtt".into(),
                scheduler_params: Default::default(),
                energy_profile: None,
                coupling: "uncoupled".into(),
                path_manager: "single_path".into(),
                path_manager_params: Default::default(),
                options_stripped: false,
                baselines: false,
                initial: (l, r),
                reachable: c.reachable.clone(),
                actions: Vec::new(),
            };
            let mut flows = model.flows.clone();
            flows[i].mptcp = Some(single);
            let mut world = World::with_flows(model, &flows);
            world.run(&mut |_| {});
            let g = goodput(m, &world.flows[i], model.duration);
            total += g;
            flow.push(i as u32);
            local.push(iface(m.src, l));
            remote.push(iface(m.dst, r));
            rate.push(g);
        }
        aggregation[i] = (total > 0.0).then(|| 100.0 * goodputs[i] / total);
    }
    let table = Table::new("baselines")
        .col("flow_id", Column::U32(flow))
        .col("local_interface", Column::Str(local))
        .col("remote_interface", Column::Str(remote))
        .col("goodput_bps", Column::F64(rate));
    (table, aggregation)
}
