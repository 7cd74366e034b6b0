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

/// The DNS server's port (RFC 1035 §4.2.1), where a resolver's default answers are.
pub const PORT: u16 = 53;
/// Port of a resolver's first answer set by interface (`server.rs`); the k-th (from 0) is on `VIEW_PORT_BASE + k`.
pub const VIEW_PORT_BASE: u16 = 10053;
/// The most answer sets by interface a resolver may have on the lab (`support.rs` refuses more).
pub const MAX_VIEWS: usize = 64;

/// Whether a datagram from `port` is a resolver's answer.
pub fn is_answer_port(port: u16) -> bool {
    port == PORT || (VIEW_PORT_BASE..VIEW_PORT_BASE + MAX_VIEWS as u16).contains(&port)
}
