//! S-MPTCP, the smart MPTCP controller of Singh et al., "NexGen S-MPTCP:
//! Next Generation Smart Multipath TCP Controller", IEEE Access 10 (2022)
//! (`../shared/papers/smptcp-nexgen-smart-mptcp-controller.txt`), as one
//! device-side controller on the phone (`kind = "smptcp"`). It changes the
//! phone only: which subflows exist, their backup flags, the phone's
//! receive buffer and MSS, and, where the phone sends the data, its
//! congestion control; the server's scheduler and congestion control stay
//! those of the scenario.
//!
//! Per connection the phone opens (its MPTCP client connections), at
//! every event:
//! 1. the classifier (`classify.rs`) picks the policy: a fixed mode
//!    (`mode.rs`), Algorithm 1 for video (`video.rs`) or Algorithm 2 for
//!    downloads (`download.rs`, with the best-single-path guard, `guard.rs`);
//! 2. the feeders restrict it: the connection analyzer (`connection.rs`:
//!    fallback, proxies, excluded interfaces, address families), the
//!    battery analyzer (`battery.rs`: heat, screen off), the radio analyzer
//!    (`radio.rs`: RAT set, data limits, bandwidth estimates);
//! 3. the wanted subflows are compared with the open ones and the
//!    difference becomes actions (`plan.rs`); the auto-tuner sizes the
//!    receive buffer for the interfaces in use (`tuner.rs`); before the
//!    first SYN it sets the MSS and, on uploads, BBR on the subflows.
//!
//! Every change of the wanted subflows goes to the controller log with
//! its reason. docs/smptcp.md has the parameters and the readings chosen
//! where the paper is ambiguous.

mod battery;
mod classify;
mod connection;
mod download;
mod guard;
mod mode;
mod plan;
mod radio;
mod settings;
mod tuner;
mod video;

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use super::view::{ConnectionView, Role};
use super::{Action, ActionKind, Built, ConnId, Controller, Event, Host, View};
use crate::cc::params::Params;
use crate::time::Time;
use classify::Class;
use mode::Mode;
use plan::{Want, Wanted};
use radio::Use;
use settings::Settings;

pub struct Smptcp {
    s: Settings,
    conns: BTreeMap<ConnId, Conn>,
}

/// One connection's state.
struct Conn {
    class: Class,
    video: video::Video,
    /// Algorithm 1's latest choice of extra interfaces, once it made one.
    video_extra: Vec<u16>,
    video_decided: bool,
    download: download::Download,
    guard: Option<guard::Guard>,
    reliability: Reliability,
    /// The wanted subflows last logged, and the actions asked for.
    wanted: Option<Wanted>,
    asked: plan::Asked,
    /// The receive buffer last set.
    buffer: Option<u64>,
    scheduler_set: bool,
    /// The latest reason for the policy's choice.
    reason: String,
}

/// Reliability mode's watch on the primary.
#[derive(Default)]
struct Reliability {
    primary_bytes: u64,
    progress_at: Option<Time>,
    problem_since: Option<Time>,
    well_since: Option<Time>,
    switched: bool,
}

pub fn build(p: &mut Params, host: &Host) -> Built {
    let s = settings::read(p, host);
    let mut actions = vec![ActionKind::OpenSubflow, ActionKind::CloseSubflow, ActionKind::SetBackup, ActionKind::ArmTimer, ActionKind::Log];
    if s.tune_buffer {
        actions.push(ActionKind::SetReceiveBuffer);
    }
    // The MSS rule acts only where the interfaces' MTUs differ.
    if s.tune_mss && host.mtus.iter().min() != host.mtus.iter().max() {
        actions.push(ActionKind::SetMss);
    }
    if s.sender_cc.is_some() {
        actions.push(ActionKind::SetCongestionControl);
    }
    if classify::may_use(Mode::LowLatency, &s) {
        actions.push(ActionKind::SetScheduler);
    }
    Built { controller: Box::new(Smptcp { s, conns: BTreeMap::new() }), actions }
}

impl Controller for Smptcp {
    fn on_event(&mut self, now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        if let Event::ConnectionOpening { conn } = *event {
            // Before the SYN, the auto-tuner's MSS and, where the phone
            // sends, its congestion control; nothing else is decided yet.
            let Some(c) = view.connection(conn).filter(|c| c.client && c.multipath) else { return };
            if let Some((mss, terms)) = tuner::mss(view, &self.s).filter(|_| self.s.tune_mss) {
                out.push(Action::Log { detail: format!("{}: {terms}", c.flow) });
                out.push(Action::SetMss { conn, mss });
            }
            if let Some((algorithm, terms)) = tuner::sender_cc(c, &self.s) {
                out.push(Action::Log { detail: format!("{}: {terms}", c.flow) });
                out.push(Action::SetCongestionControl { conn, algorithm });
            }
            return;
        }
        for c in view.connections.iter().filter(|c| c.client && c.multipath && c.established) {
            self.connection(now, event, c, view, out);
        }
    }
}

impl Smptcp {
    fn connection(&mut self, now: Time, event: &Event, c: &ConnectionView, view: &View, out: &mut Vec<Action>) {
        let s = &self.s;
        if let Entry::Vacant(slot) = self.conns.entry(c.id) {
            let (class, reason) = classify::classify(c, s);
            // Algorithms 1 and 2 decide on the application's first request
            // (an interactive session, which requests nothing, starts at once).
            if matches!(class, Class::Video | Class::Download) && c.app.as_ref().is_some_and(|a| a.requests == 0) {
                return;
            }
            out.push(Action::Log { detail: format!("{}: {reason}", c.flow) });
            slot.insert(Conn {
                class,
                video: video::Video::new(s),
                video_extra: Vec::new(),
                video_decided: false,
                download: download::Download::default(),
                guard: None,
                reliability: Reliability::default(),
                wanted: None,
                asked: plan::Asked::default(),
                buffer: None,
                scheduler_set: false,
                reason,
            });
        }
        let conn = self.conns.get_mut(&c.id).expect("inserted above");
        let wb = view.interfaces.get(s.primary as usize).and_then(radio::estimate);
        let mode = match conn.class {
            Class::Fixed(m) => m,
            Class::Video => {
                if let Some(app) = &c.app {
                    let others: Vec<(u16, Option<f64>)> = (0..view.interfaces.len() as u16)
                        .filter(|&k| k != s.primary && radio::usage(k, &view.interfaces[k as usize], s) == Use::Full)
                        .map(|k| (k, radio::estimate(&view.interfaces[k as usize])))
                        .collect();
                    if let Some(d) = conn.video.step(now, s, app, wb, &others) {
                        if !conn.video_decided || d.cellular != conn.video_extra || d.threshold_moved {
                            out.push(Action::Log { detail: format!("{}: {}", c.flow, d.reason) });
                        }
                        conn.video_decided = true;
                        conn.video_extra = d.cellular;
                        conn.reason = d.reason;
                    }
                }
                if conn.video_extra.is_empty() {
                    Mode::SinglePath
                } else {
                    Mode::HassleFree
                }
            }
            Class::Download => Self::download(now, event, c, s, conn, view, out),
        };
        if mode == Mode::Reliability && *event == Event::Sample {
            Self::watch_primary(now, c, view, s, &mut conn.reliability);
        }
        let restriction = connection::single_only(c, s).or_else(|| battery::restriction(&view.device, s));
        let mode = if restriction.is_some() { Mode::SinglePath } else { mode };
        let wanted = Self::wanted(c, view, s, conn, mode);
        if conn.wanted.as_ref() != Some(&wanted) {
            let why = restriction.as_deref().unwrap_or(&conn.reason);
            out.push(Action::Log { detail: format!("{}: {} [{}]: {why}", c.flow, wanted.describe(view, c), mode.name()) });
            conn.wanted = Some(wanted.clone());
        }
        if c.fallback {
            return;
        }
        plan::reconcile(now, c, view, &wanted, &mut conn.asked, out);
        if mode == Mode::LowLatency && !conn.scheduler_set {
            conn.scheduler_set = true;
            if c.role == Role::Sender {
                out.push(Action::SetScheduler { conn: c.id, scheduler: "redundant".to_string() });
            } else {
                out.push(Action::Log { detail: format!("{}: low latency wants the redundant scheduler, the data sender's (the server's) choice", c.flow) });
            }
        }
        if s.tune_buffer && c.role == Role::Receiver {
            let (bytes, terms) = tuner::receive_buffer(view, &wanted.active_interfaces(), s);
            if conn.buffer != Some(bytes) && bytes > 0 {
                conn.buffer = Some(bytes);
                out.push(Action::Log { detail: format!("{}: {terms}", c.flow) });
                out.push(Action::SetReceiveBuffer { conn: c.id, bytes });
            }
        }
    }

    /// Algorithm 2 and the guard: multipath or single path for a download.
    fn download(now: Time, event: &Event, c: &ConnectionView, s: &Settings, conn: &mut Conn, view: &View, out: &mut Vec<Action>) -> Mode {
        let wb = view.interfaces.get(s.primary as usize).and_then(radio::estimate);
        let (requests, at, size, pending) = match &c.app {
            Some(a) => (a.requests, a.object_requested_at.unwrap_or(now), a.object_size, a.completed < a.requests),
            // A bulk flow: one object from establishment, arriving until it closes.
            None => (1, now, None, true),
        };
        if let Some((reason, check_at)) = conn.download.request(requests, at, size, wb, s) {
            out.push(Action::Log { detail: format!("{}: {reason}", c.flow) });
            conn.reason = reason;
            if let Some(t) = check_at {
                out.push(Action::ArmTimer { after: t.saturating_sub(now), token: c.id as u64 });
            }
        }
        if let Some(reason) = conn.download.tick(now, pending, s) {
            out.push(Action::Log { detail: format!("{}: {reason}", c.flow) });
            conn.reason = reason;
        }
        if !conn.download.multipath() {
            return Mode::SinglePath;
        }
        if s.guard {
            let guard = conn.guard.get_or_insert_with(|| guard::Guard::new(now));
            if *event == Event::Sample {
                let bytes = match c.role {
                    Role::Receiver => c.bytes_received,
                    Role::Sender => c.bytes_sent.unwrap_or(0),
                };
                let best = Self::best_interface(c, view, s);
                let timing =
                    guard::Timing { warmup: s.guard_warmup, window: s.guard_window, steady: s.guard_steady, max_wait: s.guard_max_wait, ratio: s.guard_ratio };
                if let Some(reason) = guard.sample(now, bytes, best, &timing) {
                    out.push(Action::Log { detail: format!("{}: {reason}", c.flow) });
                    conn.reason = reason;
                }
            }
            if guard.single().is_some() {
                return Mode::SinglePath;
            }
        }
        Mode::HassleFree
    }

    /// The usable interface with the highest bandwidth estimate, and the
    /// estimate; the initial subflow's interface if none is estimated.
    fn best_interface(c: &ConnectionView, view: &View, s: &Settings) -> (u16, Option<f64>) {
        (0..view.interfaces.len() as u16)
            .filter(|&k| radio::usage(k, &view.interfaces[k as usize], s) == Use::Full && !s.exclude.contains(&k))
            .filter_map(|k| radio::estimate(&view.interfaces[k as usize]).map(|e| (k, Some(e))))
            .max_by(|a, b| a.1.unwrap_or(0.0).total_cmp(&b.1.unwrap_or(0.0)).then(b.0.cmp(&a.0)))
            .unwrap_or((c.initial.0, None))
    }

    /// Reliability mode: a problem on the primary is its interface down or
    /// no byte received on it while data is awaited; after `problem_hold`
    /// of it the other interfaces join, and leave once the primary has
    /// carried data again for `problem_hold`.
    fn watch_primary(now: Time, c: &ConnectionView, view: &View, s: &Settings, r: &mut Reliability) {
        let primary = s.primary;
        let bytes: u64 = c.subflows.iter().filter(|f| f.local == primary).map(|f| f.bytes).sum();
        let moved = bytes > r.primary_bytes;
        r.primary_bytes = bytes;
        if moved {
            r.progress_at = Some(now);
        }
        let up = view.interfaces.get(primary as usize).is_some_and(|i| i.up) && c.subflows.iter().any(|f| f.open && f.local == primary);
        let awaited = c.app.as_ref().is_none_or(|a| a.completed < a.requests);
        let problem = !up || (awaited && !moved);
        if problem {
            r.well_since = None;
            let since = *r.problem_since.get_or_insert(now);
            if now - since >= s.problem_hold {
                r.switched = true;
            }
        } else {
            r.problem_since = None;
            let since = *r.well_since.get_or_insert(now);
            if r.switched && now - since >= s.problem_hold {
                r.switched = false;
            }
        }
    }

    /// The subflows `mode` wants on `c`, within the feeders' limits.
    fn wanted(c: &ConnectionView, view: &View, s: &Settings, conn: &Conn, mode: Mode) -> Wanted {
        let usage = |k: u16| if s.exclude.contains(&k) { Use::No("excluded".into()) } else { radio::usage(k, &view.interfaces[k as usize], s) };
        let remote_for = |k: u16| {
            let allowed = |r: u16| c.paths.contains(&(k, r)) && connection::pair_allowed(c, k, r, s);
            if allowed(c.initial.1) {
                Some(c.initial.1)
            } else {
                c.paths.iter().filter(|p| p.0 == k).map(|p| p.1).find(|&r| allowed(r))
            }
        };
        // The one path: the guard's choice, else the initial subflow's
        // interface while usable, else the best usable one.
        let single = conn.guard.as_ref().and_then(|g| g.single()).filter(|&k| usage(k) == Use::Full).unwrap_or_else(|| {
            if usage(c.initial.0) == Use::Full {
                c.initial.0
            } else {
                Self::best_interface(c, view, s).0
            }
        });
        let mut wants = Vec::new();
        let mut add = |k: u16, backup: bool| {
            if let Some(r) = remote_for(k) {
                wants.push(Want { local: k, remote: r, backup });
            }
        };
        let others = (0..view.interfaces.len() as u16).filter(|&k| k != single);
        add(single, false);
        for k in others {
            let on = match mode {
                Mode::SinglePath => false,
                Mode::HassleFree if conn.class == Class::Video => conn.video_extra.contains(&k),
                Mode::Reliability => conn.reliability.switched,
                Mode::HassleFree | Mode::LowLatency | Mode::Backup => true,
            };
            match usage(k) {
                Use::Full if on => add(k, mode == Mode::Backup),
                Use::BackupOnly(_) if on => add(k, true),
                _ => {}
            }
        }
        Wanted(wants)
    }
}
