//! The flows' own path managers (`mptcp.path_manager`: fullmesh, backup,
//! single_path) as a controller: on every host that opens MPTCP
//! connections, it asks each connection's manager for the subflows it wants
//! when the connection is established and whenever an interface of either
//! end comes (back) up — when Linux's in-kernel manager acts — and opens
//! them. The policies themselves stay in `mptcp::path_manager`.

use super::view::ConnectionView;
use super::{Action, ConnId, Controller, Event, View};
use crate::mptcp::path_manager::{self, Candidates};
use crate::time::Time;

pub struct PathManagers;

impl Controller for PathManagers {
    fn on_event(&mut self, _now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        let conn = match *event {
            Event::ConnectionEstablished { conn } | Event::PathUp { conn, .. } => conn,
            _ => return,
        };
        let Some(c) = view.connection(conn).filter(|c| c.client && c.multipath && c.established && !c.fallback) else { return };
        wanted(conn, c, view, out);
    }
}

fn wanted(conn: ConnId, c: &ConnectionView, view: &View, out: &mut Vec<Action>) {
    let mut reachable = vec![vec![false; c.peer_interfaces.len()]; view.interfaces.len()];
    for &(l, r) in &c.paths {
        reachable[l as usize][r as usize] = true;
    }
    let local_up: Vec<bool> = view.interfaces.iter().map(|i| i.up).collect();
    let open: Vec<(u16, u16)> = c.subflows.iter().filter(|s| s.open).map(|s| (s.local, s.remote)).collect();
    let candidates = Candidates { initial: c.initial, reachable: &reachable, local_up: &local_up, remote_up: &c.peer_up, open: &open };
    for o in path_manager::make(&c.path_manager).wanted(&candidates) {
        out.push(Action::OpenSubflow { conn, local: o.pair.0, remote: o.pair.1, backup: o.backup });
    }
}
