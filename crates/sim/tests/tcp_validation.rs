//! TCP behaviour against closed-form models and expectations that can fail.

mod common;
use common::*;

/// One flow on a lossless path reaches ≥ 95 % of the bottleneck in steady state.
#[test]
fn single_flow_fills_lossless_bottleneck() {
    let out = run_toml(
        r#"
        [sim]
        duration = "30s"
        [topology]
        kind = "dumbbell"
        pairs = 1
        access = { rate = "1Gbps", delay = "1ms", queue = 1000 }
        bottleneck = { rate = "10Mbps", delay = "20ms", queue = 50 }
        [[flows]]
        src = "src0"
        dst = "dst0"
        "#,
    );
    let g = mean_goodput(&out, 0, 10.0, 30.0);
    // Payload share of a 1500-byte packet: 1448/1500.
    let max = 10e6 * 1448.0 / 1500.0;
    eprintln!("FIGURE steady-state goodput: {:.2} Mb/s = {:.1} % of the 10 Mb/s link's payload capacity", g / 1e6, 100.0 * g / max);
    assert!(g >= 0.95 * max, "steady-state goodput {g} < 95% of {max}");
    assert!(g <= max * 1.001, "goodput {g} exceeds the payload capacity {max}");
}

/// Padhye et al. (SIGCOMM 1998) with b = 1, as eq. 6 of the eMPTCP paper:
/// B = s / (R·√(2p/3) + T0·min(1, 3√(3p/8))·p·(1 + 32p²)).
fn padhye_bps(mss: f64, rtt: f64, p: f64, t0: f64) -> f64 {
    let denom = rtt * (2.0 * p / 3.0).sqrt() + t0 * (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    mss * 8.0 / denom
}

fn lossy_newreno(p: f64, seed: u64) -> (f64, f64) {
    let out = run_toml(&format!(
        r#"
        [sim]
        duration = "1000s"
        seed = {seed}
        sample_interval = 0
        [tcp]
        sack = false
        recovery = "rfc6675"
        [[nodes]]
        name = "a"
        [[nodes]]
        name = "b"
        [[links]]
        a = "a"
        b = "b"
        rate = "1Gbps"
        delay = "50ms"
        queue = 10000
        a_to_b = {{ loss = {{ model = "bernoulli", p = {p} }} }}
        [[flows]]
        src = "a"
        dst = "b"
        "#
    ));
    let flows = table(&out, "flows");
    (f64s(flows, "goodput_bps")[0], f64s(flows, "rtt_mean_s")[0])
}

/// NewReno under random loss matches the Padhye formula within 25 %.
/// 1000 s gives a few hundred loss events at p = 0.1 %, so the figure does
/// not hinge on the seed (seeds 1–5 give ratios 1.11–1.20).
#[test]
fn newreno_matches_padhye_under_random_loss() {
    for p in [0.001, 0.01] {
        let (goodput, rtt) = lossy_newreno(p, 1);
        // RTO ≈ max(min_rto, srtt + 4·rttvar) = 200 ms on this constant-delay path.
        let model = padhye_bps(1448.0, rtt, p, 0.2);
        let ratio = goodput / model;
        eprintln!("FIGURE Padhye p={p}: simulated {:.3} Mb/s, model {:.3} Mb/s (mean RTT {:.1} ms), ratio {ratio:.3}", goodput / 1e6, model / 1e6, rtt * 1e3);
        assert!((0.75..=1.25).contains(&ratio), "p={p}: simulated/Padhye = {ratio:.3}");
    }
}

/// The full model of Padhye et al. (SIGCOMM 1998, eq. 31) with b = 1
/// (every segment ACKed) and no receiver-window limit, packets/s × MSS:
/// triple-duplicate losses, timeouts (Q̂) and their backoff (f(p)).
fn padhye_full_bps(mss: f64, rtt: f64, p: f64, t0: f64) -> f64 {
    let b = 1.0;
    let c = (2.0 + b) / (3.0 * b);
    let ew = c + (8.0 * (1.0 - p) / (3.0 * b * p) + c * c).sqrt();
    let q = 1.0 - p;
    let q_hat = ((1.0 - q.powi(3)) * (1.0 + q.powi(3) * (1.0 - q.powf(ew - 3.0))) / (1.0 - q.powf(ew))).min(1.0);
    let f = 1.0 + p + 2.0 * p.powi(2) + 4.0 * p.powi(3) + 8.0 * p.powi(4) + 16.0 * p.powi(5) + 32.0 * p.powi(6);
    let packets = ((1.0 - p) / p + ew + q_hat / (1.0 - p)) / (rtt * (b / 2.0 * ew + 1.0) + q_hat * t0 * f / (1.0 - p));
    packets * mss * 8.0
}

/// One bulk flow over a 1 Gb/s path of base RTT `rtt_ms` with Bernoulli
/// loss `p` on data: (goodput, mean RTT).
fn lossy_flow(p: f64, rtt_ms: u32, sack: bool, duration: u32) -> (f64, f64) {
    let out = run_toml(&format!(
        r#"
        [sim]
        duration = "{duration}s"
        sample_interval = 0
        [tcp]
        sack = {sack}
        [[nodes]]
        name = "a"
        [[nodes]]
        name = "b"
        [[links]]
        a = "a"
        b = "b"
        rate = "1Gbps"
        delay = "{}us"
        queue = 10000
        a_to_b = {{ loss = {{ model = "bernoulli", p = {p} }} }}
        [[flows]]
        src = "a"
        dst = "b"
        "#,
        rtt_ms * 500
    ));
    let flows = table(&out, "flows");
    (f64s(flows, "goodput_bps")[0], f64s(flows, "rtt_mean_s")[0])
}

/// Goodput against Padhye's full model over random loss 0.1–10 % × base
/// RTT 10–200 ms. T0, the RTO, is max(min_rto, srtt + G) on this
/// constant-delay path. The model takes a loss to end its round (every
/// later packet of the round lost too), so a loss with fewer than three
/// packets after it in its round is a timeout (Q̂ ≈ 3/W). Under independent
/// loss the later packets still arrive and their duplicate ACKs start fast
/// retransmit, so timeouts are far rarer (p = 1 %, 10 ms: 41 timeouts in
/// 4 877 retransmissions, against Q̂ ≈ 0.18), and each one the model counts
/// costs T0 = 200 ms = T0/RTT round trips. Hence the sign: the simulation
/// sits above the model, by more as T0/RTT and p grow. Where T0 ≤ 2·RTT
/// (RTT ≥ 100 ms) it is within a ratio of 1.35 at every loss rate; below,
/// it is above the model (up to 2.7× at 10 ms and 5–10 % loss).
fn padhye_grid(sack: bool) {
    let label = if sack { "SACK" } else { "NewReno" };
    for p in [0.001, 0.01, 0.05, 0.1] {
        // A few hundred loss events at least at the lowest rate.
        let duration = if p < 0.005 { 1000 } else { 300 };
        for rtt_ms in [10, 50, 100, 200] {
            let (goodput, rtt) = lossy_flow(p, rtt_ms, sack, duration);
            let t0 = (rtt + 0.001).max(0.2);
            let model = padhye_full_bps(1448.0, rtt, p, t0);
            let ratio = goodput / model;
            eprintln!("FIGURE Padhye full, {label}, p={p}, RTT {rtt_ms} ms: simulated {:.3} Mb/s, model {:.3} Mb/s, ratio {ratio:.3}", goodput / 1e6, model / 1e6);
            assert!(ratio >= 1.0 / 1.35, "{label} p={p} rtt={rtt_ms} ms: simulated/Padhye = {ratio:.3}");
            if t0 <= 2.0 * rtt + 0.001 {
                assert!(ratio <= 1.35, "{label} p={p} rtt={rtt_ms} ms: simulated/Padhye = {ratio:.3}");
            } else {
                assert!(ratio > 1.0, "{label} p={p} rtt={rtt_ms} ms: below the model ({ratio:.3}) where its timeouts overcount");
            }
        }
    }
}

#[test]
fn sack_matches_full_padhye_over_a_grid() {
    padhye_grid(true);
}

#[test]
fn newreno_matches_full_padhye_over_a_grid() {
    padhye_grid(false);
}

/// htsim's dumbbell (10 flows from infinite ssthresh into a 100 Mb/s,
/// 200-packet bottleneck; `../shared/anchors/htsim`): NewReno without SACK
/// keeps ≥ 95 % of what SACK gets. Before the FlightSize fix it got 68 %: a
/// long slow-start recovery sent thousands of segments on duplicate ACKs,
/// and the next loss took ssthresh from all of them.
fn htsim_dumbbell(sack: bool) -> f64 {
    let out = run_toml(&format!(
        r#"
        [sim]
        duration = "10s"
        sample_interval = 0
        [tcp]
        sack = {sack}
        min_rto = "250ms"
        [topology]
        kind = "dumbbell"
        pairs = 10
        access = {{ rate = "1Gbps", delay = "1ms" }}
        bottleneck = {{ rate = "100Mbps", delay = "10ms", queue = 200 }}
        [[flows]]
        count = 10
        src = "src{{i}}"
        dst = "dst{{i}}"
        start_step = "10ms"
        "#
    ));
    out.summary["total_goodput_bps"].as_f64().unwrap()
}

#[test]
fn newreno_without_sack_keeps_up_on_htsims_dumbbell() {
    let (reno, sack) = (htsim_dumbbell(false), htsim_dumbbell(true));
    eprintln!("FIGURE htsim dumbbell, 10 flows: NewReno {:.2} Mb/s, SACK {:.2} Mb/s, ratio {:.3}", reno / 1e6, sack / 1e6, reno / sack);
    assert!(reno >= 0.95 * sack, "NewReno {reno} vs SACK {sack}");
}

fn shared_bottleneck(delays_ms: &[u32], queue: u32, duration: u32) -> Vec<f64> {
    let n = delays_ms.len();
    let delays: Vec<String> = delays_ms.iter().map(|d| format!("\"{d}ms\"")).collect();
    let out = run_toml(&format!(
        r#"
        [sim]
        duration = "{duration}s"
        sample_interval = "1s"
        [topology]
        kind = "dumbbell"
        pairs = {n}
        access = {{ rate = "1Gbps", delay = "1ms", queue = 1000 }}
        access_delays = [{}]
        bottleneck = {{ rate = "40Mbps", delay = "10ms", queue = {queue} }}
        [[flows]]
        count = {n}
        src = "src{{i}}"
        dst = "dst{{i}}"
        start_step = "137ms"
        "#,
        delays.join(", ")
    ));
    (0..n as u32).map(|f| mean_goodput(&out, f, 10.0, duration as f64)).collect()
}

/// Ten flows with equal RTTs share fairly over 60 s.
#[test]
fn equal_rtt_flows_share_fairly() {
    let g = shared_bottleneck(&[1; 10], 100, 60);
    let jain = pathpool_sim::metrics::stats::jain_index(&g).unwrap();
    eprintln!("FIGURE 10 flows, equal RTT, 60 s: Jain's index {jain:.3}");
    assert!(jain >= 0.9, "Jain's index {jain:.3} for {g:?}");
}

/// With RTTs 1:2 the shorter-RTT flows get 1.5–4× the throughput (RTT unfairness).
///
/// Four flows per RTT class, compared class to class: with one flow each, a
/// deterministic drop-tail simulation shows phase effects (Floyd & Jacobson,
/// "On Traffic Phase Effects in Packet-Switched Gateways", 1992) that can
/// hand one flow most of the drops for seconds at a time. The queue (20
/// packets, a quarter of the BDP) keeps the RTTs near 1:2 under load.
#[test]
fn rtt_unfairness_between_one_and_two_rtts() {
    // Base RTT 2·(1+10+1) = 24 ms; 12 ms more each way on the access link doubles it.
    let g = shared_bottleneck(&[1, 1, 1, 1, 13, 13, 13, 13], 20, 60);
    let ratio = g[..4].iter().sum::<f64>() / g[4..].iter().sum::<f64>();
    eprintln!("FIGURE RTT 1:2, 4+4 flows: throughput ratio short/long {ratio:.2}");
    assert!((1.5..=4.0).contains(&ratio), "throughput ratio {ratio:.2} ({g:?})");
}
