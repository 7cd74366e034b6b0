//! The radio state machine of Huang et al., "A Close Examination of
//! Performance and Power Characteristics of 4G LTE Networks", MobiSys 2012,
//! shared by the LTE, Wi-Fi, 3G, NR and wired models: they differ in
//! their numbers only.
//!
//!   Idle ──traffic──▶ Promotion (T_pro at P_pro) ──▶ Active ──▶ Tail stage(s) ──▶ Idle
//!                                                      ▲            │
//!                                                      └─traffic────┘ (no promotion)
//!
//! Definitions (this model's, where the paper leaves a choice):
//! - **Promotion** starts at the first byte seen while idle. The bytes seen
//!   during it are held by the radio and leave when it ends (a caller that
//!   holds its traffic until `next_change()` sees the same energy). If the
//!   caller does not hold them, the promotion overlaps the start of the
//!   transfer and the active period is shorter by at most T_pro.
//! - **Active** while the interface carried a byte within the last `window`
//!   W (default 100 ms: the DRX inactivity timer T_i of the LTE network
//!   Huang et al. measured, after which continuous reception ends). Its
//!   power is P = α_u·t_u + α_d·t_d + β (their data transfer model, Table 4):
//!   β over the active time, and the throughput terms α·t integrated over
//!   time, which is α per bit whatever the window; `energy_j` charges them
//!   per bit when the bytes leave, `power_w` shows them as the throughput of
//!   the trailing window W.
//! - **Tail**: the tail timer starts at the last byte and restarts at every
//!   byte; its stages (one for LTE and Wi-Fi; DCH then FACH for 3G) run back
//!   to back from the last byte, the first W of them being the active period.
//!   The radio is idle again T_tail after the last byte (or W, if longer).
//! - **Idle** at the idle power until the next byte.

use std::collections::VecDeque;

use super::{PowerModel, RadioState};
use crate::cc::Params;
use crate::time::Time;

/// One stage of the tail: the radio stays connected `duration` at `power_w`.
#[derive(Debug, Clone, PartialEq)]
pub struct TailStage {
    pub duration: Time,
    pub power_w: f64,
}

/// One interface's power model, in SI units (s, W, J per bit).
#[derive(Debug, Clone, PartialEq)]
pub struct RadioParams {
    pub promotion_time: Time,
    pub promotion_power_w: f64,
    /// α_u: joules per uplink bit (W per bit/s).
    pub alpha_up_j_per_bit: f64,
    /// α_d: joules per downlink bit (W per bit/s).
    pub alpha_down_j_per_bit: f64,
    /// β: the active state's power at zero throughput.
    pub beta_w: f64,
    pub tail: Vec<TailStage>,
    pub idle_power_w: f64,
    /// W: an interface is active while it carried a byte within the last W.
    pub window: Time,
}

/// A tail stage's published values and the keys that override them.
pub struct TailDefault {
    pub time_key: &'static str,
    pub power_key: &'static str,
    pub ms: f64,
    pub mw: f64,
}

/// A technology's published values in the paper's units (ms, mW, mW/Mbps).
pub struct Defaults {
    pub promotion_ms: f64,
    pub promotion_mw: f64,
    pub alpha_up_mw_per_mbps: f64,
    pub alpha_down_mw_per_mbps: f64,
    pub beta_mw: f64,
    pub tail: &'static [TailDefault],
    pub idle_mw: f64,
}

/// Parameter keys common to every technology; the tail's come from `Defaults::tail`.
pub const PROMOTION_TIME: &str = "promotion_time";
pub const PROMOTION_POWER: &str = "promotion_power_mw";
pub const ALPHA_UP: &str = "alpha_up_mw_per_mbps";
pub const ALPHA_DOWN: &str = "alpha_down_mw_per_mbps";
pub const BETA: &str = "beta_mw";
pub const IDLE_POWER: &str = "idle_power_mw";
pub const WINDOW: &str = "window";
/// The LTE DRX inactivity timer T_i = 100 ms of Huang et al.'s network, the default W.
const DEFAULT_WINDOW: Time = Time::from_millis(100);

/// mW per Mbit/s → J per bit.
const MW_PER_MBPS: f64 = 1e-9;

impl Defaults {
    /// The keys of the values given here, in the order `RadioParams::read` reads them (`window` is not one).
    pub fn keys(&self) -> Vec<&'static str> {
        let mut keys = vec![PROMOTION_TIME, PROMOTION_POWER, ALPHA_UP, ALPHA_DOWN, BETA];
        for t in self.tail {
            keys.extend([t.time_key, t.power_key]);
        }
        keys.push(IDLE_POWER);
        keys
    }
}

impl RadioParams {
    /// These defaults, each overridable; a negative power or time is reported.
    pub fn read(p: &mut Params, d: &Defaults) -> RadioParams {
        let power = |p: &mut Params, key: &'static str, mw: f64| p.number(key, mw, |v| v >= 0.0, "a power in mW, 0 or more") * 1e-3;
        let alpha = |p: &mut Params, key: &'static str, v: f64| p.number(key, v, |v| v >= 0.0, "in mW per Mbit/s, 0 or more") * MW_PER_MBPS;
        let time = |p: &mut Params, key: &'static str, ms: f64| p.duration(key, from_ms(ms), |_| true, "a duration, 0 or more");
        let promotion_time = time(p, PROMOTION_TIME, d.promotion_ms);
        let promotion_power_w = power(p, PROMOTION_POWER, d.promotion_mw);
        let alpha_up_j_per_bit = alpha(p, ALPHA_UP, d.alpha_up_mw_per_mbps);
        let alpha_down_j_per_bit = alpha(p, ALPHA_DOWN, d.alpha_down_mw_per_mbps);
        let beta_w = power(p, BETA, d.beta_mw);
        let tail = d.tail.iter().map(|t| TailStage { duration: time(p, t.time_key, t.ms), power_w: power(p, t.power_key, t.mw) }).collect();
        RadioParams {
            promotion_time,
            promotion_power_w,
            alpha_up_j_per_bit,
            alpha_down_j_per_bit,
            beta_w,
            tail,
            idle_power_w: power(p, IDLE_POWER, d.idle_mw),
            window: p.duration(WINDOW, DEFAULT_WINDOW, |t| t > Time::ZERO, "longer than 0"),
        }
    }

    /// T_tail: the tail stages' total.
    pub fn tail_time(&self) -> Time {
        self.tail.iter().fold(Time::ZERO, |sum, t| sum + t.duration)
    }
}

fn from_ms(ms: f64) -> Time {
    Time::from_secs_f64(ms / 1e3)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Idle,
    /// Promoting until `end`; the bytes seen meanwhile leave when it ends.
    Promotion {
        end: Time,
    },
    /// Connected since the last byte left at `last`.
    Connected {
        last: Time,
    },
}

/// The state machine above, fed by one interface's traffic.
#[derive(Debug, Clone)]
pub struct RadioModel {
    p: RadioParams,
    /// How long the radio stays connected after the last byte: max(T_tail, W).
    connected: Time,
    now: Time,
    phase: Phase,
    /// Joules of the states' powers over time (β for the active state).
    state_energy: f64,
    /// Joules of the throughput terms, α per bit.
    bit_energy: f64,
    /// Bytes (up, down) held by the promotion.
    held: (u64, u64),
    /// Bytes (time, up, down) sent within the trailing window, and their sums.
    recent: VecDeque<(Time, u64, u64)>,
    recent_up: u64,
    recent_down: u64,
}

impl RadioModel {
    /// Idle at time 0.
    pub fn new(p: RadioParams) -> RadioModel {
        RadioModel {
            connected: p.tail_time().max(p.window),
            p,
            now: Time::ZERO,
            phase: Phase::Idle,
            state_energy: 0.0,
            bit_energy: 0.0,
            held: (0, 0),
            recent: VecDeque::new(),
            recent_up: 0,
            recent_down: 0,
        }
    }

    fn send(&mut self, at: Time, up: u64, down: u64) {
        self.bit_energy += 8.0 * (up as f64 * self.p.alpha_up_j_per_bit + down as f64 * self.p.alpha_down_j_per_bit);
        self.recent.push_back((at, up, down));
        self.recent_up += up;
        self.recent_down += down;
    }

    /// Energy of the connected period from the last byte to `x` seconds after it.
    fn connected_energy(&self, x: f64) -> f64 {
        let w = self.p.window.secs();
        let mut energy = self.p.beta_w * x.min(w);
        let mut start = 0.0;
        for stage in &self.p.tail {
            let end = start + stage.duration.secs();
            let (from, to) = (start.max(w), end.min(x));
            if to > from {
                energy += stage.power_w * (to - from);
            }
            start = end;
        }
        let idle_from = start.max(w);
        if x > idle_from {
            energy += self.p.idle_power_w * (x - idle_from);
        }
        energy
    }

    /// Energy from `a` to `b` in the current phase (`b` within it).
    fn energy_between(&self, a: Time, b: Time) -> f64 {
        match self.phase {
            Phase::Idle => self.p.idle_power_w * (b - a).secs(),
            Phase::Promotion { .. } => self.p.promotion_power_w * (b - a).secs(),
            Phase::Connected { last } => self.connected_energy((b - last).secs()) - self.connected_energy((a - last).secs()),
        }
    }

    /// The tail stage `since` after the last byte, with its end (after the last byte).
    fn tail_stage(&self, since: Time) -> Option<(&TailStage, Time)> {
        let mut end = Time::ZERO;
        self.p.tail.iter().find_map(|stage| {
            end += stage.duration;
            (since < end).then_some((stage, end))
        })
    }
}

impl PowerModel for RadioModel {
    fn on_traffic(&mut self, now: Time, up_bytes: u64, down_bytes: u64) {
        self.advance(now);
        if up_bytes + down_bytes == 0 {
            return;
        }
        match self.phase {
            Phase::Idle if self.p.promotion_time > Time::ZERO => {
                self.phase = Phase::Promotion { end: self.now + self.p.promotion_time };
                self.held = (up_bytes, down_bytes);
            }
            Phase::Promotion { .. } => {
                self.held.0 += up_bytes;
                self.held.1 += down_bytes;
            }
            Phase::Idle | Phase::Connected { .. } => {
                self.phase = Phase::Connected { last: self.now };
                self.send(self.now, up_bytes, down_bytes);
            }
        }
    }

    fn advance(&mut self, now: Time) {
        if now <= self.now {
            return;
        }
        if let Phase::Promotion { end } = self.phase {
            if end <= now {
                self.state_energy += self.energy_between(self.now, end);
                self.now = end;
                self.phase = Phase::Connected { last: end };
                let (up, down) = std::mem::take(&mut self.held);
                self.send(end, up, down);
            }
        }
        self.state_energy += self.energy_between(self.now, now);
        self.now = now;
        if let Phase::Connected { last } = self.phase {
            if now >= last + self.connected {
                self.phase = Phase::Idle;
            }
        }
        while let Some(&(at, up, down)) = self.recent.front() {
            if at + self.p.window > now {
                break;
            }
            self.recent.pop_front();
            self.recent_up -= up;
            self.recent_down -= down;
        }
    }

    fn energy_j(&self) -> f64 {
        self.state_energy + self.bit_energy
    }

    fn state(&self) -> RadioState {
        match self.phase {
            Phase::Idle => RadioState::Idle,
            Phase::Promotion { .. } => RadioState::Promotion,
            Phase::Connected { last } if self.now < last + self.p.window => RadioState::Active,
            Phase::Connected { last } if self.now < last + self.connected => RadioState::Tail,
            Phase::Connected { .. } => RadioState::Idle,
        }
    }

    fn power_w(&self) -> f64 {
        match (self.state(), self.phase) {
            (RadioState::Promotion, _) => self.p.promotion_power_w,
            (RadioState::Active, _) => {
                let bits_per_s = |bytes: u64| 8.0 * bytes as f64 / self.p.window.secs();
                self.p.beta_w
                    + self.p.alpha_up_j_per_bit * bits_per_s(self.recent_up)
                    + self.p.alpha_down_j_per_bit * bits_per_s(self.recent_down)
            }
            (RadioState::Tail, Phase::Connected { last }) => self.tail_stage(self.now - last).expect("within the tail").0.power_w,
            _ => self.p.idle_power_w,
        }
    }

    fn next_change(&self) -> Option<Time> {
        match (self.state(), self.phase) {
            (RadioState::Promotion, Phase::Promotion { end }) => Some(end),
            (RadioState::Active, Phase::Connected { last }) => Some(last + self.p.window),
            (RadioState::Tail, Phase::Connected { last }) => self.tail_stage(self.now - last).map(|(_, end)| last + end),
            _ => None,
        }
    }
}

/// Checks the state machine of any technology with a promotion and a tail
/// longer than the window: promotion before the first transfer from idle,
/// tail timer restarted by traffic (without a promotion), idle after the tail.
#[cfg(test)]
pub(crate) fn check_state_machine(p: &RadioParams) {
    let mut m = RadioModel::new(p.clone());
    let tail = p.tail_time();
    assert!(p.promotion_time > Time::ZERO && tail > p.window, "{p:?}");
    let t0 = Time::from_secs(1);
    m.advance(t0);
    assert_eq!((m.state(), m.power_w()), (RadioState::Idle, p.idle_power_w));
    assert!((m.energy_j() - p.idle_power_w).abs() < 1e-12);

    // Promotion first: the bytes leave when it ends.
    m.on_traffic(t0, 300, 0);
    assert_eq!((m.state(), m.power_w(), m.next_change()), (RadioState::Promotion, p.promotion_power_w, Some(t0 + p.promotion_time)));
    let sent = t0 + p.promotion_time;
    m.advance(sent);
    assert_eq!((m.state(), m.next_change()), (RadioState::Active, Some(sent + p.window)));
    let uplink_w = p.alpha_up_j_per_bit * 8.0 * 300.0 / p.window.secs();
    assert!((m.power_w() - (p.beta_w + uplink_w)).abs() < 1e-12);

    // Tail after the window, at the first stage's power.
    m.advance(sent + p.window);
    assert_eq!((m.state(), m.power_w()), (RadioState::Tail, p.tail[0].power_w));

    // Traffic late in the tail: active again at once, and the timer restarts.
    let again = sent + Time::from_secs_f64(0.9 * tail.secs());
    m.advance(again);
    assert_eq!(m.state(), RadioState::Tail);
    m.on_traffic(again, 0, 1500);
    assert_eq!(m.state(), RadioState::Active);
    m.advance(sent + tail + p.window);
    assert_eq!(m.state(), RadioState::Tail, "the first timer would have expired");
    m.advance(again + tail - Time::from_nanos(1));
    assert_eq!(m.state(), RadioState::Tail);
    let before = m.energy_j();
    m.advance(again + tail);
    assert_eq!((m.state(), m.power_w(), m.next_change()), (RadioState::Idle, p.idle_power_w, None));
    assert!(m.energy_j() >= before);

    // Traffic when idle promotes again.
    m.on_traffic(again + tail + Time::from_secs(1), 52, 0);
    assert_eq!(m.state(), RadioState::Promotion);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RadioParams {
        RadioParams {
            promotion_time: Time::from_millis(200),
            promotion_power_w: 1.0,
            alpha_up_j_per_bit: 4e-7,
            alpha_down_j_per_bit: 1e-7,
            beta_w: 2.0,
            tail: vec![TailStage { duration: Time::from_secs(2), power_w: 0.5 }, TailStage { duration: Time::from_secs(1), power_w: 0.25 }],
            idle_power_w: 0.01,
            window: Time::from_millis(100),
        }
    }

    #[test]
    fn state_machine_with_two_tail_stages() {
        check_state_machine(&params());
    }

    #[test]
    fn energy_is_each_states_power_times_its_time_plus_alpha_per_bit() {
        let p = params();
        let mut m = RadioModel::new(p.clone());
        // Idle 1 s, promotion 0.2 s, one packet of 1000 B down and 100 B up,
        // active 0.1 s, tails 1.9 s + 1 s, idle 2 s.
        m.on_traffic(Time::from_secs(1), 100, 1000);
        m.advance(Time::from_millis(1200));
        assert_eq!(m.next_change(), Some(Time::from_millis(1300)));
        m.advance(Time::from_millis(1300));
        assert_eq!(m.next_change(), Some(Time::from_millis(3200)), "end of the first tail stage");
        m.advance(Time::from_millis(3500));
        assert_eq!((m.power_w(), m.next_change()), (0.25, Some(Time::from_millis(4200))));
        m.advance(Time::from_millis(6200));
        let expected = 0.01 * 1.0 + 1.0 * 0.2 + 2.0 * 0.1 + 0.5 * 1.9 + 0.25 * 1.0 + 0.01 * 2.0 + 4e-7 * 800.0 + 1e-7 * 8000.0;
        assert!((m.energy_j() - expected).abs() < 1e-12, "{} vs {expected}", m.energy_j());
    }

    #[test]
    fn active_power_is_the_trailing_windows_throughput() {
        let mut m = RadioModel::new(RadioParams { promotion_time: Time::ZERO, ..params() });
        // 1250 B every 10 ms downlink = 1 Mbit/s: P = β + α_d·1e6.
        for i in 0..50 {
            m.on_traffic(Time::from_millis(10 * i), 0, 1250);
        }
        assert_eq!(m.state(), RadioState::Active);
        assert!((m.power_w() - (2.0 + 0.1)).abs() < 1e-12, "{}", m.power_w());
        // Half a window after the last packet, half of it is left.
        m.advance(Time::from_millis(490 + 50));
        assert!((m.power_w() - (2.0 + 0.05)).abs() < 1e-12, "{}", m.power_w());
    }

    #[test]
    fn a_window_longer_than_the_tail_goes_idle_after_the_window() {
        let mut m = RadioModel::new(RadioParams { tail: vec![], promotion_time: Time::ZERO, ..params() });
        m.on_traffic(Time::from_secs(1), 0, 100);
        assert_eq!((m.state(), m.next_change()), (RadioState::Active, Some(Time::from_millis(1100))));
        m.advance(Time::from_millis(1100));
        assert_eq!(m.state(), RadioState::Idle);
        let expected = 0.01 * 1.0 + 2.0 * 0.1 + 1e-7 * 800.0;
        assert!((m.energy_j() - expected).abs() < 1e-12);
    }

    #[test]
    fn time_never_goes_back_and_empty_traffic_is_none() {
        let mut m = RadioModel::new(params());
        m.advance(Time::from_secs(2));
        m.advance(Time::from_secs(1));
        m.on_traffic(Time::from_secs(3), 0, 0);
        assert_eq!(m.state(), RadioState::Idle);
        assert!((m.energy_j() - 0.03).abs() < 1e-12);
    }
}
