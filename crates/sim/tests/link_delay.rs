//! A link delay schedule: the RTT follows it, a falling delay reorders
//! nothing, and runs stay deterministic (`sim::net::delay`).

mod common;
use common::*;

/// One link whose one-way delay follows `schedule` in both directions, and a
/// bulk flow whose receive window is 64 KiB (45 segments).
fn stepping_link(rate: &str, schedule: &str) -> String {
    format!(
        r#"
        [sim]
        duration = "10s"
        sample_interval = "100ms"
        [[nodes]]
        name = "a"
        [[nodes]]
        name = "b"
        [[links]]
        name = "ab"
        a = "a"
        b = "b"
        rate = "{rate}"
        delay = {{ schedule = {schedule} }}
        [[flows]]
        src = "a"
        dst = "b"
        tcp = {{ rcv_buffer = "64KiB" }}
        "#
    )
}

/// At 100 Mb/s the window holds the flow to 5 Mb/s at 100 ms and 26 Mb/s at
/// 20 ms: no queue builds and no loss hides what the delay does.
const FAST: &str = "100Mbps";
/// At 5 Mb/s the window (67.9 kB on the wire) just overfills the 62.5 kB
/// pipe of 100 ms: the link sends without a gap, a segment every 2.4 ms,
/// across the step.
const FULL: &str = "5Mbps";

const STEP_DOWN: &str = r#"[["0s", "50ms"], ["5s", "10ms"]]"#;

/// flow 0's (time, srtt) samples.
fn srtt(out: &pathpool_sim::RunOutput) -> Vec<(f64, f64)> {
    let ts = table(out, "flow_ts");
    f64s(ts, "time_s").into_iter().zip(f64s(ts, "srtt_s")).collect()
}

#[test]
fn srtt_follows_a_falling_delay() {
    let out = run_toml(&stepping_link(FAST, STEP_DOWN));
    // RTT = two propagation delays plus a 1500-byte and a 52-byte transmission
    // at 100 Mb/s (0.12 ms + 4 µs); srtt must be within 1 ms of it once it settled.
    for (t, s) in srtt(&out) {
        if (1.0..=5.0).contains(&t) {
            assert!((s - 0.100).abs() < 1e-3, "srtt {s} at {t} s, want 100 ms");
        }
        if t >= 5.5 {
            assert!((s - 0.020).abs() < 1e-3, "srtt {s} at {t} s, want 20 ms");
        }
    }
    let flows = table(&out, "flows");
    let rtt_min = f64s(flows, "rtt_min_s")[0];
    assert!((0.020..0.0205).contains(&rtt_min), "rtt_min {rtt_min}");
    // The link shows its delay over time, and routing's time-zero delay in `links`.
    let ts = table(&out, "link_ts");
    for ((t, id), d) in f64s(ts, "time_s").into_iter().zip(f64s(ts, "link_id")).zip(f64s(ts, "delay_s")) {
        let want = if t < 5.0 { 0.050 } else { 0.010 };
        assert_eq!(d, want, "link {id} delay at {t} s");
    }
    assert_eq!(f64s(table(&out, "links"), "delay_s"), [0.050, 0.050]);
}

/// When the delay falls by 40 ms on a link that never stops sending, the
/// ~16 segments sent in the 40 ms after the step would overtake those sent
/// in the 40 ms before it (and their ACKs likewise), and the receiver would
/// report holes: dup-ACKs and retransmissions. Held behind them, nothing is
/// retransmitted, and no segment is lost to make one either.
#[test]
fn a_falling_delay_reorders_nothing() {
    let out = run_toml(&stepping_link(FULL, STEP_DOWN));
    let flows = table(&out, "flows");
    assert_eq!(f64s(flows, "retransmits")[0], 0.0);
    assert_eq!(f64s(flows, "timeouts")[0], 0.0);
    let links = table(&out, "links");
    assert_eq!(f64s(links, "drops_queue"), [0.0, 0.0]);
    // The link was busy right up to the step and after it: the flow ran at
    // its rate on both sides.
    let (before, after) = (mean_goodput(&out, 0, 4.0, 5.0), mean_goodput(&out, 0, 5.0, 6.0));
    assert!(before > 4.5e6 && after > 4.5e6, "goodput {before} then {after}");
}

/// A rising delay only spaces packets out: the RTT follows it too.
#[test]
fn srtt_follows_a_rising_delay() {
    let out = run_toml(&stepping_link(FAST, r#"[["0s", "10ms"], ["5s", "50ms"]]"#));
    for (t, s) in srtt(&out) {
        if (1.0..=5.0).contains(&t) {
            assert!((s - 0.020).abs() < 1e-3, "srtt {s} at {t} s, want 20 ms");
        }
        if t >= 6.0 {
            assert!((s - 0.100).abs() < 1e-3, "srtt {s} at {t} s, want 100 ms");
        }
    }
    assert_eq!(f64s(table(&out, "flows"), "retransmits")[0], 0.0);
}

#[test]
fn same_seed_same_result() {
    let text = stepping_link(FULL, STEP_DOWN).replace("[sim]", "[sim]\nseed = 3");
    let (a, b) = (run_toml(&text), run_toml(&text));
    assert_eq!(a.summary, b.summary);
    for (ta, tb) in a.tables.iter().zip(&b.tables) {
        assert_eq!(format!("{:?}", ta.columns), format!("{:?}", tb.columns), "table {}", ta.name);
    }
}
