//! The cellular access model (issue 22, "Acceptance (cell model)"): shares
//! under round robin, a static UE's rate, the handover gap, determinism,
//! and the bad inputs refused before the run.

mod common;
use common::{f64s, load_err, run_toml, source, table};
use pathpool_sim::net::cell::block_bits;
use pathpool_sim::{load, Format, RunOutput};

/// UEs `ues` (name, x, y, extra mobility lines) each with a link to the
/// core through cells `cells`, each downloading from `server`; `cell_lines`
/// are the `[[cells]]` tables.
fn scenario(duration: &str, seed: u64, cell_lines: &str, cells: &str, ues: &[(&str, f64, f64, &str)]) -> String {
    let mut s = format!(
        r#"
[sim]
duration = "{duration}"
seed = {seed}
sample_interval = "10ms"

[tcp]
rcv_buffer = "16MiB"

{cell_lines}

[[nodes]]
name = "rnc"
kind = "router"
[[nodes]]
name = "server"
"#
    );
    for (name, x, y, extra) in ues {
        s += &format!(
            r#"
[[nodes]]
name = "{name}"
[[mobility]]
host = "{name}"
position = [{x}, {y}]
{extra}
[[links]]
a = "{name}:cell0"
b = "rnc"
delay = "5ms"
queue = 1000
capacity = {{ cell = {cells} }}
[[flows]]
name = "to-{name}"
src = "server"
dst = "{name}"
"#
        );
    }
    s + r#"
[[links]]
a = "rnc"
b = "server"
rate = "100Mbps"
delay = "10ms"
queue = 1000
"#
}

const B1: &str = r#"
[[cells]]
name = "B1"
position = [0, 0]
radius = 2500
bler = 0
"#;

/// Per-sample values of `col` for link direction `link` over (from, to] seconds.
fn link_series(out: &RunOutput, link: u32, col: &str, from: f64, to: f64) -> Vec<f64> {
    let ts = table(out, "link_ts");
    let (t, id, v) = (f64s(ts, "time_s"), f64s(ts, "link_id"), f64s(ts, col));
    (0..t.len()).filter(|&i| id[i] as u32 == link && t[i] > from + 1e-9 && t[i] <= to + 1e-9).map(|i| v[i]).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn a_static_ues_rate_is_its_block_per_tti() {
    let text = scenario("10s", 1, B1, r#""B1""#, &[("ue1", 2000.0, 0.0, "")]);
    let model = load(&text, Format::Toml, &source("t.toml"), None).unwrap();
    // At 2 km: downlink SINR 17.05 dB → CQI 11 → MCS 20 → TBS index 18 →
    // 9912 bits a subframe at 25 PRBs (TS 36.213 Table 7.1.7.2.1-1): 99 120 bits a 10 ms TTI.
    let block = block_bits(&model.cells[0], 2000.0, 0.0, false);
    assert_eq!(block, 99_120);
    let out = run_toml(&text);
    // Link 0 is ue1 → rnc (uplink), 1 the downlink. Every TTI grants the
    // whole block; the bytes sent average it.
    let granted = link_series(&out, 1, "capacity_bps", 2.0, 10.0);
    assert!(granted.iter().all(|&g| (g - 9.912e6).abs() < 1.0), "{granted:?}");
    let sent = mean(&link_series(&out, 1, "rate_bps", 2.0, 10.0));
    assert!((sent / 9.912e6 - 1.0).abs() < 0.005, "sent {sent} bit/s");
}

#[test]
fn round_robin_splits_a_cell_equally_between_equal_channels() {
    let text = scenario("10s", 1, B1, r#""B1""#, &[("ue1", 2000.0, 0.0, ""), ("ue2", 0.0, 2000.0, "")]);
    let out = run_toml(&text);
    let (a, b) = (mean(&link_series(&out, 1, "rate_bps", 2.0, 10.0)), mean(&link_series(&out, 3, "rate_bps", 2.0, 10.0)));
    assert!((a / 4.956e6 - 1.0).abs() < 0.01 && (b / 4.956e6 - 1.0).abs() < 0.01, "{a} {b}");
}

const TWO_CELLS: &str = r#"
[[cells]]
name = "B1"
position = [0, 0]
radius = 2000
tti = "10ms"
handover_interruption = "150ms"
bler = 0
[[cells]]
name = "B2"
position = [4000, 0]
radius = 2000
handover_interruption = "150ms"
bler = 0
"#;

#[test]
fn the_handover_gap_is_the_configured_interruption() {
    // 1900 m from B1, moving away at 20 m/s towards B2 (4 km away): B1's
    // border, where B2's begins, at 5 s.
    let text = scenario("8s", 1, TWO_CELLS, r#"["B1", "B2"]"#, &[("ue1", 1900.0, 0.0, "speed = 20")]);
    let out = run_toml(&text);
    let granted = link_series(&out, 1, "capacity_bps", 1.0, 8.0);
    let (mut run, mut longest, mut at) = (0, 0, 0);
    for (i, &g) in granted.iter().enumerate() {
        run = if g == 0.0 { run + 1 } else { 0 };
        if run > longest {
            longest = run;
            at = i;
        }
    }
    // 15 TTIs of 10 ms without a grant, ending 5.01 s + 150 ms after the start.
    assert_eq!(longest, 15, "{granted:?}");
    let end_s = 1.0 + (at + 1) as f64 * 0.01;
    assert!((end_s - 5.16).abs() < 0.011, "gap ends at {end_s}");
    // Before and after, the UE was served.
    assert!(granted[at - 15] > 0.0 && granted[at + 1] > 0.0);
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let cells = TWO_CELLS.replace("bler = 0", "bler = 0.1\nshadowing = 8");
    let run = |seed| {
        let text = scenario("8s", seed, &cells, r#"["B1", "B2"]"#, &[("ue1", 1900.0, 0.0, "speed = 20"), ("ue2", 500.0, 500.0, "")]);
        let out = run_toml(&text);
        (f64s(table(&out, "link_ts"), "capacity_bps"), f64s(table(&out, "flow_ts"), "goodput_bps"))
    };
    let (a, b) = (run(7), run(7));
    assert_eq!(a, b);
    let c = run(8);
    assert_ne!(a.0, c.0, "another seed shadows differently");
}

#[test]
fn bad_cells_and_mobility_are_refused_before_the_run() {
    let ok = scenario("5s", 1, B1, r#""B1""#, &[("ue1", 2000.0, 0.0, "")]);
    let bad = |from: &str, to: &str| load_err(&ok.replacen(from, to, 1));
    let e = bad("position = [2000, 0]", "position = [2600, 0]");
    assert!(e.contains("bad.toml: mobility[0].position: 'ue1' starts at (2600, 0), outside every cell"), "{e}");
    let e = bad("position = [2000, 0]", "position = [2000, 0]\nspeed = -3");
    assert!(e.contains("bad.toml: mobility[0].speed: must be a speed ≥ 0 m/s, got -3"), "{e}");
    let e = bad("radius = 2500", "radius = 2500\nscheduler = \"fifo\"");
    assert!(e.contains("bad.toml: cells[0].scheduler: unknown scheduler 'fifo' (known: round_robin, proportional_fair)"), "{e}");
    let e = bad(r#"cell = "B1""#, r#"cell = "B9""#);
    assert!(e.contains("bad.toml: links[0].capacity.cell: unknown cell 'B9' (cells: B1)"), "{e}");
    let e = bad("[[mobility]]\nhost = \"ue1\"\nposition = [2000, 0]\n", "");
    assert!(e.contains("links[0].capacity.cell: neither 'ue1' nor 'rnc' has a [[mobility]] entry"), "{e}");
    let e = bad("radius = 2500", "radius = 2500\nprbs = 20");
    assert!(e.contains("cells[0].prbs: must be one of the LTE bandwidths"), "{e}");
}
