//! The world's side of fetch sessions (`crate::app::fetch`): it starts each
//! session at its time (opening the default connection under the default
//! policy), opens, steers, probes and closes connections for controllers,
//! sends each content request on the session's current connection, and
//! hands completed responses back to the session's ledger.
//!
//! A session's connections are flows (`FlowModel::fetch`), dormant until
//! opened: single-path TCP from the mirror to the client, pinned to one
//! client interface. Requests and responses use the persistent-connection
//! exchange of the applications (`app::exchange`, `world/apps.rs`), so a
//! lost request is resent as an application's is.

use super::dns::Lookup;
use super::{Event, World};
use crate::dns::Answer;
use crate::app::exchange::Exchange;
use crate::app::fetch::{Ask, Fetch, Policy};
use crate::control::action::{CURRENT_CONNECTION, NOT_ESTABLISHED, NOT_REOPENED, RESPONSES_PENDING};
use crate::control::view::{FetchConnView, SessionView};
use crate::control::{ConnId, Event as CtlEvent, SessionId};
use crate::metrics::Table;
use crate::net::family::Family;
use crate::net::NodeId;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::TcpConfig;
use crate::time::Time;

/// A running fetch session.
#[derive(Debug, Default)]
pub struct Session {
    pub fetch: Fetch,
    /// Requests sent again after a loss, on any of its connections.
    pub resent: u64,
}

/// A fetch session's connection, at the client.
pub struct MirrorConn {
    pub session: SessionId,
    pub exchange: Exchange,
    /// The session and its request behind each of the exchange's, by id (a
    /// page's connections carry several sessions' requests).
    pub(super) asks: Vec<(SessionId, u32)>,
    /// Responses under way on it, of every session.
    outstanding: u32,
    pub opened_at: Option<Time>,
    /// When the handshake's RTT sample was taken.
    handshake_at: Option<Time>,
    pub closed_at: Option<Time>,
    /// The client's RTT samples: the handshake and probes.
    rtt: RttEstimator,
}

impl MirrorConn {
    pub fn new(session: SessionId, tcp: &TcpConfig) -> MirrorConn {
        let rtt = RttEstimator::from_config(tcp);
        MirrorConn { session, exchange: Exchange::default(), asks: Vec::new(), outstanding: 0, opened_at: None, handshake_at: None, closed_at: None, rtt }
    }
}

impl World<'_> {
    /// Schedules every session's start, but those that start when another
    /// finishes (a page's objects after the first).
    pub(super) fn schedule_sessions(&mut self) {
        for (s, m) in self.model.fetches.iter().enumerate().filter(|(_, m)| m.after.is_none()) {
            self.events.schedule(m.start, Event::SessionStart { session: s as u32 });
        }
    }

    /// The sessions that may send on the connections whose home session is
    /// `home`: a page's objects (consecutive sessions, `scenario::pages`),
    /// or the session alone.
    fn sharing(&self, home: SessionId) -> std::ops::Range<SessionId> {
        match self.model.fetches[home as usize].page {
            Some(p) => {
                let objects = &self.model.pages[p as usize].objects;
                objects[0].session..objects[0].session + objects.len() as SessionId
            }
            None => home..home + 1,
        }
    }

    /// The servers holding a session's content, in the scenario's order
    /// (a controller's lookups may name any of them).
    fn holders(&self, session: SessionId) -> &[NodeId] {
        let m = &self.model.fetches[session as usize];
        &self.model.contents[m.content].mirrors
    }

    /// The session starts: its client's controllers hear of it; under the
    /// default policy it learns the mirrors (from its resolver over its
    /// preferred interface for a content with a domain, else the content's
    /// list) and uses the first one that interface reaches.
    pub(super) fn session_start(&mut self, session: SessionId) {
        let m = &self.model.fetches[session as usize];
        self.sessions[session as usize].fetch.started_at = Some(self.now);
        self.tell_host(m.client, &CtlEvent::SessionStarted { session });
        if m.policy != Policy::Default {
            return;
        }
        let (Some(domain), Some(resolver)) = (&self.model.contents[m.content].domain, &m.resolver) else {
            let mirrors = self.holders(session).to_vec();
            self.connect_default(session, &mirrors);
            return;
        };
        let lookup = Lookup { host: m.client, resolver: resolver.clone(), domain: domain.clone(), interface: Some(m.prefer), token: session as u64 };
        if let Err(e) = self.resolve(lookup, |world, answer| world.default_answer(answer)) {
            self.sessions[session as usize].fetch.error = Some(format!("lookup: {e}"));
        }
    }

    /// The default policy's lookup came back: its A records' mirrors, or
    /// its AAAA records' for a session over IPv6.
    fn default_answer(&mut self, answer: &Answer) {
        let session = answer.token as SessionId;
        let v6 = self.model.fetches[session as usize].family == Family::V6;
        match answer.failed {
            Some(f) => self.sessions[session as usize].fetch.error = Some(format!("lookup: {}", f.name())),
            None => self.connect_default(session, if v6 { &answer.mirrors_v6 } else { &answer.mirrors }),
        }
    }

    /// The default policy: the first of `mirrors` its preferred interface
    /// reaches over the session's family (an Android phone takes the first
    /// address of its resolver's answer over its default network), used for
    /// every request.
    fn connect_default(&mut self, session: SessionId, mirrors: &[NodeId]) {
        let m = &self.model.fetches[session as usize];
        if m.page.is_some() {
            self.page_connect(session, mirrors);
            return;
        }
        let pick = |mirror: NodeId| m.candidates.iter().find(|k| k.mirror == mirror && k.iface == m.prefer && k.family == m.family);
        let Some(conn) = mirrors.iter().find_map(|&mirror| pick(mirror)).map(|k| k.flow) else {
            let iface = &self.model.nodes[m.client as usize].interfaces[m.prefer as usize];
            let v6 = if m.family == Family::V6 { " over IPv6" } else { "" };
            self.sessions[session as usize].fetch.error = Some(format!("no mirror of the lookup is reachable over {iface}{v6}"));
            return;
        };
        self.open_connection(conn);
        self.sessions[session as usize].fetch.steer(conn);
        self.fetch_step(conn);
    }

    pub(super) fn open_connection(&mut self, conn: ConnId) {
        self.flows[conn as usize].fetch.as_mut().expect("a fetch connection").opened_at = Some(self.now);
        self.start_flow(conn);
    }

    /// After a fetch connection's end-points acted: notes its handshake,
    /// completes the responses its in-order bytes cover, and lets its
    /// session send what it may.
    pub(super) fn fetch_step(&mut self, conn: ConnId) {
        let now = self.now;
        let f = &mut self.flows[conn as usize];
        let Some(c) = f.fetch.as_mut() else { return };
        if c.opened_at.is_none() {
            return;
        }
        if c.handshake_at.is_none() && f.sender.is_established() {
            c.handshake_at = Some(now);
            c.rtt.sample(now - c.opened_at.expect("opened"));
        }
        let done: Vec<((SessionId, u32), Time)> = c
            .exchange
            .deliver(f.receiver.delivered(), now)
            .into_iter()
            .map(|id| (c.asks[id as usize], c.exchange.requests[id as usize].first_byte_at.expect("delivered")))
            .collect();
        c.outstanding -= done.len() as u32;
        let home = c.session;
        for ((session, r), first_byte_at) in done {
            self.response_done(session, conn, r, first_byte_at);
        }
        for session in self.sharing(home) {
            self.fetch_issue(session);
        }
    }

    fn response_done(&mut self, session: SessionId, conn: ConnId, r: u32, first_byte_at: Time) {
        let m = &self.model.fetches[session as usize];
        let fetch = &mut self.sessions[session as usize].fetch;
        let finished = fetch.finished_at.is_some();
        // A response cut by a resuming steer has drained: nothing to tell.
        if !fetch.complete(m, r, first_byte_at, self.now) {
            return;
        }
        let finished = !finished && fetch.finished_at.is_some();
        let req = &fetch.requests[r as usize];
        let event = match req.ask {
            Ask::Range { .. } => {
                let first_byte = req.idle_start.then(|| first_byte_at - req.sent_at);
                CtlEvent::RequestCompleted { session, conn, pending: fetch.pending(), first_byte }
            }
            Ask::Probe => {
                let rtt = self.now - req.sent_at;
                self.flows[conn as usize].fetch.as_mut().expect("a fetch connection").rtt.sample(rtt);
                CtlEvent::ProbeResult { conn, rtt }
            }
        };
        self.tell_host(m.client, &event);
        if finished {
            self.object_done(session);
        }
    }

    /// Sends the session's next content requests on its current connection
    /// while it is established and the pipeline has room.
    pub(super) fn fetch_issue(&mut self, session: SessionId) {
        let m = &self.model.fetches[session as usize];
        loop {
            let fetch = &mut self.sessions[session as usize].fetch;
            let Some(conn) = fetch.current else { return };
            let f = &self.flows[conn as usize];
            let c = f.fetch.as_ref().expect("a fetch connection");
            if !f.sender.is_established() || c.closed_at.is_some() {
                return;
            }
            let Some(r) = fetch.issue(m, conn, c.outstanding == 0, self.now) else {
                return;
            };
            let (pending, len) = (fetch.pending(), fetch.requests[r as usize].len);
            self.send_on(conn, session, r, m.request_bytes, len);
            self.tell_host(m.client, &CtlEvent::RequestIssued { session, conn, pending });
        }
    }

    /// Request `r` of `session` leaves the client on `conn`.
    fn send_on(&mut self, conn: ConnId, session: SessionId, r: u32, request_bytes: u32, len: u64) {
        let c = self.flows[conn as usize].fetch.as_mut().expect("a fetch connection");
        let id = c.exchange.send(request_bytes, len, self.now);
        c.asks.push((session, r));
        c.outstanding += 1;
        self.send_request(conn, id);
    }

    /// The home session of `conn` (the first that may use it), if `conn` is
    /// one of `host`'s fetch connections.
    fn fetch_conn(&self, host: NodeId, conn: ConnId) -> Result<SessionId, String> {
        let c = self.flows.get(conn as usize).and_then(|f| f.fetch.as_ref().filter(|_| f.dst == host));
        c.map(|c| c.session).ok_or_else(|| format!("connection {conn} is not one of this host's fetch connections"))
    }

    fn own_session(&self, host: NodeId, session: SessionId) -> Result<(), String> {
        match self.model.fetches.get(session as usize) {
            Some(m) if m.client == host => match self.sessions[session as usize].fetch.started_at {
                Some(_) => Ok(()),
                None => Err(format!("session {session} has not started")),
            },
            _ => Err(format!("session {session} is not one of this host's")),
        }
    }

    pub(super) fn ctl_open_connection(&mut self, host: NodeId, session: SessionId, mirror: &str, local: u16, family: Family) -> Result<(), String> {
        self.own_session(host, session)?;
        let m = &self.model.fetches[session as usize];
        let node = self.model.nodes.iter().position(|n| n.name == mirror).map(|n| n as NodeId);
        let Some(node) = node.filter(|n| self.holders(session).contains(n)) else {
            return Err(format!("'{mirror}' does not hold '{}'", self.model.contents[m.content].name));
        };
        let Some(k) = m.candidates.iter().find(|k| k.mirror == node && k.iface == local && k.family == family) else {
            let v6 = if family == Family::V6 { " over IPv6 (both ends and every link between them need it)" } else { "" };
            return Err(format!("'{mirror}' is not reachable over local interface {local}{v6}"));
        };
        let conn = k.flow;
        if !self.links[self.ifaces.get(host, local).out as usize].up {
            return Err(format!("local interface {local} is down"));
        }
        let c = self.flows[conn as usize].fetch.as_ref().expect("a fetch connection");
        if c.closed_at.is_some() {
            return Err(NOT_REOPENED.into());
        }
        if c.opened_at.is_some() {
            return Err(format!("already open as connection {conn}"));
        }
        self.open_connection(conn);
        Ok(())
    }

    /// Moves `session`'s next requests to `conn`; with `resume`, also the
    /// rests of its responses under way elsewhere (`Fetch::resume_on`):
    /// the bytes of each that reached the application are those its
    /// connection delivered in order past the response's start. A line for
    /// the controller log if a response was cut.
    pub(super) fn ctl_steer(&mut self, host: NodeId, session: SessionId, conn: ConnId, resume: bool) -> Result<Option<String>, String> {
        self.own_session(host, session)?;
        self.fetch_conn(host, conn)?;
        if !self.model.fetches[session as usize].candidates.iter().any(|k| k.flow == conn) {
            return Err(format!("connection {conn} is not one of session {session}'s"));
        }
        let c = self.flows[conn as usize].fetch.as_ref().expect("a fetch connection");
        if c.opened_at.is_none() || c.closed_at.is_some() {
            return Err(format!("connection {conn} is not open"));
        }
        let m = &self.model.fetches[session as usize];
        let fetch = &mut self.sessions[session as usize].fetch;
        let moved = fetch.steer(conn);
        let flows = &self.flows;
        let read = |i: u32, r: &crate::app::fetch::SessionRequest| {
            let c = flows[r.conn as usize].fetch.as_ref().expect("a fetch connection");
            let id = c.asks.iter().position(|&a| a == (session, i)).expect("a request sent on its connection");
            let x = &c.exchange.requests[id];
            // Not yet at the server: nothing of it was read.
            let start = x.end.map(|end| end - x.bytes);
            let got = start.map_or(0, |start| flows[r.conn as usize].receiver.delivered().saturating_sub(start).min(x.bytes));
            (got, x.first_byte_at)
        };
        let note = if moved && resume { fetch.resume_on(m, conn, self.now, read) } else { None };
        self.fetch_issue(session);
        Ok(note)
    }

    pub(super) fn ctl_close_connection(&mut self, host: NodeId, conn: ConnId) -> Result<(), String> {
        let home = self.fetch_conn(host, conn)?;
        let c = self.flows[conn as usize].fetch.as_ref().expect("a fetch connection");
        if c.opened_at.is_none() || c.closed_at.is_some() {
            return Err(format!("connection {conn} is not open"));
        }
        // A page's objects that have arrived keep their last connection as current.
        if self.sharing(home).map(|s| &self.sessions[s as usize].fetch).any(|f| f.current == Some(conn) && f.finished_at.is_none()) {
            return Err(CURRENT_CONNECTION.into());
        }
        if c.outstanding > 0 {
            return Err(RESPONSES_PENDING.into());
        }
        self.flows[conn as usize].fetch.as_mut().expect("a fetch connection").closed_at = Some(self.now);
        self.tell_host(host, &CtlEvent::ConnectionClosed { conn });
        Ok(())
    }

    pub(super) fn ctl_probe(&mut self, host: NodeId, conn: ConnId, request_bytes: u32, response_bytes: u64) -> Result<(), String> {
        let session = self.fetch_conn(host, conn)?;
        let f = &self.flows[conn as usize];
        let c = f.fetch.as_ref().expect("a fetch connection");
        if c.closed_at.is_some() {
            return Err(format!("connection {conn} is closed"));
        }
        if !f.sender.is_established() {
            return Err(NOT_ESTABLISHED.into());
        }
        if request_bytes == 0 || response_bytes == 0 {
            return Err("a probe needs a request and a response of at least one byte each".into());
        }
        // A probe on a shared connection is its home session's.
        let r = self.sessions[session as usize].fetch.probe(conn, request_bytes, response_bytes, c.outstanding == 0, self.now);
        self.send_on(conn, session, r, request_bytes, response_bytes);
        Ok(())
    }

    /// The sessions of `host` that have started, as its controllers see them.
    pub(super) fn session_views(&self, host: NodeId) -> Vec<SessionView> {
        let name = |n: NodeId| self.model.nodes[n as usize].name.clone();
        (0..self.sessions.len() as SessionId)
            .filter(|&s| self.model.fetches[s as usize].client == host && self.sessions[s as usize].fetch.started_at.is_some())
            .map(|s| {
                let (m, fetch) = (&self.model.fetches[s as usize], &self.sessions[s as usize].fetch);
                SessionView {
                    id: s,
                    name: m.name.clone(),
                    content: self.model.contents[m.content].name.clone(),
                    domain: self.model.contents[m.content].domain.clone(),
                    mirrors: self.holders(s).iter().map(|&n| name(n)).collect(),
                    mirrors_v6: self.holders(s).iter().filter(|&&n| m.candidates.iter().any(|k| k.mirror == n && k.family == Family::V6)).map(|&n| name(n)).collect(),
                    current: fetch.current,
                    connections: m
                        .candidates
                        .iter()
                        .map(|k| k.flow)
                        .filter(|&c| self.flows[c as usize].fetch.as_ref().is_some_and(|c| c.opened_at.is_some() && c.closed_at.is_none()))
                        .collect(),
                    bytes_done: fetch.bytes_done(),
                    bytes_total: m.bytes,
                    pending: fetch.pending(),
                    finished: fetch.finished_at.is_some(),
                }
            })
            .collect()
    }

    /// What the client knows of fetch connection `conn`.
    pub(super) fn fetch_conn_view(&self, conn: ConnId) -> Option<FetchConnView> {
        let c = self.flows[conn as usize].fetch.as_ref()?;
        let m = &self.model.fetches[c.session as usize];
        let k = m.candidates.iter().find(|k| k.flow == conn).expect("a candidate of its session");
        Some(FetchConnView {
            session: c.session,
            mirror: self.model.nodes[k.mirror as usize].name.clone(),
            local_interface: k.iface,
            family: k.family,
            srtt: c.rtt.srtt(),
            min_rtt: c.rtt.min_rtt,
            pending: c.outstanding,
        })
    }
}

impl World<'_> {
    /// The `fetches` and `fetch_requests` tables, at the end of the run.
    pub fn fetch_tables(&self) -> [Table; 2] {
        let sessions: Vec<(&Fetch, u64)> = self.sessions.iter().map(|s| (&s.fetch, s.resent)).collect();
        crate::app::fetch_results::tables(self.model, &sessions, |flow| self.flows[flow as usize].started)
    }
}
