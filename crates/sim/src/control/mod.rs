//! Device-side controllers (DESIGN.md, "plane-agnostic controllers"): policy
//! code on a phone or gateway that watches its host's connections and
//! interfaces and decides which subflows exist, with no I/O of its own —
//! events in, actions out. The simulator (`world::control`) and the kernel
//! lab (`pathpool-lab`'s `run/controller.rs`) each turn their plane's
//! happenings into `Event`s, build the host's `View`, and carry out the
//! `Action`s or record them as refused in the `controller_log`.
//!
//! One instance runs per host it is attached to (`[[controllers]]` in a
//! scenario). Besides those, every host that opens MPTCP connections runs
//! the flows' own path managers as a controller (`path_manager.rs`), and
//! every host with timed actions a `timed` controller: one mechanism.
//!
//! A new controller is one file here and one line in `KINDS`
//! (docs/control.md walks through `rate_fallback.rs`, the worked example).

pub mod action;
pub mod emptcp;
pub mod event;
pub mod log;
pub mod lookup;
pub mod pat;
pub mod path_manager;
pub mod rate_fallback;
pub mod smptcp;
pub mod timed;
pub mod view;

pub use action::{Action, ActionKind};
pub use event::{CloseReason, Event, Hint};
pub use view::View;

use std::collections::BTreeMap;

use crate::cc::params::{ParamTable, Params};
use crate::net::NodeId;
use crate::scenario::model::FlowModel;
use crate::scenario::Model;
use crate::time::Time;

/// A connection: the flow's index in the scenario.
pub type ConnId = u32;
/// A fetch session: its index in the scenario's `[[fetches]]`.
pub type SessionId = u32;

pub trait Controller {
    /// Reacts to `event`; `view` is the host as it is now. Actions go to `out`.
    fn on_event(&mut self, now: Time, event: &Event, view: &View, out: &mut Vec<Action>);
}

/// What a controller's constructor knows of its host.
pub struct Host<'a> {
    pub name: &'a str,
    pub interfaces: &'a [String],
    /// Each interface's MTU (its link's, `net::mtu`).
    pub mtus: Vec<u32>,
}

/// A built controller and the kinds of action it may emit with its parameters.
pub struct Built {
    pub controller: Box<dyn Controller>,
    pub actions: Vec<ActionKind>,
}

/// Builds a controller from its parameters (read with `p`; problems are
/// reported on `p`, and the result is then discarded).
type Build = fn(&mut Params, &Host) -> Built;

/// The controller kinds a scenario may name, with a one-line summary.
const KINDS: &[(&str, &str, Build)] = &[
    ("emptcp", "eMPTCP's weight manager: every path's Westwood+ increase scaled by x², x = bw_max / Σ bwe (or static increments)", emptcp::build),
    ("lookup", "resolves a domain at a resolver at given times (a scripted DNS lookup: pre-resolution, tests)", lookup::build),
    ("pat", "PAT's Node Explorer and Path Navigator: every mirror over every interface, requests steered to the lowest-RTT connection (Algorithm 1)", pat::build),
    ("rate_fallback", "opens a subflow on a secondary interface while the primary's delivery rate stays low", rate_fallback::build),
    ("smptcp", "S-MPTCP's smart controller: per-application modes, video and download algorithms, radio/battery/connection analyzers, buffer tuning", smptcp::build),
];

pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|(n, _, _)| *n).collect()
}

pub fn summaries() -> impl Iterator<Item = (&'static str, &'static str)> {
    KINDS.iter().map(|(n, s, _)| (*n, *s))
}

/// Builds controller `kind` for `host`; Err: (parameter, problem) pairs.
pub fn build(kind: &str, params: &ParamTable, host: &Host) -> Result<Built, Vec<(String, String)>> {
    let Some((_, _, make)) = KINDS.iter().find(|(n, _, _)| *n == kind) else {
        return Err(vec![(String::new(), format!("unknown controller kind '{kind}' (known: {})", names().join(", ")))]);
    };
    let mut p = Params::new(kind, params);
    let built = make(&mut p, host);
    p.finish().map(|()| built)
}

/// One controller on one host, as a plane runs it.
pub struct Attached {
    pub host: NodeId,
    /// Its kind, for the log (`path_manager`, `timed`, or a `[[controllers]]` kind).
    pub name: String,
    pub controller: Box<dyn Controller>,
    /// Zero: no sample events.
    pub sample_interval: Time,
    pub reaction_delay: Time,
}

/// The controllers of a run of `flows` on `model`, in the order each host
/// runs them: on every host that is the client of MPTCP flows, the flows'
/// path managers, then that host's timed actions if it has any; then, with
/// `explicit`, the scenario's `[[controllers]]` (validated at load) in file
/// order. Both planes attach the same list.
pub fn attach(model: &Model, flows: &[FlowModel], explicit: bool) -> Vec<Attached> {
    let mut timed: BTreeMap<NodeId, Vec<(Time, ConnId, crate::mptcp::Action)>> = BTreeMap::new();
    let mut clients: BTreeMap<NodeId, BTreeMap<ConnId, Box<dyn crate::mptcp::path_manager::PathManager>>> = BTreeMap::new();
    for (i, f) in flows.iter().enumerate() {
        let Some(conf) = &f.mptcp else { continue };
        let pm = crate::mptcp::path_manager::build(&conf.path_manager, &conf.path_manager_params)
            .unwrap_or_else(|_| panic!("path manager '{}' passed validation", conf.path_manager));
        clients.entry(f.client).or_default().insert(i as ConnId, pm);
        for &(at, action) in &conf.actions {
            timed.entry(f.client).or_default().push((at, i as ConnId, action.seen_from(f.client == f.src)));
        }
    }
    let implicit = |host, name: &str, controller: Box<dyn Controller>| Attached {
        host,
        name: name.to_string(),
        controller,
        sample_interval: Time::ZERO,
        reaction_delay: Time::ZERO,
    };
    let mut out = Vec::new();
    for (host, managers) in clients {
        out.push(implicit(host, "path_manager", Box::new(path_manager::PathManagers::new(managers))));
        if let Some(actions) = timed.remove(&host) {
            out.push(implicit(host, "timed", Box::new(timed::TimedActions { actions })));
        }
    }
    if explicit {
        for c in &model.controllers {
            let node = &model.nodes[c.host as usize];
            let host = Host { name: &node.name, interfaces: &node.interfaces, mtus: crate::scenario::mtu::interface_mtus(&model.links, c.host, &node.interfaces) };
            let built = build(&c.kind, &c.params, &host).unwrap_or_else(|_| panic!("controller '{}' passed validation", c.kind));
            out.push(Attached {
                host: c.host,
                name: c.kind.clone(),
                controller: built.controller,
                sample_interval: c.sample_interval,
                reaction_delay: c.reaction_delay,
            });
        }
    }
    out
}
