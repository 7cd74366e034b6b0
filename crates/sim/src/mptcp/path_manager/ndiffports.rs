//! ndiffports (the path manager of the multipath-tcp.org Linux kernel,
//! `mptcp_ndiffports.c`): `subflows` subflows in all, every one between the
//! initial subflow's interfaces, each from its own source port. On a network
//! with equal-cost paths, ECMP hashes the different port numbers onto
//! different paths, which is how a single-homed host spreads a connection
//! over a data centre's fabric (Raiciu et al., "Improving Datacenter
//! Performance and Robustness with Multipath TCP", SIGCOMM 2011, §2). In
//! the simulator the subflow's number stands for its port in the ECMP hash
//! (`World::forward`). Subflows that fail are opened again when the
//! interfaces come back up.

use super::{Candidates, Open, PathManager};

/// The kernel's default `num_subflows`.
pub const DEFAULT_SUBFLOWS: u32 = 2;

pub struct NDiffPorts {
    /// Subflows in all, the initial one included.
    pub subflows: u32,
}

impl PathManager for NDiffPorts {
    fn wanted(&mut self, c: &Candidates) -> Vec<Open> {
        let (l, r) = c.initial;
        if !(c.reachable[l as usize][r as usize] && c.local_up[l as usize] && c.remote_up[r as usize]) {
            return Vec::new();
        }
        let open = c.open.iter().filter(|&&pair| pair == c.initial).count() as u32;
        (open..self.subflows).map(|_| Open { pair: c.initial, backup: false }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{candidates, reachable};
    use super::*;

    #[test]
    fn tops_up_the_initial_pair_to_n_subflows() {
        let r = reachable();
        let up = [true, true];
        let mut pm = NDiffPorts { subflows: 4 };
        let wanted = pm.wanted(&candidates(&r, &up, &[(0, 0)]));
        assert_eq!(wanted, vec![Open { pair: (0, 0), backup: false }; 3]);
        assert_eq!(pm.wanted(&candidates(&r, &up, &[(0, 0), (0, 0), (1, 1)])).len(), 2, "only the initial pair counts");
        assert!(pm.wanted(&candidates(&r, &up, &[(0, 0); 4])).is_empty());
        assert!(pm.wanted(&candidates(&r, &[false, true], &[])).is_empty(), "local 0 is down");
    }
}
