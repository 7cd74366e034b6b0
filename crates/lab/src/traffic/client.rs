//! A flow's sending application: at the flow's start, opens a socket in the
//! source's namespace (bound to the initial subflow's local address for
//! MPTCP), sets its congestion control, connects, and writes the flow's
//! size, or until its stop, then shuts down its sending side.

use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;

use socket2::SockAddr;

use pathpool_sim::Time;

use super::server::timed_out;
use super::{stream_socket, FlowState, RunClock, POLL};
use crate::netns::Netns;

pub struct ClientSpec {
    pub mptcp: bool,
    /// Kernel name of the congestion control.
    pub cc: String,
    pub bind: Option<SocketAddr>,
    pub server: SocketAddr,
    /// When to start; with `after`, how long after that flow completed.
    pub start: Time,
    /// The flow whose completion starts this one (request/response).
    pub after: Option<usize>,
    pub size: Option<u64>,
    /// When a bulk flow stops writing (the run's end if it has no stop).
    pub stop: Time,
}

/// How long a connection attempt may take: the SYN and two retries
/// (initial RTO 1 s, doubled).
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(7);

/// Runs flow `flows[me]`.
pub fn send(ns: &Netns, spec: &ClientSpec, flows: &[FlowState], me: usize, clock: &RunClock) {
    let flow = &flows[me];
    let start = match spec.after {
        None => spec.start,
        Some(a) => loop {
            if let Some(done) = flows[a].finished() {
                break done + spec.start;
            }
            if clock.stopped() {
                return;
            }
            std::thread::sleep(POLL / 10);
        },
    };
    if !clock.sleep_until(start) {
        return;
    }
    flow.started_ns.store(clock.now().nanos().max(1), std::sync::atomic::Ordering::Relaxed);
    if let Err(e) = connect_and_write(ns, spec, flow, clock) {
        flow.fail(format!("sending to {}: {e}", spec.server));
    }
}

fn connect_and_write(ns: &Netns, spec: &ClientSpec, flow: &FlowState, clock: &RunClock) -> io::Result<()> {
    // The socket belongs to the namespace it was created in, whichever thread uses it.
    let socket = ns.run(|| -> io::Result<_> {
        let s = stream_socket(spec.mptcp)?;
        s.set_tcp_congestion(spec.cc.as_bytes()).map_err(|e| io::Error::new(e.kind(), format!("congestion control '{}': {e}", spec.cc)))?;
        if let Some(local) = spec.bind {
            s.bind(&SockAddr::from(local))?;
        }
        Ok(s)
    })??;
    socket.connect_timeout(&SockAddr::from(spec.server), CONNECT_TIMEOUT)?;
    socket.set_write_timeout(Some(POLL))?;
    let local = socket.local_addr()?.as_socket().ok_or_else(|| io::Error::other("no local address"))?;
    let socket = Arc::new(socket);
    *flow.socket.lock().unwrap_or_else(|e| e.into_inner()) = Some((socket.clone(), local));

    let buf = vec![0x70u8; 256 * 1024];
    let mut left = spec.size.unwrap_or(u64::MAX);
    while left > 0 && !clock.stopped() && (spec.size.is_some() || clock.now() < spec.stop) {
        let n = left.min(buf.len() as u64) as usize;
        match (&*socket).write(&buf[..n]) {
            Ok(w) => left -= w as u64,
            Err(e) if timed_out(&e) => {}
            // The run's end closes the servers: what fails then is no error.
            Err(_) if clock.stopped() => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    if clock.stopped() {
        return Ok(());
    }
    socket.shutdown(Shutdown::Write)
}
