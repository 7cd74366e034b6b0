//! A host's device hints on the lab (`[[devices]]`): the scenario's
//! schedules (battery, temperature, screen, signal, radio technology)
//! replayed at their model times, and data limits checked against the
//! emulator's counters of the host's interfaces (wire bytes both ways, the
//! bytes the simulator counts) — what the simulator's world tells a host,
//! with the same latest values in the view (`LatestHints`).

use pathpool_sim::control::view::LatestHints;
use pathpool_sim::control::{Event, Hint};
use pathpool_sim::net::NodeId;
use pathpool_sim::{Model, Time};

use super::links::interface_links;
use super::Host;

pub struct Hints {
    /// (time, hint), in time order.
    schedule: Vec<(Time, Hint)>,
    next: usize,
    /// (interface, limit, raised).
    limits: Vec<(u16, u64, bool)>,
    pub latest: LatestHints,
}

impl Hints {
    pub fn new(model: &Model, host: NodeId) -> Hints {
        let device = model.devices.iter().find(|d| d.host == host);
        Hints {
            schedule: device.map(|d| d.hints.clone()).unwrap_or_default(),
            next: 0,
            limits: device.map(|d| d.data_limits.iter().map(|&(i, b)| (i, b, false)).collect()).unwrap_or_default(),
            latest: LatestHints::default(),
        }
    }

    /// When the next scheduled hint is due.
    pub fn next(&self) -> Option<Time> {
        self.schedule.get(self.next).map(|h| h.0)
    }
}

impl Host<'_> {
    /// Tells the scheduled hints due by `now`, each at its model time.
    pub(super) fn hints_due(&mut self, now: Time) {
        while let Some((at, hint)) = self.hints.schedule.get(self.hints.next).filter(|h| h.0 <= now).cloned() {
            self.hints.next += 1;
            self.hints.latest.note(&hint);
            self.tell_at(at, &Event::Hint(hint));
        }
    }

    /// Raises the data limits the host's interfaces crossed.
    pub(super) fn data_limits(&mut self) {
        if self.hints.limits.iter().all(|l| l.2) {
            return;
        }
        let model = self.s.model;
        let stats = self.s.emulator.stats();
        let links = interface_links(model, self.id);
        for k in 0..self.hints.limits.len() {
            let (iface, limit, raised) = self.hints.limits[k];
            let l = links[iface as usize];
            let used = stats[2 * l].bytes + stats[2 * l + 1].bytes;
            if !raised && used >= limit {
                self.hints.limits[k].2 = true;
                let hint = Hint::DataLimit { iface, bytes: limit };
                self.hints.latest.note(&hint);
                self.pending.push_back(Event::Hint(hint));
            }
        }
    }
}
