//! The radio conditions analyzer (§III-A1, Algorithm 3): which interfaces
//! multipath may use, from the radio's hints.
//!
//! - On a RAT change, an interface whose new RAT is in the MPTCP set
//!   (`mptcp_rats`, default Wi-Fi, LTE, NR) may carry data (full mesh);
//!   one whose RAT is not (3G, say) is used only as a backup subflow.
//! - A cellular interface over its data limit is no longer used
//!   (`data_limit = "close"`) or kept as a backup (`"backup"`).
//! - Path weights: the radio's bandwidth estimate (`Hint::Bandwidth`)
//!   orders the interfaces wherever one must be chosen (Algorithm 1's
//!   extra subflows, the single path the guard tries).

use super::settings::Settings;
use crate::control::view::InterfaceView;

/// How an interface may be used.
#[derive(Debug, Clone, PartialEq)]
pub enum Use {
    Full,
    /// Only as a backup subflow, and why.
    BackupOnly(String),
    /// Not at all, and why.
    No(String),
}

pub fn usage(k: u16, iface: &InterfaceView, s: &Settings) -> Use {
    if !iface.up {
        return Use::No(format!("{} is down", iface.name));
    }
    if iface.over_data_limit && k != s.primary {
        let why = format!("{} is over its data limit", iface.name);
        return if s.data_limit_backup { Use::BackupOnly(why) } else { Use::No(why) };
    }
    match &iface.rat {
        Some(rat) if !s.mptcp_rats.contains(rat) => Use::BackupOnly(format!("{} is on {rat}, not an MPTCP RAT", iface.name)),
        _ => Use::Full,
    }
}

/// The interface's path weight: its bandwidth estimate, bit/s.
pub fn estimate(iface: &InterfaceView) -> Option<f64> {
    iface.bandwidth_bps
}
