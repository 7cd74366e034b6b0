//! The world's side of DNS (`crate::dns`, docs/dns.md): lookups start at a
//! host's stub resolver, whose queries travel as UDP datagrams
//! (`net::datagram`) to the resolver's node; the resolver's answer leaves
//! after its delay and comes back to the interface that asked; timeouts
//! resend the query; the caller gets the answer through the function it
//! passed, and the `dns` table gets a row. A host with an IPv6 address
//! asks for AAAA records too, in a second datagram sent with the first
//! (`dns::stub`).
//!
//! Other code looks a name up with [`World::resolve`]:
//!
//! ```ignore
//! fn on_answer(world: &mut World, a: &dns::Answer) { /* a.token says which request */ }
//! world.resolve(Lookup { host, resolver: "op".into(), domain: "cdn.example".into(), interface: None, token: 7 }, on_answer)?;
//! ```
//!
//! A controller's `Action::Resolve` is the same call with
//! [`tell_controllers`]: the host's controllers hear `Event::DnsAnswer`.

use super::{Event, World};
use crate::control::Event as CtlEvent;
use crate::dns::message::{answer_bytes, check_name, query_bytes, RecordType};
use crate::dns::stub::{Addresses, Expiry, Query};
use crate::dns::{Answer, Failure, Message, Stub};
use crate::net::datagram::{self, Bodies, NO_FLOW};
use crate::net::packet::{Packet, PacketId};
use crate::net::NodeId;
use crate::time::Time;

/// What a lookup's caller is called back with, once, when the answer is
/// there (from the network, the cache, or a failure).
pub type OnAnswer = for<'a, 'm> fn(&'a mut World<'m>, &Answer);

/// A lookup for [`World::resolve`].
#[derive(Debug, Clone)]
pub struct Lookup {
    /// The host that asks (its stub resolver and cache).
    pub host: NodeId,
    /// A `[[resolvers]]` entry's name.
    pub resolver: String,
    pub domain: String,
    /// The host's interface the query leaves by (index, as the host lists
    /// them); None: the one routing picks towards the resolver.
    pub interface: Option<u16>,
    /// Echoed in the answer, for the caller.
    pub token: u64,
}

/// The DNS state of a run.
pub struct Dns {
    pub stub: Stub<OnAnswer>,
    /// The messages of datagrams in the network.
    bodies: Bodies<Message>,
    /// Resolvers' answers waiting for their delay.
    outbox: Bodies<Packet>,
    /// Answers from a cache, handed back in an event of their own.
    cached: Bodies<(OnAnswer, Answer)>,
    /// Every lookup's answer, in the order handed back: the `dns` table.
    pub log: Vec<Answer>,
    /// Whether each node has an IPv6 address (a link with `families` v6):
    /// its stub asks AAAA too, and resolvers answer AAAA records for it.
    v6: Vec<bool>,
}

impl Dns {
    pub fn new(model: &crate::Model) -> Dns {
        let mut v6 = vec![false; model.nodes.len()];
        for l in model.links.iter().filter(|l| l.v6) {
            (v6[l.a as usize], v6[l.b as usize]) = (true, true);
        }
        Dns { stub: Stub::new(model.dns), bodies: Bodies::default(), outbox: Bodies::default(), cached: Bodies::default(), log: Vec::new(), v6 }
    }
}

/// The [`OnAnswer`] of `Action::Resolve`: the asking host's controllers
/// hear `Event::DnsAnswer`, with the resolver's and mirrors' names.
pub fn tell_controllers(world: &mut World, a: &Answer) {
    let name = |n: NodeId| world.model.nodes[n as usize].name.clone();
    let event = CtlEvent::DnsAnswer {
        resolver: world.model.resolvers[a.resolver as usize].name.clone(),
        domain: a.domain.clone(),
        interface: a.interface,
        mirrors: a.mirrors.iter().map(|&m| name(m)).collect(),
        mirrors_v6: a.mirrors_v6.iter().map(|&m| name(m)).collect(),
        ttl: a.ttl,
        from_cache: a.from_cache,
        elapsed: a.elapsed,
        failed: a.failed,
    };
    world.tell_host(a.host, &event);
}

impl World<'_> {
    /// Looks `lookup.domain` up for `lookup.host`; `then` gets the answer:
    /// from the host's cache in an event at this instant if a fresh answer
    /// is there, else when the resolver's answer arrives or the last
    /// attempt times out (NXDOMAIN and timeouts are answers with `failed`
    /// set). Err, with nothing sent, for a resolver the scenario does not
    /// declare, a name that is not a domain name, an interface the host
    /// lacks, a resolver on the host itself, or no route to it.
    pub fn resolve(&mut self, lookup: Lookup, then: OnAnswer) -> Result<(), String> {
        let Lookup { host, resolver, domain, interface, token } = lookup;
        let node = self.model.nodes.get(host as usize).ok_or_else(|| format!("no node {host}"))?;
        let Some(r) = self.model.resolvers.iter().position(|x| x.name == resolver) else {
            let known: Vec<&str> = self.model.resolvers.iter().map(|x| x.name.as_str()).collect();
            return Err(format!("no resolver named '{resolver}' (declared: {})", if known.is_empty() { "none".into() } else { known.join(", ") }));
        };
        check_name(&domain)?;
        let server = self.model.resolvers[r].node;
        if server == host {
            return Err(format!("resolver '{resolver}' runs on {} itself", node.name));
        }
        let interface = match interface {
            Some(i) if (i as usize) < self.ifaces.of(host).len() => i,
            Some(i) => return Err(format!("{} has no interface {i}", node.name)),
            None => {
                let link = self.routes.next_hop(host, server, NO_FLOW, self.ecmp);
                let out = self.ifaces.of(host).iter().position(|f| Some(f.out) == link);
                out.ok_or_else(|| format!("no route from {} to resolver '{resolver}'", node.name))? as u16
            }
        };
        let domain = domain.strip_suffix('.').unwrap_or(&domain).to_string();
        let now = self.now;
        if let Some((mirrors, mirrors_v6, ttl)) = self.dns.stub.cached(host, r as u32, &domain, interface, now) {
            let answer = Answer {
                host,
                resolver: r as u32,
                domain,
                interface,
                mirrors,
                mirrors_v6,
                ttl,
                from_cache: true,
                asked: now,
                elapsed: Time::ZERO,
                retries: 0,
                failed: None,
                token,
            };
            let slot = self.dns.cached.insert((then, answer));
            self.events.schedule(now, Event::DnsCached { slot });
            return Ok(());
        }
        let query = Query::new(host, r as u32, domain, interface, now, token, then, self.dns.v6[host as usize]);
        let id = self.dns.stub.start(query);
        self.dns_send(id);
        Ok(())
    }

    /// Sends query `id` (again) out of its interface, one datagram per
    /// record type still unanswered (AAAA first, then A, back to back), and
    /// arms its timeout.
    fn dns_send(&mut self, id: u32) {
        let attempt = self.dns.stub.sent(id);
        let q = &self.dns.stub.queries[id as usize];
        let (host, interface) = (q.host, q.interface);
        let (resolver, domain) = (q.resolver, q.domain.clone());
        let server = self.model.resolvers[resolver as usize].node;
        for rtype in q.unanswered() {
            let body = self.dns.bodies.insert(Message::Query { query: id, rtype, resolver, domain: domain.clone() });
            let mut p = datagram::packet(host, server, body, query_bytes(&domain));
            p.src_if = interface;
            self.counts.sent += 1;
            let pid = self.pool.insert(p);
            self.offer(self.ifaces.get(host, interface).out, pid);
        }
        let at = self.now + self.dns.stub.config.timeout;
        self.events.schedule(at, Event::DnsTimeout { query: id, attempt });
    }

    pub(super) fn dns_timeout(&mut self, query: u32, attempt: u32) {
        match self.dns.stub.expired(query, attempt) {
            Expiry::Stale => {}
            Expiry::Resend => self.dns_send(query),
            Expiry::GiveUp => {
                let outcome = self.dns.stub.queries[query as usize].outcome();
                self.dns_finish(query, outcome)
            }
        }
    }

    /// A datagram reached its destination: a query for a resolver there, or an answer for the stub.
    pub(super) fn datagram_arrived(&mut self, pid: PacketId) {
        let p = self.pool.get(pid);
        let (body, client, client_if) = (p.seq as u32, p.src, p.src_if);
        self.counts.delivered += 1;
        self.pool.release(pid);
        match self.dns.bodies.take(body) {
            Message::Query { query, rtype, resolver, domain } => self.dns_serve(query, rtype, resolver, &domain, client, client_if),
            Message::Answer { query, rtype, answer } => {
                if let Some(outcome) = self.dns.stub.answered(query, rtype, self.now, &answer) {
                    self.dns_finish(query, outcome);
                }
            }
        }
    }

    /// Resolver `r` got query `query` of type `rtype` for `domain` from
    /// `client`'s interface `client_if`: its answer leaves after the
    /// resolver's delay, addressed to that interface.
    fn dns_serve(&mut self, query: u32, rtype: RecordType, r: u32, domain: &str, client: NodeId, client_if: u16) {
        let resolver = &self.model.resolvers[r as usize];
        let asked_from = self.model.nodes[client as usize].interfaces.get(client_if as usize).map_or("", String::as_str);
        let v6 = &self.dns.v6;
        let answer = resolver.answer(domain, asked_from, rtype, |m| v6[m as usize]);
        let bytes = answer_bytes(domain, answer.as_ref().map_or(0, |(m, _)| m.len()), rtype);
        let (server, delay) = (resolver.node, resolver.delay);
        let body = self.dns.bodies.insert(Message::Answer { query, rtype, answer });
        let mut p = datagram::packet(server, client, body, bytes);
        p.dst_if = client_if;
        let slot = self.dns.outbox.insert(p);
        self.events.schedule(self.now + delay, Event::DnsServe { slot });
    }

    /// A resolver's delay is over: its answer leaves.
    pub(super) fn dns_answer_leaves(&mut self, slot: u32) {
        let p = self.dns.outbox.take(slot);
        let server = p.src;
        self.counts.sent += 1;
        let pid = self.pool.insert(p);
        self.forward(pid, server);
    }

    /// A datagram was lost: its message goes with it (the stub's timeout notices).
    pub(super) fn datagram_lost(&mut self, body: u32) {
        self.dns.bodies.take(body);
    }

    fn dns_finish(&mut self, id: u32, result: Result<Addresses, Failure>) {
        let q = &self.dns.stub.queries[id as usize];
        let answer = q.answer(result, self.now);
        let then = q.reply;
        self.dns_hand_back(then, answer);
    }

    pub(super) fn dns_cached(&mut self, slot: u32) {
        let (then, answer) = self.dns.cached.take(slot);
        self.dns_hand_back(then, answer);
    }

    fn dns_hand_back(&mut self, then: OnAnswer, answer: Answer) {
        self.dns.log.push(answer.clone());
        then(self, &answer);
    }
}
