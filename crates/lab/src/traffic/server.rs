//! A flow's server end: listens on the flow's port in its namespace and
//! accepts the one connection of the flow.

use std::io;
use std::net::SocketAddr;

use socket2::{SockAddr, Socket};

use super::{stream_socket, FlowState, RunClock, POLL};

/// A listening socket on every address of the calling thread's namespace,
/// so that MPTCP joins to the host's other addresses find it too. `cc`:
/// the congestion control, when the server sends the data.
pub fn listen(port: u16, mptcp: bool, cc: Option<&str>) -> io::Result<Socket> {
    let s = stream_socket(mptcp)?;
    s.set_reuse_address(true)?;
    if let Some(cc) = cc {
        s.set_tcp_congestion(cc.as_bytes()).map_err(|e| io::Error::new(e.kind(), format!("congestion control '{cc}': {e}")))?;
    }
    s.bind(&SockAddr::from(SocketAddr::from(([0, 0, 0, 0], port))))?;
    s.listen(16)?;
    // accept(2) honours SO_RCVTIMEO, so the loop below sees the stop flag.
    s.set_read_timeout(Some(POLL))?;
    Ok(s)
}

/// Accepts the flow's connection; None if the run stopped first or accept
/// failed (recorded in the flow's state). The accepted socket gets the
/// listener's congestion control again: on an MPTCP socket, setting it
/// applies it to every subflow, the joins to come included (kernel
/// `net/mptcp/sockopt.c`).
pub fn accept(listener: &Socket, cc: Option<&str>, flow: &FlowState, clock: &RunClock) -> Option<Socket> {
    let conn = loop {
        if clock.stopped() {
            return None;
        }
        match listener.accept() {
            Ok((c, _)) => break c,
            Err(e) if timed_out(&e) => continue,
            Err(e) => {
                flow.fail(format!("accept: {e}"));
                return None;
            }
        }
    };
    if let Some(cc) = cc {
        if let Err(e) = conn.set_tcp_congestion(cc.as_bytes()) {
            flow.fail(format!("congestion control '{cc}' on the accepted socket: {e}"));
            return None;
        }
    }
    Some(conn)
}

pub(super) fn timed_out(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted)
}
