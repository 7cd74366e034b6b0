//! GraphML (graphml.graphdrawing.org, the GraphML primer and schema 1.0):
//! the nodes and edges of a file's one graph, each with its `<data>` values
//! under the `attr.name` of the `<key>` they refer to. XML itself is read by
//! `roxmltree`; this module only maps GraphML's elements.
//!
//! Read: `<key id for attr.name>`, one `<graph>`, its `<node id>` and
//! `<edge source target>` children and their `<data key>`. Refused, naming
//! the element's line: nested graphs, hyperedges, ports, an edge to an
//! undeclared node, a `<data>` whose key is not declared for its element.
//! Default values (`<key><default>`) apply to elements without that data.

use std::collections::BTreeMap;

use roxmltree::{Document, Node};

/// One node or edge's attributes, by `attr.name`.
pub type Attributes = BTreeMap<String, String>;

#[derive(Debug, Clone)]
pub struct GraphNode {
    pub id: String,
    pub attributes: Attributes,
}

/// An edge between `nodes[a]` and `nodes[b]` of its graph.
#[derive(Debug, Clone)]
pub struct GraphEdge {
    pub a: usize,
    pub b: usize,
    pub attributes: Attributes,
}

#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// `edgedefault="directed"` (GraphML's default when absent is directed).
    pub directed: bool,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

/// A declared `<key>`: the attribute name, what it is for, and its default.
struct Key {
    name: String,
    domain: String,
    default: Option<String>,
}

impl Key {
    fn applies_to(&self, element: &str) -> bool {
        self.domain == element || self.domain == "all"
    }
}

pub fn parse(text: &str) -> Result<Graph, String> {
    let doc = Document::parse(text).map_err(|e| format!("not well-formed XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "graphml" {
        return Err(format!("the root element is <{}>, not <graphml>", root.tag_name().name()));
    }
    let line = |n: Node| doc.text_pos_at(n.range().start).row;
    let mut keys: BTreeMap<&str, Key> = BTreeMap::new();
    for k in root.children().filter(|n| n.has_tag_name_local("key")) {
        let id = k.attribute("id").ok_or_else(|| format!("line {}: <key> without an id", line(k)))?;
        let name = k.attribute("attr.name").unwrap_or(id).to_string();
        let domain = k.attribute("for").unwrap_or("all").to_string();
        let default = k.children().find(|n| n.has_tag_name_local("default")).and_then(|d| d.text()).map(str::to_string);
        keys.insert(id, Key { name, domain, default });
    }
    let mut graphs = root.children().filter(|n| n.has_tag_name_local("graph"));
    let graph = graphs.next().ok_or("no <graph> element")?;
    if let Some(g) = graphs.next() {
        return Err(format!("line {}: a second <graph>; one graph per file is read", line(g)));
    }
    let attributes = |el: Node, element: &str| -> Result<Attributes, String> {
        let mut a: Attributes = keys.values().filter(|k| k.applies_to(element)).filter_map(|k| Some((k.name.clone(), k.default.clone()?))).collect();
        for d in el.children().filter(|n| n.has_tag_name_local("data")) {
            let id = d.attribute("key").ok_or_else(|| format!("line {}: <data> without a key", line(d)))?;
            match keys.get(id) {
                Some(k) if k.applies_to(element) => {
                    a.insert(k.name.clone(), d.text().unwrap_or("").trim().to_string());
                }
                Some(k) => return Err(format!("line {}: key '{id}' is declared for {}s, not {element}s", line(d), k.domain)),
                None => return Err(format!("line {}: <data key=\"{id}\"> refers to no <key>", line(d))),
            }
        }
        Ok(a)
    };
    let mut g = Graph { directed: graph.attribute("edgedefault").unwrap_or("directed") == "directed", ..Graph::default() };
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for n in graph.children().filter(|n| n.has_tag_name_local("node")) {
        let id = n.attribute("id").ok_or_else(|| format!("line {}: <node> without an id", line(n)))?;
        if n.children().any(|c| c.has_tag_name_local("graph") || c.has_tag_name_local("port")) {
            return Err(format!("line {}: node '{id}' holds a nested graph or ports, which are not read", line(n)));
        }
        if index.insert(id, g.nodes.len()).is_some() {
            return Err(format!("line {}: a second node with id '{id}'", line(n)));
        }
        g.nodes.push(GraphNode { id: id.to_string(), attributes: attributes(n, "node")? });
    }
    if let Some(h) = graph.children().find(|n| n.has_tag_name_local("hyperedge")) {
        return Err(format!("line {}: hyperedges are not read", line(h)));
    }
    for e in graph.children().filter(|n| n.has_tag_name_local("edge")) {
        let end = |attr: &str| -> Result<usize, String> {
            let id = e.attribute(attr).ok_or_else(|| format!("line {}: <edge> without a {attr}", line(e)))?;
            index.get(id).copied().ok_or_else(|| format!("line {}: edge {attr} '{id}' is not a node of the graph", line(e)))
        };
        g.edges.push(GraphEdge { a: end("source")?, b: end("target")?, attributes: attributes(e, "edge")? });
    }
    Ok(g)
}

trait LocalName {
    fn has_tag_name_local(&self, name: &str) -> bool;
}

impl LocalName for Node<'_, '_> {
    /// GraphML's elements are in its namespace, but files without the
    /// declaration are common; both are read.
    fn has_tag_name_local(&self, name: &str) -> bool {
        self.is_element() && self.tag_name().name() == name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_NODES: &str = r#"<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="label" attr.type="string"/>
  <key id="d1" for="edge" attr.name="LinkSpeedRaw" attr.type="double"><default>1000</default></key>
  <graph edgedefault="undirected">
    <node id="a"><data key="d0">Alpha</data></node>
    <node id="b"/>
    <edge source="a" target="b"><data key="d1">2e9</data></edge>
    <edge source="b" target="a"/>
  </graph>
</graphml>"#;

    #[test]
    fn nodes_edges_and_defaults() {
        let g = parse(TWO_NODES).unwrap();
        assert_eq!((g.directed, g.nodes.len()), (false, 2));
        assert!(parse(&TWO_NODES.replace(r#" edgedefault="undirected""#, "")).unwrap().directed);
        assert_eq!(g.nodes[0].attributes["label"], "Alpha");
        assert!(!g.nodes[1].attributes.contains_key("label"));
        assert_eq!((g.edges[0].a, g.edges[0].b), (0, 1));
        assert_eq!(g.edges[0].attributes["LinkSpeedRaw"], "2e9");
        assert_eq!(g.edges[1].attributes["LinkSpeedRaw"], "1000");
    }

    #[test]
    fn errors_name_the_line() {
        let bad_end = TWO_NODES.replace(r#"<edge source="b" target="a"/>"#, r#"<edge source="b" target="zz"/>"#);
        assert_eq!(parse(&bad_end).unwrap_err(), "line 9: edge target 'zz' is not a node of the graph");
        let bad_key = TWO_NODES.replace(r#"<data key="d0">"#, r#"<data key="d9">"#);
        assert_eq!(parse(&bad_key).unwrap_err(), "line 6: <data key=\"d9\"> refers to no <key>");
        let wrong_domain = TWO_NODES.replace(r#"<data key="d1">"#, r#"<data key="d0">"#);
        assert_eq!(parse(&wrong_domain).unwrap_err(), "line 8: key 'd0' is declared for nodes, not edges");
        assert!(parse("<graph/>").unwrap_err().contains("not <graphml>"));
        assert!(parse("<graphml>").unwrap_err().starts_with("not well-formed XML"));
    }
}
