//! Which cell a UE interface is attached to, and its shadowing, stepped on
//! a fixed time grid (the shortest TTI of the cells it may attach to).
//!
//! Handover happens at the cell border: at the first grid instant the UE is
//! farther from its serving cell's centre than that cell's radius, it
//! attaches to the nearest of its other cells whose disc contains it, and
//! neither direction is served until the new cell's `handover_interruption`
//! has passed. Outside every one of its cells it stays with the serving
//! cell, whose channel then decides (CQI 0: nothing is sent).

use super::channel::Shadowing;
use super::mobility::{distance, Path};
use super::CellParams;
use crate::engine::RngStream;
use crate::time::Time;

pub struct Attachment {
    /// The cells it may attach to (indices into the scenario's cells).
    pub cells: Vec<usize>,
    pub path: Path,
    step: Time,
    /// Grid instants processed: 0..=k.
    k: u64,
    pos: (f64, f64),
    /// Index into `cells`.
    serving: usize,
    pub interrupted_until: Time,
    /// Shadowing per cell of `cells`, dB.
    shadow: Vec<f64>,
    rng: RngStream,
    /// (time, from, to) cell indices, every handover so far.
    pub handovers: Vec<(Time, usize, usize)>,
}

/// The nearest of `cells` whose disc contains `pos`.
pub fn covering(all: &[CellParams], cells: &[usize], pos: (f64, f64)) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &c) in cells.iter().enumerate() {
        let d = distance(pos, all[c].position);
        if d <= all[c].radius_m && best.is_none_or(|(_, bd)| d < bd) {
            best = Some((i, d));
        }
    }
    best.map(|b| b.0)
}

impl Attachment {
    /// At time zero, attached to the nearest covering cell (the scenario
    /// guarantees one).
    pub fn new(all: &[CellParams], cells: Vec<usize>, path: Path, mut rng: RngStream) -> Attachment {
        let pos = path.position(Time::ZERO);
        let serving = covering(all, &cells, pos).unwrap_or(0);
        let step = cells.iter().map(|&c| all[c].tti).min().expect("at least one cell");
        let shadow = cells.iter().map(|&c| all[c].shadowing.start(&mut rng)).collect();
        Attachment { cells, path, step, k: 0, pos, serving, interrupted_until: Time::ZERO, shadow, rng, handovers: Vec::new() }
    }

    /// The serving cell (index into the scenario's cells).
    pub fn serving(&self) -> usize {
        self.cells[self.serving]
    }

    pub fn shadowing_db(&self) -> f64 {
        self.shadow[self.serving]
    }

    /// Processes every grid instant up to `t`.
    pub fn advance(&mut self, all: &[CellParams], t: Time) {
        while Time(self.step.0 * (self.k + 1)) <= t {
            self.k += 1;
            let now = Time(self.step.0 * self.k);
            let pos = self.path.position(now);
            let moved = distance(pos, self.pos);
            self.pos = pos;
            for (i, &c) in self.cells.iter().enumerate() {
                let s: Shadowing = all[c].shadowing;
                self.shadow[i] = s.step(self.shadow[i], moved, &mut self.rng);
            }
            let here = &all[self.serving()];
            if distance(pos, here.position) > here.radius_m {
                let others: Vec<usize> = self.cells.iter().copied().filter(|&c| c != self.serving()).collect();
                if let Some(j) = covering(all, &others, pos) {
                    let to = others[j];
                    let from = self.serving();
                    self.serving = self.cells.iter().position(|&c| c == to).expect("one of its cells");
                    self.interrupted_until = now + all[to].handover_interruption;
                    self.handovers.push((now, from, to));
                }
            }
        }
    }
}
