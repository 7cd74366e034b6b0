//! A video player's bitrate choice: which rung of the ladder to fetch the
//! next segment at. The ladder is in bit/s, ascending; implementations
//! return an index into it.
//!
//! - `fixed`: always the one bitrate of a one-rung ladder.
//! - `bba`: buffer-based (`bba::Bba`, Huang et al., SIGCOMM 2014).
//! - `throughput`: rate-based on past segment throughputs
//!   (`throughput::Throughput`, Yin et al., SIGCOMM 2015).

use super::bba::Bba;
use super::throughput::Throughput;

pub trait BitrateChoice: Send {
    /// The rung for the next segment, given the buffer level (seconds of
    /// video) and the previous segment's rung (None for the first).
    fn choose(&mut self, ladder: &[f64], buffer_s: f64, previous: Option<usize>) -> usize;

    /// A segment of `bytes` took `secs` from its request to its last byte.
    fn measured(&mut self, _bytes: u64, _secs: f64) {}
}

/// The validated choice of a scenario (`abr = ...` in a video application).
#[derive(Debug, Clone, PartialEq)]
pub enum AbrModel {
    Fixed,
    /// Reservoir and cushion, seconds of video.
    Bba { reservoir_s: f64, cushion_s: f64 },
    /// Past segments averaged, and the share of the estimate to spend.
    Throughput { window: usize, safety: f64 },
}

impl AbrModel {
    pub fn name(&self) -> &'static str {
        match self {
            AbrModel::Fixed => "fixed",
            AbrModel::Bba { .. } => "bba",
            AbrModel::Throughput { .. } => "throughput",
        }
    }

    pub fn make(&self) -> Box<dyn BitrateChoice> {
        match *self {
            AbrModel::Fixed => Box::new(Fixed),
            AbrModel::Bba { reservoir_s, cushion_s } => Box::new(Bba { reservoir_s, cushion_s }),
            AbrModel::Throughput { window, safety } => Box::new(Throughput::new(window, safety)),
        }
    }
}

/// One bitrate throughout (validation allows `fixed` with one rung only).
struct Fixed;

impl BitrateChoice for Fixed {
    fn choose(&mut self, _ladder: &[f64], _buffer_s: f64, _previous: Option<usize>) -> usize {
        0
    }
}
