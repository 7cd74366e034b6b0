//! One direction's forwarding loop, on a thread of its own: frames read from
//! the ingress interface enter the model (`direction.rs`) at the time the
//! interface received them (the kernel's timestamp, so neither a wake-up
//! nor a batch delays them), and leave by the egress interface when the
//! model says they reach the far end. Link-control frames (`frame.rs`) go
//! straight through.
//!
//! Each pass: read up to `BATCH` frames (each offered at its timestamp), apply
//! what the model has due by now, send what has arrived, then wait
//! (`clock.rs`) for the next deadline, a frame, or the stop signal. The
//! reads come first because the model only runs forward: a frame read after
//! it has run to now would enter at now, and the forwarder's wake-up (tens
//! to hundreds of µs) would be added to its delay.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pathpool_sim::net::packet::PacketId;
use pathpool_sim::Time;

use super::clock::{self, Clock, Waiter};
use super::direction::{Direction, DropCause};
use super::frame::{self, Frame};
use super::hold::Hold;
use super::packet_socket::PacketSocket;
use super::stats::Counters;

/// Frames read per pass, so that a flood cannot hold back departures.
const BATCH: usize = 64;

/// Tells every forwarder to stop: a flag, and an eventfd(2) that wakes them.
#[derive(Debug)]
pub struct Stop {
    flag: AtomicBool,
    fd: OwnedFd,
}

impl Stop {
    pub fn new() -> io::Result<Stop> {
        // SAFETY: plain eventfd(2); the fd is owned below.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        Ok(Stop { flag: AtomicBool::new(false), fd: unsafe { OwnedFd::from_raw_fd(fd) } })
    }

    /// Sets the flag, then makes the eventfd readable for good (never read).
    pub fn signal(&self) {
        self.flag.store(true, Ordering::SeqCst);
        let one = 1u64;
        // SAFETY: an 8-byte write to our eventfd.
        unsafe { libc::write(self.fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }

    fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

impl AsFd for Stop {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

pub struct Forwarder {
    pub rx: PacketSocket,
    pub tx: PacketSocket,
    /// Largest frame the ingress interface can bring: its MTU plus the Ethernet header.
    pub frame_max: usize,
    pub model: Direction,
    /// DNS answers out of a resolver's node wait its delay here (`hold.rs`).
    pub hold: Option<Hold>,
    pub clock: Clock,
    pub stats: Arc<Counters>,
    pub stop: Arc<Stop>,
}

/// A received frame waiting in the model.
struct Slot {
    frame: Box<[u8]>,
    len: usize,
    ip_bytes: u32,
}

impl Forwarder {
    /// Forwards until stopped or until its interfaces are gone (a signal's
    /// cleanup deletes the namespaces under running forwarders); returns the
    /// error that ended it otherwise.
    pub fn run(self) -> io::Result<()> {
        match self.forward() {
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENETDOWN | libc::ENODEV | libc::ENXIO)) => Ok(()),
            r => r,
        }
    }

    fn forward(mut self) -> io::Result<()> {
        clock::precise_thread()?;
        let mut slots: Vec<Slot> = Vec::new();
        let mut free: Vec<PacketId> = Vec::new();
        let mut drops = Vec::new();
        let mut waiter = Waiter::default();
        while !self.stop.is_set() {
            // Frames first: the model must meet each at its timestamp, before
            // it runs on to now (it cannot go back to an earlier time).
            let more = self.receive(&mut slots, &mut free, &mut drops)?;
            let now = self.clock.now();
            self.release_held(now, &slots, &mut free, &mut drops);
            self.model.advance(now, &mut drops);
            self.stats.queue_level(self.model.queued());
            self.release(&mut drops, &mut free);
            while let Some((due, id)) = self.model.pop_arrived(now) {
                let slot = &slots[id as usize];
                let late = self.clock.now().saturating_sub(due);
                if self.send(&slot.frame[..slot.len])? {
                    self.stats.delivered(slot.ip_bytes, late.nanos());
                }
                free.push(id);
            }
            if more {
                continue;
            }
            let held = self.hold.as_ref().and_then(Hold::next_deadline);
            let deadline = self.model.next_deadline().into_iter().chain(held).min();
            if deadline.is_some_and(|d| d <= self.clock.now()) {
                continue;
            }
            waiter.wait(&self.clock, &[self.rx.as_fd(), self.stop.as_fd()], deadline)?;
        }
        Ok(())
    }

    /// Reads up to `BATCH` frames; true if it read that many (more may wait).
    fn receive(&mut self, slots: &mut Vec<Slot>, free: &mut Vec<PacketId>, drops: &mut Vec<(PacketId, DropCause)>) -> io::Result<bool> {
        for _ in 0..BATCH {
            let id = free.pop().unwrap_or_else(|| {
                slots.push(Slot { frame: vec![0; self.frame_max].into_boxed_slice(), len: 0, ip_bytes: 0 });
                (slots.len() - 1) as PacketId
            });
            let slot = &mut slots[id as usize];
            let Some((len, at)) = self.rx.recv(&mut slot.frame)? else {
                free.push(id);
                return Ok(false);
            };
            if len > self.frame_max {
                self.stats.oversize();
                free.push(id);
                continue;
            }
            match frame::classify(&slot.frame[..len]) {
                Frame::Control => {
                    self.stats.control();
                    self.send(&slot.frame[..len])?;
                    free.push(id);
                }
                Frame::Data { ip_bytes } => {
                    slot.len = len;
                    slot.ip_bytes = ip_bytes;
                    let at = self.clock.model_time(at);
                    // Answers whose hold ended before this frame came enter the link first.
                    self.release_held(at, &*slots, free, drops);
                    let slot = &slots[id as usize];
                    if self.hold.as_mut().is_some_and(|h| h.take(&slot.frame[..len], at, id)) {
                        continue;
                    }
                    self.model.offer(at, id, ip_bytes, drops);
                    self.stats.queue_level(self.model.queued());
                    self.release(drops, free);
                }
            }
        }
        Ok(true)
    }

    /// Sends a frame out of the egress interface; false (and counted) if the
    /// far end had no room for it.
    fn send(&self, frame: &[u8]) -> io::Result<bool> {
        match self.tx.send(frame) {
            Ok(()) => Ok(true),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOBUFS | libc::EAGAIN)) => {
                self.stats.egress_refused();
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Offers the held answers due by `now` to the link, each at the end of its hold.
    fn release_held(&mut self, now: Time, slots: &[Slot], free: &mut Vec<PacketId>, drops: &mut Vec<(PacketId, DropCause)>) {
        let Some(hold) = self.hold.as_mut() else { return };
        while let Some((due, id)) = hold.pop_due(now) {
            self.model.offer(due, id, slots[id as usize].ip_bytes, drops);
        }
        self.stats.queue_level(self.model.queued());
        self.release(drops, free);
    }

    fn release(&self, drops: &mut Vec<(PacketId, DropCause)>, free: &mut Vec<PacketId>) {
        for (id, why) in drops.drain(..) {
            self.stats.dropped(why);
            free.push(id);
        }
    }
}
