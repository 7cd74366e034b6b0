//! Web page loads (`[[pages]]`, docs/apps.md#web-page-loads) and sessions
//! arriving over time (`[[arrivals]]`, docs/apps.md#arrivals).
//!
//! The network: the client's eth0 reaches router r over 10 ms; servers s1
//! and s2 are 10 ms from r, the resolver 5 ms; every link 1 Gb/s, so a
//! 10 kB object's serialization (7 packets, 84 µs per hop) is under 0.2 %
//! of a round trip. Round trips: client–server R = 2·(10 + 10) = 40 ms;
//! client–resolver D = 2·(10 + 5) = 30 ms. Objects of 10 kB fit in the
//! initial window (10 segments of 1448 B, RFC 6928), so each takes one
//! round trip from its request.

mod common;

use common::{f64s, load_err, run_toml, strs, table};
use pathpool_sim::metrics::Column;
use pathpool_sim::{load, Format, RunOutput};

const NET: &str = r#"
[sim]
duration = "10s"
[[nodes]]
name = "c"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "s1"
[[nodes]]
name = "s2"
[[nodes]]
name = "dns"
[[links]]
a = "c:eth0"
b = "r"
rate = "1Gbps"
delay = "10ms"
queue = 4000
[[links]]
a = "r"
b = "s1"
rate = "1Gbps"
delay = "10ms"
queue = 4000
[[links]]
a = "r"
b = "s2"
rate = "1Gbps"
delay = "10ms"
queue = 4000
[[links]]
a = "r"
b = "dns"
rate = "1Gbps"
delay = "5ms"
queue = 4000
[[resolvers]]
name = "local"
node = "dns"
[resolvers.domains."www.example"]
mirrors = ["s1"]
ttl = "60s"
[resolvers.domains."static.example"]
mirrors = ["s2"]
ttl = "60s"
"#;

const R: f64 = 0.040;
const D: f64 = 0.030;

/// `[[contents]]`: the document on s1 (under www.example) and `n` 10 kB
/// objects o0.. on `server` (under its domain).
fn contents(n: usize, server: &str) -> String {
    let domain = if server == "s1" { "www.example" } else { "static.example" };
    let mut t = "[[contents]]\nname = \"index\"\nbytes = \"10kB\"\nmirrors = [\"s1\"]\ndomain = \"www.example\"\n".to_string();
    for i in 0..n {
        t += &format!("[[contents]]\nname = \"o{i}\"\nbytes = \"10kB\"\nmirrors = [\"{server}\"]\ndomain = \"{domain}\"\n");
    }
    t
}

/// A page of the document and objects o0..o{n-1} at depth 1.
fn flat_page(n: usize, extra: &str) -> String {
    let objects: Vec<String> = std::iter::once("{ content = \"index\" }".to_string()).chain((0..n).map(|i| format!("{{ content = \"o{i}\" }}"))).collect();
    format!("[[pages]]\nname = \"p\"\nclient = \"c\"\nobjects = [{}]\n{extra}", objects.join(", "))
}

fn col_bools(out: &RunOutput, t: &str, col: &str) -> Vec<bool> {
    match &table(out, t).columns.iter().find(|(n, _)| *n == col).unwrap().1 {
        Column::Bool(v) => v.clone(),
        other => panic!("{col}: {other:?}"),
    }
}

/// The most objects of the page with a request under way at once.
fn most_in_flight(out: &RunOutput) -> usize {
    let t = table(out, "page_objects");
    let (sent, done) = (f64s(t, "sent_s"), f64s(t, "done_s"));
    sent.iter().map(|&at| sent.iter().zip(&done).filter(|&(&s, &d)| s <= at && at < d).count()).max().unwrap()
}

/// The closed form for a page of the document and `n` objects at depth 1 on
/// the document's server, `limit` connections: the lookup (D), the
/// handshake and the document (2R); then the connection that carried the
/// document takes the first object at once while the limit − 1 others
/// open (a round trip), so by 2R after the document k round trips deliver
/// 1 + limit·(k − 1) objects: 1 + ⌈(n − 1)/limit⌉ round trips in all.
fn closed_form(n: usize, limit: usize) -> f64 {
    D + 2.0 * R + (1 + (n - 1).div_ceil(limit)) as f64 * R
}

#[test]
fn a_flat_page_loads_in_the_closed_form_time_with_six_connections() {
    let out = run_toml(&format!("{NET}{}{}", contents(12, "s1"), flat_page(12, "")));
    let pages = table(&out, "pages");
    let load = f64s(pages, "load_s")[0];
    let model = closed_form(12, 6);
    println!("FIGURE page 1 + 12 objects, 6 connections: load {load:.4} s, model {model:.4} s (D + 5R)");
    assert!((load - model).abs() / model < 0.01, "load {load} s vs {model} s");
    assert_eq!(f64s(pages, "connections"), vec![6.0], "the browser's six connections to s1");
    assert_eq!(most_in_flight(&out), 6);
    // The document opens lane 0; o0 reuses it; o1..o5 open lanes 1..5; o6.. reuse.
    let reused = col_bools(&out, "page_objects", "reused");
    assert_eq!(reused, [vec![false, true], vec![false; 5], vec![true; 6]].concat());
    assert_eq!(strs(pages, "error"), vec![""]);
}

#[test]
fn the_connection_limit_is_honoured_across_servers() {
    let page = flat_page(12, "connections_per_server = 2\n");
    let out = run_toml(&format!("{NET}{}{page}", contents(12, "s1")));
    let load = f64s(table(&out, "pages"), "load_s")[0];
    let model = closed_form(12, 2);
    println!("FIGURE page 1 + 12 objects, 2 connections: load {load:.4} s, model {model:.4} s (D + 9R)");
    assert!((load - model).abs() / model < 0.01, "load {load} s vs {model} s");
    assert_eq!(most_in_flight(&out), 2);
    assert_eq!(f64s(table(&out, "pages"), "connections"), vec![2.0]);
    // Objects on s2: two more connections there, and a lookup of static.example.
    let out = run_toml(&format!("{NET}{}{page}", contents(12, "s2")));
    assert_eq!(f64s(table(&out, "pages"), "connections"), vec![3.0], "one to s1 (the document) and two to s2");
    let t = table(&out, "page_objects");
    let mirrors = strs(t, "mirror");
    assert!(mirrors[1..].iter().all(|m| m == "s2"), "{mirrors:?}");
    // On s2 every object waits for a lookup (D) and a handshake: 2 opened at
    // once, then ⌈12/2⌉ rounds: D + 2R (document) + D + R + 6R.
    let load = f64s(table(&out, "pages"), "load_s")[0];
    let model = 2.0 * D + 9.0 * R;
    println!("FIGURE page 1 + 12 objects on a second server, 2 connections: load {load:.4} s, model {model:.4} s (2D + 9R)");
    assert!((load - model).abs() / model < 0.01, "load {load} s vs {model} s");
}

#[test]
fn objects_wait_for_their_parents() {
    let mut text = format!("{NET}{}", contents(3, "s1"));
    text += r#"
[[pages]]
name = "p"
client = "c"
objects = [{ content = "index" }, { content = "o0" }, { content = "o1", after = "o0" }, { content = "o2", after = "o1" }]
"#;
    let out = run_toml(&text);
    let t = table(&out, "page_objects");
    assert_eq!(f64s(t, "depth"), vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(strs(t, "after"), vec!["", "index", "o0", "o1"]);
    let (ready, sent, done) = (f64s(t, "ready_s"), f64s(t, "sent_s"), f64s(t, "done_s"));
    for j in 1..4 {
        assert_eq!(ready[j], done[j - 1], "object {j} starts when its parent has arrived");
        assert!(sent[j] >= ready[j]);
    }
    // A chain: D + 2R for the document, then one round trip per level on the persistent connection.
    let load = f64s(table(&out, "pages"), "load_s")[0];
    let model = D + 5.0 * R;
    println!("FIGURE page chain of depth 3: load {load:.4} s, model {model:.4} s (D + 5R)");
    assert!((load - model).abs() / model < 0.01, "load {load} s vs {model} s");
    assert_eq!(f64s(table(&out, "pages"), "connections"), vec![1.0], "one persistent connection");
}

/// Two paths to one server: Wi-Fi (preferred, slow: 2·(40 + 10) = 100 ms)
/// and LTE (2·(10 + 10) = 40 ms). The default policy loads over Wi-Fi; PAT
/// connects over both, maps the requests to LTE's connections from the
/// handshakes, and loads faster (the PAT paper's Fig. 14 in miniature).
const TWO_PATHS: &str = include_str!("data/page-two-paths.toml");

#[test]
fn pat_steers_a_page_to_the_faster_path() {
    let page = |policy: &str| format!("{TWO_PATHS}{}{}", contents(6, "s1"), flat_page(6, &format!("policy = \"{policy}\"\n")));
    let default = run_toml(&page("default"));
    let pat = run_toml(&(page("controller") + "[[controllers]]\nhost = \"c\"\nkind = \"pat\"\n[controllers.params]\nresolvers = \"local\"\n"));
    let (d, p) = (f64s(table(&default, "pages"), "load_s")[0], f64s(table(&pat, "pages"), "load_s")[0]);
    // Default: D over Wi-Fi (2·(40 + 5)), the document (2 round trips of
    // 100 ms), then six objects on six connections (a handshake and a request).
    let model = 0.090 + 4.0 * 0.100;
    println!("FIGURE page over two paths: default {d:.4} s (model {model:.4} s), PAT {p:.4} s");
    assert!((d - model).abs() / model < 0.01, "default {d} s vs {model} s");
    assert!(p < 0.8 * d, "PAT {p} s should beat the default {d} s");
    let t = table(&pat, "page_objects");
    assert!(strs(t, "interface").iter().all(|i| i == "lte0"), "PAT maps every object to LTE: {:?}", strs(t, "interface"));
    let log = table(&pat, "controller_log");
    let actions = strs(log, "action");
    assert!(actions.iter().any(|a| a == "steer"), "PAT steers the page's objects: {actions:?}");
    let refused: Vec<String> = strs(log, "outcome").into_iter().filter(|o| o != "done").collect();
    assert!(refused.is_empty(), "no refused action: {refused:?}");
}

#[test]
fn arrivals_follow_the_rate_and_the_seed() {
    let text = |seed: u64| {
        format!("{NET}\n[[arrivals]]\nname = \"users\"\nclients = [\"c\"]\nmirrors = [\"s1\", \"s2\"]\nrate = 40\nstart = \"0s\"\nstop = \"8s\"\n")
            .replace("duration = \"10s\"", &format!("duration = \"10s\"\nseed = {seed}"))
    };
    let model = |seed| load(&text(seed), Format::Toml, &common::source("test.toml"), None).unwrap_or_else(|e| panic!("{e}"));
    let (a, b, c) = (model(1), model(1), model(2));
    // Poisson: 40/s over 8 s gives 320 sessions on average, deviation √320 ≈ 17.9; 4 deviations is 72.
    let n = a.fetches.len();
    println!("FIGURE arrivals: {n} sessions at 40/s over 8 s (expected 320 ± 72)");
    assert!((n as f64 - 320.0).abs() < 72.0, "{n} sessions");
    assert_eq!(a.arrivals[0].sessions, 0..n as u32);
    let sig = |m: &pathpool_sim::Model| m.fetches.iter().map(|f| (f.name.clone(), f.start, f.bytes)).collect::<Vec<_>>();
    assert_eq!(sig(&a), sig(&b), "the same seed draws the same sessions");
    assert_ne!(sig(&a), sig(&c), "another seed draws others");
    // SURGE's lognormal body: the median of ln(size) is μ = 9.357 (11.6 kB).
    let mut sizes: Vec<u64> = a.fetches.iter().map(|f| f.bytes).collect();
    sizes.sort();
    let median = sizes[n / 2] as f64;
    assert!((median.ln() - 9.357).abs() < 0.25, "median {median} B");
    // Run them: every session completes.
    let out = run_toml(&text(1).replace("stop = \"8s\"", "stop = \"2s\""));
    let done = f64s(table(&out, "fetches"), "completion_s");
    assert!(!done.is_empty() && done.iter().all(|d| d.is_finite()), "{done:?}");
}

#[test]
fn bad_pages_and_arrivals_are_refused_naming_the_field() {
    let base = format!("{NET}{}", contents(2, "s1"));
    let cases = [
        (
            "[[pages]]\nclient = \"c\"\nobjects = [{ content = \"index\" }, { content = \"o0\", after = \"o1\" }, { content = \"o1\", after = \"o0\" }]\n",
            "pages[0].objects[1].after",
            "the objects' parents form a loop: o0 → o1 → o0",
        ),
        ("[[pages]]\nclient = \"c\"\nobjects = [{ content = \"index\" }, { content = \"nope\" }]\n", "pages[0].objects[1].content", "unknown content 'nope'"),
        (
            "[[pages]]\nclient = \"c\"\nobjects = [{ content = \"index\", after = \"o0\" }, { content = \"o0\" }]\n",
            "pages[0].objects[0].after",
            "has no parent",
        ),
        (
            "[[pages]]\nclient = \"c\"\nobjects = [{ content = \"index\" }, { content = \"o0\", after = \"o9\" }]\n",
            "pages[0].objects[1].after",
            "'o9' is not an object of this page",
        ),
        ("[[pages]]\nclient = \"c\"\nobjects = [{ content = \"index\" }, { content = \"index\" }]\n", "pages[0].objects[1].content", "is objects[0] already"),
        ("[[pages]]\nclient = \"c\"\nobjects = []\n", "pages[0].objects", "needs at least the main object"),
        (
            "[[pages]]\nclient = \"c\"\nobjects = [{ content = \"index\" }]\nconnections_per_server = 0\n",
            "pages[0].connections_per_server",
            "must be at least 1",
        ),
        ("[[pages]]\nclient = \"r\"\nobjects = [{ content = \"index\" }]\n", "pages[0].client", "is a router"),
        ("[[arrivals]]\nclients = [\"c\"]\nmirrors = [\"s1\"]\nrate = -1\n", "arrivals[0].rate", "must be a positive number"),
        (
            "[[arrivals]]\nclients = [\"c\"]\nmirrors = [\"s1\"]\nrate = 1\nsize = { dist = \"pareto\", mean = \"10kB\", shape = 0.9 }\n",
            "arrivals[0].size",
            "a shape above 1",
        ),
        ("[[arrivals]]\nclients = [\"x*\"]\nmirrors = [\"s1\"]\nrate = 1\n", "arrivals[0].clients", "matches no host"),
        ("[[arrivals]]\nclients = [\"c\"]\nmirrors = [\"nope\"]\nrate = 1\n", "arrivals[0] (session 0).mirrors[0]", "unknown node 'nope'"),
    ];
    for (extra, field, what) in cases {
        let err = load_err(&format!("{base}{extra}"));
        assert!(err.starts_with("bad.toml: ") && err.contains(&format!("{field}: ")) && err.contains(what), "expected {field}: {what} in: {err}");
    }
    // A negative size is refused where it is written.
    let err = load_err(&format!("{NET}[[contents]]\nname = \"x\"\nbytes = -5\nmirrors = [\"s1\"]\n"));
    assert!(err.contains("contents[0].bytes: size must not be negative"), "{err}");
}
