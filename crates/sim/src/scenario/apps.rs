//! `app = { kind = ..., ... }` in a `[[flows]]` entry: the syntax of the
//! applications (`crate::app`), their checks and their resolution into an
//! `AppModel`. Defaults are documented in `docs/apps.md`.

use serde::Deserialize;

use super::error::Problems;
use super::spec::{ClientEnd, FlowSpec};
use crate::app::abr::AbrModel;
use crate::app::download::DownloadModel;
use crate::app::video::VideoModel;
use crate::app::{AppKind, AppModel};
use crate::time::Time;
use crate::units::{Bytes, Duration, Rate};

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    /// Objects of `size` bytes, `count` of them one after another.
    Download {
        name: Option<String>,
        category: Option<String>,
        request: Option<Bytes>,
        size: Bytes,
        count: Option<u32>,
        think: Option<Duration>,
        /// Whether the server announces the size (Content-Length); default true.
        size_announced: Option<bool>,
    },
    /// A DASH-like video-on-demand session.
    Video {
        name: Option<String>,
        category: Option<String>,
        request: Option<Bytes>,
        segment: Option<Duration>,
        /// One bitrate, or a ladder of them.
        bitrate: Option<Rate>,
        bitrates: Option<Vec<Rate>>,
        duration: Duration,
        start_threshold: Option<Duration>,
        max_buffer: Option<Duration>,
        low_watermark: Option<Duration>,
        /// `fixed`, `bba` or `throughput`.
        abr: Option<String>,
        reservoir: Option<Duration>,
        cushion: Option<Duration>,
        window: Option<u32>,
        safety: Option<f64>,
    },
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
    let (name, category, request, kind) = match spec {
        AppSpec::Download { name, category, request, size, count, think, size_announced } => {
            if size.0 == 0 {
                p.add(format!("{field}.size"), "must be positive");
            }
            if *count == Some(0) {
                p.add(format!("{field}.count"), "must be at least 1");
            }
            let d = DownloadModel {
                size: size.0,
                count: count.unwrap_or(1),
                think: think.map_or(Time::ZERO, |t| t.0),
                size_announced: size_announced.unwrap_or(true),
            };
            (name, category, request, AppKind::Download(d))
        }
        AppSpec::Video {
            name,
            category,
            request,
            segment,
            bitrate,
            bitrates,
            duration,
            start_threshold,
            max_buffer,
            low_watermark,
            abr,
            reservoir,
            cushion,
            window,
            safety,
        } => {
            let v = video(&field, start, run, p, segment, bitrate, bitrates, duration, start_threshold, max_buffer, low_watermark);
            let abr = choice(&field, p, &v, abr.as_deref(), reservoir, cushion, window, safety);
            (name, category, request, AppKind::Video(VideoModel { abr, ..v }))
        }
    };
    let request = request.map_or(REQUEST_BYTES, |r| r.0);
    if request == 0 || request > u32::MAX as u64 / 2 {
        p.add(format!("{field}.request"), "must be positive (and under 2 GB)");
    }
    let model = AppModel {
        name: name.clone().unwrap_or_default(),
        category: category.clone().unwrap_or_else(|| kind.name().to_string()),
        request_bytes: request as u32,
        kind,
    };
    (p.list.len() == before).then_some(model)
}

#[allow(clippy::too_many_arguments)]
fn video(
    field: &str,
    start: Time,
    run: Time,
    p: &mut Problems,
    segment: &Option<Duration>,
    bitrate: &Option<Rate>,
    bitrates: &Option<Vec<Rate>>,
    duration: &Duration,
    start_threshold: &Option<Duration>,
    max_buffer: &Option<Duration>,
    low_watermark: &Option<Duration>,
) -> VideoModel {
    let segment = segment.map_or(SEGMENT, |s| s.0);
    if segment == Time::ZERO {
        p.add(format!("{field}.segment"), "must be positive");
    }
    let ladder: Vec<f64> = match (bitrate, bitrates) {
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
    let duration = duration.0;
    if duration == Time::ZERO {
        p.add(format!("{field}.duration"), "must be positive");
    }
    if start + duration > run {
        p.add(
            format!("{field}.duration"),
            format!("the video ({duration}) starting at {start} is longer than the run ({run})"),
        );
    }
    let max_buffer = max_buffer.map_or(MAX_BUFFER, |m| m.0);
    let start_threshold = start_threshold.map_or(segment, |s| s.0);
    let low_watermark = low_watermark.map_or(max_buffer.saturating_sub(segment), |l| l.0);
    if max_buffer < segment {
        p.add(format!("{field}.max_buffer"), format!("must hold at least one segment ({segment})"));
    }
    if start_threshold == Time::ZERO || start_threshold > max_buffer {
        p.add(format!("{field}.start_threshold"), format!("must be positive and at most max_buffer ({max_buffer})"));
    }
    if low_watermark + segment > max_buffer {
        p.add(format!("{field}.low_watermark"), format!("must leave room for one segment ({segment}) under max_buffer ({max_buffer})"));
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

#[allow(clippy::too_many_arguments)]
fn choice(
    field: &str,
    p: &mut Problems,
    v: &VideoModel,
    abr: Option<&str>,
    reservoir: &Option<Duration>,
    cushion: &Option<Duration>,
    window: &Option<u32>,
    safety: &Option<f64>,
) -> AbrModel {
    let abr = abr.unwrap_or(if v.ladder.len() > 1 { "bba" } else { "fixed" });
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
