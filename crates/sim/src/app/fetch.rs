//! A fetch session (`[[fetches]]`): a client downloads one mirrored content
//! in byte-range requests (RFC 9110 §14.2: `Range: bytes=off-(off+len-1)`,
//! answered with exactly those bytes, §15.3.7 206 Partial Content), in
//! sequence, with up to `pipeline` outstanding (HTTP/1.1 pipelining,
//! RFC 9112 §9.3.2). The session owns several candidate connections, one
//! per (mirror, client interface); each request goes on the session's
//! *current* connection at the moment it is sent and its response comes
//! back on that connection. Moving the session (a steer) changes where the
//! next requests go: requests already sent finish where they are (the
//! request boundary remapping of PAT, §IV-B), unless the steer resumes
//! (`cut`): then the session stops reading the responses under way on
//! other connections, keeps the bytes they delivered in order, and asks the
//! new connection for the rest of each range (RFC 9110 §14.2); the old
//! connection drains the rest of the response, which is discarded (HTTP/1.1
//! has no way to cancel a request short of closing the connection). Probes
//! are small requests on any open connection whose response time is an RTT
//! sample.
//!
//! This file keeps the session's ledger: which bytes were asked for, on
//! which connection, and which arrived (`Ranges`: every byte exactly once).
//! The world moves the requests and responses (`world/sessions.rs`).

use super::ranges::Ranges;
use crate::net::family::Family;
use crate::net::NodeId;
use crate::time::Time;

/// A session's validated settings.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchModel {
    pub name: String,
    pub client: NodeId,
    /// The content (an index into `Model::contents`) and its size.
    pub content: usize,
    pub bytes: u64,
    /// Bytes asked for per request (the last one may be shorter).
    pub chunk: u64,
    /// Content requests outstanding at most.
    pub pipeline: u32,
    /// Bytes of each content request beside the packet header.
    pub request_bytes: u32,
    pub start: Time,
    pub policy: Policy,
    /// The client interface the default policy connects over, and the IP
    /// version (IPv4 unless the scenario asks for IPv6).
    pub prefer: u16,
    pub family: Family,
    /// For a content served under a domain, the resolver the default policy
    /// asks (the phone's system resolver); its answer's first reachable
    /// mirror is the one it connects to.
    pub resolver: Option<String>,
    /// The candidate connections, mirror-major in the content's mirror
    /// order, then by client interface (then by lane, for a page's object).
    pub candidates: Vec<Candidate>,
    /// The page (`Model::pages`) this session is an object of, if any: its
    /// candidates are then the page's connections to the content's mirrors,
    /// shared with the page's other objects.
    pub page: Option<u32>,
    /// The session whose completion starts this one (an object's parent in
    /// its page), instead of `start`.
    pub after: Option<u32>,
}

/// Who opens the session's connections and steers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// What an Android phone does: at the start, one connection to the
    /// first mirror of the lookup over the preferred interface, used for
    /// every request; controllers may still open others and steer.
    Default,
    /// Nothing until a controller opens a connection and steers to it.
    Controller,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Default => "default",
            Policy::Controller => "controller",
        }
    }
}

/// A candidate connection: a dormant single-path TCP connection from
/// `mirror` to the client's interface `iface` over IP version `family`,
/// the world's flow `flow`. A fetch session has one per (mirror,
/// interface, family) where both ends have the family; a page keeps up to
/// its per-server limit of IPv4 ones to one mirror over one interface,
/// told apart by `lane` (0 for a fetch session's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub mirror: NodeId,
    pub iface: u16,
    pub family: Family,
    pub lane: u16,
    pub flow: u32,
}

/// What a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Bytes [off, off + len) of the content.
    Range { off: u64 },
    /// A probe: its response carries no content.
    Probe,
}

/// One request of the session, content or probe.
#[derive(Debug, Clone)]
pub struct SessionRequest {
    pub ask: Ask,
    /// Response bytes.
    pub len: u64,
    /// Request bytes beside the packet header.
    pub request_bytes: u32,
    /// The connection (flow) it went on.
    pub conn: u32,
    pub sent_at: Time,
    /// No other response was under way on its connection when it was
    /// sent: its time to first byte is then a round trip (plus the
    /// server's time), not a wait behind the connection's own data.
    pub idle_start: bool,
    /// When its response's first and last bytes reached the client
    /// application (for a cut response, the moment it was cut).
    pub first_byte_at: Option<Time>,
    pub done_at: Option<Time>,
    /// The last bytes of its response the session stopped reading when it
    /// resumed the range elsewhere (`Fetch::cut`): they still cross the old
    /// connection and are discarded; the first `len - discarded` were
    /// delivered. 0 for a response read in full.
    pub discarded: u64,
}

#[derive(Debug)]
pub struct Fetch {
    pub requests: Vec<SessionRequest>,
    /// The next content offset to ask for.
    next: u64,
    /// Content requests sent and not yet answered in full.
    pending: u32,
    /// The rests of ranges cut by a resuming steer, (offset, bytes): asked
    /// for before the next new range.
    rests: std::collections::VecDeque<(u64, u64)>,
    delivered: Ranges,
    /// Where the next content requests go.
    pub current: Option<u32>,
    pub started_at: Option<Time>,
    pub finished_at: Option<Time>,
    /// Steers that changed the current connection once it had one.
    pub remaps: u64,
    /// Why the session could not go on (its lookup failed), if it could not.
    pub error: Option<String>,
}

impl Fetch {
    pub fn new() -> Fetch {
        Fetch {
            requests: Vec::new(),
            next: 0,
            pending: 0,
            rests: Default::default(),
            delivered: Ranges::default(),
            current: None,
            started_at: None,
            finished_at: None,
            remaps: 0,
            error: None,
        }
    }

    /// The next content request for the current connection `conn`, if the
    /// pipeline has room and bytes remain to ask for: its index. `idle`: no
    /// response (of any session sharing `conn`) is under way on `conn`.
    /// The rest of a range cut by a resuming steer goes first.
    pub fn issue(&mut self, m: &FetchModel, conn: u32, idle: bool, now: Time) -> Option<u32> {
        if self.pending >= m.pipeline || (self.rests.is_empty() && self.next >= m.bytes) {
            return None;
        }
        let (off, len) = self.rests.pop_front().unwrap_or_else(|| {
            let len = m.chunk.min(m.bytes - self.next);
            self.next += len;
            (self.next - len, len)
        });
        let ask = Ask::Range { off };
        self.pending += 1;
        Some(self.record(ask, len, m.request_bytes, conn, idle, now))
    }

    /// A probe of `request_bytes` for `len` response bytes on `conn`: its index.
    pub fn probe(&mut self, conn: u32, request_bytes: u32, len: u64, idle: bool, now: Time) -> u32 {
        self.record(Ask::Probe, len, request_bytes, conn, idle, now)
    }

    fn record(&mut self, ask: Ask, len: u64, request_bytes: u32, conn: u32, idle_start: bool, now: Time) -> u32 {
        self.requests.push(SessionRequest { ask, len, request_bytes, conn, sent_at: now, idle_start, first_byte_at: None, done_at: None, discarded: 0 });
        self.requests.len() as u32 - 1
    }

    /// Request `i`'s response arrived in full. A content range is added to
    /// what was delivered; a byte delivered twice is a bug, not a result.
    /// A response cut before (`cut`) has now drained: nothing more is
    /// delivered. Whether the response counted (false for a drained one).
    pub fn complete(&mut self, m: &FetchModel, i: u32, first_byte_at: Time, now: Time) -> bool {
        let r = &mut self.requests[i as usize];
        if r.discarded > 0 {
            return false;
        }
        (r.first_byte_at, r.done_at) = (Some(first_byte_at), Some(now));
        if let Ask::Range { off } = r.ask {
            if let Err(o) = self.delivered.insert(off, r.len) {
                panic!("fetch '{}': bytes [{}, {}) delivered twice (overlap with [{}, {}))", m.name, o.new.0, o.new.1, o.old.0, o.old.1);
            }
            self.pending -= 1;
            if self.delivered.complete(m.bytes) {
                self.finished_at = Some(now);
            }
        }
        true
    }

    /// A resuming steer stops reading content request `i`'s response, of
    /// which `got` bytes reached the application in order (`first_byte_at`
    /// the first of them): those are delivered now, the rest of the range
    /// is asked for on the current connection next, and the rest of the
    /// response will be drained and discarded. A response read in full or a
    /// probe is left alone. The bytes to discard.
    fn cut(&mut self, m: &FetchModel, i: u32, got: u64, first_byte_at: Option<Time>, now: Time) -> u64 {
        let r = &mut self.requests[i as usize];
        let Ask::Range { off } = r.ask else { return 0 };
        if r.done_at.is_some() || r.discarded > 0 || got >= r.len {
            return 0;
        }
        let rest = r.len - got;
        (r.discarded, r.done_at) = (rest, Some(now));
        r.first_byte_at = first_byte_at.filter(|_| got > 0);
        if got > 0 {
            if let Err(o) = self.delivered.insert(off, got) {
                panic!("fetch '{}': bytes [{}, {}) delivered twice (overlap with [{}, {}))", m.name, o.new.0, o.new.1, o.old.0, o.old.1);
            }
        }
        self.rests.push_back((off + got, rest));
        self.pending -= 1;
        rest
    }

    /// A resuming steer to `conn`: cuts (`cut`) every content response of
    /// the session under way on another connection, `read(i, request)`
    /// telling how many of request i's response bytes reached the
    /// application in order and when the first did. A line for the
    /// controller log if any was cut.
    pub fn resume_on(&mut self, m: &FetchModel, conn: u32, now: Time, mut read: impl FnMut(u32, &SessionRequest) -> (u64, Option<Time>)) -> Option<String> {
        let live = |r: &SessionRequest| matches!(r.ask, Ask::Range { .. }) && r.conn != conn && r.done_at.is_none() && r.discarded == 0;
        let elsewhere: Vec<u32> = self.requests.iter().enumerate().filter(|(_, r)| live(r)).map(|(i, _)| i as u32).collect();
        let mut cuts = Vec::new();
        for i in elsewhere {
            let r = &self.requests[i as usize];
            let (Ask::Range { off }, len, old) = (r.ask, r.len, r.conn) else { continue };
            let (got, first_byte_at) = read(i, r);
            let rest = self.cut(m, i, got, first_byte_at, now);
            if rest > 0 {
                cuts.push(format!("range [{off}, {}) on conn {old} cut after {got} bytes, {rest} to discard, the rest asked on conn {conn}", off + len));
            }
        }
        (!cuts.is_empty()).then(|| cuts.join("; "))
    }

    /// Response bytes cut by resuming steers: drained and discarded.
    pub fn discarded(&self) -> u64 {
        self.requests.iter().map(|r| r.discarded).sum()
    }

    /// Makes `conn` the current connection; whether that moved the session.
    pub fn steer(&mut self, conn: u32) -> bool {
        let moved = self.current.is_some_and(|c| c != conn);
        self.remaps += moved as u64;
        self.current = Some(conn);
        moved
    }

    /// Content requests outstanding, on every connection.
    pub fn pending(&self) -> u32 {
        self.pending
    }

    /// Content bytes delivered.
    pub fn bytes_done(&self) -> u64 {
        self.delivered.bytes()
    }
}

impl Default for Fetch {
    fn default() -> Fetch {
        Fetch::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(bytes: u64, chunk: u64, pipeline: u32) -> FetchModel {
        FetchModel {
            name: "f".into(),
            client: 0,
            content: 0,
            bytes,
            chunk,
            pipeline,
            request_bytes: 300,
            start: Time::ZERO,
            policy: Policy::Default,
            prefer: 0,
            family: Family::V4,
            resolver: None,
            candidates: Vec::new(),
            page: None,
            after: None,
        }
    }

    #[test]
    fn asks_in_chunks_within_the_pipeline_and_finishes_on_the_last_byte() {
        let m = model(2500, 1000, 2);
        let mut f = Fetch::new();
        assert!(!f.steer(7), "the first connection is no remap");
        let a = f.issue(&m, 7, true, Time::ZERO).unwrap();
        let b = f.issue(&m, 7, true, Time::ZERO).unwrap();
        assert_eq!(f.issue(&m, 7, true, Time::ZERO), None, "the pipeline is full");
        f.complete(&m, b, Time::from_millis(4), Time::from_millis(5));
        assert!(f.steer(9) && f.remaps == 1);
        let c = f.issue(&m, 9, true, Time::from_millis(5)).unwrap();
        assert_eq!((f.requests[c as usize].ask, f.requests[c as usize].len), (Ask::Range { off: 2000 }, 500));
        assert_eq!(f.issue(&m, 9, true, Time::from_millis(5)), None, "the pipeline is full again");
        f.complete(&m, c, Time::from_millis(5), Time::from_millis(6));
        assert_eq!(f.issue(&m, 9, true, Time::from_millis(6)), None, "nothing left to ask for");
        assert_eq!(f.finished_at, None, "[0, 1000) is still missing");
        f.complete(&m, a, Time::from_millis(7), Time::from_millis(8));
        assert_eq!((f.finished_at, f.bytes_done()), (Some(Time::from_millis(8)), 2500));
    }

    #[test]
    fn a_cut_range_keeps_what_arrived_and_asks_the_new_connection_for_the_rest() {
        let m = model(2500, 1000, 1);
        let mut f = Fetch::new();
        f.steer(7);
        let a = f.issue(&m, 7, true, Time::ZERO).unwrap();
        assert!(f.steer(9));
        let note = f.resume_on(&m, 9, Time::from_millis(3), |i, r| {
            assert_eq!((i, r.conn), (a, 7));
            (300, Some(Time::from_millis(2)))
        });
        assert_eq!(note.as_deref(), Some("range [0, 1000) on conn 7 cut after 300 bytes, 700 to discard, the rest asked on conn 9"));
        assert_eq!(f.requests[a as usize].discarded, 700, "700 bytes to drain and discard");
        assert_eq!((f.bytes_done(), f.pending()), (300, 0));
        let b = f.issue(&m, 9, true, Time::from_millis(3)).unwrap();
        assert_eq!((f.requests[b as usize].ask, f.requests[b as usize].len), (Ask::Range { off: 300 }, 700), "the rest first");
        assert!(!f.complete(&m, a, Time::from_millis(2), Time::from_millis(9)), "the drained response delivers nothing");
        assert!(f.complete(&m, b, Time::from_millis(8), Time::from_millis(10)));
        let c = f.issue(&m, 9, true, Time::from_millis(10)).unwrap();
        assert_eq!((f.requests[c as usize].ask, f.requests[c as usize].len), (Ask::Range { off: 1000 }, 1000), "then the next new range");
        assert_eq!(f.cut(&m, c, 1000, None, Time::from_millis(11)), 0, "a response read in full is not cut");
        assert_eq!((f.discarded(), f.bytes_done()), (700, 1000));
    }
}
