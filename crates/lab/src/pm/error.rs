//! Errors of the path-manager client.

use std::fmt;
use std::io;

#[derive(Debug)]
pub enum Error {
    /// The netlink socket failed.
    Io(io::Error),
    /// The kernel refused a request: `errno` (positive) and, when the kernel
    /// sent one, its extended-ACK message (`NLMSGERR_ATTR_MSG`,
    /// `include/uapi/linux/netlink.h`).
    Kernel { errno: i32, message: Option<String> },
    /// The kernel has no `mptcp_pm` generic-netlink family (no MPTCP).
    NoFamily,
    /// A message from the kernel did not decode.
    Decode(String),
}

impl Error {
    pub(crate) fn decode(e: impl fmt::Display) -> Error {
        Error::Decode(e.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "netlink socket: {e}"),
            Error::Kernel { errno, message } => {
                write!(f, "kernel refused the request: {}", io::Error::from_raw_os_error(*errno))?;
                match message {
                    Some(m) => write!(f, " ({m})"),
                    None => Ok(()),
                }
            }
            Error::NoFamily => write!(f, "the kernel has no mptcp_pm generic-netlink family (MPTCP not available)"),
            Error::Decode(m) => write!(f, "undecodable netlink message: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::Io(e)
    }
}
