//! Moving a flow's data once its two ends are connected: the source writes
//! the flow's size, or until its stop, and shuts its sending side down; the
//! destination reads until the peer closes or the run stops, counting bytes
//! and noting when a sized flow's last byte arrived. Each end is one thread
//! that first gets its socket by connecting or accepting.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use socket2::Socket;

use pathpool_sim::Time;

use super::client::{self, ClientSpec};
use super::server::{self, timed_out};
use super::{FlowState, RunClock, POLL};
use crate::netns::Netns;

/// How an end of a flow gets its socket.
pub enum Open<'a> {
    /// It is the flow's client.
    Connect { ns: &'a Netns, spec: &'a ClientSpec },
    /// It is the server; `cc` as in `server::accept`.
    Accept { listener: Socket, cc: Option<&'a str> },
}

impl Open<'_> {
    /// The end's socket. An `Accept` must outlive the connection: MP_JOIN
    /// SYNs reach the server through its listener (RFC 8684 §3.2), and a
    /// closed one answers them with a reset.
    pub(super) fn socket(&self, flows: &[FlowState], me: usize, clock: &RunClock) -> Option<Socket> {
        match self {
            Open::Connect { ns, spec } => client::connect(ns, spec, flows, me, clock),
            Open::Accept { listener, cc } => server::accept(listener, *cc, &flows[me], clock),
        }
    }
}

/// The source end of flow `flows[me]`: writes `size` bytes, or until
/// `stop` for a bulk flow.
pub fn source(open: Open, size: Option<u64>, stop: Time, flows: &[FlowState], me: usize, clock: &RunClock) {
    let flow = &flows[me];
    let Some(socket) = open.socket(flows, me, clock) else { return };
    let socket = Arc::new(socket);
    *flow.sender.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket.clone());
    if let Err(e) = write(&socket, size, stop, clock) {
        flow.fail(format!("sending: {e}"));
    }
}

fn write(socket: &Socket, size: Option<u64>, stop: Time, clock: &RunClock) -> io::Result<()> {
    socket.set_write_timeout(Some(POLL))?;
    let buf = vec![0x70u8; 256 * 1024];
    let mut left = size.unwrap_or(u64::MAX);
    while left > 0 && !clock.stopped() && (size.is_some() || clock.now() < stop) {
        let n = left.min(buf.len() as u64) as usize;
        match (&*socket).write(&buf[..n]) {
            Ok(w) => left -= w as u64,
            Err(e) if timed_out(&e) => {}
            // The run's end closes the other end: what fails then is no error.
            Err(_) if clock.stopped() => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    if clock.stopped() {
        return Ok(());
    }
    socket.shutdown(Shutdown::Write)
}

/// The destination end of flow `flows[me]`: reads and counts. `quickack`
/// re-arms TCP_QUICKACK after every read: the closest Linux gets to a
/// receiver without delayed ACKs (tcp(7)).
pub fn destination(open: Open, size: Option<u64>, quickack: bool, flows: &[FlowState], me: usize, clock: &RunClock) {
    let flow = &flows[me];
    let Some(socket) = open.socket(flows, me, clock) else { return };
    let socket = Arc::new(socket);
    *flow.receiver.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket.clone());
    if let Err(e) = read(&socket, size, quickack, flow, clock) {
        flow.fail(format!("receiving: {e}"));
    }
}

fn read(socket: &Socket, size: Option<u64>, quickack: bool, flow: &FlowState, clock: &RunClock) -> io::Result<()> {
    socket.set_read_timeout(Some(POLL))?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    while !clock.stopped() {
        match (&*socket).read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                total += n as u64;
                flow.delivered.store(total, Ordering::Relaxed);
                if size.is_some_and(|s| total >= s) && flow.finished_ns.load(Ordering::Relaxed) == 0 {
                    flow.finished_ns.store(clock.now().nanos().max(1), Ordering::Relaxed);
                }
                if quickack {
                    // Best effort: an MPTCP socket that does not take it just delays ACKs.
                    let _ = socket.set_tcp_quickack(true);
                }
            }
            Err(e) if timed_out(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
