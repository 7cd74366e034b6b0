//! `[sim] host_egress = "qdisc"` (`testbed/host_qdisc.rs`): every host
//! interface gets a TBF qdisc at its outgoing rate and queue limit, routers
//! none; and a host whose own link is the bottleneck is then held back by
//! TCP Small Queues instead of losing packets in that link's queue, as a
//! real host behind its NIC is. Needs root and says SKIPPED otherwise.

mod common;

use std::process::Command;

use common::{f64s, lab, model, runnable, strs, table};
use pathpool_lab::testbed::Testbed;

/// One CUBIC flow whose bottleneck is the sender's own 10 Mb/s link with a
/// 20-packet queue; the router's link on is ten times faster.
fn host_bottleneck(host_egress: &str) -> String {
    format!(
        r#"
[sim]
duration = "4s"
host_egress = "{host_egress}"
[[nodes]]
name = "client"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "server"
[[links]]
a = "client"
b = "r"
rate = "10Mbps"
delay = "10ms"
queue = 20
[[links]]
a = "r"
b = "server"
rate = "100Mbps"
delay = "10ms"
[[flows]]
name = "up"
src = "client"
dst = "server"
tcp = {{ cc = "cubic" }}
"#
    )
}

fn tc_show(ns: &str) -> String {
    let out = Command::new("tc").args(["-n", ns, "-d", "qdisc", "show"]).output().expect("tc runs");
    assert!(out.status.success(), "tc -n {ns}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn each_host_interface_gets_a_tbf_at_its_outgoing_rate_and_limit() {
    if !runnable("lab host qdisc set-up") {
        return;
    }
    let tb = Testbed::build(&model(&host_bottleneck("qdisc"))).unwrap();
    let [client, server, router] = [tb.node("client"), tb.node("server"), tb.node("r")].map(|n| tc_show(n.unwrap().name()));
    // 20 packets of 1500 bytes; a bucket of two packets; IP bytes counted.
    assert!(client.contains("tbf") && client.contains("rate 10Mbit") && client.contains("burst 3000b"), "{client}");
    assert!(client.contains("overhead -14"), "{client}");
    // tc shows the limit as the time to drain it past the bucket: (30 000 − 3 000) bytes at 10 Mb/s.
    assert!(client.contains("lat 21.6ms"), "limit 30 000 bytes: {client}");
    assert!(server.contains("tbf") && server.contains("rate 100Mbit"), "{server}");
    assert!(!router.contains("tbf"), "routers get none: {router}");
}

#[test]
fn a_host_whose_own_link_is_the_bottleneck_is_held_back_not_dropped() {
    if !runnable("lab host qdisc backpressure") {
        return;
    }
    let run = |host_egress: &str| {
        let out = lab(&host_bottleneck(host_egress)).unwrap();
        let l = table(&out.tables, "links");
        let own = strs(l, "name").iter().position(|n| n == "client-r:client>r").expect("the client's link");
        let f = table(&out.tables, "flows");
        (f64s(l, "drops_queue")[own], f64s(f, "retransmits")[0], f64s(f, "goodput_bps")[0] / 1e6)
    };
    let (drops_d, retx_d, goodput_d) = run("drop_tail");
    let (drops_q, retx_q, goodput_q) = run("qdisc");
    eprintln!(
        "FIGURE lab host qdisc: drop_tail: {drops_d} drops at the client's link, {retx_d} retransmissions, {goodput_d:.2} Mb/s; \
         qdisc: {drops_q} drops, {retx_q} retransmissions, {goodput_q:.2} Mb/s"
    );
    // CUBIC fills any drop-tail queue it sends into.
    assert!(drops_d > 0.0 && retx_d > 0.0, "drop_tail: the link's queue should overflow");
    // TSQ keeps about a millisecond of the pacing rate in the qdisc, far below its 20 packets.
    assert_eq!((drops_q, retx_q), (0.0, 0.0), "qdisc: nothing lost");
    // The link is still the bottleneck and kept busy: 10 Mb/s × 1448/1500 over the run after the handshake.
    assert!(goodput_q >= 0.9 * 9.65 * 3.98 / 4.0, "qdisc goodput {goodput_q:.2} Mb/s");
}
