//! Link MTUs on the kernel lab (docs/scenario.md, "MTU and MSS"): both
//! veth ends take the link's `mtu`, so the receiver's kernel announces
//! MTU − 40 and the sender's segments shrink to it. Needs root and says
//! SKIPPED otherwise.

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
