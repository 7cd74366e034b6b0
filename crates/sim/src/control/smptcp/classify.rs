//! The packet classifier (§III-A): which policy governs a connection, by
//! the first of
//!
//! 1. the `mode` set for every connection;
//! 2. the user's choice for the application (`apps`, the user-input
//!    classifier);
//! 3. the operator's whitelist of zero-rated applications (`whitelist`,
//!    in `whitelist_mode`: cellular costs the user nothing there);
//! 4. the auto classifier, by the application's category: `video`
//!    (streaming: Algorithm 1); the high-reliability categories (backup or
//!    low latency); `interactive` (voice, games: reliability mode, the
//!    paper's mode for them); anything else, and a connection without an
//!    application, is a download (Algorithm 2), so a web page's small
//!    objects stay on one path by α1.

use super::mode::Mode;
use super::settings::Settings;
use crate::control::view::ConnectionView;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Fixed(Mode),
    Video,
    Download,
}

pub fn classify(c: &ConnectionView, s: &Settings) -> (Class, String) {
    if let Some(m) = s.mode {
        return (Class::Fixed(m), format!("mode {} for every connection", m.name()));
    }
    let Some(app) = &c.app else {
        return (Class::Download, "no application: a download of unknown size (Algorithm 2)".to_string());
    };
    if let Some(&m) = s.apps.get(&app.name) {
        return (Class::Fixed(m), format!("user choice for {}: {}", app.name, m.name()));
    }
    if s.whitelist.contains(&app.name) {
        return (Class::Fixed(s.whitelist_mode), format!("operator whitelist (zero-rated {}): {}", app.name, s.whitelist_mode.name()));
    }
    let category = app.category.as_str();
    if s.reliability_categories.iter().any(|r| r == category) {
        return (Class::Fixed(s.reliability_mode), format!("auto: high-reliability service ({category}): {}", s.reliability_mode.name()));
    }
    match category {
        "video" => (Class::Video, "auto: streaming (Algorithm 1)".to_string()),
        "interactive" => (Class::Fixed(Mode::Reliability), "auto: interactive (voice, games): reliability".to_string()),
        _ => (Class::Download, format!("auto: {category} as a download (Algorithm 2)")),
    }
}

/// Whether any connection could be put in `mode` (a plane that cannot
/// carry its actions refuses the scenario before the run).
pub fn may_use(mode: Mode, s: &Settings) -> bool {
    s.mode == Some(mode) || s.apps.values().any(|&m| m == mode) || (!s.whitelist.is_empty() && s.whitelist_mode == mode) || s.reliability_mode == mode
}
