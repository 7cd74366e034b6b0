//! DNS on the simulator (docs/dns.md): answer times from the links'
//! parameters, the cache and its TTL, a lost query's retry, NXDOMAIN,
//! answers per client interface, determinism, the Rust lookup API, and bad
//! input refused before the run.

mod common;
use std::cell::RefCell;

use common::{f64s, load_err, run_toml, source, strs, table};
use pathpool_sim::dns::Answer;
use pathpool_sim::world::dns::Lookup;
use pathpool_sim::world::World;
use pathpool_sim::{load, Format, Time};

/// A phone with Wi-Fi (8 Mb/s, 5 ms) and LTE (8 Mb/s, 20 ms) to a router,
/// the operator's resolver 2 ms beyond it at 16 Mb/s, and three mirrors.
const NET: &str = concat!("[sim]\nduration = \"30s\"\n", include_str!("data/dns-phone.toml"));

const RESOLVER: &str = r#"
[[resolvers]]
name = "op"
node = "dns_op"
delay = "3ms"
[resolvers.domains."cdn.example"]
mirrors = ["m1", "m3"]
ttl = "15s"
[resolvers.domains."cdn.example".by_interface]
lte0 = ["m2"]
"#;

const WIFI_BPS: u64 = 8_000_000;
const CORE_BPS: u64 = 16_000_000;
const WIFI_DELAY_NS: u64 = 5_000_000;
const CORE_DELAY_NS: u64 = 2_000_000;
const SERVER_DELAY_NS: u64 = 3_000_000;

/// Wire bytes of a query for a name of `name` encoded bytes: IPv4 20 + UDP 8
/// + DNS header 12 + name + QTYPE/QCLASS 4 (RFC 1035 §4.1.1–4.1.2).
fn query_wire(name: u64) -> u64 {
    20 + 8 + 12 + name + 4
}

/// The answer repeats the question and adds 16 bytes per A record (§4.1.3, with a name pointer).
fn answer_wire(name: u64, records: u64) -> u64 {
    query_wire(name) + 16 * records
}

/// Nanoseconds to send `bytes` at `bps` (the rates here divide exactly).
fn tx(bytes: u64, bps: u64) -> u64 {
    bytes * 8 * 1_000_000_000 / bps
}

/// Store and forward over Wi-Fi and the core link, both ways, plus the server's delay.
fn answer_time_ns(query: u64, answer: u64) -> u64 {
    let one_way = |bytes| tx(bytes, WIFI_BPS) + WIFI_DELAY_NS + tx(bytes, CORE_BPS) + CORE_DELAY_NS;
    one_way(query) + SERVER_DELAY_NS + one_way(answer)
}

/// "cdn.example": 3 cdn 7 example 0.
const CDN_NAME: u64 = 1 + 3 + 1 + 7 + 1;

fn lookup(params: &str) -> String {
    format!("[[controllers]]\nhost = \"phone\"\nkind = \"lookup\"\nsample_interval = 0\nparams = {{ {params} }}\n")
}

fn scenario(extra: &str) -> String {
    format!("{NET}{RESOLVER}{extra}")
}

#[test]
fn the_answer_time_is_propagation_transmission_and_server_delay() {
    let out = run_toml(&scenario(&lookup(r#"resolver = "op", domain = "cdn.example", interface = "wlan0", at = "1s""#)));
    let dns = table(&out, "dns");
    let expected = answer_time_ns(query_wire(CDN_NAME), answer_wire(CDN_NAME, 2));
    assert_eq!(expected, 17_219_000, "5+2+3+2+5 ms and 57 + 89 bytes at 8 and 16 Mb/s");
    assert_eq!(f64s(dns, "query_time_s"), [Time::from_nanos(expected).secs()]);
    assert_eq!(f64s(dns, "time_s"), [(Time::from_secs(1) + Time::from_nanos(expected)).secs()]);
    assert_eq!(strs(dns, "answer"), ["m1,m3"], "the resolver's order");
    assert_eq!((strs(dns, "interface"), strs(dns, "outcome")), (vec!["wlan0".to_string()], vec!["answer".to_string()]));
    assert_eq!((f64s(dns, "ttl_s"), f64s(dns, "retries")), (vec![15.0], vec![0.0]));
    let log = table(&out, "controller_log");
    let i = strs(log, "action").iter().position(|a| a == "resolve").expect("a resolve row");
    assert_eq!((strs(log, "outcome")[i].as_str(), strs(log, "detail")[i].as_str()), ("done", "cdn.example at op over wlan0"));
    // The datagrams crossed Wi-Fi once each way: 57 bytes up, 89 down.
    let ifaces = table(&out, "interfaces");
    let wlan = strs(ifaces, "interface").iter().position(|i| i == "wlan0").unwrap();
    assert_eq!((f64s(ifaces, "bytes_sent")[wlan], f64s(ifaces, "bytes_received")[wlan]), (57.0, 89.0));
}

#[test]
fn a_fresh_answer_comes_from_the_cache_and_an_expired_one_is_asked_again() {
    // Lookups at 1, 11 and 21 s; the answer of 1.017 s lives 15 s.
    let out = run_toml(&scenario(&lookup(r#"resolver = "op", domain = "cdn.example", interface = "wlan0", at = "1s", every = "10s", count = 3"#)));
    let dns = table(&out, "dns");
    assert_eq!(f64s(dns, "retries").len(), 3);
    let rtt = Time::from_nanos(answer_time_ns(query_wire(CDN_NAME), answer_wire(CDN_NAME, 2)));
    let arrived = Time::from_secs(1) + rtt;
    assert_eq!(dns.columns.iter().find(|(n, _)| *n == "from_cache").map(|(_, c)| format!("{c:?}")), Some("Bool([false, true, false])".into()));
    assert_eq!(f64s(dns, "query_time_s"), [rtt.secs(), 0.0, rtt.secs()], "a cache hit sends nothing; an expired entry is asked again");
    let left = Time::from_secs(15) - (Time::from_secs(11) - arrived);
    assert_eq!(f64s(dns, "ttl_s"), [15.0, left.secs(), 15.0], "a cached answer carries what is left of its TTL");
    assert_eq!(strs(dns, "answer"), ["m1,m3"; 3]);
    let ifaces = table(&out, "interfaces");
    let wlan = strs(ifaces, "interface").iter().position(|i| i == "wlan0").unwrap();
    assert_eq!(f64s(ifaces, "packets_sent")[wlan], 2.0, "two queries for three lookups");
}

#[test]
fn a_lost_query_is_sent_again_after_the_timeout() {
    // Wi-Fi is down from 0.5 s to 2 s: the query of 1 s is lost, the resend at 6 s is answered.
    let down = |until: &str| NET.replace(
        "delay = \"5ms\"\n",
        &format!("delay = \"5ms\"\nevents = [{{ at = \"0.5s\", state = \"down\" }}, {{ at = \"{until}\", state = \"up\" }}]\n"),
    );
    let ask = lookup(r#"resolver = "op", domain = "cdn.example", interface = "wlan0", at = "1s""#);
    let out = run_toml(&format!("{}{RESOLVER}{ask}", down("2s")));
    let dns = table(&out, "dns");
    let rtt = answer_time_ns(query_wire(CDN_NAME), answer_wire(CDN_NAME, 2));
    assert_eq!(f64s(dns, "retries"), [1.0]);
    assert_eq!(f64s(dns, "query_time_s"), [(Time::from_secs(5) + Time::from_nanos(rtt)).secs()], "glibc's 5 s timeout, then one answer time");
    assert_eq!(strs(dns, "outcome"), ["answer"]);
    // Down until 20 s: both attempts are lost, and the lookup fails at 1 + 2 × 5 s.
    let out = run_toml(&format!("{}{RESOLVER}{ask}", down("20s")));
    let dns = table(&out, "dns");
    assert_eq!((strs(dns, "outcome"), f64s(dns, "retries"), f64s(dns, "query_time_s")), (vec!["timeout".to_string()], vec![1.0], vec![10.0]));
    assert_eq!(strs(dns, "answer"), [""]);
    // [dns] sets the timeout and attempts.
    let out = run_toml(&format!("{}{RESOLVER}[dns]\ntimeout = \"1s\"\nattempts = 3\n{ask}", down("20s")));
    let dns = table(&out, "dns");
    assert_eq!((f64s(dns, "retries"), f64s(dns, "time_s")), (vec![2.0], vec![4.0]));
}

#[test]
fn a_domain_the_resolver_does_not_serve_is_nxdomain_and_not_cached() {
    let out = run_toml(&scenario(&lookup(r#"resolver = "op", domain = "other.example", interface = "wlan0", at = "1s", every = "1s", count = 2"#)));
    let dns = table(&out, "dns");
    assert_eq!(strs(dns, "outcome"), ["nxdomain", "nxdomain"]);
    assert_eq!(strs(dns, "answer"), ["", ""]);
    // "other.example" is 15 bytes encoded; the answer carries the question and no record.
    let name = 1 + 5 + 1 + 7 + 1;
    let rtt = Time::from_nanos(answer_time_ns(query_wire(name), answer_wire(name, 0))).secs();
    assert_eq!(f64s(dns, "query_time_s"), [rtt, rtt], "a failure is asked again");
    assert_eq!(f64s(dns, "retries"), [0.0, 0.0]);
}

#[test]
fn the_answer_depends_on_the_interface_that_asked() {
    let wifi = lookup(r#"resolver = "op", domain = "cdn.example", interface = "wlan0", at = "1s""#);
    let lte = lookup(r#"resolver = "op", domain = "cdn.example", interface = "lte0", at = "2s""#);
    let routed = lookup(r#"resolver = "op", domain = "cdn.example", at = "3s""#);
    let out = run_toml(&scenario(&format!("{wifi}{lte}{routed}")));
    let dns = table(&out, "dns");
    assert_eq!(strs(dns, "interface"), ["wlan0", "lte0", "wlan0"], "routed: the shortest path leaves by Wi-Fi");
    assert_eq!(strs(dns, "answer"), ["m1,m3", "m2", "m1,m3"]);
    assert_eq!(dns.columns.iter().find(|(n, _)| *n == "from_cache").map(|(_, c)| format!("{c:?}")), Some("Bool([false, false, true])".into()));
    // The answer to LTE came back over LTE.
    let ifaces = table(&out, "interfaces");
    let lte0 = strs(ifaces, "interface").iter().position(|i| i == "lte0").unwrap();
    assert_eq!(f64s(ifaces, "bytes_received")[lte0], answer_wire(CDN_NAME, 1) as f64);
}

#[test]
fn the_same_seed_gives_the_same_lookups() {
    // A lossy core link, TTL 0 (never cached): every lookup crosses it, some retry or fail.
    let text = scenario(&lookup(r#"resolver = "op", domain = "cdn.example", at = "0.1s", every = "0.5s", count = 40"#))
        .replace("ttl = \"15s\"", "ttl = \"0s\"")
        .replace("delay = \"2ms\"\n", "delay = \"2ms\"\nloss = { model = \"bernoulli\", p = 0.3 }\n")
        .replace("duration = \"30s\"", "duration = \"60s\"")
        + "[dns]\ntimeout = \"1s\"\n";
    let (a, b) = (run_toml(&text), run_toml(&text));
    let cols = |o: &pathpool_sim::RunOutput| format!("{:?}", table(o, "dns").columns);
    assert_eq!(cols(&a), cols(&b));
    let dns = table(&a, "dns");
    assert_eq!(strs(dns, "outcome").len(), 40);
    assert!(f64s(dns, "retries").iter().any(|&r| r > 0.0), "some query was lost and sent again");
    assert!(strs(dns, "outcome").iter().all(|o| o == "answer" || o == "timeout"));
}

#[test]
fn runs_without_resolvers_have_no_dns_table_and_unknown_resolvers_are_refused() {
    let out = run_toml(NET);
    assert!(out.tables.iter().all(|t| t.name != "dns"));
    let out = run_toml(&scenario(&lookup(r#"resolver = "nope", domain = "cdn.example", at = "1s""#)));
    let log = table(&out, "controller_log");
    let i = strs(log, "action").iter().position(|a| a == "resolve").unwrap();
    assert_eq!(strs(log, "outcome")[i], "refused: no resolver named 'nope' (declared: op)");
    assert!(f64s(table(&out, "dns"), "retries").is_empty());
}

thread_local! {
    static ANSWERS: RefCell<Vec<Answer>> = const { RefCell::new(Vec::new()) };
}

fn keep(_: &mut World, a: &Answer) {
    ANSWERS.with(|v| v.borrow_mut().push(a.clone()));
}

#[test]
fn other_code_looks_names_up_through_the_world() {
    let model = load(&scenario(""), Format::Toml, &source("api.toml"), None).unwrap();
    let mut world = World::new(&model);
    world.duration = Time::from_secs(1);
    world.run(&mut |_| {});
    let ask = |resolver: &str, interface| Lookup { host: 0, resolver: resolver.into(), domain: "cdn.example".into(), interface, token: 42 };
    world.resolve(ask("op", None), keep).unwrap();
    assert_eq!(world.resolve(ask("nope", None), keep).unwrap_err(), "no resolver named 'nope' (declared: op)");
    assert_eq!(world.resolve(ask("op", Some(9)), keep).unwrap_err(), "phone has no interface 9");
    world.duration = Time::from_secs(2);
    world.run(&mut |_| {});
    world.resolve(ask("op", None), keep).unwrap();
    world.duration = Time::from_secs(3);
    world.run(&mut |_| {});
    let got = ANSWERS.with(|v| v.take());
    let rtt = Time::from_nanos(answer_time_ns(query_wire(CDN_NAME), answer_wire(CDN_NAME, 2)));
    assert_eq!(got.len(), 2);
    let (m1, m3) = (3, 5);
    assert_eq!((got[0].token, got[0].mirrors.clone(), got[0].elapsed, got[0].from_cache), (42, vec![m1, m3], rtt, false));
    assert_eq!((got[1].from_cache, got[1].asked, got[1].ttl), (true, Time::from_secs(2), Time::from_secs(15) - (Time::from_secs(1) - rtt)));
}

#[test]
fn bad_resolvers_are_refused_before_the_run() {
    let check = |extra: &str, field: &str, what: &str| {
        let err = load_err(&format!("{NET}{extra}"));
        assert!(err.starts_with("bad.toml: "), "no file name in: {err}");
        assert!(err.contains(field) && err.contains(what), "no '{field}' / '{what}' in: {err}");
    };
    let one = |node: &str, mirrors: &str, more: &str| {
        format!("[[resolvers]]\nnode = \"{node}\"\n{more}[resolvers.domains.\"cdn.example\"]\nmirrors = {mirrors}\nttl = \"30s\"\n")
    };
    check(&one("dns_opp", r#"["m1"]"#, ""), "resolvers[0].node", "unknown node 'dns_opp'");
    check(&one("dns_op", r#"["m1", "m9"]"#, ""), "resolvers[0].domains.\"cdn.example\".mirrors[1]", "unknown node 'm9'");
    check(&one("dns_op", r#"["r"]"#, ""), "mirrors[0]", "'r' is a router");
    check(&one("dns_op", "[]", ""), "mirrors", "needs at least one mirror");
    check(&one("dns_op", r#"["m1"]"#, "delay = \"-3ms\"\n"), "resolvers[0].delay", "must not be negative");
    check(&one("dns_op", r#"["m1"]"#, "").replace("ttl = \"30s\"", "ttl = -1"), "ttl", "must not be negative");
    check(&one("dns_op", r#"["m1"]"#, "").replace("ttl = \"30s\"", "ttl = \"30s\"\nttl_s = 3"), "resolvers[0]", "unknown field `ttl_s`");
    check(&one("dns_op", r#"["m1"]"#, "colour = \"red\"\n"), "resolvers[0]", "unknown field `colour`");
    check(&one("dns_op", r#"["m1"]"#, "").replace("cdn.example", "cdn..example"), "domains", "is not a domain name");
    check(&(one("dns_op", r#"["m1"]"#, "") + "by_interface = { wlan9 = [\"m2\"] }\n"), "by_interface.wlan9", "no host has an interface named 'wlan9'");
    check(&(one("dns_op", r#"["m1"]"#, "") + &one("dns_op", r#"["m1"]"#, "")), "resolvers[1].name", "another resolver is named 'dns_op'");
    check(&(one("dns_op", r#"["m1"]"#, "") + "[dns]\nattempts = 0\n"), "dns.attempts", "must be 1 to 5");
    check(&lookup(r#"domain = "cdn.example", interface = "wlan9""#), "controllers[0].params", "required: the name of a [[resolvers]] entry");
    check(&lookup(r#"resolver = "op", domain = "cdn.example", interface = "wlan9""#), "controllers[0].params.interface", "'wlan9' is not an interface of phone");
}
