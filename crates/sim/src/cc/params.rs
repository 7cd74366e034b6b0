//! Algorithm parameters from a scenario's `[tcp.cc_params]` table, read with
//! defaults and checked value by value; a key the algorithm does not know is
//! an error, as everywhere in a scenario.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::time::Time;
use crate::units::{parse_bytes, parse_duration, parse_rate};

/// A parameter as written: `beta = 0.7`, `hystart = false`, `min_rtt_window = "10s"`.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Bool(bool),
    Number(f64),
    Text(String),
}

impl<'de> Deserialize<'de> for ParamValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ParamValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, true or false, or a string")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<ParamValue, E> {
                Ok(ParamValue::Bool(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ParamValue, E> {
                Ok(ParamValue::Number(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ParamValue, E> {
                Ok(ParamValue::Number(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ParamValue, E> {
                Ok(ParamValue::Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ParamValue, E> {
                Ok(ParamValue::Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

pub type ParamTable = BTreeMap<String, ParamValue>;

/// Reads one algorithm's parameters, collecting a (key, message) per problem.
pub struct Params<'a> {
    algorithm: &'a str,
    table: &'a ParamTable,
    known: BTreeSet<&'static str>,
    problems: Vec<(String, String)>,
}

impl<'a> Params<'a> {
    pub fn new(algorithm: &'a str, table: &'a ParamTable) -> Params<'a> {
        Params { algorithm, table, known: BTreeSet::new(), problems: Vec::new() }
    }

    fn get(&mut self, key: &'static str) -> Option<&'a ParamValue> {
        self.known.insert(key);
        self.table.get(key)
    }

    /// Reports a problem with `key` that the typed readers cannot see (one
    /// between parameters).
    pub fn problem(&mut self, key: &str, message: String) {
        self.problems.push((key.to_string(), message));
    }

    /// A number satisfying `valid` (described by `requirement`, e.g. "between 0 and 1").
    pub fn number(&mut self, key: &'static str, default: f64, valid: impl Fn(f64) -> bool, requirement: &str) -> f64 {
        match self.get(key) {
            None => default,
            Some(ParamValue::Number(v)) if v.is_finite() && valid(*v) => *v,
            Some(ParamValue::Number(v)) => {
                self.problem(key, format!("must be {requirement}, got {v}"));
                default
            }
            Some(other) => {
                self.problem(key, format!("must be a number ({requirement}), got {}", show(other)));
                default
            }
        }
    }

    pub fn flag(&mut self, key: &'static str, default: bool) -> bool {
        match self.get(key) {
            None => default,
            Some(ParamValue::Bool(b)) => *b,
            Some(other) => {
                self.problem(key, format!("must be true or false, got {}", show(other)));
                default
            }
        }
    }

    /// A duration: seconds as a number, or a string with a unit ("200ms").
    pub fn duration(&mut self, key: &'static str, default: Time, valid: impl Fn(Time) -> bool, requirement: &str) -> Time {
        let secs = match self.get(key) {
            None => return default,
            Some(ParamValue::Number(v)) => Ok(*v),
            Some(ParamValue::Text(s)) => parse_duration(s),
            Some(other) => Err(format!("must be a duration such as \"10ms\", got {}", show(other))),
        };
        match secs {
            Ok(s) if s.is_finite() && s >= 0.0 && valid(Time::from_secs_f64(s)) => Time::from_secs_f64(s),
            Ok(s) => {
                self.problem(key, format!("must be {requirement}, got {s} s"));
                default
            }
            Err(e) => {
                self.problem(key, e);
                default
            }
        }
    }

    /// A size in bytes: a number, or a string with a unit ("1.25MB"); None
    /// when absent or invalid (reported), for the caller's default.
    pub fn bytes(&mut self, key: &'static str, valid: impl Fn(u64) -> bool, requirement: &str) -> Option<u64> {
        let bytes = match self.get(key)? {
            ParamValue::Number(v) => Ok(*v),
            ParamValue::Text(s) => parse_bytes(s),
            other => Err(format!("must be a size such as \"1.25MB\", got {}", show(other))),
        };
        match bytes {
            Ok(b) if b.is_finite() && b >= 0.0 && valid(b.round() as u64) => Some(b.round() as u64),
            Ok(b) => {
                self.problem(key, format!("must be {requirement}, got {b} bytes"));
                None
            }
            Err(e) => {
                self.problem(key, e);
                None
            }
        }
    }

    /// A rate in bit/s: a number, or a string with a unit ("5Mbps"); None
    /// when absent or invalid (reported), for the caller's default.
    pub fn rate(&mut self, key: &'static str, valid: impl Fn(f64) -> bool, requirement: &str) -> Option<f64> {
        let bps = match self.get(key)? {
            ParamValue::Number(v) => Ok(*v),
            ParamValue::Text(s) => parse_rate(s),
            other => Err(format!("must be a rate such as \"5Mbps\", got {}", show(other))),
        };
        match bps {
            Ok(r) if r.is_finite() && valid(r) => Some(r),
            Ok(r) => {
                self.problem(key, format!("must be {requirement}, got {r} bit/s"));
                None
            }
            Err(e) => {
                self.problem(key, e);
                None
            }
        }
    }

    /// A string; None when absent or not a string (reported).
    pub fn text(&mut self, key: &'static str) -> Option<&'a str> {
        match self.get(key)? {
            ParamValue::Text(s) => Some(s),
            other => {
                self.problem(key, format!("must be a string, got {}", show(other)));
                None
            }
        }
    }

    /// One of `options` (a string), `default` when absent.
    pub fn choice(&mut self, key: &'static str, default: &'static str, options: &[&'static str]) -> &'static str {
        match self.get(key) {
            None => default,
            Some(ParamValue::Text(s)) if options.contains(&s.as_str()) => options.iter().find(|o| **o == s.as_str()).expect("checked"),
            Some(other) => {
                let quoted: Vec<String> = options.iter().map(|o| format!("\"{o}\"")).collect();
                self.problem(key, format!("must be one of {}, got {}", quoted.join(", "), show(other)));
                default
            }
        }
    }

    /// Every problem found, unknown keys included.
    pub fn finish(mut self) -> Result<(), Vec<(String, String)>> {
        let unknown: Vec<&String> = self.table.keys().filter(|k| !self.known.contains(k.as_str())).collect();
        for key in unknown {
            let message = if self.known.is_empty() {
                format!("unknown parameter: {} has no parameters", self.algorithm)
            } else {
                let known: Vec<&str> = self.known.iter().copied().collect();
                format!("unknown parameter for {} (known: {})", self.algorithm, known.join(", "))
            };
            self.problems.push((key.clone(), message));
        }
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self.problems)
        }
    }
}

fn show(v: &ParamValue) -> String {
    match v {
        ParamValue::Bool(b) => b.to_string(),
        ParamValue::Number(n) => n.to_string(),
        ParamValue::Text(s) => format!("\"{s}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(items: &[(&str, ParamValue)]) -> ParamTable {
        items.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn reads_defaults_values_and_reports_problems() {
        let t = table(&[
            ("beta", ParamValue::Number(0.5)),
            ("on", ParamValue::Text("yes".into())),
            ("wait", ParamValue::Text("200ms".into())),
            ("typo", ParamValue::Number(1.0)),
            ("mode", ParamValue::Text("b".into())),
            ("bad_mode", ParamValue::Text("c".into())),
        ]);
        let mut p = Params::new("x", &t);
        assert_eq!(p.number("beta", 0.7, |v| v > 0.0 && v < 1.0, "between 0 and 1"), 0.5);
        assert_eq!(p.number("c", 0.4, |v| v > 0.0, "positive"), 0.4);
        assert!(p.flag("on", true));
        assert_eq!(p.duration("wait", Time::ZERO, |_| true, "any"), Time::from_millis(200));
        assert_eq!(p.choice("mode", "a", &["a", "b"]), "b");
        assert_eq!(p.choice("bad_mode", "a", &["a", "b"]), "a");
        assert_eq!(p.choice("absent", "a", &["a", "b"]), "a");
        let problems = p.finish().unwrap_err();
        let keys: Vec<&str> = problems.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["on", "bad_mode", "typo"]);
        assert_eq!(problems[1].1, "must be one of \"a\", \"b\", got \"c\"");
        assert!(problems[2].1.contains("known: absent, bad_mode, beta, c, mode, on, wait"), "{}", problems[2].1);
    }
}
