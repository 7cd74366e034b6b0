//! Periodic samples of flows and links: the `flow_ts` and `link_ts` tables.
//! Rates are averages over the interval since the previous sample.

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
}

pub struct LinkSample {
    pub queue_bytes: u64,
    pub queue_packets: u64,
    pub bytes_sent: u64,
    pub capacity_bits: f64,
}

pub struct Sampler {
    pub interval: Time,
    prev_delivered: Vec<u64>,
    prev_link: Vec<(u64, f64)>,
    flow_rows: FlowRows,
    link_rows: LinkRows,
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
}

#[derive(Default)]
struct LinkRows {
    time: Vec<f64>,
    id: Vec<u32>,
    queue_bytes: Vec<u64>,
    queue_packets: Vec<u64>,
    rate: Vec<f64>,
    capacity: Vec<f64>,
}

impl Sampler {
    pub fn new(interval: Time, flows: usize, links: usize) -> Sampler {
        Sampler {
            interval,
            prev_delivered: vec![0; flows],
            prev_link: vec![(0, 0.0); links],
            flow_rows: FlowRows::default(),
            link_rows: LinkRows::default(),
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
    }

    pub fn into_tables(self) -> [Table; 2] {
        let f = self.flow_rows;
        let l = self.link_rows;
        [
            Table::new("flow_ts")
                .col("time_s", Column::F64(f.time))
                .col("flow_id", Column::U32(f.id))
                .col("goodput_bps", Column::F64(f.goodput))
                .col("cwnd_bytes", Column::U64(f.cwnd))
                .col("srtt_s", Column::F64(f.srtt))
                .col("bytes_in_flight", Column::U64(f.in_flight))
                .col("pacing_rate_bps", Column::F64(f.pacing_rate))
                .col("bw_estimate_bps", Column::F64(f.bw_estimate)),
            Table::new("link_ts")
                .col("time_s", Column::F64(l.time))
                .col("link_id", Column::U32(l.id))
                .col("queue_bytes", Column::U64(l.queue_bytes))
                .col("queue_packets", Column::U64(l.queue_packets))
                .col("rate_bps", Column::F64(l.rate))
                .col("capacity_bps", Column::F64(l.capacity)),
        ]
    }
}
