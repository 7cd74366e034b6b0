//! 3G (UMTS/HSPA): the RRC state machine of Qian, Wang, Gerber, Mao, Sen,
//! Spatscheck, "Characterizing Radio Resource Allocation for 3G Networks",
//! IMC 2010 (IDLE → DCH by promotion; DCH → FACH → IDLE by two inactivity
//! timers), with the values Huang et al. measured for 3G in "A Close
//! Examination of Performance and Power Characteristics of 4G LTE Networks",
//! MobiSys 2012, Tables 3 and 4, on the state machine of `radio.rs`: the
//! active state is DCH, the tail is the DCH tail then the FACH tail.
//!
//! Not modelled: traffic in the FACH tail goes back to DCH at once (Qian et
//! al.'s FACH → DCH promotion, and small transfers staying on FACH, have no
//! value in Huang et al.'s tables). Powers include the 11.4 mW base power
//! with the screen off, as in Table 3.

use super::radio::{Defaults, TailDefault};

/// Table 3: "3G DRX (idle)", 374.2 mW for 55.4 ms every 5112.4 ms, the base
/// power (11.4 mW) between: 15.3 mW on average.
const IDLE_MW: f64 = (374.2 * 55.4 + 11.4 * (5112.4 - 55.4)) / 5112.4;

pub const DEFAULTS: Defaults = Defaults {
    // Table 3: "3G promotion", 659.4 mW for 582.1 ms.
    promotion_ms: 582.1,
    promotion_mw: 659.4,
    // Table 4: the data transfer power model of 3G.
    alpha_up_mw_per_mbps: 868.98,
    alpha_down_mw_per_mbps: 122.12,
    beta_mw: 817.88,
    tail: &[
        // Table 3: "3G DCH tail base", 803.9 mW for 8088.2 ms.
        TailDefault { time_key: "dch_tail_time", power_key: "dch_tail_power_mw", ms: 8088.2, mw: 803.9 },
        // Table 3: "3G FACH tail base", 601.3 mW for 824.2 ms.
        TailDefault { time_key: "fach_tail_time", power_key: "fach_tail_power_mw", ms: 824.2, mw: 601.3 },
    ],
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
        RadioParams::read(&mut Params::new("umts", &Default::default()), &DEFAULTS)
    }

    #[test]
    fn state_machine() {
        let p = params();
        assert_eq!(p.tail_time(), Time::from_micros(8_088_200 + 824_200));
        assert!((p.idle_power_w - 0.015_33).abs() < 1e-5, "{}", p.idle_power_w);
        check_state_machine(&p);
    }

    #[test]
    fn dch_tail_then_fach_tail_then_idle() {
        let p = params();
        let mut m = RadioModel::new(p.clone());
        m.on_traffic(Time::ZERO, 52, 0);
        let sent = m.next_change().unwrap();
        m.advance(sent + Time::from_secs(8));
        assert_eq!((m.state(), m.power_w()), (RadioState::Tail, 0.8039));
        let fach = sent + Time::from_micros(8_088_200);
        assert_eq!(m.next_change(), Some(fach));
        m.advance(fach);
        assert_eq!((m.state(), m.power_w()), (RadioState::Tail, 0.6013));
        // Traffic on FACH goes back to DCH without a promotion.
        m.on_traffic(fach + Time::from_millis(500), 0, 1500);
        assert_eq!(m.state(), RadioState::Active);
        m.advance(fach + Time::from_millis(500) + p.tail_time());
        assert_eq!(m.state(), RadioState::Idle);
    }
}
