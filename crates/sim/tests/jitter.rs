//! `[[links]] jitter`: a random extra delay per packet (`net/jitter.rs`)
//! against drop-tail phase effects (Floyd and Jacobson 1992).
//!
//! The scenario is the random suite's seed-1 scenario 028 (a CUBIC flow on a
//! 33.6 Mb/s, 7.6 ms RTT path with a 22-packet queue, joined by CUBIC flows
//! at 5.15 s and 5.6 s) with 0.3 ms more delay on the first newcomer's access
//! link. Without jitter the simulator's timing is exact: every round, the
//! first newcomer's packets reach the full queue just after a departure and
//! the second's just after the first's, so the second newcomer loses nearly
//! every packet that finds the queue full. The kernel lab, whose hosts and
//! forwarders are some tens of µs late per packet, gives it 6.2 Mb/s against
//! 19.7 (two runs, docs/validation.md, "Phase effects").

mod common;

use common::{f64s, load_err, run_toml, table};

/// The random suite's simulator options that imitate Linux (`validation/lab_space.py`, kernel-like copies).
const KERNEL_LIKE: &str = r#"cc = "cubic"
cwnd_growth = "cwnd_limited"
rto_formula = "linux"
send_buffer = "linux"
rack = true
sack_compression = true
ssthresh_from = "cwnd"
cc_params = { reno_alpha = "linux" }"#;

/// The scenario, with `jitter` (a duration, or "" for none) on every link and the given seed.
fn scenario(jitter: &str, seed: u64) -> String {
    let jitter = if jitter.is_empty() { String::new() } else { format!("jitter = \"{jitter}\"\n") };
    let link = |a: &str, b: &str, rest: &str| format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\n{jitter}{rest}\n");
    let access = |a: &str, b: &str, delay: &str| link(a, b, &format!("rate = \"1Gbps\"\ndelay = \"{delay}\""));
    let mut s = format!(
        "[sim]\nduration = \"12s\"\nseed = {seed}\nhost_egress = \"qdisc\"\n\n[tcp]\n{KERNEL_LIKE}\n\n"
    );
    for (name, kind) in [("client", "host"), ("server", "host"), ("l0", "router"), ("r0", "router"), ("xc0", "host"), ("xs0", "host"), ("xc1", "host"), ("xs1", "host")] {
        s += &format!("[[nodes]]\nname = \"{name}\"\nkind = \"{kind}\"\n\n");
    }
    s += &access("client", "l0", "0.5ms");
    s += &link("l0", "r0", "rate = \"33.6Mbps\"\ndelay = \"2.8ms\"\nqueue = 22");
    s += &access("r0", "server", "0.5ms");
    s += &access("xc0", "l0", "0.8ms");
    s += &access("r0", "xs0", "0.5ms");
    s += &access("xc1", "l0", "0.5ms");
    s += &access("r0", "xs1", "0.5ms");
    s += "[[flows]]\nname = \"main\"\nsrc = \"client\"\ndst = \"server\"\n\n";
    s += "[[flows]]\nname = \"cross0\"\nsrc = \"xc0\"\ndst = \"xs0\"\nstart = \"5.15s\"\n\n";
    s += "[[flows]]\nname = \"cross1\"\nsrc = \"xc1\"\ndst = \"xs1\"\nstart = \"5.6s\"\n";
    s
}

/// Goodput of the two newcomers, bit/s.
fn newcomers(jitter: &str, seed: u64) -> (f64, f64) {
    let g = f64s(table(&run_toml(&scenario(jitter, seed)), "flows"), "goodput_bps");
    (g[1], g[2])
}

/// Locked out: the second newcomer gets less than a quarter of what the first gets.
fn locked_out((first, second): (f64, f64)) -> bool {
    second < 0.25 * first
}

#[test]
fn jitter_breaks_the_phase_lock_of_exact_timing() {
    let exact = newcomers("", 1);
    println!("FIGURE no jitter: newcomers {:.1} and {:.1} Mb/s", exact.0 / 1e6, exact.1 / 1e6);
    assert!(locked_out(exact), "without jitter the second newcomer should be locked out: {exact:?}");
    for seed in 1..=6 {
        let (a, b) = newcomers("50us", seed);
        println!("FIGURE jitter 50 µs, seed {seed}: newcomers {:.1} and {:.1} Mb/s", a / 1e6, b / 1e6);
        assert!(!locked_out((a, b)), "seed {seed}: with jitter the second newcomer should not be locked out: {b} against {a}");
    }
}

#[test]
fn without_jitter_the_seed_does_not_matter_on_a_loss_free_path() {
    // Nothing else here draws at random: the jitter stream is the only one that a seed moves.
    assert_eq!(newcomers("", 1), newcomers("", 2));
    assert_ne!(newcomers("50us", 1), newcomers("50us", 2));
}

#[test]
fn a_negative_jitter_is_refused_with_its_field() {
    let text = scenario("", 1).replacen("rate = \"33.6Mbps\"", "jitter = \"-5us\"\nrate = \"33.6Mbps\"", 1);
    let e = load_err(&text);
    assert!(e.contains("jitter"), "{e}");
}
