//! A UE's channel to a cell: distance-based path loss, optional log-normal
//! shadowing, and the SINR and signal level they give.
//!
//! Path loss is the 3GPP macro-cell model (TR 25.942 §4.1.1.1, TR 36.942
//! §4.5.2): L = 40(1 − 4·10⁻³·Dhb)·log10(R) − 18·log10(Dhb) + 21·log10(f) + 80
//! dB, R in km; with f = 2000 MHz and a base-station antenna Dhb = 15 m above
//! the rooftops, L = 128.1 + 37.6·log10(R). Both constants are parameters.
//! The SINR is that of a lone cell (no other-cell interference):
//! P_tx + G − L − S − N, with N the thermal noise −174 dBm/Hz over the
//! cell's bandwidth (180 kHz per PRB) plus the receiver's noise figure.
//!
//! Shadowing S is Gudmundson's (1991) model: a Gaussian process in dB,
//! standard deviation σ, whose correlation decays as exp(−d / d_corr) with
//! the distance d the UE moved; one process per UE interface and cell,
//! stepped on a fixed time grid so that a seed gives one trace.

use crate::engine::RngStream;

/// The radio parameters of a cell and the UEs it serves.
#[derive(Debug, Clone)]
pub struct Radio {
    /// Node B transmit power, dBm.
    pub tx_power_dbm: f64,
    /// UE transmit power, dBm.
    pub ue_power_dbm: f64,
    /// Base-station antenna gain, dBi (the UE's is 0 dBi).
    pub antenna_gain_db: f64,
    pub ue_noise_figure_db: f64,
    pub bs_noise_figure_db: f64,
    /// Path loss at 1 km, dB, and per decade of distance, dB.
    pub path_loss_1km_db: f64,
    pub path_loss_slope_db: f64,
    /// Bandwidth, physical resource blocks of 180 kHz.
    pub prbs: u32,
}

/// Distances below this are taken as this (the model is for macro cells;
/// it keeps log10(0) away).
pub const MIN_DISTANCE_M: f64 = 10.0;

impl Radio {
    pub fn path_loss_db(&self, distance_m: f64) -> f64 {
        self.path_loss_1km_db + self.path_loss_slope_db * (distance_m.max(MIN_DISTANCE_M) / 1000.0).log10()
    }

    fn noise_dbm(&self, noise_figure_db: f64) -> f64 {
        -174.0 + 10.0 * (self.prbs as f64 * 180e3).log10() + noise_figure_db
    }

    /// SINR, dB, of the downlink (`uplink` false) or the uplink.
    pub fn sinr_db(&self, distance_m: f64, shadowing_db: f64, uplink: bool) -> f64 {
        let gain = self.antenna_gain_db - self.path_loss_db(distance_m) - shadowing_db;
        if uplink {
            self.ue_power_dbm + gain - self.noise_dbm(self.bs_noise_figure_db)
        } else {
            self.tx_power_dbm + gain - self.noise_dbm(self.ue_noise_figure_db)
        }
    }

    /// The downlink's received power per resource element (LTE's RSRP), dBm:
    /// the transmit power spread evenly over 12 subcarriers per PRB.
    pub fn rsrp_dbm(&self, distance_m: f64, shadowing_db: f64) -> f64 {
        self.tx_power_dbm - 10.0 * (12.0 * self.prbs as f64).log10() + self.antenna_gain_db
            - self.path_loss_db(distance_m)
            - shadowing_db
    }
}

/// Log-normal shadowing with distance correlation (Gudmundson 1991).
#[derive(Debug, Clone, Copy)]
pub struct Shadowing {
    pub sigma_db: f64,
    pub decorrelation_m: f64,
}

impl Shadowing {
    /// The first value.
    pub fn start(&self, rng: &mut RngStream) -> f64 {
        if self.sigma_db > 0.0 { self.sigma_db * normal(rng) } else { 0.0 }
    }

    /// The value after moving `moved_m` metres from one at `value`.
    pub fn step(&self, value: f64, moved_m: f64, rng: &mut RngStream) -> f64 {
        if self.sigma_db <= 0.0 || moved_m <= 0.0 {
            return value;
        }
        let rho = (-moved_m / self.decorrelation_m).exp();
        rho * value + (1.0 - rho * rho).sqrt() * self.sigma_db * normal(rng)
    }
}

/// A standard normal deviate (Box–Muller).
fn normal(rng: &mut RngStream) -> f64 {
    let u1 = rng.uniform().max(f64::MIN_POSITIVE);
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_macro_cell_formula() {
        // 40(1 − 0.06) = 37.6; −18·log10(15) + 21·log10(2000) + 80 = 128.15.
        let k = -18.0 * 15f64.log10() + 21.0 * 2000f64.log10() + 80.0;
        assert!((k - 128.1).abs() < 0.06, "{k}");
        let r = Radio {
            tx_power_dbm: 43.0,
            ue_power_dbm: 23.0,
            antenna_gain_db: 15.0,
            ue_noise_figure_db: 9.0,
            bs_noise_figure_db: 5.0,
            path_loss_1km_db: 128.1,
            path_loss_slope_db: 37.6,
            prbs: 25,
        };
        assert!((r.path_loss_db(1000.0) - 128.1).abs() < 1e-9);
        assert!((r.path_loss_db(10_000.0) - 165.7).abs() < 1e-9);
    }
}
