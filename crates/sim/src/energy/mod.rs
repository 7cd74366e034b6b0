//! Radio and energy models: per-interface power driven by the interface's
//! traffic, and Green MPTCP's linear model. docs/energy.md lists the models,
//! their parameters and sources.
//!
//! A power model is told the wire bytes of every packet that crosses its
//! interface, in both directions, headers included: data segments,
//! retransmissions, pure ACKs, SYN and FIN alike (a radio spends energy on
//! each). `up_bytes` are what the host transmits on the interface, counted
//! when they leave it even if the network drops them later; `down_bytes`
//! are what the interface receives.
//!
//! A model is built by technology name with a scenario's overrides
//! (`build`); every parameter of every technology can be overridden, and a
//! key the technology does not know, a negative power or a negative time is
//! refused, naming the key.

pub mod accounts;
pub mod linear;
pub mod lte;
pub mod nr;
pub mod radio;
pub mod umts;
pub mod wifi;
pub mod wired;

use crate::cc::{ParamTable, Params};
use crate::time::Time;
pub use radio::{RadioModel, RadioParams, TailStage};

/// A radio's state (Huang et al., MobiSys 2012).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RadioState {
    Idle,
    /// Moving from idle to connected before any data can flow.
    Promotion,
    /// Carrying data.
    Active,
    /// Connected without data until an inactivity timer expires.
    Tail,
}

impl RadioState {
    pub fn name(self) -> &'static str {
        match self {
            RadioState::Idle => "idle",
            RadioState::Promotion => "promotion",
            RadioState::Active => "active",
            RadioState::Tail => "tail",
        }
    }
}

/// One interface's power over time, fed by that interface's traffic. Time
/// never goes back: an earlier `now` than the last one is taken as the last.
pub trait PowerModel {
    /// Wire bytes sent (`up_bytes`) and received (`down_bytes`) on the
    /// interface at `now`: every packet, data or not (see the module docs).
    fn on_traffic(&mut self, now: Time, up_bytes: u64, down_bytes: u64);
    /// Moves the model to `now`, accounting the energy since the last call.
    fn advance(&mut self, now: Time);
    /// Joules spent from time 0 to the last `now`.
    fn energy_j(&self) -> f64;
    fn state(&self) -> RadioState;
    /// Watts at the last `now`.
    fn power_w(&self) -> f64;
    /// When the state or its power next changes without traffic (the end of
    /// the promotion, of the active window, of a tail stage); None when idle.
    /// A caller that holds an idle interface's traffic during the promotion
    /// sends it at the promotion's end, given here.
    fn next_change(&self) -> Option<Time>;
}

/// The radio technologies a scenario can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Technology {
    Wifi,
    Lte,
    Umts,
    Nr,
    Wired,
}

impl Technology {
    const ALL: [Technology; 5] = [Technology::Wifi, Technology::Lte, Technology::Umts, Technology::Nr, Technology::Wired];

    /// Names accepted in scenarios.
    pub fn names() -> &'static [&'static str] {
        &["wifi", "lte", "umts", "nr", "wired"]
    }

    pub fn name(self) -> &'static str {
        Technology::names()[Technology::ALL.iter().position(|t| *t == self).expect("listed")]
    }

    pub fn from_name(name: &str) -> Option<Technology> {
        Technology::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The power model of `technology` with the scenario's `overrides`, or what
/// is wrong with them as (parameter, message) pairs.
pub fn build(technology: &str, overrides: &ParamTable) -> Result<Box<dyn PowerModel>, Vec<(String, String)>> {
    let Some(tech) = Technology::from_name(technology) else {
        let message = format!("unknown radio technology '{technology}' (known: {})", Technology::names().join(", "));
        return Err(vec![("technology".to_string(), message)]);
    };
    let mut p = Params::new(technology, overrides);
    let params = match tech {
        Technology::Wifi => RadioParams::read(&mut p, &wifi::DEFAULTS),
        Technology::Lte => RadioParams::read(&mut p, &lte::DEFAULTS),
        Technology::Umts => RadioParams::read(&mut p, &umts::DEFAULTS),
        Technology::Nr => nr::read(&mut p, overrides),
        Technology::Wired => RadioParams::read(&mut p, &wired::DEFAULTS),
    };
    p.finish()?;
    Ok(Box::new(RadioModel::new(params)))
}

#[cfg(test)]
pub(crate) fn table(items: &[(&str, crate::cc::ParamValue)]) -> ParamTable {
    items.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ParamValue::{Number, Text};

    #[test]
    fn technologies_by_name() {
        for name in Technology::names() {
            assert_eq!(Technology::from_name(name).map(Technology::name), Some(*name));
        }
        assert_eq!(Technology::from_name("5g"), None);
        let e = build("5g", &ParamTable::new()).err().unwrap();
        assert_eq!(e[0].0, "technology");
        assert!(e[0].1.contains("unknown radio technology '5g' (known: wifi, lte, umts, nr, wired)"), "{}", e[0].1);
    }

    #[test]
    fn every_parameter_is_overridable() {
        let t = table(&[
            ("promotion_time", Text("100ms".into())),
            ("promotion_power_mw", Number(1000.0)),
            ("alpha_up_mw_per_mbps", Number(100.0)),
            ("alpha_down_mw_per_mbps", Number(50.0)),
            ("beta_mw", Number(1500.0)),
            ("tail_time", Number(2.0)),
            ("tail_power_mw", Number(500.0)),
            ("idle_power_mw", Number(10.0)),
            ("window", Text("50ms".into())),
        ]);
        let mut m = build("lte", &t).unwrap();
        m.on_traffic(Time::from_secs(1), 0, 1000);
        m.advance(Time::from_secs(4));
        let expected = 0.01 + 1.0 * 0.1 + 1.5 * 0.05 + 0.5 * 1.95 + 0.01 * 0.9 + 50e-9 * 8000.0;
        assert!((m.energy_j() - expected).abs() < 1e-12, "{} vs {expected}", m.energy_j());
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let t = table(&[
            ("tail_power_mw", Number(-1.0)),
            ("promotion_time", Text("-5ms".into())),
            ("beta_mw", Text("a lot".into())),
            ("window", Number(0.0)),
            ("dch_tail_time", Number(1.0)),
        ]);
        let e = build("lte", &t).err().unwrap();
        let keys: Vec<&str> = e.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["promotion_time", "beta_mw", "tail_power_mw", "window", "dch_tail_time"], "{e:?}");
        assert_eq!(e[2].1, "must be a power in mW, 0 or more, got -1");
        assert!(e[4].1.starts_with("unknown parameter for lte"), "{}", e[4].1);
    }
}
