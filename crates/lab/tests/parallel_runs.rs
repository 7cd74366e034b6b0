//! Two `pathpool-lab run` processes at once (issue 18): each names its
//! namespaces after its own PID (`prefix.rs`), so they do not collide; each
//! gets its own link's throughput; and each removes only its own namespaces
//! when it ends — the one that ends first leaves the other's running
//! testbed alone. Needs root and a kernel with MPTCP (SKIPPED otherwise).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pathpool_lab::{netns, preflight};

/// One TCP flow over one link of `rate` Mb/s for `duration` seconds.
fn scenario(rate: u32, duration: u32) -> String {
    format!(
        r#"
[sim]
duration = "{duration}s"
[[nodes]]
name = "client"
[[nodes]]
name = "server"
[[links]]
a = "client"
b = "server"
rate = "{rate}Mbps"
delay = "10ms"
[[flows]]
src = "client"
dst = "server"
"#
    )
}

/// A `pathpool-lab run` of `toml`, written to a file named after `tag`.
fn start(tag: &str, toml: &str) -> (PathBuf, Child) {
    let file = std::env::temp_dir().join(format!("pathpool-lab-parallel-{tag}-{}.toml", std::process::id()));
    std::fs::write(&file, toml).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_pathpool-lab"))
        .args(["run", file.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (file, child)
}

/// The run's summary, once it has ended successfully.
fn finish(file: PathBuf, child: Child) -> serde_json::Value {
    let out = child.wait_with_output().unwrap();
    std::fs::remove_file(file).unwrap();
    assert!(out.status.success(), "pathpool-lab run failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn names(prefix: &str) -> BTreeSet<String> {
    netns::list(prefix).unwrap().into_iter().collect()
}

#[test]
fn two_runs_at_once_keep_to_their_own_namespaces() {
    if let Err(why) = preflight::check() {
        eprintln!("SKIPPED two_runs_at_once_keep_to_their_own_namespaces: {why}");
        return;
    }
    // The long run outlasts the short one's whole life, teardown included.
    let (long_file, long) = start("long", &scenario(10, 8));
    let (short_file, short) = start("short", &scenario(20, 3));
    let (long_prefix, short_prefix) = (format!("pp-{}-", long.id()), format!("pp-{}-", short.id()));

    // Both testbeds up at once: the two nodes and the emulator each.
    let deadline = Instant::now() + Duration::from_secs(10);
    while names(&long_prefix).len() < 3 || names(&short_prefix).len() < 3 {
        assert!(Instant::now() < deadline, "the two testbeds were never up together");
        std::thread::sleep(Duration::from_millis(20));
    }
    let long_names = names(&long_prefix);
    assert_eq!(long_names.len(), 3, "{long_names:?}");
    assert_eq!(names(&short_prefix).len(), 3);

    let short_summary = finish(short_file, short);
    assert!(names(&short_prefix).is_empty(), "the short run left its namespaces");
    assert_eq!(names(&long_prefix), long_names, "the short run touched the long run's namespaces");
    let long_summary = finish(long_file, long);
    assert!(names(&long_prefix).is_empty(), "the long run left its namespaces");

    // Each run got its own link: bulk TCP fills it, slow start aside.
    for (summary, rate) in [(&short_summary, 20e6), (&long_summary, 10e6)] {
        let goodput = summary["total_goodput_bps"].as_f64().unwrap();
        let capacity = rate * 1448.0 / 1500.0;
        eprintln!("FIGURE parallel lab run on {} Mb/s: {:.2} Mb/s = {:.1} % of its payload capacity", rate / 1e6, goodput / 1e6, 100.0 * goodput / capacity);
        assert!((0.85 * capacity..=capacity).contains(&goodput), "{goodput} b/s on a {rate} b/s link");
    }
}
