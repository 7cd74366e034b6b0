//! `pathpool-lab up SCENARIO`: build the scenario's testbed (namespaces,
//! emulated links, addresses, routes), print it, keep it until standard
//! input closes or a signal arrives, print what each link direction carried,
//! then remove it — for looking around with `ip netns exec`.
//! `pathpool-lab run SCENARIO`: run it on the kernel and print the summary
//! (`pathpool run --plane lab` does the same and writes the result tables).
//! `pathpool-lab clean`: remove namespaces (and a BPF Westwood+) left by crashed runs.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use pathpool_lab::testbed::Testbed;
use pathpool_sim::scenario::{load, Format, Source};
use pathpool_sim::Model;

fn usage() -> ExitCode {
    eprintln!("usage: pathpool-lab up SCENARIO.toml | pathpool-lab run SCENARIO.toml | pathpool-lab clean");
    ExitCode::from(2)
}

fn model(path: &Path) -> Result<Model, String> {
    let text = pathpool_sim::files::read_text(path, pathpool_sim::files::FileKind::Scenario).map_err(|e| format!("{}: {e}", path.display()))?;
    let source = Source {
        name: path.display().to_string(),
        dir: path.parent().map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf),
        data_dir: None,
    };
    load(&text, Format::Toml, &source, None).map_err(|e| e.to_string())
}

fn run(path: &Path) -> Result<(), String> {
    let model = model(path)?;
    let out = pathpool_lab::run::run(&model, &mut |_| true).map_err(|e| e.to_string())?;
    println!("{}", serde_json::to_string_pretty(&out.summary).expect("a JSON value"));
    Ok(())
}

fn up(path: &Path) -> Result<(), String> {
    let model = model(path)?;
    let testbed = Testbed::build(&model).map_err(|e| e.to_string())?;
    for node in &testbed.plan().nodes {
        let ns = testbed.node(&node.name).expect("every planned node has a namespace");
        let addrs: Vec<String> = node.interfaces.iter().map(|i| format!("{} {}", i.name, i.addr)).collect();
        println!("{} ({}): {}", ns.name(), if node.router { "router" } else { "host" }, addrs.join(", "));
    }
    println!("ready: close standard input or press Ctrl-C to remove {}*", testbed.prefix());
    let mut sink = Vec::new();
    std::io::stdin().read_to_end(&mut sink).map_err(|e| e.to_string())?;
    for d in testbed.emulator().stats() {
        println!(
            "{}: {} packets, {} bytes; drops: queue {}, loss {}, down {}",
            d.name, d.packets, d.bytes, d.drops_queue, d.drops_loss, d.drops_down
        );
    }
    drop(testbed);
    println!("removed");
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["up", scenario] => up(Path::new(scenario)),
        ["run", scenario] => run(Path::new(scenario)),
        ["clean"] => pathpool_lab::clean_stale().map(|names| {
            for n in &names {
                println!("removed {n}");
            }
        }),
        _ => return usage(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pathpool-lab: {e}");
            ExitCode::FAILURE
        }
    }
}
