//! `tcp.initial_ssthresh`: slow start ends at the given window instead of
//! at the first loss (RFC 5681 §3.1 allows any initial value; htsim's TCP
//! starts at 100 segments), and 0 is refused.

mod common;

use common::{f64s, load_err, one_link_flow, run_toml, table};

fn one_flow(tcp: &str) -> String {
    one_link_flow(
        r#"duration = "300ms"
sample_interval = "0s""#,
        &format!("cc = \"newreno\"\n{tcp}"),
        r#"rate = "100Mbps"
delay = "10ms"
queue = 1000"#,
    )
}

#[test]
fn a_low_initial_ssthresh_leaves_slow_start_at_once() {
    let delivered = |tcp: &str| f64s(table(&run_toml(&one_flow(tcp)), "flows"), "bytes_delivered")[0];
    let (default, low) = (delivered(""), delivered("initial_ssthresh = 2"));
    println!("FIGURE delivered in 300 ms at 100 Mb/s, 20 ms RTT: {default} bytes (slow start), {low} bytes (ssthresh 2 segments)");
    // Slow start fills the 100 Mb/s path within ~8 RTTs; from a 10-segment window
    // congestion avoidance adds one segment per 20 ms RTT (≈ 25 segments by the end).
    assert!(low < 0.5 * default, "{low} vs {default}");
    let e = load_err(&one_flow("initial_ssthresh = 0"));
    assert!(e.contains("tcp.initial_ssthresh"), "{e}");
}
