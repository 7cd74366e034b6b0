//! A generic-netlink client for the kernel's MPTCP path-manager family
//! `mptcp_pm` (kernel `Documentation/netlink/specs/mptcp_pm.yaml`), built on
//! the rust-netlink crates `netlink-sys` (socket), `netlink-packet-core`
//! (netlink and attribute framing) and `netlink-packet-generic` (generic
//! netlink header and the `nlctrl` family); the `mptcp_pm` attribute sets,
//! commands and events are ours.
//!
//! - [`PathManager`]: endpoints and limits of the in-kernel path manager, and
//!   the userspace path manager's announce / remove / subflow create /
//!   subflow destroy / set-flags commands.
//! - [`EventStream`]: the `mptcp_pm_events` multicast group, decoded.
//!
//! Both work in the network namespace of the thread that opens them.

mod address;
mod client;
mod error;
mod event;
mod events;
mod genl;
mod message;

pub use address::EndpointFlags;
pub use client::{Endpoint, Limits, LocalAddr, PathManager};
pub use error::Error;
pub use event::{Connection, Event, Subflow};
pub use events::EventStream;
