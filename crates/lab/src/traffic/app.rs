//! A flow's application on the lab (`pathpool_sim::app`, docs/apps.md):
//! the simulator's `App` unchanged, fed real time (the run clock) and the
//! bytes the client's socket really delivered.
//!
//! Wire protocol on the flow's one connection: each request is a message
//! of the application's `request_bytes` (at least 8), whose first 8 bytes
//! are the response size (u64, big-endian) and the rest padding; the server
//! answers the requests in the order they arrive by writing that many
//! bytes. Bytes the server sends unasked (an interactive application's
//! messages) are counted in `FlowState::pushes` by the client thread and
//! written by the server thread, which looks at that count at least every
//! millisecond while idle.
//!
//! - `client` (the flow's destination): owns the session; opens it once
//!   connected, steps it after every read with the in-order bytes read so
//!   far, sends the requests it returns and wakes it at the times it asks.
//!   A request is the stream's next response as soon as it is written (one
//!   ordered byte stream, answered in order), so it is marked arrived at
//!   the server then; its response's end offset is what matters for
//!   completion, and that is exact.
//! - `server` (the flow's source): reads request messages, partial ones
//!   included, and writes the responses and the pushes.
//!
//! Both ends set `TCP_NODELAY`: the simulator sends a request or a
//! message at once, where Nagle's algorithm (RFC 896) would hold a small
//! write while an earlier one is unacknowledged — up to an RTT for an
//! interactive application's messages.
//!
//! No built-in application both requests and pushes; if one did, its
//! pushes could be written ahead of responses to requests still in flight
//! while `Exchange` counts them after.
//!
//! The session is not stepped past the run's end, so every time the `App`
//! sees is at most the scenario's duration, as in the simulator.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use socket2::Socket;

use pathpool_sim::app::{App, Out};
use pathpool_sim::Time;

use super::server::timed_out;
use super::transfer::Open;
use super::{FlowState, RunClock, POLL};

/// Bytes a request message takes on the wire (the size needs 8).
pub fn message_bytes(app: &App) -> usize {
    (app.model.request_bytes as usize).max(8)
}

pub fn lock(app: &Mutex<App>) -> MutexGuard<'_, App> {
    app.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits up to `timeout` for `socket` to have something to read.
fn readable(socket: &Socket, timeout: Time) -> io::Result<bool> {
    let ms = timeout.nanos().div_ceil(1_000_000).min(i32::MAX as u64) as i32;
    let mut fd = libc::pollfd { fd: socket.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd for the duration of the call.
    match unsafe { libc::poll(&mut fd, 1, ms) } {
        -1 => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(e) }
        }
        n => Ok(n > 0),
    }
}

/// Writes all of `buf`, riding out write time-outs until the run stops.
fn write_all(socket: &Socket, mut buf: &[u8], clock: &RunClock) -> io::Result<()> {
    while !buf.is_empty() && !clock.stopped() {
        match (&*socket).write(buf) {
            Ok(n) => buf = &buf[n..],
            Err(e) if timed_out(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The client end of application flow `flows[me]`; `end`: the run's end.
pub fn client(open: Open, quickack: bool, end: Time, flows: &[FlowState], me: usize, clock: &RunClock) {
    let flow = &flows[me];
    let Some(socket) = open.socket(flows, me, clock) else { return };
    let socket = Arc::new(socket);
    *flow.receiver.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket.clone());
    if let Err(e) = run_client(&socket, quickack, end, flow, clock) {
        // The run's end closes the other end: what fails then is no error.
        if !clock.stopped() {
            flow.fail(format!("application client: {e}"));
        }
    }
}

/// What the client does with a step's output: the request messages to
/// write (the exchange learns they are answered in this order), the
/// server's pushes, the wake-up.
fn issue(app: &mut App, out: Out, now: Time, flow: &FlowState, wakes: &mut BinaryHeap<Reverse<Time>>, wire: &mut Vec<u8>) {
    let size = message_bytes(app);
    for id in out.send {
        let bytes = app.exchange.requests[id as usize].bytes;
        app.exchange.arrive(id, now);
        let at = wire.len();
        wire.resize(at + size, 0);
        wire[at..at + 8].copy_from_slice(&bytes.to_be_bytes());
    }
    if out.write > 0 {
        flow.pushes.fetch_add(out.write, Ordering::Relaxed);
    }
    if let Some(at) = out.wake {
        wakes.push(Reverse(at));
    }
}

fn run_client(socket: &Socket, quickack: bool, end: Time, flow: &FlowState, clock: &RunClock) -> io::Result<()> {
    let app = flow.app.as_ref().expect("an application flow");
    socket.set_read_timeout(Some(POLL))?;
    socket.set_write_timeout(Some(POLL))?;
    socket.set_tcp_nodelay(true)?;
    let mut wakes = BinaryHeap::new();
    let mut wire = Vec::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut delivered = 0u64;
    let poll = Time::from_nanos(POLL.as_nanos() as u64);
    {
        let mut a = lock(app);
        let now = clock.now().min(end);
        a.begin(flow.started().unwrap_or(now).min(now));
        let out = a.step(now, true, 0);
        issue(&mut a, out, now, flow, &mut wakes, &mut wire);
    }
    loop {
        write_all(socket, &wire, clock)?;
        wire.clear();
        if clock.stopped() || clock.now() >= end {
            return Ok(());
        }
        // Wake-ups that are due.
        let mut due = false;
        while let Some(&Reverse(at)) = wakes.peek() {
            let mut a = lock(app);
            let now = clock.now();
            if at > now || now >= end {
                break;
            }
            wakes.pop();
            let out = a.wake(now);
            issue(&mut a, out, now, flow, &mut wakes, &mut wire);
            due = true;
        }
        if due {
            continue;
        }
        let now = clock.now();
        let timeout = wakes.peek().map_or(poll, |&Reverse(at)| (at - now.min(at)).min(poll));
        if !readable(socket, timeout)? {
            continue;
        }
        match (&*socket).read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                delivered += n as u64;
                flow.delivered.store(delivered, Ordering::Relaxed);
                if quickack {
                    // Best effort: an MPTCP socket that does not take it just delays ACKs.
                    let _ = socket.set_tcp_quickack(true);
                }
                let mut a = lock(app);
                let now = clock.now();
                if now >= end {
                    return Ok(());
                }
                let out = a.step(now, true, delivered);
                issue(&mut a, out, now, flow, &mut wakes, &mut wire);
            }
            Err(e) if timed_out(&e) => {}
            Err(e) => return Err(e),
        }
    }
}

/// The server end of application flow `flows[me]`.
pub fn server(open: Open, flows: &[FlowState], me: usize, clock: &RunClock) {
    let flow = &flows[me];
    let Some(socket) = open.socket(flows, me, clock) else { return };
    let socket = Arc::new(socket);
    *flow.sender.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket.clone());
    if let Err(e) = serve(&socket, flow, clock) {
        if !clock.stopped() {
            flow.fail(format!("application server: {e}"));
        }
    }
}

fn serve(socket: &Socket, flow: &FlowState, clock: &RunClock) -> io::Result<()> {
    let (size, pushes) = {
        let a = lock(flow.app.as_ref().expect("an application flow"));
        (message_bytes(&a), matches!(a.model.kind, pathpool_sim::app::AppKind::Interactive(_)))
    };
    socket.set_read_timeout(Some(POLL))?;
    socket.set_write_timeout(Some(POLL))?;
    socket.set_tcp_nodelay(true)?;
    // An application that pushes is looked at every millisecond while idle.
    let idle = if pushes { Time::from_millis(1) } else { Time::from_nanos(POLL.as_nanos() as u64) };
    let data = vec![0x70u8; 256 * 1024];
    let mut buf = vec![0u8; 64 * 1024];
    let mut partial: Vec<u8> = Vec::with_capacity(size);
    let (mut owed, mut pushed) = (0u64, 0u64);
    while !clock.stopped() {
        let asked = flow.pushes.load(Ordering::Relaxed);
        owed += asked - pushed;
        pushed = asked;
        if owed > 0 {
            match (&*socket).write(&data[..owed.min(data.len() as u64) as usize]) {
                Ok(w) => owed -= w as u64,
                Err(e) if timed_out(&e) => {}
                Err(e) => return Err(e),
            }
            continue;
        }
        if !readable(socket, idle)? {
            continue;
        }
        match (&*socket).read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                for &b in &buf[..n] {
                    partial.push(b);
                    if partial.len() == size {
                        owed += u64::from_be_bytes(partial[..8].try_into().expect("8 bytes"));
                        partial.clear();
                    }
                }
            }
            Err(e) if timed_out(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
