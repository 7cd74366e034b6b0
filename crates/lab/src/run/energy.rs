//! The energy models on the kernel lab: the simulator's accounts
//! (`pathpool_sim::energy::accounts`), fed at every sample with what the
//! link emulator's counters of each link direction moved since the last
//! sample — the host's own interface counters, as a device would read
//! them. A byte's time is known to the sampling period: the time reading of
//! Green MPTCP's linear model and the radios' state machines are as exact
//! as `sim.sample_interval` (docs/energy.md).

use pathpool_sim::energy::accounts::Accounts;
use pathpool_sim::metrics::Table;
use pathpool_sim::scenario::model::interfaces_of;
use pathpool_sim::{Model, Time};

use crate::emulator::stats::DirectionStats;

pub struct LabEnergy {
    accounts: Accounts,
    /// Each link direction's byte counter at the last sample.
    last: Vec<u64>,
}

impl LabEnergy {
    /// None when no host has an energy model.
    pub fn new(model: &Model) -> Option<LabEnergy> {
        if !model.devices.iter().any(|d| !d.radios.is_empty() || d.linear.is_some()) {
            return None;
        }
        let directions = 2 * model.links.len();
        let ifaces = interfaces_of(&model.nodes, &model.links);
        Some(LabEnergy { accounts: Accounts::new(model, &ifaces, directions), last: vec![0; directions] })
    }

    /// The counters at `t`: each direction's new bytes left its sending
    /// interface and reached its receiving one within the last period.
    pub fn sample(&mut self, t: Time, stats: &[DirectionStats], model: &Model) {
        for (id, d) in stats.iter().enumerate() {
            let moved = d.bytes.saturating_sub(self.last[id]);
            self.last[id] = d.bytes;
            if moved > 0 {
                // Data limits are the controllers' (`run/control`), not the accounts'.
                let bytes = u32::try_from(moved).unwrap_or(u32::MAX);
                self.accounts.on_tx(id as u32, t, bytes);
                self.accounts.on_rx(id as u32, t, bytes);
            }
        }
        self.accounts.take_crossed();
        self.accounts.sample(t, model);
    }

    /// The `energy` and `radio_ts` tables and the summary's `energy` object,
    /// with each host's delivered bytes from its flows' `delivered`.
    pub fn finish(self, end: Time, model: &Model, delivered: &[u64]) -> (Table, Table, serde_json::Value) {
        let per_host = |host: u32| -> u64 {
            model.flows.iter().zip(delivered).filter(|(f, _)| f.src == host || f.dst == host).map(|(_, &b)| b).sum()
        };
        self.accounts.finish(end, model, per_host)
    }
}
