//! Availability of one-hop detours in a router map, the INRPP paper's
//! Table I (Reñé et al., ToN 2022, §I): for each link u–v, the number of
//! routers w linked to both u and v (the detours u–w–v, §III-A); the share of
//! links with at least one, how those split into 1, 2, 3, 4 and 5 or more
//! detours, and the largest number any link has.

use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetourCensus {
    pub links: usize,
    /// Links with at least one one-hop detour.
    pub with_detour: usize,
    /// Links with exactly 1, 2, 3, 4 detours, and with 5 or more.
    pub by_count: [usize; 5],
    /// The most detours of any link.
    pub max: usize,
}

impl DetourCensus {
    /// Share of links with a detour, in % (Table I, column 2).
    pub fn with_detour_pct(&self) -> f64 {
        100.0 * self.with_detour as f64 / self.links as f64
    }

    /// Shares of the links with a detour that have 1, 2, 3, 4, 5+, in %
    /// (Table I, columns 3-7).
    pub fn by_count_pct(&self) -> [f64; 5] {
        self.by_count.map(|n| if self.with_detour == 0 { 0.0 } else { 100.0 * n as f64 / self.with_detour as f64 })
    }
}

/// The census of undirected links (a, b); a link listed twice counts once.
pub fn census(links: &BTreeSet<(u32, u32)>) -> DetourCensus {
    let mut adj: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for &(a, b) in links {
        adj.entry(a).or_default().insert(b);
        adj.entry(b).or_default().insert(a);
    }
    let mut c = DetourCensus { links: links.len(), with_detour: 0, by_count: [0; 5], max: 0 };
    for (a, b) in links {
        let n = adj[a].intersection(&adj[b]).count();
        c.max = c.max.max(n);
        if n > 0 {
            c.with_detour += 1;
            c.by_count[n.min(5) - 1] += 1;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_common_neighbours_of_each_link() {
        // Fig. 2's triangle R1-R2-R3 with a fourth router R4 on R1 and R2
        // (two detours for R1-R2), and a stub R5 on R3.
        let links: BTreeSet<(u32, u32)> = [(1, 2), (1, 3), (2, 3), (1, 4), (2, 4), (3, 5)].into_iter().collect();
        let c = census(&links);
        // R1-R2: R3 and R4; R1-R3, R2-R3, R1-R4, R2-R4: one each; R3-R5: none.
        assert_eq!(c, DetourCensus { links: 6, with_detour: 5, by_count: [4, 1, 0, 0, 0], max: 2 });
        assert!((c.with_detour_pct() - 500.0 / 6.0).abs() < 1e-12);
        assert_eq!(c.by_count_pct(), [80.0, 20.0, 0.0, 0.0, 0.0]);
        // A clique of 8: every link has 6 detours, counted as 5+.
        let k8: BTreeSet<(u32, u32)> = (0..8).flat_map(|a| (a + 1..8).map(move |b| (a, b))).collect();
        assert_eq!(census(&k8), DetourCensus { links: 28, with_detour: 28, by_count: [0, 0, 0, 0, 28], max: 6 });
    }
}
