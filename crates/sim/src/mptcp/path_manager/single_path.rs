//! Single path: the initial subflow only (the S-MPTCP paper's single-path
//! mode), re-opened when its interfaces come back.

use super::{Candidates, Open, PathManager};

pub struct SinglePath;

impl PathManager for SinglePath {
    fn wanted(&mut self, c: &Candidates) -> Vec<Open> {
        c.missing().filter(|&pair| pair == c.initial).map(|pair| Open { pair, backup: false }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{candidates, reachable};
    use super::*;

    #[test]
    fn only_the_initial_pair() {
        let r = reachable();
        let up = [true, true];
        assert_eq!(SinglePath.wanted(&candidates(&r, &up, &[])), [Open { pair: (0, 0), backup: false }]);
        assert!(SinglePath.wanted(&candidates(&r, &up, &[(0, 0)])).is_empty());
    }
}
