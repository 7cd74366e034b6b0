//! What ndnSIM's Rocketfuel reader keeps of a `.cch` map
//! (`RocketfuelMapReader::Read`, ndnSIM utils/topology/rocketfuel-map-reader.cpp;
//! read, not copied). The INRPP authors build the paper's §IV-D topology with
//! it (github srene/ns-3-inrpp, scratch/inrpp_rocketfuel.cc:
//! `clientNodeDegrees = 2`, `keepOneComponent = true`, no backbone mesh):
//!
//! 1. keep the largest connected component;
//! 2. for d = 1, then d = 2: every router of degree d becomes a *client*
//!    (whatever it was labelled before), and each of its unlabelled
//!    neighbours a *gateway*; an unlabelled neighbour of degree ≤ d passes
//!    the labelling on, its own unlabelled neighbours becoming *backbone*,
//!    and so on through routers of degree ≤ d;
//! 3. unlabelled routers are backbone;
//! 4. drop client–client and client–backbone links;
//! 5. keep the largest connected component again.
//!
//! Step 2 depends on the order in which routers, and each router's
//! neighbours, are visited: a router of degree 3 next to a chain of clients is
//! a gateway if one of its client neighbours comes first and a backbone
//! router (its client links dropped in step 4) if the labelling reaches it
//! through the chain first. ndnSIM visits them in the order of its vertex
//! descriptors, memory addresses, so its result is not reproducible from the
//! file alone. pathpool visits routers and neighbours in decreasing degree,
//! then increasing uid: on AS 3257 that gives the paper's 440 routers and 681
//! links, 267 clients, 126 gateways and 47 backbone routers
//! (docs/scenario.md has the other orders' results). The routers keep the
//! reader's labels (client = edge), which the paper reports; its degree rule
//! applied after step 4 differs where a dropped link lowered a degree.
//!
//! ndnSIM also adds a vertex for a neighbour uid that has no line of its own;
//! pathpool's reader drops such links (cch.rs). AS 3257 has none.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use super::rocketfuel::{adjacency, largest_component, Class};

/// The routers kept with their labels, and the links kept.
pub fn prune(routers: &BTreeSet<u32>, links: BTreeSet<(u32, u32)>) -> (BTreeMap<u32, Class>, BTreeSet<(u32, u32)>) {
    let (routers, links) = largest_component(routers, links);
    let adj = adjacency(&routers, &links);
    let visit = |r: &u32| (Reverse(adj[r].len()), *r);
    let neighbours: BTreeMap<u32, Vec<u32>> = adj
        .iter()
        .map(|(&r, n)| {
            let mut n = n.clone();
            n.sort_by_key(visit);
            (r, n)
        })
        .collect();
    let mut order: Vec<u32> = routers.iter().copied().collect();
    order.sort_by_key(visit);

    let mut label: BTreeMap<u32, Class> = BTreeMap::new();
    for d in 1..=2 {
        for &r in order.iter().filter(|r| adj[r].len() == d) {
            label.insert(r, Class::Edge);
            pass_on(r, d + 1, Class::Gateway, &neighbours, &mut label);
        }
    }
    for &r in &routers {
        label.entry(r).or_insert(Class::Backbone);
    }
    let mut links = links;
    links.retain(|(a, b)| {
        !matches!(
            (label[a], label[b]),
            (Class::Edge, Class::Edge) | (Class::Edge, Class::Backbone) | (Class::Backbone, Class::Edge)
        )
    });
    let (routers, links) = largest_component(&routers, links);
    label.retain(|r, _| routers.contains(r));
    (label, links)
}

/// Step 2's labelling of `r`'s unlabelled neighbours (ndnSIM's `assignGw`):
/// `class` for each, and backbone onwards through those of degree < `below`.
fn pass_on(r: u32, below: usize, class: Class, neighbours: &BTreeMap<u32, Vec<u32>>, label: &mut BTreeMap<u32, Class>) {
    for &u in &neighbours[&r] {
        if label.contains_key(&u) {
            continue;
        }
        label.insert(u, class);
        if neighbours[&u].len() < below {
            pass_on(u, below, Class::Backbone, neighbours, label);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(l: &[(u32, u32)]) -> BTreeSet<(u32, u32)> {
        l.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect()
    }

    /// A triangle 1-2-3, a chain 3-4-5, a leaf 6 on 1, and an island 7-8.
    #[test]
    fn a_chain_keeps_its_first_client_only() {
        let routers: BTreeSet<u32> = (1..=8).collect();
        let (label, kept) = prune(&routers, links(&[(1, 2), (2, 3), (1, 3), (3, 4), (4, 5), (1, 6), (7, 8)]));
        // Degree 1 first: 5 labels 4 gateway, 6 labels 1 gateway. Degree 2:
        // 2 labels 3 gateway; 4 becomes a client although labelled gateway.
        let got: Vec<(u32, Class)> = label.iter().map(|(&r, &c)| (r, c)).collect();
        assert_eq!(got, vec![(1, Class::Gateway), (2, Class::Edge), (3, Class::Gateway), (4, Class::Edge), (6, Class::Edge)]);
        // 4-5 is client-client: dropped, and 5 with it; the island too.
        assert_eq!(kept, links(&[(1, 2), (2, 3), (1, 3), (3, 4), (1, 6)]));
    }

    /// Clients 1 and 2 in a chain 20-1-2-3, router 3 of degree 3, in a mesh.
    #[test]
    fn the_labelling_through_a_chain_makes_backbone_routers() {
        let routers: BTreeSet<u32> = [1, 2, 3, 20, 21, 22, 23].into_iter().collect();
        let mesh = [(3, 20), (3, 21), (20, 21), (20, 22), (21, 22), (22, 23), (20, 23), (21, 23)];
        let (label, kept) = prune(&routers, links(&[&[(1, 2), (2, 3), (1, 20)][..], &mesh[..]].concat()));
        // 1 is visited first (degree 2, lower uid): 20 and 2 become gateways,
        // and 2 (degree 2 < 3) passes on: 3 becomes backbone before 2 is
        // visited and turns client.
        assert_eq!((label[&1], label[&20], label[&3]), (Class::Edge, Class::Gateway, Class::Backbone));
        // 1-2 (client-client) and 2-3 (client-backbone) go, and 2 with them.
        assert!(!label.contains_key(&2));
        assert_eq!(kept, links(&[&[(1, 20)][..], &mesh[..]].concat()));
    }
}
