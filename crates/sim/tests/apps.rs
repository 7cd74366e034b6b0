//! Applications on a persistent connection (`crate::app`, docs/apps.md),
//! checked against closed-form models on one constant-rate link.
//!
//! Shared notation: a link of rate C bit/s and one-way delay d (RTT = 2d),
//! MSS 1448 bytes and 52 header bytes, so a full segment is 1500 bytes on
//! the wire and takes ser = 1500·8/C to serialize. An object of B bytes is
//! S = ⌈B/1448⌉ segments.
//!
//! Slow start (the round model of Cardwell, Savage and Anderson, "Modeling
//! TCP Latency", INFOCOM 2000): from an initial window of 10 segments the
//! window doubles every round trip while it is below the path's BDP in
//! segments, W* = RTT/ser. Each such round costs one RTT; once the window
//! covers W*, the rest leaves back to back at C. So the time from the
//! server's first data segment to the client's last byte is
//!   T(S) = k·RTT + (S − Σ_{i<k} 10·2^i)·ser + d,
//! with k the number of rounds whose window 10·2^i < W* (and that the
//! object outlasts). With a window already open (a persistent connection
//! after its first object), k = 0.
//!
//! A request of 300 bytes (352 on the wire) reaches the server after
//! d + q, q = 352·8/C; the connection opens one RTT after the flow starts
//! (the handshake), and the first request leaves then.

mod common;
use common::{f64s, run_toml, table};

const MSS: f64 = 1448.0;
const WIRE: f64 = 1500.0;
const REQUEST_WIRE: f64 = 352.0;

/// A server and a phone joined by one link (both directions alike).
fn scenario(rate_bps: f64, delay_ms: u64, queue: u32, duration_s: u64, app: &str) -> String {
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
rate = "{rate_bps}bps"
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

/// T(S) above: seconds from the server's first data segment to the last byte's arrival.
fn transfer_time(bytes: f64, rate_bps: f64, rtt: f64, window_open: bool) -> f64 {
    let ser = WIRE * 8.0 / rate_bps;
    let bdp = rtt / ser;
    let mut left = (bytes / MSS).ceil();
    let mut t = 0.0;
    let mut w = 10.0;
    while !window_open && w < bdp && left > w {
        t += rtt;
        left -= w;
        w *= 2.0;
    }
    t + left * ser + rtt / 2.0
}

/// One request's one-way trip: propagation plus serialization.
fn request_time(rate_bps: f64, rtt: f64) -> f64 {
    rtt / 2.0 + REQUEST_WIRE * 8.0 / rate_bps
}

fn one(out: &pathpool_sim::RunOutput, col: &str) -> f64 {
    f64s(table(out, "apps"), col)[0]
}

/// Download: one 10 MB object on an idle 20 Mb/s path with a 40 ms RTT.
/// Fluid estimate from the request: q + d for the request, then T(S) with
/// S = 6907 segments, ser = 0.6 ms, W* = 66.7: rounds of 10, 20 and 40
/// segments (k = 3, 0.12 s), then 6837 segments at 20 Mb/s (4.1022 s) and
/// d: 0.02014 + 0.12 + 4.1022 + 0.02 = 4.2623 s. (Slow start overshoots the
/// 100-packet buffer and loses segments, but SACK recovery keeps the link
/// busy, so the fluid model still holds.)
#[test]
fn download_time_matches_the_fluid_model_with_slow_start() {
    let (rate, rtt) = (20e6, 0.040);
    let out = run_toml(&scenario(rate, 20, 100, 10, r#"{ kind = "download", size = "10MB" }"#));
    let expected = request_time(rate, rtt) + transfer_time(10e6, rate, rtt, false);
    assert!((expected - 4.2623).abs() < 1e-3, "{expected}");
    let measured = one(&out, "object_time_mean_s");
    eprintln!("download: {measured:.4} s, fluid model {expected:.4} s");
    assert_eq!(one(&out, "objects"), 1.0);
    assert!((measured - expected).abs() / expected < 0.05, "download took {measured:.4} s, fluid model {expected:.4} s");
    // The session, from the flow's start, adds the handshake.
    assert!((one(&out, "completion_s") - measured - rtt).abs() < 0.002);
}

/// Several objects in sequence on one connection, with a think time.
#[test]
fn objects_follow_one_another_on_one_connection() {
    let (rate, rtt) = (20e6, 0.040);
    let out = run_toml(&scenario(rate, 20, 100, 10, r#"{ kind = "download", size = "1MB", count = 3, think = "500ms", size_announced = false }"#));
    assert_eq!(one(&out, "objects"), 3.0);
    assert_eq!(one(&out, "bytes"), 3e6);
    let flows = table(&out, "flows");
    assert_eq!(f64s(flows, "bytes_delivered")[0], 3e6, "one connection carries all three");
    // Handshake, three objects and two think times.
    let expected = rtt + 2.0 * 0.5 + request_time(rate, rtt) * 3.0 + transfer_time(1e6, rate, rtt, false) + 2.0 * transfer_time(1e6, rate, rtt, true);
    let completion = one(&out, "completion_s");
    assert!((completion - expected).abs() / expected < 0.05, "{completion} vs {expected}");
}

/// A video at bitrate b over a link of 1.2·b never stalls, and the player
/// keeps its buffer under the maximum (10 s) by pausing until it has
/// drained to the low watermark (6 s).
#[test]
fn no_stall_when_the_link_is_faster_than_the_video() {
    let b = 2e6;
    let app = r#"{ kind = "video", bitrate = "2Mbps", segment = "2s", duration = "80s", max_buffer = "10s", low_watermark = "6s" }"#;
    let out = run_toml(&scenario(1.2 * b, 10, 100, 100, app));
    eprintln!("1.2 x bitrate: {} stalls, {} s", one(&out, "stalls"), one(&out, "stall_s"));
    assert_eq!(one(&out, "objects"), 40.0);
    assert_eq!(one(&out, "stalls"), 0.0);
    assert_eq!(one(&out, "stall_s"), 0.0);
    assert_eq!(one(&out, "mean_bitrate_bps"), b);
    let buffer = f64s(table(&out, "app_ts"), "buffer_s");
    let top = buffer.iter().cloned().fold(0.0, f64::max);
    // A segment is fetched only if it fits under the maximum: the buffer peaks between 8 and 10 s.
    assert!(top <= 10.0 + 1e-9 && top > 7.9, "buffer peaked at {top} s");
    let lowest_after_top = buffer.iter().skip_while(|&&x| x < top).cloned().take_while(|&x| x > 0.0).fold(top, f64::min);
    assert!(lowest_after_top < 6.5, "requests resume near the low watermark, lowest {lowest_after_top}");
}

/// A video at b = 2.5 Mb/s over a 2 Mb/s link (0.8·b), d = 10 ms: N = 30
/// segments of s = 2 s (625 kB each), start threshold one segment.
///
/// Fluid model: segment k+1 is requested when segment k has arrived, so
/// segments arrive every τ = q + T(S) with the window open (the link's BDP,
/// 3.3 segments, is below the initial window): τ = 2d + q + S·ser =
/// 0.02 + 0.0014 + 432·0.006 = 2.6134 s > s. The buffer holds one segment
/// at a time: it plays for s after each arrival and then stalls for τ − s
/// until the next (which at once meets the one-segment threshold). Hence
/// N − 1 = 29 stalls of total (N − 1)(τ − s) = 17.79 s. (Equivalently:
/// playback ends s after the last arrival, T_1 + (N − 1)τ + s, having shown
/// N·s seconds since T_1.)
#[test]
fn stall_time_matches_the_fluid_model_when_the_link_is_slower() {
    let (b, c, rtt, s, n) = (2.5e6, 2e6, 0.020, 2.0, 30.0);
    let out = run_toml(&scenario(c, 10, 100, 90, r#"{ kind = "video", bitrate = "2.5Mbps", segment = "2s", duration = "60s" }"#));
    let tau = request_time(c, rtt) + transfer_time(s * b / 8.0, c, rtt, true);
    let expected = (n - 1.0) * (tau - s);
    assert!((expected - 17.79).abs() < 0.01, "{expected}");
    assert_eq!(one(&out, "objects"), n);
    assert_eq!(one(&out, "stalls"), n - 1.0);
    let stall = one(&out, "stall_s");
    eprintln!("0.8 x bitrate: {} stalls, {stall:.3} s, fluid model {expected:.3} s", one(&out, "stalls"));
    assert!((stall - expected).abs() / expected < 0.10, "stalled {stall:.3} s, fluid model {expected:.3} s");
}

/// Startup delay: the time to fill the start threshold (two 2 s segments
/// at 2 Mb/s, 500 kB each, S = 346) on a 10 Mb/s link with a 40 ms RTT:
/// the handshake (RTT), then each segment's request (q + d) and transfer,
/// the first in slow start (W* = 33.3: rounds of 10 and 20, k = 2), the
/// second with the window open:
/// 0.04 + (0.0203 + 0.08 + 316·0.0012 + 0.02) + (0.0203 + 346·0.0012 + 0.02) = 0.995 s.
/// The model has no losses: the buffer (400 packets) holds what slow start
/// overshoots in the first segment. (With 100 packets it loses 44 segments
/// and waits for a retransmission timeout, 0.4 s more.)
#[test]
fn startup_delay_is_the_time_to_fill_the_start_threshold() {
    let (rate, rtt) = (10e6, 0.040);
    let app = r#"{ kind = "video", bitrate = "2Mbps", segment = "2s", duration = "20s", start_threshold = "4s" }"#;
    let out = run_toml(&scenario(rate, 20, 400, 30, app));
    let segment = 500e3;
    let expected = rtt
        + request_time(rate, rtt)
        + transfer_time(segment, rate, rtt, false)
        + request_time(rate, rtt)
        + transfer_time(segment, rate, rtt, true);
    assert!((expected - 0.995).abs() < 0.002, "{expected}");
    let startup = one(&out, "startup_s");
    eprintln!("startup: {startup:.4} s, expected {expected:.4} s");
    assert!((startup - expected).abs() <= rtt, "startup {startup:.4} s, expected {expected:.4} s ± one RTT");
}

/// A ladder under BBA: low rungs while the buffer is in the reservoir,
/// the top rung once it is past the cushion, and switches in between.
#[test]
fn bba_climbs_the_ladder_as_the_buffer_grows() {
    let app = r#"{ kind = "video", bitrates = ["1Mbps", "2Mbps", "4Mbps"], segment = "2s", duration = "100s" }"#;
    let out = run_toml(&scenario(10e6, 10, 100, 110, app));
    assert_eq!(one(&out, "stalls"), 0.0);
    assert!(one(&out, "switches") >= 2.0);
    let rate = f64s(table(&out, "app_ts"), "bitrate_bps");
    assert_eq!(rate.iter().cloned().find(|&r| r > 0.0), Some(1e6), "starts at the lowest rung");
    assert!(rate.contains(&4e6), "reaches the top rung");
}

/// Throughput-based choice on a 3 Mb/s link: it settles on the highest
/// rung below 0.9 of the measured throughput (2 Mb/s).
#[test]
fn throughput_rule_picks_the_rung_the_link_sustains() {
    let app = r#"{ kind = "video", bitrates = ["1Mbps", "2Mbps", "4Mbps"], segment = "2s", duration = "60s", abr = "throughput" }"#;
    let out = run_toml(&scenario(3e6, 10, 100, 80, app));
    let rate = f64s(table(&out, "app_ts"), "bitrate_bps");
    assert_eq!(*rate.last().unwrap(), 2e6);
    assert!(!rate.contains(&4e6));
    assert_eq!(one(&out, "stalls"), 0.0);
}

/// Requests lost on the way are sent again; the session still completes.
#[test]
fn lost_requests_are_resent() {
    let text = scenario(20e6, 20, 100, 20, r#"{ kind = "download", size = "100kB", count = 20 }"#)
        .replace("queue = 100", "queue = 100\nb_to_a = { loss = { model = \"bernoulli\", p = 0.3 } }");
    let out = run_toml(&text);
    assert_eq!(one(&out, "objects"), 20.0);
    assert!(one(&out, "requests_resent") > 0.0);
}

/// Interactive messages: 200 bytes every 20 ms (400 of them) on an idle 10 Mb/s
/// link with d = 25 ms. Each message is one segment (252 bytes on the wire)
/// that finds the link idle: its one-way latency is d + 252·8/C = 25.2 ms.
#[test]
fn interactive_messages_have_the_one_way_latency() {
    let app = r#"{ kind = "interactive", message = "200B", interval = "20ms", count = 400 }"#;
    let out = run_toml(&scenario(10e6, 25, 100, 10, app));
    let expected = 0.025 + 252.0 * 8.0 / 10e6;
    assert_eq!(one(&out, "objects"), 400.0);
    let (mean, p95) = (one(&out, "object_time_mean_s"), one(&out, "object_time_p95_s"));
    eprintln!("interactive: latency mean {mean:.5} s, p95 {p95:.5} s, model {expected:.5} s");
    assert!((mean - expected).abs() < 1e-4 && (p95 - expected).abs() < 1e-4);
    // 400 messages from 50 ms on, one every 20 ms: the last is written at 8.03 s.
    assert!((one(&out, "completion_s") - (0.05 + 399.0 * 0.02 + expected)).abs() < 1e-4);
}

/// Over MPTCP the requests follow the connection's subflows: with Wi-Fi
/// down for 15 s and at most 8 s buffered, a 2 Mb/s video keeps playing
/// from LTE (5 Mb/s) only if its requests go over the LTE subflow (routed
/// by node, they would take the shorter Wi-Fi path and be lost).
#[test]
fn mptcp_requests_use_a_working_subflow() {
    let text = r#"
[sim]
duration = "60s"
[[nodes]]
name = "server"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "phone"
[[links]]
a = "server"
b = "r"
rate = "1Gbps"
delay = "5ms"
[[links]]
name = "wifi"
a = "r"
b = "phone:wlan0"
rate = "10Mbps"
delay = "5ms"
events = [{ at = "10s", state = "down" }, { at = "25s", state = "up" }]
[[links]]
name = "lte"
a = "r"
b = "phone:rmnet0"
rate = "5Mbps"
delay = "25ms"
[[flows]]
src = "server"
dst = "phone"
client = "dst"
transport = "mptcp"
app = { kind = "video", bitrate = "2Mbps", segment = "2s", duration = "50s", max_buffer = "8s" }
"#;
    let out = run_toml(text);
    assert_eq!(one(&out, "objects"), 25.0);
    assert_eq!(one(&out, "stalls"), 0.0);
}
