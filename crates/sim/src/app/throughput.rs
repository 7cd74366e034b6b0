//! Rate-based adaptation: the next segment's bitrate is the highest rung at
//! most `safety` times the harmonic mean of the last `window` segments'
//! throughputs (the "RB" baseline of Yin, Jindal, Sekar, Sinopoli, "A
//! Control-Theoretic Approach for Dynamic Adaptive Video Streaming over
//! HTTP", SIGCOMM 2015, §6, with its 5-segment harmonic mean; the harmonic
//! mean resists outliers, Jiang, Sekar, Zhang, FESTIVE, CoNEXT 2012). A
//! segment's throughput is its bytes over the time from its request to its
//! last byte, as a player measures it. The first segment takes the lowest rung.

use std::collections::VecDeque;

use super::abr::BitrateChoice;

pub struct Throughput {
    window: usize,
    safety: f64,
    /// Recent throughputs, bit/s, oldest first.
    samples: VecDeque<f64>,
}

impl Throughput {
    pub fn new(window: usize, safety: f64) -> Throughput {
        Throughput { window, safety, samples: VecDeque::with_capacity(window) }
    }

    fn estimate(&self) -> Option<f64> {
        if self.samples.is_empty() {
            return None;
        }
        Some(self.samples.len() as f64 / self.samples.iter().map(|x| 1.0 / x).sum::<f64>())
    }
}

impl BitrateChoice for Throughput {
    fn choose(&mut self, ladder: &[f64], _buffer_s: f64, _previous: Option<usize>) -> usize {
        match self.estimate() {
            Some(e) => ladder.iter().rposition(|&r| r <= self.safety * e).unwrap_or(0),
            None => 0,
        }
    }

    fn measured(&mut self, bytes: u64, secs: f64) {
        if secs <= 0.0 {
            return;
        }
        if self.samples.len() == self.window {
            self.samples.pop_front();
        }
        self.samples.push_back(bytes as f64 * 8.0 / secs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_mean_of_recent_segments() {
        let ladder = [1e6, 2e6, 4e6];
        let mut t = Throughput::new(2, 1.0);
        assert_eq!(t.choose(&ladder, 0.0, None), 0);
        t.measured(1_000_000, 1.0); // 8 Mb/s
        t.measured(250_000, 1.0); // 2 Mb/s
        // Harmonic mean of 8 and 2 Mb/s: 3.2 Mb/s.
        assert_eq!(t.choose(&ladder, 0.0, None), 1);
        t.measured(1_000_000, 1.0); // the 8 Mb/s sample falls out of the window: (2, 8) → 3.2
        t.measured(1_000_000, 1.0); // (8, 8) → 8
        assert_eq!(t.choose(&ladder, 0.0, None), 2);
    }
}
