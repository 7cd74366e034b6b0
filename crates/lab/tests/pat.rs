//! PAT's Fig. 11 on the kernel lab (issue 16; docs/reproductions/pat.md,
//! "Kernel lab"): the setup of `validation/pat_paper.py` (`fig11_network`)
//! at lab rates, with a real dnsmasq as the resolver, real TCP connections
//! bound to the phone's two interfaces and PAT's real remaps; the download
//! time with and without PAT beside the simulator's on the same scenario
//! (the target: within 15 %). They need root, a kernel with MPTCP
//! and dnsmasq, and say SKIPPED otherwise.
//!
//! Lab rates: Wi-Fi and 5G at 20 Mb/s (the paper's setup has 200 Mb/s,
//! above what the emulator carries on this machine, docs/lab-emulator.md),
//! radio queues of 50 ms at that rate; the five mirrors' access delays are
//! drawn every 2 s from `pat_paper.py`'s ranges by the test's own seeded
//! generator (splitmix64), so the schedules are not the Python's. The
//! resolver answers by interface as `pat_paper.py`'s does: Wi-Fi clients
//! m3, m4, m5, m1, m2, 5G clients the operator's order m1, m2, m5, m3, m4
//! (on the lab one dnsmasq per answer set, `dns/server.rs`); both planes
//! run this one scenario.

mod common;

use common::{f64s, lab, runnable, strs, table};
use pathpool_sim::metrics::Table;

/// Mirror, its site, and the range of its access link's one-way delay (ms): `pat_paper.py`'s `MIRRORS`.
const MIRRORS: [(&str, &str, f64, f64); 5] =
    [("m1", "gnb", 1.0, 20.0), ("m2", "gnb", 5.0, 25.0), ("m3", "ap", 1.0, 20.0), ("m4", "ap", 5.0, 25.0), ("m5", "internet", 10.0, 30.0)];
/// Seconds between two draws of a mirror's delay (`pat_paper.py`'s `STEP`).
const STEP_S: f64 = 2.0;
const RATE_BPS: f64 = 20e6;

/// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): uniform draws in [0, 1).
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as f64 / 2f64.powi(64)
    }
}

/// The scenario of a `size_mb` download by `scheme` (`default` or `pat`).
fn scenario(size_mb: u64, scheme: &str, seed: u64) -> String {
    // Long enough for the slowest scheme: the transfer at 20 Mb/s and 0.1 s per 1 MB range, doubled.
    let duration = (2.0 * (size_mb as f64 * 8e6 / RATE_BPS + size_mb as f64 * 0.1) + 3.0).ceil();
    let queue = (RATE_BPS / 8.0 * 0.050) as u64;
    let mut s = format!("[sim]\nduration = \"{duration}s\"\nseed = {seed}\nsample_interval = \"1s\"\n");
    for n in ["phone", "dns", "m1", "m2", "m3", "m4", "m5"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\n");
    }
    for r in ["ap", "gnb", "internet"] {
        s += &format!("[[nodes]]\nname = \"{r}\"\nkind = \"router\"\n");
    }
    let link = |name: &str, a: &str, b: &str, rate: &str, delay: &str, queue: &str| {
        format!("[[links]]\nname = \"{name}\"\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = {delay}\n{queue}\n")
    };
    let radio_queue = format!("queue_bytes = {queue}");
    s += &link("wifi", "phone:wlan0", "ap", "20Mbps", "\"2ms\"", &radio_queue);
    s += &link("nr", "phone:nr0", "gnb", "20Mbps", "\"1ms\"", &radio_queue);
    s += &link("ap-internet", "ap", "internet", "1Gbps", "\"5ms\"", "queue = 2000");
    s += &link("gnb-internet", "gnb", "internet", "1Gbps", "\"5ms\"", "queue = 2000");
    s += &link("dns-internet", "dns", "internet", "1Gbps", "\"1ms\"", "");
    for (k, (m, site, lo, hi)) in MIRRORS.iter().enumerate() {
        let mut draws = Draws(seed * 16 + k as u64);
        let steps = (duration / STEP_S).ceil() as usize;
        let draw = |i: usize, d: f64| format!("[\"{}s\", \"{:.2}ms\"]", i as f64 * STEP_S, lo + (hi - lo) * d);
        let schedule: Vec<String> = (0..steps).map(|i| draw(i, draws.next())).collect();
        let delay = format!("{{ schedule = [{}] }}", schedule.join(", "));
        s += &link(&format!("{m}-{site}"), m, site, "1Gbps", &delay, "queue = 2000");
    }
    s += "[[resolvers]]\nname = \"local\"\nnode = \"dns\"\n[resolvers.domains.\"cdn.example\"]\n";
    s += "mirrors = [\"m3\", \"m4\", \"m5\", \"m1\", \"m2\"]\nttl = \"300s\"\n";
    s += "[resolvers.domains.\"cdn.example\".by_interface]\nnr0 = [\"m1\", \"m2\", \"m5\", \"m3\", \"m4\"]\n";
    if scheme == "mptcp" {
        // pat_paper.py's MPTCP row: one connection to the default's mirror (m3), full mesh from wlan0 (the initial
        // subflow) and nr0, uncoupled CUBIC, the same 1 MB requests one after another.
        s += "[[flows]]\nname = \"dl\"\nsrc = \"m3\"\ndst = \"phone\"\nclient = \"dst\"\ntransport = \"mptcp\"\ntcp = { cc = \"cubic\" }\n";
        s += "mptcp = { coupling = \"uncoupled\", scheduler = \"minrtt\", path_manager = \"fullmesh\", initial = \"phone:wlan0\" }\n";
        s += &format!("app = {{ kind = \"download\", size = 1000000, count = {size_mb} }}\n");
        return s;
    }
    s += &format!("[[contents]]\nname = \"object\"\nbytes = {}\n", size_mb * 1_000_000);
    s += "mirrors = [\"m1\", \"m2\", \"m3\", \"m4\", \"m5\"]\ndomain = \"cdn.example\"\n";
    let policy = if scheme == "pat" { "controller" } else { "default" };
    s += "[[fetches]]\nname = \"dl\"\nclient = \"phone\"\ncontent = \"object\"\nchunk = \"1MB\"\nprefer = \"wlan0\"\ntcp = { cc = \"cubic\" }\n";
    s += &format!("policy = \"{policy}\"\n");
    if scheme == "pat" {
        s += "[[controllers]]\nhost = \"phone\"\nkind = \"pat\"\nsample_interval = \"0s\"\nparams = { resolvers = \"local\" }\n";
    }
    s
}

/// The download time: the fetch session's, or the MPTCP download application's.
fn completion(t: &[Table], scheme: &str) -> f64 {
    if scheme == "mptcp" {
        return f64s(table(t, "apps"), "completion_s")[0];
    }
    let f = table(t, "fetches");
    assert_eq!(strs(f, "error"), [""], "the download failed");
    f64s(f, "completion_s")[0]
}

/// Download times with and without PAT and with MPTCP full mesh to m3, lab beside simulator, for each size and
/// seed; returns the largest relative difference between the planes.
fn lab_beside_simulator(sizes: &[u64], seeds: &[u64]) -> f64 {
    let mut worst: f64 = 0.0;
    for &seed in seeds {
        for &size in sizes {
            let mut times = Vec::new();
            for scheme in ["default", "pat", "mptcp"] {
                let toml = scenario(size, scheme, seed);
                let sim = pathpool_sim::run(&common::model(&toml), &mut |_| {}).tables;
                let lab = lab(&toml).unwrap_or_else(|e| panic!("{e}")).tables;
                let (s, l) = (completion(&sim, scheme), completion(&lab, scheme));
                if scheme == "mptcp" {
                    // Reported beside PAT, not held to the 15 % (which is PAT's and the default's): the
                    // planes' MPTCP differs on heterogeneous paths (docs/validation.md, issue 17 item 4).
                    eprintln!("FIGURE lab pat fig11 seed {seed} {size} MB mptcp: download sim {s:.3} s lab {l:.3} s ({:+.1} %)", 100.0 * (l - s) / s);
                    assert!(s.is_finite() && l.is_finite(), "the MPTCP download completes on both planes: sim {s} s, lab {l} s");
                    times.push((s, l));
                    continue;
                }
                let remaps = |t: &[Table]| f64s(table(t, "fetches"), "remaps")[0];
                let lookups = |t: &[Table]| {
                    let ms: Vec<String> = f64s(table(t, "dns"), "query_time_s").iter().map(|x| format!("{:.1}", 1e3 * x)).collect();
                    ms.join(" ")
                };
                eprintln!(
                    "FIGURE lab pat fig11 seed {seed} {size} MB {scheme}: download sim {s:.3} s lab {l:.3} s ({:+.1} %); \
                     remaps sim {} lab {}; lookups sim [{}] lab [{}] ms",
                    100.0 * (l - s) / s,
                    remaps(&sim),
                    remaps(&lab),
                    lookups(&sim),
                    lookups(&lab)
                );
                worst = worst.max((l - s).abs() / s);
                times.push((s, l));
            }
            let gain = |k: usize, sim: bool| {
                let (a, b) = if sim { (times[1].0, times[k].0) } else { (times[1].1, times[k].1) };
                100.0 * (1.0 - a / b)
            };
            eprintln!(
                "FIGURE lab pat fig11 seed {seed} {size} MB: PAT's gain over the default sim {:.1} % lab {:.1} %, over MPTCP sim {:.1} % lab {:.1} %",
                gain(0, true),
                gain(0, false),
                gain(2, true),
                gain(2, false)
            );
        }
    }
    worst
}

/// 4 and 16 MB, seed 1 (part of `make test`, about 40 s).
#[test]
fn fig11_download_times_match_the_simulator() {
    if !runnable("fig11_download_times_match_the_simulator") {
        return;
    }
    let worst = lab_beside_simulator(&[4, 16], &[1]);
    // Issue 16: the lab's download time within 15 % of the simulator's.
    assert!(worst <= 0.15, "a lab download time differs from the simulator's by {:.1} %", 100.0 * worst);
}

/// The rest of Fig. 11 on the lab: 4 and 16 MB with seeds 2 and 3, 64 and 128 MB with seed 1 (about five minutes
/// of real time, so not in `make test`): `cargo test --release -p pathpool-lab --test pat -- --ignored --nocapture`.
#[test]
#[ignore]
fn fig11_more_seeds_and_sizes_match_the_simulator() {
    if !runnable("fig11_more_seeds_and_sizes_match_the_simulator") {
        return;
    }
    let worst = lab_beside_simulator(&[4, 16], &[2, 3]).max(lab_beside_simulator(&[64, 128], &[1]));
    assert!(worst <= 0.15, "a lab download time differs from the simulator's by {:.1} %", 100.0 * worst);
}
