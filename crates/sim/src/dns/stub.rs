//! The stub resolver of each host (RFC 1034 §5.3.1): it asks one resolver
//! per lookup, keeps the answers in a cache until their TTL runs out, and
//! sends a query again when no answer came within the timeout.
//!
//! - **Cache.** One per host, keyed by resolver, domain and the host's
//!   interface the query leaves by: an answer can depend on the network
//!   that asked, and Android's resolver keeps one cache per network
//!   (netd's `resolv_cache`, per netId). An answer is fresh while less than
//!   its TTL has passed since it arrived (RFC 1035 §3.2.1; a TTL of zero is
//!   never cached); a fresh one is returned without a query, with what is
//!   left of its TTL, an expired one is asked again. Failures are not cached (RFC 2308 §5 allows it; glibc's
//!   stub caches nothing at all).
//! - **Timeout and attempts.** Defaults: 5 s and 2 sends, glibc's
//!   `RES_TIMEOUT` and `RES_DFLRETRY` (resolv.conf(5): `timeout:5`,
//!   `attempts:2`) and Android's DnsResolver (`base_timeout_msec` 5000,
//!   `retry_count` 2). With one server both wait the same timeout after
//!   every send (`res_send.c`: `retrans << ns`, ns the server's index).
//!   RFC 1536 §1 asks for back-off and warns against retransmitting
//!   sooner; RFC 1035 §4.2.1 leaves the interval to the implementation. A query sent again
//!   keeps its ID, as glibc resends the same message, so a late answer to
//!   the first send still completes the lookup.
//! - **A and AAAA.** A host with an IPv6 address asks for both record types
//!   (getaddrinfo's `AI_ADDRCONFIG`, RFC 3493 §6.1: no AAAA query from a
//!   host without IPv6), as two queries sent together, AAAA first
//!   (RFC 8305 §3; glibc sends both in parallel on one socket unless
//!   `single-request` is set). The lookup ends when both are answered, as
//!   getaddrinfo returns once it has both; a timeout sends again only the
//!   types still unanswered. Happy Eyeballs' resolution delay (RFC 8305
//!   §3: use the AAAA answer without waiting for the A one) is not built.

use std::collections::BTreeMap;

use super::message::RecordType;
use super::{Answer, Failure};
use crate::net::NodeId;
use crate::time::Time;

/// The stub's settings (`[dns]` in a scenario), the same on every host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StubConfig {
    /// How long each send waits for its answer.
    pub timeout: Time,
    /// Sends per lookup, the first included (at least 1).
    pub attempts: u32,
}

impl Default for StubConfig {
    fn default() -> Self {
        StubConfig { timeout: Time::from_secs(5), attempts: 2 }
    }
}

/// One record type's answer: the mirrors it names and its TTL, or None
/// for a Name Error (RCODE 3).
pub type Records = Option<(Vec<NodeId>, Time)>;

/// A lookup's addresses: the A records' mirrors, the AAAA records'
/// mirrors (empty when not asked or none), and the TTL.
pub type Addresses = (Vec<NodeId>, Vec<NodeId>, Time);

/// A lookup under way, or done; `R` is what the plane calls back with the answer.
pub struct Query<R> {
    pub host: NodeId,
    pub resolver: u32,
    pub domain: String,
    pub interface: u16,
    pub asked: Time,
    /// Sends so far (both types sent together count once).
    pub sends: u32,
    pub done: bool,
    pub token: u64,
    pub reply: R,
    /// Ask AAAA as well as A.
    pub v6: bool,
    /// The answers so far, A then AAAA (None: not yet).
    got: [Option<Records>; 2],
}

impl<R> Query<R> {
    /// A lookup asked at `asked`, for A records, and AAAA ones if `v6`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(host: NodeId, resolver: u32, domain: String, interface: u16, asked: Time, token: u64, reply: R, v6: bool) -> Query<R> {
        Query { host, resolver, domain, interface, asked, sends: 0, done: false, token, reply, v6, got: [None, None] }
    }

    /// The record types it asks for, in the order they are sent: AAAA first (RFC 8305 §3).
    pub fn types(&self) -> &'static [RecordType] {
        if self.v6 {
            &[RecordType::Aaaa, RecordType::A]
        } else {
            &[RecordType::A]
        }
    }

    /// The types sent and not answered yet, in sending order.
    pub fn unanswered(&self) -> Vec<RecordType> {
        self.types().iter().copied().filter(|t| self.got[t.slot()].is_none()).collect()
    }

    /// What the answers so far amount to: a Name Error if either type got
    /// one, the addresses once A is answered (AAAA's if it was), else a timeout.
    pub fn outcome(&self) -> Result<Addresses, Failure> {
        match &self.got {
            [Some(None), _] | [_, Some(None)] => Err(Failure::NxDomain),
            [Some(Some((a, ttl))), aaaa] => {
                let (v6, ttl6) = aaaa.clone().flatten().unwrap_or((Vec::new(), *ttl));
                Ok((a.clone(), v6, (*ttl).min(ttl6)))
            }
            [None, _] => Err(Failure::Timeout),
        }
    }

    /// The answer the lookup ends with at `at`: the resolver's addresses and TTL, or the failure.
    pub fn answer(&self, result: Result<Addresses, Failure>, at: Time) -> Answer {
        let (mirrors, mirrors_v6, ttl, failed) = match result {
            Ok((m, m6, ttl)) => (m, m6, ttl, None),
            Err(f) => (Vec::new(), Vec::new(), Time::ZERO, Some(f)),
        };
        Answer {
            host: self.host,
            resolver: self.resolver,
            domain: self.domain.clone(),
            interface: self.interface,
            mirrors,
            mirrors_v6,
            ttl,
            from_cache: false,
            asked: self.asked,
            elapsed: at - self.asked,
            retries: self.sends - 1,
            failed,
            token: self.token,
        }
    }
}

/// What to do when a send's timeout fires.
#[derive(Debug, PartialEq, Eq)]
pub enum Expiry {
    /// Nothing: it was answered, or a later send is waiting.
    Stale,
    /// Send the unanswered queries again.
    Resend,
    /// The last attempt timed out: the lookup ends with what it has (`Query::outcome`).
    GiveUp,
}

type Key = (NodeId, u32, String, u16);

pub struct Stub<R> {
    pub config: StubConfig,
    /// (A mirrors, AAAA mirrors, arrival, TTL) by (host, resolver, domain, interface).
    cache: BTreeMap<Key, (Vec<NodeId>, Vec<NodeId>, Time, Time)>,
    /// By query id.
    pub queries: Vec<Query<R>>,
}

impl<R> Stub<R> {
    pub fn new(config: StubConfig) -> Stub<R> {
        Stub { config, cache: BTreeMap::new(), queries: Vec::new() }
    }

    /// A fresh cached answer at `now`: (A mirrors, AAAA mirrors, TTL left).
    pub fn cached(&self, host: NodeId, resolver: u32, domain: &str, interface: u16, now: Time) -> Option<Addresses> {
        let (mirrors, mirrors_v6, at, ttl) = self.cache.get(&(host, resolver, domain.to_string(), interface))?;
        let age = now.saturating_sub(*at);
        (age < *ttl).then(|| (mirrors.clone(), mirrors_v6.clone(), *ttl - age))
    }

    /// Starts a lookup; its query id.
    pub fn start(&mut self, query: Query<R>) -> u32 {
        self.queries.push(query);
        (self.queries.len() - 1) as u32
    }

    /// Query `id` is sent (again): its attempt number, from 1.
    pub fn sent(&mut self, id: u32) -> u32 {
        let q = &mut self.queries[id as usize];
        q.sends += 1;
        q.sends
    }

    /// The timeout of send `attempt` of query `id` fired.
    pub fn expired(&mut self, id: u32, attempt: u32) -> Expiry {
        let q = &mut self.queries[id as usize];
        if q.done || q.sends != attempt {
            Expiry::Stale
        } else if attempt < self.config.attempts {
            Expiry::Resend
        } else {
            q.done = true;
            Expiry::GiveUp
        }
    }

    /// The answer of type `rtype` to query `id` arrived at `now`: the
    /// lookup's outcome if that completes it, None if another type is
    /// still awaited or the lookup was over already (a late answer,
    /// dropped). A successful lookup is cached.
    pub fn answered(&mut self, id: u32, rtype: RecordType, now: Time, answer: &Records) -> Option<Result<Addresses, Failure>> {
        let q = &mut self.queries[id as usize];
        if q.done || !q.types().contains(&rtype) {
            return None;
        }
        q.got[rtype.slot()].get_or_insert_with(|| answer.clone());
        if !q.unanswered().is_empty() {
            return None;
        }
        q.done = true;
        let outcome = q.outcome();
        if let Ok((mirrors, mirrors_v6, ttl)) = &outcome {
            let key = (q.host, q.resolver, q.domain.clone(), q.interface);
            self.cache.insert(key, (mirrors.clone(), mirrors_v6.clone(), now, *ttl));
        }
        Some(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(asked: Time) -> Query<()> {
        Query::new(0, 0, "cdn.example".into(), 0, asked, 0, (), false)
    }

    #[test]
    fn an_answer_is_fresh_for_its_ttl_only() {
        let mut stub = Stub::new(StubConfig::default());
        let id = stub.start(query(Time::ZERO));
        stub.sent(id);
        let answer = stub.answered(id, RecordType::A, Time::from_secs(1), &Some((vec![3, 4], Time::from_secs(30))));
        assert_eq!(answer, Some(Ok((vec![3, 4], vec![], Time::from_secs(30)))));
        assert_eq!(stub.cached(0, 0, "cdn.example", 0, Time::from_secs(11)), Some((vec![3, 4], vec![], Time::from_secs(20))));
        assert_eq!(stub.cached(0, 0, "cdn.example", 0, Time::from_secs(31)), None, "expired at arrival + TTL");
        assert_eq!(stub.cached(0, 0, "cdn.example", 1, Time::from_secs(2)), None, "another interface has its own cache");
        assert_eq!(stub.answered(id, RecordType::A, Time::from_secs(2), &None), None, "a second answer is late");
    }

    #[test]
    fn a_send_times_out_into_a_resend_then_a_failure() {
        let mut stub = Stub::new(StubConfig { timeout: Time::from_secs(5), attempts: 2 });
        let id = stub.start(query(Time::ZERO));
        assert_eq!(stub.sent(id), 1);
        assert_eq!(stub.expired(id, 1), Expiry::Resend);
        assert_eq!(stub.sent(id), 2);
        assert_eq!(stub.expired(id, 1), Expiry::Stale, "the first send's timer is superseded");
        assert_eq!(stub.expired(id, 2), Expiry::GiveUp);
        assert_eq!(stub.queries[id as usize].outcome(), Err(Failure::Timeout));
        assert_eq!(stub.answered(id, RecordType::A, Time::from_secs(11), &None), None);
    }

    #[test]
    fn a_dual_stack_lookup_waits_for_both_types() {
        let mut stub = Stub::new(StubConfig::default());
        let id = stub.start(Query::new(0, 0, "cdn.example".into(), 0, Time::ZERO, 0, (), true));
        stub.sent(id);
        assert_eq!(stub.queries[id as usize].unanswered(), vec![RecordType::Aaaa, RecordType::A], "AAAA first (RFC 8305 §3)");
        assert_eq!(stub.answered(id, RecordType::A, Time::from_millis(5), &Some((vec![3, 4], Time::from_secs(30)))), None, "AAAA is awaited");
        assert_eq!(stub.queries[id as usize].unanswered(), vec![RecordType::Aaaa], "a resend asks AAAA only");
        let both = stub.answered(id, RecordType::Aaaa, Time::from_millis(6), &Some((vec![4], Time::from_secs(30))));
        assert_eq!(both, Some(Ok((vec![3, 4], vec![4], Time::from_secs(30)))));
        assert_eq!(stub.cached(0, 0, "cdn.example", 0, Time::from_secs(1)), Some((vec![3, 4], vec![4], Time::from_millis(29_006))));
        // The A answer alone, after the last attempt: the addresses it has.
        let id = stub.start(Query::new(0, 0, "cdn.example".into(), 1, Time::ZERO, 0, (), true));
        stub.sent(id);
        stub.answered(id, RecordType::A, Time::from_millis(5), &Some((vec![3], Time::from_secs(30))));
        assert_eq!(stub.expired(id, 1), Expiry::Resend);
        stub.sent(id);
        assert_eq!(stub.expired(id, 2), Expiry::GiveUp);
        assert_eq!(stub.queries[id as usize].outcome(), Ok((vec![3], vec![], Time::from_secs(30))));
    }
}
