//! Python bindings: `pathpool._core.validate`, `pathpool._core.run` (the
//! simulator), `pathpool._core.run_lab` (the kernel lab) and
//! `pathpool._core.detour_census` (a Rocketfuel map's one-hop detours).
//! The Python package (python/pathpool) turns the columns into Arrow tables.

use std::path::{Path, PathBuf};

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use pathpool_sim::metrics::{Column, Table};
use pathpool_sim::{Format, Model, Source};

create_exception!(_core, ScenarioError, PyValueError, "A scenario was refused; each line names file, field and problem.");
create_exception!(_core, LabError, PyRuntimeError, "The kernel lab refused the scenario, could not start, or the run failed; the message says which.");

fn source(name: &str, data_dir: Option<&str>) -> Source {
    let dir = Path::new(name).parent().filter(|p| !p.as_os_str().is_empty()).map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    Source { name: name.to_string(), dir, data_dir: data_dir.map(PathBuf::from) }
}

fn format(fmt: &str) -> PyResult<Format> {
    match fmt {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => Err(PyValueError::new_err(format!("unknown scenario format '{other}' (toml or json)"))),
    }
}

fn load(text: &str, source_name: &str, fmt: &str, data_dir: Option<&str>, seed: Option<u64>) -> PyResult<Model> {
    pathpool_sim::load(text, format(fmt)?, &source(source_name, data_dir), seed).map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Parses and validates a scenario; returns its name.
#[pyfunction]
#[pyo3(signature = (text, source, fmt = "toml", data_dir = None))]
fn validate(text: &str, source: &str, fmt: &str, data_dir: Option<&str>) -> PyResult<String> {
    Ok(load(text, source, fmt, data_dir, None)?.name)
}

fn column<'py>(py: Python<'py>, c: Column) -> PyResult<Bound<'py, PyAny>> {
    Ok(match c {
        Column::U32(v) => v.into_pyarray(py).into_any(),
        Column::U64(v) => v.into_pyarray(py).into_any(),
        Column::I64(v) => v.into_pyarray(py).into_any(),
        Column::F64(v) => v.into_pyarray(py).into_any(),
        Column::Bool(v) => v.into_pyarray(py).into_any(),
        Column::Str(v) => PyList::new(py, v)?.into_any(),
        Column::OptU64(v) => PyList::new(py, v)?.into_any(),
        Column::OptI64(v) => PyList::new(py, v)?.into_any(),
        Column::OptF64(v) => PyList::new(py, v)?.into_any(),
    })
}

fn table<'py>(py: Python<'py>, t: Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, c) in t.columns {
        d.set_item(name, column(py, c)?)?;
    }
    Ok(d)
}

fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let json = py.import("json")?;
    json.call_method1("loads", (v.to_string(),))
}

/// Runs a scenario. `progress(sim_time_s, duration_s)` is called a few times a second.
/// With `pcap` (scenario link names) and `pcap_dir`, the packets crossing
/// those links are written to `pcap_dir/LINK.pcap`; unknown names are
/// refused (ScenarioError) before the run.
#[pyfunction]
#[pyo3(signature = (text, source, fmt = "toml", seed = None, data_dir = None, progress = None, pcap = None, pcap_dir = "."))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    source: &str,
    fmt: &str,
    seed: Option<u64>,
    data_dir: Option<&str>,
    progress: Option<Bound<'py, PyAny>>,
    pcap: Option<Vec<String>>,
    pcap_dir: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let model = load(text, source, fmt, data_dir, seed)?;
    let capture = match pcap.filter(|p| !p.is_empty()) {
        Some(links) => Some(pathpool_sim::capture::Capture::open(&model, &links, Path::new(pcap_dir)).map_err(ScenarioError::new_err)?),
        None => None,
    };
    let duration = model.duration.secs();
    let mut callback_error = None;
    let (out, capture) = pathpool_sim::run::run_captured(&model, capture, &mut |now| {
        if let (Some(cb), None) = (&progress, &callback_error) {
            // Let Ctrl-C through: a pending KeyboardInterrupt surfaces here.
            if let Err(e) = py.check_signals().and_then(|_| cb.call1((now.secs(), duration)).map(|_| ())) {
                callback_error = Some(e);
            }
        }
    });
    if let Some(e) = callback_error {
        return Err(e);
    }
    let stats = PyDict::new(py);
    stats.set_item("events", out.events)?;
    stats.set_item("wall_s", out.wall_s)?;
    stats.set_item("packets_delivered", out.data_packets_delivered)?;
    let files = PyList::empty(py);
    if let Some(c) = capture {
        for f in c.finish().map_err(PyRuntimeError::new_err)? {
            files.append((f.link, f.path.display().to_string(), f.packets))?;
        }
    }
    let result = result(py, out.tables, &out.summary, stats)?;
    result.set_item("pcap", files)?;
    Ok(result)
}

fn result<'py>(py: Python<'py>, tables: Vec<Table>, summary: &serde_json::Value, stats: Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for t in tables {
        let name = t.name;
        dict.set_item(name, table(py, t)?)?;
    }
    let result = PyDict::new(py);
    result.set_item("summary", json_to_py(py, summary)?)?;
    result.set_item("tables", dict)?;
    result.set_item("stats", stats)?;
    Ok(result)
}

/// Runs a scenario on the kernel lab (root, a kernel with MPTCP). The GIL is
/// held: `progress(model_time_s, duration_s)` is called after every sample,
/// and an exception from it (Ctrl-C included) stops the run and tears the
/// testbed down.
#[pyfunction]
#[pyo3(signature = (text, source, fmt = "toml", seed = None, data_dir = None, progress = None))]
fn run_lab<'py>(
    py: Python<'py>,
    text: &str,
    source: &str,
    fmt: &str,
    seed: Option<u64>,
    data_dir: Option<&str>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let model = load(text, source, fmt, data_dir, seed)?;
    let duration = model.duration.secs();
    let mut callback_error = None;
    let out = pathpool_lab::run::run(&model, &mut |now| {
        let r = py.check_signals().and_then(|_| match &progress {
            Some(cb) => cb.call1((now.secs(), duration)).map(drop),
            None => Ok(()),
        });
        match r {
            Ok(()) => true,
            Err(e) => {
                callback_error = Some(e);
                false
            }
        }
    });
    if let Some(e) = callback_error {
        return Err(e);
    }
    let out = out.map_err(|e| LabError::new_err(e.to_string()))?;
    let stats = PyDict::new(py);
    stats.set_item("events", py.None())?;
    stats.set_item("wall_s", out.wall_s)?;
    stats.set_item("packets_delivered", py.None())?;
    result(py, out.tables, &out.summary, stats)
}

/// The INRPP paper's Table I census of a Rocketfuel `.cch` map's internal
/// links, read and filtered as the `rocketfuel` generator does: the routers
/// and links kept, and `with_detour`, `by_count` (1, 2, 3, 4, 5+) and `max`.
#[pyfunction]
#[pyo3(signature = (path, prune = "none", largest_component = false))]
fn detour_census<'py>(py: Python<'py>, path: &str, prune: &str, largest_component: bool) -> PyResult<Bound<'py, PyDict>> {
    use pathpool_sim::scenario::spec::RocketfuelPrune;
    use pathpool_sim::scenario::topology::{detour_census::census, rocketfuel};
    let prune: RocketfuelPrune = serde_json::from_value(serde_json::Value::String(prune.to_string()))
        .map_err(|_| PyValueError::new_err(format!("unknown prune '{prune}' (none, edge_chains or ndnsim)")))?;
    let g = rocketfuel::load(Path::new(path), prune, largest_component).map_err(PyValueError::new_err)?;
    let c = census(&g.links);
    let d = PyDict::new(py);
    d.set_item("routers", g.routers.len())?;
    d.set_item("links", c.links)?;
    d.set_item("with_detour", c.with_detour)?;
    d.set_item("by_count", c.by_count.to_vec())?;
    d.set_item("max", c.max)?;
    Ok(d)
}

/// Removes the namespaces of crashed lab runs, and the BPF Westwood+ if a
/// crashed run left it registered; returns their names.
#[pyfunction]
fn lab_clean() -> PyResult<Vec<String>> {
    pathpool_lab::clean_stale().map_err(LabError::new_err)
}

/// The kernel lab's build: a digest of its source (`pathpool_lab::SOURCE_DIGEST`).
#[pyfunction]
fn lab_build() -> &'static str {
    pathpool_lab::SOURCE_DIGEST
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add("LabError", m.py().get_type::<LabError>())?;
    m.add_function(wrap_pyfunction!(run_lab, m)?)?;
    m.add_function(wrap_pyfunction!(lab_clean, m)?)?;
    m.add_function(wrap_pyfunction!(lab_build, m)?)?;
    m.add_function(wrap_pyfunction!(detour_census, m)?)?;
    Ok(())
}
