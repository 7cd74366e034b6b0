//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016), following
//! Linux's `tcp_bbr.c` function by function:
//!
//!   bottleneck_bw = windowed max of delivery-rate samples over 10 round trips
//!   min_rtt       = windowed min of RTT samples over 10 s
//!   pacing_rate   = pacing_gain · bottleneck_bw
//!   cwnd          = cwnd_gain · bottleneck_bw · min_rtt (+ allowances)
//!
//! States: STARTUP (gains 2/ln 2) until the bandwidth stops growing by 25 %
//! for three rounds; DRAIN (pacing gain ln 2/2) until in-flight falls to one
//! BDP; PROBE_BW cycling pacing gains 1.25, 0.75, 1 ×6 (cwnd gain 2); and,
//! when min_rtt has not been refreshed for 10 s, PROBE_RTT: 4 packets in
//! flight for max(200 ms, one round). In loss recovery BBR conserves packets
//! for one round, then slow-starts towards its target, and restores the
//! pre-recovery cwnd on exit (not PRR). When two successive intervals of
//! 4–16 rounds lose 20 % or more at the same delivery rate, BBR takes that
//! rate as a policer's and paces at it for 48 rounds (`lt_bw`,
//! `bbr_long_term.rs`).
//!
//! Amounts are bytes (Linux counts packets; packet constants are multiplied
//! by the MSS). Not modelled: restart from idle (`CA_EVENT_TX_START`), the
//! delayed-ACK exemption of the min_rtt filter (`is_ack_delayed`), and
//! `bbr_undo_cwnd` (the simulator never undoes a recovery).

use super::bbr_long_term::{Counters, LongTermBw, Observation, Step};
use super::minmax::WindowedMax;
use super::{AckInfo, CcState, Congestion, CongestionControl, Params};
use crate::engine::RngStream;
use crate::time::Time;

/// Pacing gains of the PROBE_BW cycle (Linux `bbr_pacing_gain`).
const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The cycle starts at a random phase other than the draining one (Linux `bbr_cycle_rand`).
const CYCLE_RAND: usize = 7;
/// Pace 1 % below the estimated bandwidth (Linux `bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.01;
/// Packets kept in flight at least, and in PROBE_RTT (Linux `bbr_cwnd_min_target`).
const CWND_MIN_TARGET: u64 = 4;
/// STARTUP has filled the pipe when 3 rounds grow bandwidth by less than 25 %.
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_COUNT: u32 = 3;
/// Linux TCP_INIT_CWND, packets.
const INIT_CWND: u64 = 10;
/// The ACK-aggregation filter: max over 5-10 round trips, extra at most 100 ms of data.
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const EXTRA_ACKED_MAX: Time = Time::from_millis(100);
/// Linux `bbr_ack_epoch_acked_reset_thresh`: 2^20 packets.
const ACK_EPOCH_RESET_PACKETS: u64 = 1 << 20;
/// Below 1.2 Mbit/s one-segment bursts suffice (Linux `bbr_min_tso_rate`).
const MIN_TSO_RATE: f64 = 1.2e6 / 8.0;
/// Linux's largest GSO burst: GSO_MAX_SIZE − 1 − MAX_TCP_HEADER (320 on x86-64).
const MAX_BURST_BYTES: f64 = 65_536.0 - 1.0 - 320.0;

#[derive(Debug, Clone)]
pub struct BbrParams {
    /// STARTUP's pacing and cwnd gain (Linux `bbr_high_gain`, 2/ln 2); DRAIN paces at its inverse.
    pub high_gain: f64,
    /// PROBE_BW's cwnd gain (Linux `bbr_cwnd_gain`).
    pub cwnd_gain: f64,
    /// Length of the max-bandwidth filter in round trips (Linux `bbr_bw_rtts`).
    pub bw_window_rounds: u64,
    /// Length of the min-RTT filter (Linux `bbr_min_rtt_win_sec`).
    pub min_rtt_window: Time,
    /// Time held at 4 packets in PROBE_RTT (Linux `bbr_probe_rtt_mode_ms`).
    pub probe_rtt_duration: Time,
    /// Gain on the ACK-aggregation allowance; 0 turns it off (Linux `bbr_extra_acked_gain`).
    pub extra_acked_gain: f64,
    /// The long-term (policer) bandwidth estimate, `lt_bw` (Linux has it; ns-3 3.44 does not).
    pub long_term_bw: bool,
}

impl BbrParams {
    pub fn read(p: &mut Params) -> BbrParams {
        BbrParams {
            high_gain: p.number("high_gain", 2.0 / std::f64::consts::LN_2, |v| v > 1.0, "greater than 1"),
            cwnd_gain: p.number("cwnd_gain", 2.0, |v| v >= 1.0, "at least 1"),
            bw_window_rounds: p.number("bw_window_rounds", 10.0, |v| v >= 1.0 && v.fract() == 0.0, "a whole number of round trips, at least 1")
                as u64,
            min_rtt_window: p.duration("min_rtt_window", Time::from_secs(10), |t| t > Time::ZERO, "positive"),
            probe_rtt_duration: p.duration("probe_rtt_duration", Time::from_millis(200), |_| true, "a duration"),
            extra_acked_gain: p.number("extra_acked_gain", 1.0, |v| v >= 0.0, "at least 0"),
            long_term_bw: p.flag("long_term_bw", true),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The sender's loss-recovery state, as BBR tracks it (Linux `icsk_ca_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum CaState {
    Open,
    Recovery,
    Loss,
}

pub struct Bbr {
    p: BbrParams,
    rng: RngStream,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Max delivery rate over the last `bw_window_rounds` rounds, bytes/s.
    bw: WindowedMax,
    /// Round trips counted by packet delivery.
    rtt_cnt: u64,
    /// C.delivered at which the current round ends.
    next_rtt_delivered: u64,
    round_start: bool,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    prev_ca_state: CaState,
    packet_conservation: bool,
    /// cwnd before recovery or PROBE_RTT cut it.
    prior_cwnd: u64,
    has_seen_rtt: bool,
    started: bool,
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    lt: LongTermBw,
    /// Delivered and lost so far, as of the last ACK (Linux `tp->delivered`, `tp->lost`).
    counters: Counters,
}

impl Bbr {
    pub fn new(p: BbrParams, rng: RngStream) -> Bbr {
        let high_gain = p.high_gain;
        Bbr {
            p,
            rng,
            mode: Mode::Startup,
            pacing_gain: high_gain,
            cwnd_gain: high_gain,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            prior_cwnd: 0,
            has_seen_rtt: false,
            started: false,
            ack_epoch_stamp: Time::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            lt: LongTermBw::default(),
            counters: Counters::default(),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    /// The windowed max delivery rate, bytes/s (Linux `bbr_max_bw`).
    fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth BBR paces and sizes cwnd by: lt_bw while a policer is
    /// suspected, else the max filter (Linux `bbr_bw`).
    fn bw(&self) -> f64 {
        self.lt.estimate().unwrap_or_else(|| self.max_bw())
    }

    /// Payload bytes per second for `bw` and `gain`, 1 % under (Linux `bbr_bw_to_pacing_rate`).
    fn pacing_rate(bw: f64, gain: f64) -> f64 {
        bw * gain * (1.0 - PACING_MARGIN)
    }

    /// high_gain · cwnd / srtt, or a nominal 1 ms RTT before any sample
    /// (Linux `bbr_init_pacing_rate_from_rtt`).
    fn init_pacing_rate(&mut self, s: &mut CcState, srtt: Option<Time>) {
        let rtt = match srtt.filter(|r| *r > Time::ZERO) {
            Some(r) => {
                self.has_seen_rtt = true;
                r
            }
            None => Time::from_millis(1),
        };
        s.pacing_rate = Some(Bbr::pacing_rate(s.cwnd as f64 / rtt.secs(), self.p.high_gain));
    }

    /// Linux `bbr_set_pacing_rate`: in STARTUP the rate only rises.
    fn set_pacing_rate(&mut self, s: &mut CcState, srtt: Option<Time>) {
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(s, srtt);
        }
        let rate = Bbr::pacing_rate(self.bw(), self.pacing_gain);
        if rate > 0.0 && (self.full_bw_reached || s.pacing_rate.is_none_or(|r| rate > r)) {
            s.pacing_rate = Some(rate);
        }
    }

    /// Segments per burst at the current pacing rate: about 1 ms of data,
    /// at least 1 or 2 (Linux `bbr_tso_segs_goal`).
    fn tso_segs_goal(s: &CcState) -> u64 {
        let rate = s.pacing_rate.unwrap_or(0.0);
        let min_segs = if rate < MIN_TSO_RATE { 1 } else { 2 };
        // sk_pacing_shift = 10: the bytes of ~1 ms (1/1024 s) at the pacing rate.
        let bytes = (rate / 1024.0).min(MAX_BURST_BYTES);
        ((bytes / s.mss as f64) as u64).max(min_segs).min(0x7f)
    }

    /// ceil(gain · bw · min_rtt) in whole packets; 10 packets before any RTT sample (Linux `bbr_bdp`).
    fn bdp(&self, s: &CcState, bw: f64, gain: f64) -> u64 {
        let Some(min_rtt) = self.min_rtt else { return INIT_CWND * s.mss };
        (gain * bw * min_rtt.secs() / s.mss as f64).ceil() as u64 * s.mss
    }

    /// Room for the bursts of sending and receiving hosts, an even packet
    /// count, and 2 packets more while probing (Linux `bbr_quantization_budget`).
    fn quantization_budget(&self, s: &CcState, cwnd: u64) -> u64 {
        let packets = cwnd.div_ceil(s.mss) + 3 * Bbr::tso_segs_goal(s);
        let mut packets = packets.div_ceil(2) * 2;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            packets += 2;
        }
        packets * s.mss
    }

    /// Linux `bbr_inflight`.
    fn inflight(&self, s: &CcState, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(s, self.bdp(s, bw, gain))
    }

    /// In flight when the next paced segment leaves (Linux `bbr_packets_in_net_at_edt`).
    fn in_net_at_departure(&self, s: &CcState, ack: &AckInfo, in_flight: u64) -> u64 {
        let wait = ack.next_departure.saturating_sub(ack.now);
        let delivered_meanwhile = (self.bw() * wait.secs()) as u64;
        let mut at_departure = in_flight;
        if self.pacing_gain > 1.0 {
            at_departure += Bbr::tso_segs_goal(s) * s.mss;
        }
        at_departure.saturating_sub(delivered_meanwhile)
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self, s: &CcState) {
        self.prior_cwnd = if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            s.cwnd
        } else {
            self.prior_cwnd.max(s.cwnd)
        };
    }

    fn reset_probe_bw_mode(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = PACING_GAIN_CYCLE.len() - 1 - self.rng.below(CYCLE_RAND);
        self.advance_cycle_phase(now);
    }

    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn advance_cycle_phase(&mut self, delivered_time: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = delivered_time;
    }

    /// Linux `bbr_update_bw`: round counting, long-term sampling and the max-bandwidth filter.
    fn update_bw(&mut self, ack: &AckInfo) {
        self.round_start = false;
        let rs = &ack.rate;
        let Some(bw) = rs.rate() else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs.losses > 0, rs.is_app_limited);
        // Application-limited samples only raise the estimate.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.p.bw_window_rounds, self.rtt_cnt, bw);
        }
    }

    /// Linux `bbr_lt_bw_sampling`, and what its verdict changes: pacing gain 1
    /// at once (`bbr_lt_bw_interval_done`), gain cycling restarted when lt_bw
    /// is dropped.
    fn lt_bw_sampling(&mut self, losses: bool, is_app_limited: bool) {
        if !self.p.long_term_bw {
            return;
        }
        let o = Observation {
            counters: self.counters,
            losses,
            is_app_limited,
            round_start: self.round_start,
            probe_bw: self.mode == Mode::ProbeBw,
        };
        match self.lt.sample(o) {
            Step::Nothing => {}
            Step::StartedUsing => self.pacing_gain = 1.0,
            Step::StoppedUsing => self.reset_probe_bw_mode(self.counters.delivered_time),
        }
    }

    /// Linux `bbr_update_ack_aggregation`: the most data ACKed beyond bw × time
    /// in an epoch, max over 5–10 round trips.
    fn update_ack_aggregation(&mut self, s: &CcState, ack: &AckInfo) {
        let rs = &ack.rate;
        if self.p.extra_acked_gain == 0.0 || rs.acked_sacked == 0 || rs.rate().is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(31);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = rs.delivered_time.saturating_sub(self.ack_epoch_stamp);
        let mut expected = (self.bw() * epoch.secs()) as u64;
        // A new epoch when ACKs fall behind the expected rate, or this one is very old.
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_RESET_PACKETS * s.mss {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = rs.delivered_time;
            expected = 0;
        }
        self.ack_epoch_acked += rs.acked_sacked;
        let extra = (self.ack_epoch_acked - expected).min(s.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// Linux `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max_aggr = (self.bw() * EXTRA_ACKED_MAX.secs()) as u64;
        let aggr = (self.p.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1]) as f64) as u64;
        aggr.min(max_aggr)
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, s: &CcState, ack: &AckInfo) -> bool {
        let rs = &ack.rate;
        let full_length = self.min_rtt.is_some_and(|m| rs.delivered_time.saturating_sub(self.cycle_stamp) > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.in_net_at_departure(s, ack, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            // Probing: raise in-flight to gain × BDP, unless losses say it will not fit.
            full_length && (rs.losses > 0 || inflight >= self.inflight(s, bw, self.pacing_gain))
        } else {
            // Draining: stop once in-flight is back to one BDP.
            full_length || inflight <= self.inflight(s, bw, 1.0)
        }
    }

    /// Linux `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, ack: &AckInfo) {
        if self.full_bw_reached || !self.round_start || ack.rate.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_COUNT;
    }

    /// Linux `bbr_check_drain`.
    fn check_drain(&mut self, s: &mut CcState, ack: &AckInfo) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            s.ssthresh = self.inflight(s, self.max_bw(), 1.0);
        }
        if self.mode == Mode::Drain && self.in_net_at_departure(s, ack, ack.in_flight) <= self.inflight(s, self.max_bw(), 1.0) {
            self.reset_probe_bw_mode(ack.rate.delivered_time);
        }
    }

    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, s: &mut CcState, now: Time) {
        if self.probe_rtt_done_stamp.is_none_or(|d| now <= d) {
            return;
        }
        self.min_rtt_stamp = now;
        s.cwnd = s.cwnd.max(self.prior_cwnd);
        self.reset_mode(now);
    }

    /// Linux `bbr_update_min_rtt`, PROBE_RTT included. `ack.rtt` is Linux's
    /// `rs->rtt_us`: the RTT of the most recently sent segment the ACK newly
    /// delivers (`tcp_clean_rtx_queue`'s `ca_rtt_us`).
    fn update_min_rtt(&mut self, s: &mut CcState, ack: &AckInfo) {
        let now = ack.now;
        let expired = now > self.min_rtt_stamp + self.p.min_rtt_window;
        if let Some(rtt) = ack.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if self.p.probe_rtt_duration > Time::ZERO && expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(s);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples taken at 4 packets say nothing of the bandwidth.
            s.mark_app_limited = true;
            if self.probe_rtt_done_stamp.is_none() && ack.in_flight <= CWND_MIN_TARGET * s.mss {
                self.probe_rtt_done_stamp = Some(now + self.p.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = ack.rate.total_delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(s, now);
                }
            }
        }
    }

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (1.0 / self.p.high_gain, self.p.high_gain),
            // A suspected policer's rate is not probed beyond (Linux `bbr_update_gains`).
            Mode::ProbeBw if self.lt.estimate().is_some() => (1.0, self.p.cwnd_gain),
            Mode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_idx], self.p.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Packet conservation in the first round of recovery, the pre-recovery
    /// cwnd restored after it (Linux `bbr_set_cwnd_to_recover_or_restore`).
    /// Returns the cwnd to start from and whether conservation decides it.
    fn recover_or_restore(&mut self, s: &CcState, ack: &AckInfo, state: CaState) -> (u64, bool) {
        let acked = ack.rate.acked_sacked;
        // An ACK for P packets releases at most 2P: lost packets come off first.
        let mut cwnd = s.cwnd.saturating_sub(ack.rate.losses).max(s.mss);
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = ack.rate.total_delivered;
            cwnd = ack.in_flight + acked;
        } else if self.prev_ca_state >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(ack.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// Linux `bbr_set_cwnd`: slow-start towards the target, or snap down to it
    /// once the pipe was found full.
    fn set_cwnd(&mut self, s: &mut CcState, ack: &AckInfo, state: CaState) {
        let acked = ack.rate.acked_sacked;
        if acked > 0 {
            let (mut cwnd, conserving) = self.recover_or_restore(s, ack, state);
            if !conserving {
                let target = self.bdp(s, self.bw(), self.cwnd_gain) + self.ack_aggregation_cwnd();
                let target = self.quantization_budget(s, target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || ack.rate.total_delivered < INIT_CWND * s.mss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET * s.mss);
            }
            s.cwnd = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            s.cwnd = s.cwnd.min(CWND_MIN_TARGET * s.mss);
        }
    }
}

impl CongestionControl for Bbr {
    fn init(&mut self, s: &mut CcState) {
        s.ssthresh = u64::MAX;
        self.init_pacing_rate(s, None);
    }

    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo) {
        if !self.started {
            // Linux initialises BBR when the connection is established, with
            // the handshake's RTT as min_rtt.
            self.started = true;
            self.min_rtt = ack.min_rtt;
            self.min_rtt_stamp = ack.now;
            self.ack_epoch_stamp = ack.now;
        }
        self.counters = Counters {
            delivered: ack.rate.total_delivered,
            delivered_time: ack.rate.delivered_time,
            lost: self.counters.lost + ack.rate.losses,
        };
        let state = if ack.in_loss_recovery {
            CaState::Loss
        } else if ack.in_recovery {
            CaState::Recovery
        } else {
            CaState::Open
        };
        // bbr_update_model
        self.update_bw(ack);
        self.update_ack_aggregation(s, ack);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(s, ack) {
            self.advance_cycle_phase(ack.rate.delivered_time);
        }
        self.check_full_bw_reached(ack);
        self.check_drain(s, ack);
        self.update_min_rtt(s, ack);
        self.update_gains();
        // bbr_main
        self.set_pacing_rate(s, ack.srtt);
        self.set_cwnd(s, ack, state);
    }

    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, in_flight: u64) {
        // Entering recovery only saves cwnd (Linux `bbr_ssthresh`); ssthresh is unused.
        self.save_cwnd(s);
        if ev == Congestion::Timeout {
            // Linux tcp_enter_loss: cwnd = packets in flight (none, all deemed lost) + 1;
            // what was in flight is now lost, a lost retransmission counting again (tcp_timeout_mark_lost).
            s.cwnd = s.mss;
            self.counters.lost += in_flight;
            // bbr_set_state(TCP_CA_Loss) restarts full-pipe detection and takes
            // the timeout as the end of a round with a loss, for lt_bw.
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
            self.lt_bw_sampling(true, false);
        }
    }

    fn on_recovery_exit(&mut self, _s: &mut CcState) {
        // The next ACK sees the Open state and restores prior_cwnd.
    }

    fn owns_recovery_window(&self) -> bool {
        true
    }

    /// What Linux reports in `bbr_info`: `bbr_bw`.
    fn bandwidth_estimate(&self) -> Option<f64> {
        Some(self.bw())
    }

    /// `bbr_sndbuf_expand`: three windows, "since BBR may slow-start even during recovery".
    fn sndbuf_expand(&self) -> u64 {
        3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::RateSample;
    use crate::engine::Seeds;

    const MSS: u64 = 1000;

    fn bbr() -> Bbr {
        let t = Default::default();
        Bbr::new(BbrParams::read(&mut Params::new("bbr", &t)), Seeds { master: 1 }.stream("bbr"))
    }

    /// A full-rate ACK for `acked` bytes on a path of `bw` bytes/s and RTT `rtt`.
    fn ack(now: Time, bw: f64, rtt: Time, acked: u64, total: u64, in_flight: u64) -> AckInfo {
        AckInfo {
            now,
            acked,
            rtt: Some(rtt),
            srtt: Some(rtt),
            min_rtt: Some(rtt),
            in_flight,
            rate: RateSample {
                acked_sacked: acked,
                prior_in_flight: in_flight + acked,
                total_delivered: total,
                delivered_time: now,
                prior_delivered: total.saturating_sub((bw * rtt.secs()) as u64),
                delivered: (bw * rtt.secs()) as u64,
                interval: Some(rtt),
                is_app_limited: false,
                losses: 0,
            },
            ..AckInfo::default()
        }
    }

    #[test]
    fn gains_and_targets() {
        let b = bbr();
        assert!((b.pacing_gain - 2.885).abs() < 1e-3);
        let mut s = CcState { cwnd: 10 * MSS, mss: MSS, pacing_rate: Some(10e6), ..CcState::default() };
        // 10 MB/s: ~9.8 segments per ms, so bursts of 9 segments.
        assert_eq!(Bbr::tso_segs_goal(&s), 9);
        s.pacing_rate = Some(100e3);
        assert_eq!(Bbr::tso_segs_goal(&s), 1);
        let mut b = bbr();
        b.min_rtt = Some(Time::from_millis(100));
        // BDP of 1 MB/s × 100 ms = 100 packets; ×2 plus 3 one-packet bursts, rounded to even: 204.
        assert_eq!(b.bdp(&s, 1e6, 2.0), 200 * MSS);
        assert_eq!(b.inflight(&s, 1e6, 2.0), 204 * MSS);
    }

    #[test]
    fn startup_fills_the_pipe_then_drains_and_cycles() {
        let mut b = bbr();
        let mut s = CcState { cwnd: 10 * MSS, mss: MSS, ..CcState::default() };
        b.init(&mut s);
        let rtt = Time::from_millis(100);
        let bw = 1e6;
        let mut total = 0;
        // Round trips at the bottleneck rate: the estimate stops growing, so
        // after three rounds STARTUP ends; in-flight at one BDP ends DRAIN.
        for round in 1..=6u64 {
            total += 100 * MSS;
            let a = ack(Time::from_millis(100 * round), bw, rtt, 100 * MSS, total, 100 * MSS);
            b.on_ack(&mut s, &a);
        }
        assert!(b.full_bw_reached);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!((b.max_bw() - bw).abs() < 1e-6);
        let rate = s.pacing_rate.unwrap();
        assert!((rate - bw * PACING_GAIN_CYCLE[b.cycle_idx] * 0.99).abs() < 1e-6, "pacing rate {rate}");
    }

    #[test]
    fn gain_cycle_starts_at_a_random_phase_but_never_draining() {
        let mut b = bbr();
        let mut seen = [false; 8];
        for _ in 0..200 {
            b.reset_probe_bw_mode(Time::ZERO);
            seen[b.cycle_idx] = true;
        }
        assert_eq!(seen, [true, false, true, true, true, true, true, true]);
    }

    #[test]
    fn recovery_conserves_packets_then_restores() {
        let mut b = bbr();
        let mut s = CcState { cwnd: 200 * MSS, mss: MSS, ..CcState::default() };
        b.init(&mut s);
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.min_rtt = Some(Time::from_millis(100));
        b.started = true;
        b.on_congestion(&mut s, Congestion::FastRetransmit, 200 * MSS);
        assert_eq!(b.prior_cwnd, 200 * MSS);
        // First recovery ACK: 2 packets delivered, 150 in flight → cwnd 152.
        let mut a = ack(Time::from_secs(1), 1e6, Time::from_millis(100), 2 * MSS, 1000 * MSS, 150 * MSS);
        a.in_recovery = true;
        b.on_ack(&mut s, &a);
        assert_eq!(s.cwnd, 152 * MSS);
        // Leaving recovery restores the saved window.
        a.in_recovery = false;
        b.on_ack(&mut s, &a);
        assert!(s.cwnd >= 200 * MSS);
    }

    #[test]
    fn timeout_leaves_one_segment() {
        let mut b = bbr();
        let mut s = CcState { cwnd: 50 * MSS, mss: MSS, ..CcState::default() };
        b.init(&mut s);
        b.on_congestion(&mut s, Congestion::Timeout, 50 * MSS);
        assert_eq!((s.cwnd, b.prior_cwnd), (MSS, 50 * MSS));
    }
}
