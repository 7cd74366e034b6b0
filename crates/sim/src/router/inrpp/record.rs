//! What INRPP routers report (`docs/results.md`): every interface state
//! change, and at each sampling instant every interface's cache occupancy
//! (in all and per flow), state and detour rates; at the end, per interface
//! and per detour counters. Rows from all routers are gathered into the
//! `inrpp_*` tables, which every run has (empty without INRPP).

use super::detour::Detour;
use super::state::State;
use super::{Inrpp, Interface};
use crate::metrics::{Column, Table};
use crate::net::LinkId;
use crate::time::Time;

pub struct Transition {
    pub time: Time,
    pub link: LinkId,
    pub from: State,
    pub to: State,
    pub cache_bytes: u64,
}

pub struct Sample {
    pub time: Time,
    pub link: LinkId,
    pub state: State,
    pub cache_bytes: u64,
    pub tcp_bytes: u64,
    pub nonces: u32,
}

pub struct DetourSample {
    pub time: Time,
    pub link: LinkId,
    pub via_link: LinkId,
    pub rate_bps: f64,
    pub usable: bool,
}

#[derive(Default)]
pub struct Record {
    pub transitions: Vec<Transition>,
    pub samples: Vec<Sample>,
    /// (time, interface, flow, bytes cached), flows with bytes only.
    pub flow_samples: Vec<(Time, LinkId, u32, u64)>,
    pub detour_samples: Vec<DetourSample>,
}

impl Record {
    pub fn transition(&mut self, time: Time, link: LinkId, from: State, to: State, cache_bytes: u64) {
        self.transitions.push(Transition { time, link, from, to, cache_bytes });
    }

    pub fn sample(&mut self, time: Time, ifaces: &[Interface], detours: &[Detour]) {
        for f in ifaces {
            self.samples.push(Sample {
                time,
                link: f.link,
                state: f.state,
                cache_bytes: f.cache.bytes(),
                tcp_bytes: f.tcp.bytes(),
                nonces: f.nonces_stored() as u32,
            });
            self.flow_samples.extend(f.cache.flows().map(|(flow, bytes)| (time, f.link, flow, bytes)));
        }
        for d in detours {
            self.detour_samples.push(DetourSample {
                time,
                link: ifaces[d.primary].link,
                via_link: d.via_link,
                rate_bps: d.rate_bps,
                usable: d.usable(ifaces[d.via_iface].state),
            });
        }
    }
}

/// The `inrpp_*` tables of a run whose INRPP routers are `routers`, which
/// ended at `end`; `node` names a node.
pub fn tables<'a>(routers: impl Iterator<Item = &'a Inrpp>, end: Time, node: impl Fn(u32) -> String) -> Vec<Table> {
    let mut routers: Vec<&Inrpp> = routers.collect();
    routers.sort_by_key(|r| r.node);
    let ids = |v: Vec<LinkId>| Column::U32(v);
    let states = |v: Vec<State>| Column::Str(v.into_iter().map(|s| s.name().to_string()).collect());

    let ifaces: Vec<&Interface> = routers.iter().flat_map(|r| &r.ifaces).collect();
    let time_in = |f: &Interface, s: State| {
        let mut t = f.stats.time_in[s as usize];
        if f.state == s {
            t += end.saturating_sub(f.stats.since);
        }
        t.secs()
    };
    let count = |get: fn(&Interface) -> u64| Column::U64(ifaces.iter().map(|f| get(f)).collect());
    let mut interfaces = Table::new("inrpp_interfaces")
        .col("link_id", ids(ifaces.iter().map(|f| f.link).collect()))
        .col("node", Column::Str(routers.iter().flat_map(|r| r.ifaces.iter().map(|_| node(r.node))).collect()))
        .col("peer", Column::Str(ifaces.iter().map(|f| node(f.peer)).collect()))
        .col("cache_size_bytes", count(|f| f.th.total))
        .col("s_high_bytes", count(|f| f.th.high))
        .col("s_low_bytes", count(|f| f.th.low))
        .col("max_cache_bytes", count(|f| f.cache.max_bytes))
        .col("packets_cached", count(|f| f.stats.cached))
        .col("drops_cache", count(|f| f.stats.drops))
        .col("slow_downs_sent", count(|f| f.stats.slow_downs_sent))
        .col("cancels_sent", count(|f| f.stats.cancels_sent))
        .col("slow_downs_received", count(|f| f.stats.slow_downs_heard))
        .col("cancels_received", count(|f| f.stats.cancels_heard))
        .col("releases", count(|f| f.stats.releases))
        .col("nonces_evicted", count(|f| f.stats.nonces_evicted))
        .col("notifications_rejected", count(|f| f.stats.notifications_rejected))
        .col("tcp_partition_bytes", count(|f| f.tcp.limit()))
        .col("tcp_packets_cached", count(|f| f.tcp.cached))
        .col("tcp_drops_cache", count(|f| f.tcp.drops));
    for (s, column) in State::ALL.into_iter().zip(["push_s", "store_and_detour_s", "backpressure_s", "disable_backpressure_s"]) {
        interfaces = interfaces.col(column, Column::F64(ifaces.iter().map(|f| time_in(f, s)).collect()));
    }

    let transitions: Vec<&Transition> = {
        let mut t: Vec<&Transition> = routers.iter().flat_map(|r| &r.record.transitions).collect();
        t.sort_by_key(|x| (x.time, x.link));
        t
    };
    let states_table = Table::new("inrpp_states")
        .col("time_s", Column::F64(transitions.iter().map(|t| t.time.secs()).collect()))
        .col("link_id", ids(transitions.iter().map(|t| t.link).collect()))
        .col("from", states(transitions.iter().map(|t| t.from).collect()))
        .col("to", states(transitions.iter().map(|t| t.to).collect()))
        .col("cache_bytes", Column::U64(transitions.iter().map(|t| t.cache_bytes).collect()));

    let mut samples: Vec<&Sample> = routers.iter().flat_map(|r| &r.record.samples).collect();
    samples.sort_by_key(|s| (s.time, s.link));
    let ts = Table::new("inrpp_ts")
        .col("time_s", Column::F64(samples.iter().map(|s| s.time.secs()).collect()))
        .col("link_id", ids(samples.iter().map(|s| s.link).collect()))
        .col("state", states(samples.iter().map(|s| s.state).collect()))
        .col("cache_bytes", Column::U64(samples.iter().map(|s| s.cache_bytes).collect()))
        .col("nonces_stored", Column::U32(samples.iter().map(|s| s.nonces).collect()))
        .col("tcp_cache_bytes", Column::U64(samples.iter().map(|s| s.tcp_bytes).collect()));

    let mut flow_samples: Vec<&(Time, LinkId, u32, u64)> = routers.iter().flat_map(|r| &r.record.flow_samples).collect();
    flow_samples.sort_by_key(|s| (s.0, s.1, s.2));
    let flow_ts = Table::new("inrpp_flow_ts")
        .col("time_s", Column::F64(flow_samples.iter().map(|s| s.0.secs()).collect()))
        .col("link_id", ids(flow_samples.iter().map(|s| s.1).collect()))
        .col("flow_id", Column::U32(flow_samples.iter().map(|s| s.2).collect()))
        .col("cache_bytes", Column::U64(flow_samples.iter().map(|s| s.3).collect()));

    let detours: Vec<(&Inrpp, &Detour)> = routers.iter().flat_map(|r| r.detours.iter().map(move |d| (*r, d))).collect();
    let detour_table = Table::new("inrpp_detours")
        .col("link_id", ids(detours.iter().map(|(r, d)| r.ifaces[d.primary].link).collect()))
        .col("via", Column::Str(detours.iter().map(|(_, d)| node(d.via)).collect()))
        .col("via_link_id", ids(detours.iter().map(|(_, d)| d.via_link).collect()))
        .col("second_link_id", ids(detours.iter().map(|(_, d)| d.second_link).collect()))
        .col("packets", Column::U64(detours.iter().map(|(_, d)| d.packets).collect()))
        .col("bytes", Column::U64(detours.iter().map(|(_, d)| d.bytes).collect()))
        .col("probes_sent", Column::U64(detours.iter().map(|(_, d)| d.probes).collect()))
        .col("answers_received", Column::U64(detours.iter().map(|(_, d)| d.answers).collect()));

    let mut detour_samples: Vec<&DetourSample> = routers.iter().flat_map(|r| &r.record.detour_samples).collect();
    detour_samples.sort_by_key(|s| (s.time, s.link, s.via_link));
    let detour_ts = Table::new("inrpp_detour_ts")
        .col("time_s", Column::F64(detour_samples.iter().map(|s| s.time.secs()).collect()))
        .col("link_id", ids(detour_samples.iter().map(|s| s.link).collect()))
        .col("via_link_id", ids(detour_samples.iter().map(|s| s.via_link).collect()))
        .col("rate_bps", Column::F64(detour_samples.iter().map(|s| s.rate_bps).collect()))
        .col("usable", Column::Bool(detour_samples.iter().map(|s| s.usable).collect()));

    vec![interfaces, states_table, ts, flow_ts, detour_table, detour_ts]
}
