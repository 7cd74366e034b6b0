//! The auto-tuner (§III-B3).
//!
//! The buffer rule: the receive buffer of a
//! connection using n interfaces is final_buff = min(Σ B_i, max_buff), B_i
//! by network type (Android's maxima: LTE 8 MB, 2.4 GHz Wi-Fi 4 MB; NR ours,
//! LTE's) and max_buff 12 MB. Only the data receiver's buffer sizes the
//! window (a phone downloading); a phone uploading leaves it to the server.
//!
//! The MSS rule (*interfaceMTU*): with several interfaces connected, the
//! MTU is the smallest of theirs, so that no subflow fragments. The phone
//! announces MSS = min MTU − 40 (IPv4 20 + TCP 20, RFC 9293 §3.7.1; the
//! MPTCP options, like the timestamps, come off at the sender) in the
//! connection's handshakes, before its first SYN.
//!
//! The congestion control rule (`tcp_congestion_algo`, default OLIA for
//! MPTCP: "We use BBR"): congestion control is the data sender's, so the
//! phone sets it only on connections it sends on (uploads), before the
//! first SYN, each subflow its own BBR (no coupled BBR exists). On
//! downloads the server's stays; the harness's rows with a server
//! honouring BBR stand for that case.

use super::settings::Settings;
use crate::control::view::{ConnectionView, Role, View};
use crate::net::mtu::announced_mss;

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

/// The MSS a connection announces, and its terms: the smallest MTU over the
/// connected interfaces (up, not excluded) less 40 bytes. None where those
/// MTUs are equal: every subflow announces that MSS anyway. Otherwise it
/// caps every subflow, the joins on larger-MTU interfaces included (TCP_MAXSEG
/// on the MPTCP socket reaches every subflow).
pub fn mss(view: &View, s: &Settings) -> Option<(u16, String)> {
    let connected = view.interfaces.iter().enumerate().filter(|(k, i)| i.up && !s.exclude.contains(&(*k as u16)));
    let mtus: Vec<(&str, u32)> = connected.filter_map(|(_, i)| Some((i.name.as_str(), i.mtu?))).collect();
    let (name, smallest) = mtus.iter().copied().min_by_key(|&(_, m)| m)?;
    let largest = mtus.iter().map(|&(_, m)| m).max()?;
    if smallest >= largest {
        return None;
    }
    let terms: Vec<String> = mtus.iter().map(|(n, m)| format!("{n} {m}")).collect();
    let mss = announced_mss(smallest, crate::net::family::Family::V4);
    Some((mss as u16, format!("MSS {mss} = min MTU ({}) - 40, {name}'s", terms.join(", "))))
}

/// The congestion control a connection the phone opens runs, and its terms:
/// `s.sender_cc` where the phone sends the data; None where it receives
/// (the server's choice) or the rule is off.
pub fn sender_cc(c: &ConnectionView, s: &Settings) -> Option<(String, String)> {
    let algorithm = s.sender_cc.as_ref().filter(|_| c.role == Role::Sender)?;
    let how = if c.multipath { "on every subflow, each its own (uncoupled)" } else { "on the connection" };
    Some((algorithm.clone(), format!("congestion control {algorithm} {how}: the phone sends the data")))
}
