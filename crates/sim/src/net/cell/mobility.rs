//! Where a host is: a start position and a piecewise-constant velocity
//! (speed and heading changing at given times), in metres on a plane.

use crate::time::Time;

/// A velocity change: from `at` on, move at `speed` m/s towards `heading`
/// degrees (0 = +x, 90 = +y).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leg {
    pub at: Time,
    pub speed: f64,
    pub heading_deg: f64,
}

#[derive(Debug, Clone)]
pub struct Path {
    start: (f64, f64),
    /// Sorted by time, the first at time zero.
    legs: Vec<Leg>,
}

impl Path {
    /// `legs` sorted with the first at time zero (checked at load).
    pub fn new(start: (f64, f64), legs: Vec<Leg>) -> Path {
        Path { start, legs }
    }

    pub fn position(&self, t: Time) -> (f64, f64) {
        let (mut x, mut y) = self.start;
        for (i, leg) in self.legs.iter().enumerate() {
            if leg.at >= t {
                break;
            }
            let end = self.legs.get(i + 1).map_or(t, |n| n.at.min(t));
            let (dx, dy) = direction(leg.heading_deg);
            let d = leg.speed * (end - leg.at).secs();
            x += d * dx;
            y += d * dy;
        }
        (x, y)
    }

    /// Speed at `t`, m/s.
    pub fn speed(&self, t: Time) -> f64 {
        self.legs[self.legs.partition_point(|l| l.at <= t).saturating_sub(1)].speed
    }
}

fn direction(heading_deg: f64) -> (f64, f64) {
    let r = heading_deg.to_radians();
    (r.cos(), r.sin())
}

pub fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legs_add_up() {
        // East at 20 m/s for 10 s, then north at 10 m/s.
        let p = Path::new(
            (0.0, 0.0),
            vec![
                Leg { at: Time::ZERO, speed: 20.0, heading_deg: 0.0 },
                Leg { at: Time::from_secs(10), speed: 10.0, heading_deg: 90.0 },
            ],
        );
        let (x, y) = p.position(Time::from_secs(5));
        assert!((x - 100.0).abs() < 1e-9 && y.abs() < 1e-9);
        let (x, y) = p.position(Time::from_secs(12));
        assert!((x - 200.0).abs() < 1e-9 && (y - 20.0).abs() < 1e-9);
        assert_eq!(p.speed(Time::from_secs(11)), 10.0);
    }
}
