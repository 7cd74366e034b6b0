//! `app = { kind = ..., ... }` in a `[[flows]]` entry: the syntax of the
//! applications (`crate::app`), their checks and their resolution into an
//! `AppModel`. Defaults are documented in `docs/apps.md`.

use serde::Deserialize;

use super::error::Problems;
use super::spec::{ClientEnd, FlowSpec};
use crate::app::abr::AbrModel;
use crate::app::download::DownloadModel;
use crate::app::interactive::InteractiveModel;
use crate::app::video::VideoModel;
use crate::app::{AppKind, AppModel};
use crate::time::Time;
use crate::units::{Bytes, Duration, Rate};

/// `app = { kind = ..., ... }`: the common keys, then those of each kind
/// (one flat table, so that every problem names its key).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    /// `download`, `video` or `interactive`.
    pub kind: String,
    /// The application's identity (default: the flow's name).
    pub name: Option<String>,
    /// Its category (default: its kind).
    pub category: Option<String>,
    /// Bytes of each request beside the packet header.
    pub request: Option<Bytes>,
    // download
    pub size: Option<Bytes>,
    pub count: Option<u32>,
    pub think: Option<Duration>,
    pub size_announced: Option<bool>,
    // video
    pub segment: Option<Duration>,
    pub bitrate: Option<Rate>,
    pub bitrates: Option<Vec<Rate>>,
    pub duration: Option<Duration>,
    pub start_threshold: Option<Duration>,
    pub max_buffer: Option<Duration>,
    pub low_watermark: Option<Duration>,
    pub abr: Option<String>,
    pub reservoir: Option<Duration>,
    pub cushion: Option<Duration>,
    pub window: Option<u32>,
    pub safety: Option<f64>,
    // interactive (and `count`)
    pub message: Option<Bytes>,
    pub interval: Option<Duration>,
}

impl AppSpec {
    /// The keys of some kinds only, the kinds, and whether each is set.
    fn set_keys(&self) -> [(&'static str, &'static [&'static str], bool); 18] {
        const DOWNLOAD: &[&str] = &["download"];
        const VIDEO: &[&str] = &["video"];
        const INTERACTIVE: &[&str] = &["interactive"];
        [
            ("size", DOWNLOAD, self.size.is_some()),
            ("count", &["download", "interactive"], self.count.is_some()),
            ("think", DOWNLOAD, self.think.is_some()),
            ("size_announced", DOWNLOAD, self.size_announced.is_some()),
            ("segment", VIDEO, self.segment.is_some()),
            ("bitrate", VIDEO, self.bitrate.is_some()),
            ("bitrates", VIDEO, self.bitrates.is_some()),
            ("duration", VIDEO, self.duration.is_some()),
            ("start_threshold", VIDEO, self.start_threshold.is_some()),
            ("max_buffer", VIDEO, self.max_buffer.is_some()),
            ("low_watermark", VIDEO, self.low_watermark.is_some()),
            ("abr", VIDEO, self.abr.is_some()),
            ("reservoir", VIDEO, self.reservoir.is_some()),
            ("cushion", VIDEO, self.cushion.is_some()),
            ("window", VIDEO, self.window.is_some()),
            ("safety", VIDEO, self.safety.is_some()),
            ("message", INTERACTIVE, self.message.is_some()),
            ("interval", INTERACTIVE, self.interval.is_some()),
        ]
    }
}

/// A typical HTTP GET with its headers (a few hundred bytes).
const REQUEST_BYTES: u64 = 300;
/// DASH segments are commonly 2–10 s; 4 s is a usual choice.
const SEGMENT: Time = Time::from_secs(4);
/// dash.js keeps up to 30 s at the top bitrate (`bufferTimeAtTopQuality`).
const MAX_BUFFER: Time = Time::from_secs(30);
/// BBA-0's reservoir and cushion as shares of its 240 s buffer (90 s and 126 s; Huang et al. §4).
const RESERVOIR_SHARE: f64 = 90.0 / 240.0;
const CUSHION_SHARE: f64 = 126.0 / 240.0;
/// Yin et al.'s rate-based predictor averages the last 5 segments.
const WINDOW: u32 = 5;
/// dash.js spends 0.9 of its throughput estimate (`bandwidthSafetyFactor`).
const SAFETY: f64 = 0.9;

/// The application of flow `f` (at `field`), whose last item starts at
/// `start`; None (with problems) if it is bad. Its name is empty unless
/// given (the caller names it after the flow).
pub fn build(f: &FlowSpec, field: &str, start: Time, run: Time, p: &mut Problems) -> Option<AppModel> {
    let spec = f.app.as_ref()?;
    let field = format!("{field}.app");
    let before = p.list.len();
    if !matches!(f.transport.as_str(), "tcp" | "mptcp") {
        p.add(&field, format!("applications run on transports 'tcp' and 'mptcp' only, not '{}'", f.transport));
    }
    if f.client != ClientEnd::Dst {
        p.add(&field, "the server (src) sends the responses to the application's client (dst): set client = \"dst\"");
    }
    if f.size.is_some() {
        p.add(&field, "the application decides what the flow carries: remove the flow's size");
    }
    if f.stop.is_some() {
        p.add(&field, "the application decides when the flow is done: remove the flow's stop");
    }
    const KINDS: [&str; 3] = ["download", "video", "interactive"];
    if !KINDS.contains(&spec.kind.as_str()) {
        p.add(format!("{field}.kind"), format!("unknown kind '{}' (known: {})", spec.kind, KINDS.join(", ")));
        return None;
    }
    for (key, kinds, set) in spec.set_keys() {
        if set && !kinds.contains(&spec.kind.as_str()) {
            p.add(format!("{field}.{key}"), format!("applies to kind '{}' only", kinds.join("' and '")));
        }
    }
    if spec.count == Some(0) {
        p.add(format!("{field}.count"), "must be at least 1");
    }
    let kind = if spec.kind == "download" {
        let size = spec.size.map_or(0, |s| s.0);
        if size == 0 {
            p.add(format!("{field}.size"), "needs a positive size");
        }
        AppKind::Download(DownloadModel {
            size,
            count: spec.count.unwrap_or(1),
            think: spec.think.map_or(Time::ZERO, |t| t.0),
            size_announced: spec.size_announced.unwrap_or(true),
        })
    } else if spec.kind == "interactive" {
        let message = spec.message.map_or(0, |m| m.0);
        if message == 0 {
            p.add(format!("{field}.message"), "needs a positive message size");
        }
        let interval = spec.interval.map_or(Time::ZERO, |i| i.0);
        if interval == Time::ZERO {
            p.add(format!("{field}.interval"), "needs a positive interval");
        }
        AppKind::Interactive(InteractiveModel { message, interval, count: spec.count })
    } else {
        let v = video(spec, &field, start, run, p);
        let abr = choice(spec, &field, &v, p);
        AppKind::Video(VideoModel { abr, ..v })
    };
    let request = spec.request.map_or(REQUEST_BYTES, |r| r.0);
    if request == 0 || request > u32::MAX as u64 / 2 {
        p.add(format!("{field}.request"), "must be positive (and under 2 GB)");
    }
    let model = AppModel {
        name: spec.name.clone().unwrap_or_default(),
        category: spec.category.clone().unwrap_or_else(|| kind.name().to_string()),
        request_bytes: request as u32,
        kind,
    };
    (p.list.len() == before).then_some(model)
}

fn video(spec: &AppSpec, field: &str, start: Time, run: Time, p: &mut Problems) -> VideoModel {
    let segment = spec.segment.map_or(SEGMENT, |s| s.0);
    if segment == Time::ZERO {
        p.add(format!("{field}.segment"), "must be positive");
    }
    let ladder: Vec<f64> = match (&spec.bitrate, &spec.bitrates) {
        (Some(_), Some(_)) => {
            p.add(format!("{field}.bitrate"), "give bitrate (one) or bitrates (a ladder), not both");
            Vec::new()
        }
        (None, None) => {
            p.add(field, "needs bitrate (one) or bitrates (a ladder)");
            Vec::new()
        }
        (Some(r), None) => {
            if r.0 <= 0.0 {
                p.add(format!("{field}.bitrate"), "must be positive");
            }
            vec![r.0]
        }
        (None, Some(l)) => {
            if l.is_empty() {
                p.add(format!("{field}.bitrates"), "the ladder has no rates");
            }
            if l.iter().any(|r| r.0 <= 0.0) {
                p.add(format!("{field}.bitrates"), "every rate must be positive");
            }
            if l.windows(2).any(|w| w[0].0 >= w[1].0) {
                p.add(format!("{field}.bitrates"), "must be in increasing order");
            }
            l.iter().map(|r| r.0).collect()
        }
    };
    let duration = spec.duration.map_or(Time::ZERO, |d| d.0);
    if duration == Time::ZERO {
        p.add(format!("{field}.duration"), "needs the video's positive duration");
    }
    if start + duration > run {
        p.add(
            format!("{field}.duration"),
            format!("the video ({}) starting at {} is longer than the run ({})", secs(duration), secs(start), secs(run)),
        );
    }
    let max_buffer = spec.max_buffer.map_or(MAX_BUFFER, |m| m.0);
    let start_threshold = spec.start_threshold.map_or(segment, |s| s.0);
    let low_watermark = spec.low_watermark.map_or(max_buffer.saturating_sub(segment), |l| l.0);
    // Below the threshold the player must be able to fetch, or it would never start.
    if start_threshold == Time::ZERO || start_threshold + segment > max_buffer {
        p.add(
            format!("{field}.start_threshold"),
            format!("must be positive and leave room for one segment ({}) under max_buffer ({})", secs(segment), secs(max_buffer)),
        );
    }
    if low_watermark + segment > max_buffer {
        p.add(format!("{field}.low_watermark"), format!("must leave room for one segment ({}) under max_buffer ({})", secs(segment), secs(max_buffer)));
    }
    VideoModel {
        segment_s: segment.secs(),
        ladder,
        duration_s: duration.secs(),
        start_threshold_s: start_threshold.secs(),
        max_buffer_s: max_buffer.secs(),
        low_watermark_s: low_watermark.secs(),
        abr: AbrModel::Fixed,
    }
}

fn choice(spec: &AppSpec, field: &str, v: &VideoModel, p: &mut Problems) -> AbrModel {
    let (reservoir, cushion, window, safety) = (spec.reservoir, spec.cushion, spec.window, spec.safety);
    let abr = spec.abr.as_deref().unwrap_or(if v.ladder.len() > 1 { "bba" } else { "fixed" });
    let only = |p: &mut Problems, set: bool, key: &str, kind: &str| {
        if set && abr != kind {
            p.add(format!("{field}.{key}"), format!("applies to abr = '{kind}' only"));
        }
    };
    only(p, reservoir.is_some(), "reservoir", "bba");
    only(p, cushion.is_some(), "cushion", "bba");
    only(p, window.is_some(), "window", "throughput");
    only(p, safety.is_some(), "safety", "throughput");
    match abr {
        "fixed" => {
            if v.ladder.len() > 1 {
                p.add(format!("{field}.abr"), "'fixed' plays one bitrate: give bitrate, or choose 'bba' or 'throughput' for a ladder");
            }
            AbrModel::Fixed
        }
        "bba" => {
            let reservoir_s = reservoir.map_or(RESERVOIR_SHARE * v.max_buffer_s, |r| r.0.secs());
            let cushion_s = cushion.map_or(CUSHION_SHARE * v.max_buffer_s, |c| c.0.secs());
            if cushion_s <= 0.0 {
                p.add(format!("{field}.cushion"), "must be positive");
            }
            AbrModel::Bba { reservoir_s, cushion_s }
        }
        "throughput" => {
            let window = window.unwrap_or(WINDOW);
            let safety = safety.unwrap_or(SAFETY);
            if window == 0 {
                p.add(format!("{field}.window"), "must be at least 1");
            }
            if !(safety > 0.0 && safety <= 1.0) {
                p.add(format!("{field}.safety"), "must be in (0, 1]");
            }
            AbrModel::Throughput { window: window as usize, safety }
        }
        other => {
            p.add(format!("{field}.abr"), format!("unknown abr '{other}' (known: fixed, bba, throughput)"));
            AbrModel::Fixed
        }
    }
}

fn secs(t: Time) -> String {
    format!("{} s", t.secs())
}
