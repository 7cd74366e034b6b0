//! DNS on the kernel lab (docs/dns.md, "On the kernel lab"): each scenario
//! resolver is a real dnsmasq in its node's namespace (`server.rs`), and
//! the hosts' stub resolvers send real UDP queries over the emulated
//! network, written and read with hickory-proto (`message.rs`); the stub's
//! state (cache, timeout, attempts) is the simulator's own
//! (`pathpool_sim::dns::Stub`), driven by the host's controller thread
//! (`run/control/lookups.rs`). A resolver's delay is held on its link by
//! the emulator (`emulator/hold.rs`).

pub mod message;
pub mod server;
