//! Backup mode (the S-MPTCP paper's path-manager mode, RFC 8684 §3.3.8):
//! the same subflows as full mesh, but every one except the initial pair's
//! is flagged backup, so schedulers use them only when no other subflow can
//! send.

use super::{Candidates, Open, PathManager};

pub struct BackupMode;

impl PathManager for BackupMode {
    fn wanted(&mut self, c: &Candidates) -> Vec<Open> {
        c.missing().map(|pair| Open { pair, backup: pair != c.initial }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{candidates, reachable};
    use super::*;

    #[test]
    fn extra_subflows_are_backups_and_the_initial_pair_is_not() {
        let r = reachable();
        let up = [true, true];
        let wanted = BackupMode.wanted(&candidates(&r, &up, &[]));
        assert_eq!(wanted[0], Open { pair: (0, 0), backup: false });
        assert!(wanted[1..].iter().all(|o| o.backup));
        assert_eq!(wanted.len(), 3);
    }
}
