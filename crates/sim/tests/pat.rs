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

use common::{f64s, load_err, mirrors_behind_dns, run_toml, strs, table};
use pathpool_sim::RunOutput;

/// `data/phone-two-mirrors.toml` with m1's delay stepping from 5 to 100 ms
/// at 3 s, the resolver's node (`data/dns-core.toml`), its answer and the
/// 16 MB content.
fn net() -> String {
    let m1 = "b = \"m1\"\nrate = \"100Mbps\"\ndelay = \"5ms\"\n";
    let topology = include_str!("data/phone-two-mirrors.toml");
    assert!(topology.contains(m1), "m1's link is in the template");
    let topology = topology.replace(m1, &m1.replace("\"5ms\"", r#"{ schedule = [["0s", "5ms"], ["3s", "100ms"]] }"#));
    mirrors_behind_dns("40s", &topology, r#"["m1", "m2"]"#, r#""16MB""#)
}

const FETCH: &str = "[[fetches]]\nname = \"dl\"\nclient = \"phone\"\ncontent = \"movie\"\nchunk = \"1MB\"\n";

fn run(policy: &str, pat: &str) -> RunOutput {
    run_toml(&format!("{}{FETCH}policy = \"{policy}\"\n{pat}", net()))
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
    let no_zone = net().replace("domain = \"cdn.example\"", "domain = \"other.example\"");
    let e = load_err(&format!("{no_zone}{FETCH}"));
    assert!(e.contains("contents[0].domain") && e.contains("no [[resolvers]] entry serves 'other.example'"), "{e}");
    let stranger = net().replace("mirrors = [\"m1\", \"m2\"]\nttl", "mirrors = [\"m1\", \"dns\"]\nttl");
    let e = load_err(&format!("{stranger}{FETCH}"));
    assert!(e.contains("answers 'dns', which does not hold content 'movie'"), "{e}");
    let e = load_err(&format!("{}{FETCH}resolver = \"public\"\n", net()));
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
    let base = net();
    let net = base.replace(lte, &format!("{lte}events = [{{ at = \"2s\", state = \"down\" }}, {{ at = \"30s\", state = \"up\" }}]\n"));
    assert_ne!(net, base);
    let out = run_toml(&format!("{net}{FETCH}policy = \"controller\"\n{PAT}"));
    let r = ranges(&out);
    assert_every_byte_once(&r, 16_000_000);
    assert!(r.iter().all(|x| x.3 != "lte0" || x.4 < 2.0), "a range went over the dead LTE link: {r:?}");
    let f = table(&out, "fetches");
    let done = f64s(f, "completion_s")[0];
    assert!(done < 30.0, "the download waited for the LTE link: {done} s");
}

/// The resume tests' network (`data/pat-resume.toml`): m1 over wlan0
/// (10 Mb/s) 22 ms, m2 over lte0 (20 Mb/s) 28 ms, then 3 ms from 1.9 s. A
/// 16 MB content in 2 MB ranges (1.7 s each over wlan0; the first one
/// completes before the first decision that could use a probe, so m1 has
/// its time-to-first-byte estimate by then): the crossing probe comes back
/// at 3.0 s and the decision at 4.0 s falls in the middle of the third
/// range (3.4–5.1 s).
const RESUME_NET: &str = concat!(
    "[sim]\nduration = \"30s\"\n",
    include_str!("data/pat-resume.toml"),
    r#"[[contents]]
name = "movie"
bytes = "16MB"
mirrors = ["m1", "m2"]
[[fetches]]
name = "dl"
client = "phone"
content = "movie"
chunk = "2MB"
policy = "controller"
[[controllers]]
host = "phone"
kind = "pat"
"#
);

/// One request's row: (offset or None, bytes, discarded, flow, mirror, sent_s, done_s).
type Row = (Option<u64>, u64, u64, u32, String, f64, f64);

fn rows(out: &RunOutput) -> Vec<Row> {
    let r = table(out, "fetch_requests");
    let (kind, off, len, gone) = (strs(r, "kind"), f64s(r, "offset"), f64s(r, "bytes"), f64s(r, "discarded_bytes"));
    let (flow, mirror, sent, done) = (f64s(r, "flow_id"), strs(r, "mirror"), f64s(r, "sent_s"), f64s(r, "done_s"));
    (0..kind.len())
        .map(|i| ((kind[i] == "range").then_some(off[i] as u64), len[i] as u64, gone[i] as u64, flow[i] as u32, mirror[i].clone(), sent[i], done[i]))
        .collect()
}

/// The remap: its time, the new connection's estimate and the current one's (ms), from PAT's log line.
fn the_remap(out: &RunOutput) -> (f64, f64, f64) {
    let log = table(out, "controller_log");
    let (times, details) = (f64s(log, "time_s"), strs(log, "detail"));
    let remaps: Vec<(f64, &String)> = times.iter().zip(&details).filter(|(_, d)| d.starts_with("remap")).map(|(&t, d)| (t, d)).collect();
    assert_eq!(remaps.len(), 1, "{remaps:?}");
    let ms: Vec<f64> = remaps[0].1.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert_eq!(ms.len(), 4, "conn, estimate, conn, estimate: {}", remaps[0].1);
    (remaps[0].0, ms[1], ms[3])
}

fn resume_run(remap_at: &str) -> RunOutput {
    run_toml(&format!("{RESUME_NET}[controllers.params]\nremap_at = \"{remap_at}\"\n"))
}

#[test]
fn resume_moves_the_rest_of_the_range_at_the_decision_and_delivers_every_byte_once() {
    let out = resume_run("resume");
    let f = table(&out, "fetches");
    assert_eq!((f64s(f, "bytes"), strs(f, "error"), f64s(f, "remaps")), (vec![16e6], vec![String::new()], vec![1.0]));
    let (remap_s, best_ms, current_ms) = the_remap(&out);
    let rows = rows(&out);
    let ranges: Vec<&Row> = rows.iter().filter(|r| r.0.is_some()).collect();
    // Every byte exactly once: the kept part of each range (bytes − discarded) tiles the content.
    let mut kept: Vec<(u64, u64)> = ranges.iter().map(|r| (r.0.unwrap(), r.1 - r.2)).filter(|k| k.1 > 0).collect();
    kept.sort();
    let mut at = 0;
    for (off, len) in kept {
        assert_eq!(off, at, "a gap or an overlap at {at}: {ranges:?}");
        at += len;
    }
    assert_eq!(at, 16_000_000);
    // One range cut mid-way, on m1: the rest asked of m2 at the decision itself.
    let cut: Vec<&&Row> = ranges.iter().filter(|r| r.2 > 0).collect();
    assert_eq!(cut.len(), 1, "{ranges:?}");
    let (off, len, gone, old_flow) = (cut[0].0.unwrap(), cut[0].1, cut[0].2, cut[0].3);
    assert!(cut[0].4 == "m1" && gone < len, "a range of m1 cut mid-way: {:?}", cut[0]);
    assert_eq!(cut[0].6, remap_s, "cut at the remap");
    let rest = ranges.iter().find(|r| r.4 == "m2").expect("a range on m2");
    assert_eq!((rest.0, rest.1, rest.5), (Some(off + len - gone), gone, remap_s), "the rest of the cut range, asked at the remap");
    assert!(ranges.iter().filter(|r| r.5 >= remap_s).all(|r| r.4 == "m2"), "{ranges:?}");
    // Counted: the discarded bytes in both tables and in the steer's log row.
    assert_eq!(f64s(f, "discarded_bytes"), [gone as f64]);
    let log = table(&out, "controller_log");
    let steer = strs(log, "detail").into_iter().find(|d| d.contains("cut after")).expect("the steer's note");
    assert!(steer.contains(&format!("range [{off}, {}) on conn {old_flow} cut after {} bytes, {gone} to discard", off + len, len - gone)), "{steer}");
    // The old connection drained them: it delivered every byte asked of it, the cut rest included.
    let asked_of_old: u64 = rows.iter().filter(|r| r.3 == old_flow).map(|r| r.1).sum();
    let flows = table(&out, "flows");
    assert_eq!(f64s(flows, "bytes_delivered")[old_flow as usize], asked_of_old as f64, "the drained bytes crossed the old connection");
    // Within one decision period of the crossing probe: replay m2's
    // smoothed estimate (RFC 6298 §2, α = 1/8) backwards from the remap's
    // logged value through its probes' round trips, and find the first
    // probe after which it was below m1's estimate.
    let new_flow = rest.3;
    let probes: Vec<(f64, f64)> = rows.iter().filter(|r| r.0.is_none() && r.3 == new_flow && r.6 <= remap_s).map(|r| (r.6, 1e3 * (r.6 - r.5))).collect();
    let mut after = vec![best_ms];
    for &(_, rtt) in probes.iter().rev() {
        let e = *after.last().unwrap();
        after.push((e - rtt / 8.0) * 8.0 / 7.0);
    }
    after.pop();
    after.reverse();
    let crossing = probes.iter().zip(&after).find(|(_, &e)| e < current_ms).map(|(p, _)| p.0).expect("a crossing probe");
    eprintln!(
        "FIGURE pat resume: crossing probe back at {crossing:.3} s, remap at {remap_s:.3} s ({best_ms:.3} < {current_ms:.3} ms), \
         range [{off}, {}) cut after {} bytes, {gone} discarded",
        off + len,
        len - gone
    );
    assert!(remap_s > 3.0 && remap_s - crossing <= 1.0 + 1e-9, "remap at {remap_s} s, crossing probe back at {crossing} s");
}

/// The same network with the paper's request-boundary remap: the same
/// decision at the same time, but the move waits for the cut range's
/// boundary and nothing is discarded; resuming finishes sooner.
#[test]
fn request_boundary_remaps_wait_for_the_range_and_discard_nothing() {
    let (by_request, resumed) = (resume_run("request"), resume_run("resume"));
    let (remap_s, ..) = the_remap(&by_request);
    assert_eq!(remap_s, the_remap(&resumed).0, "the same decision");
    let rows = rows(&by_request);
    assert!(rows.iter().all(|r| r.2 == 0));
    let first_m2 = rows.iter().find(|r| r.0.is_some() && r.4 == "m2").expect("a range on m2");
    let last_m1 = rows.iter().rfind(|r| r.0.is_some() && r.4 == "m1").expect("ranges on m1");
    assert!(last_m1.5 < remap_s && first_m2.5 >= last_m1.6 && first_m2.5 > remap_s + 0.5, "m1's last range {last_m1:?}, m2's first {first_m2:?}");
    let f = table(&by_request, "fetches");
    assert_eq!((f64s(f, "bytes"), f64s(f, "discarded_bytes")), (vec![16e6], vec![0.0]));
    let done = |o: &RunOutput| f64s(table(o, "fetches"), "completion_s")[0];
    eprintln!("FIGURE pat resume: download request {:.3} s, resume {:.3} s", done(&by_request), done(&resumed));
    assert!(done(&resumed) < done(&by_request), "request {} s, resume {} s", done(&by_request), done(&resumed));
}

#[test]
fn remap_at_takes_request_or_resume() {
    let e = load_err(&format!("{RESUME_NET}[controllers.params]\nremap_at = \"midway\"\n"));
    assert!(e.contains("controllers[0].params.remap_at") && e.contains("must be one of \"request\", \"resume\""), "{e}");
}
