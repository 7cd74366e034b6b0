//! The interface states of INRPP (Reñé et al., §II-A, Fig. 3): Push, Store
//! and Detour, Backpressure and the transitional Disable Backpressure,
//! driven by the cache occupancy S against S_high and S_low.
//!
//! Algorithm 1 (lines 2–13) recomputes the state on every ACK. Read
//! literally it would leave Backpressure as soon as S ≤ S_high, and Disable
//! Backpressure on the next ACK. The text of §II-A gives the hysteresis
//! instead, which is what we implement: an interface stays in Backpressure
//! until S < S_low ("once the occupancy ... drops below S_low, interface i
//! leaves the Backpressure state"), and stays in Disable Backpressure —
//! sending cancels — until its expiration timer (Algorithm 1, line 5)
//! fires, unless S exceeds S_high first ("if during the DB state, the cache
//! occupancy exceeds the upper-bound, then the interface switches back to
//! Backpressure"). Outside those two states the state follows S: Push when
//! the cache is empty, Store and Detour when it holds anything, Backpressure
//! above S_high.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Push,
    StoreAndDetour,
    Backpressure,
    DisableBackpressure,
}

impl State {
    pub const ALL: [State; 4] = [State::Push, State::StoreAndDetour, State::Backpressure, State::DisableBackpressure];

    /// The name in result tables.
    pub fn name(self) -> &'static str {
        match self {
            State::Push => "push",
            State::StoreAndDetour => "store_and_detour",
            State::Backpressure => "backpressure",
            State::DisableBackpressure => "disable_backpressure",
        }
    }
}

/// Cache occupancy thresholds of one interface, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// S_total: the cache size.
    pub total: u64,
    pub high: u64,
    pub low: u64,
}

/// The state after `state` with occupancy `s`; `db_expired` says whether
/// Disable Backpressure's expiration timer has fired.
pub fn next(state: State, s: u64, t: &Thresholds, db_expired: bool) -> State {
    match state {
        State::Backpressure if s < t.low => State::DisableBackpressure,
        State::Backpressure => State::Backpressure,
        State::DisableBackpressure if s > t.high => State::Backpressure,
        State::DisableBackpressure if !db_expired => State::DisableBackpressure,
        _ if s > t.high => State::Backpressure,
        _ if s > 0 => State::StoreAndDetour,
        _ => State::Push,
    }
}

#[cfg(test)]
mod tests {
    use super::State::*;
    use super::*;

    const T: Thresholds = Thresholds { total: 1250, high: 1000, low: 500 };

    /// Every transition of Fig. 3, and the ones the state keeps.
    #[test]
    fn transitions_of_fig_3() {
        // Push: the queue overflows into the cache → S&D; stays Push while empty.
        assert_eq!(next(Push, 0, &T, true), Push);
        assert_eq!(next(Push, 1, &T, true), StoreAndDetour);
        // A burst straight past S_high.
        assert_eq!(next(Push, 1001, &T, true), Backpressure);
        // S&D: drains to empty → Push; stays below S_high; above → B.
        assert_eq!(next(StoreAndDetour, 0, &T, true), Push);
        assert_eq!(next(StoreAndDetour, 1000, &T, true), StoreAndDetour);
        assert_eq!(next(StoreAndDetour, 1001, &T, true), Backpressure);
        // B holds between the thresholds and leaves for DB below S_low only.
        assert_eq!(next(Backpressure, 1250, &T, true), Backpressure);
        assert_eq!(next(Backpressure, 500, &T, true), Backpressure);
        assert_eq!(next(Backpressure, 499, &T, false), DisableBackpressure);
        // DB: back to B above S_high; held until its timer expires; then S&D or Push.
        assert_eq!(next(DisableBackpressure, 1001, &T, false), Backpressure);
        assert_eq!(next(DisableBackpressure, 900, &T, false), DisableBackpressure);
        assert_eq!(next(DisableBackpressure, 0, &T, false), DisableBackpressure);
        assert_eq!(next(DisableBackpressure, 900, &T, true), StoreAndDetour);
        assert_eq!(next(DisableBackpressure, 0, &T, true), Push);
    }
}
