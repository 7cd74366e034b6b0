//! Wi-Fi: the power model Huang et al. measured alongside LTE ("A Close
//! Examination of Performance and Power Characteristics of 4G LTE
//! Networks", MobiSys 2012), on the state machine of `radio.rs`.
//! Powers include the 11.4 mW base power with the screen off, as in Table 3.

use super::radio::{Defaults, TailDefault};

/// Table 3: "WiFi beacon (idle)", 77.2 mW for 7.6 ms every 308.2 ms, the base
/// power (11.4 mW) between: 13.0 mW on average.
const IDLE_MW: f64 = (77.2 * 7.6 + 11.4 * (308.2 - 7.6)) / 308.2;

pub const DEFAULTS: Defaults = Defaults {
    // Table 3: "WiFi promotion", 124.4 mW for 79.1 ms.
    promotion_ms: 79.1,
    promotion_mw: 124.4,
    // Table 4: the data transfer power model of WiFi.
    alpha_up_mw_per_mbps: 283.17,
    alpha_down_mw_per_mbps: 137.01,
    beta_mw: 132.86,
    // Table 3: "WiFi tail base", 119.3 mW for 238.1 ms.
    tail: &[TailDefault { time_key: "tail_time", power_key: "tail_power_mw", ms: 238.1, mw: 119.3 }],
    idle_mw: IDLE_MW,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::energy::radio::{check_state_machine, RadioParams};
    use crate::time::Time;

    #[test]
    fn state_machine() {
        let p = RadioParams::read(&mut Params::new("wifi", &Default::default()), &DEFAULTS);
        assert_eq!((p.promotion_time, p.tail_time()), (Time::from_micros(79_100), Time::from_micros(238_100)));
        assert!((p.idle_power_w - 0.013_02).abs() < 1e-5, "{}", p.idle_power_w);
        assert!((p.alpha_down_j_per_bit - 137.01e-9).abs() < 1e-15);
        check_state_machine(&p);
    }
}
