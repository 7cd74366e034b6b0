//! Fetch sessions (`[[fetches]]`, docs/apps.md) at their client on the lab:
//! the simulator's ledger (`pathpool_sim::app::fetch::Fetch`) driven by the
//! client host's controller thread, over real single-path TCP connections,
//! the way `pathpool_sim::world::sessions` drives it over simulated ones.
//! The thread opens each candidate connection when the default policy or a
//! controller asks (`OpenConnection`): a TCP socket bound to the client
//! interface's address (the testbed's source routing sends it out of that
//! interface) connecting to the mirror's listener; it sends each content
//! request on the session's current connection, probes where a controller
//! asks, reads the responses in request order (HTTP/1.1, RFC 9112 §9.3.2),
//! checks every content byte against the bytes the mirror generates
//! (`traffic/content.rs`), and tells the controllers what the simulator
//! tells them: `SessionStarted`, `ConnectionEstablished`, `RequestIssued`,
//! `RequestCompleted` (with the time to first byte of a request sent on an
//! idle connection), `ProbeResult`, `ConnectionClosed`.
//!
//! The client's RTT estimate of a connection comes from its own samples, as
//! in the simulator: the handshake (connect to SYN-ACK: the socket turning
//! writable) and probes, smoothed as RFC 6298 §2 does. The thread waits on
//! its sockets and the path-manager events together (poll(2)), so a
//! response is seen when its last byte is readable.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::Duration;

use socket2::{SockAddr, Socket};

use pathpool_sim::app::fetch::{Ask, Fetch, Policy, SessionRequest};
use pathpool_sim::control::action::{CURRENT_CONNECTION, NOT_ESTABLISHED, NOT_REOPENED, RESPONSES_PENDING};
use pathpool_sim::control::view::{FetchConnView, SessionView};
use pathpool_sim::control::{ConnId, Event, SessionId};
use pathpool_sim::net::family::Family;
use pathpool_sim::net::NodeId;
use pathpool_sim::tcp::rtt::RttEstimator;
use pathpool_sim::Time;

use super::links::interface_links;
use super::lookups::Asker;
use super::Host;
use crate::traffic::content;
use crate::traffic::mirror::Request;
use crate::traffic::{stream_socket, BASE_PORT};

/// One response under way on a connection.
struct Asked {
    session: SessionId,
    request: u32,
    /// Its content offset still to read (None: a probe) and bytes left.
    off: Option<u64>,
    left: u64,
    first_byte_at: Option<Time>,
}

/// A candidate connection the client opened.
struct MirrorConn {
    /// The first session that may use it.
    session: SessionId,
    socket: Arc<Socket>,
    opened_at: Time,
    established_at: Option<Time>,
    closed_at: Option<Time>,
    rtt: RttEstimator,
    asks: VecDeque<Asked>,
    /// Request bytes not written yet.
    out: Vec<u8>,
    /// Response bytes read.
    read: u64,
}

/// The host's fetch sessions and their connections.
pub(super) struct Fetching {
    /// This host's sessions that start at a time, not started yet, latest
    /// first (a page's later objects start when their parent arrives).
    unstarted: Vec<SessionId>,
    conns: BTreeMap<ConnId, MirrorConn>,
    /// Each page's objects waiting for a connection, with their server.
    queues: Vec<VecDeque<(SessionId, NodeId)>>,
    seeds: Vec<u64>,
    buf: Vec<u8>,
    scratch: Vec<u8>,
    /// What the last resuming steer cut, for the controller log's detail.
    pub steer_note: Option<String>,
}

impl Fetching {
    pub fn new(model: &pathpool_sim::Model, host: NodeId) -> Fetching {
        let mine = |s: &SessionId| model.fetches[*s as usize].client == host && model.fetches[*s as usize].after.is_none();
        let mut unstarted: Vec<SessionId> = (0..model.fetches.len() as SessionId).filter(mine).collect();
        unstarted.sort_by_key(|&s| std::cmp::Reverse((model.fetches[s as usize].start, s)));
        let seeds = model.contents.iter().map(|c| content::seed(&c.name)).collect();
        let queues = vec![VecDeque::new(); model.pages.len()];
        Fetching { unstarted, conns: BTreeMap::new(), queues, seeds, buf: vec![0; 256 * 1024], scratch: Vec::new(), steer_note: None }
    }

    /// Whether the host has fetch sessions at all.
    pub fn any(&self) -> bool {
        !self.unstarted.is_empty() || !self.conns.is_empty()
    }
}

impl<'a> Host<'a> {
    pub(super) fn ledger(&self, session: SessionId) -> MutexGuard<'a, Fetch> {
        self.s.sessions[session as usize].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next session start still to come.
    pub(super) fn next_session_start(&self) -> Option<Time> {
        self.fetching.unstarted.last().map(|&s| self.s.model.fetches[s as usize].start)
    }

    /// Starts the sessions that are due.
    pub(super) fn sessions_due(&mut self, now: Time) {
        while let Some(&s) = self.fetching.unstarted.last() {
            if self.s.model.fetches[s as usize].start > now {
                return;
            }
            self.fetching.unstarted.pop();
            self.start_session(s, now);
        }
    }

    /// Session `s` starts: the controllers hear of it; under the default
    /// policy it learns the mirrors (from its resolver over its preferred
    /// interface for a content with a domain, `lookups.rs`, else the
    /// content's list) and connects to the first one that interface reaches.
    fn start_session(&mut self, s: SessionId, now: Time) {
        let model = self.s.model;
        let m = &model.fetches[s as usize];
        self.ledger(s).started_at = Some(now);
        self.pending.push_back(Event::SessionStarted { session: s });
        if m.policy != Policy::Default {
            return;
        }
        let content = &model.contents[m.content];
        if let (Some(domain), Some(resolver)) = (&content.domain, &m.resolver) {
            if let Err(e) = self.lookup(resolver, domain, Some(m.prefer), Asker::Session(s)) {
                self.ledger(s).error = Some(format!("lookup: {e}"));
            }
            return;
        }
        self.connect_default(s, &content.mirrors, now);
    }

    /// The default policy: the first of `mirrors` its preferred interface
    /// reaches (an Android phone takes the first address of its resolver's
    /// answer over its default network); a page's object over its page's pool.
    pub(super) fn connect_default(&mut self, s: SessionId, mirrors: &[NodeId], now: Time) {
        let model = self.s.model;
        let m = &model.fetches[s as usize];
        let Some(&mirror) = mirrors.iter().find(|&&mirror| m.candidates.iter().any(|k| k.mirror == mirror && k.iface == m.prefer)) else {
            let iface = &model.nodes[self.id as usize].interfaces[m.prefer as usize];
            self.ledger(s).error = Some(format!("no mirror of the lookup is reachable over {iface}"));
            return;
        };
        if let Some(page) = m.page {
            if !self.page_assign(s, mirror, now) {
                self.fetching.queues[page as usize].push_back((s, mirror));
            }
            return;
        }
        let conn = m.candidates.iter().find(|k| k.mirror == mirror && k.iface == m.prefer).expect("found above").flow;
        if let Err(e) = self.open_connection(conn, now) {
            self.ledger(s).error = Some(e);
            return;
        }
        self.ledger(s).steer(conn);
    }

    /// A browser's pool (the simulator's `world/pages.rs`): gives page
    /// object `session` an open connection of its page to `mirror` over its
    /// preferred interface that no unfinished object is on (a persistent
    /// connection, RFC 9112 §9.3), else one not opened yet (at most the
    /// per-server limit exist, §9.4). Whether it got one.
    fn page_assign(&mut self, session: SessionId, mirror: NodeId, now: Time) -> bool {
        let model = self.s.model;
        let m = &model.fetches[session as usize];
        let page = &model.pages[m.page.expect("a page's object") as usize];
        let opened = |conn: ConnId| self.fetching.conns.contains_key(&conn);
        let busy = |conn: ConnId| {
            page.objects.iter().any(|o| {
                let f = self.ledger(o.session);
                f.current == Some(conn) && f.finished_at.is_none()
            })
        };
        let mut lanes = page.pool.iter().filter(|k| k.mirror == mirror && k.iface == m.prefer).map(|k| k.flow);
        let idle = lanes.clone().find(|&c| opened(c) && !busy(c));
        let Some(conn) = idle.or_else(|| lanes.find(|&c| !opened(c))) else {
            return false;
        };
        if !opened(conn) {
            if let Err(e) = self.open_connection(conn, now) {
                self.ledger(session).error = Some(e);
                return true;
            }
        }
        self.ledger(session).steer(conn);
        self.fetch_issue(session);
        true
    }

    /// A page's object arrived in full: under the default policy the
    /// objects waiting take the connection it freed; then the objects it
    /// reveals start.
    fn object_done(&mut self, session: SessionId, now: Time) {
        let model = self.s.model;
        let m = &model.fetches[session as usize];
        let Some(page) = m.page else { return };
        if m.policy == Policy::Default {
            for (s, mirror) in std::mem::take(&mut self.fetching.queues[page as usize]) {
                if !self.page_assign(s, mirror, now) {
                    self.fetching.queues[page as usize].push_back((s, mirror));
                }
            }
        }
        let objects = &model.pages[page as usize].objects;
        for s in objects.iter().map(|o| o.session).filter(|&s| model.fetches[s as usize].after == Some(session)) {
            self.start_session(s, now);
        }
    }

    /// Opens candidate connection `conn`: a TCP socket made in the host's
    /// namespace, bound to its client interface's address, connecting
    /// without blocking to the mirror's listener.
    fn open_connection(&mut self, conn: ConnId, now: Time) -> Result<(), String> {
        let model = self.s.model;
        let f = &model.flows[conn as usize];
        let session = f.fetch.expect("a fetch connection");
        let local = SocketAddr::new(self.s.addrs[self.id as usize][f.dst_if.expect("pinned to a client interface") as usize], 0);
        let server = SocketAddr::new(self.s.addrs[f.src as usize][0], BASE_PORT + conn as u16);
        let socket = self
            .ns
            .run(|| -> io::Result<Socket> {
                let s = stream_socket(false)?;
                s.bind(&SockAddr::from(local))?;
                s.set_tcp_nodelay(true)?;
                s.set_nonblocking(true)?;
                Ok(s)
            })
            .and_then(|r| r)
            .map_err(|e| format!("connection {conn}: socket: {e}"))?;
        match socket.connect(&SockAddr::from(server)) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(e) => return Err(format!("connection {conn}: connecting to {server}: {e}")),
        }
        let rtt = RttEstimator::from_config(&f.tcp);
        let c = MirrorConn {
            session,
            socket: Arc::new(socket),
            opened_at: now,
            established_at: None,
            closed_at: None,
            rtt,
            asks: VecDeque::new(),
            out: Vec::new(), read: 0 };
        self.fetching.conns.insert(conn, c);
        self.s.flows[conn as usize].started_ns.store(now.nanos().max(1), Ordering::Relaxed);
        Ok(())
    }

    /// The sessions that may send on connections whose home session is
    /// `home`: a page's objects (consecutive sessions), or the session alone.
    fn sharing(&self, home: SessionId) -> std::ops::Range<SessionId> {
        match self.s.model.fetches[home as usize].page {
            Some(p) => {
                let objects = &self.s.model.pages[p as usize].objects;
                objects[0].session..objects[0].session + objects.len() as SessionId
            }
            None => home..home + 1,
        }
    }

    /// Waits up to `wait` for one of the host's connections, its DNS
    /// sockets (`lookups.rs`) or the path-manager socket `netlink` to be
    /// ready; whether `netlink` is.
    pub(super) fn fetch_wait(&self, netlink: RawFd, wait: Duration) -> bool {
        let mut fds = vec![libc::pollfd { fd: netlink, events: libc::POLLIN, revents: 0 }];
        for c in self.fetching.conns.values().filter(|c| c.closed_at.is_none()) {
            let out = if c.established_at.is_none() || !c.out.is_empty() { libc::POLLOUT } else { 0 };
            fds.push(libc::pollfd { fd: c.socket.as_raw_fd(), events: libc::POLLIN | out, revents: 0 });
        }
        fds.extend(self.lookups.fds().map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }));
        let ms = wait.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as i32;
        // SAFETY: `fds` is valid for the duration of the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        n > 0 && fds[0].revents != 0
    }

    /// Handshakes completed, requests written, responses read, on every
    /// open connection.
    pub(super) fn fetch_io(&mut self) {
        let ids: Vec<ConnId> = self.fetching.conns.iter().filter(|(_, c)| c.closed_at.is_none()).map(|(&id, _)| id).collect();
        for conn in ids {
            if let Err(e) = self.connection_io(conn) {
                if !self.s.clock.stopped() {
                    self.s.flows[conn as usize].fail(format!("fetch client: {e}"));
                }
                self.fetching.conns.get_mut(&conn).expect("open").closed_at = Some(self.s.clock.now());
            }
        }
    }

    fn connection_io(&mut self, conn: ConnId) -> io::Result<()> {
        let c = self.fetching.conns.get_mut(&conn).expect("open");
        if c.established_at.is_none() {
            if let Some(e) = c.socket.take_error()? {
                return Err(e);
            }
            if c.socket.peer_addr().is_err() {
                return Ok(());
            }
            let now = self.s.clock.now();
            c.established_at = Some(now);
            c.rtt.sample(now - c.opened_at);
            let home = c.session;
            // The receiver's socket, for the controllers' `SetReceiveBuffer` (`actions.rs`).
            *self.s.flows[conn as usize].receiver.lock().unwrap_or_else(|e| e.into_inner()) = Some(c.socket.clone());
            self.established(conn, false);
            for s in self.sharing(home) {
                self.fetch_issue(s);
            }
        }
        self.flush(conn)?;
        let quickack = !self.s.model.flows[conn as usize].tcp.delayed_ack;
        loop {
            let mut buf = std::mem::take(&mut self.fetching.buf);
            let c = self.fetching.conns.get_mut(&conn).expect("open");
            let got = (&*c.socket).read(&mut buf);
            let n = match got {
                Ok(0) => {
                    self.fetching.buf = buf;
                    return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the mirror closed the connection"));
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.fetching.buf = buf;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    self.fetching.buf = buf;
                    continue;
                }
                Err(e) => {
                    self.fetching.buf = buf;
                    return Err(e);
                }
            };
            if quickack {
                let _ = c.socket.set_tcp_quickack(true);
            }
            let result = self.responses(conn, &buf[..n]);
            self.fetching.buf = buf;
            result?;
        }
    }

    /// Writes what the connection's requests still have to write.
    fn flush(&mut self, conn: ConnId) -> io::Result<()> {
        let c = self.fetching.conns.get_mut(&conn).expect("open");
        while !c.out.is_empty() {
            match (&*c.socket).write(&c.out) {
                Ok(n) => {
                    c.out.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// `bytes` just read on `conn`: the responses under way, in order.
    fn responses(&mut self, conn: ConnId, mut bytes: &[u8]) -> io::Result<()> {
        let now = self.s.clock.now();
        let mut done = Vec::new();
        {
            let Fetching { conns, seeds, scratch, .. } = &mut self.fetching;
            let c = conns.get_mut(&conn).expect("open");
            c.read += bytes.len() as u64;
            while !bytes.is_empty() {
                let Some(a) = c.asks.front_mut() else {
                    return Err(io::Error::other(format!("{} bytes the client did not ask for", bytes.len())));
                };
                let n = a.left.min(bytes.len() as u64) as usize;
                a.first_byte_at.get_or_insert(now);
                if let Some(off) = a.off.as_mut() {
                    let m = &self.s.model.fetches[a.session as usize];
                    if let Some(at) = content::first_difference(seeds[m.content], *off, &bytes[..n], scratch) {
                        return Err(io::Error::other(format!("byte {at} of '{}' differs from the mirror's content", self.s.model.contents[m.content].name)));
                    }
                    *off += n as u64;
                }
                a.left -= n as u64;
                bytes = &bytes[n..];
                if a.left == 0 {
                    let a = c.asks.pop_front().expect("the front");
                    done.push((a.session, a.request, a.first_byte_at.expect("read")));
                }
            }
            self.s.flows[conn as usize].delivered.store(c.read, Ordering::Relaxed);
        }
        let home = self.fetching.conns[&conn].session;
        for (session, r, first_byte_at) in done {
            self.response_done(session, conn, r, first_byte_at, now);
        }
        for s in self.sharing(home) {
            self.fetch_issue(s);
        }
        Ok(())
    }

    fn response_done(&mut self, session: SessionId, conn: ConnId, r: u32, first_byte_at: Time, now: Time) {
        let m = &self.s.model.fetches[session as usize];
        let (event, finished) = {
            let mut fetch = self.ledger(session);
            let before = fetch.finished_at.is_some();
            // A response cut by a resuming steer has drained: nothing to tell.
            if !fetch.complete(m, r, first_byte_at, now) {
                return;
            }
            let finished = !before && fetch.finished_at.is_some();
            let req = &fetch.requests[r as usize];
            let event = match req.ask {
                Ask::Range { .. } => {
                    let first_byte = req.idle_start.then(|| first_byte_at - req.sent_at);
                    Event::RequestCompleted { session, conn, pending: fetch.pending(), first_byte }
                }
                Ask::Probe => Event::ProbeResult { conn, rtt: now - req.sent_at },
            };
            (event, finished)
        };
        if let Event::ProbeResult { rtt, .. } = event {
            self.fetching.conns.get_mut(&conn).expect("open").rtt.sample(rtt);
        }
        self.pending.push_back(event);
        if finished {
            self.object_done(session, now);
        }
    }

    /// Sends the session's next content requests on its current connection
    /// while it is established and the pipeline has room.
    fn fetch_issue(&mut self, session: SessionId) {
        let m = &self.s.model.fetches[session as usize];
        loop {
            let now = self.s.clock.now();
            let mut fetch = self.ledger(session);
            let Some(conn) = fetch.current else { return };
            let Some(c) = self.fetching.conns.get(&conn) else { return };
            if c.established_at.is_none() || c.closed_at.is_some() {
                return;
            }
            let Some(r) = fetch.issue(m, conn, c.asks.is_empty(), now) else { return };
            let (pending, len) = (fetch.pending(), fetch.requests[r as usize].len);
            let Ask::Range { off } = fetch.requests[r as usize].ask else { unreachable!("issue asks for content") };
            drop(fetch);
            let request = Request { len, off: Some(off), content: m.content as u32, request_bytes: m.request_bytes };
            self.send_on(conn, session, r, request);
            self.pending.push_back(Event::RequestIssued { session, conn, pending });
        }
    }

    /// Request `r` of `session` leaves on `conn`.
    fn send_on(&mut self, conn: ConnId, session: SessionId, r: u32, request: Request) {
        let c = self.fetching.conns.get_mut(&conn).expect("open");
        request.encode(&mut c.out);
        self.s.sent_on[conn as usize].lock().unwrap_or_else(|e| e.into_inner()).push((session, r));
        c.asks.push_back(Asked { session, request: r, off: request.off, left: request.len, first_byte_at: None });
        if let Err(e) = self.flush(conn) {
            self.s.flows[conn as usize].fail(format!("fetch client: sending a request: {e}"));
        }
    }

    /// The home session of `conn`, if it is one of this host's fetch connections.
    fn fetch_conn(&self, conn: ConnId) -> Result<SessionId, String> {
        let f = self.s.model.flows.get(conn as usize).filter(|f| f.dst == self.id);
        f.and_then(|f| f.fetch).ok_or_else(|| format!("connection {conn} is not one of this host's fetch connections"))
    }

    fn own_session(&self, session: SessionId) -> Result<(), String> {
        match self.s.model.fetches.get(session as usize) {
            Some(m) if m.client == self.id => match self.ledger(session).started_at {
                Some(_) => Ok(()),
                None => Err(format!("session {session} has not started")),
            },
            _ => Err(format!("session {session} is not one of this host's")),
        }
    }

    pub(super) fn ctl_open_connection(&mut self, session: SessionId, mirror: &str, local: u16, family: Family) -> Result<Option<u32>, String> {
        self.own_session(session)?;
        if family != Family::V4 {
            return Err("IPv6 connections are not built on the lab".into());
        }
        let model = self.s.model;
        let m = &model.fetches[session as usize];
        let holders = &model.contents[m.content].mirrors;
        let node = model.nodes.iter().position(|n| n.name == mirror).map(|n| n as NodeId);
        let Some(node) = node.filter(|n| holders.contains(n)) else {
            return Err(format!("'{mirror}' does not hold '{}'", model.contents[m.content].name));
        };
        let Some(k) = m.candidates.iter().find(|k| k.mirror == node && k.iface == local) else {
            return Err(format!("'{mirror}' is not reachable over local interface {local}"));
        };
        if !self.links.is_up(interface_links(model, self.id)[local as usize]) {
            return Err(format!("local interface {local} is down"));
        }
        match self.fetching.conns.get(&k.flow) {
            Some(c) if c.closed_at.is_some() => Err(NOT_REOPENED.into()),
            Some(_) => Err(format!("already open as connection {}", k.flow)),
            None => self.open_connection(k.flow, self.s.clock.now()).map(|()| None),
        }
    }

    /// Moves `session`'s next requests to `conn`; with `resume`, also the
    /// rests of its responses under way elsewhere (`Fetch::resume_on`): the
    /// bytes of each read so far are delivered, the rest is read from the
    /// old connection and discarded (`responses` still checks it against
    /// the content). What was cut goes to the controller log
    /// (`Fetching::steer_note`).
    pub(super) fn ctl_steer(&mut self, session: SessionId, conn: ConnId, resume: bool) -> Result<Option<u32>, String> {
        self.own_session(session)?;
        self.fetch_conn(conn)?;
        if !self.s.model.fetches[session as usize].candidates.iter().any(|k| k.flow == conn) {
            return Err(format!("connection {conn} is not one of session {session}'s"));
        }
        if self.fetching.conns.get(&conn).is_none_or(|c| c.closed_at.is_some()) {
            return Err(format!("connection {conn} is not open"));
        }
        let m = &self.s.model.fetches[session as usize];
        let mut fetch = self.ledger(session);
        let moved = fetch.steer(conn);
        let conns = &self.fetching.conns;
        let read = |i: u32, r: &SessionRequest| {
            let asked = conns[&r.conn].asks.iter().find(|a| (a.session, a.request) == (session, i)).expect("a response under way on its connection");
            (r.len - asked.left, asked.first_byte_at)
        };
        self.fetching.steer_note = if moved && resume { fetch.resume_on(m, conn, self.s.clock.now(), read) } else { None };
        drop(fetch);
        self.fetch_issue(session);
        Ok(None)
    }

    pub(super) fn ctl_close_connection(&mut self, conn: ConnId) -> Result<Option<u32>, String> {
        let home = self.fetch_conn(conn)?;
        let Some(c) = self.fetching.conns.get(&conn).filter(|c| c.closed_at.is_none()) else {
            return Err(format!("connection {conn} is not open"));
        };
        if self.sharing(home).any(|s| {
            let f = self.ledger(s);
            f.current == Some(conn) && f.finished_at.is_none()
        }) {
            return Err(CURRENT_CONNECTION.into());
        }
        if !c.asks.is_empty() {
            return Err(RESPONSES_PENDING.into());
        }
        let _ = c.socket.shutdown(std::net::Shutdown::Both);
        self.fetching.conns.get_mut(&conn).expect("open").closed_at = Some(self.s.clock.now());
        self.pending.push_back(Event::ConnectionClosed { conn });
        Ok(None)
    }

    pub(super) fn ctl_probe(&mut self, conn: ConnId, request_bytes: u32, response_bytes: u64) -> Result<Option<u32>, String> {
        let session = self.fetch_conn(conn)?;
        let Some(c) = self.fetching.conns.get(&conn).filter(|c| c.closed_at.is_none()) else {
            return Err(format!("connection {conn} is closed"));
        };
        if c.established_at.is_none() {
            return Err(NOT_ESTABLISHED.into());
        }
        if request_bytes == 0 || response_bytes == 0 {
            return Err("a probe needs a request and a response of at least one byte each".into());
        }
        let idle = c.asks.is_empty();
        let r = self.ledger(session).probe(conn, request_bytes, response_bytes, idle, self.s.clock.now());
        self.send_on(conn, session, r, Request { len: response_bytes, off: None, content: 0, request_bytes });
        Ok(None)
    }

    /// The host's sessions that have started, as its controllers see them.
    pub(super) fn session_views(&self) -> Vec<SessionView> {
        let model = self.s.model;
        let name = |n: NodeId| model.nodes[n as usize].name.clone();
        (0..model.fetches.len() as SessionId)
            .filter(|&s| model.fetches[s as usize].client == self.id)
            .filter_map(|s| {
                let m = &model.fetches[s as usize];
                let fetch = self.ledger(s);
                fetch.started_at?;
                let open = |c: &ConnId| self.fetching.conns.get(c).is_some_and(|c| c.closed_at.is_none());
                Some(SessionView {
                    id: s,
                    name: m.name.clone(),
                    content: model.contents[m.content].name.clone(),
                    domain: model.contents[m.content].domain.clone(),
                    mirrors: model.contents[m.content].mirrors.iter().map(|&n| name(n)).collect(),
                    mirrors_v6: Vec::new(),
                    current: fetch.current,
                    connections: m.candidates.iter().map(|k| k.flow).filter(open).collect(),
                    bytes_done: fetch.bytes_done(),
                    bytes_total: m.bytes,
                    pending: fetch.pending(),
                    finished: fetch.finished_at.is_some(),
                })
            })
            .collect()
    }

    /// What the client knows of fetch connection `conn`: None if it is not
    /// one of this host's or was never opened; Err if it was closed (it is
    /// then out of the view, as in the simulator).
    pub(super) fn fetch_conn_view(&self, conn: ConnId) -> Result<Option<FetchConnView>, ()> {
        let Some(c) = self.fetching.conns.get(&conn) else { return Ok(None) };
        if c.closed_at.is_some() {
            return Err(());
        }
        let m = &self.s.model.fetches[c.session as usize];
        let k = m.candidates.iter().find(|k| k.flow == conn).expect("a candidate of its session");
        Ok(Some(FetchConnView {
            session: c.session,
            mirror: self.s.model.nodes[k.mirror as usize].name.clone(),
            local_interface: k.iface,
            family: k.family,
            srtt: c.rtt.srtt(),
            min_rtt: c.rtt.min_rtt,
            pending: c.asks.len() as u32,
        }))
    }
}
