//! A persistent connection as an application uses it: the client sends
//! requests, the server appends each response to the connection's byte
//! stream when the request arrives, and the client learns when a
//! response's last byte has been delivered in order (HTTP/1.1 persistent
//! connections without pipelining, RFC 9112 §9.3).
//!
//! Requests cross the network as one packet each, of the request's size
//! plus headers, on the reverse path (client → server), so a request costs
//! a one-way delay plus the queueing and serialization on that path. They
//! are not part of the TCP byte stream: a request that is lost is sent again
//! after a retransmission timeout (see `World::request_lost`), as TCP would
//! resend a one-segment request.

use crate::time::Time;

/// One request and its response.
#[derive(Debug, Clone)]
pub struct Request {
    /// Bytes of the request itself on the wire, beside the packet header
    /// (0 for a message the server sends unasked).
    pub ask: u32,
    /// Response bytes the server appends.
    pub bytes: u64,
    /// When the client first sent it.
    pub sent_at: Time,
    /// When the server received it (the first copy).
    pub arrived_at: Option<Time>,
    /// The offset just past the response in the connection's byte stream,
    /// once the server has appended it.
    pub end: Option<u64>,
    /// When the response's first byte reached the client application.
    pub first_byte_at: Option<Time>,
    /// When the response's last byte reached the client application.
    pub done_at: Option<Time>,
}

/// The requests of one connection, in the order the client sent them.
#[derive(Debug, Default)]
pub struct Exchange {
    pub requests: Vec<Request>,
    /// Response bytes the server has appended so far.
    appended: u64,
    /// Responses delivered in full, in stream order.
    done: usize,
    /// Request ids in the order the server received them (stream order).
    order: Vec<u32>,
}

impl Exchange {
    /// The client sends a request of `ask` bytes for `bytes` of response;
    /// returns its id.
    pub fn send(&mut self, ask: u32, bytes: u64, now: Time) -> u32 {
        self.requests.push(Request { ask, bytes, sent_at: now, arrived_at: None, end: None, first_byte_at: None, done_at: None });
        self.requests.len() as u32 - 1
    }

    /// The server sends `bytes` unasked (an interactive message): it is
    /// appended at once, as the response to a request that arrived now.
    pub fn push(&mut self, bytes: u64, now: Time) -> u64 {
        let id = self.send(0, bytes, now);
        self.arrive(id, now)
    }

    /// Request `id` reached the server: the response bytes to append
    /// (0 for a copy that arrived before).
    pub fn arrive(&mut self, id: u32, now: Time) -> u64 {
        let r = &mut self.requests[id as usize];
        if r.arrived_at.is_some() {
            return 0;
        }
        self.appended += r.bytes;
        r.arrived_at = Some(now);
        r.end = Some(self.appended);
        self.order.push(id);
        r.bytes
    }

    /// Whether request `id` has reached the server.
    pub fn arrived(&self, id: u32) -> bool {
        self.requests[id as usize].arrived_at.is_some()
    }

    /// The client's application has `delivered` bytes in order: the ids of
    /// the responses that this completes.
    pub fn deliver(&mut self, delivered: u64, now: Time) -> Vec<u32> {
        let mut completed = Vec::new();
        while let Some(&id) = self.order.get(self.done) {
            let r = &mut self.requests[id as usize];
            let end = r.end.expect("a response in stream order was appended");
            if end - r.bytes < delivered {
                r.first_byte_at.get_or_insert(now);
            }
            if end > delivered {
                break;
            }
            r.done_at = Some(now);
            completed.push(id);
            self.done += 1;
        }
        completed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_complete_in_stream_order() {
        let mut x = Exchange::default();
        let a = x.send(300, 1000, Time::ZERO);
        let b = x.send(300, 500, Time::ZERO);
        assert_eq!(x.arrive(b, Time::from_millis(10)), 500);
        assert_eq!(x.arrive(a, Time::from_millis(11)), 1000);
        assert_eq!(x.arrive(a, Time::from_millis(12)), 0);
        assert!(x.deliver(400, Time::from_millis(20)).is_empty());
        assert_eq!(x.deliver(1200, Time::from_millis(30)), vec![b]);
        assert_eq!(x.deliver(1500, Time::from_millis(40)), vec![a]);
        assert_eq!(x.requests[a as usize].done_at, Some(Time::from_millis(40)));
        // b's first 400 bytes came at 20 ms; a's first 700 at 30 ms.
        assert_eq!(x.requests[b as usize].first_byte_at, Some(Time::from_millis(20)));
        assert_eq!(x.requests[a as usize].first_byte_at, Some(Time::from_millis(30)));
    }
}
