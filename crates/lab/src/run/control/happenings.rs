//! What happens to a host's connections, as `control::Event`s: the kernel's
//! `mptcp_pm` netlink events of the host's namespace (kernel
//! `Documentation/netlink/specs/mptcp_pm.yaml`), and what polling the
//! host's own sockets shows. On the connection's client, the same events
//! keep the shared subflow records (`run/connection.rs`).

use std::net::SocketAddr;

use pathpool_sim::control::{CloseReason, ConnId, Event};
use pathpool_sim::Time;

use super::super::connection::{Connection, SubflowRecord};
use super::Host;
use crate::pm::{self, Subflow};
use crate::traffic::info;
use crate::traffic::BASE_PORT;

impl Host<'_> {
    /// The MPTCP flow of this host whose connection `c` is: on the client,
    /// the one whose server port `c` connects to; on the server, the one
    /// whose port it was accepted on.
    fn flow_of(&self, c: &pm::Connection) -> Option<ConnId> {
        let port = if c.server_side { c.local.port() } else { c.remote.port() };
        let i = port.checked_sub(BASE_PORT)? as usize;
        let f = self.s.model.flows.get(i)?;
        let mine = if c.server_side { f.client != self.id } else { f.client == self.id };
        (f.transport == "mptcp" && mine && (f.src == self.id || f.dst == self.id)).then_some(i as ConnId)
    }

    fn flow_of_token(&self, token: u32) -> Option<ConnId> {
        self.seen.iter().position(|s| s.token == Some(token)).map(|i| i as ConnId)
    }

    fn connection(&self, conn: ConnId) -> std::sync::MutexGuard<'_, Connection> {
        self.s.conns[conn as usize].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A subflow event's addresses as (source's, destination's).
    fn flow_terms(&self, conn: ConnId, s: &Subflow) -> (SocketAddr, SocketAddr) {
        if self.s.model.flows[conn as usize].src == self.id { (s.local, s.remote) } else { (s.remote, s.local) }
    }

    pub(super) fn on_kernel_event(&mut self, event: pm::Event) {
        let now = self.s.clock.now();
        match event {
            pm::Event::Established(c) => {
                let Some(conn) = self.flow_of(&c) else { return };
                self.seen[conn as usize].token = Some(c.token);
                if !c.server_side {
                    self.record_initial(conn, c.local, now);
                }
                self.established(conn, false);
            }
            pm::Event::SubEstablished(s) => {
                let Some(conn) = self.flow_of_token(s.token) else { return };
                let (src, dst) = self.flow_terms(conn, &s);
                let client = self.s.model.flows[conn as usize].client == self.id;
                let id = if client { self.record_established(conn, src, dst, now) } else { self.subflow_id(conn, src, dst) };
                if let Some(subflow) = id {
                    self.pending.push_back(Event::SubflowEstablished { conn, subflow });
                }
            }
            pm::Event::SubClosed(s) => {
                let Some(conn) = self.flow_of_token(s.token) else { return };
                let (src, dst) = self.flow_terms(conn, &s);
                let Some(subflow) = self.subflow_id(conn, src, dst) else { return };
                let closed_by = {
                    let mut c = self.connection(conn);
                    let r = &mut c.subflows[subflow as usize];
                    if self.s.model.flows[conn as usize].client == self.id && r.is_open() {
                        r.closed = Some(now);
                    }
                    r.closed_by
                };
                // The client told its controllers of a subflow failed on an
                // interface going down when it destroyed it (`links.rs`).
                let client = self.s.model.flows[conn as usize].client == self.id;
                if !(client && closed_by == Some(CloseReason::InterfaceDown)) {
                    let reason = closed_by.unwrap_or(CloseReason::Reset);
                    self.pending.push_back(Event::SubflowClosed { conn, subflow, reason });
                }
            }
            pm::Event::SubPriority(s) => {
                let Some(conn) = self.flow_of_token(s.token) else { return };
                let (src, dst) = self.flow_terms(conn, &s);
                if let Some(subflow) = self.subflow_id(conn, src, dst) {
                    // The peer's MP_PRIO (RFC 8684 §3.3.8): the bit it asks this end to use.
                    self.pending.push_back(Event::SubflowPriority { conn, subflow, backup: s.backup });
                }
            }
            _ => {}
        }
    }

    /// Tells this host's controllers that `conn` is established (and fell
    /// back to TCP), as the simulator's `World::observe`: the connection,
    /// then its initial subflow.
    pub(super) fn established(&mut self, conn: ConnId, fallback: bool) {
        let seen = &mut self.seen[conn as usize];
        if seen.established {
            return;
        }
        seen.established = true;
        seen.fallback = fallback;
        self.pending.push_back(Event::ConnectionEstablished { conn });
        if fallback {
            self.pending.push_back(Event::Fallback { conn });
        }
        if self.s.model.flows[conn as usize].transport == "mptcp" {
            self.pending.push_back(Event::SubflowEstablished { conn, subflow: 0 });
        }
    }

    /// The initial subflow's record, on the client: `local` is its address.
    fn record_initial(&self, conn: ConnId, local: SocketAddr, now: Time) {
        let f = &self.s.model.flows[conn as usize];
        let initial = f.mptcp.as_ref().expect("an mptcp flow").initial;
        let port = BASE_PORT + conn as u16;
        let (src, dst) = if f.src == self.id {
            (local, SocketAddr::new(self.s.addrs[f.dst as usize][initial.1 as usize], port))
        } else {
            (SocketAddr::new(self.s.addrs[f.src as usize][initial.0 as usize], port), local)
        };
        let start = self.s.flows[conn as usize].started().unwrap_or(now);
        let mut record = SubflowRecord::new(initial, src, dst, false, start);
        record.established = Some(now);
        let mut c = self.connection(conn);
        if c.subflows.is_empty() {
            c.subflows.push(record);
        }
    }

    /// On the client: the record of a subflow that just got established (a
    /// new one if the in-kernel path manager opened it); its id. None for a
    /// subflow between addresses that are not the flow's ends'.
    fn record_established(&self, conn: ConnId, src: SocketAddr, dst: SocketAddr, now: Time) -> Option<u32> {
        let f = &self.s.model.flows[conn as usize];
        let mut c = self.connection(conn);
        if let Some(k) = c.subflows.iter().position(|r| r.is_open() && r.established.is_none() && r.is(src, dst)) {
            let r = &mut c.subflows[k];
            (r.src, r.dst) = (src, dst);
            r.established = Some(now);
            return Some(k as u32);
        }
        let iface = |node: u32, a: SocketAddr| self.s.addrs[node as usize].iter().position(|&x| x == a.ip()).map(|k| k as u16);
        let backup = f.mptcp.as_ref().is_some_and(|m| m.path_manager == "backup");
        let mut record = SubflowRecord::new((iface(f.src, src)?, iface(f.dst, dst)?), src, dst, backup, now);
        record.established = Some(now);
        c.subflows.push(record);
        Some((c.subflows.len() - 1) as u32)
    }

    /// The id of the subflow with these addresses: an open one first.
    fn subflow_id(&self, conn: ConnId, src: SocketAddr, dst: SocketAddr) -> Option<u32> {
        let c = self.connection(conn);
        let k = c.subflows.iter().position(|r| r.is_open() && r.is(src, dst)).or_else(|| c.subflows.iter().rposition(|r| r.is(src, dst)))?;
        Some(k as u32)
    }

    /// Looks at this host's sockets: a TCP connection (or an MPTCP one that
    /// fell back, which the kernel's path manager never reports) that
    /// connected, a connection whose receiver read its last byte, byte
    /// thresholds reached.
    pub(super) fn check_connections(&mut self, now: Time) {
        if self.instances.is_empty() {
            return;
        }
        for (i, f) in self.s.model.flows.iter().enumerate() {
            if f.src != self.id && f.dst != self.id {
                continue;
            }
            let conn = i as ConnId;
            let state = &self.s.flows[i];
            if !self.seen[i].established {
                if let Some(socket) = state.socket(f.src == self.id) {
                    use std::os::fd::AsFd;
                    if f.transport != "mptcp" {
                        self.established(conn, false);
                    } else if matches!(info::mptcp_info(socket.as_fd()), Ok(None)) {
                        self.established(conn, true);
                    }
                }
            }
            // The application's new requests, as the simulator tells them
            // (its client is the flow's destination, `traffic/app.rs`);
            // seen at the poll interval.
            if let Some(app) = state.app.as_ref().filter(|_| f.dst == self.id && self.seen[i].established) {
                let v = crate::traffic::app::lock(app).view();
                while self.seen[i].requests < v.requests {
                    self.seen[i].requests += 1;
                    // Only the latest object's size is known; earlier ones in the same poll go without.
                    let size = if self.seen[i].requests == v.requests { v.object_size } else { None };
                    self.pending.push_back(Event::AppRequest { conn, size });
                }
            }
            if !self.seen[i].closed && state.finished().is_some() {
                self.seen[i].closed = true;
                self.pending.push_back(Event::ConnectionClosed { conn });
            }
        }
        self.watches_reached(now);
    }

    /// Byte watches reached: each tells the instance that armed it.
    fn watches_reached(&mut self, now: Time) {
        let mut k = 0;
        while k < self.watches.len() {
            let (conn, bytes, i) = self.watches[k];
            let carried = self.view_connection(conn, now).map_or(0, |c| c.bytes_sent.unwrap_or(0) + c.bytes_received);
            if carried >= bytes {
                self.watches.remove(k);
                self.deliver(i, now, &Event::BytesCarried { conn, bytes }, std::time::Instant::now());
            } else {
                k += 1;
            }
        }
    }
}
