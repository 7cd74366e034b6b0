//! LTE: the power model of Huang, Qian, Gerber, Mao, Sen, Spatscheck, "A
//! Close Examination of Performance and Power Characteristics of 4G LTE
//! Networks", MobiSys 2012, measured on a commercial LTE network, on the
//! state machine of `radio.rs`.
//!
//! Every power in Table 3 includes the device's base power with the screen
//! off (11.4 mW), and so do these.

use super::radio::{Defaults, TailDefault};

/// Table 3: the idle state's DRX cycle, 594.3 mW on for 43.2 ms every
/// 1280.2 ms, the base power (11.4 mW, "screen off") between: 31.1 mW on average.
const IDLE_MW: f64 = (594.3 * 43.2 + 11.4 * (1280.2 - 43.2)) / 1280.2;

pub const DEFAULTS: Defaults = Defaults {
    // Table 3: "LTE promotion", 1210.7 mW for T_pro = 260.1 ms.
    promotion_ms: 260.1,
    promotion_mw: 1210.7,
    // Table 4: the data transfer power model of LTE, P = α_u·t_u + α_d·t_d + β.
    alpha_up_mw_per_mbps: 438.39,
    alpha_down_mw_per_mbps: 51.97,
    beta_mw: 1288.04,
    // Table 3: "LTE tail base", 1060.0 mW for T_tail = 11576.0 ms (continuous
    // reception, then short and long DRX). The DRX on-durations (1 ms at
    // 1680 mW every 20 or 40 ms) are left out: 3 % of the tail's power in
    // short DRX, 1.5 % in long DRX.
    tail: &[TailDefault { time_key: "tail_time", power_key: "tail_power_mw", ms: 11576.0, mw: 1060.0 }],
    idle_mw: IDLE_MW,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::energy::radio::{check_state_machine, RadioModel, RadioParams};
    use crate::energy::{PowerModel, RadioState};
    use crate::time::Time;

    fn params() -> RadioParams {
        RadioParams::read(&mut Params::new("lte", &Default::default()), &DEFAULTS)
    }

    #[test]
    fn state_machine() {
        let p = params();
        assert_eq!((p.promotion_time, p.tail_time()), (Time::from_micros(260_100), Time::from_millis(11_576)));
        assert!((p.idle_power_w - 0.031_07).abs() < 1e-5, "{}", p.idle_power_w);
        check_state_machine(&p);
    }

    /// One download from idle: a 300 B request promotes the radio, then
    /// 10 MB arrive at a constant 10 Mbit/s in 1500 B packets, one 52 B ACK
    /// per two. The closed form of Huang et al.: E = P_pro·T_pro +
    /// (α_u·t_u + α_d·t_d + β)·D + P_tail·T_tail, plus the idle power before
    /// and after, with D the transfer's duration (bytes / rate).
    #[test]
    fn single_transfer_matches_the_closed_form() {
        let p = params();
        let mut m = RadioModel::new(p.clone());
        let t0 = Time::from_secs(1);
        m.on_traffic(t0, 300, 0);
        let start = m.next_change().expect("promoting");
        assert_eq!(start, t0 + p.promotion_time);
        let (packets, gap) = (6667u64, Time::from_micros(1200));
        let mut up = 300;
        for k in 0..packets {
            let ack = if k % 2 == 1 { 52 } else { 0 };
            up += ack;
            m.on_traffic(start + Time::from_nanos(k * gap.nanos()), ack, 1500);
            assert_eq!(m.state(), RadioState::Active);
        }
        let end = Time::from_secs(30);
        m.advance(end);
        assert_eq!(m.state(), RadioState::Idle);

        let d = (packets * gap.nanos()) as f64 / 1e9;
        let (t_u, t_d) = (8.0 * up as f64 / d, 8.0 * (packets * 1500) as f64 / d);
        let tail = p.tail_time().secs();
        let active = p.alpha_up_j_per_bit * t_u + p.alpha_down_j_per_bit * t_d + p.beta_w;
        let idle = t0.secs() + (end.secs() - start.secs() - d - tail);
        let closed = p.promotion_power_w * p.promotion_time.secs() + active * d + p.tail[0].power_w * tail + p.idle_power_w * idle;
        let error = (m.energy_j() - closed).abs() / closed;
        assert!(error < 0.01, "model {} J, closed form {closed} J", m.energy_j());
        // 0.3 J of promotion, 10.3 J at β, 4.8 J for the bits, 12.3 J of tail, 0.3 J idle.
        assert!((closed - 28.0).abs() < 0.1, "{closed}");
    }
}
