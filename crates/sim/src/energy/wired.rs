//! Wired interfaces: no power unless the scenario gives it. The keys are
//! those of LTE and Wi-Fi (one tail), every value 0.

use super::radio::{Defaults, TailDefault};

pub const DEFAULTS: Defaults = Defaults {
    promotion_ms: 0.0,
    promotion_mw: 0.0,
    alpha_up_mw_per_mbps: 0.0,
    alpha_down_mw_per_mbps: 0.0,
    beta_mw: 0.0,
    tail: &[TailDefault { time_key: "tail_time", power_key: "tail_power_mw", ms: 0.0, mw: 0.0 }],
    idle_mw: 0.0,
};

#[cfg(test)]
mod tests {
    use crate::cc::{ParamTable, ParamValue::Number};
    use crate::energy::{build, table, RadioState};
    use crate::time::Time;

    #[test]
    fn zero_power_unless_given() {
        let mut m = build("wired", &ParamTable::new()).unwrap();
        m.on_traffic(Time::from_secs(1), 1500, 1500);
        assert_eq!(m.state(), RadioState::Active, "no promotion");
        m.advance(Time::from_secs(10));
        assert_eq!((m.state(), m.energy_j()), (RadioState::Idle, 0.0));

        let mut m = build("wired", &table(&[("idle_power_mw", Number(500.0)), ("beta_mw", Number(1000.0))])).unwrap();
        m.on_traffic(Time::from_secs(1), 0, 100);
        m.advance(Time::from_secs(2));
        assert!((m.energy_j() - (0.5 * 1.9 + 1.0 * 0.1)).abs() < 1e-12, "{}", m.energy_j());
    }
}
