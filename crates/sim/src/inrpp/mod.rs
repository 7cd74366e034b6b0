//! INRPP, the In-Network Resource Pooling Protocol (Reñé, Ascigil, Psaras
//! and Pavlou, "A Congestion Control Framework Based on In-Network Resource
//! Pooling", IEEE/ACM ToN 2022): routers cache what their links cannot carry
//! yet, detour it over one-hop alternatives and push back hop by hop
//! (`router::inrpp`); the end-point here sends open loop at its interface's
//! rate, shared among the host's INRPP flows (`share`), and closed loop, one
//! packet per ACK, when told to slow down.
//! Flows choose it with `transport = "inrpp"`; the receiver is TCP's.

pub mod sender;
pub mod share;

pub use sender::InrppSender;
pub use share::InterfaceShare;
