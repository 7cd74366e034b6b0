//! The event queue: a radix heap ordered by (time, insertion sequence).
//!
//! The sequence number makes simultaneous events run in the order they were
//! scheduled (FIFO), which is what makes runs deterministic. Both are packed
//! into one 128-bit key, `time << 64 | seq`, so every key is unique and the
//! pop order is exactly that of a heap ordered by (time, seq).
//!
//! A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for
//! the shortest path problem", JACM 1990) exploits that a simulator's keys
//! are monotone: nothing is scheduled before the last event popped. Bucket
//! `b` holds the keys whose highest bit differing from the last popped key
//! is bit `b - 1` (bucket 0: the key equal to it). A push is one `Vec::push`;
//! a pop takes the lowest non-empty bucket, makes its least key the new
//! reference and spreads the bucket's other keys over lower buckets. Each
//! key moves down at most 128 times and in practice a few: on the benchmark
//! dumbbells this replaced a binary heap whose sift-down was a third of the
//! run (docs/performance.md, "Where the time goes").
//!
//! A key below the reference (an event scheduled before the last one popped,
//! which the world never does) is still handled: the reference is lowered to
//! it and every bucket is spread again.

use crate::time::Time;

struct Entry<E> {
    key: u128,
    event: E,
}

pub struct EventQueue<E> {
    /// Bucket `b` (0..=128), as above.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `b - 1` set when bucket `b` (1..=128) is non-empty.
    occupied: u128,
    /// The reference key: the last one popped or peeked.
    last: u128,
    len: usize,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { buckets: (0..=128).map(|_| Vec::new()).collect(), occupied: 0, last: 0, len: 0, next_seq: 0 }
    }
}

fn key(time: Time, seq: u64) -> u128 {
    (u128::from(time.0) << 64) | u128::from(seq)
}

fn time_of(key: u128) -> Time {
    Time((key >> 64) as u64)
}

impl<E> EventQueue<E> {
    fn bucket(&self, key: u128) -> usize {
        (128 - (key ^ self.last).leading_zeros()) as usize
    }

    fn put(&mut self, entry: Entry<E>) {
        let b = self.bucket(entry.key);
        if b > 0 {
            self.occupied |= 1 << (b - 1);
        }
        self.buckets[b].push(entry);
    }

    pub fn schedule(&mut self, time: Time, event: E) {
        let key = key(time, self.next_seq);
        self.next_seq += 1;
        if key < self.last {
            self.rebase(key);
        }
        self.len += 1;
        self.put(Entry { key, event });
    }

    /// Lowers the reference key to `key` and spreads every bucket again.
    fn rebase(&mut self, key: u128) {
        self.last = key;
        self.occupied = 0;
        let all: Vec<Entry<E>> = self.buckets.iter_mut().flat_map(std::mem::take).collect();
        for e in all {
            self.put(e);
        }
    }

    /// Makes bucket 0 hold the least key, if any: the lowest non-empty
    /// bucket's least key becomes the reference and the rest move down.
    fn settle(&mut self) {
        if !self.buckets[0].is_empty() || self.occupied == 0 {
            return;
        }
        let b = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= !(1 << (b - 1));
        let mut moving = std::mem::take(&mut self.buckets[b]);
        self.last = moving.iter().map(|e| e.key).min().expect("occupied bucket");
        for e in moving.drain(..) {
            self.put(e);
        }
        // Keep the bucket's allocation: every key went to a lower bucket.
        self.buckets[b] = moving;
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.settle();
        let e = self.buckets[0].pop()?;
        self.len -= 1;
        Some((time_of(e.key), e.event))
    }

    pub fn peek_time(&mut self) -> Option<Time> {
        self.settle();
        self.buckets[0].last().map(|e| time_of(e.key))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_fifo_among_equals() {
        let mut q = EventQueue::default();
        q.schedule(Time(5), 'a');
        q.schedule(Time(1), 'b');
        q.schedule(Time(5), 'c');
        q.schedule(Time(1), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    /// The pop order of a simulation-like load (events scheduled at or after
    /// the last popped time, many at the same time, some before it) equals a
    /// sort by (time, scheduling order).
    #[test]
    fn same_order_as_sorting_by_time_then_sequence() {
        let mut q = EventQueue::default();
        let mut reference: Vec<(Time, u64)> = Vec::new();
        let (mut seq, mut now, mut x) = (0u64, 0u64, 0x2545_f491_4f6c_dd1du64);
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut popped = Vec::new();
        for round in 0..20_000 {
            for _ in 0..rand() % 3 {
                let r = rand();
                // Mostly now + a delay, often exactly now, rarely before now.
                let at = match r % 16 {
                    0..=3 => now,
                    4 if round % 97 == 0 => now.saturating_sub(r % 1000),
                    _ => now + (r >> 8) % 50_000_000,
                };
                q.schedule(Time(at), seq);
                reference.push((Time(at), seq));
                seq += 1;
            }
            if round % 3 != 0 {
                if let Some((t, s)) = q.pop() {
                    now = t.0;
                    popped.push((t, s));
                    // What is popped is the least of what was scheduled and not yet popped.
                    let i = reference.iter().enumerate().min_by_key(|(_, k)| **k).map(|(i, _)| i).expect("non-empty");
                    assert_eq!(reference.swap_remove(i), (t, s));
                }
            }
        }
        reference.sort();
        let rest: Vec<(Time, u64)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(rest, reference);
        assert_eq!(q.len(), 0);
        assert!(q.is_empty() && popped.len() > 5_000);
    }
}
