//! Applications on a flow's persistent connection (`docs/apps.md`).
//!
//! A flow with an application is one connection from its server (`src`,
//! which sends the responses) to its client (`dst`, which requests them).
//! The connection stays open for the whole session, idle between objects.
//! `App` plays both ends: the client side (`Client`: a download, a video
//! player) decides what to request and when, `exchange::Exchange` carries
//! the requests to the server and the responses back, and the world moves
//! the packets (`World::app_step`, `World::request_arrived`).
//!
//! - `exchange`: requests, responses appended to the stream, in-order completion.
//! - `download`: objects in sequence (HTTP-style downloads).
//! - `interactive`: messages pushed at a fixed interval.
//! - `video`: a DASH-like player; `abr`, `bba`, `throughput`: its bitrate choice.
//!
//! A fetch session (`fetch`) is not tied to one flow: it downloads a
//! mirrored content (`content`) in byte ranges (`ranges`) over several
//! connections, which the world opens and steers (`world/sessions.rs`).

pub mod abr;
pub mod bba;
pub mod content;
pub mod download;
pub mod exchange;
pub mod fetch;
pub mod fetch_results;
pub mod page;
pub mod page_results;
pub mod interactive;
pub mod ranges;
pub mod throughput;
pub mod video;

use crate::metrics::{Column, Table};
use crate::time::Time;
use download::{Download, DownloadModel};
use exchange::{Exchange, Request};
use interactive::{Interactive, InteractiveModel};
use video::{Player, VideoModel};

/// A flow's validated application (`app = { ... }` in the scenario).
#[derive(Debug, Clone, PartialEq)]
pub struct AppModel {
    /// Its identity (the flow's name unless given).
    pub name: String,
    /// "video", "download", ... or a name the scenario gives.
    pub category: String,
    /// Bytes of each request on the wire, beside the packet header.
    pub request_bytes: u32,
    pub kind: AppKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AppKind {
    Download(DownloadModel),
    Video(VideoModel),
    Interactive(InteractiveModel),
}

impl AppKind {
    pub fn name(&self) -> &'static str {
        match self {
            AppKind::Download(_) => "download",
            AppKind::Video(_) => "video",
            AppKind::Interactive(_) => "interactive",
        }
    }
}

/// What a client asks for after an event: responses of these sizes,
/// messages the server sends unasked, and to be woken at a time.
#[derive(Debug, Default)]
pub struct Asks {
    pub requests: Vec<u64>,
    pub pushes: Vec<u64>,
    pub wake: Option<Time>,
}

/// A session's metrics beside those every application has; None where
/// they do not apply.
#[derive(Debug, Default)]
pub struct Metrics {
    pub startup_s: Option<f64>,
    pub stalls: Option<u64>,
    pub stall_s: Option<f64>,
    pub mean_bitrate_bps: Option<f64>,
    pub switches: Option<u64>,
    pub size_announced: bool,
}

/// An application's client side.
pub trait Client: Send {
    /// The connection is open.
    fn open(&mut self, now: Time, asks: &mut Asks);
    /// The response to `r` was delivered in full.
    fn done(&mut self, r: &Request, now: Time, asks: &mut Asks);
    /// The time it asked to be woken at came.
    fn wake(&mut self, now: Time, asks: &mut Asks);
    /// Everything it meant to fetch has arrived.
    fn finished(&self) -> bool;
    /// (buffer level in seconds, bitrate in bit/s) for the `app_ts` series.
    fn sample(&mut self, now: Time) -> Option<(f64, f64)>;
    /// Its own metrics at the end of the run, for a session begun at `start`.
    fn metrics(&mut self, start: Time, end: Time, m: &mut Metrics);
}

/// The requests a step produced, to send (ids in the exchange), the bytes
/// the server writes unasked, and the time to wake the client at.
#[derive(Debug, Default)]
pub struct Out {
    pub send: Vec<u32>,
    pub write: u64,
    pub wake: Option<Time>,
}

pub struct App {
    pub model: AppModel,
    pub exchange: Exchange,
    client: Box<dyn Client>,
    /// The session began (the flow started).
    start: Time,
    opened: bool,
    /// Requests sent again after a loss.
    pub resent: u64,
    /// The client's latest (buffer level, bitrate) sample.
    last_sample: Option<(f64, f64)>,
}

impl App {
    pub fn new(model: &AppModel) -> App {
        let client: Box<dyn Client> = match &model.kind {
            AppKind::Download(d) => Box::new(Download::new(d)),
            AppKind::Video(v) => Box::new(Player::new(v)),
            AppKind::Interactive(i) => Box::new(Interactive::new(i)),
        };
        App { model: model.clone(), exchange: Exchange::default(), client, start: Time::ZERO, opened: false, resent: 0, last_sample: None }
    }

    /// The flow started at `now`: the session begins.
    pub fn begin(&mut self, now: Time) {
        self.start = now;
    }

    /// After the connection's end-points acted: opens the session once the
    /// connection is `established`, and completes the responses that
    /// `delivered` in-order bytes cover.
    pub fn step(&mut self, now: Time, established: bool, delivered: u64) -> Out {
        let mut asks = Asks::default();
        if !self.opened && established {
            self.opened = true;
            self.client.open(now, &mut asks);
        }
        for id in self.exchange.deliver(delivered, now) {
            let r = self.exchange.requests[id as usize].clone();
            self.client.done(&r, now, &mut asks);
        }
        self.issue(now, asks)
    }

    /// The client's wake-up time came.
    pub fn wake(&mut self, now: Time) -> Out {
        let mut asks = Asks::default();
        self.client.wake(now, &mut asks);
        self.issue(now, asks)
    }

    fn issue(&mut self, now: Time, asks: Asks) -> Out {
        Out {
            send: asks.requests.into_iter().map(|bytes| self.exchange.send(self.model.request_bytes, bytes, now)).collect(),
            write: asks.pushes.into_iter().map(|bytes| self.exchange.push(bytes, now)).sum(),
            wake: asks.wake,
        }
    }

    pub fn sample(&mut self, now: Time) -> Option<(f64, f64)> {
        self.last_sample = self.client.sample(now);
        self.last_sample
    }

    /// Whether the server announces each object's size to the client.
    pub fn announces_size(&self) -> bool {
        match &self.model.kind {
            AppKind::Download(d) => d.size_announced,
            // A segment's size is in the manifest; a message's is fixed.
            AppKind::Video(_) | AppKind::Interactive(_) => true,
        }
    }

    /// What a controller on the client sees of the application.
    pub fn view(&self) -> crate::control::view::AppView {
        let last = self.exchange.requests.last();
        let video = match &self.model.kind {
            AppKind::Video(v) => Some(v),
            _ => None,
        };
        crate::control::view::AppView {
            name: self.model.name.clone(),
            category: self.model.category.clone(),
            requests: self.exchange.requests.len() as u64,
            completed: self.exchange.requests.iter().filter(|r| r.done_at.is_some()).count() as u64,
            object_size: last.filter(|_| self.announces_size()).map(|r| r.bytes),
            object_requested_at: last.map(|r| r.sent_at),
            buffer_s: self.last_sample.map(|s| s.0),
            bitrate_bps: self.last_sample.map(|s| s.1),
            video_length_s: video.map(|v| v.duration_s),
            video_top_bitrate_bps: video.and_then(|v| v.ladder.last().copied()),
        }
    }
}

/// The `app_ts` time series: one row per video session per sample.
#[derive(Debug, Default)]
pub struct Series {
    time: Vec<f64>,
    flow: Vec<u32>,
    buffer: Vec<f64>,
    bitrate: Vec<f64>,
}

impl Series {
    pub fn push(&mut self, now: Time, flow: u32, (buffer_s, bitrate_bps): (f64, f64)) {
        self.time.push(now.secs());
        self.flow.push(flow);
        self.buffer.push(buffer_s);
        self.bitrate.push(bitrate_bps);
    }

    pub fn into_table(self) -> Table {
        Table::new("app_ts")
            .col("time_s", Column::F64(self.time))
            .col("flow_id", Column::U32(self.flow))
            .col("buffer_s", Column::F64(self.buffer))
            .col("bitrate_bps", Column::F64(self.bitrate))
    }
}

/// The `apps` table: one row per application session, measured at `end`.
pub fn table<'a>(apps: impl Iterator<Item = (u32, &'a mut App)>, end: Time) -> Table {
    let (mut flow, mut name, mut category, mut kind) = (vec![], vec![], vec![], vec![]);
    let (mut objects, mut bytes, mut object_time, mut object_p95, mut completion, mut resent) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut startup, mut stalls, mut stall_s, mut bitrate, mut switches, mut announced) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    for (id, app) in apps {
        let done: Vec<&Request> = app.exchange.requests.iter().filter(|r| r.done_at.is_some()).collect();
        let mut times: Vec<f64> = done.iter().map(|r| (r.done_at.expect("done") - r.sent_at).secs()).collect();
        let last = done.iter().filter_map(|r| r.done_at).max();
        let mut m = Metrics::default();
        app.client.metrics(app.start, end, &mut m);
        flow.push(id);
        name.push(app.model.name.clone());
        category.push(app.model.category.clone());
        kind.push(app.model.kind.name().to_string());
        objects.push(done.len() as u64);
        bytes.push(done.iter().map(|r| r.bytes).sum());
        object_time.push((!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64));
        times.sort_by(f64::total_cmp);
        // Nearest rank.
        object_p95.push((!times.is_empty()).then(|| times[((0.95 * times.len() as f64).ceil() as usize).max(1) - 1]));
        completion.push(last.filter(|_| app.client.finished()).map(|t| (t - app.start).secs()));
        resent.push(app.resent);
        startup.push(m.startup_s);
        stalls.push(m.stalls);
        stall_s.push(m.stall_s);
        bitrate.push(m.mean_bitrate_bps);
        switches.push(m.switches);
        announced.push(m.size_announced);
    }
    Table::new("apps")
        .col("flow_id", Column::U32(flow))
        .col("app", Column::Str(name))
        .col("category", Column::Str(category))
        .col("kind", Column::Str(kind))
        .col("objects", Column::U64(objects))
        .col("bytes", Column::U64(bytes))
        .col("object_time_mean_s", Column::OptF64(object_time))
        .col("object_time_p95_s", Column::OptF64(object_p95))
        .col("completion_s", Column::OptF64(completion))
        .col("requests_resent", Column::U64(resent))
        .col("startup_s", Column::OptF64(startup))
        .col("stalls", Column::OptU64(stalls))
        .col("stall_s", Column::OptF64(stall_s))
        .col("mean_bitrate_bps", Column::OptF64(bitrate))
        .col("switches", Column::OptU64(switches))
        .col("size_announced", Column::Bool(announced))
}
