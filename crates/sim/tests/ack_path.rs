//! `[sim] ack_path` (docs/scenario.md): with `instant`, pure ACKs skip the
//! queues and transmitters, as htsim's data-centre reverse path does.

mod common;
use common::{f64s, load_err, run_toml, strs, table};

/// a — r — b at 10 Mb/s with a 5-packet queue, bulk TCP both ways, so that
/// each flow's ACKs share a full queue with the other flow's data.
fn both_ways(ack_path: &str) -> String {
    format!(
        r#"
[sim]
duration = "5s"
{ack_path}
[[nodes]]
name = "a"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "r"
rate = "10Mbps"
delay = "5ms"
queue = 5
[[links]]
a = "r"
b = "b"
rate = "10Mbps"
delay = "5ms"
queue = 5
[[flows]]
name = "ab"
src = "a"
dst = "b"
[[flows]]
name = "ba"
src = "b"
dst = "a"
"#
    )
}

/// (mean size of the packets sent on r>b in bytes, goodput of each flow in bit/s).
fn measure(toml: &str) -> (f64, Vec<f64>) {
    let out = run_toml(toml);
    let l = table(&out, "links");
    let i = strs(l, "name").iter().position(|n| n == "r-b:r>b").expect("link r>b");
    (f64s(l, "bytes_sent")[i] / f64s(l, "packets_sent")[i], f64s(table(&out, "flows"), "goodput_bps"))
}

#[test]
fn instant_acks_leave_the_queues_to_data() {
    let (queued_size, queued) = measure(&both_ways(""));
    let (instant_size, instant) = measure(&both_ways("ack_path = \"instant\""));
    // r>b carries ab's 1500-byte data segments and ba's 52-byte ACKs; instant ACKs
    // are not transmitted there, so only data (and one SYN-ACK) is.
    assert!(instant_size > 1490.0, "mean packet on r>b with instant ACKs: {instant_size} bytes");
    assert!(queued_size < 1000.0, "mean packet on r>b with queued ACKs: {queued_size} bytes");
    // Without ACKs waiting behind a full queue of the other flow's data, each flow fills more of its link.
    for (q, i) in queued.iter().zip(&instant) {
        assert!(i > q, "goodput {i} b/s with instant ACKs, {q} with queued ACKs");
    }
}

#[test]
fn instant_acks_are_refused_beside_router_modules() {
    let toml = both_ways("ack_path = \"instant\"").replace("[[flows]]\nname = \"ab\"", "[routers]\nmodule = \"rcp\"\n[[flows]]\nname = \"ab\"");
    let err = load_err(&toml);
    assert!(err.contains("sim.ack_path") && err.contains("[routers]"), "{err}");
}
