//! A flow's client end: at the flow's start (for a flow with `after`, that
//! long after the flow it waits for completed) opens a socket in its
//! namespace (bound to the initial subflow's local address for MPTCP),
//! asks its host's controllers for the MSS to announce and the congestion
//! control to run where one of them may set them (`opening.rs`), sets the
//! congestion control if it is the data sender, and connects.

use std::io;
use std::net::SocketAddr;

use socket2::{SockAddr, Socket};

use pathpool_sim::Time;

use super::opening::Answer;
use super::{stream_socket, FlowState, RunClock, POLL};
use crate::netns::Netns;

pub struct ClientSpec {
    pub mptcp: bool,
    /// Kernel name of the congestion control, when the client sends the data.
    pub cc: Option<String>,
    pub bind: Option<SocketAddr>,
    pub server: SocketAddr,
    /// When to start; with `after`, how long after that flow completed.
    pub start: Time,
    /// The flow whose completion starts this one (request/response).
    pub after: Option<usize>,
    /// A controller on the client's host may set the MSS, or (where the
    /// client sends the data) the congestion control, before the SYN: ask
    /// it (`FlowState::opening`) before connecting.
    pub ask_opening: bool,
}

/// How long a connection attempt may take: the SYN and two retries
/// (initial RTO 1 s, doubled).
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(7);

/// Waits for flow `flows[me]`'s start and connects; None if the run stopped
/// first or the connection failed (recorded in the flow's state).
pub fn connect(ns: &Netns, spec: &ClientSpec, flows: &[FlowState], me: usize, clock: &RunClock) -> Option<Socket> {
    let flow = &flows[me];
    let start = match spec.after {
        None => spec.start,
        Some(a) => loop {
            if let Some(done) = flows[a].finished() {
                break done + spec.start;
            }
            if clock.stopped() {
                return None;
            }
            std::thread::sleep(POLL / 10);
        },
    };
    if !clock.sleep_until(start) {
        return None;
    }
    flow.started_ns.store(clock.now().nanos().max(1), std::sync::atomic::Ordering::Relaxed);
    let answer = if spec.ask_opening {
        flow.opening.ask();
        flow.opening.wait(clock)?
    } else {
        Answer::default()
    };
    open(ns, spec, answer).map_err(|e| flow.fail(format!("connecting to {}: {e}", spec.server))).ok()
}

fn open(ns: &Netns, spec: &ClientSpec, answer: Answer) -> io::Result<Socket> {
    let Answer { mss, cc } = answer;
    // The socket belongs to the namespace it was created in, whichever thread uses it.
    let socket = ns.run(|| -> io::Result<_> {
        let s = stream_socket(spec.mptcp)?;
        // A controller's choice (`SetCongestionControl`) over the scenario's.
        let cc = cc.map(|c| crate::support::kernel_cc(&c).to_string()).or_else(|| spec.cc.clone());
        if let Some(cc) = &cc {
            s.set_tcp_congestion(cc.as_bytes()).map_err(|e| io::Error::new(e.kind(), format!("congestion control '{cc}': {e}")))?;
        }
        // TCP_MAXSEG before connect: the SYN announces it (tcp(7); RFC 9293 §3.7.1).
        if let Some(m) = mss {
            s.set_tcp_mss(m as u32).map_err(|e| io::Error::new(e.kind(), format!("TCP_MAXSEG {m}: {e}")))?;
        }
        if let Some(local) = spec.bind {
            s.bind(&SockAddr::from(local))?;
        }
        Ok(s)
    })??;
    socket.connect_timeout(&SockAddr::from(spec.server), CONNECT_TIMEOUT)?;
    Ok(socket)
}
