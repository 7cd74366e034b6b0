//! One simulation run: model in, result tables and summary out.

use std::time::Instant;

use serde_json::json;

use crate::capture::Capture;
use crate::metrics::stats::{jain_index, mean};
use crate::metrics::{Column, Table};
use crate::results;
use crate::router::inrpp::record::tables as inrpp_tables;
use crate::router::inrpp::Inrpp;
use crate::scenario::Model;
use crate::time::Time;
use crate::world::World;

/// Version of the result schema (`docs/results.md`). Adding tables or
/// columns keeps it; renaming or changing the meaning of one bumps it.
pub const SCHEMA_VERSION: u32 = 1;

pub struct RunOutput {
    pub tables: Vec<Table>,
    /// Deterministic summary (same scenario and seed → same JSON).
    pub summary: serde_json::Value,
    pub events: u64,
    /// Wall time of building the world from the model (before the first event).
    pub setup_s: f64,
    /// Wall time of the event loop alone.
    pub wall_s: f64,
    pub data_packets_delivered: u64,
    /// In-order payload bytes delivered to each flow's application.
    pub flow_bytes_delivered: Vec<u64>,
}

pub fn run(model: &Model, progress: &mut dyn FnMut(Time)) -> RunOutput {
    run_captured(model, None, progress).0
}

/// As [`run`], writing the packets of `capture`'s links as they go (`crate::capture`);
/// returns the capture to be finished.
pub fn run_captured(model: &Model, capture: Option<Capture>, progress: &mut dyn FnMut(Time)) -> (RunOutput, Option<Capture>) {
    let t0 = Instant::now();
    let mut world = World::new(model);
    if let Some(c) = capture {
        world.set_capture(c);
    }
    let setup_s = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    world.run(progress);
    let wall_s = t0.elapsed().as_secs_f64();
    let capture = world.take_capture();
    (collect(model, world, setup_s, wall_s), capture)
}

fn collect(model: &Model, mut world: World, setup_s: f64, wall_s: f64) -> RunOutput {
    let duration = model.duration;
    let node = |id: u32| model.nodes[id as usize].name.clone();

    let n = model.flows.len();
    let mut goodput = Vec::with_capacity(n);
    let mut finish = Vec::with_capacity(n);
    let mut fct = Vec::with_capacity(n);
    let mut delivered = Vec::with_capacity(n);
    for (m, f) in model.flows.iter().zip(&world.flows) {
        let bytes = f.receiver.delivered().min(m.size.unwrap_or(u64::MAX));
        goodput.push(results::goodput(m, f, duration));
        finish.push(f.receiver.finished_at().map(Time::secs));
        fct.push(f.receiver.finished_at().map(|t| (t - f.start).secs()));
        delivered.push(bytes);
    }
    let (ooo_mean, ooo_p95) = results::ooo_delays(&world);
    let (baselines, aggregation) = results::baselines(model, &goodput);
    let flows = Table::new("flows")
        .col("flow_id", Column::U32((0..n as u32).collect()))
        .col("name", Column::Str(model.flows.iter().map(|f| f.name.clone()).collect()))
        .col("src", Column::Str(model.flows.iter().map(|f| node(f.src)).collect()))
        .col("dst", Column::Str(model.flows.iter().map(|f| node(f.dst)).collect()))
        .col("transport", Column::Str(model.flows.iter().map(|f| f.transport.clone()).collect()))
        .col("cc", Column::Str(world.flows.iter().map(|f| f.sender.cc_name()).collect()))
        .col("size_bytes", Column::OptU64(model.flows.iter().map(|f| f.size).collect()))
        .col("start_s", Column::OptF64(world.flows.iter().map(|f| f.started.then(|| f.start.secs())).collect()))
        .col("finish_s", Column::OptF64(finish))
        .col("fct_s", Column::OptF64(fct.clone()))
        .col("completed", Column::Bool(fct.iter().map(Option::is_some).collect()))
        .col("bytes_delivered", Column::U64(delivered.clone()))
        .col("goodput_bps", Column::F64(goodput.clone()))
        .col("segments_sent", Column::U64(world.flows.iter().map(|f| f.sender.stats().segments_sent).collect()))
        .col("retransmits", Column::U64(world.flows.iter().map(|f| f.sender.stats().retransmits).collect()))
        .col("timeouts", Column::U64(world.flows.iter().map(|f| f.sender.stats().timeouts).collect()))
        .col("rtt_mean_s", Column::OptF64(world.flows.iter().map(|f| f.sender.rtt_mean_min().0.map(Time::secs)).collect()))
        .col("rtt_min_s", Column::OptF64(world.flows.iter().map(|f| f.sender.rtt_mean_min().1.map(Time::secs)).collect()))
        .col("ooo_delay_mean_s", Column::OptF64(ooo_mean))
        .col("ooo_delay_p95_s", Column::OptF64(ooo_p95))
        .col("aggregation_pct", Column::OptF64(aggregation));

    let l = &world.links;
    let links = Table::new("links")
        .col("link_id", Column::U32((0..l.len() as u32).collect()))
        .col("name", Column::Str(l.iter().map(|x| x.name.clone()).collect()))
        .col("link", Column::Str(l.iter().map(|x| x.link_name.clone()).collect()))
        .col("src", Column::Str(l.iter().map(|x| node(x.from)).collect()))
        .col("dst", Column::Str(l.iter().map(|x| node(x.to)).collect()))
        .col("rate_bps", Column::F64(model.links.iter().flat_map(|m| m.dirs.iter().map(|d| d.rate_bps)).collect()))
        .col("delay_s", Column::F64(l.iter().map(|x| x.wire.delay.initial().secs()).collect()))
        .col("bytes_sent", Column::U64(l.iter().map(|x| x.stats.bytes_sent).collect()))
        .col("packets_sent", Column::U64(l.iter().map(|x| x.stats.packets_sent).collect()))
        .col(
            "utilisation",
            Column::F64(
                l.iter()
                    .map(|x| {
                        let cap = x.capacity.bits_until(duration);
                        if cap > 0.0 { x.stats.bytes_sent as f64 * 8.0 / cap } else { 0.0 }
                    })
                    .collect(),
            ),
        )
        .col("drops_queue", Column::U64(l.iter().map(|x| x.stats.drops_queue).collect()))
        .col("drops_loss", Column::U64(l.iter().map(|x| x.stats.drops_loss).collect()))
        .col("drops_down", Column::U64(l.iter().map(|x| x.stats.drops_down).collect()))
        .col("max_queue_bytes", Column::U64(l.iter().map(|x| x.stats.max_queue_bytes).collect()))
        .col("max_queue_packets", Column::U64(l.iter().map(|x| x.stats.max_queue_packets).collect()));

    let completed: Vec<f64> = fct.iter().flatten().copied().collect();
    let total_bytes: u64 = delivered.iter().sum();
    let in_flight = world.packets_in_flight();
    let c = &world.counts;
    let mut summary = json!({
        "schema_version": SCHEMA_VERSION,
        "plane": "sim",
        "scenario": model.name,
        "seed": model.seed,
        "duration_s": duration.secs(),
        "flows": n,
        "flows_completed": completed.len(),
        "afct_s": mean(&completed),
        "jain_index": jain_index(&goodput),
        "total_goodput_bps": total_bytes as f64 * 8.0 / duration.secs(),
        "bytes_delivered": total_bytes,
        "events": world.events_run,
        "packets": {
            "sent": c.sent,
            "delivered": c.delivered,
            "dropped": c.dropped,
            "in_flight": in_flight,
            "conserved": c.sent == c.delivered + c.dropped + in_flight,
        },
    });

    let (events, data_packets_delivered) = (world.events_run, world.counts.delivered_data);
    let mut tables = vec![flows, links];
    let extra = [results::subflows(model, &world), results::interfaces(model, &world), baselines];
    // Only runs with resolvers have a `dns` table, as only those with applications have `apps`.
    let dns = (!model.resolvers.is_empty()).then(|| results::dns(model, &world.dns.log));
    let controller_log = std::mem::take(&mut world.ctl.log).into_table(|c| model.flows[c as usize].name.clone());
    let (energy, radio_ts, energy_summary) = world.energy_results();
    if energy_summary.as_object().is_some_and(|o| !o.is_empty()) {
        summary["energy"] = energy_summary;
    }
    let inrpp_routers = world.routers().modules().filter_map(|m| m.as_any().downcast_ref::<Inrpp>());
    let inrpp = inrpp_tables(inrpp_routers, duration, node);
    // Only runs with applications have their tables (as only INRPP runs have INRPP's).
    let apps = model.flows.iter().any(|f| f.app.is_some()).then(|| {
        let sessions = world.flows.iter_mut().enumerate().filter_map(|(i, f)| Some((i as u32, f.app.as_mut()?)));
        [crate::app::table(sessions, duration), std::mem::take(&mut world.app_ts).into_table()]
    });
    // Only runs with fetch sessions have their tables.
    let fetches = (!model.fetches.is_empty()).then(|| world.fetch_tables());
    let pages = (!model.pages.is_empty()).then(|| world.page_tables());
    tables.extend(world.into_time_series());
    tables.extend(extra);
    tables.push(controller_log);
    tables.extend([energy, radio_ts]);
    tables.extend(inrpp);
    tables.extend(apps.into_iter().flatten());
    tables.extend(dns);
    tables.extend(fetches.into_iter().flatten());
    tables.extend(pages.into_iter().flatten());
    RunOutput { tables, summary, events, setup_s, wall_s, data_packets_delivered, flow_bytes_delivered: delivered }
}
