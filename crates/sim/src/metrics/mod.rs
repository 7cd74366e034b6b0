//! What a run measures: result tables (the schema lives in `docs/results.md`),
//! the periodic sampler behind the time series, and summary statistics.

pub mod sampler;
pub mod stats;
pub mod table;

pub use table::{Column, Table};
