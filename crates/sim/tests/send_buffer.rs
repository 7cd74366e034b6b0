//! `tcp.send_buffer = "linux"`: a single-path sender's application keeps at
//! most Linux's autotuned send buffer unacknowledged or unsent, which caps
//! what is in flight at `tcp_wmem[2]` = 4 MiB (`tcp/send_buffer.rs`). On a
//! path whose BDP is above that, goodput is at most 4 MiB per round trip;
//! with the default (`"unlimited"`) the window alone limits.

mod common;

use common::{f64s, load_err, mean_goodput, one_link_flow, run_toml, table};

/// 4 MiB, Linux's default `tcp_wmem[2]`.
const WMEM_MAX: f64 = (4 << 20) as f64;

/// One flow on a 200 Mb/s, 200 ms RTT path (BDP 5 MB) with a 1-BDP queue.
fn one_flow(cc: &str, send_buffer: &str) -> String {
    one_link_flow(
        r#"duration = "12s"
sample_interval = "100ms""#,
        &format!("cc = \"{cc}\"\n{send_buffer}"),
        r#"rate = "200Mbps"
delay = "100ms"
queue = 3334"#,
    )
}

#[test]
fn linux_caps_what_is_in_flight_at_tcp_wmem_max() {
    for cc in ["cubic", "bbr"] {
        let run = |sb: &str| run_toml(&one_flow(cc, sb));
        let (unlimited, linux) = (run(""), run(r#"send_buffer = "linux""#));
        let peak = |out| f64s(table(out, "flow_ts"), "bytes_in_flight").into_iter().fold(0.0, f64::max);
        let (g_unlimited, g_linux) = (mean_goodput(&unlimited, 0, 6.0, 12.0), mean_goodput(&linux, 0, 6.0, 12.0));
        // The cap as a rate: 4 MiB per round trip of at least the 200 ms propagation RTT.
        let cap_bps = WMEM_MAX * 8.0 / 0.2;
        println!(
            "FIGURE {cc}: peak in flight {:.0} / {:.0} bytes, goodput 6-12 s {:.1} / {:.1} Mb/s (unlimited / linux; cap {:.1} Mb/s)",
            peak(&unlimited),
            peak(&linux),
            g_unlimited / 1e6,
            g_linux / 1e6,
            cap_bps / 1e6
        );
        // Linux lets the application write while the socket holds less than the buffer: one segment may cross it.
        assert!(peak(&linux) <= WMEM_MAX + 1448.0, "{cc}: {} in flight under a 4 MiB buffer", peak(&linux));
        assert!(peak(&unlimited) > 1.2 * WMEM_MAX, "{cc}: the unlimited sender should fill the 5 MB path and its queue");
        assert!(g_linux <= cap_bps * 1.01, "{cc}: {g_linux} above the buffer's {cap_bps} bit/s");
        // Not starved either: the buffer, not the window, is what binds.
        assert!(g_linux > 0.9 * cap_bps, "{cc}: {g_linux} far below the buffer's {cap_bps} bit/s");
        assert!(g_unlimited > cap_bps, "{cc}: the unlimited sender's {g_unlimited} bit/s should pass the buffer's cap");
    }
}

#[test]
fn an_unknown_send_buffer_model_is_refused() {
    let e = load_err(&one_flow("cubic", r#"send_buffer = "bsd""#));
    assert!(e.contains("send_buffer"), "{e}");
}

/// BBR on a path whose STARTUP window (2.89 BDP) passes the 4 MiB buffer: 172.2 Mb/s, 74.2 ms RTT (BDP 1.6 MB),
/// a 1-BDP queue (the random suite's seed-2 scenario 004 without its loss and cross flows).
#[test]
fn a_writer_blocked_on_a_full_buffer_is_not_application_limited() {
    let out = run_toml(&one_link_flow(
        "duration = \"12s\"\nsample_interval = \"100ms\"",
        "cc = \"bbr\"\nsend_buffer = \"linux\"",
        "rate = \"172.2Mbps\"\ndelay = \"37.1ms\"\nqueue = 1065",
    ));
    let ts = table(&out, "flow_ts");
    let (time, pacing, bw) = (f64s(ts, "time_s"), f64s(ts, "pacing_rate_bps"), f64s(ts, "bw_estimate_bps"));
    let late: Vec<f64> = (0..time.len()).filter(|&i| time[i] >= 6.0 && bw[i] > 0.0).map(|i| pacing[i] / bw[i]).collect();
    let drops = f64s(table(&out, "links"), "drops_queue").into_iter().sum::<f64>();
    println!("FIGURE BBR under a 4 MiB buffer: pacing / bandwidth estimate 6-12 s up to {:.2}, queue drops {drops}", late.iter().fold(0.0, |a: f64, &b| a.max(b)));
    // Were the full buffer taken for the application, every rate sample would be application-limited, full-pipe
    // detection would never run and BBR would pace at STARTUP's 2.89 for good, overflowing the queue
    // (23 010 drops). PROBE_BW's gains are 0.75-1.25.
    assert!(late.iter().all(|&r| r < 1.3), "pacing / estimate {late:?}");
    assert!(drops < 3000.0, "{drops} queue drops");
}
