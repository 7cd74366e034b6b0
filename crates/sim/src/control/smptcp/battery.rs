//! The battery/power analyzer (§III-A1, Algorithm 4): with the device
//! above its heat threshold, MPTCP's subflows are reduced to one ("control
//! subflows"; the CPU-frequency branch has no model here); with the screen
//! off, background connections stay on one path (our reading of the power
//! analyzer's screen-off and doze states, the workload of Fig. 6).

use super::settings::Settings;
use crate::control::view::DeviceView;

/// Why the device wants one subflow per connection, if it does.
pub fn restriction(device: &DeviceView, s: &Settings) -> Option<String> {
    if let Some(t) = device.temperature_c.filter(|&t| t >= s.heat_threshold) {
        return Some(format!("device at {t:.1} °C >= heat threshold {:.1} °C: one subflow (Algorithm 4)", s.heat_threshold));
    }
    if s.screen_off_single && device.screen_on == Some(false) {
        return Some("screen off: one subflow".to_string());
    }
    None
}
