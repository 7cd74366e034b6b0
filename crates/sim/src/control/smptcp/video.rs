//! Algorithm 1, "On-demand mobile data" (the video module): Wi-Fi alone
//! while it carries the video's bitrate, cellular subflows while the
//! player's buffer lead is short.
//!
//! - C = WB/VB when the video starts and at every re-check (`video_recheck`;
//!   the paper's loop has no wait). WB is the primary's bandwidth estimate
//!   from the radio (`Hint::Bandwidth`), VB the video's bitrate.
//! - C ≥ 1: Wi-Fi only.
//! - C < 1: dynamic adaptive subflows (DAS). BR = loaded pivot − current
//!   pivot, the seconds buffered ahead. BR < Th: cellular subflows, added in
//!   order of their bandwidth estimate until WB + their estimates ≥ VB
//!   (steps 7–10); BR ≥ Th: none (step 14: no extra subflows; our reading
//!   closes the ones opened).
//! - Th starts at 10 s and doubles (step 6), up to min(video/2,
//!   `threshold_cap`). When it doubles is the paper's ambiguity; three
//!   readings (`doubling`):
//!   - `"fill"` (default): the initial fill keeps cellular on while Th
//!     doubles each time BR reaches it (10, 20, 40, then the cap); cellular
//!     closes when BR reaches the capped Th, and Th never resets. Later
//!     refills open below Th/2 and close at Th. This gives the paper's
//!     Fig. 9 text: "initially there will be a peak in 5G data, where 5G and
//!     WiFi loads the buffer together. After that 5G will be less used".
//!   - `"hysteresis"`: Th doubles each time the cellular subflows open; they
//!     close once BR ≥ Th and open again once BR < Th/2 (bands 10/20 s,
//!     20/40 s, then 30/60 s at the default cap), so the first fill stops
//!     at 20 s and the later, wider bands carry longer bursts.
//!   - `"every_check"` reads the loop literally: Th doubles at every check
//!     while BR < Th, and one threshold opens and closes (cellular toggles
//!     every few seconds, which the paper warns costs power).
//!
//!   The cap keeps Th below the player's maximum buffer (Table 2's buffer
//!   health, 80–110 s): above it BR < Th forever and cellular never closes.

use super::settings::{Doubling, Settings};
use crate::control::view::AppView;
use crate::time::Time;

#[derive(Debug, Clone, PartialEq)]
pub struct Video {
    /// Th, seconds: cellular closes once BR reaches it.
    threshold: f64,
    /// Cellular opens while BR is below this (Th, or Th/2 after a doubling).
    open_below: f64,
    /// Cellular subflows wanted (DAS with BR < Th).
    cellular: bool,
    /// `doubling = "fill"`: the initial fill has ended (BR reached the capped Th).
    filled: bool,
    next_check: Option<Time>,
}

/// Algorithm 1's decision: the interfaces besides the primary to use, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub cellular: Vec<u16>,
    pub reason: String,
    /// Th moved at this check (logged even if the subflows stay the same).
    pub threshold_moved: bool,
}

impl Video {
    pub fn new(s: &Settings) -> Video {
        Video { threshold: s.video_threshold, open_below: s.video_threshold, cellular: false, filled: false, next_check: None }
    }

    /// Re-evaluates at `now` if a check is due. `wb` is the primary's
    /// bandwidth estimate, `others` the other usable interfaces with theirs.
    pub fn step(&mut self, now: Time, s: &Settings, app: &AppView, wb: Option<f64>, others: &[(u16, Option<f64>)]) -> Option<Decision> {
        if app.requests == 0 || self.next_check.is_some_and(|t| now < t) {
            return None;
        }
        self.next_check = Some(now + s.video_recheck);
        let vb = s.video_bitrate.or(app.bitrate_bps.filter(|&b| b > 0.0)).or(app.video_top_bitrate_bps)?;
        let mbps = |x: f64| x / 1e6;
        if let Some(wb) = wb.filter(|&wb| wb >= vb) {
            self.cellular = false;
            let reason = format!("C = WB/VB = {:.2}/{:.2} Mb/s >= 1: Wi-Fi only", mbps(wb), mbps(vb));
            return Some(Decision { cellular: vec![], reason, threshold_moved: false });
        }
        let c = wb.map_or("unknown (no Wi-Fi bandwidth estimate)".to_string(), |wb| format!("{:.2}", wb / vb));
        let br = app.buffer_s.unwrap_or(0.0);
        let cap = app.video_length_s.map_or(s.threshold_cap, |len| (len / 2.0).min(s.threshold_cap));
        let before = self.threshold;
        let open = match s.doubling {
            Doubling::Fill => self.fill(br, cap),
            Doubling::Hysteresis | Doubling::EveryCheck => {
                let open = if self.cellular { br < self.threshold } else { br < self.open_below };
                if open && (!self.cellular || s.doubling == Doubling::EveryCheck) {
                    self.threshold = (2.0 * self.threshold).min(cap);
                    self.open_below = if s.doubling == Doubling::Hysteresis { self.threshold / 2.0 } else { self.threshold };
                }
                open
            }
        };
        let threshold_moved = self.threshold != before;
        if open {
            self.cellular = true;
            // Steps 7-10: add subflows until the summed estimates reach VB
            // (an interface without an estimate counts as enough).
            let mut total = wb.unwrap_or(0.0);
            let mut ordered = others.to_vec();
            ordered.sort_by(|a, b| b.1.unwrap_or(f64::INFINITY).total_cmp(&a.1.unwrap_or(f64::INFINITY)).then(a.0.cmp(&b.0)));
            let mut cellular = Vec::new();
            for (k, ab) in ordered {
                if total >= vb {
                    break;
                }
                cellular.push(k);
                total += ab.unwrap_or(f64::INFINITY);
            }
            let reason = format!("C = {c} < 1, BR = {br:.1} s: cellular on until BR >= Th = {:.0} s", self.threshold);
            return Some(Decision { cellular, reason, threshold_moved });
        }
        self.cellular = false;
        let reason = format!("C = {c} < 1, BR = {br:.1} s: no extra subflows until BR < {:.0} s", self.open_below);
        Some(Decision { cellular: vec![], reason, threshold_moved })
    }

    /// `doubling = "fill"`: whether cellular is wanted at buffer lead `br`.
    /// During the initial fill, each time BR reaches Th, Th doubles (step 6)
    /// and cellular stays on, until Th is at `cap`; cellular closes when BR
    /// reaches the capped Th. Th then stays (it never resets): a refill
    /// opens below Th/2 and closes at Th.
    fn fill(&mut self, br: f64, cap: f64) -> bool {
        self.threshold = self.threshold.min(cap);
        if !self.cellular {
            return br < self.open_below;
        }
        while !self.filled && br >= self.threshold && self.threshold < cap {
            self.threshold = (2.0 * self.threshold).min(cap);
        }
        if br < self.threshold {
            return true;
        }
        self.filled = true;
        self.open_below = self.threshold / 2.0;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{ParamTable, ParamValue, Params};
    use crate::control::Host;

    fn settings(doubling: &str) -> Settings {
        let table: ParamTable = [("doubling".to_string(), ParamValue::Text(doubling.into()))].into();
        let names = ["wlan0".to_string(), "lte0".to_string()];
        let host = Host { name: "phone", interfaces: &names, mtus: vec![1500, 1500] };
        super::super::settings::read(&mut Params::new("smptcp", &table), &host)
    }

    /// An hour of 8 Mb/s video with `buffer_s` buffered.
    fn app(buffer_s: f64) -> AppView {
        AppView {
            name: "movie".into(),
            category: "video".into(),
            requests: 1,
            completed: 0,
            object_size: None,
            object_requested_at: None,
            buffer_s: Some(buffer_s),
            bitrate_bps: Some(8e6),
            video_length_s: Some(3600.0),
            video_top_bitrate_bps: None,
        }
    }

    /// Algorithm 1 under `doubling` over scripted buffer levels, one check a
    /// second, Wi-Fi's estimate 6 Mb/s (C = 0.75) and LTE's 10 Mb/s: for
    /// each level, whether LTE is wanted, and whether Th moved.
    fn script(doubling: &str, levels: &[f64]) -> Vec<(bool, bool)> {
        let s = settings(doubling);
        let mut v = Video::new(&s);
        let mut out = Vec::new();
        for (k, &br) in levels.iter().enumerate() {
            let d = v.step(Time::from_secs(k as u64), &s, &app(br), Some(6e6), &[(1, Some(10e6))]).expect("a check every second");
            out.push((d.cellular == [1], d.threshold_moved));
        }
        out
    }

    /// The buffer rises to 65 s, drains to 25 s, rises to 65 s again.
    fn levels() -> Vec<f64> {
        let up: Vec<f64> = (0..=13).map(|k| 5.0 * k as f64).collect();
        let down: Vec<f64> = (5..=12).rev().map(|k| 5.0 * k as f64).collect();
        let again: Vec<f64> = (6..=13).map(|k| 5.0 * k as f64).collect();
        [up, down, again].concat()
    }

    fn on_levels(levels: &[f64], seq: &[(bool, bool)]) -> Vec<f64> {
        levels.iter().zip(seq).filter(|(_, d)| d.0).map(|(l, _)| *l).collect()
    }

    #[test]
    fn fill_keeps_cellular_on_through_the_first_fill_and_refills_in_the_capped_band() {
        let levels = levels();
        let seq = script("fill", &levels);
        // The first fill: on from 0 s up to 55 s buffered (Th 10 -> 20 -> 40 -> 60 as BR
        // reaches each), off at 60; draining, off down to 30 (not < Th/2 = 30), on at 25;
        // refilling, on up to 55, off at 60: Th stays at the cap.
        let on = on_levels(&levels, &seq);
        let expect: Vec<f64> = [(0..=11).map(|k| 5.0 * k as f64).collect::<Vec<_>>(), vec![25.0], (6..=11).map(|k| 5.0 * k as f64).collect()].concat();
        assert_eq!(on, expect);
        let moved: Vec<f64> = levels.iter().zip(&seq).filter(|(_, d)| d.1).map(|(l, _)| *l).collect();
        assert_eq!(moved, [10.0, 20.0, 40.0], "Th doubles as BR reaches 10, 20 and 40 s, and never after");
    }

    #[test]
    fn hysteresis_closes_the_first_fill_at_20_s() {
        let levels = levels();
        let seq = script("hysteresis", &levels);
        // Open at 0 (Th -> 20), close at 20; reopen below 10 only, which the script's 25 s never reaches.
        assert_eq!(on_levels(&levels, &seq), [0.0, 5.0, 10.0, 15.0]);
    }
}
