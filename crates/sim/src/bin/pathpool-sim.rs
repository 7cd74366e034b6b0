//! `pathpool-sim run SCENARIO [--seed N] [--data-dir D] [--json] [--table NAME[,NAME]] [--pcap LINK[,LINK] [--pcap-dir DIR]]`
//! `pathpool-sim validate SCENARIO [--seed N] [--data-dir D]`
//!
//! Runs a scenario in the simulator core alone, without Python and without
//! writing result files (only the pcap files `--pcap` asks for, in
//! `--pcap-dir`, default the current directory): for benchmarks and quick
//! checks. `pathpool run` (Python) is the full front end.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pathpool_sim::metrics::{Column, Table};
use pathpool_sim::run::run_captured;
use pathpool_sim::{load, Format, Source};

fn usage() -> ExitCode {
    eprintln!(
        "usage: pathpool-sim run|validate SCENARIO.toml [--seed N] [--data-dir DIR] [--json] [--table NAME[,NAME]] [--pcap LINK[,LINK] [--pcap-dir DIR]]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let validate_only = match args.first().map(String::as_str) {
        Some("run") => false,
        Some("validate") => true,
        _ => return usage(),
    };
    if args.len() < 2 {
        return usage();
    }
    let path = PathBuf::from(&args[1]);
    let (mut seed, mut data_dir, mut json, mut tables) = (None, std::env::var_os("PATHPOOL_DATA").map(PathBuf::from), false, Vec::new());
    let (mut pcap, mut pcap_dir) = (Vec::new(), PathBuf::from("."));
    let mut rest = args[2..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--seed" => match rest.next().and_then(|s| s.parse::<u64>().ok()) {
                Some(s) => seed = Some(s),
                None => return usage(),
            },
            "--data-dir" => match rest.next() {
                Some(d) => data_dir = Some(PathBuf::from(d)),
                None => return usage(),
            },
            "--json" => json = true,
            "--pcap" => match rest.next() {
                Some(links) => pcap.extend(links.split(',').map(|l| l.trim().to_string()).filter(|l| !l.is_empty())),
                None => return usage(),
            },
            "--pcap-dir" => match rest.next() {
                Some(d) => pcap_dir = PathBuf::from(d),
                None => return usage(),
            },
            "--table" => match rest.next() {
                Some(t) => tables.extend(t.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty())),
                None => return usage(),
            },
            _ => return usage(),
        }
    }
    let text = match pathpool_sim::files::read_text(&path, pathpool_sim::files::FileKind::Scenario) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let source = Source {
        name: path.display().to_string(),
        dir: path.parent().map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf),
        data_dir,
    };
    // JSON by the file's extension, TOML otherwise (as the Python front).
    let format = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) { Format::Json } else { Format::Toml };
    let t0 = std::time::Instant::now();
    let model = match load(&text, format, &source, seed) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let load_s = t0.elapsed().as_secs_f64();
    if validate_only {
        let hosts = model.nodes.iter().filter(|n| n.kind == pathpool_sim::scenario::spec::NodeKind::Host).count();
        println!(
            "{}: valid: {} nodes ({} hosts), {} links, {} flows",
            source.name,
            model.nodes.len(),
            hosts,
            model.links.len(),
            model.flows.len()
        );
        return ExitCode::SUCCESS;
    }
    // Unknown link names are refused here, before the run.
    let capture = if pcap.is_empty() {
        None
    } else {
        match pathpool_sim::capture::Capture::open(&model, &pcap, &pcap_dir) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    };
    let (out, capture) = run_captured(&model, capture, &mut |_| {});
    if let Some(c) = capture {
        match c.finish() {
            Ok(files) => {
                for f in files {
                    eprintln!("pcap: {} ({} packets on link {})", f.path.display(), f.packets, f.link);
                }
            }
            Err(e) => {
                eprintln!("pcap: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if !tables.is_empty() {
        if let Some(missing) = tables.iter().find(|name| !out.tables.iter().any(|t| t.name == name.as_str())) {
            eprintln!("no table '{missing}'");
            return ExitCode::from(2);
        }
        for name in &tables {
            if tables.len() > 1 {
                println!("# {name}");
            }
            print_tsv(out.tables.iter().find(|t| t.name == name.as_str()).expect("checked above"));
        }
        return ExitCode::SUCCESS;
    }
    let mut s = out.summary.clone();
    s["load_s"] = load_s.into();
    s["setup_s"] = out.setup_s.into();
    s["wall_s"] = out.wall_s.into();
    s["packets_delivered"] = out.data_packets_delivered.into();
    s["flow_bytes_delivered"] = out.flow_bytes_delivered.into();
    if json {
        println!("{s}");
    } else {
        println!("{}", serde_json::to_string_pretty(&s).expect("serialisable"));
    }
    ExitCode::SUCCESS
}

/// Prints a result table as tab-separated text (for a quick look without Python).
fn print_tsv(t: &Table) {
    println!("{}", t.columns.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("\t"));
    for row in 0..t.rows() {
        let cells: Vec<String> = t
            .columns
            .iter()
            .map(|(_, c)| match c {
                Column::U32(v) => v[row].to_string(),
                Column::U64(v) => v[row].to_string(),
                Column::I64(v) => v[row].to_string(),
                Column::F64(v) => format!("{:.6}", v[row]),
                Column::Bool(v) => v[row].to_string(),
                Column::Str(v) => v[row].clone(),
                Column::OptU64(v) => v[row].map_or(String::new(), |x| x.to_string()),
                Column::OptI64(v) => v[row].map_or(String::new(), |x| x.to_string()),
                Column::OptF64(v) => v[row].map_or(String::new(), |x| format!("{x:.6}")),
            })
            .collect();
        println!("{}", cells.join("\t"));
    }
}
