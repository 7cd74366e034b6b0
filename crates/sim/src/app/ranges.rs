//! The byte ranges of a content delivered to the application so far
//! (range requests, RFC 9110 §14: each response is the bytes
//! [first, last] of one representation). A fetch session delivers every
//! byte exactly once: a range that overlaps one already delivered is a
//! duplicate and is refused; the content is complete when one range
//! [0, total) is left, so no gap remains.

use std::collections::BTreeMap;

/// Disjoint, non-adjacent ranges [start, end), by start.
#[derive(Debug, Default, Clone)]
pub struct Ranges {
    by_start: BTreeMap<u64, u64>,
    bytes: u64,
}

/// A range that overlaps one delivered before: [start, end) of both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    pub new: (u64, u64),
    pub old: (u64, u64),
}

impl Ranges {
    /// Adds [off, off + len), merging it with the ranges it touches; Err if
    /// any of its bytes were delivered already.
    pub fn insert(&mut self, off: u64, len: u64) -> Result<(), Overlap> {
        let (mut start, mut end) = (off, off + len);
        let before = self.by_start.range(..=start).next_back().map(|(&s, &e)| (s, e));
        let after = self.by_start.range(start..).next().map(|(&s, &e)| (s, e));
        for old in [before, after].into_iter().flatten() {
            if old.0 < end && start < old.1 {
                return Err(Overlap { new: (off, off + len), old });
            }
        }
        if let Some((s, e)) = before.filter(|&(_, e)| e == start) {
            self.by_start.remove(&s);
            start = s.min(start);
            end = end.max(e);
        }
        if let Some((s, e)) = after.filter(|&(s, _)| s == end) {
            self.by_start.remove(&s);
            end = e;
        }
        self.by_start.insert(start, end);
        self.bytes += len;
        Ok(())
    }

    /// Bytes delivered.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether exactly [0, total) was delivered: every byte, no gap.
    pub fn complete(&self, total: u64) -> bool {
        self.by_start.len() == 1 && self.by_start.get(&0) == Some(&total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_adjacent_ranges_and_refuses_overlaps() {
        let mut r = Ranges::default();
        r.insert(100, 100).unwrap();
        r.insert(0, 100).unwrap();
        assert!(!r.complete(300), "a gap remains at [200, 300)");
        assert_eq!(r.insert(150, 100), Err(Overlap { new: (150, 250), old: (0, 200) }));
        r.insert(250, 50).unwrap();
        assert_eq!(r.insert(199, 2), Err(Overlap { new: (199, 201), old: (0, 200) }));
        r.insert(200, 50).unwrap();
        assert!(r.complete(300));
        assert_eq!(r.bytes(), 300);
    }
}
