//! Green MPTCP's path manager (green-mptcp-iiot-energy.txt §3.1, Rule 1):
//! "delay opening new channels until the IoT device effectuates the
//! transfer of the initial burst of data (14–15 kB)", then behave as full
//! mesh. The burst is the initial window's worth, 10 × 1448 = 14 480 bytes
//! by default (RFC 6928's IW10 with Linux's MSS), counted in both
//! directions — "irrespective of the direction of data flow" — as the bytes
//! the connection has carried: acknowledged bytes sent plus bytes received,
//! as the device's own stack reports them.

use super::fullmesh::FullMesh;
use super::{Candidates, Open, PathManager};

/// RFC 6928's initial window of 10 segments of 1448 bytes.
pub const DEFAULT_BURST: u64 = 10 * 1448;

pub struct Green {
    pub burst: u64,
}

impl PathManager for Green {
    fn wanted(&mut self, c: &Candidates) -> Vec<Open> {
        if c.carried < self.burst {
            return Vec::new();
        }
        FullMesh.wanted(c)
    }

    fn wait_for_bytes(&self) -> Option<u64> {
        Some(self.burst)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{candidates, reachable};
    use super::*;

    #[test]
    fn nothing_before_the_burst_then_full_mesh() {
        let r = reachable();
        let up = [true, true];
        let open = [(0, 0)];
        let mut g = Green { burst: DEFAULT_BURST };
        let mut c = candidates(&r, &up, &open);
        c.carried = DEFAULT_BURST - 1;
        assert!(g.wanted(&c).is_empty());
        c.carried = DEFAULT_BURST;
        let pairs: Vec<_> = g.wanted(&c).iter().map(|o| o.pair).collect();
        assert_eq!(pairs, [(0, 1), (1, 1)]);
        assert_eq!(g.wait_for_bytes(), Some(14_480));
    }
}
