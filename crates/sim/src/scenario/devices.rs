//! `[[devices]]`: a host's radios (a power model per interface) and Green
//! MPTCP's linear model, each checked by building it, with every problem
//! reported under `devices[i]`.

use std::collections::HashMap;

use super::build::suggest;
use super::error::Problems;
use super::model::{DeviceModel, NodeModel};
use super::spec::{DeviceSpec, LinearSpec, NodeKind};
use crate::cc::{ParamTable, ParamValue};
use crate::control::Hint;
use crate::energy::{self, linear::LinearParams};
use crate::net::NodeId;
use crate::time::Time;
use crate::units::Duration;

pub fn resolve(specs: &[DeviceSpec], nodes: &[NodeModel], by_name: &HashMap<String, NodeId>, duration: Time, p: &mut Problems) -> Vec<DeviceModel> {
    let mut out: Vec<DeviceModel> = Vec::new();
    for (i, d) in specs.iter().enumerate() {
        let field = format!("devices[{i}]");
        let Some(&host) = by_name.get(&d.host) else {
            p.add(format!("{field}.host"), format!("unknown node '{}'{}", d.host, suggest(&d.host, by_name.keys())));
            continue;
        };
        let node = &nodes[host as usize];
        if node.kind == NodeKind::Router {
            p.add(format!("{field}.host"), format!("'{}' is a router; devices are hosts", d.host));
            continue;
        }
        if out.iter().any(|m| m.host == host) {
            p.add(format!("{field}.host"), format!("'{}' has another [[devices]] entry; give each host one", d.host));
            continue;
        }
        let iface = |name: &str, at: String, p: &mut Problems| match node.interfaces.iter().position(|i| i == name) {
            Some(k) => Some(k as u16),
            None => {
                p.add(at, format!("'{name}' is not an interface of {} (it has: {})", node.name, node.interfaces.join(", ")));
                None
            }
        };
        let mut radios = Vec::new();
        for (name, r) in &d.radios {
            let at = format!("{field}.radios.{name}");
            let Some(k) = iface(name, at.clone(), p) else { continue };
            match energy::build(&r.technology, &r.params) {
                Ok(_) => radios.push((k, r.technology.clone(), r.params.clone())),
                Err(problems) => {
                    for (key, message) in problems {
                        let key = if key == "technology" { key } else { format!("params.{key}") };
                        p.add(format!("{at}.{key}"), message);
                    }
                }
            }
        }
        let linear = d.linear.as_ref().and_then(|l| linear(l, node, &format!("{field}.linear"), &iface, p));
        let (hints, data_limits) = hints(d, &field, duration, &iface, p);
        let given = !d.radios.is_empty() || d.linear.is_some() || d.battery.is_some() || d.temperature.is_some() || d.screen.is_some();
        if !given && d.signal.is_empty() && d.rat.is_empty() && d.bandwidth.is_empty() && d.data_limit.is_empty() {
            p.add(field.clone(), "names no radio, energy model, hint or data limit");
        }
        out.push(DeviceModel { host, radios, linear, hints, data_limits });
    }
    out
}

fn linear(
    l: &LinearSpec,
    node: &NodeModel,
    field: &str,
    iface: &dyn Fn(&str, String, &mut Problems) -> Option<u16>,
    p: &mut Problems,
) -> Option<(LinearParams, Vec<f64>)> {
    let mut table = ParamTable::new();
    if let Some(r) = &l.reading {
        table.insert("reading".into(), ParamValue::Text(r.clone()));
    }
    if let Some(w) = l.w_device {
        table.insert("w_device".into(), ParamValue::Number(w));
    }
    let params = LinearParams::read(&table).map_err(|problems| {
        for (key, message) in problems {
            p.add(format!("{field}.{key}"), message);
        }
    });
    let mut w = vec![f64::NAN; node.interfaces.len()];
    for (name, &weight) in &l.w {
        let at = format!("{field}.w.{name}");
        let Some(k) = iface(name, at.clone(), p) else { continue };
        if weight.is_finite() && weight >= 0.0 {
            w[k as usize] = weight;
        } else {
            p.add(at, format!("must be 0 or more, got {weight}"));
        }
    }
    let missing: Vec<&str> = node.interfaces.iter().zip(&w).filter(|(name, x)| x.is_nan() && !l.w.contains_key(*name)).map(|(n, _)| n.as_str()).collect();
    if !missing.is_empty() {
        let why = "Green MPTCP gives only ratios, no value to default to";
        p.add(format!("{field}.w"), format!("needs a weight for every interface of {}; missing: {} ({why})", node.name, missing.join(", ")));
    }
    let params = params.ok()?;
    w.iter().all(|x| x.is_finite()).then_some((params, w))
}

/// Hints in time order.
type Schedule = Vec<(Time, Hint)>;

/// The hints of `d` in time order, and its data limits, by interface index.
fn hints(
    d: &DeviceSpec,
    field: &str,
    duration: Time,
    iface: &dyn Fn(&str, String, &mut Problems) -> Option<u16>,
    p: &mut Problems,
) -> (Schedule, Vec<(u16, u64)>) {
    let mut out: Schedule = Vec::new();
    let mut schedule = |steps: &[(Duration, Hint)], at: String, p: &mut Problems| {
        for (i, (t, hint)) in steps.iter().enumerate() {
            if t.0 > duration {
                p.add(format!("{at}[{i}]"), format!("{} is after the end of the run ({duration})", t.0));
            } else if i > 0 && t.0 <= steps[i - 1].0 .0 {
                p.add(format!("{at}[{i}]"), "step times must increase");
            } else {
                out.push((t.0, hint.clone()));
            }
        }
    };
    let in_range = |v: f64, lo: f64, hi: f64, at: String, p: &mut Problems| {
        if !(v.is_finite() && (lo..=hi).contains(&v)) {
            p.add(at, format!("must be between {lo} and {hi}, got {v}"));
        }
    };
    if let Some(b) = &d.battery {
        b.iter().enumerate().for_each(|(i, &(_, pct))| in_range(pct, 0.0, 100.0, format!("{field}.battery[{i}]"), p));
        schedule(&b.iter().map(|&(t, pct)| (t, Hint::Battery { pct })).collect::<Vec<_>>(), format!("{field}.battery"), p);
    }
    if let Some(c) = &d.temperature {
        c.iter().enumerate().for_each(|(i, &(_, v))| in_range(v, -50.0, 150.0, format!("{field}.temperature[{i}]"), p));
        schedule(&c.iter().map(|&(t, celsius)| (t, Hint::Temperature { celsius })).collect::<Vec<_>>(), format!("{field}.temperature"), p);
    }
    if let Some(s) = &d.screen {
        schedule(&s.iter().map(|&(t, on)| (t, Hint::Screen { on })).collect::<Vec<_>>(), format!("{field}.screen"), p);
    }
    for (name, steps) in &d.signal {
        let at = format!("{field}.signal.{name}");
        let Some(k) = iface(name, at.clone(), p) else { continue };
        steps.iter().enumerate().for_each(|(i, &(_, dbm))| in_range(dbm, -200.0, 30.0, format!("{at}[{i}]"), p));
        schedule(&steps.iter().map(|&(t, dbm)| (t, Hint::Signal { iface: k, dbm })).collect::<Vec<_>>(), at, p);
    }
    for (name, steps) in &d.rat {
        let at = format!("{field}.rat.{name}");
        let Some(k) = iface(name, at.clone(), p) else { continue };
        for (i, (_, rat)) in steps.iter().enumerate() {
            if !RATS.contains(&rat.as_str()) {
                p.add(format!("{at}[{i}]"), format!("unknown radio access technology '{rat}' (known: {})", RATS.join(", ")));
            }
        }
        schedule(&steps.iter().map(|(t, rat)| (*t, Hint::Rat { iface: k, rat: rat.clone() })).collect::<Vec<_>>(), at, p);
    }
    for (name, steps) in &d.bandwidth {
        let at = format!("{field}.bandwidth.{name}");
        let Some(k) = iface(name, at.clone(), p) else { continue };
        for (i, (_, r)) in steps.iter().enumerate() {
            if !(r.0.is_finite() && r.0 >= 0.0) {
                p.add(format!("{at}[{i}]"), format!("must be a rate of 0 or more, got {} bit/s", r.0));
            }
        }
        schedule(&steps.iter().map(|(t, r)| (*t, Hint::Bandwidth { iface: k, bps: r.0 })).collect::<Vec<_>>(), at, p);
    }
    // Stable: simultaneous hints keep the order they are listed in.
    out.sort_by_key(|(t, _)| *t);
    let mut limits = Vec::new();
    for (name, bytes) in &d.data_limit {
        let at = format!("{field}.data_limit.{name}");
        let Some(k) = iface(name, at.clone(), p) else { continue };
        if bytes.0 == 0 {
            p.add(at, "must be positive");
        } else {
            limits.push((k, bytes.0));
        }
    }
    (out, limits)
}

/// Radio access technologies a `rat` schedule may name.
const RATS: &[&str] = &["wifi", "lte", "umts", "nr", "wired"];
