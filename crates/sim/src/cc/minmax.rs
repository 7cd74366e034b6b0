//! Windowed maximum of a measurement (Kathleen Nichols' algorithm, as in
//! Linux's `lib/win_minmax.c`): the best, second-best and third-best samples
//! from successive sub-windows, so the maximum over the last `win` time units
//! is tracked in O(1) without storing every sample. BBR uses it for its
//! bottleneck-bandwidth filter, with time counted in round trips.

#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    t: u64,
    v: f64,
}

#[derive(Debug, Clone, Default)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// Adds measurement `v` taken at time `t`; returns the windowed maximum
    /// (`minmax_running_max`).
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let val = Sample { t, v };
        // A new maximum, or nothing left in the window: forget earlier samples.
        if v >= self.s[0].v || t - self.s[2].t > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// As time advances, promote the 2nd and 3rd choices (`minmax_subwin_update`).
    fn subwin_update(&mut self, win: u64, val: Sample) -> f64 {
        let dt = val.t - self.s[0].t;
        if dt > win {
            // The best sample left the window: the 2nd and 3rd choices move up,
            // possibly twice if the 2nd is out of the window as well.
            self.s = [self.s[1], self.s[2], val];
            if val.t - self.s[0].t > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a new 2nd choice: take one from the 2nd quarter.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window without a new 3rd choice: take one from the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgets_a_maximum_after_the_window() {
        let mut m = WindowedMax::default();
        assert_eq!(m.update(10, 0, 100.0), 100.0);
        for t in 1..=10 {
            assert_eq!(m.update(10, t, 50.0), 100.0);
        }
        // Round 11: the sample of round 0 is out of the 10-round window.
        assert_eq!(m.update(10, 11, 50.0), 50.0);
        assert_eq!(m.update(10, 12, 70.0), 70.0);
    }

    #[test]
    fn second_choice_takes_over() {
        let mut m = WindowedMax::default();
        m.update(8, 0, 100.0);
        m.update(8, 3, 80.0);
        m.update(8, 5, 60.0);
        assert_eq!(m.get(), 100.0);
        // Round 9: the max from round 0 expires; 80 (round 3) is still in the window.
        assert_eq!(m.update(8, 9, 10.0), 80.0);
    }
}
