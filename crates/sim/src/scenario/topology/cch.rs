//! Reading Rocketfuel's `.cch` router maps (README.cch in the map folder):
//!
//! ```text
//! uid @loc [+] [bb] (num_neigh) [&ext] -> <nuid-1> <nuid-2> ... {-euid} ... =name[!] rn
//! -euid =externaladdress rn
//! ```
//!
//! Only internal routers (non-negative uids) and the links between them
//! (`<nuid>`) are kept. External nodes (`-euid` lines) and external links
//! (`{-euid}`) are dropped, as are self-loops and links to a uid that has no
//! line of its own. A link is kept if either end lists it (the map should be
//! symmetric; a one-sided listing counts once), and a link listed twice
//! counts once. Lines starting with `#` are comments.

use std::collections::{BTreeMap, BTreeSet};

/// The internal routers of a map and the undirected links between them.
#[derive(Debug, Clone, Default)]
pub struct CchMap {
    /// Router uid → its `@loc` field.
    pub routers: BTreeMap<u32, String>,
    /// Links (a, b) with a < b.
    pub links: BTreeSet<(u32, u32)>,
    /// What was dropped while reading, for the record.
    pub dropped: Dropped,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dropped {
    pub external_nodes: usize,
    pub external_links: usize,
    pub self_loops: usize,
    /// Links to a uid that has no router line.
    pub unknown_neighbours: usize,
    /// Links listed at one end only (kept).
    pub one_sided: usize,
}

pub fn parse(text: &str) -> Result<CchMap, String> {
    let mut map = CchMap::default();
    let mut listed: BTreeSet<(u32, u32)> = BTreeSet::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('-') {
            map.dropped.external_nodes += 1;
            continue;
        }
        let at = |what: &str| format!("line {}: {what}: '{}'", i + 1, truncate(line));
        let (uid, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let uid: u32 = uid.parse().map_err(|_| at("not a router uid"))?;
        // The DNS name after '=' may hold anything; the neighbours come before it.
        let body = rest.split_once('=').map_or(rest, |(b, _)| b);
        let loc = body.trim_start().strip_prefix('@').and_then(|l| l.split_whitespace().next()).unwrap_or("");
        if map.routers.insert(uid, loc.to_string()).is_some() {
            return Err(at(&format!("router {uid} appears twice")));
        }
        let Some((_, neighbours)) = body.split_once("->") else { return Err(at("no '->' before the neighbour list")) };
        for tok in neighbours.split_whitespace() {
            if let Some(n) = tok.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
                let n: u32 = n.parse().map_err(|_| at(&format!("'{tok}' is not an internal neighbour uid")))?;
                if n == uid {
                    map.dropped.self_loops += 1;
                } else {
                    listed.insert((uid, n));
                }
            } else if tok.starts_with('{') && tok.ends_with('}') {
                map.dropped.external_links += 1;
            } else {
                return Err(at(&format!("unexpected '{tok}' in the neighbour list")));
            }
        }
    }
    if map.routers.is_empty() {
        return Err("no routers (lines 'uid @loc ... -> <nuid> ...')".into());
    }
    for &(a, b) in &listed {
        if !map.routers.contains_key(&b) {
            map.dropped.unknown_neighbours += 1;
            continue;
        }
        if !listed.contains(&(b, a)) {
            map.dropped.one_sided += 1;
        }
        map.links.insert((a.min(b), a.max(b)));
    }
    Ok(map)
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 60 { format!("{}...", s.chars().take(60).collect::<String>()) } else { s.to_string() }
}

/// Rocketfuel's inferred link latencies (`latencies.intra`): lines
/// `cityUID cityUID ms`, a router named by its location and its uid run
/// together (`New+York,+NY236`); the trailing digits are the `.cch` uid.
pub fn parse_latencies(text: &str) -> Result<BTreeMap<(u32, u32), u64>, String> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() || f[0].starts_with('#') {
            continue;
        }
        let at = |what: &str| format!("line {}: {what}: '{}'", i + 1, truncate(line.trim()));
        if f.len() != 3 {
            return Err(at("expected 'cityUID cityUID ms'"));
        }
        let uid = |s: &str| -> Result<u32, String> {
            let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            s[s.len() - digits..].parse().map_err(|_| at(&format!("'{s}' does not end in a router uid")))
        };
        let (a, b) = (uid(f[0])?, uid(f[1])?);
        let ms: u64 = f[2].parse().map_err(|_| at(&format!("'{}' is not a whole number of milliseconds", f[2])))?;
        out.insert((a.min(b), a.max(b)), ms);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_links_only_deduplicated() {
        let text = "# comment\n\
            1 @A + bb (3) &1 -> <2> <3> <1> {-9} =a.example r0\n\
            2 @B (2) -> <1> <7> =b r1\n\
            3 @T (1) -> <1> <2> =c=d r1\n\
            -9 =10.0.0.1 r1\n";
        let m = parse(text).unwrap();
        assert_eq!(m.routers.keys().copied().collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(m.links.iter().copied().collect::<Vec<_>>(), vec![(1, 2), (1, 3), (2, 3)]);
        assert_eq!(
            m.dropped,
            Dropped { external_nodes: 1, external_links: 1, self_loops: 1, unknown_neighbours: 1, one_sided: 1 }
        );
        assert!(parse("x @A -> <1>").unwrap_err().contains("line 1: not a router uid"));
        let l = parse_latencies("New+York,+NY236 London217 29\nA1 B2 x\n").unwrap_err();
        assert!(l.starts_with("line 2:"), "{l}");
        assert_eq!(parse_latencies("New+York,+NY236 London217 29\n").unwrap()[&(217, 236)], 29);
    }
}
