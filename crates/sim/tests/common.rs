//! Shared helpers for the simulator's integration tests.

// Each test file uses a subset of these helpers.
#![allow(dead_code)]

use pathpool_sim::metrics::{Column, Table};
use pathpool_sim::{load, run, Format, RunOutput, Source};

pub fn source(name: &str) -> Source {
    Source {
        name: name.into(),
        dir: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        data_dir: shared_data(),
    }
}

/// `../shared/data` beside the repository, where the team's real traces live.
pub fn shared_data() -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    p.is_dir().then_some(p)
}

/// The PAT and IPv6 tests' scenario: `topology` (`data/phone-two-mirrors.toml`,
/// possibly edited) with the resolver's node (`data/dns-core.toml`), the
/// resolver `local` answering `cdn.example` with `answer` (a TOML array of
/// mirrors, in order) and the content `movie` of `bytes` (a TOML value) on
/// m1 and m2 under that domain.
pub fn mirrors_behind_dns(duration: &str, topology: &str, answer: &str, bytes: &str) -> String {
    format!(
        r#"[sim]
duration = "{duration}"
{topology}{}[[resolvers]]
name = "local"
node = "dns"
[resolvers.domains."cdn.example"]
mirrors = {answer}
ttl = "60s"
[[contents]]
name = "movie"
bytes = {bytes}
mirrors = ["m1", "m2"]
domain = "cdn.example"
"#,
        include_str!("data/dns-core.toml")
    )
}

/// Runs a TOML scenario and checks packet conservation, as every test must.
pub fn run_toml(text: &str) -> RunOutput {
    let model = load(text, Format::Toml, &source("test.toml"), None).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&model, &mut |_| {});
    assert_conserved(&out);
    out
}

pub fn assert_conserved(out: &RunOutput) {
    let p = &out.summary["packets"];
    let (sent, delivered, dropped, in_flight) = (
        p["sent"].as_u64().unwrap(),
        p["delivered"].as_u64().unwrap(),
        p["dropped"].as_u64().unwrap(),
        p["in_flight"].as_u64().unwrap(),
    );
    assert_eq!(sent, delivered + dropped + in_flight, "packet conservation: {p}");
}

pub fn table<'a>(out: &'a RunOutput, name: &str) -> &'a Table {
    out.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}"))
}

pub fn f64s(t: &Table, col: &str) -> Vec<f64> {
    match &t.columns.iter().find(|(n, _)| *n == col).unwrap_or_else(|| panic!("no column {col}")).1 {
        Column::F64(v) => v.clone(),
        Column::U64(v) => v.iter().map(|&x| x as f64).collect(),
        Column::U32(v) => v.iter().map(|&x| x as f64).collect(),
        Column::OptF64(v) => v.iter().map(|x| x.unwrap_or(f64::NAN)).collect(),
        Column::OptU64(v) => v.iter().map(|x| x.map_or(f64::NAN, |y| y as f64)).collect(),
        other => panic!("column {col} is not numeric: {other:?}"),
    }
}

/// A text column's values.
pub fn strs(t: &Table, col: &str) -> Vec<String> {
    match &t.columns.iter().find(|(n, _)| *n == col).unwrap_or_else(|| panic!("no column {col}")).1 {
        Column::Str(v) => v.clone(),
        other => panic!("column {col} is not text: {other:?}"),
    }
}

/// Mean goodput of one flow over [from, to] seconds, from the flow_ts samples.
pub fn mean_goodput(out: &RunOutput, flow: u32, from: f64, to: f64) -> f64 {
    let ts = table(out, "flow_ts");
    let (t, id, g) = (f64s(ts, "time_s"), f64s(ts, "flow_id"), f64s(ts, "goodput_bps"));
    let v: Vec<f64> = (0..t.len()).filter(|&i| id[i] as u32 == flow && t[i] > from && t[i] <= to).map(|i| g[i]).collect();
    v.iter().sum::<f64>() / v.len() as f64
}

pub fn load_err(text: &str) -> String {
    match load(text, Format::Toml, &source("bad.toml"), None) {
        Ok(_) => panic!("scenario was accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// One flow from node a to node b over a single link: `sim` and `tcp` are the
/// lines of the `[sim]` and `[tcp]` tables, `link` the link's lines after `a`
/// and `b` (rate, delay, queue, loss).
pub fn one_link_flow(sim: &str, tcp: &str, link: &str) -> String {
    format!(
        r#"
[sim]
{sim}

[tcp]
{tcp}

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
a = "a"
b = "b"
{link}

[[flows]]
src = "a"
dst = "b"
"#
    )
}
