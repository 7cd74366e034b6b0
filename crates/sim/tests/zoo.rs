//! The `zoo` topology generator (Internet Topology Zoo GraphML) on a small
//! made-up map in the Zoo's layout, `tests/data/zoo-example.graphml`: names,
//! capacities, distance delays, external nodes, errors, and a run across it.

mod common;

use common::{load_err, run_toml, source, table};
use pathpool_sim::scenario::model::LinkModel;
use pathpool_sim::scenario::spec::NodeKind;
use pathpool_sim::{Format, Model, Time};

fn scenario(extra: &str, rest: &str) -> String {
    format!(
        r#"
        [sim]
        duration = "3s"

        [topology]
        kind = "zoo"
        file = "tests/data/zoo-example.graphml"
        link = {{ rate = "1Gbps", delay = "0.1ms" }}
        {extra}

        {rest}
        "#
    )
}

fn load_ok(text: &str) -> Model {
    pathpool_sim::load(text, Format::Toml, &source("zoo.toml"), None).unwrap_or_else(|e| panic!("{e}"))
}

fn link<'a>(m: &'a Model, name: &str) -> &'a LinkModel {
    m.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}

#[test]
fn routers_links_rates_and_delays() {
    let m = load_ok(&scenario("", ""));
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["New_York", "Chicago", "Washington_DC", "Atlanta", "Dallas", "Denver", "Los_Angeles", "Seattle", "None_8", "None_9"]);
    assert!(m.nodes.iter().all(|n| n.kind == NodeKind::Router));
    // 12 edges: the parallel New York - Chicago pair is one link.
    assert_eq!(m.links.len(), 11);
    // Two 10 Gb/s circuits; an edge without LinkSpeedRaw takes link.rate.
    assert_eq!(link(&m, "New_York-Chicago").dirs[0].rate_bps, 20e9);
    assert_eq!(link(&m, "Denver-Seattle").dirs[1].rate_bps, 1e9);
    assert_eq!(link(&m, "New_York-Washington_DC").dirs[0].rate_bps, 2.5e9);
    // New York - Chicago is about 1145 km great-circle: 5.72 ms in fibre, plus link.delay.
    let d = link(&m, "New_York-Chicago").dirs[0].delay.initial();
    assert!(d > Time::from_micros(5_750) && d < Time::from_micros(5_900), "{d:?}");
    // The external node has no coordinates: link.delay alone.
    assert_eq!(link(&m, "New_York-None_9").dirs[0].delay.initial(), Time::from_micros(100));
    let fixed = load_ok(&scenario(r#"delay = "fixed""#, ""));
    assert_eq!(link(&fixed, "New_York-Chicago").dirs[0].delay.initial(), Time::from_micros(100));
}

#[test]
fn external_nodes_can_be_dropped() {
    let m = load_ok(&scenario("external = false", ""));
    assert_eq!((m.nodes.len(), m.links.len()), (9, 10));
    // With None_9 gone, the remaining "None" keeps its plain label.
    assert!(m.nodes.iter().any(|n| n.name == "None"));
}

#[test]
fn hosts_and_a_run_across_the_map() {
    let out = run_toml(&scenario(
        r#"hosts = { per_router = 2, access = { rate = "100Mbps", delay = "1ms" } }"#,
        r#"[[flows]]
        src = "h_New_York_0"
        dst = "h_Seattle_1"
        size = "5MB""#,
    ));
    let flows = table(&out, "flows");
    assert_eq!(common::f64s(flows, "fct_s").iter().filter(|t| t.is_finite()).count(), 1);
    // New York - Seattle is 3870 km great-circle, 19.3 ms in fibre each way, and
    // any path of the map is longer; the access links add 2 ms each way.
    let rtt = common::f64s(flows, "rtt_min_s")[0];
    assert!(rtt > 2.0 * (0.0193 + 0.002) && rtt < 0.060, "{rtt}");
}

#[test]
fn errors_name_the_field() {
    let e = load_err(&scenario("", "").replace("zoo-example", "nope"));
    assert!(e.contains("bad.toml: topology.file: ") && e.contains("nope.graphml"), "{e}");
    let e = load_err(&scenario("externall = false", ""));
    assert!(e.contains("topology: unknown field `externall`"), "{e}");
    let e = load_err(&scenario(r#"delay = "geo""#, ""));
    assert!(e.contains("topology") && e.contains("unknown variant `geo`"), "{e}");
    let e = load_err(&scenario("hosts = { per_router = 0, access = { rate = \"1Gbps\", delay = \"1ms\" } }", ""));
    assert!(e.contains("topology.hosts.per_router: must be at least 1"), "{e}");
    let e = load_err(&scenario("", "").replace("zoo-example.graphml", "phone-two-mirrors.toml"));
    assert!(e.contains("topology.file: ") && e.contains("not well-formed XML"), "{e}");
}
