//! A DASH-like video-on-demand player (ISO/IEC 23009-1 segments fetched
//! one at a time over a persistent HTTP connection).
//!
//! - The manifest: segments of `segment` seconds (the last one shorter if
//!   the video's duration is not a multiple), each available at every
//!   bitrate of the ladder; a segment at bitrate R is segment·R/8 bytes
//!   (constant bitrate encoding, as in Huang et al. 2014's model).
//! - Playback starts, and resumes after a stall, once the buffer holds
//!   `start_threshold` seconds of video (or the whole rest of the video).
//!   While playing, the buffer drains at one second per second; when it
//!   empties before the last segment has arrived, playback stalls.
//! - The player requests the next segment as soon as the previous one has
//!   arrived, unless it would not fit under `max_buffer`: it then pauses
//!   until the buffer has drained to `low_watermark` (the on-off pattern of
//!   YouTube-style players, Rao et al., "Network characteristics of video
//!   streaming traffic", CoNEXT 2011).
//! - The bitrate of each segment comes from the `abr` choice.
//!
//! The buffer level is kept as (level, time of that level) and brought up
//! to date lazily, so stalls begin at their exact time without events of
//! their own.

use super::abr::{AbrModel, BitrateChoice};
use super::exchange::Request;
use super::{Asks, Client, Metrics};
use crate::time::Time;

/// The validated settings of a video application.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoModel {
    pub segment_s: f64,
    /// Bitrates, bit/s, ascending.
    pub ladder: Vec<f64>,
    pub duration_s: f64,
    pub start_threshold_s: f64,
    pub max_buffer_s: f64,
    pub low_watermark_s: f64,
    pub abr: AbrModel,
}

impl VideoModel {
    pub fn segments(&self) -> usize {
        (self.duration_s / self.segment_s - 1e-9).ceil() as usize
    }

    /// Seconds of video in segment `i`.
    fn length(&self, i: usize) -> f64 {
        (self.duration_s - i as f64 * self.segment_s).min(self.segment_s)
    }

    /// Bytes of segment `i` at rung `rung`.
    fn bytes(&self, i: usize, rung: usize) -> u64 {
        (self.length(i) * self.ladder[rung] / 8.0).ceil() as u64
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Playback {
    /// Waiting for the start threshold before the first frame.
    Startup,
    Playing,
    Stalled { since: Time },
    /// The last frame was shown.
    Ended,
}

pub struct Player {
    m: VideoModel,
    abr: Box<dyn BitrateChoice>,
    /// The next segment to request.
    next: usize,
    /// The rung of each segment requested, by segment.
    rungs: Vec<usize>,
    /// Segments that arrived (in order: one request at a time).
    arrived: usize,
    /// Seconds of video buffered at `at`.
    level: f64,
    at: Time,
    playback: Playback,
    /// Waiting for the buffer to drain to the low watermark.
    paused: bool,
    /// When playback first started.
    first_frame: Option<Time>,
    stalls: u64,
    stall_time: Time,
}

impl Player {
    pub fn new(m: &VideoModel) -> Player {
        Player {
            abr: m.abr.make(),
            m: m.clone(),
            next: 0,
            rungs: Vec::new(),
            arrived: 0,
            level: 0.0,
            at: Time::ZERO,
            playback: Playback::Startup,
            paused: false,
            first_frame: None,
            stalls: 0,
            stall_time: Time::ZERO,
        }
    }

    /// Plays from `at` to `now`: the buffer drains, and may run out.
    fn advance(&mut self, now: Time) {
        if self.playback == Playback::Playing {
            let elapsed = (now - self.at).secs();
            if elapsed >= self.level {
                let out = self.at + Time::from_secs_f64(self.level);
                self.level = 0.0;
                self.playback = if self.arrived == self.m.segments() {
                    Playback::Ended
                } else {
                    self.stalls += 1;
                    Playback::Stalled { since: out }
                };
            } else {
                self.level -= elapsed;
            }
        }
        self.at = now;
    }

    /// Requests the next segment, or pauses while it would overfill the buffer.
    fn fetch(&mut self, now: Time, asks: &mut Asks) {
        let i = self.next;
        if i == self.m.segments() {
            return;
        }
        if self.level + self.m.length(i) > self.m.max_buffer_s + 1e-9 {
            self.paused = true;
            asks.wake = Some(now + Time::from_secs_f64(self.level - self.m.low_watermark_s));
            return;
        }
        let rung = self.abr.choose(&self.m.ladder, self.level, self.rungs.last().copied());
        self.rungs.push(rung);
        self.next += 1;
        asks.requests.push(self.m.bytes(i, rung));
    }

    /// The rung of the segment on screen at `now` (the first before playback).
    fn playing_rung(&self) -> Option<usize> {
        let shown = (0..self.arrived).map(|i| self.m.length(i)).sum::<f64>() - self.level;
        let i = ((shown / self.m.segment_s) as usize).min(self.arrived.checked_sub(1)?);
        Some(self.rungs[i])
    }
}

impl Client for Player {
    fn open(&mut self, now: Time, asks: &mut Asks) {
        self.fetch(now, asks);
    }

    fn done(&mut self, r: &Request, now: Time, asks: &mut Asks) {
        self.advance(now);
        self.abr.measured(r.bytes, (now - r.sent_at).secs());
        self.level += self.m.length(self.arrived);
        self.arrived += 1;
        let whole = self.arrived == self.m.segments();
        match self.playback {
            Playback::Startup | Playback::Stalled { .. } if self.level >= self.m.start_threshold_s - 1e-9 || whole => {
                if let Playback::Stalled { since } = self.playback {
                    self.stall_time += now - since;
                } else {
                    self.first_frame = Some(now);
                }
                self.playback = Playback::Playing;
            }
            _ => {}
        }
        self.fetch(now, asks);
    }

    fn wake(&mut self, now: Time, asks: &mut Asks) {
        self.advance(now);
        if std::mem::take(&mut self.paused) {
            self.fetch(now, asks);
        }
    }

    fn finished(&self) -> bool {
        self.arrived == self.m.segments()
    }

    fn sample(&mut self, now: Time) -> Option<(f64, f64)> {
        self.advance(now);
        Some((self.level, self.playing_rung().map_or(0.0, |r| self.m.ladder[r])))
    }

    fn metrics(&mut self, start: Time, end: Time, m: &mut Metrics) {
        self.advance(end);
        let mut stall_time = self.stall_time;
        if let Playback::Stalled { since } = self.playback {
            stall_time += end - since;
        }
        let got = &self.rungs[..self.arrived];
        let secs: f64 = (0..got.len()).map(|i| self.m.length(i)).sum();
        let weighted: f64 = got.iter().enumerate().map(|(i, &r)| self.m.length(i) * self.m.ladder[r]).sum();
        m.startup_s = self.first_frame.map(|t| (t - start).secs());
        m.stalls = Some(self.stalls);
        m.stall_s = Some(stall_time.secs());
        m.mean_bitrate_bps = (secs > 0.0).then(|| weighted / secs);
        m.switches = Some(got.windows(2).filter(|w| w[0] != w[1]).count() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> VideoModel {
        VideoModel {
            segment_s: 2.0,
            ladder: vec![1e6],
            duration_s: 7.0,
            start_threshold_s: 4.0,
            max_buffer_s: 6.0,
            low_watermark_s: 4.0,
            abr: AbrModel::Fixed,
        }
    }

    fn deliver(p: &mut Player, at: f64) -> Asks {
        let mut asks = Asks::default();
        let r = Request { ask: 300, bytes: 250_000, sent_at: Time::ZERO, arrived_at: None, end: None, first_byte_at: None, done_at: None };
        p.done(&r, Time::from_secs_f64(at), &mut asks);
        asks
    }

    #[test]
    fn manifest() {
        let m = model();
        assert_eq!(m.segments(), 4);
        assert_eq!(m.length(3), 1.0);
        assert_eq!(m.bytes(3, 0), 125_000);
    }

    #[test]
    fn startup_stall_pause_and_end() {
        let mut p = Player::new(&model());
        let mut asks = Asks::default();
        p.open(Time::ZERO, &mut asks);
        assert_eq!(asks.requests, vec![250_000]);
        deliver(&mut p, 1.0);
        assert_eq!(p.playback, Playback::Startup);
        // Two segments (4 s) reach the start threshold at 2 s.
        deliver(&mut p, 2.0);
        assert_eq!(p.first_frame, Some(Time::from_secs(2)));
        // The buffer ran out at 6 s: at 8 s the third segment (2 s) is
        // below the threshold, so the stall goes on ...
        let a = deliver(&mut p, 8.0);
        assert_eq!(p.stalls, 1);
        assert_eq!(p.playback, Playback::Stalled { since: Time::from_secs(6) });
        assert_eq!(a.requests, vec![125_000]);
        // ... until the last segment (the rest of the video) at 8.5 s.
        deliver(&mut p, 8.5);
        assert!(p.finished());
        let mut m = Metrics::default();
        p.metrics(Time::ZERO, Time::from_secs(20), &mut m);
        assert_eq!(p.playback, Playback::Ended);
        assert_eq!((m.stalls, m.stall_s, m.startup_s, m.switches), (Some(1), Some(2.5), Some(2.0), Some(0)));
    }

    #[test]
    fn pauses_at_the_maximum() {
        let mut m = model();
        m.duration_s = 20.0;
        let mut p = Player::new(&m);
        p.open(Time::ZERO, &mut Asks::default());
        deliver(&mut p, 0.1);
        deliver(&mut p, 0.2);
        // 4 s buffered, playing since 0.2 s; at 0.3 s the third segment brings 5.9 s ...
        let a = deliver(&mut p, 0.3);
        // ... and a fourth would not fit under 6 s: wait until 4 s are left.
        assert!(a.requests.is_empty());
        let wake = a.wake.unwrap();
        assert!((wake.secs() - 2.2).abs() < 1e-6, "{wake}");
        let mut asks = Asks::default();
        p.wake(wake, &mut asks);
        assert_eq!(asks.requests.len(), 1);
    }
}
