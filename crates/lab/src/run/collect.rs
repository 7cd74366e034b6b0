//! The lab run's result tables: the simulator's tables and columns
//! (`docs/results.md`), filled from what the kernel and the emulator report.
//! Where the kernel has no counterpart the value is null, never a
//! stand-in: `timeouts` (tcp_info counts none per connection), the
//! out-of-order delays, `aggregation_pct` (no baselines in the lab), the
//! flow imbalance, and the per-subflow reinjected and delivered bytes.
//! What differs in meaning (srtt means over samples, link bytes counted at
//! delivery) is listed in docs/results.md, "The kernel lab's tables".

use serde_json::json;

use pathpool_sim::control::CloseReason;
use pathpool_sim::metrics::sampler::Sampler;
use pathpool_sim::metrics::stats::{jain_index, mean};
use pathpool_sim::metrics::{Column, Table};
use pathpool_sim::run::SCHEMA_VERSION;
use pathpool_sim::{Model, Time};

use super::connection::Connection;
use super::control::Record;
use super::{EndState, LabOutput, SenderInfo};
use crate::emulator::stats::DirectionStats;
use crate::traffic::info::TcpInfo;
use crate::traffic::FlowState;

/// A flow's sender statistics: its own, or the sum over its subflows.
struct Totals {
    segments: u64,
    retransmits: u64,
    rtt_mean: Option<f64>,
    rtt_min: Option<f64>,
}

fn totals<'a>(senders: impl Iterator<Item = (&'a Option<TcpInfo>, f64, u64)>) -> Totals {
    let (mut segments, mut retransmits, mut sum, mut n) = (0, 0, 0.0, 0);
    let mut rtt_min: Option<f64> = None;
    for (last, srtt_sum, samples) in senders {
        if let Some(t) = last {
            segments += t.data_segs_out as u64;
            retransmits += t.total_retrans as u64;
            if t.min_rtt > 0 && t.min_rtt != u32::MAX {
                let m = t.min_rtt as f64 / 1e6;
                rtt_min = Some(rtt_min.map_or(m, |x| x.min(m)));
            }
        }
        sum += srtt_sum;
        n += samples;
    }
    Totals { segments, retransmits, rtt_mean: (n > 0).then(|| sum / n as f64), rtt_min }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn output(
    model: &Model,
    flows: &[FlowState],
    conns: &[Connection],
    end: &EndState,
    links: &[DirectionStats],
    sampler: Sampler,
    record: Record,
    wall_s: f64,
) -> LabOutput {
    let duration = model.duration;
    let node = |id: u32| model.nodes[id as usize].name.clone();
    let n = model.flows.len();

    let mut finish = Vec::with_capacity(n);
    let mut delivered = Vec::with_capacity(n);
    let mut goodput = Vec::with_capacity(n);
    let mut stats = Vec::with_capacity(n);
    let mut starts = Vec::with_capacity(n);
    for (i, (m, f)) in model.flows.iter().zip(flows).enumerate() {
        let done = f.finished().filter(|&t| t <= duration);
        let bytes = end.delivered[i].min(m.size.unwrap_or(u64::MAX));
        // As the simulator's `results::goodput`: over [start, finish or end].
        let until = done.unwrap_or(duration);
        let start = f.started().unwrap_or(duration);
        goodput.push(if until > start { bytes as f64 * 8.0 / (until - start).secs() } else { 0.0 });
        starts.push(f.started());
        finish.push(done);
        delivered.push(bytes);
        stats.push(if m.transport == "mptcp" {
            totals(conns[i].subflows.iter().map(|r| (&r.last, r.srtt_sum_s, r.srtt_samples)))
        } else {
            let SenderInfo { last, srtt_sum_s, srtt_samples } = &end.senders[i];
            totals(std::iter::once((last, *srtt_sum_s, *srtt_samples)))
        });
    }
    let nulls = |v: usize| vec![None::<f64>; v];
    // The scenario's algorithm, or what a controller set before the SYN (`traffic/opening.rs`).
    let cc = |(m, f): (&pathpool_sim::scenario::model::FlowModel, &FlowState)| {
        let cc = f.opening.cc().unwrap_or_else(|| m.tcp.cc.clone());
        if m.transport == "mptcp" { format!("uncoupled/{cc}") } else { cc }
    };
    let flows_table = Table::new("flows")
        .col("flow_id", Column::U32((0..n as u32).collect()))
        .col("name", Column::Str(model.flows.iter().map(|f| f.name.clone()).collect()))
        .col("src", Column::Str(model.flows.iter().map(|f| node(f.src)).collect()))
        .col("dst", Column::Str(model.flows.iter().map(|f| node(f.dst)).collect()))
        .col("transport", Column::Str(model.flows.iter().map(|f| f.transport.clone()).collect()))
        .col("cc", Column::Str(model.flows.iter().zip(flows).map(cc).collect()))
        .col("size_bytes", Column::OptU64(model.flows.iter().map(|f| f.size).collect()))
        .col("start_s", Column::OptF64(starts.iter().map(|t| t.map(Time::secs)).collect()))
        .col("finish_s", Column::OptF64(finish.iter().map(|t| t.map(Time::secs)).collect()))
        .col("fct_s", Column::OptF64(starts.iter().zip(&finish).map(|(&s, &t)| Some(t?.saturating_sub(s?).secs())).collect()))
        .col("completed", Column::Bool(finish.iter().map(Option::is_some).collect()))
        .col("bytes_delivered", Column::U64(delivered.clone()))
        .col("goodput_bps", Column::F64(goodput.clone()))
        .col("segments_sent", Column::U64(stats.iter().map(|s| s.segments).collect()))
        .col("retransmits", Column::U64(stats.iter().map(|s| s.retransmits).collect()))
        .col("timeouts", Column::OptU64(vec![None; n]))
        .col("rtt_mean_s", Column::OptF64(stats.iter().map(|s| s.rtt_mean).collect()))
        .col("rtt_min_s", Column::OptF64(stats.iter().map(|s| s.rtt_min).collect()))
        .col("ooo_delay_mean_s", Column::OptF64(nulls(n)))
        .col("ooo_delay_p95_s", Column::OptF64(nulls(n)))
        .col("aggregation_pct", Column::OptF64(nulls(n)));

    let dir = |id: usize| &model.links[id / 2].dirs[id % 2];
    let ends = |id: usize| {
        let l = &model.links[id / 2];
        if id.is_multiple_of(2) { (l.a, l.b) } else { (l.b, l.a) }
    };
    let capacity_bits = |id: usize| dir(id).capacity.bits_until(duration);
    let links_table = Table::new("links")
        .col("link_id", Column::U32((0..links.len() as u32).collect()))
        .col("name", Column::Str(links.iter().map(|d| d.name.clone()).collect()))
        .col("link", Column::Str((0..links.len()).map(|id| model.links[id / 2].name.clone()).collect()))
        .col("src", Column::Str((0..links.len()).map(|id| node(ends(id).0)).collect()))
        .col("dst", Column::Str((0..links.len()).map(|id| node(ends(id).1)).collect()))
        .col("rate_bps", Column::F64((0..links.len()).map(|id| dir(id).rate_bps).collect()))
        .col("delay_s", Column::F64((0..links.len()).map(|id| dir(id).delay.initial().secs()).collect()))
        .col("bytes_sent", Column::U64(links.iter().map(|d| d.bytes).collect()))
        .col("packets_sent", Column::U64(links.iter().map(|d| d.packets).collect()))
        .col(
            "utilisation",
            Column::F64(
                links
                    .iter()
                    .enumerate()
                    .map(|(id, d)| {
                        let cap = capacity_bits(id);
                        if cap > 0.0 { d.bytes as f64 * 8.0 / cap } else { 0.0 }
                    })
                    .collect(),
            ),
        )
        .col("drops_queue", Column::U64(links.iter().map(|d| d.drops_queue).collect()))
        .col("drops_loss", Column::U64(links.iter().map(|d| d.drops_loss).collect()))
        .col("drops_down", Column::U64(links.iter().map(|d| d.drops_down).collect()))
        .col("max_queue_bytes", Column::U64(links.iter().map(|d| d.max_queue_bytes).collect()))
        .col("max_queue_packets", Column::U64(links.iter().map(|d| d.max_queue_packets).collect()));

    let completed: Vec<f64> = starts.iter().zip(&finish).filter_map(|(&s, &t)| Some(t?.saturating_sub(s?).secs())).collect();
    let total_bytes: u64 = delivered.iter().sum();
    let sum = |f: fn(&DirectionStats) -> u64| links.iter().map(f).sum::<u64>();
    let late_count = sum(|d| d.lateness.count);
    let late_mean_s = if late_count > 0 { sum(|d| d.lateness.sum_ns) as f64 / late_count as f64 / 1e9 } else { 0.0 };
    // The last lateness bucket holds deliveries more than 1 ms late.
    let late_over_1ms = sum(|d| *d.lateness.buckets.last().expect("buckets"));
    let late_over_1ms_fraction = if late_count > 0 { late_over_1ms as f64 / late_count as f64 } else { 0.0 };
    let summary = json!({
        "schema_version": SCHEMA_VERSION,
        "plane": "lab",
        "scenario": model.name,
        "seed": model.seed,
        "duration_s": duration.secs(),
        "flows": n,
        "flows_completed": completed.len(),
        "afct_s": mean(&completed),
        "jain_index": jain_index(&goodput),
        "total_goodput_bps": total_bytes as f64 * 8.0 / duration.secs(),
        "bytes_delivered": total_bytes,
        "events": null,
        "packets": {
            "sent": null,
            "delivered": sum(|d| d.packets),
            "dropped": sum(|d| d.drops_queue + d.drops_loss + d.drops_down + d.drops_oversize + d.drops_egress),
            "in_flight": null,
            "conserved": null,
        },
        "emulator": {
            "drops_oversize": sum(|d| d.drops_oversize),
            "drops_egress": sum(|d| d.drops_egress),
            "late_max_s": links.iter().map(|d| d.lateness.max_ns).max().unwrap_or(0) as f64 / 1e9,
            "late_mean_s": late_mean_s,
            "late_over_1ms_fraction": late_over_1ms_fraction,
        },
        "controllers": reactions(&record.reactions_s),
    });

    let mut tables = vec![flows_table, links_table];
    let [mut flow_ts, link_ts, subflow_ts] = sampler.into_tables();
    null_imbalance(&mut flow_ts, model);
    tables.extend([flow_ts, link_ts, subflow_ts, subflows(model, conns), interfaces(model, links)]);
    tables.push(controller_log(model, record));
    LabOutput { tables, summary, wall_s }
}

/// The lab's reaction times (an event seen → the netlink command it led to
/// returned) over the run's subflow actions.
fn reactions(r: &[f64]) -> serde_json::Value {
    let max = r.iter().copied().fold(0.0, f64::max);
    json!({ "subflow_actions": r.len(), "reaction_mean_s": mean(r), "reaction_max_s": max })
}

/// The simulator's `controller_log` table; rows in time order (each host's
/// thread appends its own).
fn controller_log(model: &Model, mut record: Record) -> Table {
    record.log.rows.sort_by_key(|r| r.time);
    record.log.into_table(|c| model.flows[c as usize].name.clone())
}

/// The kernel does not expose connection-level data in flight, so an MPTCP
/// flow's imbalance is unknown; single-path flows keep their defined 0.
fn null_imbalance(flow_ts: &mut Table, model: &Model) {
    let ids = match &flow_ts.columns.iter().find(|(n, _)| *n == "flow_id").expect("flow_ts has flow_id").1 {
        Column::U32(v) => v.clone(),
        _ => unreachable!("flow_id is U32"),
    };
    for (name, col) in &mut flow_ts.columns {
        if *name == "imbalance_bytes" {
            if let Column::I64(v) = col {
                let opt = v.iter().zip(&ids).map(|(&x, &id)| (model.flows[id as usize].transport != "mptcp").then_some(x)).collect();
                *col = Column::OptI64(opt);
            }
        }
    }
}

fn subflows(model: &Model, conns: &[Connection]) -> Table {
    let mut t = SubflowRows::default();
    for (i, (m, c)) in model.flows.iter().zip(conns).enumerate() {
        let iface = |node: u32, k: u16| format!("{}:{}", model.nodes[node as usize].name, model.nodes[node as usize].interfaces[k as usize]);
        for (j, r) in c.subflows.iter().enumerate() {
            let s = totals(std::iter::once((&r.last, r.srtt_sum_s, r.srtt_samples)));
            t.flow.push(i as u32);
            t.id.push(j as u32);
            t.local.push(iface(m.src, r.src_iface));
            t.remote.push(iface(m.dst, r.dst_iface));
            t.backup.push(r.backup);
            t.state.push(match (r.closed, r.closed_by) {
                (None, _) => "open",
                (Some(_), Some(CloseReason::Closed)) => "closed",
                (Some(_), _) => "failed",
            });
            t.opened.push(r.opened.secs());
            t.established.push(r.established.map(Time::secs));
            t.closed.push(r.closed.map(Time::secs));
            t.sent.push(r.last.map_or(0, |x| x.bytes_sent));
            t.acked.push(r.last.as_ref().map_or(0, TcpInfo::payload_acked));
            t.segments.push(s.segments);
            t.retransmits.push(s.retransmits);
            t.rtt_mean.push(s.rtt_mean);
            t.rtt_min.push(s.rtt_min);
        }
    }
    let rows = t.flow.len();
    Table::new("subflows")
        .col("flow_id", Column::U32(t.flow))
        .col("subflow_id", Column::U32(t.id))
        .col("local_interface", Column::Str(t.local))
        .col("remote_interface", Column::Str(t.remote))
        .col("backup", Column::Bool(t.backup))
        .col("state", Column::Str(t.state.into_iter().map(str::to_string).collect()))
        .col("opened_s", Column::F64(t.opened))
        .col("established_s", Column::OptF64(t.established))
        .col("closed_s", Column::OptF64(t.closed))
        .col("bytes_sent", Column::U64(t.sent))
        .col("bytes_acked", Column::U64(t.acked))
        .col("bytes_reinjected", Column::OptU64(vec![None; rows]))
        .col("bytes_delivered", Column::OptU64(vec![None; rows]))
        .col("segments_sent", Column::U64(t.segments))
        .col("retransmits", Column::U64(t.retransmits))
        .col("timeouts", Column::OptU64(vec![None; rows]))
        .col("rtt_mean_s", Column::OptF64(t.rtt_mean))
        .col("rtt_min_s", Column::OptF64(t.rtt_min))
}

#[derive(Default)]
struct SubflowRows {
    flow: Vec<u32>,
    id: Vec<u32>,
    local: Vec<String>,
    remote: Vec<String>,
    backup: Vec<bool>,
    state: Vec<&'static str>,
    opened: Vec<f64>,
    established: Vec<Option<f64>>,
    closed: Vec<Option<f64>>,
    sent: Vec<u64>,
    acked: Vec<u64>,
    segments: Vec<u64>,
    retransmits: Vec<u64>,
    rtt_mean: Vec<Option<f64>>,
    rtt_min: Vec<Option<f64>>,
}

/// One row per interface of every node, from the emulator's counters of the
/// directions leaving and entering it.
fn interfaces(model: &Model, links: &[DirectionStats]) -> Table {
    let (mut node, mut name, mut link) = (vec![], vec![], vec![]);
    let (mut bytes_sent, mut packets_sent, mut bytes_received, mut packets_received) = (vec![], vec![], vec![], vec![]);
    for (n, m) in model.nodes.iter().enumerate() {
        for iface in &m.interfaces {
            let (i, l) = model
                .links
                .iter()
                .enumerate()
                .find(|(_, l)| (l.a as usize == n && &l.a_interface == iface) || (l.b as usize == n && &l.b_interface == iface))
                .expect("every interface belongs to a link");
            let (out, inbound) = if l.a as usize == n && &l.a_interface == iface { (2 * i, 2 * i + 1) } else { (2 * i + 1, 2 * i) };
            node.push(m.name.clone());
            name.push(iface.clone());
            link.push(l.name.clone());
            bytes_sent.push(links[out].bytes);
            packets_sent.push(links[out].packets);
            bytes_received.push(links[inbound].bytes);
            packets_received.push(links[inbound].packets);
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
