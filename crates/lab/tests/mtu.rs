//! Link MTUs on the kernel lab (docs/scenario.md, "MTU and MSS"): both
//! veth ends take the link's `mtu`, so the receiver's kernel announces
//! MTU − 40 and the sender's segments shrink to it; and S-MPTCP's MSS rule
//! (docs/smptcp.md), set with TCP_MAXSEG before the phone's `connect`,
//! gives both subflows the smaller MSS. Needs root and says SKIPPED
//! otherwise.

mod common;

use common::{f64s, lab, runnable, strs, table};

/// a — r — b, the r–b link with `mtu`, and a 1 MB TCP transfer from a to b.
fn chain(mtu: &str) -> String {
    format!(
        r#"
[sim]
duration = "3s"
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

/// (packets, bytes) a sent on its link, as the emulator counted them.
fn sent_by_a(toml: &str) -> (f64, f64) {
    let out = lab(toml).unwrap();
    let l = table(&out.tables, "links");
    let i = strs(l, "name").iter().position(|n| n == "a-r:a>r").expect("link a>r");
    (f64s(l, "packets_sent")[i], f64s(l, "bytes_sent")[i])
}

#[test]
fn a_1440_byte_link_makes_the_kernel_send_smaller_segments() {
    if !runnable("lab mtu") {
        return;
    }
    let (p1500, b1500) = sent_by_a(&chain(""));
    let (p1440, b1440) = sent_by_a(&chain("mtu = 1440"));
    eprintln!("FIGURE lab mtu: 1500: {p1500} packets, {b1500} bytes; 1440: {p1440} packets, {b1440} bytes");
    // 1 MB in 1448-byte segments is 691 of them; in 1388-byte ones (1440 − 40 − 12 of timestamps), 721.
    assert!((691.0..721.0).contains(&p1500), "{p1500}");
    assert!(p1440 >= 721.0, "{p1440}");
    assert!(b1440 / p1440 <= 1440.0 + 14.0, "mean {} bytes", b1440 / p1440);
}

/// The S-MPTCP phone of crates/lab/tests/smptcp.rs with LTE's link at MTU
/// 1440 (the paper's Table 2) and Wi-Fi's at 1500: a 21 MB download, which
/// opens the LTE subflow at the request; S-MPTCP with `params`.
fn phone_lte_1440(params: &str) -> String {
    format!(
        r#"
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
queue = 100
[[links]]
a = "phone:lte0"
b = "enb"
rate = "10Mbps"
delay = "25ms"
queue = 200
mtu = 1440
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
name = "fetch"
src = "server"
dst = "phone"
client = "dst"
transport = "mptcp"
tcp = {{ cc = "cubic" }}
mptcp = {{ path_manager = "single_path", coupling = "uncoupled" }}
app = {{ kind = "download", size = "21MB" }}
[[devices]]
host = "phone"
rat = {{ wlan0 = [["0s", "wifi"]], lte0 = [["0s", "lte"]] }}
bandwidth = {{ wlan0 = [["0s", "20Mbps"]], lte0 = [["0s", "10Mbps"]] }}
[[controllers]]
host = "phone"
kind = "smptcp"
params = {{ {params} }}
sample_interval = "100ms"
"#
    )
}

/// (mean frame bytes, packets) the emulator carried to the phone from `router`:
/// the download's data on that subflow (no ACKs go that way).
fn to_phone_via(tables: &[pathpool_sim::metrics::Table], router: &str) -> (f64, f64) {
    let l = table(tables, "links");
    let names = strs(l, "name");
    let i = names.iter().position(|n| n.ends_with(&format!(":{router}>phone"))).unwrap_or_else(|| panic!("no {router}>phone in {names:?}"));
    let (p, b) = (f64s(l, "packets_sent")[i], f64s(l, "bytes_sent")[i]);
    (b / p, p)
}

#[test]
fn smptcp_mss_rule_equalises_the_subflows_mss() {
    if !runnable("lab smptcp mss") {
        return;
    }
    // Frames carry 14 bytes of Ethernet header beside the IP packet.
    let off = lab(&phone_lte_1440(r#"guard = "off", tune_mss = false"#)).unwrap();
    let (wifi, n_wifi) = to_phone_via(&off.tables, "ap");
    let (lte, n_lte) = to_phone_via(&off.tables, "enb");
    eprintln!("FIGURE lab smptcp mss off: Wi-Fi {wifi:.1} B x {n_wifi}, LTE {lte:.1} B x {n_lte}");
    let on = lab(&phone_lte_1440(r#"guard = "off""#)).unwrap();
    let log = table(&on.tables, "controller_log");
    let (a, d, o) = (strs(log, "action"), strs(log, "detail"), strs(log, "outcome"));
    let k = a.iter().position(|x| x == "set_mss").expect("a set_mss in the lab's log");
    assert_eq!((d[k].as_str(), o[k].as_str()), ("MSS 1400 bytes", "done"));
    let (wifi_on, n_wifi_on) = to_phone_via(&on.tables, "ap");
    let (lte_on, n_lte_on) = to_phone_via(&on.tables, "enb");
    eprintln!("FIGURE lab smptcp mss on: Wi-Fi {wifi_on:.1} B x {n_wifi_on}, LTE {lte_on:.1} B x {n_lte_on}");
    for n in [n_wifi, n_lte, n_wifi_on, n_lte_on] {
        assert!(n > 200.0, "{n} packets: both subflows carry data");
    }
    // Without the rule each subflow has its own path's MSS; with it both have LTE's.
    assert!(wifi > 1470.0, "Wi-Fi without the rule: mean {wifi} bytes");
    assert!(lte <= 1440.0 + 14.0, "LTE without the rule: mean {lte} bytes");
    assert!(wifi_on <= 1440.0 + 14.0 && wifi_on > 1400.0, "Wi-Fi with the rule: mean {wifi_on} bytes");
    assert!(lte_on <= 1440.0 + 14.0 && lte_on > 1400.0, "LTE with the rule: mean {lte_on} bytes");
}
