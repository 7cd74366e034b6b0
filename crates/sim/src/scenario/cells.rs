//! `[[cells]]`, `[[mobility]]` and the links whose directions say
//! `capacity = { cell = ... }`: checked and resolved into the cell model's
//! parameters (`net::cell`), every problem under its field.

use std::collections::HashMap;

use super::build::suggest;
use super::error::Problems;
use super::model::{LinkModel, NodeModel};
use super::spec::{CellSpec, LinkSpec, MobilitySpec, NodeKind, Scenario};
use crate::net::capacity::Capacity;
use crate::net::cell::channel::{Radio, Shadowing};
use crate::net::cell::mobility::{distance, Leg, Path};
use crate::net::cell::{attach, scheduler, start_rate_bps, tbs, CellParams, UeParams};
use crate::net::NodeId;
use crate::time::Time;

/// Defaults (docs/cell.md gives each one's source).
pub const TTI: Time = Time::from_millis(10);
pub const PRBS: u32 = 25;
pub const TX_POWER_DBM: f64 = 43.0;
pub const UE_POWER_DBM: f64 = 23.0;
pub const ANTENNA_GAIN_DB: f64 = 15.0;
pub const UE_NOISE_FIGURE_DB: f64 = 9.0;
pub const BS_NOISE_FIGURE_DB: f64 = 5.0;
pub const PATH_LOSS_1KM_DB: f64 = 128.1;
pub const PATH_LOSS_SLOPE_DB: f64 = 37.6;
pub const DECORRELATION_M: f64 = 50.0;
pub const BLER: f64 = 0.1;
pub const HARQ_RTT: Time = Time::from_millis(8);
pub const HARQ_MAX_RETX: u32 = 3;
pub const PF_WINDOW_TTIS: f64 = 100.0;
pub const REPORT_INTERVAL: Time = Time::from_secs(1);

#[allow(clippy::too_many_arguments)]
pub fn resolve(
    sc: &Scenario,
    link_specs: &[LinkSpec],
    link_field: &dyn Fn(usize) -> String,
    links: &mut [LinkModel],
    nodes: &[NodeModel],
    by_name: &HashMap<String, NodeId>,
    duration: Time,
    p: &mut Problems,
) -> (Vec<CellParams>, Vec<UeParams>) {
    let mut cells = Vec::new();
    let mut cell_index: HashMap<String, usize> = HashMap::new();
    for (i, c) in sc.cells.iter().enumerate() {
        let field = format!("cells[{i}]");
        if cell_index.insert(c.name.clone(), i).is_some() {
            p.add(format!("{field}.name"), format!("duplicate cell name '{}'", c.name));
        }
        if let Some(params) = cell(c, &field, p) {
            cells.push(params);
        }
    }
    let cells_ok = cells.len() == sc.cells.len();
    let mut paths: HashMap<NodeId, (usize, Path)> = HashMap::new();
    for (i, m) in sc.mobility.iter().enumerate() {
        let field = format!("mobility[{i}]");
        let Some(&host) = by_name.get(&m.host) else {
            p.add(format!("{field}.host"), format!("unknown node '{}'{}", m.host, suggest(&m.host, by_name.keys())));
            continue;
        };
        if nodes[host as usize].kind == NodeKind::Router {
            p.add(format!("{field}.host"), format!("'{}' is a router; UEs are hosts", m.host));
            continue;
        }
        if paths.contains_key(&host) {
            p.add(format!("{field}.host"), format!("'{}' has another [[mobility]] entry; give each host one", m.host));
            continue;
        }
        if let Some(path) = path(m, &field, duration, p) {
            paths.insert(host, (i, path));
        }
    }

    let known: Vec<String> = sc.cells.iter().map(|c| c.name.clone()).collect();
    let mut ues = Vec::new();
    // Links built so far line up with their specs only when none was refused.
    if links.len() != link_specs.len() {
        return (cells, ues);
    }
    for (i, l) in links.iter_mut().enumerate() {
        let spec = &link_specs[i];
        let field = link_field(i);
        let share = |d: usize| match &l.dirs[d].capacity {
            Capacity::Cell(c) => Some(c.cells.clone()),
            _ => None,
        };
        let (ab, ba) = (share(0), share(1));
        if ab.is_none() && ba.is_none() {
            continue;
        }
        let at = |dir: &str, own: bool| if own { format!("{field}.{dir}.capacity.cell") } else { format!("{field}.capacity.cell") };
        let cell_field = if ab.is_some() { at("a_to_b", spec.a_to_b.capacity.is_some()) } else { at("b_to_a", spec.b_to_a.capacity.is_some()) };
        if let (Some(x), Some(y)) = (&ab, &ba) {
            if x != y {
                p.add(cell_field.clone(), "both directions of a UE link attach to the same cells: give them the same list");
                continue;
            }
        }
        let names = ab.clone().or(ba.clone()).expect("one direction");
        let mut idx = Vec::new();
        for n in &names {
            match cell_index.get(n) {
                Some(&c) => idx.push(c),
                None if known.is_empty() => p.add(cell_field.clone(), format!("unknown cell '{n}': the scenario has no [[cells]]")),
                None => p.add(cell_field.clone(), format!("unknown cell '{n}' (cells: {})", known.join(", "))),
            }
        }
        let ends = [(l.a, &l.a_interface), (l.b, &l.b_interface)];
        let moving: Vec<usize> = (0..2).filter(|&s| paths.contains_key(&ends[s].0)).collect();
        let ue_side = match moving.as_slice() {
            [s] => *s,
            [] => {
                p.add(cell_field.clone(), format!(
                    "neither '{}' nor '{}' has a [[mobility]] entry: the UE end needs a position",
                    nodes[l.a as usize].name, nodes[l.b as usize].name
                ));
                continue;
            }
            _ => {
                p.add(cell_field.clone(), "both ends have a [[mobility]] entry: only the UE end may");
                continue;
            }
        };
        if idx.len() != names.len() || !cells_ok {
            continue;
        }
        let (host, iface_name) = ends[ue_side];
        let (m, path) = paths[&host].clone();
        let start = path.position(Time::ZERO);
        if attach::covering(&cells, &idx, start).is_none() {
            let far: Vec<String> = idx
                .iter()
                .map(|&c| format!("{}: {:.0} m from its centre, radius {} m", cells[c].name, distance(start, cells[c].position), cells[c].radius_m))
                .collect();
            p.add(format!("mobility[{m}].position"), format!(
                "'{}' starts at ({}, {}), outside every cell link '{}' may attach to ({})",
                nodes[host as usize].name, start.0, start.1, l.name, far.join("; ")
            ));
            continue;
        }
        let iface = nodes[host as usize].interfaces.iter().position(|n| n == iface_name).expect("its interface") as u16;
        let from_ue = ue_side; // direction index leaving the UE
        let ue = UeParams {
            link: i as u32,
            ue_side,
            host,
            iface,
            cells: idx,
            path,
            down: share(1 - from_ue).is_some(),
            up: share(from_ue).is_some(),
        };
        for (d, uplink) in [(from_ue, true), (1 - from_ue, false)] {
            if let Capacity::Cell(c) = &mut l.dirs[d].capacity {
                c.nominal_bps = start_rate_bps(&cells, &ue, uplink);
                l.dirs[d].rate_bps = c.nominal_bps;
            }
        }
        ues.push(ue);
    }
    (cells, ues)
}

fn finite(v: f64, field: String, p: &mut Problems) -> f64 {
    if !v.is_finite() {
        p.add(field, format!("must be a finite number, got {v}"));
    }
    v
}

fn cell(c: &CellSpec, field: &str, p: &mut Problems) -> Option<CellParams> {
    let before = p.list.len();
    let f = |k: &str| format!("{field}.{k}");
    finite(c.position.0, f("position"), p);
    finite(c.position.1, f("position"), p);
    if !(c.radius.is_finite() && c.radius > 0.0) {
        p.add(f("radius"), format!("must be a positive number of metres, got {}", c.radius));
    }
    let tti = c.tti.map_or(TTI, |d| d.0);
    if tti == Time::ZERO {
        p.add(f("tti"), "must be positive");
    }
    let pf_window = c.pf_window.unwrap_or(PF_WINDOW_TTIS);
    if !(pf_window.is_finite() && pf_window >= 1.0) {
        p.add(f("pf_window"), format!("must be at least 1 TTI, got {pf_window}"));
    }
    let kind = match c.scheduler.as_deref().unwrap_or("round_robin") {
        "round_robin" => Some(scheduler::Kind::RoundRobin),
        "proportional_fair" => Some(scheduler::Kind::ProportionalFair { window: pf_window }),
        other => {
            p.add(f("scheduler"), format!("unknown scheduler '{other}' (known: {})", scheduler::NAMES.join(", ")));
            None
        }
    };
    let prbs = c.prbs.unwrap_or(PRBS);
    if !tbs::PRBS.contains(&prbs) {
        p.add(f("prbs"), format!("must be one of the LTE bandwidths {:?} PRBs, got {prbs}", tbs::PRBS));
    }
    let num = |v: Option<f64>, default: f64, k: &str, p: &mut Problems| finite(v.unwrap_or(default), f(k), p);
    let radio = Radio {
        tx_power_dbm: num(c.tx_power, TX_POWER_DBM, "tx_power", p),
        ue_power_dbm: num(c.ue_power, UE_POWER_DBM, "ue_power", p),
        antenna_gain_db: num(c.antenna_gain, ANTENNA_GAIN_DB, "antenna_gain", p),
        ue_noise_figure_db: num(c.ue_noise_figure, UE_NOISE_FIGURE_DB, "ue_noise_figure", p),
        bs_noise_figure_db: num(c.noise_figure, BS_NOISE_FIGURE_DB, "noise_figure", p),
        path_loss_1km_db: num(c.path_loss_1km, PATH_LOSS_1KM_DB, "path_loss_1km", p),
        path_loss_slope_db: num(c.path_loss_slope, PATH_LOSS_SLOPE_DB, "path_loss_slope", p),
        prbs,
    };
    let sigma = c.shadowing.unwrap_or(0.0);
    if !(sigma.is_finite() && sigma >= 0.0) {
        p.add(f("shadowing"), format!("must be a standard deviation ≥ 0 dB, got {sigma}"));
    }
    let decorrelation = c.decorrelation.unwrap_or(DECORRELATION_M);
    if !(decorrelation.is_finite() && decorrelation > 0.0) {
        p.add(f("decorrelation"), format!("must be a positive number of metres, got {decorrelation}"));
    }
    for (k, v) in [("bler", c.bler), ("residual_loss", c.residual_loss)] {
        if let Some(v) = v {
            if !(0.0..=1.0).contains(&v) {
                p.add(f(k), format!("must be a probability in [0, 1], got {v}"));
            }
        }
    }
    let harq_max_retx = c.harq_max_retx.unwrap_or(HARQ_MAX_RETX);
    if harq_max_retx > 32 {
        p.add(f("harq_max_retx"), format!("must be at most 32, got {harq_max_retx}"));
    }
    let report_interval = c.report_interval.map_or(REPORT_INTERVAL, |d| d.0);
    if report_interval == Time::ZERO {
        p.add(f("report_interval"), "must be positive");
    }
    if c.tbs_bits == Some(0) {
        p.add(f("tbs_bits"), "must be positive");
    }
    if p.list.len() != before {
        return None;
    }
    Some(CellParams {
        name: c.name.clone(),
        position: c.position,
        radius_m: c.radius,
        tti,
        scheduler: kind?,
        radio,
        shadowing: Shadowing { sigma_db: sigma, decorrelation_m: decorrelation },
        bler: c.bler.unwrap_or(BLER),
        harq_rtt: c.harq_rtt.map_or(HARQ_RTT, |d| d.0),
        harq_max_retx,
        residual_loss: c.residual_loss.unwrap_or(0.0),
        handover_interruption: c.handover_interruption.map_or(Time::ZERO, |d| d.0),
        report_interval,
        tbs_bits: c.tbs_bits,
    })
}

fn speed(v: f64, field: String, p: &mut Problems) -> f64 {
    if !(v.is_finite() && v >= 0.0) {
        p.add(field, format!("must be a speed ≥ 0 m/s, got {v}"));
    }
    v
}

fn path(m: &MobilitySpec, field: &str, duration: Time, p: &mut Problems) -> Option<Path> {
    let before = p.list.len();
    finite(m.position.0, format!("{field}.position"), p);
    finite(m.position.1, format!("{field}.position"), p);
    let mut leg = Leg {
        at: Time::ZERO,
        speed: speed(m.speed.unwrap_or(0.0), format!("{field}.speed"), p),
        heading_deg: finite(m.heading.unwrap_or(0.0), format!("{field}.heading"), p),
    };
    let mut legs = vec![leg];
    for (i, c) in m.changes.iter().enumerate() {
        let at = format!("{field}.changes[{i}]");
        if c.at.0 <= leg.at && i > 0 || c.at.0 == Time::ZERO {
            p.add(format!("{at}.at"), "change times must be positive and increase");
        }
        if c.at.0 >= duration {
            p.add(format!("{at}.at"), format!("{} is not before the end of the run ({duration})", c.at.0));
        }
        leg = Leg {
            at: c.at.0,
            speed: c.speed.map_or(leg.speed, |v| speed(v, format!("{at}.speed"), p)),
            heading_deg: c.heading.map_or(leg.heading_deg, |v| finite(v, format!("{at}.heading"), p)),
        };
        legs.push(leg);
    }
    (p.list.len() == before).then(|| Path::new(m.position, legs))
}
