//! The congestion control's own estimates of a data sender's socket, as
//! the simulator's senders report them (`SenderSample::bw_estimate`,
//! `increment`): Westwood+'s BWE and increment from the BPF program's maps
//! (`bpf.rs`), BBR's windowed maximum bandwidth from a sock_diag dump in
//! the sender's namespace (`traffic/diag.rs`). The kernel's other
//! algorithms keep none.

use std::net::SocketAddr;
use std::sync::Mutex;

use pathpool_sim::control::ActionKind;
use pathpool_sim::scenario::model::{FlowModel, Model};

use crate::bpf::Westwood;
use crate::netns::Netns;
use crate::traffic::diag::Diag;

/// One estimate: bytes of payload per second, and Westwood+'s a.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub bw_estimate: f64,
    pub increment: Option<f64>,
}

/// Where a run's estimates come from.
pub struct Estimates<'a> {
    westwood: Option<&'a Westwood>,
    /// A sock_diag socket in each node's namespace that sends a BBR flow's data.
    bbr: Vec<Option<Mutex<Diag>>>,
}

impl<'a> Estimates<'a> {
    /// Opens a sock_diag socket in each BBR sender's namespace (`ns(node)`):
    /// a flow's with `cc = "bbr"`, or one whose host has a controller that
    /// may set its congestion control (`SetCongestionControl`).
    pub fn open(model: &Model, westwood: Option<&'a Westwood>, ns: impl Fn(u32) -> &'a Netns) -> std::io::Result<Estimates<'a>> {
        let mut bbr: Vec<Option<Mutex<Diag>>> = model.nodes.iter().map(|_| None).collect();
        let may_set = |host: u32| model.controllers.iter().any(|c| c.host == host && c.actions.contains(&ActionKind::SetCongestionControl));
        for f in model.flows.iter().filter(|f| f.tcp.cc == "bbr" || may_set(f.src)) {
            if bbr[f.src as usize].is_none() {
                bbr[f.src as usize] = Some(Mutex::new(ns(f.src).run(Diag::open)??));
            }
        }
        Ok(Estimates { westwood, bbr })
    }

    /// Flow `f`'s socket (local, remote) at its data sender, if its
    /// congestion control keeps an estimate and the socket is still there.
    /// Where a sock_diag socket is open, a socket the kernel answers BBR's
    /// info for runs BBR, whatever the scenario said.
    pub fn of(&self, f: &FlowModel, local: SocketAddr, remote: SocketAddr) -> Option<Estimate> {
        match f.tcp.cc.as_str() {
            "westwood" => {
                let w = self.westwood?.sample(local, remote)?;
                Some(Estimate { bw_estimate: w.bw_estimate, increment: Some(w.increment) })
            }
            _ => {
                let diag = self.bbr[f.src as usize].as_ref()?.lock().unwrap_or_else(|e| e.into_inner());
                let all = diag.bbr_bandwidths().ok()?;
                let (.., bw) = all.into_iter().find(|&(l, r, _)| l == local && r == remote)?;
                Some(Estimate { bw_estimate: bw, increment: None })
            }
        }
    }
}
