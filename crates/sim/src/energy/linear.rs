//! Green MPTCP's linear energy model (green-mptcp-iiot-energy.txt, §3, eq. 1)
//!
//!   E = Σ_i Σ_{k=0}^{t_i} p_i(k)·Δτ(k) + Σ_{k=0}^{t_D} p_D(k)·Δτ(k)
//!
//! with constant weights, for one session (one MPTCP connection), in two
//! readings of E = Σ_i w_i·x_i + w_D·x_D:
//!
//! - **data** (the paper's p_i = w_i·v_i and p_D = w_D·v_D, §3.2): x_i is the
//!   bits sent or received on interface i (wire bytes × 8, both directions,
//!   every packet: data, retransmissions, pure ACKs, SYN, FIN); x_D is the
//!   bits of the stream, v_D, the application data the connection carries,
//!   which the caller tells `on_stream`. w_i and w_D are joules per bit.
//! - **time** (p_i = w_i, p_D = w_D constant): eq. 1 sums interface i's power
//!   from the session's first instant (k = 0) to t_i, "the instant of the
//!   last Scheduler decision concerning channel i"; τ_i is "the time of
//!   sending data through interface i" and τ_D = max_i τ_i the session time.
//!   So interface i is in use from the session's start, the first byte on
//!   any of its interfaces, to the last byte on interface i: x_i = τ_i
//!   seconds (0 without traffic), x_D = τ_D. w_i and w_D are watts.

use crate::cc::{ParamTable, Params};
use crate::time::Time;

/// How x_i and x_D are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Bits; weights in joules per bit.
    Data,
    /// Seconds; weights in watts.
    Time,
}

impl Reading {
    pub fn names() -> &'static [&'static str] {
        &["data", "time"]
    }
}

/// The session's parameters: key `reading` ("data", the paper's own, or
/// "time") and `w_device`, w_D (default 0, the paper's case a, where the
/// power of the other components is "disregarded").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearParams {
    pub reading: Reading,
    pub w_device: f64,
}

impl LinearParams {
    pub fn read(table: &ParamTable) -> Result<LinearParams, Vec<(String, String)>> {
        let mut p = Params::new("linear", table);
        let reading = match p.choice("reading", "data", Reading::names()) {
            "time" => Reading::Time,
            _ => Reading::Data,
        };
        let w_device = p.number("w_device", 0.0, |v| v >= 0.0, "0 or more");
        p.finish()?;
        Ok(LinearParams { reading, w_device })
    }

    /// g_i = w_i + w_D/n for each of the n interfaces' weights `w`: a
    /// channel's cost with the device's spread over the interfaces (§3.2,
    /// before eq. 3), which the green scheduler splits data by.
    pub fn channel_weights(&self, w: &[f64]) -> Vec<f64> {
        w.iter().map(|w_i| w_i + self.w_device / w.len() as f64).collect()
    }
}

/// Eq. 1 over one session's traffic, interfaces numbered from 0.
#[derive(Debug, Clone)]
pub struct LinearModel {
    params: LinearParams,
    w: Vec<f64>,
    /// Wire bytes per interface, both directions.
    bytes: Vec<u64>,
    /// The last byte's time per interface.
    last: Vec<Option<Time>>,
    /// The session's first byte.
    start: Option<Time>,
    stream_bytes: u64,
}

impl LinearModel {
    /// `w[i]` is interface i's weight.
    pub fn new(params: LinearParams, w: Vec<f64>) -> LinearModel {
        let n = w.len();
        LinearModel { params, w, bytes: vec![0; n], last: vec![None; n], start: None, stream_bytes: 0 }
    }

    pub fn reading(&self) -> Reading {
        self.params.reading
    }

    /// Wire bytes sent and received on `interface` at `now`.
    pub fn on_traffic(&mut self, interface: usize, now: Time, up_bytes: u64, down_bytes: u64) {
        if up_bytes + down_bytes == 0 {
            return;
        }
        self.bytes[interface] += up_bytes + down_bytes;
        self.last[interface] = Some(now);
        self.start.get_or_insert(now);
    }

    /// Application bytes of the stream (v_D), for the data reading's device term.
    pub fn on_stream(&mut self, bytes: u64) {
        self.stream_bytes += bytes;
    }

    /// x_i: bits (data) or seconds in use (time).
    pub fn x(&self, interface: usize) -> f64 {
        match self.params.reading {
            Reading::Data => 8.0 * self.bytes[interface] as f64,
            Reading::Time => self.in_use(self.last[interface]),
        }
    }

    /// x_D: bits of the stream (data) or the session's time (time).
    pub fn x_device(&self) -> f64 {
        match self.params.reading {
            Reading::Data => 8.0 * self.stream_bytes as f64,
            Reading::Time => self.in_use(self.last.iter().flatten().max().copied()),
        }
    }

    fn in_use(&self, last: Option<Time>) -> f64 {
        match (self.start, last) {
            (Some(start), Some(last)) => (last - start).secs(),
            _ => 0.0,
        }
    }

    pub fn interface_energy_j(&self, interface: usize) -> f64 {
        self.w[interface] * self.x(interface)
    }

    pub fn device_energy_j(&self) -> f64 {
        self.params.w_device * self.x_device()
    }

    /// E = Σ_i w_i·x_i + w_D·x_D.
    pub fn energy_j(&self) -> f64 {
        (0..self.w.len()).map(|i| self.interface_energy_j(i)).sum::<f64>() + self.device_energy_j()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ParamValue::{Number, Text};
    use crate::energy::table;

    /// A session over two interfaces and an unused third: a SYN at 1 s on 0,
    /// data on both, the last bytes at 3 s on 0 and 2.5 s on 1.
    fn scripted(reading: Reading) -> LinearModel {
        let mut m = LinearModel::new(LinearParams { reading, w_device: 10.0 }, vec![1.0, 3.0, 7.0]);
        m.on_traffic(0, Time::from_secs(1), 60, 0);
        m.on_traffic(0, Time::from_millis(1020), 52, 60);
        m.on_traffic(0, Time::from_millis(1500), 52, 1500);
        m.on_traffic(1, Time::from_secs(2), 0, 1500);
        m.on_traffic(1, Time::from_millis(2500), 52, 0);
        m.on_traffic(0, Time::from_secs(3), 52, 0);
        m.on_traffic(1, Time::from_secs(4), 0, 0);
        m.on_stream(2896);
        m
    }

    #[test]
    fn per_data_is_weights_times_bits() {
        let m = scripted(Reading::Data);
        let (x0, x1) = (8.0 * (60 + 52 + 60 + 52 + 1500 + 52) as f64, 8.0 * (1500 + 52) as f64);
        assert_eq!((m.x(0), m.x(1), m.x(2), m.x_device()), (x0, x1, 0.0, 8.0 * 2896.0));
        assert_eq!(m.energy_j(), 1.0 * x0 + 3.0 * x1 + 10.0 * 8.0 * 2896.0);
    }

    #[test]
    fn per_time_is_weights_times_time_in_use_from_the_sessions_start() {
        let m = scripted(Reading::Time);
        assert_eq!((m.x(0), m.x(1), m.x(2), m.x_device()), (2.0, 1.5, 0.0, 2.0));
        assert_eq!(m.interface_energy_j(1), 4.5);
        assert_eq!(m.energy_j(), 1.0 * 2.0 + 3.0 * 1.5 + 10.0 * 2.0);
    }

    #[test]
    fn parameters() {
        let p = LinearParams::read(&table(&[("reading", Text("time".into())), ("w_device", Number(2.0))])).unwrap();
        assert_eq!(p, LinearParams { reading: Reading::Time, w_device: 2.0 });
        assert_eq!(LinearParams::read(&ParamTable::new()).unwrap(), LinearParams { reading: Reading::Data, w_device: 0.0 });
        let e =
            LinearParams::read(&table(&[("reading", Text("energy".into())), ("w_device", Number(-1.0)), ("wd", Number(1.0))])).unwrap_err();
        let keys: Vec<&str> = e.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["reading", "w_device", "wd"]);
        assert_eq!(e[1].1, "must be 0 or more, got -1");
    }

    #[test]
    fn channel_weights_spread_the_device_over_the_interfaces() {
        let p = LinearParams { reading: Reading::Data, w_device: 10.0 };
        assert_eq!(p.channel_weights(&[1.0, 3.0]), [6.0, 8.0]);
    }
}
