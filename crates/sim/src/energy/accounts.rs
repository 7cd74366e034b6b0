//! The accounts of a run's energy models (`crate::energy`), for both
//! planes: each radio and each linear model is told the wire bytes its
//! interface sends and receives, by link direction, sampled into
//! `radio_ts`, and reported in the `energy` table and the summary.
//!
//! The simulator feeds it every packet (a transmission when it starts, so
//! random losses count; a reception when it arrives). The kernel lab feeds
//! it, at every sample, what the link emulator's counters of the host's
//! interfaces moved since the last one: the same models, with byte times
//! known to a sampling period (docs/energy.md).
//!
//! The radios only account energy: a packet is not delayed by a radio's
//! promotion (docs/energy.md says what that changes).

use super::linear::{LinearModel, Reading};
use super::{self as energy, PowerModel};
use crate::metrics::{Column, Table};
use crate::net::interfaces::Interfaces;
use crate::net::{LinkId, NodeId};
use crate::scenario::Model;
use crate::time::Time;

struct Radio {
    node: NodeId,
    iface: u16,
    technology: String,
    model: Box<dyn PowerModel>,
    bytes_up: u64,
    bytes_down: u64,
}

struct Linear {
    node: NodeId,
    model: LinearModel,
}

/// What listens on a link direction: a radio, a host's linear model (with
/// the interface), a data limit.
#[derive(Clone, Copy, Default)]
struct Tap {
    radio: Option<u32>,
    linear: Option<(u32, u16)>,
    limit: Option<u32>,
}

/// An interface's data limit: wire bytes both ways so far, and the limit.
struct Limit {
    node: NodeId,
    iface: u16,
    used: u64,
    limit: u64,
}

#[derive(Default)]
pub struct Accounts {
    radios: Vec<Radio>,
    linear: Vec<Linear>,
    /// By link direction: the tap of the interface it leaves / enters (empty without models).
    up: Vec<Tap>,
    down: Vec<Tap>,
    limits: Vec<Limit>,
    /// Limits crossed by the last packet, for the world to announce.
    crossed: Vec<(NodeId, u16, u64)>,
    ts: Ts,
}

#[derive(Default)]
struct Ts {
    time: Vec<f64>,
    node: Vec<String>,
    iface: Vec<String>,
    state: Vec<String>,
    power: Vec<f64>,
    energy: Vec<f64>,
}

impl Accounts {
    pub fn new(model: &Model, ifaces: &Interfaces, links: usize) -> Accounts {
        let mut e = Accounts::default();
        if model.devices.is_empty() {
            return e;
        }
        e.up = vec![Tap::default(); links];
        e.down = vec![Tap::default(); links];
        for d in &model.devices {
            for (iface, technology, params) in &d.radios {
                let i = ifaces.get(d.host, *iface);
                let id = e.radios.len() as u32;
                e.up[i.out as usize].radio = Some(id);
                e.down[i.inbound as usize].radio = Some(id);
                let model = energy::build(technology, params).expect("radios are validated");
                e.radios.push(Radio { node: d.host, iface: *iface, technology: technology.clone(), model, bytes_up: 0, bytes_down: 0 });
            }
            for &(iface, limit) in &d.data_limits {
                let i = ifaces.get(d.host, iface);
                let id = e.limits.len() as u32;
                e.up[i.out as usize].limit = Some(id);
                e.down[i.inbound as usize].limit = Some(id);
                e.limits.push(Limit { node: d.host, iface, used: 0, limit });
            }
            if let Some((params, w)) = &d.linear {
                let id = e.linear.len() as u32;
                for (k, i) in ifaces.of(d.host).iter().enumerate() {
                    e.up[i.out as usize].linear = Some((id, k as u16));
                    e.down[i.inbound as usize].linear = Some((id, k as u16));
                }
                e.linear.push(Linear { node: d.host, model: LinearModel::new(*params, w.clone()) });
            }
        }
        e
    }

    /// A packet of `bytes` starts leaving over link direction `l`; true if
    /// it crossed a data limit (`take_crossed`).
    #[inline]
    pub fn on_tx(&mut self, l: LinkId, now: Time, bytes: u32) -> bool {
        match self.up.get(l as usize) {
            Some(&tap) => self.feed(tap, now, bytes as u64, 0),
            None => false,
        }
    }

    /// A packet of `bytes` arrives over link direction `l`; true if it crossed a data limit.
    #[inline]
    pub fn on_rx(&mut self, l: LinkId, now: Time, bytes: u32) -> bool {
        match self.down.get(l as usize) {
            Some(&tap) => self.feed(tap, now, 0, bytes as u64),
            None => false,
        }
    }

    pub fn take_crossed(&mut self) -> Vec<(NodeId, u16, u64)> {
        std::mem::take(&mut self.crossed)
    }

    fn feed(&mut self, tap: Tap, now: Time, up: u64, down: u64) -> bool {
        if let Some(k) = tap.limit {
            let l = &mut self.limits[k as usize];
            let before = l.used;
            l.used += up + down;
            if before < l.limit && l.used >= l.limit {
                self.crossed.push((l.node, l.iface, l.limit));
            }
        }
        if let Some(r) = tap.radio {
            let r = &mut self.radios[r as usize];
            r.model.on_traffic(now, up, down);
            r.bytes_up += up;
            r.bytes_down += down;
        }
        if let Some((m, k)) = tap.linear {
            self.linear[m as usize].model.on_traffic(k as usize, now, up, down);
        }
        !self.crossed.is_empty()
    }

    /// One `radio_ts` row per radio at `now`.
    pub fn sample(&mut self, now: Time, model: &Model) {
        for r in &mut self.radios {
            r.model.advance(now);
            let node = &model.nodes[r.node as usize];
            self.ts.time.push(now.secs());
            self.ts.node.push(node.name.clone());
            self.ts.iface.push(node.interfaces[r.iface as usize].clone());
            self.ts.state.push(r.model.state().name().to_string());
            self.ts.power.push(r.model.power_w());
            self.ts.energy.push(r.model.energy_j());
        }
    }

    /// Closes the accounts at the end of the run: `delivered(host)` is the
    /// application data the host's connections carried (the linear model's
    /// stream, v_D). Returns the `energy` and `radio_ts` tables and the
    /// summary's `energy` object (per host: joules, and joules per
    /// delivered megabyte).
    pub fn finish(mut self, end: Time, model: &Model, delivered: impl Fn(NodeId) -> u64) -> (Table, Table, serde_json::Value) {
        let (mut node, mut iface, mut kind, mut joules, mut up, mut down) = (vec![], vec![], vec![], vec![], vec![], vec![]);
        let mut per_host: std::collections::BTreeMap<String, f64> = Default::default();
        let name = |n: NodeId| model.nodes[n as usize].name.clone();
        for r in &mut self.radios {
            r.model.advance(end);
            node.push(name(r.node));
            iface.push(model.nodes[r.node as usize].interfaces[r.iface as usize].clone());
            kind.push(r.technology.clone());
            joules.push(r.model.energy_j());
            up.push(Some(r.bytes_up));
            down.push(Some(r.bytes_down));
            *per_host.entry(name(r.node)).or_default() += r.model.energy_j();
        }
        for l in &mut self.linear {
            l.model.on_stream(delivered(l.node));
            let label = match l.model.reading() {
                Reading::Data => "linear:data",
                Reading::Time => "linear:time",
            };
            for (k, ifname) in model.nodes[l.node as usize].interfaces.iter().enumerate() {
                node.push(name(l.node));
                iface.push(ifname.clone());
                kind.push(label.to_string());
                joules.push(l.model.interface_energy_j(k));
                up.push(None);
                down.push(None);
            }
            node.push(name(l.node));
            iface.push("device".to_string());
            kind.push(label.to_string());
            joules.push(l.model.device_energy_j());
            up.push(None);
            down.push(None);
            *per_host.entry(format!("{}:{label}", name(l.node))).or_default() += l.model.energy_j();
        }
        let summary: serde_json::Map<String, serde_json::Value> = per_host
            .into_iter()
            .map(|(key, j)| {
                let host = key.split(':').next().unwrap_or(&key);
                let id = model.nodes.iter().position(|n| n.name == host).expect("a host") as NodeId;
                let mb = delivered(id) as f64 / 1e6;
                (key, serde_json::json!({ "joules": j, "joules_per_mb": if mb > 0.0 { Some(j / mb) } else { None } }))
            })
            .collect();
        let table = Table::new("energy")
            .col("node", Column::Str(node))
            .col("interface", Column::Str(iface))
            .col("model", Column::Str(kind))
            .col("energy_j", Column::F64(joules))
            .col("bytes_up", Column::OptU64(up))
            .col("bytes_down", Column::OptU64(down));
        let ts = self.ts;
        let radio_ts = Table::new("radio_ts")
            .col("time_s", Column::F64(ts.time))
            .col("node", Column::Str(ts.node))
            .col("interface", Column::Str(ts.iface))
            .col("state", Column::Str(ts.state))
            .col("power_w", Column::F64(ts.power))
            .col("energy_j", Column::F64(ts.energy));
        (table, radio_ts, serde_json::Value::Object(summary))
    }
}
