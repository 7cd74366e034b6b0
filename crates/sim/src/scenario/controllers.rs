//! `[[controllers]]`: each names a host and a controller kind; the kind's
//! parameters are checked by building it (`crate::control::build`), with
//! every problem reported under `controllers[i]`.

use std::collections::HashMap;

use super::build::suggest;
use super::error::Problems;
use super::model::{ControllerModel, LinkModel, NodeModel};
use super::spec::{ControllerSpec, NodeKind};
use crate::control::{self, Host};
use super::mtu;
use crate::net::NodeId;
use crate::time::Time;

/// The sampling period when a controller does not give one.
const DEFAULT_SAMPLE_INTERVAL: Time = Time::from_millis(100);

pub fn resolve(specs: &[ControllerSpec], nodes: &[NodeModel], links: &[LinkModel], by_name: &HashMap<String, NodeId>, p: &mut Problems) -> Vec<ControllerModel> {
    let mut out = Vec::new();
    for (i, c) in specs.iter().enumerate() {
        let field = format!("controllers[{i}]");
        let Some(&host) = by_name.get(&c.host) else {
            p.add(format!("{field}.host"), format!("unknown node '{}'{}", c.host, suggest(&c.host, by_name.keys())));
            continue;
        };
        let node = &nodes[host as usize];
        if node.kind == NodeKind::Router {
            p.add(format!("{field}.host"), format!("'{}' is a router; controllers run on hosts", c.host));
            continue;
        }
        if node.interfaces.is_empty() {
            p.add(format!("{field}.host"), format!("'{}' has no interface a controller could act on", c.host));
            continue;
        }
        let built = match control::build(&c.kind, &c.params, &Host { name: &node.name, interfaces: &node.interfaces, mtus: mtu::interface_mtus(links, host, &node.interfaces) }) {
            Ok(b) => b,
            Err(problems) => {
                for (key, message) in problems {
                    let at = if key.is_empty() { format!("{field}.kind") } else { format!("{field}.params.{key}") };
                    p.add(at, message);
                }
                continue;
            }
        };
        out.push(ControllerModel {
            host,
            kind: c.kind.clone(),
            params: c.params.clone(),
            sample_interval: c.sample_interval.map_or(DEFAULT_SAMPLE_INTERVAL, |d| d.0),
            reaction_delay: c.reaction_delay.map_or(Time::ZERO, |d| d.0),
            actions: built.actions,
        });
    }
    out
}
