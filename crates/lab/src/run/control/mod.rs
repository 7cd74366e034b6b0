//! The kernel-lab plane of device-side controllers (`pathpool_sim::control`):
//! one thread per host that has controllers, in that host's namespace,
//! running the very same `Controller` objects as the simulator
//! (`control::attach`: the flows' path managers on every MPTCP client,
//! their timed actions, then the scenario's `[[controllers]]`). It mirrors
//! the simulator's `world/control.rs`:
//!
//! - events (`happenings.rs`): the kernel's `mptcp_pm` netlink events
//!   (established, subflow established/closed/priority), what polling the
//!   host's own sockets shows (a TCP connection or an MPTCP fallback
//!   connecting, the receiving application's last byte, byte thresholds),
//!   the scenario's link events at their times (the emulator applies them),
//!   `Start` at model time zero, each controller's samples and timers;
//! - the view (`view.rs`): the host's interfaces and its own connections,
//!   from `TCP_INFO`/`MPTCP_INFO` of its own sockets and the emulator's
//!   counters of its interfaces;
//! - actions (`actions.rs`): MPTCP netlink commands on the userspace path
//!   manager, timers and byte watches, log lines; what the kernel cannot
//!   carry out is recorded as refused, with the reason.
//!
//! The client's thread also keeps the shared subflow records
//! (`run/connection.rs`). `reaction_delay` is the simulator's: the lab
//! reacts as fast as it can, and measures how fast (event seen → netlink
//! command returned, `Reactions`).

mod actions;
mod fetch;
mod happenings;
mod hints;
mod links;
mod lookups;
mod view;

use std::collections::{BTreeSet, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pathpool_sim::control::log::ControllerLog;
use pathpool_sim::control::{self, Action, Attached, ConnId, Event};
use pathpool_sim::net::NodeId;
use pathpool_sim::scenario::spec::LabPathManager;
use pathpool_sim::{Model, Time};

use super::connection::Connection;
use crate::emulator::Emulator;
use crate::netns::Netns;
use crate::pm::{EventStream, PathManager};
use crate::traffic::{FlowState, RunClock, POLL};
use fetch::Fetching;
use hints::Hints;
use links::LinkEvents;
use lookups::Lookups;

/// How often a host's thread looks at its sockets (connections that
/// connected or finished, byte thresholds).
const CHECK: Duration = Duration::from_millis(10);

/// What every host's thread reads.
pub struct Shared<'a> {
    pub model: &'a Model,
    /// Each node's interface addresses, by index.
    pub addrs: &'a [Vec<IpAddr>],
    pub flows: &'a [FlowState],
    pub conns: &'a [Mutex<Connection>],
    pub emulator: &'a Emulator,
    pub mode: LabPathManager,
    pub clock: &'a RunClock,
    pub log: &'a Mutex<Record>,
    /// The BPF Westwood+, registered when a flow runs `westwood`.
    pub westwood: Option<&'a crate::bpf::Westwood>,
    /// The congestion controls' bandwidth estimates (Westwood+, BBR).
    pub estimates: &'a super::estimate::Estimates<'a>,
    /// Each node's interface MTUs (read in its namespace), by interface index.
    pub mtus: &'a [Vec<Option<u32>>],
    /// Every fetch session's ledger (`Model::fetches`), kept by its client's thread.
    pub sessions: &'a [Mutex<pathpool_sim::app::fetch::Fetch>],
    /// By flow: the fetch requests sent on it, in order, as (session, request).
    pub sent_on: &'a [Mutex<Vec<(control::SessionId, u32)>>],
    /// Every lookup's answer, in the order handed back: the `dns` table.
    pub dns: &'a Mutex<Vec<pathpool_sim::dns::Answer>>,
}

/// What the controllers did: the `controller_log` rows and the lab's
/// reaction times (an event seen → the netlink command it led to returned).
#[derive(Default)]
pub struct Record {
    pub log: ControllerLog,
    pub reactions_s: Vec<f64>,
}

/// The controllers of a lab run: the simulator's list (`control::attach`),
/// without the flows' own path managers and timed actions when the
/// in-kernel path manager runs (it opens the subflows itself).
fn attached(model: &Model, mode: LabPathManager) -> Vec<Attached> {
    let flows = if mode == LabPathManager::Userspace { &model.flows[..] } else { &[] };
    control::attach(model, flows, true)
}

/// The hosts that run a controller thread: those with controllers, every
/// client of an MPTCP flow (its thread keeps the subflow records) and every
/// client of a fetch session (its thread runs the sessions, `fetch.rs`).
pub fn hosts(model: &Model, mode: LabPathManager) -> BTreeSet<NodeId> {
    let clients = model.flows.iter().filter(|f| f.transport == "mptcp").map(|f| f.client);
    let fetchers = model.fetches.iter().map(|f| f.client);
    attached(model, mode).iter().map(|a| a.host).chain(clients).chain(fetchers).collect()
}

/// What this host's controllers were told of one of its connections.
#[derive(Default, Clone)]
struct Seen {
    /// This end's connection token (the handle of the netlink commands).
    token: Option<u32>,
    established: bool,
    fallback: bool,
    closed: bool,
    /// The application's requests told (`AppRequest`), at its client.
    requests: u64,
}

/// One host's controllers and what they were told.
struct Host<'a> {
    s: &'a Shared<'a>,
    id: NodeId,
    /// The host's namespace, where its fetch connections' sockets are made.
    ns: &'a Netns,
    fetching: Fetching,
    lookups: Lookups,
    instances: Vec<Attached>,
    pm: PathManager,
    /// By flow; only this host's connections are used.
    seen: Vec<Seen>,
    /// Armed timers: (due, instance, token).
    timers: Vec<(Time, u32, u64)>,
    /// Byte watches: (connection, bytes, instance).
    watches: Vec<(ConnId, u64, u32)>,
    /// Each instance's next sample; None: it takes none.
    next_sample: Vec<Option<Time>>,
    links: LinkEvents,
    hints: Hints,
    /// Events this host's own actions caused, told once the current event is handled.
    pending: VecDeque<Event>,
}

/// Runs host `id`'s controllers (and fetch sessions) until the run stops;
/// `events` and `pm` belong to its namespace `ns`.
pub fn run<'a>(s: &'a Shared<'a>, id: NodeId, ns: &'a Netns, events: EventStream, pm: PathManager) -> Result<(), String> {
    let instances: Vec<Attached> = attached(s.model, s.mode).into_iter().filter(|a| a.host == id).collect();
    let next_sample = instances
        .iter()
        .map(|a| (a.sample_interval > Time::ZERO && a.sample_interval <= s.model.duration).then_some(a.sample_interval))
        .collect();
    let mut host = Host {
        s,
        id,
        ns,
        fetching: Fetching::new(s.model, id),
        lookups: Lookups::new(s.model, s.addrs),
        instances,
        pm,
        seen: vec![Seen::default(); s.model.flows.len()],
        timers: Vec::new(),
        watches: Vec::new(),
        next_sample,
        links: LinkEvents::new(s.model),
        hints: Hints::new(s.model, id),
        pending: VecDeque::new(),
    };
    host.dns_sockets().map_err(|e| format!("{}: {e}", s.model.nodes[id as usize].name))?;
    host.run(events)
}

impl Host<'_> {
    fn run(mut self, mut events: EventStream) -> Result<(), String> {
        let clock = self.s.clock;
        if !clock.sleep_until(Time::ZERO) {
            return Ok(());
        }
        for i in 0..self.instances.len() as u32 {
            self.deliver(i, Time::ZERO, &Event::Start, Instant::now());
        }
        let mut next_check = Time::ZERO;
        while !clock.stopped() {
            let now = clock.now();
            self.link_events(now);
            self.hints_due(now);
            self.timers_due(now);
            self.sessions_due(now);
            self.dns_due(now);
            if now >= next_check {
                self.check_connections(now);
                self.data_limits();
                next_check = now + Time::from_nanos(CHECK.as_nanos() as u64);
            }
            self.samples_due(now);
            self.openings(now);
            self.tell_pending();
            let due = self.next_due().min(next_check);
            let wait = Duration::from_nanos(due.saturating_sub(clock.now()).nanos()).min(POLL);
            // A host with fetch sessions or lookups waits on their sockets too.
            let event = if !self.fetching.any() && !self.lookups.any() {
                events.next(wait)
            } else if events.has_pending() || self.fetch_wait(events.raw_fd(), wait) {
                events.next(Duration::ZERO)
            } else {
                None
            };
            match event {
                None => {}
                Some(Err(e)) => return Err(format!("path-manager events on {}: {e}", self.name())),
                Some(Ok(event)) => self.on_kernel_event(event),
            }
            self.fetch_io();
            self.dns_io();
            self.tell_pending();
        }
        Ok(())
    }

    /// Clients of this host waiting to connect (`traffic/opening.rs`): its
    /// controllers hear `ConnectionOpening` before the SYN, as in the
    /// simulator, and the client goes on.
    fn openings(&mut self, now: Time) {
        for conn in 0..self.s.model.flows.len() {
            let opening = &self.s.flows[conn].opening;
            if self.s.model.flows[conn].client == self.id && opening.asked() {
                self.tell_at(now, &Event::ConnectionOpening { conn: conn as ConnId });
                self.s.flows[conn].opening.answer();
            }
        }
    }

    fn name(&self) -> &str {
        &self.s.model.nodes[self.id as usize].name
    }

    /// The earliest timer, sample, link event, session start or DNS timeout still to come.
    fn next_due(&self) -> Time {
        let timers = self.timers.iter().map(|t| t.0);
        let samples = self.next_sample.iter().flatten().copied();
        let starts = self.next_session_start();
        let dns = self.lookups.next(self.s.clock.now());
        timers.chain(samples).chain(self.links.next()).chain(self.hints.next()).chain(starts).chain(dns).min().unwrap_or(Time::MAX)
    }

    /// Timers and samples are told at their model time, as in the
    /// simulator, so that a controller measuring over a period (the
    /// sampling period, its own hold times) measures it exactly; the
    /// thread's wake-up lateness (sub-millisecond) only shifts when the
    /// sockets are read.
    fn timers_due(&mut self, now: Time) {
        while let Some(k) = (0..self.timers.len()).filter(|&k| self.timers[k].0 <= now).min_by_key(|&k| self.timers[k].0) {
            let (due, i, token) = self.timers.remove(k);
            self.deliver(i, due, &Event::Timer { token }, Instant::now());
        }
    }

    fn samples_due(&mut self, now: Time) {
        for i in 0..self.instances.len() {
            let Some(at) = self.next_sample[i].filter(|&at| at <= now) else { continue };
            self.deliver(i as u32, at, &Event::Sample, Instant::now());
            // Samples missed while the thread was late are skipped, not bunched.
            let every = self.instances[i].sample_interval;
            let mut next = at + every;
            while next <= now {
                next += every;
            }
            self.next_sample[i] = (next <= self.s.model.duration).then_some(next);
        }
    }

    /// Tells every controller of this host about `event`.
    fn tell(&mut self, event: &Event) {
        self.tell_at(self.s.clock.now(), event);
    }

    /// Tells every controller of this host about `event`, as of model time `now`.
    fn tell_at(&mut self, now: Time, event: &Event) {
        let seen = Instant::now();
        for i in 0..self.instances.len() as u32 {
            self.deliver(i, now, event, seen);
        }
    }

    fn tell_pending(&mut self) {
        while let Some(e) = self.pending.pop_front() {
            self.tell(&e);
        }
    }

    /// Gives `event`, seen at `seen`, to instance `i` and carries out its actions.
    fn deliver(&mut self, i: u32, now: Time, event: &Event, seen: Instant) {
        let view = self.view(now);
        let mut out: Vec<Action> = Vec::new();
        self.instances[i as usize].controller.on_event(now, event, &view, &mut out);
        for action in out {
            let outcome = self.apply(i, now, &action, seen);
            let (subflow, refused) = match outcome {
                Ok(sub) => (sub, None),
                Err(e) => (None, Some(e)),
            };
            let at = self.s.clock.now();
            let name = self.instances[i as usize].name.clone();
            let mut record = self.s.log.lock().unwrap_or_else(|e| e.into_inner());
            let detail = control::log::detail(self.s.model, self.id, &action);
            let detail = match self.fetching.steer_note.take() {
                Some(n) => format!("{detail}: {n}"),
                None => detail,
            };
            record.log.record(at, self.name(), &name, event, &action, subflow, refused, detail);
        }
    }
}
