//! Proportional Rate Reduction (RFC 6937): how fast cwnd falls to ssthresh
//! during fast recovery. Linux's and ns-3's default.
//!
//! Instead of stopping transmission until pipe drops below ssthresh
//! (RFC 6675) and then sending in a burst, PRR sends in proportion to what
//! is delivered, so the window shrinks smoothly; once pipe is below
//! ssthresh it slow-starts back up (the PRR-SSRB bound).

#[derive(Debug, Clone)]
pub struct Prr {
    /// Bytes delivered to the receiver since recovery began.
    delivered: u64,
    /// Bytes sent since recovery began.
    out: u64,
    /// FlightSize when recovery began.
    recover_fs: u64,
}

impl Prr {
    pub fn new(flight: u64) -> Prr {
        Prr { delivered: 0, out: 0, recover_fs: flight.max(1) }
    }

    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// RFC 6937 §3, on each ACK: the cwnd that lets exactly `sndcnt` bytes out.
    pub fn cwnd(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: ceil(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let target = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128) as u64;
            target.saturating_sub(self.out)
        } else {
            // Slow-start reduction bound.
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_smoothly() {
        // 20 segments in flight, ssthresh 10: one segment out per two delivered.
        let mss = 100;
        let mut p = Prr::new(2000);
        let mut pipe = 2000 - 3 * mss; // three SACKed segments triggered recovery
        let mut sent = 0;
        for _ in 0..10 {
            pipe -= mss;
            let cwnd = p.cwnd(mss, pipe, 1000, mss);
            while pipe + mss <= cwnd {
                pipe += mss;
                p.on_sent(mss);
                sent += 1;
            }
        }
        assert_eq!(sent, 5);
    }
}
