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
use crate::app::fetch::Policy;
use crate::control::SessionId;
use crate::metrics::Table;
use crate::net::NodeId;

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

    /// The `pages` and `page_objects` tables, at the end of the run.
    pub fn page_tables(&self) -> [Table; 2] {
        let place = |conn: u32, ask: (SessionId, u32)| self.flows[conn as usize].fetch.as_ref().expect("a fetch connection").asks.iter().position(|&a| a == ask);
        crate::app::page_results::tables(self.model, |s| &self.sessions[s as usize].fetch, |s| self.sessions[s as usize].resent, |flow| self.flows[flow as usize].started, place)
    }
}
