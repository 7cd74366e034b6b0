//! Link MTUs (docs/scenario.md, `mtu`): they bound a connection's segments
//! through the MSS each end announces (RFC 9293 §3.7.1), each MPTCP subflow
//! by its own interfaces', and bad values are refused before the run.

mod common;
use common::{f64s, load_err, run_toml, strs, table};

/// a — r — b, the r–b link with `mtu` (none: the default 1500), and a
/// 1 MB TCP transfer from a to b.
fn chain(mtu: &str, header: &str) -> String {
    format!(
        r#"
[sim]
duration = "5s"
{header}
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
rate = "50Mbps"
delay = "5ms"
queue = 1000
[[links]]
a = "r"
b = "b"
rate = "50Mbps"
delay = "5ms"
queue = 1000
{mtu}
[[flows]]
name = "f"
src = "a"
dst = "b"
size = "1MB"
"#
    )
}

/// (packets, bytes) a sent on its link: the SYN and the data segments.
fn sent_by_a(toml: &str) -> (f64, f64) {
    let out = run_toml(toml);
    let l = table(&out, "links");
    let i = strs(l, "name").iter().position(|n| n == "a-r:a>r").expect("link a>r");
    let (packets, bytes) = (f64s(l, "packets_sent")[i], f64s(l, "bytes_sent")[i]);
    assert_eq!(f64s(table(&out, "flows"), "retransmits")[0], 0.0, "a clean transfer");
    (packets, bytes)
}

#[test]
fn the_receivers_smaller_mtu_makes_the_sender_send_smaller_segments() {
    // Default 1500: 1 MB in 1448-byte segments (691) plus the SYN.
    let (packets, bytes) = sent_by_a(&chain("", ""));
    assert_eq!(packets, 691.0 + 1.0);
    assert_eq!(bytes, 1_000_000.0 + 692.0 * 52.0);
    // b's link has MTU 1440: b announces 1400, a sends 1388-byte segments (721).
    let (packets, bytes) = sent_by_a(&chain("mtu = 1440", ""));
    assert_eq!(packets, 721.0 + 1.0);
    assert_eq!(bytes, 1_000_000.0 + 722.0 * 52.0);
    // Without the timestamps (header_bytes 40), the MSS is the payload: 1400 (715 segments).
    let (packets, _) = sent_by_a(&chain("mtu = 1440", "header_bytes = 40"));
    assert_eq!(packets, 715.0 + 1.0);
}

#[test]
fn bad_mtus_are_refused_naming_the_field() {
    let e = load_err(&chain("mtu = 50", ""));
    assert!(e.contains("bad.toml") && e.contains("links[1].mtu: must be between 68 and 65535 bytes"), "{e}");
    let e = load_err(&chain("mtu = 70000", ""));
    assert!(e.contains("links[1].mtu: must be between 68 and 65535 bytes"), "{e}");
    let e = load_err(&chain("mtu = 100", "header_bytes = 100"));
    assert!(e.contains("links[1].mtu: must be larger than sim.header_bytes (100)"), "{e}");
    let e = load_err(&chain("mtu = \"big\"", ""));
    assert!(e.contains("links[1]") && e.contains("mtu"), "{e}");
}

#[test]
fn an_mtu_between_routers_below_the_hosts_is_refused() {
    // No path-MTU discovery: a smaller MTU inside the network would drop full-sized segments.
    let toml = chain("", "").replace(
        "[[flows]]",
        "[[nodes]]\nname = \"r2\"\nkind = \"router\"\n[[links]]\na = \"r\"\nb = \"r2\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\nmtu = 1400\n[[flows]]",
    );
    let e = load_err(&toml);
    assert!(e.contains("links[2].mtu: 1400 between two routers is below a host link's MTU (1500)"), "{e}");
}

/// A client with two interfaces (p0 on a 1500-byte link, p1 on a 1440-byte
/// one) sending 4 MB over MPTCP full mesh to a single-homed server; `extra`
/// goes on p0's link (events).
fn two_mtus(extra: &str) -> String {
    format!(
        r#"
[sim]
duration = "20s"
[[nodes]]
name = "client"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "server"
[[links]]
name = "p0"
a = "client:p0"
b = "r"
rate = "20Mbps"
delay = "5ms"
queue = 100
{extra}
[[links]]
name = "p1"
a = "client:p1"
b = "r"
rate = "10Mbps"
delay = "20ms"
queue = 100
mtu = 1440
[[links]]
a = "r"
b = "server"
rate = "1Gbps"
delay = "1ms"
[[flows]]
src = "client"
dst = "server"
size = "4MB"
transport = "mptcp"
mptcp = {{ path_manager = "fullmesh" }}
"#
    )
}

/// (mean wire bytes, packets) the client sent on interface `iface`'s link.
fn client_sent_on(out: &pathpool_sim::RunOutput, iface: &str) -> (f64, f64) {
    let l = table(out, "links");
    let names = strs(l, "name");
    let i = names.iter().position(|n| *n == format!("{iface}:client>r")).unwrap_or_else(|| panic!("no {iface} in {names:?}"));
    let (p, b) = (f64s(l, "packets_sent")[i], f64s(l, "bytes_sent")[i]);
    (b / p, p)
}

#[test]
fn each_mptcp_subflow_negotiates_its_own_mss() {
    // Linux sizes each subflow by its own path (RFC 9293 §3.7.1 on each
    // subflow's handshake; `mptcp_sendmsg_frag`): 1448 + 52 on p0, 1388 + 52 on p1.
    let out = run_toml(&two_mtus(""));
    let (p0, n0) = client_sent_on(&out, "p0");
    let (p1, n1) = client_sent_on(&out, "p1");
    eprintln!("FIGURE mtu mptcp: p0 {p0:.1} B x {n0}, p1 {p1:.1} B x {n1}");
    assert!(n0 > 500.0 && n1 > 500.0, "{n0} {n1}");
    assert!(p0 > 1490.0 && p0 <= 1500.0, "p0 mean {p0}");
    assert!(p1 > 1430.0 && p1 <= 1440.0, "p1 mean {p1}");
    assert_eq!(out.summary["flows_completed"], 1, "{}", out.summary);
}

#[test]
fn data_cut_for_the_larger_mss_is_reinjected_in_smaller_pieces() {
    // p0 (1448-byte chunks) fails at 1 s: its unacknowledged chunks go
    // again on p1, whose MSS is 1388, each in two segments; the receiver
    // rebuilds the stream by DSN and the 4 MB arrive.
    let out = run_toml(&two_mtus(r#"events = [{ at = "1s", state = "down" }]"#));
    let (p1, _) = client_sent_on(&out, "p1");
    assert!(p1 <= 1440.0, "p1 mean {p1}");
    assert_eq!(out.summary["flows_completed"], 1, "{}", out.summary);
    let delivered = f64s(table(&out, "flows"), "bytes_delivered")[0];
    assert_eq!(delivered, 4e6);
    let reinjected: f64 = f64s(table(&out, "subflows"), "bytes_reinjected").iter().sum();
    assert!(reinjected > 0.0, "nothing was reinjected");
}
