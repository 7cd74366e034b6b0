//! `[[devices]]`: a host's radios (a power model per interface) and Green
//! MPTCP's linear model, each checked by building it, with every problem
//! reported under `devices[i]`.

use std::collections::HashMap;

use super::build::suggest;
use super::error::Problems;
use super::model::{DeviceModel, NodeModel};
use super::spec::{DeviceSpec, LinearSpec, NodeKind};
use crate::cc::{ParamTable, ParamValue};
use crate::energy::{self, linear::LinearParams};
use crate::net::NodeId;

pub fn resolve(specs: &[DeviceSpec], nodes: &[NodeModel], by_name: &HashMap<String, NodeId>, p: &mut Problems) -> Vec<DeviceModel> {
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
        if radios.is_empty() && linear.is_none() && d.linear.is_none() {
            p.add(field.clone(), "names no radio and no linear model");
        }
        out.push(DeviceModel { host, radios, linear });
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
        p.add(format!("{field}.w"), format!("needs a weight for every interface of {}; missing: {} (Green MPTCP gives only ratios, no value to default to)", node.name, missing.join(", ")));
    }
    let params = params.ok()?;
    w.iter().all(|x| x.is_finite()).then_some((params, w))
}
