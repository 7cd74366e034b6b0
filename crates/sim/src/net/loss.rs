//! Random (non-congestion) loss on a link direction.

use crate::engine::RngStream;
use serde::Deserialize;

/// A link direction's random loss (`loss = { model = ... }` in a scenario).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossSpec {
    /// Each packet lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// Two-state Markov chain (Gilbert 1960, Elliott 1963): per packet the state
    /// moves good→bad with `p_good_to_bad` and bad→good with `p_bad_to_good`;
    /// a packet is lost with `loss_good` / `loss_bad` in the respective state.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
    },
}

fn one() -> f64 {
    1.0
}

pub enum LossModel {
    None,
    Bernoulli { p: f64 },
    /// Gilbert–Elliott two-state Markov chain, stepped once per packet.
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, bad: bool },
}

impl LossModel {
    pub fn from_spec(spec: Option<&LossSpec>) -> LossModel {
        match spec {
            None => LossModel::None,
            Some(LossSpec::Bernoulli { p }) => LossModel::Bernoulli { p: *p },
            Some(LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad }) => {
                LossModel::GilbertElliott {
                    p_gb: *p_good_to_bad,
                    p_bg: *p_bad_to_good,
                    loss_good: *loss_good,
                    loss_bad: *loss_bad,
                    bad: false,
                }
            }
        }
    }

    /// Decides whether the next packet is lost.
    pub fn lose(&mut self, rng: &mut RngStream) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.bernoulli(*p),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad, bad } => {
                // Transition first, then lose with the new state's probability.
                let flip = if *bad { *p_bg } else { *p_gb };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seeds;

    #[test]
    fn gilbert_elliott_mean_loss() {
        // Stationary P(bad) = p_gb / (p_gb + p_bg) = 0.01/0.11; loss_bad = 1.
        let mut m = LossModel::from_spec(Some(&LossSpec::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
        }));
        let mut r = Seeds { master: 3 }.stream("ge");
        let n = 400_000;
        let lost = (0..n).filter(|_| m.lose(&mut r)).count() as f64 / n as f64;
        assert!((lost - 0.01 / 0.11).abs() < 0.01, "{lost}");
    }
}
