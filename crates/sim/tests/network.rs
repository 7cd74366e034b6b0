//! Links, capacity traces, loss models, link failures, routing and workloads.

mod common;
use common::*;

use pathpool_sim::{load, run, Format};

fn two_hosts(link_extra: &str, duration: &str, flow_extra: &str) -> String {
    format!(
        r#"
        [sim]
        duration = "{duration}"
        sample_interval = "100ms"
        [[nodes]]
        name = "a"
        [[nodes]]
        name = "b"
        [[links]]
        name = "ab"
        a = "a"
        b = "b"
        {link_extra}
        [[flows]]
        src = "a"
        dst = "b"
        {flow_extra}
        "#
    )
}

fn link_row(out: &pathpool_sim::RunOutput, col: &str, link: usize) -> f64 {
    f64s(table(out, "links"), col)[link]
}

/// A saturated Mahimahi link carries what the trace allows: counted here
/// independently from the trace file (one 1500-byte opportunity a line).
#[test]
fn mahimahi_trace_delivers_the_traces_bytes() {
    let Some(data) = shared_data() else {
        eprintln!("skipped: ../shared/data not found");
        return;
    };
    let trace = data.join("traces/mahimahi/TMobile-LTE-short.down");
    let text = std::fs::read_to_string(&trace).unwrap();
    let ms: Vec<u64> = text.lines().filter(|l| !l.trim().is_empty()).map(|l| l.trim().parse().unwrap()).collect();
    let period = *ms.last().unwrap();
    let duration_ms = 20_000u64;
    let opportunities: u64 = (0..=duration_ms / period)
        .map(|k| ms.iter().filter(|&&t| k * period + t <= duration_ms).count() as u64)
        .sum();
    let capacity_bytes = opportunities as f64 * 1500.0;

    let out = run_toml(&two_hosts(
        r#"delay = "10ms"
        queue = 2000
        a_to_b = { capacity = { mahimahi = "data:traces/mahimahi/TMobile-LTE-short.down" } }
        b_to_a = { rate = "100Mbps" }"#,
        "20s",
        "",
    ));
    let sent = link_row(&out, "bytes_sent", 0);
    let ratio = sent / capacity_bytes;
    assert!((0.98..=1.0).contains(&ratio), "link sent {sent} B of the trace's {capacity_bytes} B ({ratio:.4})");
    // The results' own utilisation agrees with the independent count.
    assert!((link_row(&out, "utilisation", 0) - ratio).abs() < 0.01);
}

/// A link that goes down loses what it carries and what it is offered; TCP
/// recovers by timeout once it is back, and every packet is accounted for.
#[test]
fn link_down_and_up() {
    let out = run_toml(&two_hosts(
        r#"rate = "10Mbps"
        delay = "10ms"
        events = [{ at = "2s", state = "down" }, { at = "4s", state = "up" }]"#,
        "10s",
        "",
    ));
    assert!(mean_goodput(&out, 0, 2.5, 4.0) == 0.0, "no goodput while down");
    assert!(mean_goodput(&out, 0, 7.0, 10.0) > 8e6, "recovers after the link returns");
    assert!(link_row(&out, "drops_down", 0) > 0.0);
    assert!(f64s(table(&out, "flows"), "timeouts")[0] >= 1.0);
}

/// Random loss on a link drops the configured fraction (Bernoulli and
/// Gilbert–Elliott, whose stationary loss is p_gb / (p_gb + p_bg)).
#[test]
fn random_loss_rates() {
    for (loss, expected) in [
        (r#"{ model = "bernoulli", p = 0.02 }"#, 0.02),
        (r#"{ model = "gilbert_elliott", p_good_to_bad = 0.005, p_bad_to_good = 0.2 }"#, 0.005 / 0.205),
    ] {
        let out = run_toml(&two_hosts(
            &format!("rate = \"20Mbps\"\ndelay = \"5ms\"\na_to_b = {{ loss = {loss} }}"),
            "60s",
            "",
        ));
        let (sent, lost) = (link_row(&out, "packets_sent", 0), link_row(&out, "drops_loss", 0));
        let rate = lost / sent;
        // Binomial standard error is below 0.1 % here; allow for Gilbert–Elliott's burst correlation.
        assert!((rate - expected).abs() < 0.15 * expected, "{loss}: lost {rate:.4}, expected {expected:.4} ({sent} sent)");
    }
}

/// A piecewise-constant capacity schedule shows in the link's time series.
#[test]
fn capacity_schedule() {
    let out = run_toml(&two_hosts(
        r#"delay = "5ms"
        queue = 200
        a_to_b = { capacity = { schedule = [["0s", "20Mbps"], ["5s", "5Mbps"]] } }
        b_to_a = { rate = "20Mbps" }"#,
        "10s",
        "",
    ));
    let ts = table(&out, "link_ts");
    let (t, id, cap, rate) = (f64s(ts, "time_s"), f64s(ts, "link_id"), f64s(ts, "capacity_bps"), f64s(ts, "rate_bps"));
    for i in 0..t.len() {
        if id[i] == 0.0 && t[i] > 1.0 {
            let want = if t[i] <= 5.0 { 20e6 } else { 5e6 };
            assert!((cap[i] - want).abs() < 1.0, "capacity {} at {}", cap[i], t[i]);
            if t[i] > 7.0 {
                // Bytes count when a packet starts, so one packet more can fall in an interval.
                let one_packet = 1500.0 * 8.0 / 0.1;
                assert!(rate[i] <= want + one_packet && rate[i] > 0.9 * want, "rate {} at {}", rate[i], t[i]);
            }
        }
    }
}

fn two_path_scenario(ecmp: bool) -> String {
    format!(
        r#"
        [sim]
        duration = "2s"
        ecmp = {ecmp}
        [[nodes]]
        name = "h0"
        [[nodes]]
        name = "h1"
        [[nodes]]
        name = "in"
        kind = "router"
        [[nodes]]
        name = "out"
        kind = "router"
        [[nodes]]
        name = "p"
        kind = "router"
        [[nodes]]
        name = "q"
        kind = "router"
        [[links]]
        a = "h0"
        b = "in"
        rate = "1Gbps"
        delay = "1ms"
        [[links]]
        a = "out"
        b = "h1"
        rate = "1Gbps"
        delay = "1ms"
        [[links]]
        name = "via-p-1"
        a = "in"
        b = "p"
        rate = "100Mbps"
        delay = "5ms"
        [[links]]
        a = "p"
        b = "out"
        rate = "100Mbps"
        delay = "5ms"
        [[links]]
        name = "via-q-1"
        a = "in"
        b = "q"
        rate = "100Mbps"
        delay = "5ms"
        [[links]]
        a = "q"
        b = "out"
        rate = "100Mbps"
        delay = "5ms"
        [[flows]]
        count = 16
        src = "h0"
        dst = "h1"
        size = "100KB"
        "#
    )
}

/// Equal-cost paths: ECMP hashes flows over both; without it one path carries all.
#[test]
fn ecmp_spreads_flows_over_equal_cost_paths() {
    let via = |out: &pathpool_sim::RunOutput| {
        let links = table(out, "links");
        let bytes = f64s(links, "bytes_sent");
        // Link directions: via-p-1 forward is id 4, via-q-1 forward is id 8.
        (bytes[4], bytes[8])
    };
    let (p, q) = via(&run_toml(&two_path_scenario(true)));
    assert!(p > 0.0 && q > 0.0, "ECMP used one path only: {p} / {q}");
    let (p, q) = via(&run_toml(&two_path_scenario(false)));
    assert!(p == 0.0 || q == 0.0, "without ECMP both paths carried data: {p} / {q}");
}

/// Parking lot: the flow crossing every bottleneck gets less than the
/// one-hop cross flows, each of which shares one link with it.
#[test]
fn parking_lot_long_flow_gets_less() {
    let out = run_toml(
        r#"
        [sim]
        duration = "60s"
        sample_interval = "1s"
        [topology]
        kind = "parking_lot"
        hops = 3
        access = { rate = "1Gbps", delay = "1ms", queue = 1000 }
        link = { rate = "10Mbps", delay = "5ms", queue = 50 }
        [[flows]]
        name = "long"
        src = "src_long"
        dst = "dst_long"
        [[flows]]
        name = "cross1"
        src = "src1"
        dst = "dst1"
        [[flows]]
        name = "cross2"
        src = "src2"
        dst = "dst2"
        [[flows]]
        name = "cross3"
        src = "src3"
        dst = "dst3"
        "#,
    );
    let long = mean_goodput(&out, 0, 10.0, 60.0);
    let cross: Vec<f64> = (1..4).map(|f| mean_goodput(&out, f, 10.0, 60.0)).collect();
    let mean_cross = cross.iter().sum::<f64>() / 3.0;
    assert!(long < mean_cross, "long {long} vs cross {cross:?}");
}

/// Poisson arrivals at λ = ρ·C/(E[L]·packet bits) and Pareto sizes whose
/// median is x_m·2^(1/α) packets.
#[test]
fn poisson_pareto_workload_statistics() {
    let text = r#"
        [sim]
        duration = "1000s"
        [topology]
        kind = "dumbbell"
        pairs = 2
        access = { rate = "1Gbps", delay = "1ms" }
        bottleneck = { rate = "100Mbps", delay = "5ms" }
        [[workloads]]
        kind = "poisson_pareto"
        src = ["src0", "src1"]
        dst = ["dst0", "dst1"]
        load = 0.9
        capacity = "100Mbps"
        mean_size = 30
        flows = 20000
        "#;
    let model = load(text, Format::Toml, &source("w.toml"), None).unwrap();
    let n = model.flows.len() as f64;
    let last = model.flows.last().unwrap().start.secs();
    let lambda = 0.9 * 100e6 / (30.0 * 1500.0 * 8.0);
    let measured = n / last;
    assert!((measured / lambda - 1.0).abs() < 0.03, "arrival rate {measured:.1}/s vs λ {lambda:.1}/s");
    let mut packets: Vec<f64> = model.flows.iter().map(|f| (f.size.unwrap() / 1448) as f64).collect();
    packets.sort_by(f64::total_cmp);
    let median = packets[packets.len() / 2];
    let (alpha, xm) = (1.2, 30.0 * 0.2 / 1.2);
    let expected = (xm * 2f64.powf(1.0 / alpha)).round();
    assert!((median - expected).abs() <= 1.0, "median {median} packets vs {expected}");
    // Both sources and destinations are used.
    assert!(model.flows.iter().any(|f| f.src != model.flows[0].src));
    // And the workload runs.
    let out = run(&model, &mut |_| {});
    assert_conserved(&out);
}

/// Same scenario and seed: identical summary and tables; another seed differs.
#[test]
fn runs_are_deterministic() {
    let text = two_hosts(
        r#"rate = "20Mbps"
        delay = "10ms"
        loss = { model = "bernoulli", p = 0.01 }"#,
        "5s",
        "",
    );
    let a = run_toml(&text);
    let b = run_toml(&text);
    assert_eq!(a.summary, b.summary);
    for (ta, tb) in a.tables.iter().zip(&b.tables) {
        assert_eq!(format!("{:?}", ta.columns), format!("{:?}", tb.columns), "table {}", ta.name);
    }
    let c = run_toml(&text.replace("[sim]", "[sim]\nseed = 2"));
    assert_ne!(a.summary["bytes_delivered"], c.summary["bytes_delivered"]);
}

/// A sized flow completes, and its FCT is at least the ideal transfer time.
#[test]
fn sized_flow_completes() {
    let out = run_toml(&two_hosts("rate = \"10Mbps\"\ndelay = \"10ms\"", "10s", "size = \"1MB\""));
    let flows = table(&out, "flows");
    let fct = f64s(flows, "fct_s")[0];
    // Handshake + slow start: more than 1 MB at line rate plus one RTT, well under 3 s.
    assert!(fct > 8e6 / 10e6 * 1500.0 / 1448.0 + 0.02 && fct < 3.0, "FCT {fct}");
    assert_eq!(f64s(flows, "bytes_delivered")[0], 1e6);
    assert_eq!(out.summary["flows_completed"], 1);
}

/// Request/response: each response starts when its request's last byte
/// reaches the server (plus the flow's `start` as a think time), and a flow
/// waiting for one that never completes never starts.
#[test]
fn a_flow_after_another_starts_when_that_one_completes() {
    let text = r#"
        [sim]
        duration = "5s"
        [[nodes]]
        name = "client"
        [[nodes]]
        name = "server"
        [[links]]
        a = "client"
        b = "server"
        rate = "10Mbps"
        delay = "10ms"
        [[flows]]
        count = 2
        name = "req{i}"
        src = "client"
        dst = "server"
        size = "2kB"
        start_step = "1s"
        [[flows]]
        count = 2
        name = "resp{i}"
        src = "server"
        dst = "client"
        size = "1MB"
        after = "req{i}"
        start = "5ms"
        [[flows]]
        name = "late"
        src = "client"
        dst = "server"
        size = "10MB"
        start = "4s"
        [[flows]]
        name = "never"
        src = "server"
        dst = "client"
        size = "1kB"
        after = "late"
    "#;
    let out = run_toml(text);
    let flows = table(&out, "flows");
    let (start, finish) = (f64s(flows, "start_s"), f64s(flows, "finish_s"));
    for i in 0..2 {
        let (req, resp) = (i, 2 + i);
        assert!(finish[req] > start[req], "request {i} completed");
        assert!((start[resp] - (finish[req] + 0.005)).abs() < 1e-9, "response {i} at {} after request at {}", start[resp], finish[req]);
        assert!(finish[resp] > start[resp] + 0.8, "1 MB at 10 Mb/s takes 0.8 s");
    }
    assert!(finish[4].is_nan() && start[5].is_nan(), "a flow after an unfinished one never starts");
    assert_eq!(f64s(flows, "goodput_bps")[5], 0.0);
}
