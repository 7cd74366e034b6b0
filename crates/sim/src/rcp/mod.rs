//! RCP, the Rate Control Protocol (Dukkipati, "Rate Control Protocol (RCP):
//! Congestion control to make flows complete quickly", PhD thesis, Stanford
//! 2007): routers compute one rate per link (`router::rcp`), the header
//! carries the smallest along the path, and the sender here sends at it.
//! Flows choose it with `transport = "rcp"`; the receiver is TCP's.

pub mod sender;

pub use sender::RcpSender;
