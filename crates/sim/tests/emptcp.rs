//! eMPTCP (issue 22): Westwood+'s increment coefficient scales a flow's
//! throughput by √a (the paper's eqs. 19–20), the weight manager (eq. 32)
//! brings a multipath host to the fixed point of
//! N·C·x² − bw_max·N·x − bw_max·K = 0 on a wired bottleneck with random
//! loss, its updates reach `subflow_ts` and the controller log, and bad
//! parameters or a non-Westwood+ path are refused with a reason. The
//! paper's multipath host is several TCP connections, one per interface:
//! a flow bound to its source's interface (`interface`) leaves by it.

mod common;
use common::{f64s, load_err, mean_goodput, run_toml, table};
use pathpool_sim::metrics::table::{Column, Table};

fn strs(t: &Table, col: &str) -> Vec<String> {
    match &t.columns.iter().find(|(n, _)| *n == col).unwrap_or_else(|| panic!("no column {col}")).1 {
        Column::Str(v) => v.clone(),
        other => panic!("column {col} is not text: {other:?}"),
    }
}

/// `paths` connections (or one MPTCP connection with `paths` subflows) from
/// host `mp` and `k` single-path flows, all Westwood+, across one 10 Mb/s
/// bottleneck with 1 % random loss; `extra` adds TOML (a controller).
fn wired(paths: usize, k: usize, mptcp: bool, cc: &str, extra: &str) -> String {
    let mut s = String::from(
        r#"
[sim]
duration = "120s"
sample_interval = "1s"

[tcp]
rcv_buffer = "16MiB"

[[nodes]]
name = "mp"
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
rate = "10Mbps"
delay = "20ms"
queue = 100
loss = { model = "bernoulli", p = 0.01 }

[[links]]
a = "right"
b = "dst"
rate = "1Gbps"
delay = "2ms"
"#,
    );
    for i in 0..paths {
        s += &format!("[[links]]\nname = \"mp{i}\"\na = \"mp:eth{i}\"\nb = \"left\"\nrate = \"1Gbps\"\ndelay = \"2ms\"\n");
    }
    if mptcp {
        s += &format!("[[flows]]\nname = \"mp\"\nsrc = \"mp\"\ndst = \"dst\"\ntransport = \"mptcp\"\ntcp = {{ cc = \"{cc}\" }}\nmptcp = {{ coupling = \"uncoupled\" }}\n");
    } else {
        for i in 0..paths {
            s += &format!("[[flows]]\nname = \"mp/{i}\"\nsrc = \"mp\"\ndst = \"dst\"\ntcp = {{ cc = \"{cc}\" }}\n");
        }
    }
    for j in 0..k {
        s += &format!(
            "[[nodes]]\nname = \"sp{j}\"\n[[links]]\na = \"sp{j}\"\nb = \"left\"\nrate = \"1Gbps\"\ndelay = \"2ms\"\n[[flows]]\nname = \"sp{j}\"\nsrc = \"sp{j}\"\ndst = \"dst\"\ntcp = {{ cc = \"westwood\" }}\n"
        );
    }
    s + extra
}

fn controller(params: &str) -> String {
    format!("[[controllers]]\nhost = \"mp\"\nkind = \"emptcp\"\nsample_interval = \"0s\"\nparams = {{ {params} }}\n")
}

/// x solving N·C·x² − bw_max·N·x − bw_max·K = 0.
fn fixed_point(n: f64, k: f64, c: f64, bw_max: f64) -> f64 {
    let (a, b, cc) = (n * c, -bw_max * n, -bw_max * k);
    (-b + (b * b - 4.0 * a * cc).sqrt()) / (2.0 * a)
}

#[test]
fn increment_scales_throughput_by_its_square_root() {
    // Two single-path Westwood+ flows with a = 0.25 and 1 (Table II's D_n = 0.5):
    // random loss dominating, throughput ∝ √a (eqs. 19–20), so 0.5 : 1.
    let text = wired(1, 1, false, "westwood", "").replace(
        "name = \"mp/0\"\nsrc = \"mp\"\ndst = \"dst\"\ntcp = { cc = \"westwood\" }",
        "name = \"mp/0\"\nsrc = \"mp\"\ndst = \"dst\"\ntcp = { cc = \"westwood\", cc_params = { increment = 0.25 } }",
    );
    let out = run_toml(&text);
    let ratio = mean_goodput(&out, 0, 10.0, 120.0) / mean_goodput(&out, 1, 10.0, 120.0);
    println!("FIGURE increment 0.25 vs 1: throughput ratio {ratio:.3} (√a = 0.5)");
    assert!((ratio - 0.5).abs() < 0.1, "ratio {ratio}");
}

#[test]
fn weight_manager_reaches_the_fixed_point() {
    for (mptcp, bw_max) in [(false, 2e6), (false, 4e6), (true, 2e6)] {
        let out = run_toml(&wired(2, 2, mptcp, "westwood", &controller(&format!("bw_max = {bw_max}"))));
        let flows = if mptcp { 1 } else { 2 };
        let mp: f64 = (0..flows).map(|f| mean_goodput(&out, f, 10.0, 120.0)).sum();
        let sp = (mean_goodput(&out, flows, 10.0, 120.0) + mean_goodput(&out, flows + 1, 10.0, 120.0)) / 2.0;
        let x = fixed_point(2.0, 2.0, mp + 2.0 * sp, bw_max).min(1.0);
        let ratio = mp / sp;
        println!("FIGURE eMPTCP wired, mptcp={mptcp}, bw_max {bw_max}: ratio {ratio:.3}, fixed point N·x {:.3}", 2.0 * x);
        assert!((ratio / (2.0 * x) - 1.0).abs() < 0.2, "ratio {ratio} against {}", 2.0 * x);
    }
}

#[test]
fn updates_reach_subflow_ts_and_the_log() {
    let out = run_toml(&wired(2, 1, true, "westwood", &controller("bw_max = \"2Mbps\", interval = \"2s\"")));
    let log = table(&out, "controller_log");
    let (action, detail, time) = (strs(log, "action"), strs(log, "detail"), f64s(log, "time_s"));
    let lines: Vec<usize> = (0..action.len()).filter(|&i| action[i] == "log").collect();
    assert!(lines.len() >= 55, "an update every 2 s: {}", lines.len());
    assert!(lines.iter().all(|&i| (time[i] / 2.0).fract() == 0.0), "updates at multiples of the interval");
    let last_set = (0..action.len()).rev().find(|&i| action[i] == "set_increment").expect("increments set");
    let a: f64 = detail[last_set].trim_start_matches("a = ").parse().expect("a = value");
    let ts = table(&out, "subflow_ts");
    let (inc, bwe, t) = (f64s(ts, "increment"), f64s(ts, "bw_estimate_bps"), f64s(ts, "time_s"));
    let end: Vec<usize> = (0..t.len()).filter(|&i| t[i] == 120.0).collect();
    assert_eq!(end.len(), 2);
    for i in end {
        // The log prints a to six decimals.
        assert!((inc[i] - a).abs() <= 5e-7, "subflow_ts increment {} vs the last one set {a}", inc[i]);
        assert!(bwe[i] > 0.0, "a Westwood+ estimate");
    }
}

#[test]
fn a_path_without_westwood_is_refused_with_the_reason() {
    let out = run_toml(&wired(2, 1, true, "cubic", &controller("bw_max = \"2Mbps\"")));
    let log = table(&out, "controller_log");
    let (action, outcome) = (strs(log, "action"), strs(log, "outcome"));
    let refused: Vec<&String> = (0..action.len()).filter(|&i| action[i] == "set_increment").map(|i| &outcome[i]).collect();
    // CUBIC keeps no bandwidth estimate: Σ bwe stays 0, x never exists, nothing is set.
    assert!(refused.is_empty(), "{refused:?}");
    let out = run_toml(&wired(2, 1, true, "cubic", &controller("increments = \"0.25,0.25\"")));
    let log = table(&out, "controller_log");
    let (action, outcome) = (strs(log, "action"), strs(log, "outcome"));
    let refused: Vec<&String> = (0..action.len()).filter(|&i| action[i] == "set_increment").map(|i| &outcome[i]).collect();
    assert_eq!(refused.len(), 2);
    assert!(refused.iter().all(|o| o.starts_with("refused") && o.contains("not westwood")), "{refused:?}");
}

#[test]
fn bad_parameters_are_refused_before_the_run() {
    let both = load_err(&wired(2, 1, true, "westwood", &controller("bw_max = \"2Mbps\", increments = \"0.5\"")));
    assert!(both.contains("bad.toml: controllers[0].params.bw_max: give exactly one of"), "{both}");
    let none = load_err(&wired(2, 1, true, "westwood", &controller("interval = \"1s\"")));
    assert!(none.contains("controllers[0].params.bw_max: give exactly one of"), "{none}");
    let list = load_err(&wired(2, 1, true, "westwood", &controller("increments = \"0.5,-1\"")));
    assert!(list.contains("controllers[0].params.increments: must be a comma-separated list of positive numbers"), "{list}");
    let clamp = load_err(&wired(2, 1, true, "westwood", &controller("bw_max = 1e6, clamp = \"loose\"")));
    assert!(clamp.contains("controllers[0].params.clamp: must be one of \"clamped\", \"literal\""), "{clamp}");
}

#[test]
fn a_flow_bound_to_an_interface_leaves_by_it() {
    // Two connections from `mp`, one per interface: each access link carries one.
    let text = wired(2, 0, false, "westwood", "")
        .replace("name = \"mp/0\"\nsrc = \"mp\"", "name = \"mp/0\"\ninterface = \"eth0\"\nsrc = \"mp\"")
        .replace("name = \"mp/1\"\nsrc = \"mp\"", "name = \"mp/1\"\ninterface = \"eth1\"\nsrc = \"mp\"");
    let out = run_toml(&text);
    let links = table(&out, "links");
    let (names, sent) = (strs(links, "name"), f64s(links, "bytes_sent"));
    let carried = |n: &str| sent[names.iter().position(|x| x == n).unwrap_or_else(|| panic!("no link {n}"))];
    let (up0, up1) = (carried("mp0:mp>left"), carried("mp1:mp>left"));
    let (ack0, ack1) = (carried("mp0:left>mp"), carried("mp1:left>mp"));
    assert!(up0 > 1e6 && up1 > 1e6, "each interface carries its connection: {up0} {up1}");
    assert!(ack0 > 1e4 && ack1 > 1e4, "and its ACKs come back to it: {ack0} {ack1}");
    // Unbound, both leave by the first route (eth0).
    let out = run_toml(&wired(2, 0, false, "westwood", ""));
    let links = table(&out, "links");
    let (names, sent) = (strs(links, "name"), f64s(links, "bytes_sent"));
    assert_eq!(sent[names.iter().position(|x| x == "mp1:mp>left").expect("link")], 0.0);
    let bad = load_err(&text.replace("interface = \"eth1\"", "interface = \"eth7\""));
    assert!(bad.contains("flows[1].interface: 'eth7' is not an interface of 'mp' (it has: eth0, eth1)"), "{bad}");
}
