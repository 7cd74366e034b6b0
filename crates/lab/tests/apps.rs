//! Applications on the kernel lab (issue 14): the simulator's sessions run
//! unchanged on a real TCP connection (`traffic/app.rs`), and the same
//! scenario gives the same session metrics on both planes. They need root
//! and a kernel with MPTCP, and say SKIPPED otherwise.
//!
//! One constant-rate link between a server and a phone, a single-path TCP
//! flow with Linux's defaults (the simulator's newreno is the kernel's
//! reno; delayed ACKs approximated off by TCP_QUICKACK).

mod common;

use common::{f64s, lab, runnable, strs, table};
use pathpool_sim::metrics::Table;

/// A server and a phone joined by one link (both directions alike).
fn scenario(rate: &str, delay_ms: u64, queue: u32, duration_s: u64, app: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration_s}s"
[[nodes]]
name = "server"
[[nodes]]
name = "phone"
[[links]]
a = "server"
b = "phone"
rate = "{rate}"
delay = "{delay_ms}ms"
queue = {queue}
[[flows]]
name = "session"
src = "server"
dst = "phone"
client = "dst"
app = {app}
"#
    )
}

fn one(tables: &[Table], col: &str) -> f64 {
    f64s(table(tables, "apps"), col)[0]
}

/// Both planes' `apps` tables for `toml`.
fn both(toml: &str) -> (Vec<Table>, Vec<Table>) {
    let sim = pathpool_sim::run(&common::model(toml), &mut |_| {}).tables;
    let lab = lab(toml).unwrap().tables;
    (sim, lab)
}

/// A 2.5 Mb/s video (2 s segments, 20 s long) over a 2 Mb/s link (0.8 ×
/// the bitrate), RTT 20 ms: each 625 kB segment takes about 2.6 s, so
/// playback stalls after every segment but the last, about 0.6 s each.
/// The player never pauses (its buffer never fills), so the connection
/// is never idle long enough for Linux's slow start after idle
/// (`tcp_slow_start_after_idle`, the simulator has none) to matter.
#[test]
fn video_stalls_alike_on_both_planes() {
    if !runnable("video_stalls_alike_on_both_planes") {
        return;
    }
    let app = r#"{ kind = "video", bitrate = "2.5Mbps", segment = "2s", duration = "20s" }"#;
    let (sim, lab) = both(&scenario("2Mbps", 10, 100, 30, app));
    let rtt = 0.020;
    let m = |t: &[Table]| (one(t, "objects"), one(t, "startup_s"), one(t, "stalls"), one(t, "stall_s"), one(t, "mean_bitrate_bps"));
    let (s, l) = (m(&sim), m(&lab));
    eprintln!(
        "FIGURE lab video 0.8 x bitrate: segments sim {} lab {}; startup sim {:.3} s lab {:.3} s; stalls sim {} lab {}; stall time sim {:.3} s lab {:.3} s ({:+.1} %)",
        s.0,
        l.0,
        s.1,
        l.1,
        s.2,
        l.2,
        s.3,
        l.3,
        100.0 * (l.3 - s.3) / s.3
    );
    assert_eq!(s.0, 10.0, "the simulator fetched every segment");
    assert_eq!(l.0, s.0, "segments fetched");
    assert!((l.1 - s.1).abs() <= 3.0 * rtt + 0.1, "startup: lab {:.3} s, simulator {:.3} s", l.1, s.1);
    assert_eq!(l.2, s.2, "stalls");
    assert!((l.3 - s.3).abs() <= 0.15 * s.3, "stall time: lab {:.3} s, simulator {:.3} s", l.3, s.3);
    assert_eq!(l.4, s.4, "one bitrate");
    // The same app_ts rows: one per sample while the session runs.
    let (ts_s, ts_l) = (f64s(table(&sim, "app_ts"), "time_s"), f64s(table(&lab, "app_ts"), "time_s"));
    assert!(ts_l.len().abs_diff(ts_s.len()) <= 1, "app_ts rows: lab {}, simulator {}", ts_l.len(), ts_s.len());
}

/// Three 500 kB objects, sizes announced, 100 ms apart (shorter than the
/// RTO, so Linux does not restart slow start in between) over 20 Mb/s
/// with a 40 ms RTT: the first in slow start (about 0.33 s), the next two
/// with the window open (about 0.25 s each). The 400-packet queue holds
/// every burst, so neither plane loses a packet. (With 1 MB objects the
/// window that slow start grew while the first object was app-limited
/// lets the later objects out in one burst that overflows the queue, and
/// both planes spend the run in loss recovery and time-outs.)
#[test]
fn download_objects_take_as_long_on_both_planes() {
    if !runnable("download_objects_take_as_long_on_both_planes") {
        return;
    }
    let app = r#"{ kind = "download", size = "500kB", count = 3, think = "100ms", size_announced = true }"#;
    let (sim, lab) = both(&scenario("20Mbps", 20, 400, 5, app));
    let m = |t: &[Table]| (one(t, "objects"), one(t, "object_time_mean_s"), one(t, "object_time_p95_s"), one(t, "completion_s"));
    let (s, l) = (m(&sim), m(&lab));
    let off = |a: f64, b: f64| 100.0 * (a - b) / b;
    eprintln!(
        "FIGURE lab download 3 x 500 kB: object time mean sim {:.3} s lab {:.3} s ({:+.1} %), p95 sim {:.3} s lab {:.3} s ({:+.1} %), completion sim {:.3} s lab {:.3} s ({:+.1} %)",
        s.1,
        l.1,
        off(l.1, s.1),
        s.2,
        l.2,
        off(l.2, s.2),
        s.3,
        l.3,
        off(l.3, s.3)
    );
    assert_eq!(s.0, 3.0);
    assert_eq!(l.0, 3.0);
    assert_eq!(f64s(table(&lab, "apps"), "bytes")[0], 1.5e6);
    for (what, a, b) in [("mean object time", l.1, s.1), ("p95 object time", l.2, s.2), ("completion", l.3, s.3)] {
        assert!((a - b).abs() <= 0.10 * b, "{what}: lab {a:.3} s, simulator {b:.3} s");
    }
    assert_eq!(f64s(table(&lab, "flows"), "bytes_delivered")[0], 1.5e6, "one connection carries all three");
}

/// The same video over MPTCP on two paths whose sum is 0.8 × the bitrate:
/// phone:wlan0 – server:eth0 at 1.2 Mb/s, 10 ms, and phone:lte0 –
/// server:eth1 at 0.8 Mb/s, 25 ms; uncoupled CUBIC subflows, the
/// lowest-RTT scheduler (the kernel's default one), full mesh opened by
/// the phone. 2.5 Mb/s over at most 2 Mb/s: the first segment alone
/// takes over 2.5 s, and every segment after it ends a stall.
#[test]
fn mptcp_video_stalls_alike_on_both_planes() {
    if !runnable("mptcp_video_stalls_alike_on_both_planes") {
        return;
    }
    let toml = r#"
[sim]
duration = "30s"
[[nodes]]
name = "server"
[[nodes]]
name = "phone"
[[links]]
name = "wifi"
a = "server:eth0"
b = "phone:wlan0"
rate = "1.2Mbps"
delay = "10ms"
queue = 20
[[links]]
name = "lte"
a = "server:eth1"
b = "phone:lte0"
rate = "0.8Mbps"
delay = "25ms"
queue = 20
[[flows]]
name = "session"
src = "server"
dst = "phone"
client = "dst"
transport = "mptcp"
tcp = { cc = "cubic" }
mptcp = { scheduler = "minrtt", coupling = "uncoupled", path_manager = "fullmesh" }
app = { kind = "video", bitrate = "2.5Mbps", segment = "2s", duration = "20s" }
"#;
    let (sim, lab) = both(toml);
    let m = |t: &[Table]| (one(t, "objects"), one(t, "startup_s"), one(t, "stalls"), one(t, "stall_s"));
    let (s, l) = (m(&sim), m(&lab));
    eprintln!(
        "FIGURE lab MPTCP video 0.8 x bitrate on two paths: segments sim {} lab {}; startup sim {:.3} s lab {:.3} s; stalls sim {} lab {}; stall time sim {:.3} s lab {:.3} s ({:+.1} %)",
        s.0,
        l.0,
        s.1,
        l.1,
        s.2,
        l.2,
        s.3,
        l.3,
        100.0 * (l.3 - s.3) / s.3
    );
    // The session runs and stalls on both planes; the planes' MPTCP differs
    // (the kernel's scheduler and join timing against the simulator's
    // minrtt: the first 625 kB segment took 3.7 s on the lab, 4.3 s in the
    // simulator), so the figures are reported, not held to the
    // single-path tolerances.
    // How many segments arrive in 30 s varies from lab run to lab run (8 to
    // 10 seen), so the stall counts are held to the segments each plane got:
    // every segment after the first ends a stall (and the run may end in one).
    for (plane, (segments, startup, stalls, _)) in [("simulator", s), ("lab", l)] {
        assert!(segments >= 7.0 && startup > 2.5, "{plane}: {segments} segments, startup {startup} s");
        assert!(stalls >= segments - 1.0 && stalls <= segments, "{plane}: {stalls} stalls for {segments} segments");
    }
    let subflows = table(&lab, "subflows");
    let (local, acked) = (strs(subflows, "local_interface"), f64s(subflows, "bytes_acked"));
    eprintln!("FIGURE lab MPTCP video subflows: {local:?} to {:?}, bytes acknowledged {acked:?}", strs(subflows, "remote_interface"));
    for iface in ["server:eth0", "server:eth1"] {
        assert!(local.iter().zip(&acked).any(|(l, &a)| l == iface && a > 0.0), "no data over {iface}: {local:?} {acked:?}");
    }
}

/// Interactive messages: 200 B every 20 ms for 5 s over 10 Mb/s, 25 ms
/// one way (the simulator's check in docs/apps.md: 25.20 ms each). On the
/// lab the server looks for messages to push every millisecond while idle,
/// so a message leaves up to about 1 ms after the session asked for it.
#[test]
fn interactive_latency_alike_on_both_planes() {
    if !runnable("interactive_latency_alike_on_both_planes") {
        return;
    }
    let app = r#"{ kind = "interactive", message = "200B", interval = "20ms", count = 250 }"#;
    let (sim, lab) = both(&scenario("10Mbps", 25, 100, 6, app));
    let m = |t: &[Table]| (one(t, "objects"), one(t, "object_time_mean_s"), one(t, "object_time_p95_s"));
    let (s, l) = (m(&sim), m(&lab));
    eprintln!(
        "FIGURE lab interactive 200 B / 20 ms: messages sim {} lab {}; latency mean sim {:.2} ms lab {:.2} ms, p95 sim {:.2} ms lab {:.2} ms",
        s.0,
        l.0,
        1e3 * s.1,
        1e3 * l.1,
        1e3 * s.2,
        1e3 * l.2
    );
    assert_eq!(s.0, 250.0);
    assert_eq!(l.0, 250.0);
    assert!(l.1 >= s.1 - 0.001 && l.1 <= s.1 + 0.003, "mean latency: lab {:.4} s, simulator {:.4} s", l.1, s.1);
    assert!(l.2 <= s.2 + 0.005, "p95 latency: lab {:.4} s, simulator {:.4} s", l.2, s.2);
}
