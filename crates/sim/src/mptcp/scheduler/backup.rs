//! Active/standby ("backup" in the S-MPTCP paper, 2B's companion): all data
//! goes on one primary subflow — the first non-backup subflow that can send
//! (the initial subflow while it works). The others carry data only while
//! no non-backup subflow can send (closed, failed, or potentially failed
//! after a timeout): then the first backup subflow does, and the primary
//! takes over again once it has data acknowledged. A busy primary (full
//! window, loss recovery) makes the scheduler wait, not switch.

use super::{next_segment, ConnectionView, Scheduler, Step, SubflowView};

pub struct Backup;

impl Scheduler for Backup {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        next_segment(subflows, conn, |sf, _| {
            let mut usable = sf.iter().filter(|s| s.usable);
            let primary = usable.clone().find(|s| !s.backup).or_else(|| usable.next())?;
            primary.available().then_some(primary.id)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, sf};
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn only_the_primary_until_it_fails() {
        let mut s = vec![sf(0, 50, 10), sf(1, 10, 10)];
        let unacked = VecDeque::new();
        let c = conn(&unacked, Some(0), false);
        assert!(matches!(Backup.next(&s, &c), Step::Send { subflow: 0, .. }));
        s[0].in_flight = 10_000;
        assert_eq!(Backup.next(&s, &c), Step::Wait, "a full primary waits");
        s[0].usable = false;
        assert!(matches!(Backup.next(&s, &c), Step::Send { subflow: 1, .. }));
        // A flagged backup is not the primary.
        let mut s = vec![sf(0, 50, 10), sf(1, 10, 10)];
        s[0].backup = true;
        assert!(matches!(Backup.next(&s, &c), Step::Send { subflow: 1, .. }));
    }
}
