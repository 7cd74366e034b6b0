//! Scenario files: parsing (`spec`), validation into a runnable `Model`
//! (`build`), and errors that name the file, the field and the problem.

pub mod apps;
pub mod build;
pub mod cells;
pub mod controllers;
pub mod devices;
pub mod error;
pub mod families;
pub mod arrivals;
pub mod fetches;
pub mod pages;
pub mod limits;
pub mod model;
pub mod mtu;
pub mod mptcp;
pub mod pattern;
pub mod rcp;
pub mod resolvers;
pub mod routers;
pub mod spec;
pub mod topology;
pub mod traffic_matrix;

use std::path::PathBuf;

pub use error::ScenarioError;
pub use model::Model;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

/// Where a scenario came from, for error messages and relative paths.
#[derive(Debug, Clone)]
pub struct Source {
    /// Shown in errors: a file path or "<dict>".
    pub name: String,
    /// Directory against which relative trace paths resolve.
    pub dir: PathBuf,
    /// Directory for `data:` paths (pathpool's shared data), if known.
    pub data_dir: Option<PathBuf>,
}

/// Parses scenario text; syntax and type errors carry the field path.
pub fn parse(text: &str, fmt: Format, src: &Source) -> Result<spec::Scenario, ScenarioError> {
    match fmt {
        Format::Toml => {
            let de = toml::Deserializer::parse(text).map_err(|e| {
                ScenarioError::one(&src.name, "", format!("{}{}", e.message(), line_of(text, e.span())))
            })?;
            serde_path_to_error::deserialize(de).map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                ScenarioError::one(&src.name, &clean_path(&path), format!("{}{}", inner.message(), line_of(text, inner.span())))
            })
        }
        Format::Json => {
            let mut de = serde_json::Deserializer::from_str(text);
            serde_path_to_error::deserialize(&mut de).map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                let msg = inner.to_string();
                // serde_json appends " at line L column C"; keep the message itself.
                let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                ScenarioError::one(&src.name, &clean_path(&path), msg)
            })
        }
    }
}

/// Parses and validates in one step; `seed` overrides the file's `sim.seed`
/// (before validation, since workloads draw their flows from it).
pub fn load(text: &str, fmt: Format, src: &Source, seed: Option<u64>) -> Result<Model, ScenarioError> {
    let mut spec = parse(text, fmt, src)?;
    if let Some(s) = seed {
        spec.sim.seed = s;
    }
    build::build(&spec, src)
}

fn clean_path(p: &str) -> String {
    if p == "." { String::new() } else { p.to_string() }
}

fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(r) if r.start <= text.len() => {
            let line = text[..r.start].matches('\n').count() + 1;
            format!(" (line {line})")
        }
        _ => String::new(),
    }
}
