//! Device-side controllers on the kernel lab against the simulator (issue
//! 13's acceptance): the same `Controller` objects on both planes, events
//! from the kernel's path-manager events and polled socket statistics,
//! actions as MPTCP netlink commands. They need root and a kernel with
//! MPTCP, and say SKIPPED otherwise. Each checks that its run left no
//! namespace behind.

mod common;

use common::{f64s, lab, model, runnable, strs, subflow_series, table};
use pathpool_sim::metrics::Table;

/// One test at a time: a lab run is a real-time experiment, and the other
/// tests' simulator runs on the same two cores would delay its controller
/// threads (the timings compared here are within 150 ms).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The worked example, the built-in as it is. Its Wi-Fi uplink queue is 50
/// packets: with 100 (0.6 s at 2 Mb/s) the kernel's loss recoveries through
/// the queue stall the Wi-Fi subflow's cumulative ACK and release it in one
/// jump, up to a second after the drop and after the recovery, so the rate
/// the controller measures crosses its threshold later than the
/// simulator's (close +0.4 to +1.0 s, open up to +0.7 s, in five runs).
/// Its Wi-Fi path is 9 ms round trip (15 packets at 20 Mb/s): Linux's MPTCP
/// scheduler leaves the Wi-Fi subflow idle at times while LTE is open, and
/// the kernel's cwnd restart after idle met the recovery at 20 s with 10 to
/// 35 packets (the simulator's: 50); on the former 25 ms path (43 packets)
/// that held Wi-Fi's rate down long enough to close 100 to 300 ms late.
/// docs/lab.md has the figures.
fn rate_fallback() -> String {
    include_str!("../../../python/pathpool/scenarios/rate-fallback.toml").to_string()
}

/// The `controller_log` rows of `controller`: (time, action, outcome).
fn actions(tables: &[Table], controller: &str) -> Vec<(f64, String, String)> {
    let log = table(tables, "controller_log");
    let (time, who, action, outcome) = (f64s(log, "time_s"), strs(log, "controller"), strs(log, "action"), strs(log, "outcome"));
    (0..time.len()).filter(|&k| who[k] == controller).map(|k| (time[k], action[k].clone(), outcome[k].clone())).collect()
}

/// The share of flow 0's bytes that subflow `id` carried outside [from, to] s.
fn share_outside(tables: &[Table], id: u32, from: f64, to: f64) -> f64 {
    let dt = 0.1;
    let outside: f64 = subflow_series(tables, id).iter().filter(|(t, _)| *t <= from + 1e-9 || *t > to + 1e-9).map(|(_, r)| r * dt / 8.0).sum();
    outside / f64s(table(tables, "flows"), "bytes_delivered")[0]
}

fn subflow_on(tables: &[Table], local: &str) -> u32 {
    let subflows = table(tables, "subflows");
    let k = strs(subflows, "local_interface").iter().position(|l| l == local).unwrap_or_else(|| panic!("no subflow from {local}"));
    f64s(subflows, "subflow_id")[k] as u32
}

#[test]
fn rate_fallback_acts_alike_on_both_planes() {
    if !runnable("rate_fallback_acts_alike_on_both_planes") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let toml = rate_fallback();
    let sim = pathpool_sim::run(&model(&toml), &mut |_| {}).tables;
    let out = lab(&toml).unwrap();
    let (s, l) = (actions(&sim, "rate_fallback"), actions(&out.tables, "rate_fallback"));
    eprintln!("FIGURE rate_fallback detail: simulator {:?}, lab {:?}", strs(table(&sim, "controller_log"), "detail"), strs(table(&out.tables, "controller_log"), "detail"));
    let kinds = |rows: &[(f64, String, String)]| rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>();
    assert_eq!(kinds(&s), ["log", "open_subflow", "log", "close_subflow"], "simulator: {s:?}");
    assert_eq!(kinds(&l), kinds(&s), "lab: {l:?}");
    for ((ts, action, _), (tl, _, outcome)) in s.iter().zip(&l) {
        eprintln!("FIGURE rate_fallback {action}: simulator {ts:.3} s, lab {tl:.3} s ({:+.0} ms)", (tl - ts) * 1e3);
        assert_eq!(outcome, "done");
    }
    eprintln!("FIGURE lab reaction (event seen -> netlink returned): {}; emulator: {}", out.summary["controllers"], out.summary["emulator"]);
    // Wi-Fi degrades at 10 s and recovers at 20 s; hold 1 s, no reaction delay.
    let (from, to) = (10.0, 21.0 + 1.0);
    let lte = subflow_on(&out.tables, "phone:lte0");
    let (share_lab, share_sim) = (share_outside(&out.tables, lte, from, to), share_outside(&sim, subflow_on(&sim, "phone:lte0"), from, to));
    eprintln!("FIGURE lte0 share of the bytes outside [{from}, {to}] s: lab {:.3} %, simulator {:.3} %", share_lab.abs() * 100.0, share_sim.abs() * 100.0);
    assert!(share_lab <= 0.01, "lte0 carried {:.2} % outside the window", share_lab * 100.0);
    assert!(subflow_series(&out.tables, lte).iter().any(|&(t, r)| (from..to).contains(&t) && r > 0.0), "lte0 never carried data");
    for ((ts, action, _), (tl, _, _)) in s.iter().zip(&l) {
        assert!((tl - ts).abs() <= 0.150, "{action}: lab {tl} s, simulator {ts} s");
    }
}

/// A phone downloads from a server over Wi-Fi and LTE: the phone connects
/// (`client = "dst"`) and its full-mesh path manager opens the subflows.
const DOWNLOAD: &str = r#"
[sim]
duration = "6s"

[[nodes]]
name = "phone"
[[nodes]]
name = "ap"
kind = "router"
[[nodes]]
name = "enb"
kind = "router"
[[nodes]]
name = "internet"
kind = "router"
[[nodes]]
name = "server"

[[links]]
a = "phone:wlan0"
b = "ap"
rate = "20Mbps"
delay = "5ms"
[[links]]
a = "phone:lte0"
b = "enb"
rate = "10Mbps"
delay = "25ms"
queue = 200
[[links]]
a = "ap"
b = "internet"
rate = "100Mbps"
delay = "5ms"
[[links]]
a = "enb"
b = "internet"
rate = "100Mbps"
delay = "10ms"
[[links]]
a = "internet"
b = "server"
rate = "1Gbps"
delay = "2ms"

[[flows]]
name = "download"
src = "server"
dst = "phone"
client = "dst"
transport = "mptcp"
tcp = { cc = "cubic" }
mptcp = { coupling = "uncoupled", path_manager = "fullmesh" }
"#;

/// (local, remote) interfaces of every subflow, sorted.
fn subflow_set(tables: &[Table]) -> Vec<(String, String)> {
    let subflows = table(tables, "subflows");
    let mut set: Vec<_> = strs(subflows, "local_interface").into_iter().zip(strs(subflows, "remote_interface")).collect();
    set.sort();
    set
}

#[test]
fn a_phone_initiated_download_opens_its_subflows_from_the_phone() {
    if !runnable("a_phone_initiated_download_opens_its_subflows_from_the_phone") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sim = pathpool_sim::run(&model(DOWNLOAD), &mut |_| {}).tables;
    let out = lab(DOWNLOAD).unwrap();
    let expected = [("server:eth0".to_string(), "phone:lte0".to_string()), ("server:eth0".into(), "phone:wlan0".into())];
    assert_eq!(subflow_set(&sim), expected, "simulator");
    assert_eq!(subflow_set(&out.tables), expected, "lab");
    // The phone's path manager opened the LTE subflow through its namespace's netlink.
    let log = table(&out.tables, "controller_log");
    let opened: Vec<usize> = (0..log.rows())
        .filter(|&k| strs(log, "host")[k] == "phone" && strs(log, "action")[k] == "open_subflow" && strs(log, "outcome")[k] == "done")
        .collect();
    assert_eq!(opened.len(), 1, "{:?}", strs(log, "detail"));
    let subflows = table(&out.tables, "subflows");
    let (established, acked) = (f64s(subflows, "established_s"), f64s(subflows, "bytes_acked"));
    let goodput = f64s(table(&out.tables, "flows"), "goodput_bps")[0];
    eprintln!("FIGURE lab download: subflows established at {established:?} s, bytes acked at the server {acked:?}, {:.2} Mb/s", goodput / 1e6);
    assert!(established.iter().all(|t| t.is_finite()), "{established:?}");
    // The server sends: its end's tcp_info shows data acknowledged on both subflows.
    assert!(acked.iter().all(|&b| b > 100e3), "{acked:?}");
    assert!(goodput > 0.8 * 20e6, "{goodput}");
}

/// Green MPTCP's Rule 1: an agent on two disjoint paths (RTT 40 and 30 ms)
/// sends `size` with the green path manager; samples every 10 ms.
fn green(size: &str) -> String {
    format!(
        r#"
[sim]
duration = "3s"
sample_interval = "10ms"
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
tcp = {{ cc = "cubic" }}
mptcp = {{ initial = "wlan0", coupling = "uncoupled", path_manager = "green" }}
[[devices]]
host = "agent"
linear = {{ reading = "data", w = {{ wlan0 = 1, wlan1 = 3 }} }}
"#
    )
}

#[test]
fn the_green_path_manager_joins_after_the_burst_on_both_planes() {
    if !runnable("the_green_path_manager_joins_after_the_burst_on_both_planes") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // A 10 kB message: no join on either plane.
    for (plane, tables) in [("simulator", pathpool_sim::run(&model(&green("10kB")), &mut |_| {}).tables), ("lab", lab(&green("10kB")).unwrap().tables)] {
        assert_eq!(strs(table(&tables, "subflows"), "local_interface"), ["agent:wlan0"], "{plane}");
        assert!(actions(&tables, "path_manager").iter().all(|a| a.1 != "open_subflow"), "{plane}");
    }
    // 200 kB: the join follows the crossing of 14 480 acknowledged bytes,
    // which the lab's own 10 ms samples of the initial subflow bound.
    let sim = pathpool_sim::run(&model(&green("200kB")), &mut |_| {}).tables;
    let out = lab(&green("200kB")).unwrap();
    let join = |tables: &[Table]| actions(tables, "path_manager").into_iter().find(|a| a.1 == "open_subflow").expect("a join").0;
    let (sim_join, lab_join) = (join(&sim), join(&out.tables));
    let mut carried = 0.0;
    let crossing = subflow_series(&out.tables, 0)
        .into_iter()
        .find(|&(_, bps)| {
            carried += bps * 0.01 / 8.0;
            carried >= 14_480.0
        })
        .expect("the burst was carried")
        .0;
    eprintln!("FIGURE green join: simulator {sim_join:.3} s, lab {lab_join:.3} s, lab's sampled crossing in ({:.3}, {crossing:.3}] s", crossing - 0.01);
    assert!(lab_join >= crossing - 0.01 - 0.002 && lab_join <= crossing + 0.01 + 0.002, "lab joined at {lab_join}, crossing in ({}, {crossing}]", crossing - 0.01);
    assert_eq!(strs(table(&out.tables, "subflows"), "local_interface"), ["agent:wlan0", "agent:wlan1"]);
    // The lab's initial subflow is established later than the simulator's
    // (83 ms against 40 ms in the runs so far; not yet explained — the
    // first packets of a run crossing the userspace delay emulator, or
    // neighbour resolution over the delayed links, are suspects); from
    // establishment to join the planes agree.
    let established = |tables: &[Table]| f64s(table(tables, "subflows"), "established_s")[0];
    let (sim_after, lab_after) = (sim_join - established(&sim), lab_join - established(&out.tables));
    eprintln!("FIGURE green join after establishment: simulator {:.1} ms, lab {:.1} ms", sim_after * 1e3, lab_after * 1e3);
    assert!((lab_after - sim_after).abs() < 0.015, "simulator {sim_after}, lab {lab_after}");
    // The linear model's data reading on the lab: w_i × the bits the
    // interface's counters moved, both directions.
    let (ifaces, energy) = (table(&out.tables, "interfaces"), table(&out.tables, "energy"));
    for (name, w) in [("wlan0", 1.0), ("wlan1", 3.0)] {
        let k = (0..ifaces.rows()).find(|&k| strs(ifaces, "node")[k] == "agent" && strs(ifaces, "interface")[k] == name).expect("the interface");
        let bits = 8.0 * (f64s(ifaces, "bytes_sent")[k] + f64s(ifaces, "bytes_received")[k]);
        let e = (0..energy.rows()).find(|&k| strs(energy, "interface")[k] == name).map(|k| f64s(energy, "energy_j")[k]).expect("its energy");
        eprintln!("FIGURE lab energy {name}: {e:.0} J for {bits:.0} bits (w = {w})");
        assert!((e - w * bits).abs() <= 0.005 * w * bits, "{name}: {e} J for {bits} bits");
    }
}
