//! What the kernel lab's end-to-end tests share: skipping where the lab
//! cannot run, one run at a time, the check that no namespace is left
//! behind, and reading result tables.

// Each test file uses a subset of these helpers.
#![allow(dead_code)]

use std::sync::Mutex;

use pathpool_lab::netns;
use pathpool_lab::preflight;
use pathpool_lab::run::{run, Error, LabOutput};
use pathpool_sim::metrics::{Column, Table};
use pathpool_sim::scenario::{load, Format, Source};
use pathpool_sim::Model;

pub fn runnable(test: &str) -> bool {
    match preflight::check() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("SKIPPED {test}: {why}");
            false
        }
    }
}

pub fn model(toml: &str) -> Model {
    let src = Source { name: "<test>".into(), dir: ".".into(), data_dir: None };
    load(toml, Format::Toml, &src, None).unwrap()
}

/// One lab run at a time: they are real-time experiments sharing two cores,
/// and the check below looks at every namespace of this process.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs the scenario and checks that no namespace of this process is left.
pub fn lab(toml: &str) -> Result<LabOutput, Error> {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = run(&model(toml), &mut |_| true);
    let prefix = format!("pp-{}-", std::process::id());
    assert_eq!(netns::list(&prefix).unwrap(), Vec::<String>::new(), "namespaces left behind");
    out
}

pub fn table<'a>(tables: &'a [Table], name: &str) -> &'a Table {
    tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}"))
}

pub fn column<'a>(t: &'a Table, name: &str) -> &'a Column {
    &t.columns.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no column {name}")).1
}

pub fn f64s(t: &Table, name: &str) -> Vec<f64> {
    match column(t, name) {
        Column::F64(v) => v.clone(),
        Column::U32(v) => v.iter().map(|&x| x as f64).collect(),
        Column::U64(v) => v.iter().map(|&x| x as f64).collect(),
        Column::OptF64(v) => v.iter().map(|x| x.unwrap_or(f64::NAN)).collect(),
        Column::OptU64(v) => v.iter().map(|x| x.map_or(f64::NAN, |x| x as f64)).collect(),
        other => panic!("{name} is not numeric: {other:?}"),
    }
}

pub fn strs(t: &Table, name: &str) -> Vec<String> {
    match column(t, name) {
        Column::Str(v) => v.clone(),
        other => panic!("{name} is not text: {other:?}"),
    }
}

/// (time, payload bit/s) of subflow `id` of flow 0, from `subflow_ts`.
pub fn subflow_series(tables: &[Table], id: u32) -> Vec<(f64, f64)> {
    let ts = table(tables, "subflow_ts");
    let (t, sub, rate) = (f64s(ts, "time_s"), f64s(ts, "subflow_id"), f64s(ts, "delivered_bps"));
    (0..t.len()).filter(|&k| sub[k] == id as f64).map(|k| (t[k], rate[k])).collect()
}
