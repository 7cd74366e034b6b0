//! IPv6 on the simulator (`[[links]] families`, docs/scenario.md): the
//! 20 more header bytes and the smaller MSS of an IPv6 connection, AAAA
//! lookups from a dual-stack host, PAT's connections per (mirror,
//! interface, family), the default policy over IPv6, and what is refused.
//!
//! The network: the phone's wlan0 (10 Mb/s, 5 ms; IPv4 and IPv6) and lte0
//! (10 Mb/s, 20 ms; IPv4 only) reach a core router over 1 ms links (the
//! Wi-Fi side's dual-stack); mirror m1 is dual-stack, 5 ms from the core,
//! m2 IPv4 only, 10 ms; the resolver answers m2, m1 in that order.

mod common;

use common::{f64s, load_err, mirrors_behind_dns, run_toml, strs, table};
use pathpool_sim::RunOutput;

const V6: &str = "families = [\"v4\", \"v6\"]\n";

/// The fetch tests' network (`data/phone-two-mirrors.toml`) and the
/// resolver's node (`data/dns-core.toml`), with IPv6 on Wi-Fi, the Wi-Fi
/// router's core link and m1's link, each if its flag is set.
fn net_with(content_bytes: u64, [wifi, core, m1]: [bool; 3]) -> String {
    let mut topology = include_str!("data/phone-two-mirrors.toml").to_string();
    for (on, link) in [(wifi, "a = \"phone:wlan0\"\n"), (core, "a = \"wr\"\nb = \"core\"\n"), (m1, "a = \"core\"\nb = \"m1\"\n")] {
        assert_eq!(topology.matches(link).count(), 1, "{link:?} is one link of the template");
        if on {
            topology = topology.replace(link, &format!("{link}{V6}"));
        }
    }
    mirrors_behind_dns("30s", &topology, r#"["m2", "m1"]"#, &content_bytes.to_string())
}

fn net(content_bytes: u64) -> String {
    net_with(content_bytes, [true; 3])
}

fn fetch(extra: &str) -> String {
    format!("[[fetches]]\nname = \"dl\"\nclient = \"phone\"\ncontent = \"movie\"\n{extra}")
}

fn wlan_received(out: &RunOutput) -> f64 {
    let ifaces = table(out, "interfaces");
    let k = strs(ifaces, "interface").iter().position(|i| i == "wlan0").expect("wlan0");
    f64s(ifaces, "bytes_received")[k]
}

/// The bytes of the resolver's two answers over wlan0, with no EDNS(0)
/// (RFC 1035 §4.1, RFC 3596 §2.2): A for m2, m1 (20 + 8 + 29 + 2 × 16 =
/// 89), AAAA for m1 only (20 + 8 + 29 + 28 = 85).
const ANSWERS_WIRE: f64 = 89.0 + 85.0;

#[test]
fn an_ipv6_download_has_1428_byte_segments_of_72_header_bytes() {
    // 1000 × 1428 bytes from m1 over wlan0, in one request.
    let bytes = 1_428_000;
    let v6 = run_toml(&format!("{}{}", net(bytes), fetch("prefer = \"wlan0\"\nfamily = \"v6\"\n")));
    let r = table(&v6, "fetch_requests");
    assert_eq!((strs(r, "mirror"), strs(r, "family")), (vec!["m1".to_string()], vec!["v6".to_string()]), "m2 has no AAAA record");
    assert_eq!(f64s(table(&v6, "fetches"), "bytes"), [bytes as f64]);
    // MSS 1500 − 40 − 20 (RFC 8200 §8.3) less the 12 bytes of timestamps:
    // 1428-byte segments of 1500 bytes on the wire, and a 72-byte SYN.
    assert_eq!(wlan_received(&v6), 1000.0 * 1500.0 + 72.0 + ANSWERS_WIRE);
    // The same download over IPv4 (m2's A record comes first): 986 full
    // 1448-byte segments, one of 272, each with 52 header bytes, and a 52-byte SYN.
    let v4 = run_toml(&format!("{}{}", net(bytes), fetch("prefer = \"wlan0\"\n")));
    let r = table(&v4, "fetch_requests");
    assert_eq!((strs(r, "mirror"), strs(r, "family")), (vec!["m2".to_string()], vec!["v4".to_string()]));
    assert_eq!(wlan_received(&v4), 986.0 * 1500.0 + (272.0 + 52.0) + 52.0 + ANSWERS_WIRE);
}

#[test]
fn ipv6_goodput_is_the_payload_share_of_the_wire() {
    // A 12 MB download over Wi-Fi (10 Mb/s) from m1 over each family: the
    // bottleneck carries 1500-byte packets, so the payload rate is
    // 10 Mb/s × 1428/1500 over IPv6 and × 1448/1500 over IPv4; the
    // download times differ by the extra wire bytes at 10 Mb/s. A 100 kB
    // receive buffer (about 70 segments, over the 20 of the path's
    // bandwidth-delay product) keeps the bottleneck busy without filling
    // its queue: no loss, the same packet timing under both families.
    let bytes = 12_000_000u64;
    let one_mirror = |n: String| n.replace("mirrors = [\"m2\", \"m1\"]", "mirrors = [\"m1\"]");
    let time = |family: &str| {
        let session = format!("prefer = \"wlan0\"\nfamily = \"{family}\"\ntcp = {{ rcv_buffer = \"100kB\" }}\n");
        let out = run_toml(&format!("{}{}", one_mirror(net(bytes)), fetch(&session)));
        f64s(table(&out, "fetches"), "completion_s")[0]
    };
    let (t4, t6) = (time("v4"), time("v6"));
    let wire = |payload: f64| (bytes as f64 / payload).ceil() * 1500.0 * 8.0 / 10e6;
    let expected = wire(1428.0) - wire(1448.0);
    assert!((t6 - t4 - expected).abs() < 0.002, "v6 {t6} s, v4 {t4} s: {:.4} s apart, the extra headers take {expected:.4} s", t6 - t4);
}

#[test]
fn a_dual_stack_host_asks_aaaa_and_a_together_and_waits_for_both() {
    // The DNS tests' phone network (docs/dns.md's 17.219 ms for A alone),
    // with Wi-Fi and m1 dual-stack.
    let net = include_str!("data/dns-phone.toml").replacen("delay = \"5ms\"\n", &format!("delay = \"5ms\"\n{V6}"), 1).replace("b = \"m1\"\n", &format!("b = \"m1\"\n{V6}"));
    let resolver = "[[resolvers]]\nname = \"op\"\nnode = \"dns_op\"\ndelay = \"3ms\"\n[resolvers.domains.\"cdn.example\"]\nmirrors = [\"m1\", \"m3\"]\nttl = \"15s\"\n";
    let lookup = "[[controllers]]\nhost = \"phone\"\nkind = \"lookup\"\nsample_interval = 0\nparams = { resolver = \"op\", domain = \"cdn.example\", interface = \"wlan0\", at = \"1s\" }\n";
    let out = run_toml(&format!("[sim]\nduration = \"5s\"\n{net}{resolver}{lookup}"));
    let dns = table(&out, "dns");
    assert_eq!((strs(dns, "answer"), strs(dns, "answer_v6")), (vec!["m1,m3".to_string()], vec!["m1".to_string()]));
    // AAAA then A, 57 bytes each, back to back over Wi-Fi (8 Mb/s, 5 ms)
    // and the core (16 Mb/s, 2 ms); 3 ms at the resolver; the AAAA answer
    // (85 bytes) comes back first and the A answer (89 bytes) waits behind
    // it on Wi-Fi. In µs: A query at the resolver 114 + 5000 + 28.5 + 2000
    // = 7142.5; its answer leaves at 10142.5, reaches the router at
    // 10142.5 + 44.5 + 2000 = 12187, where Wi-Fi is busy with the AAAA
    // answer until 7085.5 + 3000 + 42.5 + 2000 + 85 = 12213; then 89 + 5000.
    let expected = 12_213.0 + 89.0 + 5_000.0;
    let got = f64s(dns, "query_time_s")[0] * 1e6;
    assert!((got - expected).abs() < 1e-3, "{got} µs, expected {expected} µs");
    let ifaces = table(&out, "interfaces");
    let wlan = strs(ifaces, "interface").iter().position(|i| i == "wlan0").unwrap();
    assert_eq!((f64s(ifaces, "bytes_sent")[wlan], f64s(ifaces, "bytes_received")[wlan]), (2.0 * 57.0, 85.0 + 89.0));
}

/// Queries the resolver's node received.
fn queries(out: &RunOutput) -> f64 {
    let ifaces = table(out, "interfaces");
    let k = strs(ifaces, "node").iter().position(|n| n == "dns").expect("the resolver's interface");
    f64s(ifaces, "packets_received")[k]
}

#[test]
fn a_host_without_ipv6_asks_a_only_and_results_keep_their_columns() {
    let out = run_toml(&format!("{}{}", net_with(1_000_000, [false; 3]), fetch("")));
    let dns = table(&out, "dns");
    assert!(!dns.columns.iter().any(|(n, _)| *n == "answer_v6"), "no IPv6 in the scenario: the IPv4-only table");
    assert!(!table(&out, "fetch_requests").columns.iter().any(|(n, _)| *n == "family"));
    assert_eq!(strs(dns, "answer"), ["m2,m1"]);
    assert_eq!(queries(&out), 1.0, "one A query, no AAAA (AI_ADDRCONFIG)");
    assert_eq!(strs(table(&out, "fetch_requests"), "mirror"), ["m2"]);
    // The same scenario with a dual-stack phone: AAAA and A.
    let out = run_toml(&format!("{}{}", net(1_000_000), fetch("")));
    assert_eq!(queries(&out), 2.0);
    assert_eq!(strs(table(&out, "fetch_requests"), "mirror"), ["m2"], "the default policy stays on IPv4 and the A answer's first");
}

const PAT: &str = "[[controllers]]\nhost = \"phone\"\nkind = \"pat\"\n[controllers.params]\nresolvers = \"local\"\n";

#[test]
fn pat_connects_over_ipv4_and_ipv6_where_both_ends_have_it() {
    let out = run_toml(&format!("{}{}policy = \"controller\"\nchunk = \"1MB\"\n{PAT}", net(8_000_000), fetch("")));
    let flows = table(&out, "flows");
    let (names, start) = (strs(flows, "name"), f64s(flows, "start_s"));
    let mut opened: Vec<&str> = names.iter().zip(&start).filter(|(_, s)| s.is_finite()).map(|(n, _)| n.as_str()).collect();
    opened.sort();
    // m1 over wlan0 over both families; m1 over lte0 and m2 over IPv4 only
    // (lte0's link and m2's have no IPv6; m2 has no AAAA record).
    assert_eq!(opened, ["dl/m1/lte0", "dl/m1/wlan0", "dl/m1/wlan0/v6", "dl/m2/lte0", "dl/m2/wlan0"]);
    let f = table(&out, "fetches");
    assert_eq!((f64s(f, "connections"), f64s(f, "bytes")), (vec![5.0], vec![8e6]));
    // Two lookups (one per interface), each AAAA and A: m1 is in the AAAA answers.
    assert_eq!(strs(table(&out, "dns"), "answer_v6"), ["m1", "m1"]);
    // Every open was one the network carries: none refused.
    let log = table(&out, "controller_log");
    let (action, outcome, detail) = (strs(log, "action"), strs(log, "outcome"), strs(log, "detail"));
    let opens: Vec<(&str, &str)> = (0..action.len()).filter(|&i| action[i] == "open_connection").map(|i| (outcome[i].as_str(), detail[i].as_str())).collect();
    assert_eq!(opens.len(), 5, "{opens:?}");
    assert!(opens.iter().all(|o| o.0 == "done"), "{opens:?}");
    assert_eq!(opens.iter().filter(|o| o.1.ends_with("(v6)")).map(|o| o.1).collect::<Vec<_>>(), ["session 0: m1 over local 0 (v6)"]);
    // The IPv6 connection was probed and its requests carry its family.
    let r = table(&out, "fetch_requests");
    assert!(strs(r, "family").iter().zip(strs(r, "kind")).any(|(f, k)| f == "v6" && k == "probe"), "no probe over IPv6");
}

#[test]
fn ipv6_mistakes_are_refused_before_the_run() {
    let base = net(1_000_000);
    let e = load_err(&base.replacen(V6, "families = [\"v4\", \"v7\"]\n", 1));
    assert!(e.contains("links[0].families") && e.contains("unknown family 'v7' (known: v4, v6)"), "{e}");
    let e = load_err(&base.replacen(V6, "families = [\"v6\"]\n", 1));
    assert!(e.contains("links[0].families") && e.contains("must include \"v4\""), "{e}");
    let e = load_err(&base.replacen(V6, "mtu = 1200\nfamilies = [\"v4\", \"v6\"]\n", 1));
    assert!(e.contains("links[0].families") && e.contains("at least 1280 bytes (RFC 8200 §5)"), "{e}");
    // IPv6 asked over an interface whose link carries IPv4 only.
    let e = load_err(&format!("{base}{}", fetch("prefer = \"lte0\"\nfamily = \"v6\"\n")));
    assert!(e.contains("fetches[0].family") && e.contains("over 'lte0' of 'phone', whose link 'phone-lr' carries IPv4 only"), "{e}");
    // A v6 download of a content none of whose mirrors has IPv6.
    let v6_download = fetch("prefer = \"wlan0\"\nfamily = \"v6\"\n");
    let e = load_err(&format!("{}{v6_download}", net_with(1_000_000, [true, true, false])));
    assert!(e.contains("fetches[0].family") && e.contains("no mirror of 'movie' has an IPv6 address (m1, m2)"), "{e}");
    // A dual-stack mirror behind a core link without IPv6.
    let e = load_err(&format!("{}{v6_download}", net_with(1_000_000, [true, false, true])));
    assert!(e.contains("fetches[0].family") && e.contains("reachable over IPv6 from 'wlan0' (a link on the way carries IPv4 only)"), "{e}");
    let e = load_err(&format!("{base}{}", fetch("family = \"ipv6\"\n")));
    assert!(e.contains("fetches[0].family") && e.contains("unknown family 'ipv6'"), "{e}");
    let e = load_err(&format!("{base}{}", fetch("policy = \"controller\"\nfamily = \"v6\"\n")));
    assert!(e.contains("fetches[0].family") && e.contains("applies to policy \"default\" only"), "{e}");
}
