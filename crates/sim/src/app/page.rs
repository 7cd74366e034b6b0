//! A web page load (`[[pages]]`): a main object (the HTML document), then
//! the objects it references, each requested once its parent has arrived
//! in full (a script or style sheet names more objects only once it is
//! parsed: the dependency graph of Wang et al., "Demystifying Page Load
//! Performance with WProf", NSDI 2013, reduced to one parent per object).
//!
//! Each object is a fetch session (`app::fetch`, one request for the whole
//! object) that starts when its parent's session finishes, so every request
//! goes through the connection-selection seam that controllers steer. The
//! page's objects share the page's persistent connections (RFC 9112 §9.3):
//! under the default policy at most `per_server` of them to one server over
//! one interface, as a browser limits its connections per server (RFC 9112
//! §9.4 asks clients to limit them and names no number; Chromium and
//! Firefox use 6). The world hands connections to objects
//! (`world/pages.rs`); this file keeps the page's shape.

use super::fetch::Candidate;
use crate::net::NodeId;
use crate::time::Time;

/// The connections a browser keeps to one server at most (Chromium's
/// `kMaxSocketsPerGroup` = 6 and Firefox's
/// `network.http.max-persistent-connections-per-server` = 6).
pub const PER_SERVER: u16 = 6;

#[derive(Debug, Clone, PartialEq)]
pub struct PageModel {
    pub name: String,
    pub client: NodeId,
    pub start: Time,
    /// Connections to one server over one interface at most.
    pub per_server: u16,
    /// The objects, the main object first.
    pub objects: Vec<PageObject>,
    /// The page's connections: every mirror of its objects' contents over
    /// every client interface that reaches it, `per_server` lanes each
    /// under the default policy (one under a controller, which opens what
    /// it wants).
    pub pool: Vec<Candidate>,
}

/// One object of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageObject {
    /// Its fetch session (`Model::fetches`).
    pub session: u32,
    /// The object (an index into `objects`) whose arrival starts it; None
    /// for the main object.
    pub after: Option<usize>,
    /// Links from the main object to it (the main object's is 0).
    pub depth: u32,
}

/// Each object's depth given each one's parent (None for the main object):
/// Err with the objects of a loop, in order, if the parents form one.
pub fn depths(parents: &[Option<usize>]) -> Result<Vec<u32>, Vec<usize>> {
    let mut depth: Vec<Option<u32>> = vec![None; parents.len()];
    for start in 0..parents.len() {
        let mut chain = Vec::new();
        let mut at = start;
        // Walk up to an object of known depth or the root, then number the chain back down.
        let base = loop {
            if let Some(d) = depth[at] {
                break d + 1;
            }
            if let Some(i) = chain.iter().position(|&c| c == at) {
                return Err(chain[i..].to_vec());
            }
            chain.push(at);
            match parents[at] {
                Some(up) => at = up,
                None => break 0,
            }
        };
        for (k, &c) in chain.iter().rev().enumerate() {
            depth[c] = Some(base + k as u32);
        }
    }
    Ok(depth.into_iter().map(|d| d.expect("every object numbered")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_follow_parents_and_loops_are_named() {
        assert_eq!(depths(&[None, Some(0), Some(1), Some(0), Some(2)]), Ok(vec![0, 1, 2, 1, 3]));
        assert_eq!(depths(&[Some(3), None, Some(1), Some(2)]), Ok(vec![3, 0, 1, 2]));
        assert_eq!(depths(&[None, Some(2), Some(3), Some(1)]), Err(vec![1, 2, 3]));
        assert_eq!(depths(&[None, Some(1)]), Err(vec![1]));
    }
}
