//! The auto-tuner's buffer rule (§III-B3): the receive buffer of a
//! connection using n interfaces is final_buff = min(Σ B_i, max_buff), B_i
//! by network type (Android's maxima: LTE 8 MB, 2.4 GHz Wi-Fi 4 MB; NR ours,
//! LTE's) and max_buff 12 MB. Only the data receiver's buffer sizes the
//! window (a phone downloading); a phone uploading leaves it to the server.

use super::settings::Settings;
use crate::control::view::View;

/// The buffer for a connection using interfaces `used`, and its terms.
pub fn receive_buffer(view: &View, used: &[u16], s: &Settings) -> (u64, String) {
    let mut terms = Vec::new();
    let mut sum = 0u64;
    for &k in used {
        let iface = &view.interfaces[k as usize];
        let rat = iface.rat.as_deref().unwrap_or("unknown RAT");
        let b = s.buffers.get(rat).copied().unwrap_or(s.default_buffer);
        sum += b;
        terms.push(format!("{} ({rat}) {:.1} MiB", iface.name, b as f64 / (1 << 20) as f64));
    }
    let bytes = sum.min(s.max_buffer);
    (bytes, format!("receive buffer min({}, {:.1} MiB)", terms.join(" + "), s.max_buffer as f64 / (1 << 20) as f64))
}
