//! A mirror's end of a fetch session's connection (`[[fetches]]`,
//! docs/apps.md): accepts the one connection of a candidate flow, reads
//! request messages and answers them in order (HTTP/1.1, RFC 9112 §9.3.2):
//! a content range with exactly the bytes asked for (RFC 9110 §14.2;
//! `content.rs` generates them), a probe with that many zero bytes (a
//! headers-only response, §9.3.2).
//!
//! A request message is `Request::wire_bytes` long: a 24-byte header —
//! response bytes (u64), content offset (u64, `u64::MAX` for a probe),
//! content index (u32), the message's length (u32), all big-endian — and
//! padding up to the session's `request_bytes` (or the probe's).

use std::io::{Read, Write};
use std::sync::Arc;

use pathpool_sim::Model;

use super::content;
use super::server::timed_out;
use super::transfer::Open;
use super::{FlowState, RunClock, POLL};

/// Bytes of a request message's header.
pub const HEADER: usize = 24;
const PROBE: u64 = u64::MAX;

/// One request on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub len: u64,
    /// The content offset; None for a probe.
    pub off: Option<u64>,
    pub content: u32,
    /// The request's bytes beside the packet header, as the model gives them.
    pub request_bytes: u32,
}

impl Request {
    /// The message's length: the model's request bytes, at least the header.
    pub fn wire_bytes(&self) -> usize {
        (self.request_bytes as usize).max(HEADER)
    }

    /// Appends the message to `wire`.
    pub fn encode(&self, wire: &mut Vec<u8>) {
        let at = wire.len();
        wire.resize(at + self.wire_bytes(), 0);
        wire[at..at + 8].copy_from_slice(&self.len.to_be_bytes());
        wire[at + 8..at + 16].copy_from_slice(&self.off.unwrap_or(PROBE).to_be_bytes());
        wire[at + 16..at + 20].copy_from_slice(&self.content.to_be_bytes());
        wire[at + 20..at + 24].copy_from_slice(&(self.wire_bytes() as u32).to_be_bytes());
    }

    /// The request whose header is `h`, and its message's length.
    fn decode(h: &[u8]) -> (Request, usize) {
        let word = |k: usize| u64::from_be_bytes(h[k..k + 8].try_into().expect("8 bytes"));
        let half = |k: usize| u32::from_be_bytes(h[k..k + 4].try_into().expect("4 bytes"));
        let off = Some(word(8)).filter(|&o| o != PROBE);
        let size = half(20) as usize;
        (Request { len: word(0), off, content: half(16), request_bytes: size as u32 }, size.max(HEADER))
    }
}

/// The mirror's end of fetch connection `flows[me]`.
pub fn server(open: Open, model: &Model, flows: &[FlowState], me: usize, clock: &RunClock) {
    let flow = &flows[me];
    let Some(socket) = open.socket(flows, me, clock) else { return };
    let socket = Arc::new(socket);
    *flow.sender.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket.clone());
    if let Err(e) = serve(&socket, model, clock) {
        if !clock.stopped() {
            flow.fail(format!("mirror: {e}"));
        }
    }
}

fn serve(socket: &socket2::Socket, model: &Model, clock: &RunClock) -> std::io::Result<()> {
    socket.set_read_timeout(Some(POLL))?;
    socket.set_write_timeout(Some(POLL))?;
    socket.set_tcp_nodelay(true)?;
    let seeds: Vec<u64> = model.contents.iter().map(|c| content::seed(&c.name)).collect();
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = vec![0u8; 256 * 1024];
    let mut inbox: Vec<u8> = Vec::new();
    // Responses owed, in request order: (request, bytes of it written).
    let mut owed: std::collections::VecDeque<(Request, u64)> = Default::default();
    while !clock.stopped() {
        if let Some((r, done)) = owed.front_mut() {
            let n = (r.len - *done).min(out.len() as u64) as usize;
            match (r.off, seeds.get(r.content as usize)) {
                (Some(off), Some(&seed)) => content::fill(seed, off + *done, &mut out[..n]),
                (Some(_), None) => return Err(std::io::Error::other(format!("a request for content {}, which the scenario does not have", r.content))),
                (None, _) => out[..n].fill(0),
            }
            match (&*socket).write(&out[..n]) {
                Ok(w) => *done += w as u64,
                Err(e) if timed_out(&e) => {}
                Err(e) => return Err(e),
            }
            if *done == r.len {
                owed.pop_front();
            }
            // Requests that came meanwhile wait in the socket; they are read below once nothing is owed.
            continue;
        }
        match (&*socket).read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => inbox.extend_from_slice(&buf[..n]),
            Err(e) if timed_out(&e) => {}
            Err(e) => return Err(e),
        }
        while inbox.len() >= HEADER {
            let (r, size) = Request::decode(&inbox[..HEADER]);
            if inbox.len() < size {
                break;
            }
            inbox.drain(..size);
            if r.len > 0 {
                owed.push_back((r, 0));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_with_their_padding() {
        let range = Request { len: 1_000_000, off: Some(3_000_000), content: 2, request_bytes: 300 };
        let probe = Request { len: 300, off: None, content: 0, request_bytes: 10 };
        let mut wire = Vec::new();
        range.encode(&mut wire);
        probe.encode(&mut wire);
        assert_eq!(wire.len(), 300 + HEADER);
        assert_eq!(Request::decode(&wire[..HEADER]), (range, 300));
        assert_eq!(Request::decode(&wire[300..]), (Request { request_bytes: HEADER as u32, ..probe }, HEADER));
    }
}
