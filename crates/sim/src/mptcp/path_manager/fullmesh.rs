//! Full mesh (Linux's `fullmesh` path manager): a subflow between every
//! local and every remote interface that can reach each other, re-opened
//! when an interface comes back.

use super::{Candidates, Open, PathManager};

pub struct FullMesh;

impl PathManager for FullMesh {
    fn wanted(&mut self, c: &Candidates) -> Vec<Open> {
        c.missing().map(|pair| Open { pair, backup: false }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{candidates, reachable};
    use super::*;

    #[test]
    fn every_reachable_pair_once() {
        let r = reachable();
        let up = [true, true];
        let open = [(0, 0)];
        let wanted = FullMesh.wanted(&candidates(&r, &up, &open));
        let pairs: Vec<_> = wanted.iter().map(|o| o.pair).collect();
        assert_eq!(pairs, [(0, 1), (1, 1)]);
        assert!(wanted.iter().all(|o| !o.backup));
        let up = [false, true];
        let pairs: Vec<_> = FullMesh.wanted(&candidates(&r, &up, &open)).iter().map(|o| o.pair).collect();
        assert_eq!(pairs, [(1, 1)], "local 0 is down");
    }
}
