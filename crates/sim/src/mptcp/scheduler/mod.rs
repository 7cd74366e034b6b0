//! MPTCP packet schedulers: which subflow carries the next chunk of
//! connection-level data (Linux `mptcp_sched_ops`; Paasch, Ferlin, Alay,
//! Bonaventure, "Experimental evaluation of Multipath TCP schedulers",
//! CSWS 2014). Chosen by name per connection, with its parameters
//! (`mptcp.scheduler_params`) and, for Green MPTCP's `green`, the data
//! sender's energy profile (`Setup`); a new scheduler is a new file plus one
//! line in `build`.
//!
//! The connection pushes data the way Linux's `mptcp_write_xmit` does: it
//! asks its scheduler for one step at a time — send a chunk on a subflow,
//! penalise a subflow, or wait — and carries it out, until the scheduler
//! waits. A chunk pushed into a subflow is sent as soon as that subflow's
//! own window and pacing allow, so every step uses up room in some subflow's
//! window and the loop ends.

pub mod backup;
pub mod blest;
pub mod green;
pub mod linger;
pub mod minrtt;
pub mod penalisation;
pub mod redundant;
pub mod roundrobin;
pub mod rp_bm;

use std::collections::VecDeque;
use std::fmt;

use crate::cc::{ParamTable, Params};
use crate::time::Time;

/// What a scheduler sees of one subflow.
#[derive(Debug, Clone)]
pub struct SubflowView {
    pub id: usize,
    /// This subflow's bit in `Chunk::sent_on` (Linux's path index).
    pub bit: u64,
    /// The data sender's interface it uses (its index at the flow's source).
    pub iface: u16,
    /// Smoothed RTT; None before the first sample.
    pub srtt: Option<Time>,
    /// Lowest RTT seen.
    pub min_rtt: Option<Time>,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Bytes in flight (RFC 6675 pipe).
    pub in_flight: u64,
    /// Bytes pushed into the subflow and not yet sent.
    pub queued: u64,
    /// Bytes sent and not yet cumulatively acknowledged (snd_nxt − snd_una).
    pub outstanding: u64,
    pub mss: u64,
    /// Its congestion control's `sndbuf_expand` (Linux: 2, BBR 3), for the send buffer's autotuning.
    pub sndbuf_expand: u64,
    /// Flagged backup (RFC 8684 §3.3.8: MP_PRIO, or the B flag of MP_JOIN).
    pub backup: bool,
    /// Established, neither closed nor failed, and not "potentially failed"
    /// — a retransmission timeout since it last had data acknowledged
    /// (Linux's `tp->pf`, set by `mptcp_reinject_data`): Linux's
    /// `mptcp_is_def_unavailable` is false.
    pub usable: bool,
    /// In loss recovery after a timeout (CA_Loss): temporarily unavailable
    /// (`mptcp_is_temp_unavailable`).
    pub stalled: bool,
    /// Neither in fast recovery nor in loss recovery (Linux's CA_Open).
    pub open_state: bool,
}

impl SubflowView {
    /// Room for one more segment beside what is in flight and queued
    /// (`mptcp_is_temp_unavailable`'s window test), within `window`.
    pub fn has_space_in(&self, window: u64) -> bool {
        self.in_flight + self.queued + self.mss <= window
    }

    /// What the subflow's socket holds: sent and unacknowledged, or not yet
    /// sent (Linux's `sk_wmem_queued`, counted in payload bytes).
    pub fn wmem_queued(&self) -> u64 {
        self.outstanding + self.queued
    }

    pub fn has_space(&self) -> bool {
        self.has_space_in(self.cwnd)
    }

    /// Usable now, not stalled, with room in its window.
    pub fn available(&self) -> bool {
        self.usable && !self.stalled && self.has_space()
    }

    /// srtt for comparisons; a subflow without a sample sorts last.
    pub fn rtt(&self) -> Time {
        self.srtt.unwrap_or(Time(u64::MAX))
    }
}

/// A chunk of connection-level data — its mapping (RFC 8684 §3.3.1) — and
/// the subflows that have carried it (a bit set of `SubflowView::bit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub dsn: u64,
    pub len: u32,
    pub sent_on: u64,
}

/// What a scheduler sees of the connection.
pub struct ConnectionView<'a> {
    pub now: Time,
    /// The oldest chunk waiting to be re-sent on another subflow (RFC 8684 §3.3.6).
    pub reinject: Option<Chunk>,
    /// The next chunk of new data, if the application has any.
    pub new_data: Option<Chunk>,
    /// The new chunk lies beyond the peer's receive window (RFC 8684 §3.3.4).
    pub window_limited: bool,
    /// The peer's receive window counted from the Data ACK, bytes.
    pub send_window: u64,
    /// Chunks sent and not yet Data-ACKed, oldest first.
    pub unacked: &'a VecDeque<Chunk>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Push `chunk` (the reinjection head, the new chunk, or an unacked one) into `subflow`.
    Send { subflow: usize, chunk: Chunk },
    /// Halve `subflow`'s window (`TcpSender::penalise`).
    Penalise { subflow: usize },
    /// Nothing now; ask again when an ACK, timer or path event changes something.
    Wait,
}

pub trait Scheduler {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step;
}

/// Scheduler names accepted in scenarios.
pub fn names() -> &'static [&'static str] {
    &["minrtt", "linger", "roundrobin", "redundant", "backup", "rp_bm", "blest", "green", "green_literal"]
}

/// What a scheduler is built from besides its name (see `MptcpConfig`).
#[derive(Debug, Clone, Copy)]
pub struct Setup<'a> {
    /// Its parameters (`mptcp.scheduler_params`).
    pub params: &'a ParamTable,
    /// g_i by the data sender's interface index (Green MPTCP §3.2), if the
    /// sender's host has a linear energy model.
    pub energy_profile: Option<&'a [f64]>,
}

/// Why a scheduler cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum SetupError {
    /// (key, problem) for each bad parameter.
    Params(Vec<(String, String)>),
    /// It needs an energy profile that is missing or unusable: why.
    Energy(String),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SetupError::Params(problems) => {
                let each: Vec<String> = problems.iter().map(|(k, m)| format!("scheduler_params.{k}: {m}")).collect();
                f.write_str(&each.join("; "))
            }
            SetupError::Energy(why) => f.write_str(why),
        }
    }
}

/// Builds scheduler `name` (one of `names()`); parameter problems are
/// reported before a missing energy profile.
pub fn make(name: &str, setup: &Setup) -> Result<Box<dyn Scheduler>, SetupError> {
    let mut p = Params::new(name, setup.params);
    let built: Result<Box<dyn Scheduler>, String> = match name {
        "minrtt" => Ok(Box::new(minrtt::MinRtt)),
        "linger" => Ok(Box::new(linger::Linger::default())),
        "roundrobin" => Ok(Box::new(roundrobin::RoundRobin::default())),
        "redundant" => Ok(Box::new(redundant::Redundant::default())),
        "backup" => Ok(Box::new(backup::Backup)),
        "rp_bm" => Ok(Box::new(rp_bm::RpBm::default())),
        "blest" => Ok(Box::new(blest::Blest::default())),
        "green" => green::Green::build(false, &mut p, setup.energy_profile),
        "green_literal" => green::Green::build(true, &mut p, setup.energy_profile),
        other => panic!("scheduler '{other}' passed validation but is unknown"),
    };
    p.finish().map_err(SetupError::Params)?;
    built.map_err(SetupError::Energy)
}

/// The problems with `params` for scheduler `name`, as (key, message).
pub fn check_params(name: &str, params: &ParamTable) -> Vec<(String, String)> {
    match make(name, &Setup { params, energy_profile: None }) {
        Err(SetupError::Params(problems)) => problems,
        _ => Vec::new(),
    }
}

/// Whether scheduler `name` splits data by the sender's energy profile.
pub fn needs_energy_profile(name: &str) -> bool {
    matches!(name, "green" | "green_literal")
}

/// Linux's `__mptcp_next_segment` with a subflow choice: the reinjection
/// queue first, then new data if the receive window admits it.
pub fn next_segment(
    subflows: &[SubflowView],
    conn: &ConnectionView,
    mut pick: impl FnMut(&[SubflowView], &Chunk) -> Option<usize>,
) -> Step {
    let chunk = match (conn.reinject, conn.new_data) {
        (Some(c), _) => c,
        (None, Some(c)) if !conn.window_limited => c,
        _ => return Step::Wait,
    };
    match pick(subflows, &chunk) {
        Some(subflow) => Step::Send { subflow, chunk },
        None => Step::Wait,
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// An established, open subflow with an empty window of `cwnd` segments of 1000 bytes.
    pub fn sf(id: usize, srtt_ms: u64, cwnd: u64) -> SubflowView {
        SubflowView {
            id,
            bit: 1 << id,
            iface: id as u16,
            srtt: Some(Time::from_millis(srtt_ms)),
            min_rtt: Some(Time::from_millis(srtt_ms)),
            cwnd: cwnd * 1000,
            ssthresh: u64::MAX,
            in_flight: 0,
            queued: 0,
            outstanding: 0,
            mss: 1000,
            sndbuf_expand: 2,
            backup: false,
            usable: true,
            stalled: false,
            open_state: true,
        }
    }

    pub fn new_chunk(dsn: u64) -> Chunk {
        Chunk { dsn, len: 1000, sent_on: 0 }
    }

    pub fn conn(unacked: &VecDeque<Chunk>, new_dsn: Option<u64>, window_limited: bool) -> ConnectionView<'_> {
        ConnectionView {
            now: Time::from_secs(10),
            reinject: None,
            new_data: new_dsn.map(new_chunk),
            window_limited,
            send_window: 100_000,
            unacked,
        }
    }
}
