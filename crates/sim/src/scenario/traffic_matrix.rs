//! Traffic matrices for `[[workloads]] kind = "traffic_matrix"`: who sends
//! to whom when every host sends one long flow, as in the data-centre
//! experiments of Raiciu et al., "Improving Datacenter Performance and
//! Robustness with Multipath TCP" (SIGCOMM 2011, §4) and htsim's
//! `ConnectionMatrix` (datacenter/connection_matrix.cpp).

use serde::Deserialize;

use crate::engine::rng::RngStream;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Matrix {
    /// Every host sends to one other host and receives from one: a
    /// derangement drawn uniformly from all of them.
    Permutation,
    /// Every host sends to a uniformly drawn other host (a host may
    /// receive from several, or from none).
    Random,
}

/// The destination (an index into the same `n` hosts) of each host's flow;
/// `n` must be at least 2.
pub fn destinations(matrix: Matrix, n: usize, rng: &mut RngStream) -> Vec<usize> {
    assert!(n >= 2, "a traffic matrix needs two hosts");
    match matrix {
        Matrix::Permutation => derangement(n, rng),
        Matrix::Random => (0..n)
            .map(|i| {
                let d = rng.below(n - 1);
                if d >= i { d + 1 } else { d }
            })
            .collect(),
    }
}

/// A uniform derangement by rejection: Fisher–Yates shuffles until one has
/// no fixed point (a fraction → 1/e of them, so e ≈ 2.7 shuffles expected).
fn derangement(n: usize, rng: &mut RngStream) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    loop {
        for i in (1..n).rev() {
            perm.swap(i, rng.below(i + 1));
        }
        if perm.iter().enumerate().all(|(i, &d)| i != d) {
            return perm;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seeds;

    #[test]
    fn permutation_is_a_derangement_and_random_avoids_self() {
        for n in [2, 3, 16, 128] {
            for seed in 1..20 {
                let mut rng = Seeds { master: seed }.stream("tm");
                let perm = destinations(Matrix::Permutation, n, &mut rng);
                let mut seen = vec![false; n];
                for (i, &d) in perm.iter().enumerate() {
                    assert_ne!(i, d, "n={n} seed={seed}: host {i} sends to itself");
                    assert!(!seen[d], "n={n} seed={seed}: {d} receives twice");
                    seen[d] = true;
                }
                let random = destinations(Matrix::Random, n, &mut rng);
                assert!(random.iter().enumerate().all(|(i, &d)| i != d && d < n));
            }
        }
    }

    /// Every derangement of 3 hosts (there are two) is drawn about as often.
    #[test]
    fn permutation_is_uniform_over_derangements() {
        let mut rng = Seeds { master: 7 }.stream("tm");
        let draws = 4000;
        let first = (0..draws).filter(|_| destinations(Matrix::Permutation, 3, &mut rng) == [1, 2, 0]).count();
        let share = first as f64 / draws as f64;
        assert!((share - 0.5).abs() < 0.03, "share of [1, 2, 0]: {share}");
    }
}
