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
//!   closes the ones opened, which gives Fig. 9's cellular peak during the
//!   initial fill and little after).
//! - Th starts at 10 s and doubles (step 6), up to min(video/2,
//!   `threshold_cap`). Default reading (`doubling = "hysteresis"`): Th
//!   doubles each time the cellular subflows open; they close once BR ≥ Th
//!   and open again once BR < Th/2, so the doubling is a hysteresis band
//!   (10/20 s, 20/40 s, then 30/60 s at the default cap) and the interface
//!   does not toggle at every check, which the paper warns costs power.
//!   `doubling = "every_check"` reads the loop literally: Th doubles at
//!   every check while BR < Th, and one threshold opens and closes. The cap
//!   keeps Th below the player's maximum buffer (Table 2's buffer health,
//!   80–110 s): above it BR < Th forever and cellular never closes.

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
    next_check: Option<Time>,
}

/// Algorithm 1's decision: the interfaces besides the primary to use, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub cellular: Vec<u16>,
    pub reason: String,
}

impl Video {
    pub fn new(s: &Settings) -> Video {
        Video { threshold: s.video_threshold, open_below: s.video_threshold, cellular: false, next_check: None }
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
            return Some(Decision { cellular: vec![], reason: format!("C = WB/VB = {:.2}/{:.2} Mb/s >= 1: Wi-Fi only", mbps(wb), mbps(vb)) });
        }
        let c = wb.map_or("unknown (no Wi-Fi bandwidth estimate)".to_string(), |wb| format!("{:.2}", wb / vb));
        let br = app.buffer_s.unwrap_or(0.0);
        let cap = app.video_length_s.map_or(s.threshold_cap, |len| (len / 2.0).min(s.threshold_cap));
        let open = if self.cellular { br < self.threshold } else { br < self.open_below };
        if open {
            if !self.cellular || s.doubling == Doubling::EveryCheck {
                self.threshold = (2.0 * self.threshold).min(cap);
                self.open_below = match s.doubling {
                    Doubling::Hysteresis => self.threshold / 2.0,
                    Doubling::EveryCheck => self.threshold,
                };
            }
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
            return Some(Decision { cellular, reason });
        }
        self.cellular = false;
        Some(Decision { cellular: vec![], reason: format!("C = {c} < 1, BR = {br:.1} s: no extra subflows until BR < {:.0} s", self.open_below) })
    }
}
