//! The router modules of one run and the link directions each owns: the
//! world hands every hook to the owner of the direction concerned (arrivals
//! to the module of the node reached), and takes back the timers and actions
//! the modules ask for.

use super::{build, Arrival, Effects, RouterCtx, RouterModule, Verdict};
use crate::net::link::Link;
use crate::net::packet::{Packet, PacketId};
use crate::net::{LinkId, NodeId};
use crate::scenario::model::RouterModel;
use crate::time::Time;

pub struct RouterSet {
    modules: Vec<Box<dyn RouterModule>>,
    /// For each link direction, the module that owns it (None: plain forwarding).
    owner: Vec<Option<u32>>,
    /// For each node, the module running there.
    at_node: Vec<Option<u32>>,
    /// Timers and actions asked for, for the world to carry out.
    pub fx: Effects,
}

impl RouterSet {
    pub fn new(routers: &[RouterModel], link_directions: usize, nodes: usize) -> RouterSet {
        let mut owner = vec![None; link_directions];
        let mut at_node = vec![None; nodes];
        let mut modules = Vec::with_capacity(routers.len());
        for (i, r) in routers.iter().enumerate() {
            let m = build(&r.module, &r.params, &r.links)
                .unwrap_or_else(|e| panic!("router module '{}' passed validation but: {e:?}", r.module));
            modules.push(m);
            for &l in &r.links {
                owner[l as usize] = Some(i as u32);
            }
            at_node[r.node as usize] = Some(i as u32);
        }
        RouterSet { modules, owner, at_node, fx: Effects::default() }
    }

    fn ctx<'a>(&'a mut self, module: u32, now: Time, links: &'a [Link]) -> (&'a mut dyn RouterModule, RouterCtx<'a>) {
        let ctx = RouterCtx { now, links, owned: &self.owner, module, fx: &mut self.fx };
        (self.modules[module as usize].as_mut(), ctx)
    }

    pub fn start(&mut self, now: Time, links: &[Link]) {
        for i in 0..self.modules.len() as u32 {
            let (m, mut ctx) = self.ctx(i, now, links);
            m.start(&mut ctx);
        }
    }

    /// Whether a module owns direction `l`.
    pub fn owns(&self, l: LinkId) -> bool {
        self.owner[l as usize].is_some()
    }

    /// Whether a module runs at node `n`.
    pub fn runs_at(&self, n: NodeId) -> bool {
        self.at_node[n as usize].is_some()
    }

    pub fn offer(&mut self, l: LinkId, id: PacketId, pkt: &mut Packet, now: Time, links: &[Link]) -> Verdict {
        match self.owner[l as usize] {
            Some(i) => {
                let (m, mut ctx) = self.ctx(i, now, links);
                m.on_offer(l, id, pkt, &mut ctx)
            }
            None => Verdict::Queue,
        }
    }

    pub fn transmit(&mut self, l: LinkId, pkt: &mut Packet, now: Time, links: &[Link]) {
        if let Some(i) = self.owner[l as usize] {
            let (m, mut ctx) = self.ctx(i, now, links);
            m.on_transmit(l, pkt, &mut ctx);
        }
    }

    /// `pkt` reached node `node` over direction `l`.
    pub fn arrive(&mut self, l: LinkId, node: NodeId, pkt: &mut Packet, now: Time, links: &[Link]) -> Arrival {
        match self.at_node[node as usize] {
            Some(i) => {
                let (m, mut ctx) = self.ctx(i, now, links);
                m.on_arrive(l, pkt, &mut ctx)
            }
            None => Arrival::Forward,
        }
    }

    /// A packet the owner of `l` kept, to go into `l`'s queue now.
    pub fn pull(&mut self, l: LinkId, now: Time, links: &[Link]) -> Option<PacketId> {
        let i = self.owner[l as usize]?;
        let (m, mut ctx) = self.ctx(i, now, links);
        m.pull(l, &mut ctx)
    }

    pub fn timer(&mut self, module: u32, token: u32, now: Time, links: &[Link]) {
        let (m, mut ctx) = self.ctx(module, now, links);
        m.on_timer(token, &mut ctx);
    }

    pub fn sample(&mut self, now: Time, links: &[Link]) {
        for i in 0..self.modules.len() as u32 {
            let (m, mut ctx) = self.ctx(i, now, links);
            m.on_sample(&mut ctx);
        }
    }

    /// The modules, for their result tables.
    pub fn modules(&self) -> impl Iterator<Item = &dyn RouterModule> {
        self.modules.iter().map(|m| m.as_ref())
    }
}
