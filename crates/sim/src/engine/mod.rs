//! The discrete-event core: time-ordered event queue, lazily re-armed timers
//! and seeded random streams.

pub mod event_queue;
pub mod rng;
pub mod timer;

pub use event_queue::EventQueue;
pub use rng::{RngStream, Seeds};
pub use timer::Timer;
