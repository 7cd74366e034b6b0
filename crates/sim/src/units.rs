//! Quantities with units, as written in scenario files.
//!
//! Scenario authors write `rate = "100Mbps"`, `delay = "10ms"`, `size = "10MB"`;
//! a bare number is taken in the base unit (bit/s, seconds, bytes). Decimal
//! prefixes are powers of 1000 (as in networking: 1 Mbps = 10^6 bit/s,
//! 1 MB = 10^6 bytes); binary prefixes (KiB, MiB, GiB) are powers of 1024.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

use crate::time::Time;

/// A data rate in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

/// A duration (simulated time), stored in integer nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration(pub Time);

/// An amount of data in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
        .unwrap_or(s.len());
    // The number is the longest prefix of digits, signs, points and exponent letters.
    let (num, unit) = s.split_at(end);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' does not start with a number"))?;
    Ok((value, unit.trim()))
}

pub fn parse_rate(s: &str) -> Result<f64, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit {
        "" | "bps" | "b/s" | "bit/s" => 1.0,
        "Kbps" | "kbps" | "Kb/s" | "kb/s" | "kbit/s" => 1e3,
        "Mbps" | "mbps" | "Mb/s" | "Mbit/s" => 1e6,
        "Gbps" | "gbps" | "Gb/s" | "Gbit/s" => 1e9,
        "Bps" | "B/s" => 8.0,
        "KBps" | "kBps" | "KB/s" | "kB/s" => 8e3,
        "MBps" | "MB/s" => 8e6,
        "GBps" | "GB/s" => 8e9,
        _ => return Err(format!("unknown rate unit '{unit}' in '{s}' (use bps, Kbps, Mbps, Gbps)")),
    };
    Ok(v * mult)
}

pub fn parse_duration(s: &str) -> Result<f64, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        _ => return Err(format!("unknown time unit '{unit}' in '{s}' (use s, ms, us, ns)")),
    };
    Ok(v * mult)
}

pub fn parse_bytes(s: &str) -> Result<f64, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("unknown size unit '{unit}' in '{s}' (use B, KB, MB, GB, KiB, MiB, GiB)")),
    };
    Ok(v * mult)
}

/// Deserialises either a number (base unit) or a string with a unit suffix.
struct UnitVisitor {
    what: &'static str,
    parse: fn(&str) -> Result<f64, String>,
}

impl<'de> Visitor<'de> for UnitVisitor {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} (a number or a string such as {})", self.what, match self.what {
            "rate" => "\"100Mbps\"",
            "duration" => "\"10ms\"",
            _ => "\"1.5MB\"",
        })
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        (self.parse)(v).map_err(E::custom)
    }
}

fn finite_non_negative<E: de::Error>(v: f64, what: &str) -> Result<f64, E> {
    if !v.is_finite() {
        return Err(E::custom(format!("{what} must be finite, got {v}")));
    }
    if v < 0.0 {
        return Err(E::custom(format!("{what} must not be negative, got {v}")));
    }
    Ok(v)
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_any(UnitVisitor { what: "rate", parse: parse_rate })?;
        Ok(Rate(finite_non_negative(v, "rate")?))
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_any(UnitVisitor { what: "duration", parse: parse_duration })?;
        let v = finite_non_negative(v, "duration")?;
        // The clock counts nanoseconds in a u64: about 584 years.
        if v * 1e9 >= u64::MAX as f64 {
            return Err(serde::de::Error::custom(format!("duration {v} s is beyond what the clock holds ({:.3e} s)", u64::MAX as f64 / 1e9)));
        }
        Ok(Duration(Time::from_secs_f64(v)))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_any(UnitVisitor { what: "size", parse: parse_bytes })?;
        let v = finite_non_negative(v, "size")?;
        Ok(Bytes(v.round() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_rate("100Mbps").unwrap(), 100e6);
        assert_eq!(parse_rate("1.5 Gbps").unwrap(), 1.5e9);
        assert_eq!(parse_rate("1000").unwrap(), 1000.0);
        assert_eq!(parse_duration("10ms").unwrap(), 0.01);
        assert_eq!(parse_duration("2").unwrap(), 2.0);
        assert_eq!(parse_bytes("1.25MB").unwrap(), 1.25e6);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65536.0);
        assert!(parse_rate("10 furlongs").is_err());
        assert!(parse_duration("ms").is_err());
    }
}
