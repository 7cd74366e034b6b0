//! The world's side of page loads (`crate::app::page`): a browser's
//! connection pool under the default policy. An object whose lookup came
//! back takes an idle open connection to its server over the preferred
//! interface (a persistent connection, RFC 9112 §9.3), else opens one while
//! fewer than the page's per-server limit are open (RFC 9112 §9.4), else
//! waits in the page's queue, first come first served, for one to fall
//! idle. When an object has arrived, the objects waiting take the
//! connection it freed, then the objects it reveals start (under any
//! policy: a controller steers them as it steers any session).

use std::collections::VecDeque;

use super::World;
use crate::app::fetch::{Ask, Policy};
use crate::control::SessionId;
use crate::metrics::{Column, Table};
use crate::net::NodeId;
use crate::time::Time;

/// Each page's objects waiting for a connection, with their server.
pub type Queues = Vec<VecDeque<(SessionId, NodeId)>>;

impl World<'_> {
    /// The default policy for a page's object: the first of `mirrors` its
    /// preferred interface reaches, as for a fetch session, over a
    /// connection of the page's pool.
    pub(super) fn page_connect(&mut self, session: SessionId, mirrors: &[NodeId]) {
        let m = &self.model.fetches[session as usize];
        let Some(&mirror) = mirrors.iter().find(|&&mirror| m.candidates.iter().any(|k| k.mirror == mirror && k.iface == m.prefer)) else {
            let iface = &self.model.nodes[m.client as usize].interfaces[m.prefer as usize];
            self.sessions[session as usize].fetch.error = Some(format!("no mirror of the lookup is reachable over {iface}"));
            return;
        };
        if !self.page_assign(session, mirror) {
            let page = m.page.expect("a page's object") as usize;
            self.page_queues[page].push_back((session, mirror));
        }
    }

    /// Gives `session` a connection of its page to `mirror` over its
    /// preferred interface: an open one no unfinished object is on, else
    /// one not opened yet (at most the per-server limit exist). Whether it
    /// got one.
    fn page_assign(&mut self, session: SessionId, mirror: NodeId) -> bool {
        let m = &self.model.fetches[session as usize];
        let page = &self.model.pages[m.page.expect("a page's object") as usize];
        let opened = |conn: u32| self.flows[conn as usize].fetch.as_ref().expect("a fetch connection").opened_at.is_some();
        let busy = |conn: u32| {
            page.objects.iter().any(|o| {
                let f = &self.sessions[o.session as usize].fetch;
                f.current == Some(conn) && f.finished_at.is_none()
            })
        };
        let mut lanes = page.pool.iter().filter(|k| k.mirror == mirror && k.iface == m.prefer).map(|k| k.flow);
        let idle = lanes.clone().find(|&c| opened(c) && !busy(c));
        let Some(conn) = idle.or_else(|| lanes.find(|&c| !opened(c))) else {
            return false;
        };
        if !opened(conn) {
            self.open_connection(conn);
        }
        self.sessions[session as usize].fetch.steer(conn);
        self.fetch_issue(session);
        true
    }

    /// A page's object arrived in full: under the default policy the
    /// objects waiting take the connection it freed; then the objects it
    /// reveals start.
    pub(super) fn object_done(&mut self, session: SessionId) {
        let m = &self.model.fetches[session as usize];
        let Some(page) = m.page else { return };
        if m.policy == Policy::Default {
            for (s, mirror) in std::mem::take(&mut self.page_queues[page as usize]) {
                if !self.page_assign(s, mirror) {
                    self.page_queues[page as usize].push_back((s, mirror));
                }
            }
        }
        let revealed: Vec<SessionId> =
            self.model.pages[page as usize].objects.iter().map(|o| o.session).filter(|&s| self.model.fetches[s as usize].after == Some(session)).collect();
        for s in revealed {
            self.session_start(s);
        }
    }

    /// The `pages` table (one row per page) and `page_objects` (one row per
    /// object), at the end of the run.
    pub fn page_tables(&self) -> [Table; 2] {
        let node = |n: NodeId| self.model.nodes[n as usize].name.clone();
        let (mut id, mut name, mut client, mut policy, mut objects, mut total) = (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut bytes, mut start, mut load, mut conns, mut resent, mut error) = (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut o_page, mut o_id, mut o_session, mut o_content, mut o_after, mut o_depth) = (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut o_bytes, mut o_ready, mut o_sent, mut o_first, mut o_done) = (vec![], vec![], vec![], vec![], vec![]);
        let (mut o_flow, mut o_mirror, mut o_iface, mut o_reused) = (vec![], vec![], vec![], vec![]);
        for (p, page) in self.model.pages.iter().enumerate() {
            let fetch = |s: u32| &self.sessions[s as usize].fetch;
            let model = |s: u32| &self.model.fetches[s as usize];
            id.push(p as u32);
            name.push(page.name.clone());
            client.push(node(page.client));
            policy.push(model(page.objects[0].session).policy.name().to_string());
            objects.push(page.objects.len() as u64);
            total.push(page.objects.iter().map(|o| model(o.session).bytes).sum::<u64>());
            bytes.push(page.objects.iter().map(|o| fetch(o.session).bytes_done()).sum::<u64>());
            start.push(page.start.secs());
            // Page load time: from the page's start to the last object's last byte (PAT §VIII, Fig. 14).
            let ends: Option<Vec<Time>> = page.objects.iter().map(|o| fetch(o.session).finished_at).collect();
            load.push(ends.and_then(|e| e.into_iter().max()).map(|end| (end - page.start).secs()));
            conns.push(page.pool.iter().filter(|k| self.flows[k.flow as usize].started).count() as u64);
            resent.push(page.objects.iter().map(|o| self.sessions[o.session as usize].resent).sum::<u64>());
            let failed = page
                .objects
                .iter()
                .find_map(|o| fetch(o.session).error.as_ref().map(|e| format!("{}: {e}", self.model.contents[model(o.session).content].name)));
            error.push(failed.unwrap_or_default());
            for (j, o) in page.objects.iter().enumerate() {
                let (m, f) = (model(o.session), fetch(o.session));
                o_page.push(p as u32);
                o_id.push(j as u32);
                o_session.push(o.session);
                o_content.push(self.model.contents[m.content].name.clone());
                o_after.push(o.after.map(|a| self.model.contents[model(page.objects[a].session).content].name.clone()).unwrap_or_default());
                o_depth.push(o.depth);
                o_bytes.push(m.bytes);
                o_ready.push(f.started_at.map(Time::secs));
                // Its one content request (the whole object).
                let (r, i) = match f.requests.iter().enumerate().find(|(_, r)| r.ask != Ask::Probe) {
                    Some((i, r)) => (Some(r), i as u32),
                    None => (None, 0),
                };
                o_sent.push(r.map(|r| r.sent_at.secs()));
                o_first.push(r.and_then(|r| r.first_byte_at).map(Time::secs));
                o_done.push(r.and_then(|r| r.done_at).map(Time::secs));
                o_flow.push(r.map(|r| r.conn as u64));
                let k = r.map(|r| *m.candidates.iter().find(|k| k.flow == r.conn).expect("a candidate of its session"));
                o_mirror.push(k.map(|k| node(k.mirror)).unwrap_or_default());
                o_iface.push(k.map(|k| self.model.nodes[page.client as usize].interfaces[k.iface as usize].clone()).unwrap_or_default());
                // Whether an earlier request (of any object, or a probe) used its connection.
                let c = r.map(|r| self.flows[r.conn as usize].fetch.as_ref().expect("a fetch connection"));
                o_reused.push(c.is_some_and(|c| c.asks.iter().position(|&a| a == (o.session, i)).is_some_and(|at| at > 0)));
            }
        }
        let pages = Table::new("pages")
            .col("page_id", Column::U32(id))
            .col("name", Column::Str(name))
            .col("client", Column::Str(client))
            .col("policy", Column::Str(policy))
            .col("objects", Column::U64(objects))
            .col("content_bytes", Column::U64(total))
            .col("bytes", Column::U64(bytes))
            .col("start_s", Column::F64(start))
            .col("load_s", Column::OptF64(load))
            .col("connections", Column::U64(conns))
            .col("requests_resent", Column::U64(resent))
            .col("error", Column::Str(error));
        let objects = Table::new("page_objects")
            .col("page_id", Column::U32(o_page))
            .col("object", Column::U32(o_id))
            .col("session_id", Column::U32(o_session))
            .col("content", Column::Str(o_content))
            .col("after", Column::Str(o_after))
            .col("depth", Column::U32(o_depth))
            .col("bytes", Column::U64(o_bytes))
            .col("ready_s", Column::OptF64(o_ready))
            .col("sent_s", Column::OptF64(o_sent))
            .col("first_byte_s", Column::OptF64(o_first))
            .col("done_s", Column::OptF64(o_done))
            .col("flow_id", Column::OptU64(o_flow))
            .col("mirror", Column::Str(o_mirror))
            .col("interface", Column::Str(o_iface))
            .col("reused", Column::Bool(o_reused));
        [pages, objects]
    }
}
