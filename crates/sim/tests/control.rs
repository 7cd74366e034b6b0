//! Device-side controllers on the simulator plane (issue "Device-side
//! controllers on both planes"): the worked example on its built-in
//! scenario, reaction delay, download-side clients, refused actions, and
//! bad `[[controllers]]` input.

mod common;
use common::{f64s, load_err, run_toml, strs, table};
use pathpool_sim::metrics::Column;

fn builtin(name: &str) -> String {
    let path = format!("{}/../../python/pathpool/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}


/// (time, action, outcome) of the log's rows by `controller`.
fn actions(out: &pathpool_sim::RunOutput, controller: &str) -> Vec<(f64, String, String)> {
    let log = table(out, "controller_log");
    let (t, c, a, o) = (f64s(log, "time_s"), strs(log, "controller"), strs(log, "action"), strs(log, "outcome"));
    (0..t.len()).filter(|&i| c[i] == controller).map(|i| (t[i], a[i].clone(), o[i].clone())).collect()
}

/// Bytes subflow `sub` of flow 0 delivered outside [from, to], and in
/// all, from subflow_ts (each sample covers the interval before it).
fn bytes_outside(out: &pathpool_sim::RunOutput, sub: u32, from: f64, to: f64) -> (f64, f64) {
    let ts = table(out, "subflow_ts");
    let (t, id, bps) = (f64s(ts, "time_s"), f64s(ts, "subflow_id"), f64s(ts, "delivered_bps"));
    let dt = 0.1;
    let (mut outside, mut total) = (0.0, 0.0);
    for i in (0..t.len()).filter(|&i| id[i] == sub as f64) {
        let bytes = bps[i] * dt / 8.0;
        total += bytes;
        if t[i] <= from + 1e-9 || t[i] - dt >= to - 1e-9 {
            outside += bytes;
        }
    }
    (outside, total)
}

#[test]
fn rate_fallback_opens_lte_while_wifi_is_slow_and_closes_it_after() {
    let out = run_toml(&builtin("rate-fallback"));
    let acts: Vec<(f64, String)> = actions(&out, "rate_fallback").into_iter().filter(|a| a.1 != "log").map(|a| (a.0, a.1)).collect();
    // Wi-Fi drops at 10 s and recovers at 20 s; the rate over a 500 ms
    // window crosses 8 Mb/s within it, then hold = 1 s; samples every 100 ms.
    assert_eq!(acts.len(), 2, "{acts:?}");
    assert_eq!(acts[0].1, "open_subflow");
    assert!((11.0..=11.6).contains(&acts[0].0), "opened at {}", acts[0].0);
    assert_eq!(acts[1].1, "close_subflow");
    assert!((21.0..=21.6).contains(&acts[1].0), "closed at {}", acts[1].0);
    let subflows = table(&out, "subflows");
    assert_eq!(strs(subflows, "local_interface"), ["phone:wlan0", "phone:lte0"]);
    // The acceptance bound: LTE carries at most 1 % of its bytes outside
    // [degradation, recovery + hold + reaction delay + 1 s].
    let (outside, total) = bytes_outside(&out, 1, 10.0, 20.0 + 1.0 + 0.0 + 1.0);
    assert!(total > 5e6, "LTE carried only {total} bytes");
    assert!(outside <= 0.01 * total, "LTE carried {outside} of {total} bytes outside the window");
}

#[test]
fn reaction_delay_postpones_the_actions() {
    let text = builtin("rate-fallback").replace("sample_interval = \"100ms\"", "sample_interval = \"100ms\"\nreaction_delay = \"250ms\"");
    let out = run_toml(&text);
    let acts: Vec<(f64, String)> = actions(&out, "rate_fallback").into_iter().filter(|a| a.1 != "log").map(|a| (a.0, a.1)).collect();
    assert_eq!(acts.len(), 2, "{acts:?}");
    let plain: Vec<f64> = actions(&run_toml(&builtin("rate-fallback")), "rate_fallback").into_iter().filter(|a| a.1 != "log").map(|a| a.0).collect();
    assert!((acts[0].0 - plain[0] - 0.25).abs() < 1e-9, "opened at {} (without delay {})", acts[0].0, plain[0]);
    assert!((acts[1].0 - plain[1] - 0.25).abs() < 1e-9, "closed at {} (without delay {})", acts[1].0, plain[1]);
}

/// A download to a phone that connects (`client = "dst"`): the phone's
/// path manager opens the subflows from its interfaces, and the subflow
/// set is the one the server-side client would have opened.
#[test]
fn a_phone_that_downloads_opens_the_subflows() {
    let scenario = |client: &str| {
        builtin("wifi-lte").replace("name = \"download\"\n", &format!("name = \"download\"\nclient = \"{client}\"\n"))
    };
    let (by_phone, by_server) = (run_toml(&scenario("dst")), run_toml(&scenario("src")));
    let log = table(&by_phone, "controller_log");
    assert!(strs(log, "host").iter().all(|h| h == "phone"), "{:?}", strs(log, "host"));
    let opens: Vec<String> = strs(log, "action").into_iter().filter(|a| a == "open_subflow").collect();
    assert!(!opens.is_empty());
    for t in ["subflows", "flows"] {
        for col in ["local_interface", "remote_interface", "state", "bytes_delivered", "name"] {
            let (a, b) = (table(&by_phone, t), table(&by_server, t));
            if a.columns.iter().any(|(n, _)| *n == col) && matches!(a.columns.iter().find(|(n, _)| *n == col).unwrap().1, Column::Str(_)) {
                assert_eq!(strs(a, col), strs(b, col), "{t}.{col}");
            }
        }
    }
    assert_eq!(f64s(table(&by_phone, "subflows"), "bytes_delivered"), f64s(table(&by_server, "subflows"), "bytes_delivered"));
}

/// Timed actions name an interface that is down: the plane refuses the
/// open and says why, instead of dropping it.
#[test]
fn refused_actions_are_logged_with_the_reason() {
    let text = builtin("wifi-lte").replace(
        "mptcp = { scheduler = \"minrtt\", coupling = \"lia\", path_manager = \"fullmesh\", baselines = true }",
        "mptcp = { path_manager = \"single_path\", actions = [{ at = \"14s\", open = \"phone:wlan0\", peer = \"server:eth0\" }] }",
    );
    let out = run_toml(&text);
    let timed = actions(&out, "timed");
    let open = timed.iter().find(|a| a.1 == "open_subflow").expect("the timed open is logged");
    assert!((open.0 - 14.0).abs() < 1e-9);
    assert!(open.2.starts_with("refused: ") && open.2.contains("down"), "{open:?}");
}

fn bad(extra: &str) -> String {
    let base = builtin("rate-fallback");
    let cut = base.find("[[controllers]]").unwrap();
    format!("{}{extra}", &base[..cut])
}

fn assert_refused(extra: &str, field: &str, what: &str) {
    let err = load_err(&bad(extra));
    assert!(err.contains(field), "no field '{field}' in: {err}");
    assert!(err.contains(what), "no '{what}' in: {err}");
}

#[test]
fn bad_controllers_are_refused_before_the_run() {
    let ok = "params = { threshold = \"8Mbps\" }";
    assert_refused(&format!("[[controllers]]\nhost = \"phone\"\nkind = \"smart\"\n{ok}\n"), "controllers[0].kind", "unknown controller kind 'smart'");
    assert_refused(&format!("[[controllers]]\nhost = \"fone\"\nkind = \"rate_fallback\"\n{ok}\n"), "controllers[0].host", "unknown node 'fone'");
    assert_refused(&format!("[[controllers]]\nhost = \"ap\"\nkind = \"rate_fallback\"\n{ok}\n"), "controllers[0].host", "is a router");
    assert_refused(&format!("[[controllers]]\nhost = \"server\"\nkind = \"rate_fallback\"\n{ok}\n"), "controllers[0].params.secondary", "has 1 interface(s)");
    assert_refused("[[controllers]]\nhost = \"phone\"\nkind = \"rate_fallback\"\n", "controllers[0].params.threshold", "required");
    assert_refused("[[controllers]]\nhost = \"phone\"\nkind = \"rate_fallback\"\nparams = { threshold = true }\n", "controllers[0].params.threshold", "must be a rate");
    assert_refused("[[controllers]]\nhost = \"phone\"\nkind = \"rate_fallback\"\nparams = { threshold = \"-3Mbps\" }\n", "controllers[0].params.threshold", "positive");
    assert_refused("[[controllers]]\nhost = \"phone\"\nkind = \"rate_fallback\"\nparams = { threshold = \"8Mbps\", primary = \"eth9\" }\n", "controllers[0].params.primary", "'eth9' is not an interface of phone");
    assert_refused("[[controllers]]\nhost = \"phone\"\nkind = \"rate_fallback\"\nparams = { threshold = \"8Mbps\", treshold = 1 }\n", "controllers[0].params.treshold", "unknown parameter");
    assert_refused(&format!("[[controllers]]\nhost = \"phone\"\nkind = \"rate_fallback\"\n{ok}\nsampling = \"1s\"\n"), "controllers", "unknown field `sampling`");
    assert_refused("[[controllers]]\nhost = \"phone\"\nkind = \"rate_fallback\"\nparams = { threshold = \"8Mbps\" }\n[[nodes]]\nname = \"lonely\"\n[[controllers]]\nhost = \"lonely\"\nkind = \"rate_fallback\"\nparams = { threshold = \"8Mbps\" }\n", "controllers[1].host", "no interface");
}

#[test]
fn client_dst_applies_to_tcp_and_mptcp_only() {
    let text = bad("").replace("transport = \"mptcp\"\nmptcp = { path_manager = \"single_path\", scheduler = \"minrtt\", coupling = \"uncoupled\" }", "transport = \"rcp\"\nclient = \"dst\"");
    let err = load_err(&text);
    assert!(err.contains("flows[0].client") && err.contains("'tcp' and 'mptcp' only"), "{err}");
}
