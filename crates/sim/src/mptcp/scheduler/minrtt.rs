//! The lowest-RTT scheduler, Linux MPTCP's default (`get_available_subflow`
//! in `mptcp_sched.c`, without its receive-buffer optimisation, which is
//! `rp_bm`): each chunk goes to the subflow with the lowest smoothed RTT that
//! has room in its congestion window.
//!
//! - Subflows that cannot send — not established, closed, failed, or
//!   potentially failed after a timeout — are skipped
//!   (`mptcp_is_def_unavailable`); so are, for now, those still in loss
//!   recovery or with a full window (`mptcp_is_temp_unavailable`).
//! - Backup subflows are used only when no non-backup subflow can send at
//!   all; while a non-backup subflow is merely full, the scheduler waits.
//! - A chunk being reinjected prefers subflows that have not carried it
//!   yet, and waits for one of them if it is only temporarily busy; if every
//!   subflow carried it, any may carry it again (the path mask is reset).

use super::{next_segment, Chunk, ConnectionView, Scheduler, Step, SubflowView};

pub struct MinRtt;

impl Scheduler for MinRtt {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        next_segment(subflows, conn, |sf, chunk| lowest_rtt(sf, chunk, SubflowView::has_space))
    }
}

/// Linux's `get_subflow_from_selectors` over the backup (`backup = true`) or
/// non-backup subflows: the best subflow and whether the choice is final
/// ("force": an unused subflow was found, or one is only temporarily busy).
fn select(
    subflows: &[SubflowView],
    sent_on: u64,
    backup: bool,
    space: &impl Fn(&SubflowView) -> bool,
) -> (Option<usize>, bool) {
    let (mut best, mut best_rtt) = (None, None);
    let (mut found_unused, mut found_unused_busy) = (false, false);
    for s in subflows.iter().filter(|s| s.backup == backup) {
        let unused = sent_on & s.bit == 0;
        if !unused && found_unused {
            continue;
        }
        if !s.usable {
            continue;
        }
        if s.stalled || !space(s) {
            found_unused_busy |= unused;
            continue;
        }
        if unused && !found_unused {
            // The first unused subflow: forget any used one chosen so far.
            found_unused = true;
            best_rtt = None;
            best = None;
        }
        if best_rtt.is_none_or(|r| s.rtt() < r) {
            best_rtt = Some(s.rtt());
            best = Some(s.id);
        }
    }
    let force = if best.is_some() { found_unused } else { found_unused_busy };
    (best, force)
}

/// The lowest-RTT subflow for `chunk` (Linux `get_available_subflow`), where
/// `space` says whether a subflow's window has room.
pub fn lowest_rtt(subflows: &[SubflowView], chunk: &Chunk, space: impl Fn(&SubflowView) -> bool) -> Option<usize> {
    let (best, force) = select(subflows, chunk.sent_on, false, &space);
    if force {
        return best;
    }
    let (backup, force) = select(subflows, chunk.sent_on, true, &space);
    if force || chunk.sent_on == 0 {
        return backup;
    }
    // Every subflow has carried the chunk: give them all a chance again.
    match select(subflows, 0, false, &space) {
        (best, true) => best,
        _ => select(subflows, 0, true, &space).0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, new_chunk, sf};
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn lowest_rtt_with_room_and_backups_last() {
        let mut s = vec![sf(0, 50, 10), sf(1, 10, 10), sf(2, 5, 10)];
        s[2].backup = true;
        let c = new_chunk(0);
        // The backup has the lowest RTT but a non-backup subflow can send.
        assert_eq!(lowest_rtt(&s, &c, SubflowView::has_space), Some(1));
        // Subflow 1's window is full: the next best non-backup one.
        s[1].in_flight = 10_000;
        assert_eq!(lowest_rtt(&s, &c, SubflowView::has_space), Some(0));
        // All non-backup windows are full: wait rather than use the backup.
        s[0].in_flight = 10_000;
        assert_eq!(lowest_rtt(&s, &c, SubflowView::has_space), None);
        // Subflow 0 failed, subflow 1 is in loss recovery: it is only busy.
        s[0].usable = false;
        s[1].stalled = true;
        s[1].in_flight = 0;
        assert_eq!(lowest_rtt(&s, &c, SubflowView::has_space), None);
        // Subflow 1 is potentially failed too: no non-backup subflow can send, the backup does.
        s[1].usable = false;
        assert_eq!(lowest_rtt(&s, &c, SubflowView::has_space), Some(2));
        let unacked = VecDeque::new();
        assert_eq!(MinRtt.next(&s, &conn(&unacked, Some(0), true)), Step::Wait, "window-limited");
    }

    #[test]
    fn reinjections_prefer_subflows_that_have_not_carried_the_chunk() {
        let s = vec![sf(0, 10, 10), sf(1, 50, 10)];
        let c = Chunk { dsn: 0, len: 1000, sent_on: 1 };
        assert_eq!(lowest_rtt(&s, &c, SubflowView::has_space), Some(1));
        // Carried by both: the lowest RTT again.
        let c = Chunk { sent_on: 3, ..c };
        assert_eq!(lowest_rtt(&s, &c, SubflowView::has_space), Some(0));
    }
}
