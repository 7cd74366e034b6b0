//! What the lab needs from the machine before it starts anything: root (to
//! create namespaces and links) and a kernel with MPTCP (the `net.mptcp`
//! sysctls of kernel `Documentation/networking/mptcp-sysctl.rst` exist).
//! Whether MPTCP is enabled is per namespace: the testbed enables it in its own.

use std::fmt;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    NotRoot,
    NoMptcp,
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unavailable::NotRoot => "the kernel lab needs root (network namespaces, veth pairs, sysctls)",
            Unavailable::NoMptcp => "this kernel has no MPTCP (no /proc/sys/net/mptcp; needs CONFIG_MPTCP)",
        })
    }
}

impl std::error::Error for Unavailable {}

pub fn check() -> Result<(), Unavailable> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(Unavailable::NotRoot);
    }
    if !Path::new("/proc/sys/net/mptcp/enabled").exists() {
        return Err(Unavailable::NoMptcp);
    }
    Ok(())
}
