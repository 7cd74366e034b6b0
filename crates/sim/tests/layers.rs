//! The crate's layers import downwards only (docs/architecture.md): the
//! network model (`net`) knows nothing of scenarios, and the topology
//! generators, which produce scenario entries, live inside `scenario`.

use std::path::Path;

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn importers(layer: &str, of: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root.join(layer), &mut files);
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            // Code, not comments (a doc comment may point upwards).
            let code = !line.trim_start().starts_with("//");
            if code && of.iter().any(|m| line.contains(&format!("crate::{m}"))) {
                bad.push(format!("{}:{}: {}", f.strip_prefix(&root).unwrap().display(), n + 1, line.trim()));
            }
        }
    }
    bad
}

#[test]
fn the_network_model_does_not_import_scenarios_or_the_simulation() {
    let bad = importers("net", &["scenario", "world", "control", "app", "mptcp", "tcp"]);
    assert!(bad.is_empty(), "net imports an upper layer:\n{}", bad.join("\n"));
}

#[test]
fn the_engine_is_the_bottom_layer() {
    let bad = importers("engine", &["scenario", "world", "net", "control", "mptcp", "tcp"]);
    assert!(bad.is_empty(), "engine imports an upper layer:\n{}", bad.join("\n"));
}

#[test]
fn topology_generators_live_in_scenario() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert!(!root.join("topology").exists(), "src/topology is back: generators belong to scenario/topology");
    assert!(root.join("scenario/topology/mod.rs").exists());
}
