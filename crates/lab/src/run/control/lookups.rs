//! A host's stub resolver on the lab (docs/dns.md): the simulator's stub
//! (`pathpool_sim::dns::Stub`: cache keyed by resolver, domain and
//! interface, TTL, timeout, attempts) driven by the host's controller
//! thread, with real UDP queries. Each lookup's query leaves from a UDP
//! socket bound to the address of the interface it names (the testbed's
//! source routing sends it out of that interface) to port 53 of the
//! resolver node's first address (or the port of the interface's own
//! answers, `by_interface`), where dnsmasq listens (`dns/server.rs`); the emulator carries it like any packet, and holds
//! the answer for the resolver's delay (`emulator/hold.rs`). A send that
//! is not answered within the timeout is sent again with the same ID (as
//! glibc resends the same message), up to the attempts; then the lookup
//! fails with `timeout`. Answers are handed back as the simulator hands
//! them: `Event::DnsAnswer` to the host's controllers after `Resolve`, or
//! the default policy's connection for a session's lookup; every answer is
//! a row of the `dns` table.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

use pathpool_sim::control::{Event, SessionId};
use pathpool_sim::dns::message::check_name;
use pathpool_sim::dns::stub::{Addresses, Expiry, Query};
use pathpool_sim::dns::{Answer, Failure, RecordType, Stub};
use pathpool_sim::net::datagram::NO_FLOW;
use pathpool_sim::net::NodeId;
use pathpool_sim::Time;

use super::links::interface_links;
use super::Host;
use crate::dns::message::{self, Reply};
use crate::dns::server;

/// Who hears a lookup's answer.
#[derive(Debug, Clone, Copy)]
pub(super) enum Asker {
    /// The host's controllers (`Action::Resolve`).
    Controllers,
    /// The default policy of a fetch session (`fetch.rs`).
    Session(SessionId),
}

/// The host's lookups.
pub(super) struct Lookups {
    stub: Stub<Asker>,
    /// By the host's interface index: the socket its queries leave from.
    sockets: BTreeMap<u16, UdpSocket>,
    /// (due, query, attempt) of the sends waiting for an answer.
    timeouts: Vec<(Time, u32, u32)>,
    /// Answers to hand back, in order.
    done: VecDeque<(Asker, Answer)>,
    /// By query: the message its sends carry.
    messages: Vec<Vec<u8>>,
    /// Every node's address, to name the mirrors of an answer.
    nodes: HashMap<IpAddr, NodeId>,
    buf: Vec<u8>,
}

impl Lookups {
    pub fn new(model: &pathpool_sim::Model, addrs: &[Vec<IpAddr>]) -> Lookups {
        let nodes = addrs.iter().enumerate().flat_map(|(n, a)| a.iter().map(move |&ip| (ip, n as NodeId))).collect();
        let stub = Stub::new(model.dns);
        Lookups { stub, sockets: BTreeMap::new(), timeouts: Vec::new(), done: VecDeque::new(), messages: Vec::new(), nodes, buf: vec![0; 1500] }
    }

    /// Whether the thread must wait on the host's DNS sockets.
    pub fn any(&self) -> bool {
        !self.sockets.is_empty()
    }

    /// The sockets to wait on.
    pub fn fds(&self) -> impl Iterator<Item = RawFd> + '_ {
        self.sockets.values().map(AsRawFd::as_raw_fd)
    }

    /// The next timeout, or now if answers wait to be handed back.
    pub fn next(&self, now: Time) -> Option<Time> {
        let ready = (!self.done.is_empty()).then_some(now);
        self.timeouts.iter().map(|t| t.0).chain(ready).min()
    }
}

impl Host<'_> {
    /// `Action::Resolve`: a lookup whose answer the host's controllers hear.
    pub(super) fn ctl_resolve(&mut self, resolver: &str, domain: &str, interface: Option<u16>) -> Result<Option<u32>, String> {
        self.lookup(resolver, domain, interface, Asker::Controllers).map(|()| None)
    }

    /// Starts a lookup, as `pathpool_sim::world::World::resolve` does: Err,
    /// with nothing sent, for a resolver the scenario does not declare, a
    /// name that is not a domain name, an interface the host lacks, a
    /// resolver on the host itself, or no route to it.
    pub(super) fn lookup(&mut self, resolver: &str, domain: &str, interface: Option<u16>, asker: Asker) -> Result<(), String> {
        let model = self.s.model;
        let Some(r) = model.resolvers.iter().position(|x| x.name == resolver) else {
            let known: Vec<&str> = model.resolvers.iter().map(|x| x.name.as_str()).collect();
            return Err(format!("no resolver named '{resolver}' (declared: {})", if known.is_empty() { "none".into() } else { known.join(", ") }));
        };
        check_name(domain)?;
        let server = model.resolvers[r].node;
        if server == self.id {
            return Err(format!("resolver '{resolver}' runs on {} itself", self.name()));
        }
        let links = interface_links(model, self.id);
        let interface = match interface {
            Some(i) if (i as usize) < links.len() => i,
            Some(i) => return Err(format!("{} has no interface {i}", self.name())),
            None => {
                let link = model.routes.next_hop(self.id, server, NO_FLOW, model.ecmp);
                let out = links.iter().position(|&l| Some(l as u32) == link);
                out.ok_or_else(|| format!("no route from {} to resolver '{resolver}'", self.name()))? as u16
            }
        };
        let domain = domain.strip_suffix('.').unwrap_or(domain).to_string();
        let now = self.s.clock.now();
        if let Some((mirrors, mirrors_v6, ttl)) = self.lookups.stub.cached(self.id, r as u32, &domain, interface, now) {
            let answer = Answer {
                host: self.id,
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
                token: 0,
            };
            self.lookups.done.push_back((asker, answer));
            return Ok(());
        }
        // The header's ID is 16 bits (RFC 1035 §4.1.1): the query's index, modulo.
        let bytes = message::query(self.lookups.stub.queries.len() as u16, &domain)?;
        // A records only: the lab has no IPv6 (`support.rs`).
        let query = Query::new(self.id, r as u32, domain, interface, now, 0, asker, false);
        let id = self.lookups.stub.start(query);
        self.lookups.messages.push(bytes);
        self.dns_send(id);
        Ok(())
    }

    /// Sends query `id` (again: the same message) from its interface's
    /// socket and arms its timeout. A send the kernel refuses is a lost
    /// query, as a packet into a down link is: the timeout notices.
    fn dns_send(&mut self, id: u32) {
        let attempt = self.lookups.stub.sent(id);
        let q = &self.lookups.stub.queries[id as usize];
        let resolver = &self.s.model.resolvers[q.resolver as usize];
        // The port of the answers for the interface the query leaves from (`dns/server.rs`, answers by interface).
        let port = server::port(resolver, &self.s.model.nodes[self.id as usize].interfaces[q.interface as usize]);
        let to = SocketAddr::new(self.s.addrs[resolver.node as usize][0], port);
        let now = self.s.clock.now();
        self.lookups.timeouts.push((now + self.lookups.stub.config.timeout, id, attempt));
        let _ = self.lookups.sockets[&q.interface].send_to(&self.lookups.messages[id as usize], to);
    }

    /// In a run with resolvers, a socket per interface of the host, made
    /// in its namespace and bound to the interface's address before model
    /// time zero, so that no lookup waits for one to be made.
    pub(super) fn dns_sockets(&mut self) -> Result<(), String> {
        if self.s.model.resolvers.is_empty() {
            return Ok(());
        }
        for (interface, &ip) in self.s.addrs[self.id as usize].iter().enumerate() {
            let local = SocketAddr::new(ip, 0);
            let socket = self
                .ns
                .run(|| -> io::Result<UdpSocket> {
                    let s = UdpSocket::bind(local)?;
                    s.set_nonblocking(true)?;
                    Ok(s)
                })
                .and_then(|r| r)
                .map_err(|e| format!("DNS socket on {local}: {e}"))?;
            self.lookups.sockets.insert(interface as u16, socket);
        }
        Ok(())
    }

    /// Reads the answers that arrived on every DNS socket.
    pub(super) fn dns_io(&mut self) {
        let now = self.s.clock.now();
        let mut got = Vec::new();
        for (&interface, socket) in &self.lookups.sockets {
            while let Ok((n, _)) = socket.recv_from(&mut self.lookups.buf) {
                if let Ok(answer) = message::answer(&self.lookups.buf[..n]) {
                    got.push((interface, answer));
                }
            }
        }
        for (interface, (id, reply)) in got {
            let id = id as u32;
            // An answer to no query of this socket's (a stray, or an ID that wrapped) is dropped.
            if self.lookups.stub.queries.get(id as usize).is_none_or(|q| q.interface != interface) {
                continue;
            }
            let result = match reply {
                Reply::Addresses(addrs, ttl) => {
                    let mirrors = addrs.iter().filter_map(|a| self.lookups.nodes.get(&IpAddr::V4(*a)).copied()).collect();
                    Ok((mirrors, Time::from_secs(ttl as u64)))
                }
                Reply::NxDomain => Err(Failure::NxDomain),
                // SERVFAIL or REFUSED: dnsmasq gives neither here; the timeout decides.
                Reply::Other(_) => continue,
            };
            let records = result.ok();
            if let Some(outcome) = self.lookups.stub.answered(id, RecordType::A, now, &records) {
                self.dns_finish(id, outcome, now);
            }
        }
    }

    /// Sends again or gives up on the queries whose timeout is due, then
    /// hands back the answers that are ready.
    pub(super) fn dns_due(&mut self, now: Time) {
        while let Some(k) = (0..self.lookups.timeouts.len()).filter(|&k| self.lookups.timeouts[k].0 <= now).min_by_key(|&k| self.lookups.timeouts[k].0) {
            let (due, id, attempt) = self.lookups.timeouts.remove(k);
            match self.lookups.stub.expired(id, attempt) {
                Expiry::Stale => {}
                Expiry::Resend => self.dns_send(id),
                Expiry::GiveUp => self.dns_finish(id, Err(Failure::Timeout), due),
            }
        }
        while let Some((asker, answer)) = self.lookups.done.pop_front() {
            self.s.dns.lock().unwrap_or_else(|e| e.into_inner()).push(answer.clone());
            match asker {
                Asker::Controllers => {
                    let name = |n: NodeId| self.s.model.nodes[n as usize].name.clone();
                    self.pending.push_back(Event::DnsAnswer {
                        resolver: self.s.model.resolvers[answer.resolver as usize].name.clone(),
                        domain: answer.domain,
                        interface: answer.interface,
                        mirrors: answer.mirrors.iter().map(|&m| name(m)).collect(),
                        mirrors_v6: Vec::new(),
                        ttl: answer.ttl,
                        from_cache: answer.from_cache,
                        elapsed: answer.elapsed,
                        failed: answer.failed,
                    });
                }
                Asker::Session(s) => match answer.failed {
                    Some(f) => self.ledger(s).error = Some(format!("lookup: {}", f.name())),
                    None => self.connect_default(s, &answer.mirrors, now),
                },
            }
        }
    }

    /// Lookup `id` ended at `at`, with mirrors and TTL or a failure.
    fn dns_finish(&mut self, id: u32, result: Result<Addresses, Failure>, at: Time) {
        let q = &self.lookups.stub.queries[id as usize];
        let answer = q.answer(result, at);
        self.lookups.done.push_back((q.reply, answer));
    }
}
