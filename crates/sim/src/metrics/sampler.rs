//! Periodic samples of flows, links and MPTCP subflows: the `flow_ts`,
//! `link_ts` and `subflow_ts` tables. Rates are averages over the interval
//! since the previous sample.

use std::collections::HashMap;

use super::table::{Column, Table};
use crate::time::Time;

pub struct FlowSample {
    pub delivered: u64,
    pub cwnd: u64,
    pub srtt: Option<Time>,
    pub in_flight: u64,
    /// Payload bytes per second, if the sender paces.
    pub pacing_rate: Option<f64>,
    /// The congestion control's bandwidth estimate, payload bytes per second, if it keeps one.
    pub bw_estimate: Option<f64>,
    /// Green MPTCP's flow imbalance inflight_D − Σ inflight_i, bytes.
    pub imbalance: i64,
    /// The congestion control's additive-increase coefficient, if it exposes one.
    pub increment: Option<f64>,
}

pub struct SubflowSample {
    /// Payload bytes the subflow has handed to the connection's receiver.
    pub delivered: u64,
    pub cwnd: u64,
    pub srtt: Option<Time>,
    pub in_flight: u64,
    /// Its congestion control's bandwidth estimate, payload bytes per second, and increment coefficient.
    pub bw_estimate: Option<f64>,
    pub increment: Option<f64>,
}

pub struct LinkSample {
    pub queue_bytes: u64,
    pub queue_packets: u64,
    pub bytes_sent: u64,
    pub capacity_bits: f64,
    /// The propagation delay in force at the sampling instant.
    pub delay: Time,
}

pub struct Sampler {
    pub interval: Time,
    prev_delivered: Vec<u64>,
    prev_link: Vec<(u64, f64)>,
    prev_subflow: HashMap<(u32, u32), u64>,
    flow_rows: FlowRows,
    link_rows: LinkRows,
    subflow_rows: SubflowRows,
}

#[derive(Default)]
struct FlowRows {
    time: Vec<f64>,
    id: Vec<u32>,
    goodput: Vec<f64>,
    cwnd: Vec<u64>,
    srtt: Vec<f64>,
    in_flight: Vec<u64>,
    pacing_rate: Vec<f64>,
    bw_estimate: Vec<f64>,
    imbalance: Vec<i64>,
    increment: Vec<f64>,
}

#[derive(Default)]
struct SubflowRows {
    time: Vec<f64>,
    flow: Vec<u32>,
    id: Vec<u32>,
    delivered: Vec<f64>,
    cwnd: Vec<u64>,
    srtt: Vec<f64>,
    in_flight: Vec<u64>,
    bw_estimate: Vec<f64>,
    increment: Vec<f64>,
}

#[derive(Default)]
struct LinkRows {
    time: Vec<f64>,
    id: Vec<u32>,
    queue_bytes: Vec<u64>,
    queue_packets: Vec<u64>,
    rate: Vec<f64>,
    capacity: Vec<f64>,
    delay: Vec<f64>,
}

impl Sampler {
    pub fn new(interval: Time, flows: usize, links: usize) -> Sampler {
        Sampler {
            interval,
            prev_delivered: vec![0; flows],
            prev_link: vec![(0, 0.0); links],
            prev_subflow: HashMap::new(),
            flow_rows: FlowRows::default(),
            link_rows: LinkRows::default(),
            subflow_rows: SubflowRows::default(),
        }
    }

    pub fn flow(&mut self, now: Time, id: u32, s: FlowSample) {
        let r = &mut self.flow_rows;
        let prev = std::mem::replace(&mut self.prev_delivered[id as usize], s.delivered);
        r.time.push(now.secs());
        r.id.push(id);
        r.goodput.push((s.delivered - prev) as f64 * 8.0 / self.interval.secs());
        r.cwnd.push(s.cwnd);
        r.srtt.push(s.srtt.map_or(f64::NAN, Time::secs));
        r.in_flight.push(s.in_flight);
        r.pacing_rate.push(s.pacing_rate.map_or(f64::NAN, |b| b * 8.0));
        r.bw_estimate.push(s.bw_estimate.map_or(f64::NAN, |b| b * 8.0));
        r.imbalance.push(s.imbalance);
        r.increment.push(s.increment.unwrap_or(f64::NAN));
    }

    pub fn subflow(&mut self, now: Time, flow: u32, id: u32, s: SubflowSample) {
        let r = &mut self.subflow_rows;
        let prev = self.prev_subflow.insert((flow, id), s.delivered).unwrap_or(0);
        r.time.push(now.secs());
        r.flow.push(flow);
        r.id.push(id);
        r.delivered.push((s.delivered - prev) as f64 * 8.0 / self.interval.secs());
        r.cwnd.push(s.cwnd);
        r.srtt.push(s.srtt.map_or(f64::NAN, Time::secs));
        r.in_flight.push(s.in_flight);
        r.bw_estimate.push(s.bw_estimate.map_or(f64::NAN, |b| b * 8.0));
        r.increment.push(s.increment.unwrap_or(f64::NAN));
    }

    pub fn link(&mut self, now: Time, id: u32, s: LinkSample) {
        let r = &mut self.link_rows;
        let (prev_bytes, prev_bits) = std::mem::replace(&mut self.prev_link[id as usize], (s.bytes_sent, s.capacity_bits));
        let dt = self.interval.secs();
        r.time.push(now.secs());
        r.id.push(id);
        r.queue_bytes.push(s.queue_bytes);
        r.queue_packets.push(s.queue_packets);
        r.rate.push((s.bytes_sent - prev_bytes) as f64 * 8.0 / dt);
        r.capacity.push((s.capacity_bits - prev_bits) / dt);
        r.delay.push(s.delay.secs());
    }

    pub fn into_tables(self) -> [Table; 3] {
        let f = self.flow_rows;
        let l = self.link_rows;
        let s = self.subflow_rows;
        [
            Table::new("flow_ts")
                .col("time_s", Column::F64(f.time))
                .col("flow_id", Column::U32(f.id))
                .col("goodput_bps", Column::F64(f.goodput))
                .col("cwnd_bytes", Column::U64(f.cwnd))
                .col("srtt_s", Column::F64(f.srtt))
                .col("bytes_in_flight", Column::U64(f.in_flight))
                .col("pacing_rate_bps", Column::F64(f.pacing_rate))
                .col("bw_estimate_bps", Column::F64(f.bw_estimate))
                .col("imbalance_bytes", Column::I64(f.imbalance))
                .col("increment", Column::F64(f.increment)),
            Table::new("link_ts")
                .col("time_s", Column::F64(l.time))
                .col("link_id", Column::U32(l.id))
                .col("queue_bytes", Column::U64(l.queue_bytes))
                .col("queue_packets", Column::U64(l.queue_packets))
                .col("rate_bps", Column::F64(l.rate))
                .col("capacity_bps", Column::F64(l.capacity))
                .col("delay_s", Column::F64(l.delay)),
            Table::new("subflow_ts")
                .col("time_s", Column::F64(s.time))
                .col("flow_id", Column::U32(s.flow))
                .col("subflow_id", Column::U32(s.id))
                .col("delivered_bps", Column::F64(s.delivered))
                .col("cwnd_bytes", Column::U64(s.cwnd))
                .col("srtt_s", Column::F64(s.srtt))
                .col("bytes_in_flight", Column::U64(s.in_flight))
                .col("bw_estimate_bps", Column::F64(s.bw_estimate))
                .col("increment", Column::F64(s.increment)),
        ]
    }
}
