//! Path managers: which subflows an MPTCP connection opens (RFC 8684 §3.2,
//! §3.4; Linux's `fullmesh`/`backup`-mode managers, the S-MPTCP paper's
//! path-manager modes). Chosen by name per connection; a new manager is a
//! new file plus one line in `make`.
//!
//! A manager is asked for the subflows it wants when the connection is
//! established and whenever an interface of either end comes (back) up; the
//! connection opens those that are reachable with both interfaces up. What
//! happens when an interface goes down is not a policy: its subflows fail
//! and their data is reinjected (`MptcpSender::interface_event`). Device-side
//! controllers open, close and re-flag subflows at any time through
//! `MptcpSender`'s API instead.
//!
//! A manager may also wait for the connection to carry some bytes before it
//! wants anything (`wait_for_bytes`, Green MPTCP's Rule 1): it is then asked
//! again when the connection has carried them.

pub mod backup;
pub mod fullmesh;
pub mod green;
pub mod ndiffports;
pub mod single_path;

use crate::cc::params::{ParamTable, Params};

/// Interface pairs are (local, remote): the flow source's interface index and the destination's.
pub type Pair = (u16, u16);

/// What a path manager sees of the connection.
pub struct Candidates<'a> {
    /// The initial subflow's pair.
    pub initial: Pair,
    /// `reachable[l][r]`: a subflow between local l and remote r has a route both ways.
    pub reachable: &'a [Vec<bool>],
    pub local_up: &'a [bool],
    pub remote_up: &'a [bool],
    /// Pairs that have an open subflow.
    pub open: &'a [Pair],
    /// Bytes the connection has carried, both directions: acknowledged
    /// bytes sent plus bytes received.
    pub carried: u64,
}

impl Candidates<'_> {
    /// Pairs that could carry a subflow now and have none.
    pub fn missing(&self) -> impl Iterator<Item = Pair> + '_ {
        (0..self.local_up.len() as u16)
            .flat_map(move |l| (0..self.remote_up.len() as u16).map(move |r| (l, r)))
            .filter(|&(l, r)| self.reachable[l as usize][r as usize])
            .filter(|&(l, r)| self.local_up[l as usize] && self.remote_up[r as usize])
            .filter(|pair| !self.open.contains(pair))
    }
}

/// A subflow to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Open {
    pub pair: Pair,
    pub backup: bool,
}

pub trait PathManager {
    /// The subflows to open now.
    fn wanted(&mut self, c: &Candidates) -> Vec<Open>;

    /// Ask `wanted` again once the connection has carried this many bytes.
    fn wait_for_bytes(&self) -> Option<u64> {
        None
    }
}

/// Path-manager names accepted in scenarios.
pub fn names() -> &'static [&'static str] {
    &["fullmesh", "backup", "single_path", "green", "ndiffports"]
}

/// Builds manager `name` with its parameters (`mptcp.path_manager_params`:
/// `green` takes `burst`, `ndiffports` takes `subflows`). Err: (parameter, problem) pairs.
pub fn build(name: &str, params: &ParamTable) -> Result<Box<dyn PathManager>, Vec<(String, String)>> {
    let mut p = Params::new(name, params);
    let pm: Box<dyn PathManager> = match name {
        "fullmesh" => Box::new(fullmesh::FullMesh),
        "backup" => Box::new(backup::BackupMode),
        "single_path" => Box::new(single_path::SinglePath),
        "green" => Box::new(green::Green { burst: p.bytes("burst", |b| b > 0, "positive").unwrap_or(green::DEFAULT_BURST) }),
        "ndiffports" => {
            let max = crate::mptcp::sender::MAX_OPEN_SUBFLOWS as f64;
            let valid = |n: f64| n >= 1.0 && n <= max && n.fract() == 0.0;
            let n = p.number("subflows", ndiffports::DEFAULT_SUBFLOWS as f64, valid, &format!("a whole number from 1 to {max}"));
            Box::new(ndiffports::NDiffPorts { subflows: n as u32 })
        }
        other => panic!("path manager '{other}' passed validation but is unknown"),
    };
    p.finish().map(|()| pm)
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Two local and two remote interfaces, all reachable except local 1 → remote 0.
    pub fn reachable() -> Vec<Vec<bool>> {
        vec![vec![true, true], vec![false, true]]
    }

    pub fn candidates<'a>(reachable: &'a [Vec<bool>], up: &'a [bool], open: &'a [Pair]) -> Candidates<'a> {
        Candidates { initial: (0, 0), reachable, local_up: up, remote_up: &up[..2], open, carried: 0 }
    }
}
