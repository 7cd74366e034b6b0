//! Bad input is refused before anything runs, naming the file, the field
//! and what is wrong: one test per kind of error.

mod common;
use common::load_err;

const NODES: &str = r#"
[sim]
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
"#;

fn with(extra: &str) -> String {
    format!("{NODES}{extra}")
}

fn assert_names(err: &str, field: &str, what: &str) {
    assert!(err.starts_with("bad.toml: "), "no file name in: {err}");
    assert!(err.contains(field), "no field '{field}' in: {err}");
    assert!(err.contains(what), "no '{what}' in: {err}");
}

const LINKS: &str = r#"
[[links]]
a = "a"
b = "r"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "r"
b = "b"
rate = "10Mbps"
delay = "1ms"
"#;

#[test]
fn unknown_key() {
    let e = load_err(&with("[[links]]\na = \"a\"\nb = \"r\"\nrat = \"10Mbps\"\ndelay = \"1ms\"\n"));
    assert_names(&e, "links[0]", "unknown field `rat`");
}

#[test]
fn wrong_type() {
    let e = load_err(&with(&format!("{LINKS}[[flows]]\nsrc = \"a\"\ndst = \"b\"\nstart = true\n")));
    assert_names(&e, "flows[0].start", "invalid type");
}

#[test]
fn negative_rate() {
    let e = load_err(&with("[[links]]\na = \"a\"\nb = \"r\"\nrate = \"-5Mbps\"\ndelay = \"1ms\"\n"));
    assert_names(&e, "links[0].rate", "must not be negative");
}

#[test]
fn zero_rate() {
    let e = load_err(&with("[[links]]\na = \"a\"\nb = \"r\"\nrate = 0\ndelay = \"1ms\"\n"));
    assert_names(&e, "links[0].rate", "must be positive");
}

#[test]
fn unknown_node_in_link() {
    let e = load_err(&with("[[links]]\na = \"a\"\nb = \"nowhere\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n"));
    assert_names(&e, "links[0].b", "unknown node 'nowhere'");
}

#[test]
fn unknown_node_in_flow() {
    let e = load_err(&with(&format!("{LINKS}[[flows]]\nsrc = \"a\"\ndst = \"c\"\n")));
    assert_names(&e, "flows[0].dst", "unknown node 'c'");
}

#[test]
fn duplicate_node_name() {
    let e = load_err(&with("[[nodes]]\nname = \"a\"\n"));
    assert_names(&e, "nodes[3].name", "duplicate node name 'a'");
}

#[test]
fn destination_without_route() {
    // b is not connected to anything.
    let e = load_err(&with("[[links]]\na = \"a\"\nb = \"r\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n"));
    assert_names(&e, "flows[0].dst", "no route from 'a' to 'b'");
}

#[test]
fn flows_cannot_cross_hosts() {
    // a - b - c with b a host: hosts do not forward, so c is unreachable from a.
    let e = load_err(
        "[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[nodes]]\nname = \"c\"\n\
         [[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
         [[links]]\na = \"b\"\nb = \"c\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nsrc = \"a\"\ndst = \"c\"\n",
    );
    assert_names(&e, "flows[0].dst", "no route");
}

#[test]
fn every_problem_is_reported_at_once() {
    let e = load_err(&with(
        "[[links]]\na = \"a\"\nb = \"x\"\nrate = 0\ndelay = \"1ms\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntcp = { cc = \"vegas\" }\n",
    ));
    assert!(e.lines().count() >= 3, "{e}");
    assert!(e.contains("flows[0].tcp.cc: unknown congestion control 'vegas'"), "{e}");
}

#[test]
fn probabilities_and_queue_limits_are_checked() {
    let e = load_err(&with(
        "[[links]]\na = \"a\"\nb = \"r\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = 0\nloss = { model = \"bernoulli\", p = 1.5 }\n",
    ));
    assert_names(&e, "links[0].queue", "at least one packet");
    assert!(e.contains("links[0].loss.p: must be a probability"), "{e}");
}

#[test]
fn missing_trace_file_is_named() {
    let e = load_err(&with("[[links]]\na = \"a\"\nb = \"r\"\ndelay = \"1ms\"\ncapacity = { mahimahi = \"no/such.trace\" }\n"));
    assert_names(&e, "links[0].capacity.mahimahi", "no/such.trace");
}

#[test]
fn syntax_error_has_a_line() {
    let e = load_err("[sim\nduration = 1\n");
    assert!(e.starts_with("bad.toml: ") && e.contains("(line 1)"), "{e}");
}

#[test]
fn a_refused_link_is_not_reported_again_as_a_missing_route() {
    let e = load_err(&with(&format!("{LINKS}[[links]]\na = \"a:\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n")));
    assert_names(&e, "links[2].a", "empty interface name");
    assert!(!e.contains("no route"), "{e}");
}

#[test]
fn router_module_name_parameters_and_links_are_checked() {
    let e = load_err(&with(&format!("{LINKS}[routers]\nmodule = \"red\"\n")));
    assert_names(&e, "routers.module", "unknown router module 'red' (known: rcp, inrpp)");
    let e = load_err(&with(&format!("{LINKS}[routers]\nmodule = \"rcp\"\n[routers.params]\nalpha = 0\nbta = 1.0\n")));
    assert_names(&e, "routers.params.alpha", "must be positive");
    assert!(e.contains("routers.params.bta: unknown parameter for rcp (known: alpha, beta,"), "{e}");
    let hosts = "[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nname = \"direct\"\n";
    let e = load_err(&with(&format!("{LINKS}{hosts}[routers]\nmodule = \"rcp\"\nlinks = [\"a-r\", \"nope\", \"direct\", \"a-r\"]\n")));
    assert_names(&e, "routers.links[1]", "unknown link 'nope'");
    assert!(e.contains("routers.links[2]: link 'direct' joins two hosts"), "{e}");
    assert!(e.contains("routers.links[3]: link 'a-r' is listed twice"), "{e}");
}

#[test]
fn inrpp_parameters_are_checked_alone_together_and_against_each_interface() {
    let inrpp = |params: &str| with(&format!("{LINKS}[routers]\nmodule = \"inrpp\"\n[routers.params]\n{params}"));
    let e = load_err(&inrpp("alpha = 0.6\ncache = \"1.25 parsecs\"\n"));
    assert_names(&e, "routers.params.alpha", "must be in (0, π/(4√2) = 0.5554)");
    assert_names(&e, "routers.params.cache", "unknown size unit 'parsecs'");
    let e = load_err(&inrpp("probe_interval = \"20ms\"\n"));
    assert_names(&e, "routers.params.decision_interval", "must be at least 5 × probe_interval = 0.1 s");
    let e = load_err(&inrpp("cache = \"1MB\"\ns_high = \"1MB\"\n"));
    assert_names(&e, "routers.params.s_high", "must be below the cache size (1000000 bytes), got 1000000");
    let e = load_err(&inrpp("s_high = \"1MB\"\ns_low = \"1MB\"\n"));
    assert_names(&e, "routers.params.s_low", "must be below s_high (1000000 bytes), got 1000000");
    // The default S_high = S_total − RTT·C needs a cache above RTT·C: 200 kB at 10 Mb/s, 250 ms.
    let e = load_err(&inrpp("cache = \"200kB\"\n"));
    assert_names(&e, "routers.params.s_high", "the default S_total − RTT·C is not positive");
    assert!(e.contains("(on a-r:r>a, r-b:r>b)"), "one line for both directions: {e}");
    let flow = "[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntransport = \"inrpp\"\ntcp = { cc = \"cubic\" }\n";
    let e = load_err(&with(&format!("{LINKS}{flow}")));
    assert_names(&e, "flows[0].tcp.cc", "does not apply to transport 'inrpp'");
    let flow = "[[flows]]\nsrc = \"a\"\ndst = \"b\"\ninrpp = { forged_slow_downs = 9 }\n";
    let e = load_err(&with(&format!("{LINKS}{flow}")));
    assert_names(&e, "flows[0].inrpp.forged_slow_downs", "an INRPP option holds at most 8 nonces, got 9");
    let e = load_err(&inrpp("nonce_capacity = 0.5\n"));
    assert_names(&e, "routers.params.nonce_capacity", "must be a whole number, at least 1");
    let e = load_err(&inrpp("hold = \"flow\"\n"));
    assert_names(&e, "routers.params.hold", "must be one of \"nonce\", \"interface\", got \"flow\"");
    let e = load_err(&inrpp("hold = true\n"));
    assert_names(&e, "routers.params.hold", "must be one of \"nonce\", \"interface\", got true");
    let flow = "[[flows]]\nsrc = \"a\"\ndst = \"b\"\ninrpp = { timeout_open_loop = false }\n";
    let e = load_err(&with(&format!("{LINKS}{flow}")));
    assert_names(&e, "flows[0].inrpp.timeout_open_loop", "applies to transport 'inrpp' only");
}

#[test]
fn rcp_flows_need_rcp_routers_on_their_path_and_a_handshake() {
    let flow = "[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntransport = \"rcp\"\n";
    let e = load_err(&with(&format!("{LINKS}{flow}")));
    assert_names(&e, "flows[0].transport", "needs an RCP router on its path");
    // The module runs only on r's side of a-r, which the data does not leave r by.
    let e = load_err(&with(&format!("{LINKS}{flow}[routers]\nmodule = \"rcp\"\nlinks = [\"a-r\"]\n")));
    assert_names(&e, "flows[0].transport", "needs an RCP router on its path");
    let e = load_err(&with(&format!("{LINKS}{flow}tcp = {{ cc = \"cubic\", handshake = false }}\n[routers]\nmodule = \"rcp\"\n")));
    assert_names(&e, "flows[0].tcp.cc", "does not apply to transport 'rcp'");
    assert!(e.contains("flows[0].tcp.handshake: transport 'rcp' learns its first rate from the SYN exchange"), "{e}");
    assert!(!e.contains("needs an RCP router"), "{e}");
    let e = load_err(&with(&format!("{LINKS}[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntransport = \"udp\"\n")));
    assert_names(&e, "flows[0].transport", "unknown transport 'udp' (known: tcp, rcp, mptcp, inrpp)");
}

#[test]
fn after_names_an_earlier_sized_flow() {
    let flows = r#"
[[flows]]
name = "bulk"
src = "a"
dst = "b"
[[flows]]
name = "x"
src = "b"
dst = "a"
after = "bulk"
[[flows]]
name = "y"
src = "b"
dst = "a"
after = "z"
[[flows]]
name = "z"
src = "a"
dst = "b"
size = "1kB"
after = "nobody"
"#;
    let err = load_err(&with(&format!("{LINKS}{flows}")));
    assert_names(&err, "flows[1].after", "flow 'bulk' is bulk and never completes");
    assert_names(&err, "flows[2].after", "flow 'z' must come before this one");
    assert_names(&err, "flows[3].after", "no flow named 'nobody'");
}

#[test]
fn workload_patterns() {
    let w = |src: &str, dst: &str| {
        with(&format!(
            "{LINKS}[[workloads]]\nkind = \"poisson_pareto\"\nsrc = {src}\ndst = {dst}\nload = 0.5\ncapacity = \"10Mbps\"\nmean_size = 10\nflows = 5\n"
        ))
    };
    // A pattern matching only routers matches no host.
    let e = load_err(&w("[\"a\", \"r*\"]", "\"b\""));
    assert_names(&e, "workloads[0].src[1]", "pattern 'r*' matches no host");
    let e = load_err(&w("\"a\"", "\"[b\""));
    assert_names(&e, "workloads[0].dst", "bad pattern '[b'");
    let e = load_err(&w("\"a\"", "3"));
    // A parse error inside [[workloads]] names the table (it is selected by `kind`).
    assert_names(&e, "workloads[0]", "expected a node name or pattern, or a list of them");
    // Patterns that do match: every flow a -> b.
    let m = pathpool_sim::load(&w("\"[a]\"", "[\"[b-z]\"]"), pathpool_sim::Format::Toml, &common::source("ok.toml"), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!m.flows.is_empty() && m.flows.iter().all(|f| f.src == 0 && f.dst == 2));
}

#[test]
fn rocketfuel_map_needs_a_data_directory() {
    let text = r#"
[sim]
duration = "1s"
[topology]
kind = "rocketfuel"
map = "data:rocketfuel/maps_cch/3257.cch"
link = { rate = "1Gbps", delay = "1ms" }
"#;
    let src = pathpool_sim::Source { name: "bad.toml".into(), dir: ".".into(), data_dir: None };
    let e = pathpool_sim::load(text, pathpool_sim::Format::Toml, &src, None).err().unwrap().to_string();
    assert_names(&e, "topology.map", "uses data: but no data directory is known");
    let e = load_err(&text.replace("data:rocketfuel/maps_cch/3257.cch", "no-such-map.cch"));
    assert_names(&e, "topology.map", "no-such-map.cch");
}

#[test]
fn applications() {
    // `with` runs for 1 s.
    let app = |extra: &str, app: &str| load_err(&with(&format!("{LINKS}[[flows]]\nsrc = \"a\"\ndst = \"b\"\nclient = \"dst\"\n{extra}app = {app}\n")));
    let e = app("", r#"{ kind = "game" }"#);
    assert_names(&e, "flows[0].app.kind", "unknown kind 'game' (known: download, video, interactive)");
    let e = app("", r#"{ kind = "download", size = "1MB", bitrate = "1Mbps" }"#);
    assert_names(&e, "flows[0].app.bitrate", "applies to kind 'video' only");
    let e = app("", r#"{ kind = "interactive", message = "0B", size = "1MB", count = 0 }"#);
    assert_names(&e, "flows[0].app.message", "needs a positive message size");
    assert_names(&e, "flows[0].app.interval", "needs a positive interval");
    assert_names(&e, "flows[0].app.size", "applies to kind 'download' only");
    assert_names(&e, "flows[0].app.count", "must be at least 1");
    let e = app("", r#"{ kind = "video", bitrate = "1Mbps" }"#);
    assert_names(&e, "flows[0].app.duration", "needs the video's positive duration");
    let e = app("", r#"{ kind = "video", bitrates = [], duration = "1s" }"#);
    assert_names(&e, "flows[0].app.bitrates", "the ladder has no rates");
    let e = app("", r#"{ kind = "video", bitrate = "0Mbps", duration = "1s" }"#);
    assert_names(&e, "flows[0].app.bitrate", "must be positive");
    let e = app("", r#"{ kind = "video", bitrate = "-1Mbps", duration = "1s" }"#);
    assert_names(&e, "flows[0].app.bitrate", "must not be negative");
    let e = app("", r#"{ kind = "video", bitrates = ["2Mbps", "1Mbps"], duration = "1s", segment = "1s", abr = "fixed" }"#);
    assert_names(&e, "flows[0].app.bitrates", "must be in increasing order");
    assert_names(&e, "flows[0].app.abr", "'fixed' plays one bitrate");
    let e = app("", r#"{ kind = "video", bitrate = "1Mbps", duration = "5s" }"#);
    assert_names(&e, "flows[0].app.duration", "the video (5 s) starting at 0 s is longer than the run (1 s)");
    let e = app("", r#"{ kind = "video", bitrate = "1Mbps", duration = "1s", segment = "1s", max_buffer = "4s", low_watermark = "3.5s", start_threshold = "5s", abr = "mpc", safety = 0.5 }"#);
    assert_names(&e, "flows[0].app.low_watermark", "must leave room for one segment (1 s) under max_buffer (4 s)");
    assert_names(&e, "flows[0].app.start_threshold", "must be positive and leave room for one segment (1 s) under max_buffer (4 s)");
    assert_names(&e, "flows[0].app.abr", "unknown abr 'mpc' (known: fixed, bba, throughput)");
    assert_names(&e, "flows[0].app.safety", "applies to abr = 'throughput' only");
    let e = app("size = \"1MB\"\n", r#"{ kind = "download", size = "0B", count = 0 }"#);
    assert_names(&e, "flows[0].app.size", "needs a positive size");
    assert_names(&e, "flows[0].app.count", "must be at least 1");
    assert_names(&e, "flows[0].app", "remove the flow's size");
    let e = load_err(&with(&format!("{LINKS}[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntransport = \"rcp\"\napp = {{ kind = \"download\", size = \"1MB\" }}\n")));
    assert_names(&e, "flows[0].app", "applications run on transports 'tcp' and 'mptcp' only, not 'rcp'");
    assert_names(&e, "flows[0].app", "set client = \"dst\"");
}

/// Names are Unicode text: an unknown node named with a multi-byte
/// character is refused like any other (it once panicked slicing bytes).
#[test]
fn unknown_node_with_a_multibyte_name() {
    let err = load_err(&with("[[links]]\na = \"∞\"\nb = \"r\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n"));
    assert_names(&err, "links[0].a", "unknown node '∞'");
}

/// A trace must be a regular file within its size limit (`/dev/zero` once
/// grew the process past 20 GB).
#[test]
fn a_trace_that_is_a_device_is_refused() {
    let err = load_err(&with(&LINKS.replace("rate = \"10Mbps\"\ndelay = \"1ms\"\n[[links]]", "delay = \"1ms\"\ncapacity = { mahimahi = \"/dev/zero\" }\n[[links]]")));
    assert_names(&err, "links[0]", "is not a regular file");
}

/// Absurd but valid values are refused before anything is expanded, with
/// what would be needed instead.
#[test]
fn absurd_sizes_are_refused_before_allocating() {
    let flow = "[[flows]]\nsrc = \"a\"\ndst = \"b\"\n";
    let err = load_err(&with(&format!("{LINKS}{flow}count = 1000000000\n")));
    assert_names(&err, "flows", "1000000000 flows");
    let err = load_err(&with(&format!("{LINKS}{flow}")).replace("duration = \"1s\"", "duration = \"1s\"\nsample_interval = \"1ns\""));
    assert_names(&err, "sim.sample_interval", "use 0.0000001 s or more");
    let err = load_err(&with(&format!("{LINKS}{flow}")).replace("duration = \"1s\"", "duration = \"1000000000s\""));
    assert_names(&err, "sim.duration", "over the 10000000 s");
    let err = load_err(&with(&format!("{LINKS}{flow}")).replace("duration = \"1s\"", "duration = \"1000000000000s\""));
    assert_names(&err, "sim.duration", "beyond what the clock holds");
}

#[test]
fn delay_schedule_problems_are_named() {
    let link = |delay: &str| with(&format!("[[links]]\na = \"a\"\nb = \"r\"\nrate = \"1Mbps\"\n{delay}\n"));
    let e = load_err(&link("delay = \"-5ms\""));
    assert_names(&e, "links[0].delay", "must not be negative");
    let e = load_err(&link("delay = { schedule = [[\"0s\", \"50ms\"], [\"5s\", \"-10ms\"]] }"));
    assert_names(&e, "links[0].delay.schedule[1][1]", "must not be negative");
    let e = load_err(&link("a_to_b = { delay = { schedule = [[\"0s\", \"50ms\"], [\"5s\", \"10ms\"], [\"2s\", \"20ms\"]] } }\nb_to_a = { delay = \"1ms\" }"));
    assert_names(&e, "links[0].a_to_b.delay.schedule[2]", "step times must increase");
    let e = load_err(&link("delay = { schedule = [[\"1s\", \"50ms\"]] }"));
    assert_names(&e, "links[0].delay.schedule[0]", "the first step must start at time 0");
    let e = load_err(&link("delay = { schedule = [] }"));
    assert_names(&e, "links[0].delay.schedule", "needs at least one step");
    let e = load_err(&link("delay = { schedule = [[\"0s\", \"50ms\"]], ramp = true }"));
    assert_names(&e, "links[0].delay", "unknown field `ramp`");
    let e = load_err(&link("delay = true"));
    assert_names(&e, "links[0].delay", "a duration (such as \"10ms\") or a table");
}

/// A page's objects whose parents form a loop, an unknown object content
/// and a negative object size (the full list is in tests/pages.rs).
#[test]
fn page_problems_are_named() {
    let content = |name: &str, bytes: &str| format!("[[contents]]\nname = \"{name}\"\nbytes = \"{bytes}\"\nmirrors = [\"b\"]\n");
    let contents = content("doc", "10kB") + &content("x", "1kB") + &content("y", "1kB");
    let page = |objects: &str| with(&format!("{LINKS}{contents}[[pages]]\nclient = \"a\"\nobjects = [{objects}]\n"));
    let e = load_err(&page(r#"{ content = "doc" }, { content = "x", after = "y" }, { content = "y", after = "x" }"#));
    assert_names(&e, "pages[0].objects[1].after", "the objects' parents form a loop: x → y → x");
    let e = load_err(&page(r#"{ content = "doc" }, { content = "z" }"#));
    assert_names(&e, "pages[0].objects[1].content", "unknown content 'z' (known: doc, x, y)");
    let e = load_err(&page(r#"{ content = "doc" }"#).replace("bytes = \"1kB\"", "bytes = \"-1kB\""));
    assert_names(&e, "contents[1].bytes", "must not be negative");
}
