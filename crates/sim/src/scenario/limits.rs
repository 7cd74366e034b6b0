//! Limits on absurd but valid values, checked before anything is expanded
//! or allocated: a run longer than pathpool simulates, more flows than it
//! holds, or time series with more samples than fit in memory are refused
//! with what would be needed instead.

use super::error::Problems;
use super::spec::{Scenario, WorkloadSpec};

/// Simulated time: 10⁷ s (116 days).
pub const MAX_DURATION_S: f64 = 1e7;
/// Flows per scenario, `count` and workloads included.
pub const MAX_FLOWS: u64 = 1_000_000;
/// Samples per time series (one row per flow, link direction and subflow each).
pub const MAX_SAMPLES: u64 = 10_000_000;

/// False (with the problems added) when a limit is exceeded: the scenario
/// must not be expanded.
pub fn check(sc: &Scenario, p: &mut Problems) -> bool {
    let before = p.list.len();
    let duration = sc.sim.duration.0.secs();
    if duration > MAX_DURATION_S {
        p.add("sim.duration", format!("{duration} s is over the {MAX_DURATION_S} s (116 days) of simulated time pathpool runs"));
    }
    let interval = sc.sim.sample_interval.0.secs();
    if interval > 0.0 && duration / interval > MAX_SAMPLES as f64 {
        p.add(
            "sim.sample_interval",
            format!(
                "{interval} s over {duration} s gives {:.3e} samples per flow and link; at most {MAX_SAMPLES}: use {} s or more (or 0 for no time series)",
                duration / interval,
                duration / MAX_SAMPLES as f64
            ),
        );
    }
    let mut flows: u64 = sc.flows.iter().map(|f| f.count.unwrap_or(1) as u64).sum();
    flows += sc.workloads.iter().map(|w| match w {
        WorkloadSpec::PoissonPareto { flows, .. } => *flows as u64,
        // One per host: bounded by the topology.
        WorkloadSpec::TrafficMatrix { .. } => 0,
    }).sum::<u64>();
    if flows > MAX_FLOWS {
        p.add("flows", format!("{flows} flows (counts and workloads included); at most {MAX_FLOWS} per scenario: split the study into several runs (a sweep)"));
    }
    p.list.len() == before
}
