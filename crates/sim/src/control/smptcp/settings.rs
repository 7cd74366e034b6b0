//! S-MPTCP's parameters (`[[controllers]] kind = "smptcp"`), each with the
//! paper's value as default where it gives one and a stated choice where
//! it does not (docs/smptcp.md lists them with their sources). Lists and
//! maps are strings, as every controller parameter is a scalar:
//! `apps = "voip:reliability, maps:single_path"`, `exclude = "clat0"`.

use std::collections::BTreeMap;

use super::mode::Mode;
use crate::cc::params::Params;
use crate::control::Host;
use crate::time::Time;

/// Mebibyte: Android's TCP buffer sizes are powers of two (LTE 8388608).
const MIB: u64 = 1 << 20;

/// Algorithm 2's reading (the paper's text and its pseudocode differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadRule {
    /// The pseudocode: object size against α1.
    Size,
    /// The text, step c): the approximated completion time (size over the
    /// Wi-Fi bandwidth estimate) against α2, the only time threshold.
    CompletionTime,
}

/// When Algorithm 1 doubles its threshold Th (video.rs has the three readings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doubling {
    /// Each time BR reaches Th during the initial fill, which keeps cellular
    /// on up to the capped Th; Th never resets, refills use its Th/2 band
    /// (default).
    Fill,
    /// Once each time it opens cellular subflows, which close at BR ≥ Th
    /// and reopen at BR < Th/2.
    Hysteresis,
    /// At every check while BR < Th, as the pseudocode's loop reads.
    EveryCheck,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The default interface (Wi-Fi): the one single path uses.
    pub primary: u16,
    /// A mode for every connection, overriding the classifiers; None: classify.
    pub mode: Option<Mode>,
    /// User input classifier: mode by application name.
    pub apps: BTreeMap<String, Mode>,
    /// Operator classifier: zero-rated applications and their mode.
    pub whitelist: Vec<String>,
    pub whitelist_mode: Mode,
    /// Auto classifier: high-reliability categories' mode (backup or low latency).
    pub reliability_categories: Vec<String>,
    pub reliability_mode: Mode,
    /// Reliability mode: how long a problem on the primary must last before
    /// the other interface is used, and how long the primary must be well
    /// again before it is dropped.
    pub problem_hold: Time,
    // Algorithm 1 (video).
    pub video_threshold: f64,
    pub threshold_cap: f64,
    pub doubling: Doubling,
    pub video_recheck: Time,
    pub video_bitrate: Option<f64>,
    // Algorithm 2 (downloads).
    pub alpha1: u64,
    pub alpha2: Time,
    pub download_rule: DownloadRule,
    // Staying at or above the best single path.
    pub guard: bool,
    pub guard_warmup: Time,
    pub guard_window: Time,
    pub guard_steady: f64,
    pub guard_max_wait: Time,
    pub guard_ratio: f64,
    // Radio analyzer (Algorithm 3).
    pub mptcp_rats: Vec<String>,
    pub data_limit_backup: bool,
    // Battery analyzer (Algorithm 4) and screen.
    pub heat_threshold: f64,
    pub screen_off_single: bool,
    // Connection analyzer.
    pub exclude: Vec<u16>,
    pub proxied: Vec<String>,
    pub families: Vec<Family>,
    pub peer_families: BTreeMap<String, Family>,
    // Auto-tuner.
    pub buffers: BTreeMap<String, u64>,
    pub default_buffer: u64,
    pub max_buffer: u64,
    pub tune_buffer: bool,
    /// The auto-tuner's MSS rule (`tuner::mss`).
    pub tune_mss: bool,
    /// The auto-tuner's congestion control on connections the phone sends
    /// on (`tcp_congestion_algo`: "We use BBR"); None: the scenario's.
    pub sender_cc: Option<String>,
}

/// An interface's address families (the connection analyzer pairs only
/// v4 with v4 and v6 with v6: no subflow across a CLAT/NAT64 translation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
    Dual,
}

impl Family {
    fn parse(s: &str) -> Option<Family> {
        match s {
            "v4" => Some(Family::V4),
            "v6" => Some(Family::V6),
            "dual" => Some(Family::Dual),
            _ => None,
        }
    }

    pub fn meets(self, other: Family) -> bool {
        self == Family::Dual || other == Family::Dual || self == other
    }
}

/// `"a, b"` → ["a", "b"].
fn list(p: &mut Params, key: &'static str) -> Vec<String> {
    p.text(key).map(|s| s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(String::from).collect()).unwrap_or_default()
}

/// `"a:x, b:y"` → [("a", "x"), ("b", "y")], reporting items without a colon.
fn pairs(p: &mut Params, key: &'static str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for item in list(p, key) {
        match item.split_once(':') {
            Some((k, v)) => out.push((k.trim().to_string(), v.trim().to_string())),
            None => p.problem(key, format!("'{item}' must be name:value")),
        }
    }
    out
}

fn mode_of(p: &mut Params, key: &'static str, text: &str) -> Option<Mode> {
    let m = Mode::parse(text);
    if m.is_none() {
        p.problem(key, format!("unknown mode '{text}' (known: {})", Mode::NAMES.join(", ")));
    }
    m
}

pub fn read(p: &mut Params, host: &Host) -> Settings {
    let iface = |p: &mut Params, key: &'static str, name: &str| -> Option<u16> {
        let k = host.interfaces.iter().position(|i| i == name).map(|i| i as u16);
        if k.is_none() {
            p.problem(key, format!("'{name}' is not an interface of {} (it has: {})", host.name, host.interfaces.join(", ")));
        }
        k
    };
    let primary = match p.text("primary") {
        Some(name) => iface(p, "primary", name).unwrap_or(0),
        None => 0,
    };
    let mode = p.text("mode").filter(|m| *m != "auto").and_then(|m| mode_of(p, "mode", m));
    let mut apps = BTreeMap::new();
    for (app, m) in pairs(p, "apps") {
        if let Some(m) = mode_of(p, "apps", &m) {
            apps.insert(app, m);
        }
    }
    let whitelist = list(p, "whitelist");
    let whitelist_mode = p.text("whitelist_mode").and_then(|m| mode_of(p, "whitelist_mode", m)).unwrap_or(Mode::HassleFree);
    let mut reliability_categories = list(p, "reliability_categories");
    if reliability_categories.is_empty() {
        // MCPTT and IMS signalling, voice assistants (the paper's §III-A(iii)).
        reliability_categories = vec!["reliability".into(), "voice".into(), "signalling".into()];
    }
    let reliability_mode = match p.choice("reliability_mode", "backup", &["backup", "low_latency"]) {
        "low_latency" => Mode::LowLatency,
        _ => Mode::Backup,
    };
    let positive = |t: Time| t > Time::ZERO;
    let problem_hold = p.duration("problem_hold", Time::from_secs(2), positive, "positive");
    let video_threshold = p.duration("video_threshold", Time::from_secs(10), positive, "positive").secs();
    let threshold_cap = p.duration("threshold_cap", Time::from_secs(60), positive, "positive").secs();
    let doubling = match p.choice("doubling", "fill", &["fill", "hysteresis", "every_check"]) {
        "fill" => Doubling::Fill,
        "hysteresis" => Doubling::Hysteresis,
        "every_check" => Doubling::EveryCheck,
        _ => Doubling::Fill,
    };
    let video_recheck = p.duration("video_recheck", Time::from_secs(1), positive, "positive");
    let video_bitrate = p.rate("video_bitrate", |r| r > 0.0, "a positive rate");
    let alpha1 = p.bytes("alpha1", |b| b > 0, "positive").unwrap_or(20_000_000);
    let alpha2 = p.duration("alpha2", Time::from_secs(30), positive, "positive");
    let download_rule = match p.choice("download_rule", "size", &["size", "completion_time"]) {
        "completion_time" => DownloadRule::CompletionTime,
        _ => DownloadRule::Size,
    };
    let guard = p.choice("guard", "aggregate", &["aggregate", "off"]) == "aggregate";
    let guard_warmup = p.duration("guard_warmup", Time::from_secs(2), positive, "positive");
    let guard_window = p.duration("guard_window", Time::from_secs(2), positive, "positive");
    let guard_steady = p.number("guard_steady", 0.05, |x| x >= 0.0, "0 or more");
    let guard_max_wait = p.duration("guard_max_wait", Time::from_secs(20), positive, "positive");
    // A single path's payload share of its link's rate: 1448 of 1500 bytes.
    let guard_ratio = p.number("guard_ratio", 0.965, |x| x > 0.0, "positive");
    let mut mptcp_rats = list(p, "mptcp_rats");
    if mptcp_rats.is_empty() {
        mptcp_rats = vec!["wifi".into(), "lte".into(), "nr".into()];
    }
    let data_limit_backup = p.choice("data_limit", "close", &["close", "backup"]) == "backup";
    let heat_threshold = p.number("heat_threshold", 43.0, |x| (-50.0..=150.0).contains(&x), "between -50 and 150 °C");
    let screen_off_single = p.choice("screen_off", "single_path", &["single_path", "ignore"]) == "single_path";
    let mut exclude = Vec::new();
    for name in list(p, "exclude") {
        exclude.extend(iface(p, "exclude", &name));
    }
    let proxied = list(p, "proxied");
    let mut families = vec![Family::Dual; host.interfaces.len()];
    for (name, f) in pairs(p, "families") {
        let (k, f) = (iface(p, "families", &name), Family::parse(&f));
        if f.is_none() {
            p.problem("families", format!("'{name}': family must be v4, v6 or dual"));
        }
        if let (Some(k), Some(f)) = (k, f) {
            families[k as usize] = f;
        }
    }
    let mut peer_families = BTreeMap::new();
    for (name, f) in pairs(p, "peer_families") {
        match Family::parse(&f) {
            Some(f) => drop(peer_families.insert(name, f)),
            None => p.problem("peer_families", format!("'{name}': family must be v4, v6 or dual")),
        }
    }
    // Android's per-network TCP buffer maxima, which the paper quotes for
    // LTE and 2.4 GHz Wi-Fi; NR is our choice (the paper gives none): LTE's.
    let mut buffers = BTreeMap::new();
    buffers.insert("lte".to_string(), p.bytes("buffer_lte", |b| b > 0, "positive").unwrap_or(8 * MIB));
    buffers.insert("wifi".to_string(), p.bytes("buffer_wifi", |b| b > 0, "positive").unwrap_or(4 * MIB));
    buffers.insert("nr".to_string(), p.bytes("buffer_nr", |b| b > 0, "positive").unwrap_or(8 * MIB));
    let default_buffer = p.bytes("buffer_other", |b| b > 0, "positive").unwrap_or(4 * MIB);
    let max_buffer = p.bytes("max_buffer", |b| b > 0, "positive").unwrap_or(12 * MIB);
    let tune_buffer = p.flag("tune_buffer", true);
    let tune_mss = p.flag("tune_mss", true);
    let sender_cc = match p.choice("sender_cc", "bbr", &["bbr", "keep"]) {
        "keep" => None,
        algorithm => Some(algorithm.to_string()),
    };
    if host.interfaces.len() < 2 {
        p.problem("primary", format!("{} has {} interface(s); S-MPTCP chooses among two or more", host.name, host.interfaces.len()));
    }
    Settings {
        primary,
        mode,
        apps,
        whitelist,
        whitelist_mode,
        reliability_categories,
        reliability_mode,
        problem_hold,
        video_threshold,
        threshold_cap,
        doubling,
        video_recheck,
        video_bitrate,
        alpha1,
        alpha2,
        download_rule,
        guard,
        guard_warmup,
        guard_window,
        guard_steady,
        guard_max_wait,
        guard_ratio,
        mptcp_rats,
        data_limit_backup,
        heat_threshold,
        screen_off_single,
        exclude,
        proxied,
        families,
        peer_families,
        buffers,
        default_buffer,
        max_buffer,
        tune_buffer,
        tune_mss,
        sender_cc,
    }
}
