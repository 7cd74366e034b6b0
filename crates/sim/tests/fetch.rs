//! Fetch sessions (`[[contents]]`, `[[fetches]]`, docs/apps.md): byte-range
//! requests over several connections to several mirrors, moved between them
//! at request boundaries by the default policy or a controller.
//!
//! The network: the phone's wlan0 (10 Mb/s, 5 ms) and lte0 (10 Mb/s, 20 ms)
//! reach a core router over 1 ms links; mirror m1 is 5 ms and m2 10 ms from
//! the core at 100 Mb/s. Round trips: phone–m1 over wlan0 2·(5 + 1 + 5) =
//! 22 ms; phone–m2 over lte0 2·(20 + 1 + 10) = 62 ms.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{f64s, load_err, run_toml, source, strs, table};
use pathpool_sim::app::fetch::Ask;
use pathpool_sim::net::family::Family;
use pathpool_sim::control::{Action, Attached, ConnId, Controller, Event, View};
use pathpool_sim::world::World;
use pathpool_sim::{load, Format, Model, Time};

/// The phone, two mirrors and the 4 MB content they serve.
const NET: &str = concat!(
    "[sim]\nduration = \"20s\"\n",
    include_str!("data/phone-two-mirrors.toml"),
    "[[contents]]\nname = \"movie\"\nbytes = \"4MB\"\nmirrors = [\"m1\", \"m2\"]\n"
);

fn model(text: &str) -> Model {
    load(text, Format::Toml, &source("fetch.toml"), None).unwrap_or_else(|e| panic!("{e}"))
}

fn fetch(extra: &str) -> String {
    format!("{NET}[[fetches]]\nname = \"dl\"\nclient = \"phone\"\ncontent = \"movie\"\n{extra}\n")
}

/// Every content byte once: the range requests, sorted by offset, tile [0, total).
fn assert_tiled(requests: &[(u64, u64)], total: u64) {
    let mut r = requests.to_vec();
    r.sort();
    let mut at = 0;
    for (off, len) in r {
        assert_eq!(off, at, "a gap or an overlap at {at}");
        at += len;
    }
    assert_eq!(at, total);
}

#[test]
fn one_connection_downloads_as_fast_as_the_same_download_on_one_flow() {
    // The single-flow download of the same 4 MB from m1 over wlan0 (the shortest path).
    let single = run_toml(&format!("{NET}[[flows]]\nsrc = \"m1\"\ndst = \"phone\"\nclient = \"dst\"\napp = {{ kind = \"download\", size = \"4MB\" }}\n"));
    let single_s = f64s(table(&single, "apps"), "completion_s")[0];
    let out = run_toml(&fetch(""));
    let t = table(&out, "fetches");
    assert_eq!(f64s(t, "bytes"), [4e6]);
    assert_eq!(f64s(t, "connections"), [1.0], "the default policy opens one connection");
    let whole = f64s(t, "completion_s")[0];
    assert!((whole - single_s).abs() / single_s < 0.002, "one 4 MB range: {whole} s, the download: {single_s} s");
    let r = table(&out, "fetch_requests");
    assert_eq!((strs(r, "mirror"), strs(r, "interface")), (vec!["m1".to_string()], vec!["wlan0".to_string()]));
    // The flows table has the session's candidate connections, m1 over wlan0 the only one started.
    let flows = table(&out, "flows");
    assert_eq!(strs(flows, "name"), ["dl/m1/wlan0", "dl/m1/lte0", "dl/m2/wlan0", "dl/m2/lte0"]);

    // In 1 MB ranges, one at a time, each of the three boundaries costs a
    // round trip (22 ms, and the request's serialization) of idle link; two
    // outstanding hide it. (Queues hold a whole window here: without
    // congestion-window validation, RFC 7661, a sender resumes after idle
    // with a full window's burst, which 100-packet queues would drop.)
    for (pipeline, least, most) in [(1, 3.0 * 0.022, 3.0 * 0.023), (2, 0.0, 0.001)] {
        let out = run_toml(&fetch(&format!("chunk = \"1MB\"\npipeline = {pipeline}")));
        let t = table(&out, "fetches");
        let s = f64s(t, "completion_s")[0];
        assert_eq!(f64s(t, "requests"), [4.0]);
        assert!(s - whole >= least && s - whole < most, "pipeline {pipeline}: {s} s against {whole} s");
        let r = table(&out, "fetch_requests");
        let ranges: Vec<(u64, u64)> = f64s(r, "offset").iter().zip(f64s(r, "bytes")).map(|(&o, b)| (o as u64, b as u64)).collect();
        assert_tiled(&ranges, 4_000_000);
    }
}

#[test]
fn the_preferred_interface_chooses_the_default_connection() {
    let out = run_toml(&fetch("prefer = \"lte0\""));
    let r = table(&out, "fetch_requests");
    assert_eq!((strs(r, "mirror"), strs(r, "interface")), (vec!["m1".to_string()], vec!["lte0".to_string()]));
}

/// A test policy: at the session's start it opens m2 over lte0; once
/// `steer_after` bytes arrived and that connection is up, it steers the
/// session there, then closes the first connection once its last response
/// is in; with `probe`, it probes the second connection once it is up.
struct Mover {
    steer_after: u64,
    probe: bool,
    steered: Option<Time>,
    closed: bool,
    probes: Rtts,
}

/// The probe RTTs a test policy heard.
type Rtts = Rc<RefCell<Vec<Time>>>;

impl Controller for Mover {
    fn on_event(&mut self, now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        let Some(s) = view.sessions.first() else { return };
        let second = |v: &View| -> Option<ConnId> {
            v.connections.iter().find(|c| c.fetch.as_ref().is_some_and(|f| f.mirror == "m2" && f.local_interface == 1)).map(|c| c.id)
        };
        match event {
            Event::SessionStarted { session } => {
                out.push(Action::OpenConnection { session: *session, mirror: "m2".into(), local_interface: 1, family: Family::V4 });
            }
            Event::ConnectionEstablished { conn } if Some(*conn) == second(view) && self.probe => {
                out.push(Action::Probe { conn: *conn, request_bytes: 100, response_bytes: 100 });
            }
            Event::ProbeResult { rtt, .. } => self.probes.borrow_mut().push(*rtt),
            Event::RequestCompleted { .. } | Event::ConnectionEstablished { .. } => {
                let first = s.connections[0];
                if let (None, Some(to)) = (self.steered, second(view)) {
                    let up = view.connection(to).is_some_and(|c| c.established);
                    if s.bytes_done >= self.steer_after && up {
                        self.steered = Some(now);
                        // Closing the current connection is refused: steer first.
                        out.push(Action::CloseConnection { conn: first });
                        out.push(Action::Steer { session: s.id, conn: to, resume: false });
                    }
                }
                let idle = view.connection(first).and_then(|c| c.fetch.as_ref()).is_some_and(|f| f.pending == 0);
                if self.steered.is_some() && !self.closed && idle && s.current != Some(first) {
                    self.closed = true;
                    out.push(Action::CloseConnection { conn: first });
                }
            }
            _ => {}
        }
    }
}

fn with_mover(m: &Model, steer_after: u64, probe: bool) -> (World<'_>, Rtts) {
    let probes = Rtts::default();
    let mover = Mover { steer_after, probe, steered: None, closed: false, probes: probes.clone() };
    let attached = Attached { host: 0, name: "mover".into(), controller: Box::new(mover), sample_interval: Time::ZERO, reaction_delay: Time::ZERO };
    (World::with_controllers(m, vec![attached]), probes)
}

#[test]
fn a_steer_moves_the_next_requests_and_every_byte_arrives_once() {
    let m = model(&fetch("chunk = \"500kB\"\npipeline = 2"));
    let (mut w, _) = with_mover(&m, 1_500_000, false);
    w.run(&mut |_| {});
    let f = &w.sessions[0].fetch;
    assert_eq!((f.bytes_done(), f.remaps), (4_000_000, 1));
    assert!(f.finished_at.is_some());
    let (first, second) = (m.fetches[0].candidates[0].flow, m.fetches[0].candidates[3].flow);
    let steer = w.ctl.log.rows.iter().find(|r| r.action == "steer").expect("a steer").time;
    let ranges: Vec<(u64, u64)> = f
        .requests
        .iter()
        .filter_map(|r| match r.ask {
            Ask::Range { off } => Some((off, r.len)),
            Ask::Probe => None,
        })
        .collect();
    assert_tiled(&ranges, 4_000_000);
    for r in &f.requests {
        let expected = if r.sent_at < steer { first } else { second };
        assert_eq!(r.conn, expected, "a request sent at {} s", r.sent_at.secs());
    }
    assert!(f.requests.iter().any(|r| r.conn == first && r.done_at.unwrap() > steer), "a request under way finished on the first connection");
    // Refused while current, closed once its last response was in.
    let closes: Vec<(&str, f64)> = w.ctl.log.rows.iter().filter(|r| r.action == "close_connection").map(|r| (r.outcome.as_str(), r.time.secs())).collect();
    assert_eq!(closes[0], (format!("refused: {}", pathpool_sim::control::action::CURRENT_CONNECTION).as_str(), steer.secs()));
    assert_eq!(closes[1].0, "done");
    let last_on_first = f.requests.iter().filter(|r| r.conn == first).filter_map(|r| r.done_at).max().unwrap();
    assert_eq!(closes[1].1, last_on_first.secs());
    assert!(w.view(0).connections.iter().all(|c| c.id != first), "a closed connection leaves the view");
}

#[test]
fn a_probe_on_an_idle_connection_measures_the_paths_round_trip() {
    let m = model(&fetch("chunk = \"1MB\""));
    let (mut w, probes) = with_mover(&m, u64::MAX, true);
    w.run(&mut |_| {});
    // 62 ms of propagation, plus a 152-byte packet's serialization each way
    // on one 10 Mb/s and two 100 Mb/s links: 2 · (121.6 + 2 · 12.16) µs.
    let expected = 0.062 + 2.0 * (152.0 * 8.0 / 10e6 + 2.0 * 152.0 * 8.0 / 100e6);
    let probes = probes.borrow();
    assert_eq!(probes.len(), 1);
    assert!((probes[0].secs() - expected).abs() < 1e-4, "probe RTT {} s, path {expected} s", probes[0].secs());
    let second = m.fetches[0].candidates[3].flow;
    let view = w.view(0);
    let c = view.connection(second).and_then(|c| c.fetch.clone()).expect("the probed connection");
    assert!((c.min_rtt.unwrap().secs() - 0.062).abs() < 1e-3, "handshake and probe: {:?}", c.min_rtt);
    let t = w.fetch_tables();
    assert_eq!((f64s(&t[0], "probes"), f64s(&t[0], "probe_bytes")), (vec![1.0], vec![200.0]));
    assert_eq!(f64s(&t[0], "bytes"), [4e6], "a probe carries no content");
    assert!(strs(&t[1], "kind").contains(&"probe".to_string()));
}

#[test]
fn a_controller_session_waits_for_a_steer() {
    let m = model(&fetch("policy = \"controller\""));
    let mut w = World::new(&m);
    w.run(&mut |_| {});
    assert_eq!((w.sessions[0].fetch.requests.len(), w.flows.iter().filter(|f| f.started).count()), (0, 0));
}

#[test]
fn runs_are_deterministic() {
    let text = fetch("chunk = \"300kB\"\npipeline = 3");
    let (a, b) = (run_toml(&text), run_toml(&text));
    assert_eq!(a.summary, b.summary);
    for name in ["fetches", "fetch_requests", "flows"] {
        assert_eq!(format!("{:?}", table(&a, name)), format!("{:?}", table(&b, name)));
    }
}

#[test]
fn bad_fetches_are_refused_naming_the_field() {
    let cases = [
        (NET.replace("mirrors = [\"m1\", \"m2\"]", "mirrors = []"), "", "contents[0].mirrors", "needs at least one mirror"),
        (NET.replace("mirrors = [\"m1\", \"m2\"]", "mirrors = [\"m1\", \"m9\"]"), "", "contents[0].mirrors[1]", "unknown node 'm9'"),
        (NET.replace("mirrors = [\"m1\", \"m2\"]", "mirrors = [\"core\"]"), "", "contents[0].mirrors[0]", "is a router"),
        (NET.to_string(), "chunk = \"0B\"", "fetches[0].chunk", "must be positive"),
        (NET.to_string(), "chunk = \"5MB\"", "fetches[0].chunk", "at most the content's 4000000 bytes"),
        (NET.to_string(), "prefer = \"eth9\"", "fetches[0].prefer", "'eth9' is not an interface of 'phone'"),
        (NET.to_string(), "pipeline = 0", "fetches[0].pipeline", "must be at least 1"),
        (NET.to_string(), "policy = \"pat\"", "fetches[0].policy", "unknown policy 'pat'"),
    ];
    for (net, extra, field, what) in cases {
        let text = format!("{net}[[fetches]]\nclient = \"phone\"\ncontent = \"movie\"\n{extra}\n");
        let err = load_err(&text);
        assert!(err.contains("bad.toml") && err.contains(field) && err.contains(what), "{field}: {what}\n{err}");
    }
    let err = load_err(&format!("{NET}[[fetches]]\nclient = \"phone\"\ncontent = \"song\"\n"));
    assert!(err.contains("fetches[0].content") && err.contains("unknown content 'song' (known: movie)"), "{err}");
    // m3 hangs off host m1, and hosts do not relay.
    let island = format!(
        "{}[[nodes]]\nname = \"m3\"\n[[links]]\na = \"m1\"\nb = \"m3\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n[[fetches]]\nclient = \"phone\"\ncontent = \"movie\"\n",
        NET.replace("mirrors = [\"m1\", \"m2\"]", "mirrors = [\"m1\", \"m3\"]")
    );
    let err = load_err(&island);
    assert!(err.contains("fetches[0].content") && err.contains("mirror 'm3' of 'movie' is unreachable from every interface of 'phone'"), "{err}");
}
