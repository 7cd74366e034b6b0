//! Set-up (validating a scenario into a model, then building the world
//! before the first event) must stay linear in the scenario's size: a
//! dumbbell's two routers have one interface per pair, so any per-link search
//! of a node's interfaces makes it quadratic (100 000 flows once took 110 s).
//!
//! The same for `[[arrivals]]`: every drawn session once searched the list of
//! contents for its own (10⁵ sessions: 10¹⁰ name comparisons).
//!
//! Timing on a shared, loaded machine is noisy, so each test compares the set-up
//! of N and 8N (each the fastest of a few tries, interleaved): linear
//! gives a ratio near 8, quadratic near 64. The bound sits between them.

mod common;

use std::time::Instant;

use pathpool_sim::{load, run, Format};

/// A dumbbell of `pairs` pairs, one flow per pair, run for a microsecond:
/// nearly all of the run is its set-up.
fn dumbbell(pairs: usize) -> String {
    format!(
        r#"
[sim]
duration = "1us"
sample_interval = "0s"

[topology]
kind = "dumbbell"
pairs = {pairs}
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "1Gbps", delay = "10ms", queue = 1000 }}

[[flows]]
count = {pairs}
src = "src{{i}}"
dst = "dst{{i}}"
"#
    )
}

/// Seconds from the scenario text to the world ready for its first event.
fn setup_seconds(text: &str) -> f64 {
    let t0 = Instant::now();
    let model = load(text, Format::Toml, &common::source("setup.toml"), None).unwrap_or_else(|e| panic!("{e}"));
    let load_s = t0.elapsed().as_secs_f64();
    let out = run(&model, &mut |_| {});
    common::assert_conserved(&out);
    load_s + out.setup_s
}

#[test]
fn setup_grows_linearly_with_the_number_of_pairs() {
    const N: usize = 2_000;
    const TRIES: usize = 3;
    let (small, large) = (dumbbell(N), dumbbell(8 * N));
    let (mut t_small, mut t_large) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..TRIES {
        t_small = t_small.min(setup_seconds(&small));
        t_large = t_large.min(setup_seconds(&large));
    }
    let ratio = t_large / t_small;
    println!("FIGURE set-up {N} pairs {t_small:.4} s, {} pairs {t_large:.4} s, ratio {ratio:.1} (linear 8, quadratic 64)", 8 * N);
    assert!(ratio < 24.0, "set-up of 8x the pairs took {ratio:.1}x as long ({t_small:.4} s, {t_large:.4} s): superlinear");
}

/// Downloads of 20 kB arriving at 2 000/s over `sessions` / 2 000 s on a
/// small dumbbell: the load grows with the sessions only.
fn arrivals(sessions: usize) -> String {
    let span = sessions as f64 / 2000.0;
    format!(
        r#"
[sim]
duration = "{span}s"
sample_interval = "0s"

[topology]
kind = "dumbbell"
pairs = 10
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "1Gbps", delay = "10ms", queue = 1000 }}

[[arrivals]]
clients = ["src*"]
mirrors = ["dst0"]
rate = 2000
size = {{ dist = "fixed", bytes = 20000 }}
"#
    )
}

/// Seconds to load the scenario into a model (the sessions are expanded and
/// resolved there).
fn load_seconds(text: &str) -> f64 {
    let t0 = Instant::now();
    load(text, Format::Toml, &common::source("arrivals.toml"), None).unwrap_or_else(|e| panic!("{e}"));
    t0.elapsed().as_secs_f64()
}

#[test]
fn arrivals_load_grows_linearly_with_the_sessions() {
    const N: usize = 2_000;
    const TRIES: usize = 3;
    let (small, large) = (arrivals(N), arrivals(8 * N));
    let (mut t_small, mut t_large) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..TRIES {
        t_small = t_small.min(load_seconds(&small));
        t_large = t_large.min(load_seconds(&large));
    }
    let ratio = t_large / t_small;
    println!("FIGURE arrivals load {N} sessions {t_small:.4} s, {} sessions {t_large:.4} s, ratio {ratio:.1} (linear 8, quadratic 64)", 8 * N);
    assert!(ratio < 24.0, "loading 8x the sessions took {ratio:.1}x as long ({t_small:.4} s, {t_large:.4} s): superlinear");
}
