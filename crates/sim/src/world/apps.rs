//! The world's side of the applications (`crate::app`): it opens each
//! session when its flow starts, carries requests from the client (the
//! flow's destination) to the server (its source) as packets, appends the
//! responses to the server's sending end, tells the client what its
//! receiving end delivered, and wakes clients at the times they ask for.
//! A fetch session's connections (`world/sessions.rs`) carry their requests
//! the same way.

use super::{Event, World};
use crate::app::exchange::Exchange;
use crate::app::Out;
use crate::endpoint::Sender;
use crate::net::packet::{Kind, Packet, PacketId, ANY_INTERFACE};
use crate::tcp::Io;

impl World<'_> {
    /// After `flow`'s end-points acted: the client learns whether the
    /// connection is open and how many bytes arrived in order.
    pub(super) fn app_step(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let Some(app) = f.app.as_mut() else { return };
        let out = app.step(self.now, f.sender.is_established(), f.receiver.delivered());
        self.app_out(flow, out);
    }

    pub(super) fn app_wake(&mut self, flow: u32) {
        let app = self.flows[flow as usize].app.as_mut().expect("only application flows are woken");
        let out = app.wake(self.now);
        self.app_out(flow, out);
    }

    fn app_out(&mut self, flow: u32, out: Out) {
        for id in out.send {
            self.send_request(flow, id);
            let app = self.flows[flow as usize].app.as_ref().expect("application flow");
            let size = app.announces_size().then(|| app.exchange.requests[id as usize].bytes);
            let client = self.flows[flow as usize].dst;
            self.tell_host(client, &crate::control::Event::AppRequest { conn: flow, size });
        }
        if out.write > 0 {
            let f = &mut self.flows[flow as usize];
            f.sender.write(out.write, &mut Io { now: self.now, out: &mut self.out, timers: &mut self.timers });
            self.flush(flow, true);
        }
        if let Some(at) = out.wake {
            self.events.schedule(at, Event::AppWake { flow });
        }
    }

    /// The request/response exchange of `flow`'s application or fetch connection.
    fn exchange(&mut self, flow: u32) -> &mut Exchange {
        let f = &mut self.flows[flow as usize];
        match (&mut f.app, &mut f.fetch) {
            (Some(app), _) => &mut app.exchange,
            (None, Some(c)) => &mut c.exchange,
            (None, None) => unreachable!("requests travel on application and fetch connections only"),
        }
    }

    /// Request `id` leaves the client as one packet of the request's size;
    /// on an MPTCP connection over the subflow with the lowest RTT, else
    /// routed by node (from the client interface a fetch connection is
    /// pinned to; to the flow's `interface`, if it has one).
    pub(super) fn send_request(&mut self, flow: u32, id: u32) {
        let bytes = self.exchange(flow).requests[id as usize].ask;
        let f = &self.flows[flow as usize];
        let headers = self.flow_models[flow as usize].family.header_bytes(self.model.header_bytes);
        let mut p = Packet::new(flow, f.dst, f.src, Kind::Request, headers + bytes);
        p.seq = id as u64;
        if let Sender::Mptcp(s) = &f.sender {
            if let Some(j) = s.fastest_subflow() {
                let sf = &s.subflows()[j];
                (p.subflow, p.src_if, p.dst_if) = (j as u16, sf.remote, sf.local);
            }
        }
        // A flow bound to the server's interface: its requests arrive there, as its ACKs do.
        if let Some(i) = self.flow_models[flow as usize].src_if {
            p.dst_if = i;
        }
        if let Some(i) = self.flow_models[flow as usize].dst_if {
            p.src_if = i;
        }
        let (client, src_if) = (f.dst, p.src_if);
        self.counts.sent += 1;
        let pid = self.pool.insert(p);
        match src_if {
            ANY_INTERFACE => self.forward(pid, client),
            iface => self.offer(self.ifaces.get(client, iface).out, pid),
        }
    }

    /// A request packet reached the server: it appends the response.
    pub(super) fn request_arrived(&mut self, pid: PacketId) {
        let p = self.pool.get(pid);
        let (flow, id) = (p.flow, p.seq as u32);
        self.counts.delivered += 1;
        self.pool.release(pid);
        let now = self.now;
        let bytes = self.exchange(flow).arrive(id, now);
        let f = &mut self.flows[flow as usize];
        if bytes > 0 {
            f.sender.write(bytes, &mut Io { now: self.now, out: &mut self.out, timers: &mut self.timers });
            self.flush(flow, true);
        }
    }

    /// A request packet was lost: the client sends it again after a
    /// retransmission timeout, max(min_rto, 2·srtt) as Linux's tail loss
    /// probe would fire for a lone segment (RFC 8985 §7.2), or the initial
    /// RTO before any RTT sample.
    pub(super) fn request_lost(&mut self, flow: u32, id: u32) {
        let tcp = &self.flow_models[flow as usize].tcp;
        let wait = match self.flows[flow as usize].sender.srtt() {
            Some(srtt) => tcp.min_rto.max(srtt + srtt),
            None => tcp.initial_rto,
        };
        self.events.schedule(self.now + wait, Event::RequestResend { flow, id });
    }

    pub(super) fn request_resend(&mut self, flow: u32, id: u32) {
        if self.exchange(flow).arrived(id) {
            return;
        }
        let f = &mut self.flows[flow as usize];
        match (&mut f.app, &f.fetch) {
            (Some(app), _) => app.resent += 1,
            (None, Some(c)) => self.sessions[c.asks[id as usize].0 as usize].resent += 1,
            (None, None) => unreachable!("requests travel on application and fetch connections only"),
        }
        self.send_request(flow, id);
    }
}
