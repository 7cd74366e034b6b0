//! A flow's receiving application: accepts one connection on its port and
//! reads until the peer closes or the run stops, counting bytes and noting
//! when a sized flow's last byte arrived.

use std::io::{self, Read};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;

use socket2::{SockAddr, Socket};

use super::{stream_socket, FlowState, RunClock, POLL};

/// A listening socket on every address of the calling thread's namespace,
/// so that MPTCP joins to the host's other addresses find it too.
pub fn listen(port: u16, mptcp: bool) -> io::Result<Socket> {
    let s = stream_socket(mptcp)?;
    s.set_reuse_address(true)?;
    s.bind(&SockAddr::from(SocketAddr::from(([0, 0, 0, 0], port))))?;
    s.listen(16)?;
    // accept(2) honours SO_RCVTIMEO, so the loop below sees the stop flag.
    s.set_read_timeout(Some(POLL))?;
    Ok(s)
}

/// Serves one flow. `quickack` re-arms TCP_QUICKACK after every read: the
/// closest Linux gets to a receiver without delayed ACKs (tcp(7)).
pub fn serve(listener: Socket, size: Option<u64>, quickack: bool, flow: &FlowState, clock: &RunClock) {
    let conn = loop {
        if clock.stopped() {
            return;
        }
        match listener.accept() {
            Ok((c, _)) => break c,
            Err(e) if timed_out(&e) => continue,
            Err(e) => return flow.fail(format!("accept: {e}")),
        }
    };
    if let Err(e) = conn.set_read_timeout(Some(POLL)) {
        return flow.fail(format!("server socket: {e}"));
    }
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    while !clock.stopped() {
        match (&conn).read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                total += n as u64;
                flow.delivered.store(total, Ordering::Relaxed);
                if size.is_some_and(|s| total >= s) && flow.finished_ns.load(Ordering::Relaxed) == 0 {
                    flow.finished_ns.store(clock.now().nanos().max(1), Ordering::Relaxed);
                }
                if quickack {
                    // Best effort: an MPTCP socket that does not take it just delays ACKs.
                    let _ = conn.set_tcp_quickack(true);
                }
            }
            Err(e) if timed_out(&e) => {}
            Err(e) => return flow.fail(format!("receiving: {e}")),
        }
    }
}

pub(super) fn timed_out(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted)
}
