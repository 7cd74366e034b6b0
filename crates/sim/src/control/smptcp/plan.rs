//! From wanted subflows to actions: open what is wanted and missing,
//! re-flag what has the wrong backup flag, and close what is not wanted
//! once a wanted subflow carries the connection (make before break, so a
//! switch of the one path never leaves the connection without a subflow).

use std::collections::BTreeMap;

use crate::control::view::{ConnectionView, View};
use crate::control::Action;
use crate::time::Time;

/// An action whose effect has not shown up in the view (refused, or still
/// under way on the lab) is asked for again after this long.
const RETRY: Time = Time::from_secs(2);

/// The actions asked for and when, so that one is not repeated while the
/// plane carries it out.
#[derive(Debug, Default)]
pub struct Asked {
    opens: BTreeMap<(u16, u16), Time>,
    closes: BTreeMap<u32, Time>,
    flags: BTreeMap<(u32, bool), Time>,
}

fn due<K: Ord>(asked: &mut BTreeMap<K, Time>, key: K, now: Time) -> bool {
    let due = asked.get(&key).is_none_or(|&t| now >= t + RETRY);
    if due {
        asked.insert(key, now);
    }
    due
}

/// One subflow: this host's interface, the peer's, and its backup flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Want {
    pub local: u16,
    pub remote: u16,
    pub backup: bool,
}

/// The subflows a connection should have; the first is its main path.
#[derive(Debug, Clone, PartialEq)]
pub struct Wanted(pub Vec<Want>);

impl Wanted {
    /// This host's interfaces that carry data (not backups).
    pub fn active_interfaces(&self) -> Vec<u16> {
        let mut out: Vec<u16> = self.0.iter().filter(|w| !w.backup).map(|w| w.local).collect();
        out.dedup();
        out
    }

    /// "wlan0, lte0 (backup)" for the log.
    pub fn describe(&self, view: &View, c: &ConnectionView) -> String {
        let names: Vec<String> = self
            .0
            .iter()
            .map(|w| {
                let local = view.interfaces.get(w.local as usize).map_or("?", |i| i.name.as_str());
                let remote = c.peer_interfaces.get(w.remote as usize).map_or("?", |n| n.as_str());
                format!("{local}->{remote}{}", if w.backup { " (backup)" } else { "" })
            })
            .collect();
        names.join(", ")
    }
}

pub fn reconcile(now: Time, c: &ConnectionView, view: &View, wanted: &Wanted, asked: &mut Asked, out: &mut Vec<Action>) {
    for w in &wanted.0 {
        match c.subflow_on(w.local, w.remote) {
            Some(s) => {
                asked.opens.remove(&(w.local, w.remote));
                if s.established && s.backup != w.backup && due(&mut asked.flags, (s.id, w.backup), now) {
                    out.push(Action::SetBackup { conn: c.id, subflow: s.id, backup: w.backup });
                }
            }
            None => {
                let up = view.interfaces.get(w.local as usize).is_some_and(|i| i.up) && c.peer_up.get(w.remote as usize).copied().unwrap_or(false);
                if up && due(&mut asked.opens, (w.local, w.remote), now) {
                    out.push(Action::OpenSubflow { conn: c.id, local: w.local, remote: w.remote, backup: w.backup });
                }
            }
        }
    }
    let carried = wanted.0.iter().any(|w| c.subflow_on(w.local, w.remote).is_some_and(|s| s.established));
    if !carried {
        return;
    }
    for s in c.subflows.iter().filter(|s| s.open) {
        if !wanted.0.iter().any(|w| w.local == s.local && w.remote == s.remote) && due(&mut asked.closes, s.id, now) {
            out.push(Action::CloseSubflow { conn: c.id, subflow: s.id });
        }
    }
}
