//! 5G NR: the state machine of `radio.rs` (promotion, active power linear in
//! throughput, one tail, idle) with the scenario's values only. pathpool
//! cites no NR measurement to take defaults from, so every parameter but
//! `window` (a modelling choice, not a measured value) must be given.

use super::radio::RadioParams;
use super::wired;
use crate::cc::{ParamTable, Params};

const REQUIRED: &str =
    "required for nr: there is no cited 5G NR power model to take a default from, so every parameter must be given (docs/energy.md)";

/// NR's parameters from `table`, each missing one reported.
pub fn read(p: &mut Params, table: &ParamTable) -> RadioParams {
    for key in wired::DEFAULTS.keys() {
        if !table.contains_key(key) {
            p.problem(key, REQUIRED.to_string());
        }
    }
    // The same keys as wired; its values are never used, each key being required.
    RadioParams::read(p, &wired::DEFAULTS)
}

#[cfg(test)]
mod tests {
    use crate::cc::ParamValue::{Number, Text};
    use crate::cc::Params;
    use crate::energy::radio::check_state_machine;
    use crate::energy::{build, table, wired};

    fn given() -> crate::cc::ParamTable {
        table(&[
            ("promotion_time", Text("50ms".into())),
            ("promotion_power_mw", Number(2000.0)),
            ("alpha_up_mw_per_mbps", Number(10.0)),
            ("alpha_down_mw_per_mbps", Number(2.0)),
            ("beta_mw", Number(2500.0)),
            ("tail_time", Text("10s".into())),
            ("tail_power_mw", Number(1500.0)),
            ("idle_power_mw", Number(20.0)),
        ])
    }

    #[test]
    fn refused_unless_every_parameter_is_given() {
        let e = build("nr", &Default::default()).err().unwrap();
        let keys: Vec<&str> = e.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, wired::DEFAULTS.keys());
        assert_eq!(&keys[5..], ["tail_time", "tail_power_mw", "idle_power_mw"]);
        assert!(e[0].1.starts_with("required for nr: there is no cited 5G NR power model"), "{}", e[0].1);
        let mut partial = given();
        partial.remove("beta_mw");
        let e = build("nr", &partial).err().unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, "beta_mw");
    }

    #[test]
    fn state_machine_with_given_parameters() {
        let t = given();
        assert!(build("nr", &t).is_ok());
        let mut p = Params::new("nr", &t);
        let params = super::read(&mut p, &t);
        assert!(p.finish().is_ok());
        assert_eq!(params.beta_w, 2.5);
        check_state_machine(&params);
    }
}
