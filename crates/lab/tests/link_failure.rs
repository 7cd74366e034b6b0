//! A link that goes down and comes back, on both planes (issue 18): the
//! subflow over it fails when it goes down — in the simulator at the event,
//! on the lab when the client's controller thread destroys it through the
//! userspace path manager — and the full-mesh path manager opens a new one
//! when it comes back. The two planes' `subflows` tables must agree. Needs
//! root and a kernel with MPTCP (SKIPPED otherwise); checks that the run
//! left no namespace behind.

mod common;

use common::{f64s, lab, model, runnable, strs, subflow_series, table};
use pathpool_sim::metrics::Table;

const TWO_PATHS: &str = include_str!("../../../validation/lab/two-paths.toml");

/// How late the lab may act on a link event: the controller thread wakes at
/// the event's model time and one `subflow-destroy` or `subflow-create`
/// round trip follows (about a millisecond, docs/lab.md); the rest is room
/// for the thread's wake-up on two cores shared with other work.
const BOUND_S: f64 = 0.050;

/// (local, remote, state, opened_s, closed_s) of each subflow, in id order.
fn rows(tables: &[Table]) -> Vec<(String, String, String, f64, f64)> {
    let t = table(tables, "subflows");
    let (local, remote, state) = (strs(t, "local_interface"), strs(t, "remote_interface"), strs(t, "state"));
    let (opened, closed) = (f64s(t, "opened_s"), f64s(t, "closed_s"));
    (0..local.len()).map(|k| (local[k].clone(), remote[k].clone(), state[k].clone(), opened[k], closed[k])).collect()
}

#[test]
fn a_link_down_fails_its_subflow_alike_on_both_planes() {
    if !runnable("a_link_down_fails_its_subflow_alike_on_both_planes") {
        return;
    }
    // path2 (r2 - server:eth1, the second subflow's server end) is down from 3 s to 5 s.
    let toml = TWO_PATHS
        .replace("duration = \"20s\"", "duration = \"7s\"")
        .replace("queue = 210\n", "queue = 210\nevents = [{ at = \"3s\", state = \"down\" }, { at = \"5s\", state = \"up\" }]\n");
    let sim = pathpool_sim::run(&model(&toml), &mut |_| {}).tables;
    let out = lab(&toml).unwrap();
    let (s, l) = (rows(&sim), rows(&out.tables));
    eprintln!("FIGURE link down subflows: simulator {s:?}");
    eprintln!("FIGURE link down subflows: lab {l:?}");
    let shape = |r: &[(String, String, String, f64, f64)]| r.iter().map(|x| (x.0.clone(), x.1.clone(), x.2.clone())).collect::<Vec<_>>();
    let expected = [("client:eth0", "server:eth0", "open"), ("client:eth1", "server:eth1", "failed"), ("client:eth1", "server:eth1", "open")]
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
    assert_eq!(shape(&s), expected, "simulator");
    assert_eq!(shape(&l), shape(&s), "lab");
    // The simulator fails the subflow at the event and re-opens at the next.
    assert_eq!((s[1].4, s[2].3), (3.0, 5.0));
    let (failed, reopened) = (l[1].4 - 3.0, l[2].3 - 5.0);
    eprintln!("FIGURE link down on the lab: failed {:+.1} ms after the event, re-opened {:+.1} ms after it came back", failed * 1e3, reopened * 1e3);
    assert!((0.0..=BOUND_S).contains(&failed), "lab subflow failed {failed} s after the link went down");
    assert!((0.0..=BOUND_S).contains(&reopened), "lab subflow re-opened {reopened} s after the link came up");
    // Nothing after the failure on the failed subflow; the first carries on
    // alone, and the new one carries data once the link is back.
    let late = |id: u32, from: f64, to: f64| subflow_series(&out.tables, id).iter().filter(|(t, _)| (from..to).contains(t)).map(|(_, r)| *r).sum::<f64>();
    assert_eq!(late(1, 3.0 + BOUND_S + 0.1, 7.0), 0.0, "the failed subflow was still sampled carrying data");
    assert!(late(0, 3.2, 5.0) > 0.0, "the remaining subflow carried nothing while the link was down");
    assert!(late(2, 5.2, 7.0) > 0.0, "the re-opened subflow carried nothing");
}
