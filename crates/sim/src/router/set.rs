//! The router modules of one run and the link directions each owns: the
//! world hands every hook to the owner of the direction concerned, and takes
//! back the timers the modules ask for.

use super::{build, RouterCtx, RouterModule};
use crate::net::link::Link;
use crate::net::packet::Packet;
use crate::net::LinkId;
use crate::scenario::model::RouterModel;
use crate::time::Time;

pub struct RouterSet {
    modules: Vec<Box<dyn RouterModule>>,
    /// For each link direction, the module that owns it (None: plain forwarding).
    owner: Vec<Option<u32>>,
    /// Timers asked for, (when, module, token), for the world to schedule.
    pub timers: Vec<(Time, u32, u32)>,
}

impl RouterSet {
    pub fn new(routers: &[RouterModel], link_directions: usize) -> RouterSet {
        let mut owner = vec![None; link_directions];
        let mut modules = Vec::with_capacity(routers.len());
        for (i, r) in routers.iter().enumerate() {
            let m = build(&r.module, &r.params, &r.links)
                .unwrap_or_else(|e| panic!("router module '{}' passed validation but: {e:?}", r.module));
            modules.push(m);
            for &l in &r.links {
                owner[l as usize] = Some(i as u32);
            }
        }
        RouterSet { modules, owner, timers: Vec::new() }
    }

    fn ctx<'a>(&'a mut self, module: u32, now: Time, links: &'a [Link]) -> (&'a mut dyn RouterModule, RouterCtx<'a>) {
        let ctx = RouterCtx { now, links, module, timers: &mut self.timers };
        (self.modules[module as usize].as_mut(), ctx)
    }

    pub fn start(&mut self, now: Time, links: &[Link]) {
        for i in 0..self.modules.len() as u32 {
            let (m, mut ctx) = self.ctx(i, now, links);
            m.start(&mut ctx);
        }
    }

    pub fn offer(&mut self, l: LinkId, pkt: &mut Packet, now: Time, links: &[Link]) {
        if let Some(i) = self.owner[l as usize] {
            let (m, mut ctx) = self.ctx(i, now, links);
            m.on_offer(l, pkt, &mut ctx);
        }
    }

    pub fn transmit(&mut self, l: LinkId, pkt: &mut Packet, now: Time, links: &[Link]) {
        if let Some(i) = self.owner[l as usize] {
            let (m, mut ctx) = self.ctx(i, now, links);
            m.on_transmit(l, pkt, &mut ctx);
        }
    }

    pub fn timer(&mut self, module: u32, token: u32, now: Time, links: &[Link]) {
        let (m, mut ctx) = self.ctx(module, now, links);
        m.on_timer(token, &mut ctx);
    }
}
