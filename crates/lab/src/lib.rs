//! pathpool's kernel lab: scenarios on the real Linux MPTCP stack, in network
//! namespaces with emulated links, driven through the MPTCP netlink path
//! manager.

pub mod bpf;
pub mod emulator;
pub mod netns;
pub mod pm;
pub mod prefix;
pub mod preflight;
pub mod run;
pub mod support;
pub mod testbed;
pub mod traffic;
