//! `tcp.sack_compression = true` (`tcp/sack_compression.rs`), Linux's
//! receiver that withholds duplicate ACKs beyond three per cumulative point,
//! and the check of `tcp.ssthresh_from` (its rule: `tcp/sender.rs` tests).

mod common;

use common::{f64s, load_err, one_link_flow, run_toml, strs, table};

/// One BBR flow under random loss, as the random suite's seed-1 scenario 017's cross flows (105.4 Mb/s,
/// 16.2 ms one way, 0.76 % loss); returns (data packets, ACKs) on the link.
fn data_and_acks(compression: &str) -> (f64, f64) {
    let text = one_link_flow(
        "duration = \"10s\"\nsample_interval = \"0s\"\nseed = 17",
        &format!("cc = \"bbr\"\n{compression}"),
        "rate = \"105.4Mbps\"\ndelay = \"16.2ms\"\nqueue = 285\nloss = { model = \"bernoulli\", p = 0.0076 }",
    );
    let out = run_toml(&text);
    let links = table(&out, "links");
    let (names, sent) = (strs(links, "name"), f64s(links, "packets_sent"));
    let on = |dir: &str| sent[names.iter().position(|n| n.ends_with(dir)).expect("both directions listed")];
    (on(":a>b"), on(":b>a"))
}

#[test]
fn under_random_loss_a_compressing_receiver_sends_about_one_ack_in_three_or_four() {
    let (data_off, acks_off) = data_and_acks("");
    let (data_on, acks_on) = data_and_acks("sack_compression = true");
    println!(
        "FIGURE BBR, 0.76 % loss: ACKs per data packet {:.3} (RFC 5681) / {:.3} (SACK compression); the lab kernel 0.286 over all of seed 1's 017",
        acks_off / data_off,
        acks_on / data_on
    );
    // The receiver nearly always holds a hole: RFC 5681 ACKs every segment at once.
    assert!(acks_off > 0.95 * data_off, "{acks_off} ACKs for {data_off} data packets");
    // Linux's receiver: three at once per cumulative point, then one per min(1 ms, RTT/20) or 44 segments.
    let ratio = acks_on / data_on;
    assert!((0.15..0.45).contains(&ratio), "{acks_on} ACKs for {data_on} data packets");
}

#[test]
fn the_options_are_checked() {
    let base = |tcp: &str| one_link_flow("duration = \"1s\"", tcp, "rate = \"10Mbps\"\ndelay = \"5ms\"");
    assert!(load_err(&base("sack_compression = 1")).contains("sack_compression"));
    let e = load_err(&base("ssthresh_from = \"pipe\""));
    assert!(e.contains("ssthresh_from") || e.contains("flight_size"), "{e}");
}
