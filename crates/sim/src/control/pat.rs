//! PAT, path-aware transport (Gantha, Jaiswal, Manja Ppallan and
//! Arunachalam, "Path Aware Transport Layer Solution for Mobile Networks",
//! IEEE Access; `../shared/papers/pat-path-aware-transport.txt`):
//! a client-only layer that finds a domain's mirrors through several
//! resolvers (the Node Explorer, §IV-B), connects to every mirror over every
//! interface (Algorithm 1's `CreateConnection`), estimates each connection's
//! RTT, and maps the application's requests to the best one
//! (`ExploreBestPath`: PATRTT < appRTT → remap). Here the application is a
//! fetch session (`[[fetches]]` with `policy = "controller"`, or a page's
//! object, `[[pages]]`), and a remap is a `Steer` at a request boundary
//! (docs/pat.md), or, with `remap_at = "resume"` (ours, not the paper's),
//! a `Steer` that also moves the rest of the response under way.
//!
//! What the paper leaves open, each a parameter (docs/pat.md):
//! - `resolvers`: the resolvers the Node Explorer asks (the paper: local,
//!   operator and public), each over every interface that is up, since a
//!   resolver may answer by the network a query comes from.
//! - RTT estimates: a probe is a small application request and response
//!   (a keep-alive gives no RTT sample on Linux: its ACK acknowledges no
//!   new data). The session's own busy connection is not probed: a probe
//!   there would wait behind the response under way and measure its own
//!   queue. Its estimate comes from its content requests' time to first
//!   byte instead, which, with the previous response fully delivered
//!   before the next request leaves, is a request/response round trip
//!   like a probe's. Both feed one smoothed estimate per connection,
//!   RFC 6298 §2's α = 1/8.
//! - `probing`: `activity` (the default: probes only while the session
//!   has requests under way, §V-C: PAT "combines its data … requests with
//!   at least one of the application request" to avoid radio wake-ups) or
//!   `periodic` (every decision period regardless).
//! - `period`: the decision period; probes go out at its start, the
//!   decision is made at its end on the estimates then known.
//! - `hysteresis`: a candidate must beat the current estimate by this
//!   fraction (the printed rule, 0, remaps on any difference).
//! - IPv4 and IPv6 (the paper's Path Navigator connects "over every
//!   interface … IPv4 and IPv6"): a connection per (mirror, interface,
//!   family), IPv6 where the interface has an IPv6 address and the mirror
//!   is in the lookup's AAAA answer (and, for a content without a domain,
//!   reachable over IPv6). Each is one more candidate with its own RTT; no
//!   preference between families (RFC 6724's for IPv6 is a default for
//!   address selection, which PAT's RTT comparison replaces).
//! - `max_connections`; `min_signal_dbm`: no new connection over an
//!   interface whose signal hint is below it (§V-B, "restricts
//!   applications from establishing a TCP connection over the poor
//!   quality network interface"). Every connection stays open, probed,
//!   until the session ends (§V-C keeps them "alive" with probes).
//! - `remap_at`: `request` (the paper: a remap applies to the next request)
//!   or `resume` (ours: the session stops reading the range under way and
//!   asks the new connection for its rest, RFC 9110 §14.2; the old
//!   connection drains the rest, discarded, as HTTP/1.1 cannot cancel a
//!   request without closing a connection PAT keeps for probing).

use std::collections::{BTreeMap, BTreeSet};

use super::view::SessionView;
use super::{Action, ActionKind, Built, ConnId, Controller, Event, Host, SessionId, View};
use crate::cc::params::Params;
use crate::net::family::Family;
use crate::time::Time;

/// The decision timer's token.
const DECIDE: u64 = 0;

/// RFC 6298 §2.3's smoothing gain for the RTT estimate.
const ALPHA: f64 = 1.0 / 8.0;

pub struct Pat {
    resolvers: Vec<String>,
    period: Time,
    activity_gated: bool,
    hysteresis: f64,
    max_connections: usize,
    min_signal_dbm: Option<f64>,
    probe_request: u32,
    probe_response: u64,
    /// Steers resume the responses under way (`remap_at = "resume"`).
    resume: bool,
    sessions: BTreeMap<SessionId, SessionState>,
    /// Smoothed RTT estimate per connection, seconds.
    estimate: BTreeMap<ConnId, f64>,
    /// Connections with a probe under way, and when it was sent.
    probing: BTreeMap<ConnId, Time>,
}

#[derive(Default)]
struct SessionState {
    /// Empty for a content without a domain.
    domain: String,
    /// (mirror, local interface, family) asked for.
    opened: BTreeSet<(String, u16, Family)>,
}

pub fn build(p: &mut Params, _host: &Host) -> Built {
    let resolvers: Vec<String> = p.text("resolvers").map(|s| s.split(',').map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect()).unwrap_or_default();
    let period = p.duration("period", Time::from_secs(1), |t| t > Time::ZERO, "positive");
    let activity_gated = p.choice("probing", "activity", &["activity", "periodic"]) == "activity";
    let hysteresis = p.number("hysteresis", 0.0, |h| (0.0..1.0).contains(&h), "a fraction in [0, 1)");
    let max_connections = p.number("max_connections", 16.0, |n| n >= 1.0 && n.fract() == 0.0, "a whole number, 1 or more") as usize;
    let min_signal_dbm = Some(p.number("min_signal_dbm", f64::NAN, |s| s.is_finite(), "a signal level in dBm")).filter(|s| !s.is_nan());
    // A HEAD-like request and a headers-only response (RFC 9110 §9.3.2).
    let probe_request = p.number("probe_request", 100.0, |n| n >= 1.0 && n.fract() == 0.0 && n <= 65535.0, "whole bytes, 1 to 65535") as u32;
    let probe_response = p.number("probe_response", 300.0, |n| n >= 1.0 && n.fract() == 0.0, "whole bytes, 1 or more") as u64;
    let resume = p.choice("remap_at", "request", &["request", "resume"]) == "resume";
    // Lookups only where resolvers are named (a content without a domain needs none).
    let mut actions = vec![ActionKind::ArmTimer, ActionKind::OpenConnection, ActionKind::Steer, ActionKind::Probe, ActionKind::Log];
    if !resolvers.is_empty() {
        actions.push(ActionKind::Resolve);
    }
    Built {
        controller: Box::new(Pat {
            resolvers,
            period,
            activity_gated,
            hysteresis,
            max_connections,
            min_signal_dbm,
            probe_request,
            probe_response,
            resume,
            sessions: BTreeMap::new(),
            estimate: BTreeMap::new(),
            probing: BTreeMap::new(),
        }),
        actions,
    }
}

impl Pat {
    fn sample(&mut self, conn: ConnId, rtt: Time) {
        let r = rtt.secs();
        let e = self.estimate.entry(conn).or_insert(r);
        *e += ALPHA * (r - *e);
    }

    /// The session's established connection with the lowest estimate.
    fn best(&self, s: &SessionView, view: &View, now: Time) -> Option<(ConnId, f64)> {
        let established = s.connections.iter().filter(|&&c| view.connection(c).is_some_and(|v| v.established));
        let candidates = established.filter_map(|&c| self.estimate_at(c, now).map(|e| (c, e)));
        candidates.min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
    }

    /// Algorithm 1's `CreateConnection` for the mirrors of one answer: a
    /// connection to each over every interface that is up and not of poor
    /// quality, over IPv4, and over IPv6 too for the mirrors of
    /// `mirrors_v6` from interfaces with an IPv6 address, up to
    /// `max_connections` per session. A connection the session shares
    /// already (a page's objects share their page's) is not asked for again.
    fn connect(&mut self, session: SessionId, mirrors: &[String], mirrors_v6: &[String], view: &View, out: &mut Vec<Action>) {
        let Some(state) = self.sessions.get_mut(&session) else { return };
        let shared = view.sessions.iter().filter(|s| s.id == session).flat_map(|s| &s.connections);
        state.opened.extend(shared.filter_map(|&c| view.connection(c)?.fetch.as_ref()).map(|f| (f.mirror.clone(), f.local_interface, f.family)));
        for mirror in mirrors {
            for (i, iface) in view.interfaces.iter().enumerate() {
                let poor = self.min_signal_dbm.is_some_and(|min| iface.signal_dbm.is_some_and(|s| s < min));
                let v6 = iface.v6 && mirrors_v6.contains(mirror);
                for family in Family::ALL.into_iter().filter(|&f| f == Family::V4 || v6) {
                    let key = (mirror.clone(), i as u16, family);
                    if !iface.up || poor || state.opened.contains(&key) || state.opened.len() >= self.max_connections {
                        continue;
                    }
                    state.opened.insert(key);
                    out.push(Action::OpenConnection { session, mirror: mirror.clone(), local_interface: i as u16, family });
                }
            }
        }
    }

    /// A connection's RTT estimate for a decision at `now`: the smoothed
    /// one, or, while a probe has been out longer than that, the probe's age
    /// (no answer yet is a lower bound on the round trip now; without it a
    /// connection whose link went down keeps its last estimate for ever).
    fn estimate_at(&self, conn: ConnId, now: Time) -> Option<f64> {
        let e = *self.estimate.get(&conn)?;
        Some(self.probing.get(&conn).map_or(e, |&sent| e.max(now.saturating_sub(sent).secs())))
    }

    /// One decision period: remap each active session to its best
    /// connection, then probe the others for the next decision.
    fn decide(&mut self, now: Time, view: &View, out: &mut Vec<Action>) {
        for s in &view.sessions {
            if s.finished || !self.sessions.contains_key(&s.id) {
                continue;
            }
            let active = s.pending > 0;
            // The connection the session's content is on after this
            // decision: a resuming remap puts the range's rest on the new
            // connection at once, so it is busy and, like any busy current
            // connection, not probed (its probe would wait behind the rest).
            // A request-boundary remap leaves it idle until the next request.
            let mut busy = s.current;
            if let Some((best, best_rtt)) = self.best(s, view, now) {
                match s.current.and_then(|c| self.estimate_at(c, now).map(|e| (c, e))) {
                    // Algorithm 1: PATRTT < appRTT → map the application to PATFD.
                    Some((current, current_rtt)) if best != current && best_rtt < current_rtt * (1.0 - self.hysteresis) => {
                        out.push(Action::Log { detail: format!("remap session {}: conn {best} ({}) {:.3} ms < conn {current} ({}) {:.3} ms", s.id, describe(view, best), best_rtt * 1e3, describe(view, current), current_rtt * 1e3) });
                        out.push(Action::Steer { session: s.id, conn: best, resume: self.resume });
                        busy = if self.resume { Some(best) } else { busy };
                    }
                    Some(_) => {}
                    // No current connection, or one without an estimate
                    // yet: take the best.
                    None => {
                        out.push(Action::Steer { session: s.id, conn: best, resume: self.resume });
                        busy = if self.resume { Some(best) } else { busy };
                    }
                }
            }
            if active || !self.activity_gated {
                for &c in &s.connections {
                    let up = view.connection(c).is_some_and(|v| v.established);
                    if up && Some(c) != busy && !self.probing.contains_key(&c) {
                        self.probing.insert(c, now);
                        out.push(Action::Probe { conn: c, request_bytes: self.probe_request, response_bytes: self.probe_response });
                    }
                }
            }
        }
    }
}

/// "m1 over wlan0" ("m1 over wlan0 v6"): a fetch connection's mirror,
/// client interface, and family if IPv6.
fn describe(view: &View, conn: ConnId) -> String {
    match view.connection(conn).and_then(|c| c.fetch.as_ref()) {
        Some(f) => {
            let iface = view.interfaces.get(f.local_interface as usize).map_or("?", |i| i.name.as_str());
            format!("{} over {iface}{}", f.mirror, if f.family == Family::V6 { " v6" } else { "" })
        }
        None => "?".to_string(),
    }
}

impl Controller for Pat {
    fn on_event(&mut self, now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        match event {
            Event::Start => out.push(Action::ArmTimer { after: self.period, token: DECIDE }),
            // The Node Explorer: every resolver over every interface that is
            // up; for a content without a domain, the servers holding it.
            Event::SessionStarted { session } => {
                let Some(s) = view.sessions.iter().find(|s| s.id == *session) else { return };
                // A session that shares established connections (a page's
                // later objects) maps to the best at once, as Algorithm 1 maps
                // an application's new request.
                if let Some((best, _)) = self.best(s, view, now) {
                    out.push(Action::Steer { session: *session, conn: best, resume: self.resume });
                }
                let Some(domain) = s.domain.clone() else {
                    self.sessions.insert(*session, SessionState::default());
                    self.connect(*session, &s.mirrors, &s.mirrors_v6, view, out);
                    return;
                };
                if self.resolvers.is_empty() {
                    out.push(Action::Log { detail: format!("session {session}: '{domain}' needs resolvers to look it up, and none are given") });
                }
                for r in &self.resolvers {
                    for (i, iface) in view.interfaces.iter().enumerate() {
                        if iface.up {
                            out.push(Action::Resolve { resolver: r.clone(), domain: domain.clone(), interface: Some(i as u16) });
                        }
                    }
                }
                self.sessions.insert(*session, SessionState { domain, opened: BTreeSet::new() });
            }
            Event::DnsAnswer { domain, mirrors, mirrors_v6, failed: None, .. } => {
                let waiting: Vec<SessionId> = self.sessions.iter().filter(|(_, s)| !s.domain.is_empty() && &s.domain == domain).map(|(&id, _)| id).collect();
                for session in waiting {
                    self.connect(session, mirrors, mirrors_v6, view, out);
                }
            }
            // The handshake is the first RTT sample; the first connection
            // up carries the requests of the sessions that may use it and
            // have none yet, until a decision moves them.
            Event::ConnectionEstablished { conn } => {
                let Some(f) = view.connection(*conn).and_then(|c| c.fetch.as_ref()) else { return };
                if let Some(rtt) = f.srtt {
                    self.sample(*conn, rtt);
                }
                for s in view.sessions.iter().filter(|s| s.current.is_none() && !s.finished && s.connections.contains(conn)) {
                    out.push(Action::Steer { session: s.id, conn: *conn, resume: self.resume });
                }
            }
            Event::ProbeResult { conn, rtt } => {
                self.probing.remove(conn);
                self.sample(*conn, *rtt);
            }
            Event::RequestCompleted { conn, first_byte: Some(rtt), .. } => self.sample(*conn, *rtt),
            Event::Timer { token: DECIDE } => {
                self.decide(now, view, out);
                out.push(Action::ArmTimer { after: self.period, token: DECIDE });
            }
            _ => {}
        }
    }
}
