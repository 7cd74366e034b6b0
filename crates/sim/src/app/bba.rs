//! Buffer-based rate adaptation, BBA-0 (Huang, Johari, McKeown, Trunnell,
//! Watson, "A Buffer-Based Approach to Rate Adaptation", SIGCOMM 2014, §4
//! and Algorithm 1): the rate follows the buffer level through a rate map
//! f(B) that is R_min up to the reservoir r, rises linearly over the cushion
//! cu, and is R_max beyond r + cu. To avoid oscillation the rate changes
//! only when f(B) crosses the next rung up (Rate+) or down (Rate−).

use super::abr::BitrateChoice;

pub struct Bba {
    pub reservoir_s: f64,
    pub cushion_s: f64,
}

impl BitrateChoice for Bba {
    fn choose(&mut self, ladder: &[f64], buffer_s: f64, previous: Option<usize>) -> usize {
        let top = ladder.len() - 1;
        let prev = previous.unwrap_or(0);
        if buffer_s <= self.reservoir_s {
            return 0;
        }
        if buffer_s >= self.reservoir_s + self.cushion_s {
            return top;
        }
        let f = ladder[0] + (ladder[top] - ladder[0]) * (buffer_s - self.reservoir_s) / self.cushion_s;
        let up = ladder[(prev + 1).min(top)];
        let down = ladder[prev.saturating_sub(1)];
        if f >= up {
            // max{R_i : R_i < f(B)}
            ladder.iter().rposition(|&r| r < f).unwrap_or(0)
        } else if f <= down {
            // min{R_i : R_i > f(B)}
            ladder.iter().position(|&r| r > f).unwrap_or(top)
        } else {
            prev
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_rate_map_with_hysteresis() {
        let ladder = [1e6, 2e6, 3e6, 4e6];
        let mut b = Bba { reservoir_s: 10.0, cushion_s: 30.0 };
        assert_eq!(b.choose(&ladder, 5.0, Some(3)), 0);
        assert_eq!(b.choose(&ladder, 45.0, Some(0)), 3);
        // f(25 s) = 2.5 Mb/s: from 1 Mb/s it rises to 2 Mb/s (the highest below f) ...
        assert_eq!(b.choose(&ladder, 25.0, Some(0)), 1);
        // ... from 2 Mb/s it stays (f is between Rate− = 1 and Rate+ = 3 Mb/s) ...
        assert_eq!(b.choose(&ladder, 25.0, Some(1)), 1);
        // ... and from 4 Mb/s it falls to 3 Mb/s (the lowest above f).
        assert_eq!(b.choose(&ladder, 25.0, Some(3)), 2);
    }
}
