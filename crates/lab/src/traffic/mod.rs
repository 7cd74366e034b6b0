//! pathpool's own traffic: for each scenario flow, in the source's namespace
//! an application that writes the flow's bytes (a sized flow) or writes
//! until its stop (a bulk flow), and in the destination's one that reads
//! and counts what arrives, over a TCP or MPTCP socket (`IPPROTO_MPTCP`,
//! kernel `Documentation/networking/mptcp.rst`). The flow's client end
//! (`client`: the source, or the destination for a download) connects at
//! the flow's start (`client.rs`); the other end listens and accepts
//! (`server.rs`); then each end moves the data (`transfer.rs`), or, for a
//! flow with an application, runs its session (`app.rs`); a fetch
//! session's connection is opened by its client host's thread
//! (`run/control/fetch.rs`) and answered by its mirror (`mirror.rs`). Times are
//! model time: the link emulator's clock.
//!
//! Every blocking call has a short time-out, so each thread sees the run's
//! stop flag within `POLL` and a run never outlives its bound.

pub mod app;
pub mod diag;
pub mod client;
pub mod content;
pub mod info;
pub mod mirror;
pub mod opening;
pub mod server;
pub mod transfer;

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use pathpool_sim::Time;

/// `IPPROTO_MPTCP` (uapi `linux/in.h`).
const IPPROTO_MPTCP: i32 = 262;
/// How often a blocked thread looks at the stop flag.
pub const POLL: Duration = Duration::from_millis(50);
/// Flow i's server listens on this port + i.
pub const BASE_PORT: u16 = 5001;

/// A TCP or MPTCP stream socket.
pub fn stream_socket(mptcp: bool) -> io::Result<Socket> {
    let proto = if mptcp { Protocol::from(IPPROTO_MPTCP) } else { Protocol::TCP };
    Socket::new(Domain::IPV4, Type::STREAM, Some(proto))
}

/// Model time zero and the run's stop flag, shared by every thread.
pub struct RunClock {
    pub epoch: Instant,
    pub stop: AtomicBool,
}

impl RunClock {
    pub fn now(&self) -> Time {
        Time::from_nanos(self.epoch.elapsed().as_nanos() as u64)
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Sleeps until model time `t` or the stop; false if stopped first.
    /// Compared as instants: before the epoch `now()` reads 0 (`elapsed`
    /// saturates), so `t = 0` must still wait for the epoch itself, or a
    /// flow starting at 0 would connect during the set-up lead, its SYN held
    /// by the emulator until model time zero (issue 17: connects timed out
    /// under load, when the lead exceeded the 7 s connect time-out).
    pub fn sleep_until(&self, t: Time) -> bool {
        let due = self.epoch + Duration::from_nanos(t.nanos());
        loop {
            if self.stopped() {
                return false;
            }
            let now = Instant::now();
            if now >= due {
                return true;
            }
            std::thread::sleep((due - now).min(POLL));
        }
    }
}

/// What one flow's client and server report while the run goes on.
#[derive(Default)]
pub struct FlowState {
    /// Bytes the server application has read.
    pub delivered: AtomicU64,
    /// Model time (ns) the client started (0 until then; 1 for a start at 0).
    pub started_ns: AtomicU64,
    /// Model time (ns) the last byte of a sized flow was read; 0 until then.
    pub finished_ns: AtomicU64,
    /// The data sender's and the data receiver's sockets, once connected.
    pub sender: Mutex<Option<Arc<Socket>>>,
    pub receiver: Mutex<Option<Arc<Socket>>>,
    /// The flow's application, if it has one (`app.rs`): its client thread
    /// steps it, the sampler and the client's controller read it.
    pub app: Option<Mutex<pathpool_sim::app::App>>,
    /// Bytes the application's server was asked to send unasked so far.
    pub pushes: AtomicU64,
    /// The client's controllers' say before its SYN (`opening.rs`).
    pub opening: opening::Opening,
    /// The first thing that went wrong, if anything did.
    pub error: Mutex<Option<String>>,
}

impl FlowState {
    pub fn fail(&self, what: String) {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(what);
    }

    pub fn started(&self) -> Option<Time> {
        match self.started_ns.load(Ordering::Relaxed) {
            0 => None,
            ns => Some(Time::from_nanos(ns)),
        }
    }

    pub fn finished(&self) -> Option<Time> {
        match self.finished_ns.load(Ordering::Relaxed) {
            0 => None,
            ns => Some(Time::from_nanos(ns)),
        }
    }

    /// The socket of the flow's end at its source (`at_src`) or destination, once connected.
    pub fn socket(&self, at_src: bool) -> Option<Arc<Socket>> {
        let slot = if at_src { &self.sender } else { &self.receiver };
        slot.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
