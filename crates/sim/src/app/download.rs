//! HTTP-style downloads: `count` objects of `size` bytes fetched one after
//! another over one persistent connection, the next requested `think`
//! after the previous one's last byte arrived. Whether the server
//! announces the size to the client (a Content-Length header, RFC 9110
//! §8.6, versus chunked transfer) changes nothing on the wire here; it is
//! what a controller may know in advance (S-MPTCP's Algorithm 2 branches
//! on it).

use super::exchange::Request;
use super::{Asks, Client, Metrics};
use crate::time::Time;

/// The validated settings of a download application.
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadModel {
    pub size: u64,
    pub count: u32,
    pub think: Time,
    pub size_announced: bool,
}

pub struct Download {
    m: DownloadModel,
    requested: u32,
    completed: u32,
    /// The next request waits for the think time to pass.
    thinking: bool,
}

impl Download {
    pub fn new(m: &DownloadModel) -> Download {
        Download { m: m.clone(), requested: 0, completed: 0, thinking: false }
    }

    fn request(&mut self, asks: &mut Asks) {
        self.requested += 1;
        asks.requests.push(self.m.size);
    }
}

impl Client for Download {
    fn open(&mut self, _now: Time, asks: &mut Asks) {
        self.request(asks);
    }

    fn done(&mut self, _r: &Request, now: Time, asks: &mut Asks) {
        self.completed += 1;
        if self.requested == self.m.count {
            return;
        }
        if self.m.think == Time::ZERO {
            self.request(asks);
        } else {
            self.thinking = true;
            asks.wake = Some(now + self.m.think);
        }
    }

    fn wake(&mut self, _now: Time, asks: &mut Asks) {
        if std::mem::take(&mut self.thinking) {
            self.request(asks);
        }
    }

    fn finished(&self) -> bool {
        self.completed == self.m.count
    }

    fn sample(&mut self, _now: Time) -> Option<(f64, f64)> {
        None
    }

    fn metrics(&mut self, _start: Time, _end: Time, m: &mut Metrics) {
        m.size_announced = self.m.size_announced;
    }
}
