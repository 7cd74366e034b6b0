//! Green MPTCP's scheduler (Rule 2, docs/green.md) in a run: `green` puts an
//! application-limited stream mostly on the cheaper interface and
//! `green_literal` (eq. 5 as printed) mostly on the costlier one; on a bulk
//! stream `hold` decides whether the costlier subflow is held down to its
//! floor; bad input is refused before the run, naming the field.

mod common;
use common::{f64s, load_err, run_toml, table};
use pathpool_sim::metrics::Column;
use pathpool_sim::RunOutput;

/// Host `dev` with interfaces if0 and if1, each on its own 10 Mb/s path
/// with 20 ms one way to `sink`; `device` is its `[[devices]]` entry (empty:
/// none) and `flow` the keys of its MPTCP flow to the sink.
fn two_paths(duration: &str, device: &str, flow: &str) -> String {
    let mut s = format!("[sim]\nduration = \"{duration}\"\n[[nodes]]\nname = \"dev\"\n[[nodes]]\nname = \"sink\"\n");
    for k in 0..2 {
        s += &format!(
            "[[nodes]]\nname = \"r{k}\"\nkind = \"router\"\n\
             [[links]]\na = \"dev:if{k}\"\nb = \"r{k}\"\nrate = \"10Mbps\"\ndelay = \"19ms\"\n\
             [[links]]\na = \"r{k}\"\nb = \"sink:p{k}\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n"
        );
    }
    if !device.is_empty() {
        s += &format!("[[devices]]\nhost = \"dev\"\n{device}\n");
    }
    s + &format!("[[flows]]\nsrc = \"dev\"\ndst = \"sink\"\ntransport = \"mptcp\"\n{flow}\n")
}

const COSTS: &str = "linear = { w = { if0 = 1, if1 = 2 } }";

/// 30 kB messages every 100 ms from dev: 2.4 Mb/s over 20 Mb/s of paths.
const MESSAGES: &str = "client = \"dst\"\napp = { kind = \"interactive\", message = \"30kB\", interval = \"100ms\" }";

/// Payload bytes flow 0 sent on (if0, if1).
fn bytes_by_interface(out: &RunOutput) -> (f64, f64) {
    let t = table(out, "subflows");
    let local = match &t.columns.iter().find(|(n, _)| *n == "local_interface").expect("column").1 {
        Column::Str(v) => v.clone(),
        other => panic!("not text: {other:?}"),
    };
    let sent = f64s(t, "bytes_sent");
    let on = |iface: &str| (0..sent.len()).filter(|&i| local[i] == iface).map(|i| sent[i]).sum();
    (on("dev:if0"), on("dev:if1"))
}

fn run(scheduler: &str, params: &str, device: &str, duration: &str, flow: &str) -> (f64, f64) {
    let mptcp = format!("mptcp = {{ scheduler = \"{scheduler}\", scheduler_params = {{ {params} }} }}\n{flow}");
    bytes_by_interface(&run_toml(&two_paths(duration, device, &mptcp)))
}

#[test]
fn application_limited_green_favours_the_cheaper_interface_and_literal_the_costlier() {
    for hold in [false, true] {
        let params = format!("hold = {hold}");
        let green = run("green", &params, COSTS, "3s", MESSAGES);
        assert!(green.0 > 2.0 * green.1, "green, hold {hold}: if0 {} bytes, if1 {}", green.0, green.1);
        let literal = run("green_literal", &params, COSTS, "3s", MESSAGES);
        assert!(literal.1 > 1.2 * literal.0, "green_literal, hold {hold}: if0 {} bytes, if1 {}", literal.0, literal.1);
        eprintln!("FIGURE messages, hold {hold}: if0/if1 green {:.2}, green_literal {:.2}", green.0 / green.1, literal.0 / literal.1);
    }
    // The weights decide, not the order of the interfaces.
    let (if0, if1) = run("green", "", "linear = { w = { if0 = 2, if1 = 1 } }", "3s", MESSAGES);
    assert!(if1 > 2.0 * if0, "green, if1 cheaper: if0 {if0} bytes, if1 {if1}");
}

#[test]
fn bulk_hold_keeps_the_costlier_subflow_at_its_floor_and_work_conserving_fills_both() {
    let (minrtt0, minrtt1) = {
        let text = two_paths("5s", COSTS, "mptcp = { scheduler = \"minrtt\" }");
        bytes_by_interface(&run_toml(&text))
    };
    // Work-conserving: both windows stay full, the congestion controls set the split.
    let (if0, if1) = run("green", "", COSTS, "5s", "");
    let near = |a: f64, b: f64| (a - b).abs() <= 0.01 * b;
    assert!(near(if0, minrtt0) && near(if1, minrtt1), "green without hold: {if0}, {if1}; minrtt {minrtt0}, {minrtt1}");
    // Hold: the costlier subflow keeps about its floor of one segment in flight.
    let (held0, held1) = run("green", "hold = true", COSTS, "5s", "");
    assert!(held1 < 0.05 * held0, "hold: if0 {held0} bytes, if1 {held1}");
    assert!(held0 > 0.9 * if0, "hold does not slow the cheaper subflow: {held0} against {if0}");
}

#[test]
fn bad_green_input_is_refused_before_the_run() {
    let flow = |scheduler: &str, params: &str| format!("mptcp = {{ scheduler = \"{scheduler}\", scheduler_params = {{ {params} }} }}");
    let cases = [
        (two_paths("3s", "", &flow("green", "")), "flows[0].mptcp.scheduler", "give [[devices]] host = \"dev\" linear = { w = { if0 = ..., if1 = ... } }"),
        (two_paths("3s", "battery = [[\"0s\", 80]]", &flow("green_literal", "")), "flows[0].mptcp.scheduler", "source 'dev', which has none"),
        (two_paths("3s", "linear = { w = { if0 = 0, if1 = 2 } }", &flow("green", "")), "devices[0].linear.w.if0", "divides by it"),
        (two_paths("3s", COSTS, &flow("green", "h_floor = 2")), "flows[0].mptcp.scheduler_params.h_floor", "known: credit_limit, h_floor_segments, hold"),
        (two_paths("3s", COSTS, &flow("green", "h_floor_segments = 0")), "flows[0].mptcp.scheduler_params.h_floor_segments", "must be positive"),
        (two_paths("3s", COSTS, &flow("green", "hold = 1")), "flows[0].mptcp.scheduler_params.hold", "true or false"),
        (two_paths("3s", "", &flow("minrtt", "hold = true")), "flows[0].mptcp.scheduler_params.hold", "minrtt has no parameters"),
    ];
    for (text, field, what) in cases {
        let err = load_err(&text);
        assert!(err.contains(&format!("{field}: ")) && err.contains(what), "expected '{field}' and '{what}' in: {err}");
    }
    // A weight of 0 is fine with w_device, and for a scheduler that does not divide by it.
    let text = two_paths("3s", "linear = { w_device = 1, w = { if0 = 0, if1 = 2 } }", &flow("green", ""));
    pathpool_sim::load(&text, pathpool_sim::Format::Toml, &common::source("ok.toml"), None).unwrap();
    let text = two_paths("3s", "linear = { w = { if0 = 0, if1 = 2 } }", "");
    pathpool_sim::load(&text, pathpool_sim::Format::Toml, &common::source("ok.toml"), None).unwrap();
}
