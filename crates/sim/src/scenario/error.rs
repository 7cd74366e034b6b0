//! Scenario errors: every problem found, each naming file, field path and what is wrong.

use std::fmt;

#[derive(Debug, Clone)]
pub struct Problem {
    /// Field path such as `links[2].rate`; empty for the document as a whole.
    pub field: String,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct ScenarioError {
    pub source: String,
    pub problems: Vec<Problem>,
}

impl ScenarioError {
    pub fn one(source: &str, field: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError { source: source.into(), problems: vec![Problem { field: field.into(), message: message.into() }] }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            if p.field.is_empty() {
                write!(f, "{}: {}", self.source, p.message)?;
            } else {
                write!(f, "{}: {}: {}", self.source, p.field, p.message)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// Collects problems while validating.
#[derive(Default)]
pub struct Problems {
    pub list: Vec<Problem>,
}

impl Problems {
    pub fn new() -> Problems {
        Problems::default()
    }

    /// Records a problem once (both directions of a link share their fields).
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let p = Problem { field: field.into(), message: message.into() };
        if !self.list.iter().any(|q| q.field == p.field && q.message == p.message) {
            self.list.push(p);
        }
    }

    pub fn into_result<T>(self, source: &str, value: T) -> Result<T, ScenarioError> {
        if self.list.is_empty() {
            Ok(value)
        } else {
            Err(ScenarioError { source: source.into(), problems: self.list })
        }
    }
}
