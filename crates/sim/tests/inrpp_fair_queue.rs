//! The INRPP routers' `fair_queue` option (deficit round robin between the
//! cached INRPP traffic and the TCP partition, `router/inrpp/fair.rs`) on
//! the built-in `inrpp-tcp-friendliness` (Reñé et al., §V-A, Fig. 19(b)),
//! cut to 10 s: TCP's RTT among INRPP flows against TCP alone, with the
//! shipped turn-taking and with fair queueing. `make inrpp-sensitivity`
//! prints the 40 s figures (docs/reproductions/inrpp.md).

mod common;
use common::*;
use pathpool_sim::RunOutput;

fn builtin() -> String {
    let path = format!("{}/../../python/pathpool/scenarios/inrpp-tcp-friendliness.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(text.contains("duration = \"40s\""), "the built-in runs 40 s");
    text.replace("duration = \"40s\"", "duration = \"10s\"")
}

/// The TCP flows' (mean RTT, mean goodput).
fn tcp(out: &RunOutput) -> (f64, f64) {
    let t = table(out, "flows");
    let (names, rtt, goodput) = (strs(t, "name"), f64s(t, "rtt_mean_s"), f64s(t, "goodput_bps"));
    let i: Vec<usize> = (0..names.len()).filter(|&i| names[i].starts_with("tcp")).collect();
    let mean = |v: &[f64]| i.iter().map(|&k| v[k]).sum::<f64>() / i.len() as f64;
    (mean(&rtt), mean(&goodput))
}

/// The same hosts with 100 TCP flows on plain routers (as validation/inrpp_sensitivity.py's tcp_alone).
fn alone() -> String {
    let text = builtin();
    let head = &text[..text.find("[[flows]]").expect("flows")];
    format!(
        "{head}[[flows]]\ncount = 50\nname = \"tcpa{{i}}\"\nsrc = \"s{{i}}\"\ndst = \"d{{i}}\"\nstart_step = \"10ms\"\ntransport = \"tcp\"\n\n\
         [[flows]]\ncount = 50\nname = \"tcp{{i}}\"\nsrc = \"t{{i}}\"\ndst = \"u{{i}}\"\nstart_step = \"10ms\"\ntransport = \"tcp\"\n"
    )
}

#[test]
fn fair_queueing_brings_tcps_rtt_among_inrpp_flows_down_to_tcp_alone() {
    let (alone_rtt, alone_goodput) = tcp(&run_toml(&alone()));
    let (shared_rtt, shared_goodput) = tcp(&run_toml(&builtin()));
    let (fq_rtt, fq_goodput) = tcp(&run_toml(&format!("{}fair_queue = true\n", builtin())));
    let (fq25_rtt, fq25_goodput) = tcp(&run_toml(&format!("{}fair_queue = true\ntcp_partition = \"25ms\"\n", builtin())));
    eprintln!(
        "FIGURE INRPP Fig. 19(b), 10 s: TCP mean RTT alone {:.0} ms, mixed {:.0} ms, mixed with fair_queue {:.0} ms, \
         with fair_queue and a 25 ms partition {:.0} ms; TCP goodput {:.0} / {:.0} / {:.0} / {:.0} kb/s",
        alone_rtt * 1e3,
        shared_rtt * 1e3,
        fq_rtt * 1e3,
        fq25_rtt * 1e3,
        alone_goodput / 1e3,
        shared_goodput / 1e3,
        fq_goodput / 1e3,
        fq25_goodput / 1e3
    );
    // Shipped: TCP waits behind the queue the INRPP cache refills (50 ms) and then its own partition.
    assert!(shared_rtt > 1.5 * alone_rtt, "the shipped turn-taking: TCP's RTT well above alone's");
    // Fair queueing: TCP waits only behind its own partition, drained at its share (half) of the link.
    assert!(fq_rtt < 0.8 * shared_rtt, "fair queueing shortens TCP's RTT");
    // A partition of 50 ms at TCP's half share (25 ms of the link): within 15 % of TCP alone.
    assert!((fq25_rtt / alone_rtt - 1.0).abs() < 0.15, "fair queueing and a 25 ms partition: TCP's RTT as alone");
    // TCP's goodput is its half of the bottleneck either way (Fig. 19(a)).
    for g in [shared_goodput, fq_goodput, fq25_goodput] {
        assert!((g / alone_goodput - 1.0).abs() < 0.1, "TCP's goodput {g} against {alone_goodput} alone");
    }
}

#[test]
fn fair_queue_without_a_tcp_partition_is_refused() {
    let e = load_err(&format!("{}fair_queue = true\ntcp_partition = \"0s\"\n", builtin()));
    assert!(e.contains("fair_queue") && e.contains("tcp_partition"), "{e}");
}
