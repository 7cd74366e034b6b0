//! `tcp.rack = true`: RACK loss detection (RFC 8985 §6.2) beside RFC 6675's
//! (`tcp/rack.rs`). Under random loss some retransmissions are lost too;
//! RFC 6675 alone repairs those only by the retransmission timeout (and its
//! go-back-N), RACK within about a round trip, as Linux does.

mod common;

use common::{f64s, load_err, one_link_flow, run_toml, table};

/// One BBR flow, which keeps its window under loss: 100 Mb/s, 40 ms RTT, 1 % Bernoulli loss, 30 s.
fn lossy(rack: &str) -> String {
    one_link_flow(
        r#"duration = "30s"
sample_interval = "0s"
seed = 7"#,
        &format!("cc = \"bbr\"\n{rack}"),
        r#"rate = "100Mbps"
delay = "20ms"
queue = 333
loss = { model = "bernoulli", p = 0.01 }"#,
    )
}

#[test]
fn rack_repairs_lost_retransmissions_without_waiting_for_the_timer() {
    let flows = |rack: &str| {
        let out = run_toml(&lossy(rack));
        let t = table(&out, "flows");
        (f64s(t, "timeouts")[0], f64s(t, "goodput_bps")[0], f64s(t, "retransmits")[0], f64s(t, "segments_sent")[0])
    };
    let ((to_off, g_off, rx_off, _), (to_on, g_on, rx_on, sent_on)) = (flows(""), flows("rack = true"));
    println!(
        "FIGURE BBR, 1 % loss, 40 ms: timeouts {to_off} / {to_on}, goodput {:.2} / {:.2} Mb/s, retransmissions {rx_off} / {rx_on} (RFC 6675 / + RACK)",
        g_off / 1e6,
        g_on / 1e6
    );
    // About 1 % of the retransmissions are lost as well; each costs RFC 6675 a timeout.
    assert!(to_off >= 10.0, "the run should lose retransmissions: {to_off} timeouts");
    assert!(to_on <= 0.2 * to_off, "RACK left {to_on} of {to_off} timeouts");
    assert!(g_on > g_off, "{g_on} vs {g_off}");
    // No spurious marking: RACK resends about what is lost (1 % of the segments, startup's queue overflow and
    // lost retransmissions on top), where each timeout's go-back-N resent a window.
    assert!(rx_on <= 0.015 * sent_on, "{rx_on} retransmissions of {sent_on} segments");
    assert!(rx_on < 0.5 * rx_off, "{rx_on} vs {rx_off}");
}

#[test]
fn rack_needs_a_boolean() {
    let e = load_err(&lossy(r#"rack = "yes""#));
    assert!(e.contains("rack"), "{e}");
}
