//! A scripted lookup: resolve a domain at a resolver at `at`, then every
//! `every` up to `count` times (`Action::Resolve`, docs/dns.md). It stands
//! for an application's or a controller's own lookups where none makes
//! them yet: pre-resolution at start, cache behaviour over TTLs, tests.
//! A resolver the scenario does not declare is refused when the lookup is
//! made, in the controller log.

use super::{Action, ActionKind, Built, Controller, Event, Host, View};
use crate::cc::params::Params;
use crate::time::Time;

pub struct Lookup {
    resolver: String,
    domain: String,
    interface: Option<u16>,
    at: Time,
    every: Time,
    count: u64,
}

pub fn build(p: &mut Params, host: &Host) -> Built {
    let required = |p: &mut Params, key: &'static str, what: &str| match p.text(key) {
        Some(s) => s.to_string(),
        None => {
            p.problem(key, format!("required: {what}"));
            String::new()
        }
    };
    let resolver = required(p, "resolver", "the name of a [[resolvers]] entry");
    let domain = required(p, "domain", "the domain to look up");
    if !domain.is_empty() {
        if let Err(e) = crate::dns::message::check_name(&domain) {
            p.problem("domain", e);
        }
    }
    let interface = p.text("interface").and_then(|name| match host.interfaces.iter().position(|i| i == name) {
        Some(i) => Some(i as u16),
        None => {
            p.problem("interface", format!("'{name}' is not an interface of {} (it has: {})", host.name, host.interfaces.join(", ")));
            None
        }
    });
    let at = p.duration("at", Time::ZERO, |_| true, "0 or more");
    let every = p.duration("every", Time::ZERO, |_| true, "0 or more");
    let count = p.number("count", 1.0, |n| n >= 1.0 && n.fract() == 0.0, "a whole number, 1 or more") as u64;
    if count > 1 && every == Time::ZERO {
        p.problem("every", "required with count > 1: the time between lookups".to_string());
    }
    Built {
        controller: Box::new(Lookup { resolver, domain, interface, at, every, count }),
        actions: vec![ActionKind::ArmTimer, ActionKind::Resolve],
    }
}

impl Controller for Lookup {
    fn on_event(&mut self, _now: Time, event: &Event, _view: &View, out: &mut Vec<Action>) {
        match *event {
            Event::Start => out.push(Action::ArmTimer { after: self.at, token: 0 }),
            Event::Timer { token } => {
                out.push(Action::Resolve { resolver: self.resolver.clone(), domain: self.domain.clone(), interface: self.interface });
                if token + 1 < self.count {
                    out.push(Action::ArmTimer { after: self.every, token: token + 1 });
                }
            }
            _ => {}
        }
    }
}
