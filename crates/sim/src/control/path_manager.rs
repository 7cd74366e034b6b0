//! The flows' own path managers (`mptcp.path_manager`: fullmesh, backup,
//! single_path, green) as a controller: on every host that opens MPTCP
//! connections, it asks each connection's manager for the subflows it wants
//! when the connection is established and whenever an interface of either
//! end comes (back) up — when Linux's in-kernel manager acts — and opens
//! them. A manager that waits for the connection to carry some bytes first
//! (Green MPTCP's Rule 1) is asked again when it has, through a byte watch.
//! The policies themselves stay in `mptcp::path_manager`.

use std::collections::{BTreeMap, BTreeSet};

use super::view::ConnectionView;
use super::{Action, ConnId, Controller, Event, View};
use crate::mptcp::path_manager::{Candidates, PathManager};
use crate::time::Time;

pub struct PathManagers {
    /// The manager of each connection this host opens.
    managers: BTreeMap<ConnId, Box<dyn PathManager>>,
    /// Connections with a byte watch armed.
    watched: BTreeSet<ConnId>,
}

impl PathManagers {
    pub fn new(managers: BTreeMap<ConnId, Box<dyn PathManager>>) -> PathManagers {
        PathManagers { managers, watched: BTreeSet::new() }
    }
}

impl Controller for PathManagers {
    fn on_event(&mut self, _now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        let conn = match *event {
            Event::ConnectionEstablished { conn } | Event::PathUp { conn, .. } | Event::BytesCarried { conn, .. } => conn,
            _ => return,
        };
        let Some(c) = view.connection(conn).filter(|c| c.client && c.multipath && c.established && !c.fallback) else { return };
        let Some(pm) = self.managers.get_mut(&conn) else { return };
        let carried = carried(c);
        if let Some(bytes) = pm.wait_for_bytes().filter(|&b| carried < b) {
            if self.watched.insert(conn) {
                out.push(Action::WatchBytes { conn, bytes });
            }
        }
        wanted(pm.as_mut(), conn, c, carried, view, out);
    }
}

/// Bytes `c` has carried both ways: acknowledged bytes sent plus bytes received.
fn carried(c: &ConnectionView) -> u64 {
    c.bytes_sent.unwrap_or(0) + c.bytes_received
}

fn wanted(pm: &mut dyn PathManager, conn: ConnId, c: &ConnectionView, carried: u64, view: &View, out: &mut Vec<Action>) {
    let mut reachable = vec![vec![false; c.peer_interfaces.len()]; view.interfaces.len()];
    for &(l, r) in &c.paths {
        reachable[l as usize][r as usize] = true;
    }
    let local_up: Vec<bool> = view.interfaces.iter().map(|i| i.up).collect();
    let open: Vec<(u16, u16)> = c.subflows.iter().filter(|s| s.open).map(|s| (s.local, s.remote)).collect();
    let candidates = Candidates { initial: c.initial, reachable: &reachable, local_up: &local_up, remote_up: &c.peer_up, open: &open, carried };
    for o in pm.wanted(&candidates) {
        out.push(Action::OpenSubflow { conn, local: o.pair.0, remote: o.pair.1, backup: o.backup });
    }
}
