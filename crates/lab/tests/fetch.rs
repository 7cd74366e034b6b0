//! Fetch sessions on the kernel lab (issues 14 and 16): the simulator's
//! session ledger and PAT controller run unchanged over real TCP
//! connections bound to the phone's interfaces (`run/control/fetch.rs`),
//! mirrors answering byte ranges with generated content that the client
//! checks byte by byte (`traffic/content.rs`), and both planes give the
//! same `fetches` / `fetch_requests` rows and the same PAT decisions. They
//! need root and a kernel with MPTCP, and say SKIPPED otherwise.
//!
//! The network is `crates/sim/tests/pat.rs`'s without its resolver (the
//! content has no domain, so sessions and PAT take the content's mirrors;
//! lookups on the lab: `tests/dns.rs`, `tests/pat.rs`): the phone's wlan0 (10 Mb/s, 5 ms) and lte0
//! (10 Mb/s, 20 ms) reach a core router over 1 ms links; mirror m1 is 5 ms
//! from the core (100 ms from 3 s on with `STEP`), m2 10 ms. Round trips
//! over wlan0: m1 22 ms (212 ms after the step), m2 32 ms; over lte0 52
//! and 62 ms.

mod common;

use common::{f64s, lab, runnable, strs, table};
use pathpool_sim::metrics::Table;

const TOPOLOGY: &str = include_str!("../../sim/tests/data/phone-two-mirrors.toml");

/// The simulator's fetch-test network (`crates/sim/tests/data/phone-two-mirrors.toml`)
/// with m1's delay `m1_delay` (a TOML value) and a content of `bytes`.
fn net(m1_delay: &str, bytes: &str, duration_s: u64) -> String {
    let m1 = "b = \"m1\"\nrate = \"100Mbps\"\ndelay = \"5ms\"";
    assert!(TOPOLOGY.contains(m1), "m1's link is in the template");
    let topology = TOPOLOGY.replace(m1, &m1.replace("\"5ms\"", m1_delay));
    format!(
        r#"
[sim]
duration = "{duration_s}s"
{topology}[[contents]]
name = "movie"
bytes = "{bytes}"
mirrors = ["m1", "m2"]
[[fetches]]
name = "dl"
client = "phone"
content = "movie"
chunk = "1MB"
"#
    )
}

const STEP: &str = r#"{ schedule = [["0s", "5ms"], ["3s", "100ms"]] }"#;
const PAT: &str = "policy = \"controller\"\n[[controllers]]\nhost = \"phone\"\nkind = \"pat\"\n";

fn both(toml: &str) -> (Vec<Table>, Vec<Table>) {
    let sim = pathpool_sim::run(&common::model(toml), &mut |_| {}).tables;
    let lab = lab(toml).unwrap_or_else(|e| panic!("{e}")).tables;
    (sim, lab)
}

/// Content ranges (offset, bytes, mirror, interface, sent_s), in the order sent.
fn ranges(t: &[Table]) -> Vec<(u64, u64, String, String, f64)> {
    let r = table(t, "fetch_requests");
    let (kind, off, len) = (strs(r, "kind"), f64s(r, "offset"), f64s(r, "bytes"));
    let (mirror, iface, sent) = (strs(r, "mirror"), strs(r, "interface"), f64s(r, "sent_s"));
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

/// The controller's actions but probes, logs and timers: (action, flow).
fn decisions(t: &[Table]) -> Vec<(String, String)> {
    let log = table(t, "controller_log");
    let (action, flow, outcome) = (strs(log, "action"), strs(log, "flow"), strs(log, "outcome"));
    let kept = |i: &usize| !["probe", "log", "arm_timer"].contains(&action[*i].as_str());
    (0..action.len()).filter(kept).map(|i| (action[i].clone(), format!("{} {}", flow[i], outcome[i]))).collect()
}

fn completion(t: &[Table]) -> f64 {
    f64s(table(t, "fetches"), "completion_s")[0]
}

/// The default policy (the first mirror over the preferred interface, wlan0):
/// 4 MB in four 1 MB ranges from m1, one round trip per range boundary.
/// The mirror's bytes arrive intact (the client compares each with the
/// content's, and a difference fails the run) and exactly once.
#[test]
fn a_download_takes_as_long_as_in_the_simulator() {
    if !runnable("a_download_takes_as_long_as_in_the_simulator") {
        return;
    }
    let (sim, lab) = both(&net("\"5ms\"", "4MB", 10));
    let (s, l) = (completion(&sim), completion(&lab));
    eprintln!("FIGURE lab fetch 4 MB default policy: completion sim {s:.3} s lab {l:.3} s ({:+.1} %)", 100.0 * (l - s) / s);
    for t in [&sim, &lab] {
        let f = table(t, "fetches");
        assert_eq!((f64s(f, "bytes"), strs(f, "error"), f64s(f, "connections")), (vec![4e6], vec![String::new()], vec![1.0]));
        let r = ranges(t);
        assert_every_byte_once(&r, 4_000_000);
        assert!(r.iter().all(|x| (x.2.as_str(), x.3.as_str()) == ("m1", "wlan0")), "{r:?}");
    }
    // Issue 16: download time within 15 % of the simulator's.
    assert!((l - s).abs() <= 0.15 * s, "completion sim {s:.3} s, lab {l:.3} s");
}

/// PAT over every mirror and interface, m1's delay rising at 3 s: both
/// planes open the same four connections, map the download to m1 over
/// wlan0, and remap it once, to m2 over lte0 (its probes over wlan0 wait
/// behind the download's data in the Wi-Fi queue, `crates/sim/tests/pat.rs`).
#[test]
fn pat_takes_the_same_decisions_on_both_planes() {
    if !runnable("pat_takes_the_same_decisions_on_both_planes") {
        return;
    }
    let (sim, lab) = both(&format!("{}{PAT}", net(STEP, "16MB", 40)));
    let (s, l) = (completion(&sim), completion(&lab));
    let remap_at = |t: &[Table]| {
        let log = table(t, "controller_log");
        let (time, detail) = (f64s(log, "time_s"), strs(log, "detail"));
        time.iter().zip(&detail).filter(|(_, d)| d.starts_with("remap")).map(|(&t, d)| (t, d.clone())).collect::<Vec<_>>()
    };
    let (sr, lr) = (remap_at(&sim), remap_at(&lab));
    let probes = |t: &[Table]| f64s(table(t, "fetches"), "probes")[0];
    eprintln!(
        "FIGURE lab fetch 16 MB PAT: completion sim {s:.3} s lab {l:.3} s ({:+.1} %); remaps sim {sr:?} lab {lr:?}; probes sim {} lab {}",
        100.0 * (l - s) / s,
        probes(&sim),
        probes(&lab)
    );
    assert_eq!(decisions(&lab), decisions(&sim), "the controller's decisions differ");
    for t in [&sim, &lab] {
        let f = table(t, "fetches");
        assert_eq!((f64s(f, "bytes"), strs(f, "error"), f64s(f, "connections"), f64s(f, "remaps")), (vec![16e6], vec![String::new()], vec![4.0], vec![1.0]));
        let r = ranges(t);
        assert_every_byte_once(&r, 16_000_000);
        assert!(r.iter().filter(|x| x.4 < 3.0).all(|x| (x.2.as_str(), x.3.as_str()) == ("m1", "wlan0")), "{r:?}");
        let last = r.last().expect("ranges");
        assert_eq!((last.2.as_str(), last.3.as_str()), ("m2", "lte0"), "{r:?}");
    }
    assert!((l - s).abs() <= 0.15 * s, "completion sim {s:.3} s, lab {l:.3} s");
}

/// PAT's `remap_at = "resume"` (docs/pat.md) on both planes, on the
/// resume network of `crates/sim/tests/pat.rs` (`data/pat-resume.toml`: m1
/// over wlan0 at 10 Mb/s, 22 ms; m2 over lte0 at 20 Mb/s, 28 ms, then 3 ms
/// from 1.9 s): a 64 MB download in 2 MB ranges; the decision to move to
/// m2 (4.0 s in the simulator) comes in the middle of the third range. Both planes cut that range
/// on m1 once, ask m2 for its rest at the decision, and deliver every byte
/// once; the lab client checks every byte it reads against the content,
/// the drained rest on m1 included (a difference fails the run).
#[test]
fn pat_resumes_the_range_on_the_new_connection_on_both_planes() {
    if !runnable("pat_resumes_the_range_on_the_new_connection_on_both_planes") {
        return;
    }
    let net = include_str!("../../sim/tests/data/pat-resume.toml");
    let session = "[[contents]]\nname = \"movie\"\nbytes = \"64MB\"\nmirrors = [\"m1\", \"m2\"]\n\
                   [[fetches]]\nname = \"dl\"\nclient = \"phone\"\ncontent = \"movie\"\nchunk = \"2MB\"\npolicy = \"controller\"\n\
                   [[controllers]]\nhost = \"phone\"\nkind = \"pat\"\nparams = { remap_at = \"resume\" }\n";
    let (sim, lab) = both(&format!("[sim]\nduration = \"45s\"\n{net}{session}"));
    let (s, l) = (completion(&sim), completion(&lab));
    let cut = |t: &[Table]| {
        let r = table(t, "fetch_requests");
        let (gone, len, off, mirror) = (f64s(r, "discarded_bytes"), f64s(r, "bytes"), f64s(r, "offset"), strs(r, "mirror"));
        (0..gone.len()).filter(|&i| gone[i] > 0.0).map(|i| (off[i] as u64, len[i] as u64, gone[i] as u64, mirror[i].clone())).collect::<Vec<_>>()
    };
    let (sc, lc) = (cut(&sim), cut(&lab));
    eprintln!(
        "FIGURE lab fetch 64 MB PAT resume: completion sim {s:.3} s lab {l:.3} s ({:+.1} %); cut (offset, bytes, discarded, mirror) sim {sc:?} lab {lc:?}",
        100.0 * (l - s) / s
    );
    assert_eq!(decisions(&lab), decisions(&sim), "the controller's decisions differ");
    for (t, cuts) in [(&sim, &sc), (&lab, &lc)] {
        let f = table(t, "fetches");
        assert_eq!((f64s(f, "bytes"), strs(f, "error"), f64s(f, "remaps")), (vec![64e6], vec![String::new()], vec![1.0]));
        assert_eq!(cuts.len(), 1, "one range cut: {cuts:?}");
        let (off, len, gone, ref mirror) = cuts[0];
        assert!(mirror == "m1" && gone > 0 && gone < len, "cut mid-way on m1: {cuts:?}");
        assert_eq!(f64s(f, "discarded_bytes"), [gone as f64]);
        // The kept part of each range (bytes − discarded) tiles the content: every byte once.
        let r = ranges(t);
        let gone_at = |x: &(u64, u64, String, String, f64)| if x.0 == off && x.2 == "m1" { gone } else { 0 };
        let kept: Vec<(u64, u64, String, String, f64)> = r.iter().map(|x| (x.0, x.1 - gone_at(x), x.2.clone(), x.3.clone(), x.4)).filter(|x| x.1 > 0).collect();
        assert_every_byte_once(&kept, 64_000_000);
        let rest = r.iter().find(|x| x.2 == "m2").expect("a range on m2");
        assert_eq!((rest.0, rest.1, rest.3.as_str()), (off + len - gone, gone, "lte0"), "the rest of the cut range first, on m2 over lte0");
    }
    // A byte differing from the content fails its flow, and the lab run with it (`both` panics).
    assert!((l - s).abs() <= 0.15 * s, "completion sim {s:.3} s, lab {l:.3} s");
}

/// A page on the lab (`[[pages]]`, docs/apps.md#web-page-loads): a 10 kB
/// document and twelve 10 kB objects it references, from one server
/// R = 2·(10 + 10) = 40 ms away at 100 Mb/s, under the default policy (a
/// browser's six connections per server, `crates/sim/tests/pages.rs`
/// without the lookup): handshake and document 2R, then the document's
/// connection takes the first object while five more open, so the twelve
/// take 3R: 5R = 0.200 s. Both planes: six connections, every object
/// whole, page load time within 15 %.
#[test]
fn a_page_loads_as_fast_as_in_the_simulator() {
    if !runnable("a_page_loads_as_fast_as_in_the_simulator") {
        return;
    }
    let mut toml = String::from(
        r#"
[sim]
duration = "3s"
[[nodes]]
name = "phone"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "s"
[[links]]
a = "phone"
b = "r"
rate = "100Mbps"
delay = "10ms"
[[links]]
a = "r"
b = "s"
rate = "100Mbps"
delay = "10ms"
[[contents]]
name = "index"
bytes = "10kB"
mirrors = ["s"]
"#,
    );
    let mut objects = vec!["{ content = \"index\" }".to_string()];
    for i in 0..12 {
        toml += &format!("[[contents]]\nname = \"o{i}\"\nbytes = \"10kB\"\nmirrors = [\"s\"]\n");
        objects.push(format!("{{ content = \"o{i}\" }}"));
    }
    toml += &format!("[[pages]]\nname = \"p\"\nclient = \"phone\"\nobjects = [{}]\n", objects.join(", "));
    let (sim, lab) = both(&toml);
    let load = |t: &[Table]| f64s(table(t, "pages"), "load_s")[0];
    let (s, l) = (load(&sim), load(&lab));
    let reused = |t: &[Table]| match common::column(table(t, "page_objects"), "reused") {
        pathpool_sim::metrics::Column::Bool(v) => v.iter().filter(|&&b| b).count(),
        other => panic!("reused: {other:?}"),
    };
    eprintln!(
        "FIGURE lab page 1 + 12 objects: load sim {s:.4} s lab {l:.4} s ({:+.1} %); objects on a reused connection sim {} lab {}",
        100.0 * (l - s) / s,
        reused(&sim),
        reused(&lab)
    );
    for t in [&sim, &lab] {
        let p = table(t, "pages");
        assert_eq!((f64s(p, "bytes"), f64s(p, "connections"), strs(p, "error")), (vec![130e3], vec![6.0], vec![String::new()]));
    }
    assert!((l - s).abs() <= 0.15 * s, "page load sim {s:.4} s, lab {l:.4} s");
}

/// Arrivals on the lab (`[[arrivals]]`, docs/apps.md#arrivals): 200 kB
/// downloads arriving at 4 per second over 3 s (the same draws on both
/// planes: the scenario's seed), from one server R = 40 ms away over a
/// 20 Mb/s link they share. Every session completes on both planes, and
/// the mean download time is within 15 %.
#[test]
fn arrivals_download_as_fast_as_in_the_simulator() {
    if !runnable("arrivals_download_as_fast_as_in_the_simulator") {
        return;
    }
    let toml = r#"
[sim]
duration = "6s"
[[nodes]]
name = "phone"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "s"
[[links]]
a = "phone"
b = "r"
rate = "20Mbps"
delay = "10ms"
[[links]]
a = "r"
b = "s"
rate = "100Mbps"
delay = "10ms"
[[arrivals]]
name = "users"
clients = ["phone"]
mirrors = ["s"]
rate = 4
stop = "3s"
size = { dist = "fixed", bytes = "200kB" }
"#;
    let (sim, lab) = both(toml);
    let times = |t: &[Table]| f64s(table(t, "fetches"), "completion_s");
    let (s, l) = (times(&sim), times(&lab));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let gap = 100.0 * (mean(&l) - mean(&s)) / mean(&s);
    eprintln!("FIGURE lab arrivals: {} sessions; mean completion sim {:.4} s lab {:.4} s ({gap:+.1} %)", s.len(), mean(&s), mean(&l));
    assert!(!s.is_empty() && s.len() == l.len());
    assert!(s.iter().chain(&l).all(|x| x.is_finite()), "every session completes: sim {s:?} lab {l:?}");
    assert!((mean(&l) - mean(&s)).abs() <= 0.15 * mean(&s), "sim {s:?} lab {l:?}");
}

/// PAT on a page (docs/pat.md#pages), the simulator's
/// `pat_steers_a_page_to_the_faster_path` on the lab: a document and six
/// 10 kB objects under a domain the lab's resolver (dnsmasq) serves, one
/// server over Wi-Fi (100 ms round trip, preferred) and LTE (40 ms). The
/// default policy loads over Wi-Fi; PAT connects over both and maps every
/// object to LTE. Both planes: the same interfaces, every object whole, PAT
/// faster than the default, page load time within 15 %.
#[test]
fn pat_steers_a_page_as_in_the_simulator() {
    if !runnable("pat_steers_a_page_as_in_the_simulator") {
        return;
    }
    let mut contents = String::from("[[contents]]\nname = \"index\"\nbytes = \"10kB\"\nmirrors = [\"s1\"]\ndomain = \"www.example\"\n");
    let mut objects = vec!["{ content = \"index\" }".to_string()];
    for i in 0..6 {
        contents += &format!("[[contents]]\nname = \"o{i}\"\nbytes = \"10kB\"\nmirrors = [\"s1\"]\ndomain = \"www.example\"\n");
        objects.push(format!("{{ content = \"o{i}\" }}"));
    }
    let page = |policy: &str| {
        let net = include_str!("../../sim/tests/data/page-two-paths.toml").replace("duration = \"10s\"", "duration = \"3s\"");
        format!("{net}{contents}[[pages]]\nname = \"p\"\nclient = \"c\"\nobjects = [{}]\npolicy = \"{policy}\"\n", objects.join(", "))
    };
    let pat = page("controller") + "[[controllers]]\nhost = \"c\"\nkind = \"pat\"\n[controllers.params]\nresolvers = \"local\"\n";
    let load = |t: &[Table]| f64s(table(t, "pages"), "load_s")[0];
    let mut loads = Vec::new();
    for (name, toml) in [("default", page("default")), ("PAT", pat)] {
        let (sim, lab) = both(&toml);
        let (s, l) = (load(&sim), load(&lab));
        eprintln!("FIGURE lab page over two paths, {name}: load sim {s:.4} s lab {l:.4} s ({:+.1} %)", 100.0 * (l - s) / s);
        let interfaces = |t: &[Table]| strs(table(t, "page_objects"), "interface");
        assert_eq!(interfaces(&lab), interfaces(&sim), "{name}: the objects' interfaces");
        for t in [&sim, &lab] {
            let p = table(t, "pages");
            assert_eq!((f64s(p, "bytes"), strs(p, "error")), (vec![70e3], vec![String::new()]), "{name}");
        }
        assert!((l - s).abs() <= 0.15 * s, "{name}: page load sim {s:.4} s, lab {l:.4} s");
        loads.push(l);
    }
    assert!(loads[1] < 0.8 * loads[0], "on the lab PAT {} s should beat the default {} s", loads[1], loads[0]);
}
