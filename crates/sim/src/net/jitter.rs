//! A link direction's random extra delay per packet (`jitter`): the timing
//! noise of real hosts and forwarders, which a deterministic simulator
//! otherwise lacks.
//!
//! Why it matters: with drop-tail queues, identical packet sizes and exact
//! timing, which flow's packet finds a full queue depends on the flows'
//! round-trip times modulo the bottleneck's transmission time, and stays
//! the same round after round — Floyd and Jacobson's *phase effects* ("On
//! Traffic Phase Effects in Packet-Switched Gateways", Internetworking:
//! Research and Experience 3(3), 1992). They found that random processing
//! time at the sources, of the order of the bottleneck's transmission time,
//! removes them (ns-2's TCP agents have `overhead_` for this). Real hosts
//! supply some unasked: the kernel lab's senders, routers and emulator wake
//! and forward a few to tens of µs late, differently for every packet
//! (docs/lab-emulator.md) — about as much as 20–30 µs of jitter per link
//! here, which still leaves the lab with phase effects of its own.
//! docs/validation.md ("Phase effects") shows one of the random suite's
//! scenarios where 0.3 ms more delay on one access link moves a flow from 8
//! to 26 Mb/s without jitter, to 12–16 with 50 µs, and to 20 on the kernel.
//!
//! The draw: exponential with the given mean, from the direction's own
//! stream (`jitter_stream`), so that turning jitter on changes no other
//! random draw. Exponential because such latency is skewed — most packets a
//! little late, a few much later. The wire keeps its packets in order
//! (`delay::Wire`), so packets queued behind a late one arrive together, as
//! behind a real hop that paused.

use crate::engine::RngStream;
use crate::time::Time;

/// The random stream a link direction's jitter draws from.
pub fn jitter_stream(direction: &str) -> String {
    format!("link:{direction}:jitter")
}

#[derive(Debug, Clone)]
pub struct Jitter {
    mean_s: f64,
    rng: RngStream,
}

impl Jitter {
    /// Jitter of mean `mean`, or none when it is zero.
    pub fn new(mean: Time, rng: RngStream) -> Option<Jitter> {
        (mean > Time::ZERO).then(|| Jitter { mean_s: mean.secs(), rng })
    }

    /// One packet's extra delay.
    pub fn draw(&mut self) -> Time {
        Time::from_secs_f64(self.rng.exponential(self.mean_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seeds;

    #[test]
    fn draws_have_the_mean_and_zero_means_none() {
        let seeds = Seeds { master: 7 };
        assert!(Jitter::new(Time::ZERO, seeds.stream("x")).is_none());
        let mut j = Jitter::new(Time::from_micros(50), seeds.stream("x")).expect("jitter");
        let n = 100_000;
        let draws: Vec<f64> = (0..n).map(|_| j.draw().secs()).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean - 50e-6).abs() < 1e-6, "mean {mean}");
        // Exponential: a fraction e^-1 above the mean.
        let above = draws.iter().filter(|&&d| d > 50e-6).count() as f64 / n as f64;
        assert!((above - (-1f64).exp()).abs() < 0.01, "above the mean: {above}");
    }
}
