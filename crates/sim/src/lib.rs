//! pathpool's simulator: a deterministic, packet-level discrete-event
//! network simulator for (multipath) transport research.
//!
//! Flow of data, one direction only:
//! scenario text → `scenario::load` (parse + validate) → `Model` →
//! `run::run` (a `World` and its event loop) → result tables and summary.

pub mod app;
pub mod capture;
pub mod cc;
pub mod control;
pub mod dns;
pub mod endpoint;
pub mod energy;
pub mod engine;
pub mod files;
pub mod inrpp;
pub mod metrics;
pub mod mptcp;
pub mod net;
pub mod rcp;
pub mod results;
pub mod router;
pub mod run;
pub mod scenario;
pub mod tcp;
pub mod time;
pub mod units;
pub mod world;

pub use run::{run, RunOutput};
pub use scenario::{load, Format, Model, ScenarioError, Source};
pub use time::Time;
