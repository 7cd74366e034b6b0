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

use std::collections::BTreeMap;

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

/// A lookup under way, or done; `R` is what the plane calls back with the answer.
pub struct Query<R> {
    pub host: NodeId,
    pub resolver: u32,
    pub domain: String,
    pub interface: u16,
    pub asked: Time,
    /// Sends so far.
    pub sends: u32,
    pub done: bool,
    pub token: u64,
    pub reply: R,
}

impl<R> Query<R> {
    /// The answer the lookup ends with at `at`: the resolver's (mirrors, TTL), or the failure.
    pub fn answer(&self, result: Result<(Vec<NodeId>, Time), Failure>, at: Time) -> Answer {
        let (mirrors, ttl, failed) = match result {
            Ok((m, ttl)) => (m, ttl, None),
            Err(f) => (Vec::new(), Time::ZERO, Some(f)),
        };
        Answer {
            host: self.host,
            resolver: self.resolver,
            domain: self.domain.clone(),
            interface: self.interface,
            mirrors,
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
    /// Send the query again.
    Resend,
    /// The last attempt timed out: the lookup failed.
    GiveUp,
}

type Key = (NodeId, u32, String, u16);

pub struct Stub<R> {
    pub config: StubConfig,
    /// (mirrors, arrival, TTL) by (host, resolver, domain, interface).
    cache: BTreeMap<Key, (Vec<NodeId>, Time, Time)>,
    /// By query id.
    pub queries: Vec<Query<R>>,
}

impl<R> Stub<R> {
    pub fn new(config: StubConfig) -> Stub<R> {
        Stub { config, cache: BTreeMap::new(), queries: Vec::new() }
    }

    /// A fresh cached answer at `now`: (mirrors, TTL left).
    pub fn cached(&self, host: NodeId, resolver: u32, domain: &str, interface: u16, now: Time) -> Option<(Vec<NodeId>, Time)> {
        let (mirrors, at, ttl) = self.cache.get(&(host, resolver, domain.to_string(), interface))?;
        let age = now.saturating_sub(*at);
        (age < *ttl).then(|| (mirrors.clone(), *ttl - age))
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

    /// An answer to query `id` arrived at `now`: false if the lookup was
    /// over already (a late answer, dropped). A successful one is cached.
    pub fn answered(&mut self, id: u32, now: Time, answer: &Option<(Vec<NodeId>, Time)>) -> bool {
        let q = &mut self.queries[id as usize];
        if q.done {
            return false;
        }
        q.done = true;
        if let Some((mirrors, ttl)) = answer {
            let key = (q.host, q.resolver, q.domain.clone(), q.interface);
            self.cache.insert(key, (mirrors.clone(), now, *ttl));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(asked: Time) -> Query<()> {
        Query { host: 0, resolver: 0, domain: "cdn.example".into(), interface: 0, asked, sends: 0, done: false, token: 0, reply: () }
    }

    #[test]
    fn an_answer_is_fresh_for_its_ttl_only() {
        let mut stub = Stub::new(StubConfig::default());
        let id = stub.start(query(Time::ZERO));
        stub.sent(id);
        assert!(stub.answered(id, Time::from_secs(1), &Some((vec![3, 4], Time::from_secs(30)))));
        assert_eq!(stub.cached(0, 0, "cdn.example", 0, Time::from_secs(11)), Some((vec![3, 4], Time::from_secs(20))));
        assert_eq!(stub.cached(0, 0, "cdn.example", 0, Time::from_secs(31)), None, "expired at arrival + TTL");
        assert_eq!(stub.cached(0, 0, "cdn.example", 1, Time::from_secs(2)), None, "another interface has its own cache");
        assert!(!stub.answered(id, Time::from_secs(2), &None), "a second answer is late");
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
        assert!(!stub.answered(id, Time::from_secs(11), &None));
    }
}
