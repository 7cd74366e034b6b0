//! Validation of flows with `transport = "rcp"`: RCP takes its rate from
//! the routers, so it needs RCP routers on its path and the SYN exchange that
//! asks them, and has no congestion control to choose.

use super::error::Problems;
use super::model::{FlowModel, LinkModel, RouterModel};
use super::spec::TcpSpec;
use crate::net::routing::Routes;
use crate::net::LinkId;

/// A flow's own `tcp` table: `cc` and `cc_params` do not apply to the
/// rate-based transports, RCP and INRPP.
pub fn check_flow_spec(transport: &str, tcp: &TcpSpec, field: &str, p: &mut Problems) {
    let why = match transport {
        "rcp" => "RCP sends at the rate its routers give",
        "inrpp" => "INRPP sends at its interface's rate, or one packet per ACK when its routers push back",
        _ => return,
    };
    if tcp.cc.is_some() {
        p.add(format!("{field}.tcp.cc"), format!("does not apply to transport '{transport}': {why}, with no congestion window"));
    }
    if tcp.cc_params.is_some() {
        p.add(format!("{field}.tcp.cc_params"), format!("does not apply to transport '{transport}'"));
    }
}

/// Which link directions run the RCP router module.
pub fn rcp_directions(routers: &[RouterModel], directions: usize) -> Vec<bool> {
    let mut on = vec![false; directions];
    for r in routers.iter().filter(|r| r.module == "rcp") {
        for &l in &r.links {
            on[l as usize] = true;
        }
    }
    on
}

/// A resolved RCP flow (number `flow`, for ECMP's hash) keeps the handshake
/// and crosses at least one RCP direction on its way to the receiver.
#[allow(clippy::too_many_arguments)]
pub fn check_flow(
    f: &FlowModel,
    flow: u32,
    field: &str,
    rcp_dirs: &[bool],
    links: &[LinkModel],
    routes: &Routes,
    ecmp: bool,
    p: &mut Problems,
) {
    if f.transport != "rcp" {
        return;
    }
    if !f.tcp.handshake {
        p.add(format!("{field}.tcp.handshake"), "transport 'rcp' learns its first rate from the SYN exchange: handshake must be true");
    }
    let mut at = f.src;
    for _ in 0..rcp_dirs.len() {
        let Some(l) = routes.next_hop(at, f.dst, flow, ecmp) else { break };
        if rcp_dirs[l as usize] {
            return;
        }
        at = far_end(links, l);
        if at == f.dst {
            break;
        }
    }
    p.add(
        format!("{field}.transport"),
        "transport 'rcp' needs an RCP router on its path: add [routers] module = \"rcp\" (with routers.links naming a link of the path, if set)",
    );
}

fn far_end(links: &[LinkModel], l: LinkId) -> u32 {
    let link = &links[l as usize / 2];
    if l.is_multiple_of(2) { link.b } else { link.a }
}
