//! Green MPTCP's Rule 1 on the simulator plane (green-mptcp-iiot-energy.txt
//! §3.1): no join before the connection has carried the initial burst.

mod common;
use common::{f64s, load_err, run_toml, table};
use pathpool_sim::metrics::{Column, Table};

/// An agent on two disjoint paths (RTT 40 ms and 30 ms, 10 Mb/s each) sends
/// `size` bytes to a server with path manager `pm`.
fn scenario(size: &str, pm: &str) -> String {
    format!(
        r#"
[sim]
duration = "5s"
[[nodes]]
name = "agent"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "r2"
kind = "router"
[[nodes]]
name = "server"
[[links]]
a = "agent:wlan0"
b = "r1"
rate = "10Mbps"
delay = "10ms"
[[links]]
a = "agent:wlan1"
b = "r2"
rate = "10Mbps"
delay = "5ms"
[[links]]
a = "r1"
b = "server"
rate = "100Mbps"
delay = "10ms"
[[links]]
a = "r2"
b = "server"
rate = "100Mbps"
delay = "10ms"
[[flows]]
src = "agent"
dst = "server"
size = "{size}"
transport = "mptcp"
mptcp = {{ initial = "wlan0", coupling = "uncoupled", {pm} }}
"#
    )
}

fn strs(t: &Table, col: &str) -> Vec<String> {
    match &t.columns.iter().find(|(n, _)| *n == col).unwrap_or_else(|| panic!("no column {col}")).1 {
        Column::Str(v) => v.clone(),
        other => panic!("column {col} is not text: {other:?}"),
    }
}

/// (local interface, opened_s) of every subflow.
fn subflows(out: &pathpool_sim::RunOutput) -> Vec<(String, f64)> {
    let t = table(out, "subflows");
    strs(t, "local_interface").into_iter().zip(f64s(t, "opened_s")).collect()
}

#[test]
fn a_message_below_the_burst_opens_no_join() {
    let out = run_toml(&scenario("10kB", "path_manager = \"green\""));
    assert_eq!(subflows(&out), [("agent:wlan0".to_string(), 0.0)]);
    let log = table(&out, "controller_log");
    assert!(!strs(log, "action").iter().any(|a| a == "open_subflow"), "{:?}", strs(log, "action"));
    // Full mesh opens the join as soon as the connection is established.
    let mesh = subflows(&run_toml(&scenario("10kB", "path_manager = \"fullmesh\"")));
    assert_eq!(mesh.len(), 2, "{mesh:?}");
}

#[test]
fn the_join_waits_for_the_burst_to_be_acknowledged() {
    // The primary's RTT is 40 ms; 14 480 bytes are the initial window of 10
    // segments, acknowledged one RTT after the handshake's, plus their 12 ms
    // of serialisation at 10 Mb/s.
    let out = run_toml(&scenario("200kB", "path_manager = \"green\""));
    let s = subflows(&out);
    assert_eq!(s.len(), 2, "{s:?}");
    assert_eq!(s[1].0, "agent:wlan1");
    assert!((0.092..0.100).contains(&s[1].1), "joined at {}", s[1].1);
    let log = table(&out, "controller_log");
    let (action, event, t) = (strs(log, "action"), strs(log, "event"), f64s(log, "time_s"));
    let watch = action.iter().position(|a| a == "watch_bytes").expect("a byte watch");
    assert_eq!(event[watch], "connection_established");
    let open = action.iter().position(|a| a == "open_subflow").expect("the join");
    assert_eq!((event[open].as_str(), t[open]), ("bytes_carried", s[1].1));
    // Full mesh joins one RTT earlier, at establishment (40 ms).
    let mesh = subflows(&run_toml(&scenario("200kB", "path_manager = \"fullmesh\"")));
    assert!((mesh[1].1 - 0.040).abs() < 1e-3, "full mesh joined at {}", mesh[1].1);
    // A larger burst waits for another round trip (the window has grown to 20 segments).
    let out = run_toml(&scenario("200kB", "path_manager = \"green\", path_manager_params = { burst = \"30kB\" }"));
    let later = subflows(&out)[1].1;
    assert!(later > s[1].1 + 0.035, "joined at {later} with a 30 kB burst");
}

#[test]
fn bad_path_manager_parameters_are_refused() {
    let err = load_err(&scenario("10kB", "path_manager = \"green\", path_manager_params = { burst = -5 }"));
    assert!(err.contains("flows[0].mptcp.path_manager_params.burst") && err.contains("positive"), "{err}");
    let err = load_err(&scenario("10kB", "path_manager = \"fullmesh\", path_manager_params = { burst = 5 }"));
    assert!(err.contains("flows[0].mptcp.path_manager_params.burst") && err.contains("unknown parameter"), "{err}");
    let err = load_err(&scenario("10kB", "path_manager = \"green\"").replace("initial = \"wlan0\"", "initial = \"eth7\""));
    assert!(err.contains("flows[0].mptcp.initial") && err.contains("'eth7'"), "{err}");
}
