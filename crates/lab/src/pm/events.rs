//! Subscription to the `mptcp_pm_events` multicast group of the `mptcp_pm`
//! family: the kernel reports every connection and subflow change there
//! (`net/mptcp/pm_netlink.c`, `mptcp_event()`), for both path managers.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::error::Error;
use super::event::Event;
use super::genl::GenlSocket;
use super::message::{PmMessage, EVENTS_GROUP, FAMILY_NAME};
use netlink_packet_core::NetlinkPayload;

/// Events of the calling thread's network namespace, in kernel order.
pub struct EventStream {
    sock: GenlSocket,
    family_id: u16,
    pending: VecDeque<Result<Event, Error>>,
}

impl EventStream {
    /// Joins the events group. Events from before this call are not seen.
    pub fn subscribe() -> Result<EventStream, Error> {
        let mut sock = GenlSocket::open()?;
        let family = sock.resolve(FAMILY_NAME)?;
        let group = family
            .groups
            .iter()
            .find(|(name, _)| name == EVENTS_GROUP)
            .map(|&(_, id)| id)
            .ok_or_else(|| Error::Decode(format!("family {FAMILY_NAME} has no group {EVENTS_GROUP}")))?;
        sock.join_group(group)?;
        Ok(EventStream { sock, family_id: family.id, pending: VecDeque::new() })
    }

    /// The next event, waiting at most `timeout`; `None` on time-out. An
    /// event that does not decode (say, a type newer than this code) is
    /// returned as an error and the stream goes on.
    pub fn next(&mut self, timeout: Duration) -> Option<Result<Event, Error>> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Some(e);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.sock.wait_readable(left) {
                Err(e) => return Some(Err(e)),
                Ok(false) if left.is_zero() => return None,
                Ok(false) => continue,
                Ok(true) => {}
            }
            match self.sock.recv_batch::<PmMessage>() {
                Err(e) => return Some(Err(e)),
                Ok(batch) => {
                    for m in batch {
                        if m.header.message_type != self.family_id {
                            continue;
                        }
                        if let NetlinkPayload::InnerMessage(g) = m.payload {
                            self.pending.push_back(Event::decode(g.payload.cmd, &g.payload.attrs));
                        }
                    }
                }
            }
        }
    }

    /// Whether events already received wait to be returned.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The subscription's socket, for waiting on it among others (poll(2)).
    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        self.sock.raw_fd()
    }

    /// Waits up to `timeout` for the first event that `pick` accepts,
    /// discarding the others; decoding errors are skipped.
    pub fn wait_for<T>(&mut self, timeout: Duration, mut pick: impl FnMut(&Event) -> Option<T>) -> Option<T> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left)? {
                Ok(e) => {
                    if let Some(t) = pick(&e) {
                        return Some(t);
                    }
                }
                Err(_) if left.is_zero() => return None,
                Err(_) => {}
            }
        }
    }
}
