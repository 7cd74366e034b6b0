//! PAT (`kind = "pat"`, docs/pat.md) on a fetch session whose best mirror
//! changes mid-download, beside the default policy (an Android phone: the
//! first address of its resolver's answer over Wi-Fi), with the same DNS.
//!
//! The network: the phone's wlan0 (10 Mb/s, 5 ms) and lte0 (10 Mb/s,
//! 20 ms) reach a core router over 1 ms links; mirror m1 is 5 ms from the
//! core until 3 s, then 100 ms; m2 is 10 ms. Round trips over wlan0: m1
//! 22 ms, then 212 ms; m2 32 ms. The resolver (1 ms from the core) answers
//! m1, m2 in that order.

mod common;

use common::{f64s, load_err, run_toml, strs, table};
use pathpool_sim::RunOutput;

const NET: &str = r#"
[sim]
duration = "40s"
[[nodes]]
name = "phone"
[[nodes]]
name = "wr"
kind = "router"
[[nodes]]
name = "lr"
kind = "router"
[[nodes]]
name = "core"
kind = "router"
[[nodes]]
name = "m1"
[[nodes]]
name = "m2"
[[nodes]]
name = "dns"
[[links]]
a = "phone:wlan0"
b = "wr"
rate = "10Mbps"
delay = "5ms"
queue = 4000
[[links]]
a = "phone:lte0"
b = "lr"
rate = "10Mbps"
delay = "20ms"
queue = 4000
[[links]]
a = "wr"
b = "core"
rate = "100Mbps"
delay = "1ms"
queue = 4000
[[links]]
a = "lr"
b = "core"
rate = "100Mbps"
delay = "1ms"
queue = 4000
[[links]]
a = "core"
b = "m1"
rate = "100Mbps"
delay = { schedule = [["0s", "5ms"], ["3s", "100ms"]] }
queue = 4000
[[links]]
a = "core"
b = "m2"
rate = "100Mbps"
delay = "10ms"
queue = 4000
[[links]]
a = "core"
b = "dns"
rate = "100Mbps"
delay = "1ms"
[[resolvers]]
name = "local"
node = "dns"
[resolvers.domains."cdn.example"]
mirrors = ["m1", "m2"]
ttl = "60s"
[[contents]]
name = "movie"
bytes = "16MB"
mirrors = ["m1", "m2"]
domain = "cdn.example"
"#;

const FETCH: &str = "[[fetches]]\nname = \"dl\"\nclient = \"phone\"\ncontent = \"movie\"\nchunk = \"1MB\"\n";

fn run(policy: &str, pat: &str) -> RunOutput {
    run_toml(&format!("{NET}{FETCH}policy = \"{policy}\"\n{pat}"))
}

const PAT: &str = "[[controllers]]\nhost = \"phone\"\nkind = \"pat\"\n[controllers.params]\nresolvers = \"local\"\n";

/// Content ranges (offset, bytes, mirror, interface, sent_s) in the order sent.
fn ranges(out: &RunOutput) -> Vec<(u64, u64, String, String, f64)> {
    let r = table(out, "fetch_requests");
    let (kind, off, len, mirror, iface, sent) = (strs(r, "kind"), f64s(r, "offset"), f64s(r, "bytes"), strs(r, "mirror"), strs(r, "interface"), f64s(r, "sent_s"));
    (0..kind.len()).filter(|&i| kind[i] == "range").map(|i| (off[i] as u64, len[i] as u64, mirror[i].clone(), iface[i].clone(), sent[i])).collect()
}

fn assert_every_byte_once(ranges: &[(u64, u64, String, String, f64)], total: u64) {
    let mut r: Vec<(u64, u64)> = ranges.iter().map(|x| (x.0, x.1)).collect();
    r.sort();
    let mut at = 0;
    for (off, len) in r {
        assert_eq!(off, at, "a gap or an overlap at {at}");
        at += len;
    }
    assert_eq!(at, total);
}

#[test]
fn pat_moves_to_the_mirror_that_became_best_and_delivers_every_byte_once() {
    let out = run("controller", PAT);
    let f = table(&out, "fetches");
    assert_eq!(f64s(f, "bytes"), [16e6]);
    assert_eq!(strs(f, "error"), [""]);
    let pat_s = f64s(f, "completion_s")[0];
    assert!(pat_s.is_finite());
    let r = ranges(&out);
    assert_every_byte_once(&r, 16_000_000);
    // Before the step the best is m1 over wlan0 (22 ms against 32, 52, 62).
    assert!(r.iter().filter(|x| x.4 < 3.0).all(|x| (x.2.as_str(), x.3.as_str()) == ("m1", "wlan0")), "{r:?}");
    // After the step PAT moves to m2, over lte0: its probes over wlan0
    // wait behind the download's own data in the Wi-Fi link's queue (the
    // phone's own bufferbloat), so m2 over wlan0 measures about a range's
    // transfer time, and m2 over lte0 its 62 ms. m1's estimate (RFC 6298's
    // α = 1/8) rises from 22 ms past 62 ms with the third time-to-first-byte
    // sample after 3 s (22 → 46 → 67 ms with samples of 214 ms); a sample
    // comes with each 1 MB range, 0.8 s at 10 Mb/s plus a round trip of at
    // most 212 ms and the request's way. The decision follows within one
    // period (1 s), the first moved request at the next range boundary.
    let range_s = 0.8 + 0.212 + 0.04;
    let log = table(&out, "controller_log");
    let (times, details) = (f64s(log, "time_s"), strs(log, "detail"));
    let remaps: Vec<(f64, &String)> = times.iter().zip(&details).filter(|(_, d)| d.starts_with("remap")).map(|(&t, d)| (t, d)).collect();
    assert_eq!(remaps.len(), 1, "{remaps:?}");
    let steer_at = remaps[0].0;
    assert!(steer_at > 3.0 && steer_at <= 3.0 + 3.0 * range_s + 1.0, "remapped at {steer_at} s: {}", remaps[0].1);
    let moved = r.iter().find(|x| x.4 >= 3.0 && x.2 == "m2").unwrap_or_else(|| panic!("no request went to m2: {r:?}"));
    assert_eq!(moved.3, "lte0");
    assert!(moved.4 >= steer_at && moved.4 <= steer_at + range_s, "first request on m2 at {} s, steer at {steer_at} s", moved.4);
    // Nothing went back to m1 after the move.
    assert!(r.iter().filter(|x| x.4 >= moved.4).all(|x| x.2 == "m2"), "{r:?}");
    assert_eq!(f64s(f, "remaps"), [1.0]);
    // Every mirror over every interface: 4 connections; probes on the idle
    // ones, counted apart from the content (100 + 300 bytes each).
    assert_eq!(f64s(f, "connections"), [4.0]);
    let (probes, probe_bytes) = (f64s(f, "probes")[0], f64s(f, "probe_bytes")[0]);
    assert!(probes > 0.0 && probe_bytes == 400.0 * probes, "{probes} probes, {probe_bytes} bytes");

    // The default policy, same DNS: m1 over wlan0 throughout, one round trip
    // per 1 MB range at 212 ms after the step instead of 32: slower.
    let out = run("default", "");
    let f = table(&out, "fetches");
    let default_s = f64s(f, "completion_s")[0];
    let r = ranges(&out);
    assert_every_byte_once(&r, 16_000_000);
    assert!(r.iter().all(|x| (x.2.as_str(), x.3.as_str()) == ("m1", "wlan0")));
    assert_eq!(f64s(f, "connections"), [1.0]);
    // 16 ranges, about 12 of them after the step, each 0.18 s later to start.
    assert!(default_s - pat_s > 1.0, "PAT {pat_s} s, default {default_s} s");
    let dns = table(&out, "dns");
    assert_eq!((strs(dns, "resolver"), strs(dns, "answer")), (vec!["local".to_string()], vec!["m1,m2".to_string()]));
}

#[test]
fn probing_stops_with_the_download() {
    let out = run("controller", PAT);
    let f = table(&out, "fetches");
    let end = f64s(f, "start_s")[0] + f64s(f, "completion_s")[0];
    let r = table(&out, "fetch_requests");
    let last_probe = strs(r, "kind").iter().zip(f64s(r, "sent_s")).filter(|(k, _)| *k == "probe").map(|(_, t)| t).fold(0.0, f64::max);
    assert!(last_probe > 0.0 && last_probe <= end, "a probe at {last_probe} s, the download ended at {end} s");
}

#[test]
fn dns_mistakes_are_refused_before_the_run() {
    let no_zone = NET.replace("domain = \"cdn.example\"", "domain = \"other.example\"");
    let e = load_err(&format!("{no_zone}{FETCH}"));
    assert!(e.contains("contents[0].domain") && e.contains("no [[resolvers]] entry serves 'other.example'"), "{e}");
    let stranger = NET.replace("mirrors = [\"m1\", \"m2\"]\nttl", "mirrors = [\"m1\", \"dns\"]\nttl");
    let e = load_err(&format!("{stranger}{FETCH}"));
    assert!(e.contains("answers 'dns', which does not hold content 'movie'"), "{e}");
    let e = load_err(&format!("{NET}{FETCH}resolver = \"public\"\n"));
    assert!(e.contains("fetches[0].resolver") && e.contains("unknown resolver 'public'"), "{e}");
}

/// A probe that goes unanswered is evidence too: a connection whose probe has
/// been out longer than its estimate has at least that round trip now. Here
/// the LTE link goes down at 2 s, before m1's delay rises at 3 s: m2 over lte0
/// keeps its old 62 ms estimate (its probe never comes back), and a PAT that
/// trusted it would move the download onto a dead link, where the next
/// range would wait until the link returns at 30 s.
#[test]
fn pat_does_not_move_to_a_connection_whose_probe_is_overdue() {
    let lte = "a = \"phone:lte0\"\nb = \"lr\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 4000\n";
    let net = NET.replace(lte, &format!("{lte}events = [{{ at = \"2s\", state = \"down\" }}, {{ at = \"30s\", state = \"up\" }}]\n"));
    assert_ne!(net, NET);
    let out = run_toml(&format!("{net}{FETCH}policy = \"controller\"\n{PAT}"));
    let r = ranges(&out);
    assert_every_byte_once(&r, 16_000_000);
    assert!(r.iter().all(|x| x.3 != "lte0" || x.4 < 2.0), "a range went over the dead LTE link: {r:?}");
    let f = table(&out, "fetches");
    let done = f64s(f, "completion_s")[0];
    assert!(done < 30.0, "the download waited for the LTE link: {done} s");
}
