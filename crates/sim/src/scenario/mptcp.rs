//! Flows with `transport = "mptcp"`: the `mptcp` table's syntax, its
//! checks, and its resolution into an `MptcpConfig` (interfaces, the initial
//! subflow, reachability of every interface pair, timed actions, the
//! scheduler's parameters and the source's energy profile).
//!
//! The timed actions are a thin layer over `MptcpSender`'s API: each names
//! an interface of the flow's source or destination, as `"iface"` when only
//! one of them has an interface of that name, or as `"node:iface"`.

use serde::Deserialize;

use super::error::Problems;
use super::model::{DeviceModel, FlowModel, LinkModel, NodeModel};
use super::spec::DeviceSpec;
use crate::cc::ParamTable;
use crate::mptcp::coupling;
use crate::mptcp::path_manager;
use crate::mptcp::scheduler;
use crate::mptcp::sender::MAX_OPEN_SUBFLOWS;
use crate::mptcp::{Action, End, MptcpConfig};
use crate::net::interfaces::Interfaces;
use crate::net::routing::Routes;
use crate::net::NodeId;
use crate::time::Time;
use crate::units::Duration;

/// `mptcp = { ... }` in a `[[flows]]` entry with `transport = "mptcp"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MptcpSpec {
    /// `minrtt` (default), `roundrobin`, `redundant`, `backup`, `rp_bm`,
    /// `blest`, `green`, `green_literal`.
    pub scheduler: Option<String>,
    /// The scheduler's parameters (only `green` and `green_literal` take any).
    #[serde(default)]
    pub scheduler_params: ParamTable,
    /// `lia` (default), `olia`, `balia`, or `uncoupled` (each subflow runs `tcp.cc`).
    pub coupling: Option<String>,
    /// `fullmesh` (default), `backup`, `single_path`, `green` (Green MPTCP's Rule 1).
    pub path_manager: Option<String>,
    /// The path manager's parameters: `green` takes `burst` (bytes the
    /// connection carries before it opens more subflows, default 14480).
    pub path_manager_params: Option<crate::cc::ParamTable>,
    /// The interface the initial subflow uses ("iface" or "node:iface", at
    /// either end); the other end's is the one the route would use if it
    /// can reach it, else the first that can. Default: the interfaces of the
    /// node-level route from the source to the destination.
    pub initial: Option<String>,
    /// A middlebox on the path strips MPTCP options: the connection falls
    /// back to TCP on its initial subflow (RFC 8684 §3.7).
    #[serde(default)]
    pub strip_options: bool,
    /// Also simulate each interface alone with single-path TCP, for the
    /// aggregation percentage (S-MPTCP eq. 1).
    #[serde(default)]
    pub baselines: bool,
    /// Path-manager actions at given times.
    #[serde(default)]
    pub actions: Vec<ActionSpec>,
}

/// One timed action: exactly one of `open`, `close`, `set_backup`, `clear_backup`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionSpec {
    pub at: Duration,
    /// Open a subflow from this interface (to `peer`).
    pub open: Option<String>,
    /// Close every subflow using this interface.
    pub close: Option<String>,
    /// Flag every subflow using this interface as backup (MP_PRIO).
    pub set_backup: Option<String>,
    /// Clear the backup flag of every subflow using this interface.
    pub clear_backup: Option<String>,
    /// With `open`: the other end's interface (default: the initial subflow's).
    pub peer: Option<String>,
    /// With `open`: open the subflow as a backup.
    pub backup: Option<bool>,
}

fn check_name(value: &Option<String>, known: &[&str], field: String, p: &mut Problems) {
    if let Some(v) = value.as_deref().filter(|v| !known.contains(v)) {
        p.add(field, format!("unknown name '{v}' (known: {})", known.join(", ")));
    }
}

/// Checks what can be checked before nodes are resolved.
pub fn check_spec(transport: &str, spec: Option<&MptcpSpec>, field: &str, p: &mut Problems) {
    let Some(s) = spec else { return };
    if transport != "mptcp" {
        p.add(format!("{field}.mptcp"), "applies to transport = \"mptcp\" only");
        return;
    }
    check_name(&s.scheduler, scheduler::names(), format!("{field}.mptcp.scheduler"), p);
    let name = s.scheduler.as_deref().unwrap_or("minrtt");
    if scheduler::names().contains(&name) {
        for (key, message) in scheduler::check_params(name, &s.scheduler_params) {
            p.add(format!("{field}.mptcp.scheduler_params.{key}"), message);
        }
    }
    check_name(&s.coupling, coupling::names(), format!("{field}.mptcp.coupling"), p);
    check_name(&s.path_manager, path_manager::names(), format!("{field}.mptcp.path_manager"), p);
}

/// Everything `resolve` needs about the network.
pub struct Network<'a> {
    pub nodes: &'a [NodeModel],
    pub links: &'a [LinkModel],
    pub ifaces: &'a Interfaces,
    pub routes: &'a Routes,
    pub is_router: &'a [bool],
    pub duration: Time,
    /// The resolved `[[devices]]` entries, and all of them as written.
    pub devices: &'a [DeviceModel],
    pub device_specs: &'a [DeviceSpec],
}

/// The resolved settings of MPTCP flow `f`, reporting problems under `field`.
pub fn resolve(spec: &MptcpSpec, f: &FlowModel, field: &str, net: &Network, p: &mut Problems) -> Option<MptcpConfig> {
    let (src, dst) = (f.src, f.dst);
    let reachable: Vec<Vec<bool>> = (0..net.ifaces.of(src).len() as u16)
        .map(|l| {
            (0..net.ifaces.of(dst).len() as u16)
                .map(|r| {
                    net.ifaces.reachable(net.routes, net.is_router, src, l, dst, r)
                        && net.ifaces.reachable(net.routes, net.is_router, dst, r, src, l)
                })
                .collect()
        })
        .collect();
    let Some(routed) = initial_pair(f, net).filter(|&(l, r)| reachable[l as usize][r as usize]) else {
        p.add(format!("{field}.dst"), "no interface pair along the route to the destination can carry the initial subflow");
        return None;
    };
    let initial = match &spec.initial {
        None => routed,
        Some(name) => chosen_initial(name, routed, &reachable, f, &format!("{field}.mptcp.initial"), net, p)?,
    };
    let path_manager = spec.path_manager.clone().unwrap_or_else(|| "fullmesh".into());
    let path_manager_params = spec.path_manager_params.clone().unwrap_or_default();
    // An unknown name is reported by `check_spec`.
    if path_manager::names().contains(&path_manager.as_str()) {
        if let Err(problems) = path_manager::build(&path_manager, &path_manager_params) {
            for (key, message) in problems {
                p.add(format!("{field}.mptcp.path_manager_params.{key}"), message);
            }
        }
    }
    let pairs = reachable.iter().flatten().filter(|&&r| r).count();
    if path_manager != "single_path" && pairs > MAX_OPEN_SUBFLOWS {
        p.add(
            format!("{field}.mptcp.path_manager"),
            format!("'{path_manager}' would open {pairs} subflows; at most {MAX_OPEN_SUBFLOWS} may be open at once"),
        );
    }
    let mut actions = Vec::new();
    for (i, a) in spec.actions.iter().enumerate() {
        let field = format!("{field}.mptcp.actions[{i}]");
        if a.at.0 <= f.start || a.at.0 >= net.duration {
            p.add(format!("{field}.at"), format!("{} must be after the flow's start ({}) and before the end of the run ({})", a.at.0, f.start, net.duration));
        }
        if let Some(action) = resolve_action(a, f, &field, initial, &reachable, net, p) {
            actions.push((a.at.0, action));
        }
    }
    actions.sort_by_key(|a| a.0);
    let scheduler = spec.scheduler.clone().unwrap_or_else(|| "minrtt".into());
    let energy_profile = energy_profile(f.src, &scheduler, &format!("{field}.mptcp.scheduler"), net, p);
    Some(MptcpConfig {
        scheduler,
        scheduler_params: spec.scheduler_params.clone(),
        energy_profile,
        coupling: spec.coupling.clone().unwrap_or_else(|| "lia".into()),
        path_manager,
        path_manager_params,
        options_stripped: spec.strip_options,
        baselines: spec.baselines,
        initial,
        reachable,
        actions,
    })
}

/// The energy profile of `host`, the flow's source: g_i = w_i + w_device/n
/// per interface from its `[[devices]]` linear model, if it has a valid one
/// (any scheduler may be switched to `green` at run time). A `scheduler`
/// that splits data by it is refused without one, or with a g_i of 0.
fn energy_profile(host: NodeId, scheduler: &str, field: &str, net: &Network, p: &mut Problems) -> Option<Vec<f64>> {
    let node = &net.nodes[host as usize];
    let needed = scheduler::needs_energy_profile(scheduler);
    let Some(k) = net.device_specs.iter().position(|d| d.host == node.name && d.linear.is_some()) else {
        if needed {
            let w: Vec<String> = node.interfaces.iter().map(|i| format!("{i} = ...")).collect();
            p.add(
                field,
                format!(
                    "'{scheduler}' splits data by the energy profile of the flow's source '{}', which has none: \
                     give [[devices]] host = \"{}\" linear = {{ w = {{ {} }} }}",
                    node.name,
                    node.name,
                    w.join(", ")
                ),
            );
        }
        return None;
    };
    // A linear model that was refused has been reported under devices[k].
    let (params, w) = net.devices.iter().find(|d| d.host == host)?.linear.as_ref()?;
    let g = params.channel_weights(w);
    if needed {
        for (name, _) in node.interfaces.iter().zip(&g).filter(|(_, g_i)| **g_i == 0.0) {
            p.add(
                format!("devices[{k}].linear.w.{name}"),
                format!(
                    "g = w + w_device/n is 0 on '{name}', and '{scheduler}' (at {field}) divides by it: \
                     give '{name}' or w_device a positive weight"
                ),
            );
        }
    }
    Some(g)
}

/// The initial subflow's interfaces: those of the node-level route from the
/// source to the destination, so that it takes the path a single-path TCP
/// flow would (the first of equal-cost next hops).
fn initial_pair(f: &FlowModel, net: &Network) -> Option<(u16, u16)> {
    let mut at = f.src;
    let (mut first, mut last) = (None, None);
    for _ in 0..net.nodes.len() {
        let &dir = net.routes.next_hops(at, f.dst).first()?;
        first.get_or_insert(dir);
        last = Some(dir);
        let l = &net.links[dir as usize / 2];
        at = if dir % 2 == 0 { l.b } else { l.a };
        if at == f.dst {
            break;
        }
    }
    let local = net.ifaces.of(f.src).iter().position(|i| Some(i.out) == first)?;
    let remote = net.ifaces.of(f.dst).iter().position(|i| Some(i.inbound) == last)?;
    Some((local as u16, remote as u16))
}

/// The initial pair through interface `name` of either end: the other end's
/// interface is the routed pair's if reachable, else the first reachable one.
fn chosen_initial(name: &str, routed: (u16, u16), reachable: &[Vec<bool>], f: &FlowModel, field: &str, net: &Network, p: &mut Problems) -> Option<(u16, u16)> {
    let (end, k) = interface(name, f.src, f.dst, net.nodes, field, p)?;
    let pairs = |l: u16, r: u16| reachable[l as usize][r as usize];
    let found = match end {
        End::Local => std::iter::once(routed.1).chain(0..reachable[0].len() as u16).find(|&r| pairs(k, r)).map(|r| (k, r)),
        End::Remote => std::iter::once(routed.0).chain(0..reachable.len() as u16).find(|&l| pairs(l, k)).map(|l| (l, k)),
    };
    if found.is_none() {
        p.add(field, format!("no route both ways between '{name}' and any interface of the other end"));
    }
    found
}

/// Finds interface `name` ("iface" or "node:iface") at the flow's source or destination.
fn interface(name: &str, src: NodeId, dst: NodeId, nodes: &[NodeModel], field: &str, p: &mut Problems) -> Option<(End, u16)> {
    let (node, iface) = match name.split_once(':') {
        Some((n, i)) => (Some(n), i),
        None => (None, name),
    };
    let mut found = Vec::new();
    for (end, id) in [(End::Local, src), (End::Remote, dst)] {
        let n = &nodes[id as usize];
        if node.is_some_and(|x| x != n.name) {
            continue;
        }
        if let Some(k) = n.interfaces.iter().position(|x| x == iface) {
            found.push((end, k as u16));
        }
    }
    let ends = format!("'{}' ({}) or '{}' ({})", nodes[src as usize].name, nodes[src as usize].interfaces.join(", "), nodes[dst as usize].name, nodes[dst as usize].interfaces.join(", "));
    match found[..] {
        [one] => Some(one),
        [] => {
            p.add(field, format!("'{name}' is not an interface of the flow's source or destination: {ends}"));
            None
        }
        _ => {
            p.add(field, format!("'{name}' is ambiguous: both ends have it; write \"node:{iface}\""));
            None
        }
    }
}

fn resolve_action(
    a: &ActionSpec,
    f: &FlowModel,
    field: &str,
    initial: (u16, u16),
    reachable: &[Vec<bool>],
    net: &Network,
    p: &mut Problems,
) -> Option<Action> {
    let given: Vec<(&str, &String)> = [("open", &a.open), ("close", &a.close), ("set_backup", &a.set_backup), ("clear_backup", &a.clear_backup)]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
        .collect();
    let &[(kind, name)] = &given[..] else {
        p.add(field, "give exactly one of open, close, set_backup, clear_backup");
        return None;
    };
    if kind != "open" {
        for (key, set) in [("peer", a.peer.is_some()), ("backup", a.backup.is_some())] {
            if set {
                p.add(format!("{field}.{key}"), "applies to open only");
            }
        }
    }
    let (end, iface) = interface(name, f.src, f.dst, net.nodes, &format!("{field}.{kind}"), p)?;
    match kind {
        "close" => Some(Action::Close { end, iface }),
        "set_backup" => Some(Action::SetBackup { end, iface, backup: true }),
        "clear_backup" => Some(Action::SetBackup { end, iface, backup: false }),
        _ => {
            let peer = match &a.peer {
                None => if end == End::Local { initial.1 } else { initial.0 },
                Some(peer_name) => {
                    let (peer_end, k) = interface(peer_name, f.src, f.dst, net.nodes, &format!("{field}.peer"), p)?;
                    if peer_end == end {
                        p.add(format!("{field}.peer"), format!("'{peer_name}' is at the same end as '{name}'"));
                        return None;
                    }
                    k
                }
            };
            let (local, remote) = if end == End::Local { (iface, peer) } else { (peer, iface) };
            if !reachable[local as usize][remote as usize] {
                let (s, d) = (&net.nodes[f.src as usize], &net.nodes[f.dst as usize]);
                p.add(
                    format!("{field}.open"),
                    format!(
                        "no route between {}:{} and {}:{} (a subflow needs one both ways, through routers only)",
                        s.name, s.interfaces[local as usize], d.name, d.interfaces[remote as usize]
                    ),
                );
                return None;
            }
            Some(Action::Open { local, remote, backup: a.backup.unwrap_or(false) })
        }
    }
}
