//! Interactive traffic (voice- or game-like): the server sends a message
//! of `message` bytes every `interval` from the moment the connection is
//! open, `count` of them or until the end of the run, with no request
//! from the client; each message's one-way latency is from its writing to
//! the arrival of its last byte in order. (A 20 ms voice frame, RFC 3551
//! §4.5, or a game's state updates; a lost segment delays the messages
//! behind it, TCP's head-of-line blocking.)

use super::exchange::Request;
use super::{Asks, Client, Metrics};
use crate::time::Time;

/// The validated settings of an interactive application.
#[derive(Debug, Clone, PartialEq)]
pub struct InteractiveModel {
    pub message: u64,
    pub interval: Time,
    /// None: until the end of the run.
    pub count: Option<u32>,
}

pub struct Interactive {
    m: InteractiveModel,
    sent: u32,
}

impl Interactive {
    pub fn new(m: &InteractiveModel) -> Interactive {
        Interactive { m: m.clone(), sent: 0 }
    }

    fn send(&mut self, now: Time, asks: &mut Asks) {
        asks.pushes.push(self.m.message);
        self.sent += 1;
        if self.m.count.is_none_or(|c| self.sent < c) {
            asks.wake = Some(now + self.m.interval);
        }
    }
}

impl Client for Interactive {
    fn open(&mut self, now: Time, asks: &mut Asks) {
        self.send(now, asks);
    }

    fn done(&mut self, _r: &Request, _now: Time, _asks: &mut Asks) {}

    fn wake(&mut self, now: Time, asks: &mut Asks) {
        self.send(now, asks);
    }

    fn finished(&self) -> bool {
        self.m.count == Some(self.sent)
    }

    fn sample(&mut self, _now: Time) -> Option<(f64, f64)> {
        None
    }

    fn metrics(&mut self, _start: Time, _end: Time, _m: &mut Metrics) {}
}
