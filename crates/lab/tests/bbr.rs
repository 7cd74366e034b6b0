//! BBR's bandwidth estimate on the kernel lab (read through sock_diag,
//! `traffic/diag.rs`) beside the simulator's: one TCP flow, and the two
//! subflows of an MPTCP connection (whose subflows have no socket of their
//! own to ask). BBR's estimate is its windowed maximum delivery rate, so on
//! an uncontended path both planes should settle near the path's payload
//! rate. Root; each run checks that it left no namespace behind.

mod common;

use common::{f64s, lab, model, runnable, table};
use pathpool_sim::metrics::Table;

const TWO_PATHS: &str = include_str!("../../../validation/lab/two-paths.toml");

/// Payload bits per second of a link of `rate` bit/s: 1448 of every 1500 IP bytes.
fn payload(rate: f64) -> f64 {
    rate * 1448.0 / 1500.0
}

/// The mean of `column`'s finite values for rows of `table` with `id_column` = id and time in (from, to].
fn mean_over(tables: &[Table], name: &str, id_column: &str, id: u32, column: &str, from: f64, to: f64) -> f64 {
    let t = table(tables, name);
    let (time, ids, v) = (f64s(t, "time_s"), f64s(t, id_column), f64s(t, column));
    let picked: Vec<f64> = (0..time.len()).filter(|&i| ids[i] as u32 == id && time[i] > from && time[i] <= to && v[i].is_finite()).map(|i| v[i]).collect();
    assert!(!picked.is_empty(), "no finite {name}.{column} for {id_column} {id} in ({from}, {to}]");
    picked.iter().sum::<f64>() / picked.len() as f64
}

fn both(toml: &str) -> (Vec<Table>, Vec<Table>) {
    let sim = pathpool_sim::run(&model(toml), &mut |_| {}).tables;
    let out = lab(toml).unwrap();
    eprintln!("FIGURE emulator: {}", out.summary["emulator"]);
    (sim, out.tables)
}

#[test]
fn a_bbr_flow_s_estimate_is_its_path_rate_on_both_planes() {
    if !runnable("a_bbr_flow_s_estimate_is_its_path_rate_on_both_planes") {
        return;
    }
    // The two-path topology's first path only: 20 Mb/s, 24 ms RTT.
    let toml = TWO_PATHS
        .replace("duration = \"20s\"", "duration = \"10s\"\nsample_interval = \"500ms\"")
        .replace("transport = \"mptcp\"\ntcp = { cc = \"cubic\" }", "tcp = { cc = \"bbr\" }")
        .replace("mptcp = { scheduler = \"minrtt\", coupling = \"uncoupled\", path_manager = \"fullmesh\" }\n", "");
    let (sim, lab) = both(&toml);
    let estimate = |t: &[Table]| mean_over(t, "flow_ts", "flow_id", 0, "bw_estimate_bps", 3.0, 10.0);
    let (s, l) = (estimate(&sim), estimate(&lab));
    let rate = payload(20e6);
    eprintln!(
        "FIGURE BBR estimate, one flow on 20 Mb/s: simulator {:.2} Mb/s, lab {:.2} Mb/s ({:+.1} %), payload rate {:.2} Mb/s",
        s / 1e6,
        l / 1e6,
        (l / s - 1.0) * 100.0,
        rate / 1e6
    );
    assert!((l / rate - 1.0).abs() <= 0.15, "lab estimate {l} bit/s against the path's {rate}");
    assert!((l / s - 1.0).abs() <= 0.15, "lab estimate {l} bit/s against the simulator's {s}");
}

#[test]
fn each_bbr_subflow_s_estimate_is_its_path_rate_on_both_planes() {
    if !runnable("each_bbr_subflow_s_estimate_is_its_path_rate_on_both_planes") {
        return;
    }
    let toml = TWO_PATHS.replace("duration = \"20s\"", "duration = \"10s\"\nsample_interval = \"500ms\"").replace("cc = \"cubic\"", "cc = \"bbr\"");
    let (sim, lab) = both(&toml);
    let mut sums = (0.0, 0.0);
    for (id, rate) in [(0, 20e6), (1, 30e6)] {
        let s = mean_over(&sim, "subflow_ts", "subflow_id", id, "bw_estimate_bps", 4.0, 10.0);
        let l = mean_over(&lab, "subflow_ts", "subflow_id", id, "bw_estimate_bps", 4.0, 10.0);
        eprintln!(
            "FIGURE BBR estimate, subflow {id} on {} Mb/s: simulator {:.2} Mb/s, lab {:.2} Mb/s ({:+.1} %)",
            rate / 1e6,
            s / 1e6,
            l / 1e6,
            (l / s - 1.0) * 100.0
        );
        assert!((l / payload(rate) - 1.0).abs() <= 0.15, "subflow {id}: lab estimate {l} bit/s against the path's {}", payload(rate));
        assert!((l / s - 1.0).abs() <= 0.15, "subflow {id}: lab estimate {l} bit/s against the simulator's {s}");
        sums = (sums.0 + s, sums.1 + l);
    }
    // The connection's estimate is the sum over its open subflows (docs/results.md, flow_ts).
    let flow = mean_over(&lab, "flow_ts", "flow_id", 0, "bw_estimate_bps", 4.0, 10.0);
    assert!((flow / sums.1 - 1.0).abs() <= 0.05, "flow_ts {flow} bit/s against its subflows' sum {}", sums.1);
}
