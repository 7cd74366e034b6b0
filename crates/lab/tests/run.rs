//! Scenarios run end to end on the kernel lab (issue 6's validation): real
//! Linux MPTCP over emulated paths, driven by pathpool's traffic and
//! controllers, results in the simulator's tables. They need
//! root and a kernel with MPTCP, and say SKIPPED otherwise. Each checks that
//! its run left no namespace behind.

mod common;

use common::{column, f64s, lab, runnable, strs, subflow_series, table};
use pathpool_lab::run::Error;
use pathpool_sim::metrics::Column;

const TWO_PATHS: &str = include_str!("../../../validation/lab/two-paths.toml");

#[test]
fn kernel_mptcp_aggregates_two_paths() {
    if !runnable("kernel_mptcp_aggregates_two_paths") {
        return;
    }
    let toml = TWO_PATHS.replace("duration = \"20s\"", "duration = \"10s\"");
    let out = lab(&toml).unwrap();
    let goodput = f64s(table(&out.tables, "flows"), "goodput_bps")[0];
    // Payload capacity: 1448 payload bytes in every 1500-byte IP packet
    // (the emulator, like the simulator, charges links for IP bytes).
    let sum = (20e6 + 30e6) * 1448.0 / 1500.0;
    eprintln!("FIGURE lab two paths: {:.2} Mb/s = {:.1} % of the paths' payload capacity", goodput / 1e6, 100.0 * goodput / sum);
    assert!(goodput >= 0.85 * sum, "aggregate {goodput} < 85 % of {sum}");
    let subflows = table(&out.tables, "subflows");
    assert_eq!(f64s(subflows, "subflow_id"), [0.0, 1.0]);
    assert_eq!(strs(subflows, "local_interface"), ["client:eth0", "client:eth1"]);
}

#[test]
fn backup_subflow_carries_nothing_until_the_primary_path_fails() {
    if !runnable("backup_subflow_carries_nothing_until_the_primary_path_fails") {
        return;
    }
    // 30 MB: about 6 s over path 1 alone, so path 1 fails mid-transfer at 3 s.
    let toml = TWO_PATHS
        .replace("duration = \"20s\"", "duration = \"25s\"")
        .replace("path_manager = \"fullmesh\" }", "path_manager = \"backup\" }\nsize = \"30MB\"")
        .replace("queue = 40\n", "queue = 40\nevents = [{ at = \"3s\", state = \"down\" }]\n");
    let out = lab(&toml).unwrap();
    let flows = table(&out.tables, "flows");
    let Column::Bool(done) = column(flows, "completed") else { panic!() };
    let fct = f64s(flows, "fct_s")[0];
    let backup_series = subflow_series(&out.tables, 1);
    let first = backup_series.iter().find(|(_, r)| *r > 0.0).map_or(f64::NAN, |(t, _)| *t);
    eprintln!("FIGURE lab backup failover: path 1 down at 3 s, backup carrying data by {first:.1} s, transfer completed {} in {fct:.2} s", done[0]);
    assert!(done[0], "the transfer did not complete");
    let Column::Bool(backup) = column(table(&out.tables, "subflows"), "backup") else { panic!() };
    assert_eq!(backup, &[false, true]);
    let before: f64 = backup_series.iter().filter(|(t, _)| *t <= 3.0).map(|(_, r)| r).sum();
    let after: f64 = backup_series.iter().filter(|(t, _)| *t > 3.0).map(|(_, r)| r).sum();
    assert_eq!(before, 0.0, "the backup subflow carried data before the failure");
    assert!(after > 0.0, "the backup subflow carried nothing after the failure");
}

#[test]
fn userspace_pm_opens_the_second_subflow_when_the_scenario_says() {
    if !runnable("userspace_pm_opens_the_second_subflow_when_the_scenario_says") {
        return;
    }
    let toml = TWO_PATHS
        .replace("duration = \"20s\"", "duration = \"6s\"")
        .replace("path_manager = \"fullmesh\" }", "path_manager = \"single_path\", actions = [{ at = \"3s\", open = \"client:eth1\", peer = \"server:eth1\" }] }");
    let out = lab(&toml).unwrap();
    let subflows = table(&out.tables, "subflows");
    let opened = f64s(subflows, "opened_s");
    let established = f64s(subflows, "established_s");
    eprintln!("FIGURE lab userspace PM: second subflow opened at {:.3} s, established at {:.3} s", opened[1], established[1]);
    assert_eq!(opened.len(), 2, "one subflow at the start, one when told");
    assert!((3.0..3.1).contains(&opened[1]), "opened at {}", opened[1]);
    assert!(established[1] >= opened[1] && established[1] < opened[1] + 0.5, "established at {}", established[1]);
    let series = subflow_series(&out.tables, 1);
    assert!(series.iter().all(|(t, _)| *t >= 3.0), "subflow 1 sampled before it existed");
    assert!(series.iter().any(|(_, r)| *r > 0.0), "subflow 1 never carried data");
}

#[test]
fn unsupported_features_are_refused_before_anything_starts() {
    if !runnable("unsupported_features_are_refused_before_anything_starts") {
        return;
    }
    let toml = TWO_PATHS.replace("coupling = \"uncoupled\"", "coupling = \"olia\"").replace("scheduler = \"minrtt\"", "scheduler = \"redundant\"");
    match lab(&toml) {
        Err(Error::Refused(lines)) => {
            assert_eq!(lines.len(), 2, "{lines:?}");
            assert!(lines[0].contains("mptcp.coupling 'olia'"), "{}", lines[0]);
            assert!(lines[1].contains("mptcp.scheduler 'redundant'"), "{}", lines[1]);
        }
        Err(e) => panic!("refused for the wrong reason: {e}"),
        Ok(_) => panic!("ran a scenario the kernel cannot run"),
    }
}

#[test]
fn kernel_path_manager_opens_subflows_from_endpoints() {
    if !runnable("kernel_path_manager_opens_subflows_from_endpoints") {
        return;
    }
    let toml = TWO_PATHS.replace("duration = \"20s\"", "duration = \"8s\"") + "\n[lab]\npath_manager = \"kernel\"\n";
    let out = lab(&toml).unwrap();
    let subflows = table(&out.tables, "subflows");
    let established: Vec<(String, String)> = strs(subflows, "local_interface")
        .into_iter()
        .zip(strs(subflows, "remote_interface"))
        .zip(f64s(subflows, "established_s"))
        .filter(|(_, t)| !t.is_nan())
        .map(|(pair, _)| pair)
        .collect();
    let goodput = f64s(table(&out.tables, "flows"), "goodput_bps")[0];
    eprintln!("FIGURE lab kernel path manager: subflows {established:?}, {:.2} Mb/s", goodput / 1e6);
    // The server's `signal` endpoint announces server:eth1, and the client
    // joins it from client:eth1 (the only route there).
    assert!(established.contains(&("client:eth0".into(), "server:eth0".into())));
    assert!(established.contains(&("client:eth1".into(), "server:eth1".into())), "{established:?}");
    assert!(goodput >= 0.8 * (20e6 + 30e6) * 1448.0 / 1500.0, "{goodput}");
}

#[test]
fn a_response_starts_when_its_request_has_arrived() {
    if !runnable("a_response_starts_when_its_request_has_arrived") {
        return;
    }
    let toml = include_str!("../../../python/pathpool/scenarios/request-response.toml").replace("count = 5", "count = 2");
    let out = lab(&toml).unwrap();
    let flows = table(&out.tables, "flows");
    let (start, finish) = (f64s(flows, "start_s"), f64s(flows, "finish_s"));
    for i in 0..2 {
        let (req, resp) = (i, 2 + i);
        eprintln!("FIGURE lab request/response {i}: request done {:.3} s, response started {:.3} s, done {:.3} s", finish[req], start[resp], finish[resp]);
        assert!(start[resp] >= finish[req] && start[resp] < finish[req] + 0.1, "response {i} started at {}", start[resp]);
        assert!(finish[resp] > start[resp] + 0.4, "1 MB at 20 Mb/s takes 0.4 s");
    }
}
