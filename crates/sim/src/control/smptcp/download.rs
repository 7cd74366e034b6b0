//! Algorithm 2, download services: a download that is big, or that lasts,
//! gets multipath; a small one stays on one path.
//!
//! - Size known (`Content-Length`): below α1 (20 MB) single path, above α1
//!   multipath. Exactly α1 matches neither branch of the pseudocode, so the
//!   connection keeps the mode it has: single path for a first object.
//!   `download_rule = "completion_time"` is the text's reading (step c):
//!   the approximated completion time, size over the Wi-Fi bandwidth
//!   estimate, against α2; without an estimate it falls back to the size.
//! - Size unknown (non-HTTP, chunked): single path until the object has
//!   been downloading for α2 (30 s), then multipath.
//!
//! A connection without an application (a bulk flow) is one object of
//! unknown size, requested when the connection is established.

use super::settings::{DownloadRule, Settings};
use crate::time::Time;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Download {
    /// Objects seen requested.
    seen: u64,
    multipath: bool,
    /// Size unknown: when the current object reaches α2.
    deadline: Option<Time>,
}

impl Download {
    /// Object `requests` (counting from 1) was requested at `at`, of `size`
    /// if announced; `wb` is the primary's bandwidth estimate. Returns the
    /// reason when the decision is new, and the time to check back at.
    pub fn request(&mut self, requests: u64, at: Time, size: Option<u64>, wb: Option<f64>, s: &Settings) -> Option<(String, Option<Time>)> {
        if requests <= self.seen {
            return None;
        }
        self.seen = requests;
        self.deadline = None;
        let mb = |b: u64| b as f64 / 1e6;
        let reason = match (size, s.download_rule, wb) {
            (None, _, _) => {
                self.multipath = false;
                self.deadline = Some(at + s.alpha2);
                format!("object {requests}: size unknown, single path until {:.0} s of download", s.alpha2.secs())
            }
            (Some(b), DownloadRule::CompletionTime, Some(wb)) if wb > 0.0 => {
                let t = b as f64 * 8.0 / wb;
                self.multipath = t > s.alpha2.secs();
                let vs = if self.multipath { ">" } else { "<=" };
                format!("object {requests}: {:.2} MB, about {t:.1} s on Wi-Fi {vs} alpha2 = {:.0} s", mb(b), s.alpha2.secs())
            }
            (Some(b), _, _) => {
                if b > s.alpha1 {
                    self.multipath = true;
                } else if b < s.alpha1 {
                    self.multipath = false;
                }
                let cmp = match b.cmp(&s.alpha1) {
                    std::cmp::Ordering::Less => "<",
                    std::cmp::Ordering::Equal => "= (neither branch: mode kept)",
                    std::cmp::Ordering::Greater => ">",
                };
                format!("object {requests}: {:.2} MB {cmp} alpha1 = {:.0} MB", mb(b), mb(s.alpha1))
            }
        };
        Some((format!("{reason}: {}", self.mode_name()), self.deadline))
    }

    /// At `now`, with `pending` whether the current object is still arriving.
    pub fn tick(&mut self, now: Time, pending: bool, s: &Settings) -> Option<String> {
        let deadline = self.deadline?;
        if now < deadline {
            return None;
        }
        self.deadline = None;
        if !pending {
            return None;
        }
        self.multipath = true;
        Some(format!("object {}: size unknown, still downloading after {:.0} s: multipath", self.seen, s.alpha2.secs()))
    }

    pub fn multipath(&self) -> bool {
        self.multipath
    }

    fn mode_name(&self) -> &'static str {
        if self.multipath {
            "multipath"
        } else {
            "single path"
        }
    }
}
