//! The scenario's link up/down events as a host's controllers hear of them.
//! The emulator applies them at their model times; a host's thread replays
//! the schedule to know which interfaces are up, its own and its peers',
//! and turns each event into what the simulator's `World::set_link_state`
//! tells a host: `PathUp` for every MPTCP connection of the host with an
//! end on the link (when it comes up: the host's own interface, or what
//! the peer's ADD_ADDR would announce, RFC 8684 §3.4.1), then
//! `InterfaceUp`/`InterfaceDown` for the host's own interface on it. A link
//! that goes down first fails the subflows with an end on it, on the
//! connections this host opened (`fail_subflows`), as the simulator's
//! `MptcpSender::interface_event` does.

use pathpool_sim::control::{CloseReason, ConnId, Event};
use pathpool_sim::scenario::spec::LabPathManager;
use pathpool_sim::{Model, Time};

use super::super::connection::SubflowRecord;
use super::Host;

/// Every link's events in time order, and each link's state.
pub struct LinkEvents {
    /// (time, link, up).
    schedule: Vec<(Time, usize, bool)>,
    next: usize,
    up: Vec<bool>,
}

impl LinkEvents {
    pub fn new(model: &Model) -> LinkEvents {
        let mut schedule: Vec<(Time, usize, bool)> =
            model.links.iter().enumerate().flat_map(|(l, link)| link.events.iter().map(move |&(t, up)| (t, l, up))).collect();
        // Stable: same-time events keep the scenario's order, as the simulator's event queue does.
        schedule.sort_by_key(|e| e.0);
        LinkEvents { schedule, next: 0, up: vec![true; model.links.len()] }
    }

    /// When the next event is due.
    pub fn next(&self) -> Option<Time> {
        self.schedule.get(self.next).map(|e| e.0)
    }

    pub fn is_up(&self, link: usize) -> bool {
        self.up[link]
    }

    /// The next event if it is due by `now`, applied.
    fn pop(&mut self, now: Time) -> Option<(usize, bool)> {
        let &(t, link, up) = self.schedule.get(self.next)?;
        if t > now {
            return None;
        }
        self.next += 1;
        self.up[link] = up;
        Some((link, up))
    }
}

/// The link of each interface of `node`, by interface index.
pub fn interface_links(model: &Model, node: u32) -> Vec<usize> {
    model.nodes[node as usize]
        .interfaces
        .iter()
        .map(|name| {
            model
                .links
                .iter()
                .position(|l| (l.a == node && &l.a_interface == name) || (l.b == node && &l.b_interface == name))
                .expect("every interface belongs to a link")
        })
        .collect()
}

impl Host<'_> {
    /// Applies the link events due by `now` and tells this host's controllers.
    pub(super) fn link_events(&mut self, now: Time) {
        while let Some((link, up)) = self.links.pop(now) {
            let model = self.s.model;
            if up {
                for (i, f) in model.flows.iter().enumerate().filter(|(_, f)| f.transport == "mptcp") {
                    if f.src != self.id && f.dst != self.id {
                        continue;
                    }
                    // The source's interfaces on the link first, then the destination's, as the simulator.
                    for node in [f.src, f.dst] {
                        for (iface, &l) in interface_links(model, node).iter().enumerate() {
                            if l == link {
                                self.tell(&Event::PathUp { conn: i as u32, peer: node != self.id, iface: iface as u16 });
                            }
                        }
                    }
                }
            }
            if !up {
                self.fail_subflows(link);
                self.tell_pending();
            }
            if let Some(iface) = interface_links(model, self.id).iter().position(|&l| l == link) {
                let iface = iface as u16;
                self.tell(&if up { Event::InterfaceUp { iface } } else { Event::InterfaceDown { iface } });
            }
        }
    }

    /// Fails the subflows of the MPTCP connections this host opened that
    /// have an end (the source's or the destination's interface) on `link`,
    /// which just went down, as the simulator's
    /// `MptcpSender::interface_event` does: each established one is
    /// destroyed through the userspace path manager (`subflow-destroy`:
    /// the kernel reinjects its data on the others, RFC 8684 §3.3.6), its
    /// record is closed now as failed, and the host's controllers hear
    /// `SubflowClosed` with reason `interface_down` before `InterfaceDown`.
    /// One still in its handshake has no ports to name it by: it is only
    /// recorded as failed (the emulator drops its SYNs). With the in-kernel
    /// path manager nothing is destroyed (it takes no subflow commands): its
    /// subflows fail only by the kernel's own time-outs.
    fn fail_subflows(&mut self, link: usize) {
        if self.s.mode != LabPathManager::Userspace {
            return;
        }
        let model = self.s.model;
        for (i, f) in model.flows.iter().enumerate().filter(|(_, f)| f.transport == "mptcp" && f.client == self.id) {
            let conn = i as ConnId;
            let (src_links, dst_links) = (interface_links(model, f.src), interface_links(model, f.dst));
            let failing: Vec<u32> = {
                let c = self.s.conns[i].lock().unwrap_or_else(|e| e.into_inner());
                let on_link = |r: &SubflowRecord| src_links[r.src_iface as usize] == link || dst_links[r.dst_iface as usize] == link;
                c.subflows.iter().enumerate().filter(|(_, r)| r.is_open() && on_link(r)).map(|(k, _)| k as u32).collect()
            };
            for subflow in failing {
                if let Ok((token, local, remote)) = self.established_subflow(conn, subflow) {
                    // An error means the kernel closed it first (a reset): failed all the same.
                    let _ = self.pm.subflow_destroy(token, local, remote);
                }
                let now = self.s.clock.now();
                let mut c = self.s.conns[i].lock().unwrap_or_else(|e| e.into_inner());
                let r = &mut c.subflows[subflow as usize];
                r.closed = Some(now);
                r.closed_by = Some(CloseReason::InterfaceDown);
                drop(c);
                self.pending.push_back(Event::SubflowClosed { conn, subflow, reason: CloseReason::InterfaceDown });
            }
        }
    }
}
