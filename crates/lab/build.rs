//! Builds the lab's BPF Westwood+ (`bpf/westwood.bpf.c`) from source: the
//! kernel's types from its BTF (`bpftool btf dump ... format c` into
//! vmlinux.h, never committed), then `clang -target bpf` with libbpf's
//! headers. The object is embedded in the crate (`src/bpf/mod.rs`). Where a
//! tool is missing the crate builds without it and the lab refuses
//! `tcp.cc = "westwood"` naming what is missing (`PATHPOOL_BPF_MISSING`);
//! `make install` installs them (Debian's clang, libbpf-dev, bpftool).
//!
//! It also digests the crate's own source (`src/`, `bpf/`) into
//! `PATHPOOL_LAB_SOURCE` (`pathpool_lab::SOURCE_DIGEST`), so that cached
//! kernel-lab results can be keyed on the lab that made them: an emulator
//! change makes them stale even when pathpool's version does not move.

use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = "bpf/westwood.bpf.c";
const VMLINUX_BTF: &str = "/sys/kernel/btf/vmlinux";
const LIBBPF_HEADER: &str = "/usr/include/bpf/bpf_helpers.h";

fn main() {
    println!("cargo:rustc-check-cfg=cfg(pp_bpf)");
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-changed={VMLINUX_BTF}");
    println!("cargo:rerun-if-changed={LIBBPF_HEADER}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=bpf");
    println!("cargo:rustc-env=PATHPOOL_LAB_SOURCE={:016x}", source_digest(&["src", "bpf"]));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let object = out.join("westwood.bpf.o");
    match build(&out, &object) {
        Ok(()) => {
            println!("cargo:rustc-env=PATHPOOL_BPF_OBJECT={}", object.display());
            println!("cargo:rustc-cfg=pp_bpf");
        }
        Err(missing) => {
            println!("cargo:rustc-env=PATHPOOL_BPF_MISSING={missing}");
            println!("cargo:warning=the lab's BPF Westwood+ is not built: {missing}");
        }
    }
}

/// Err(what is missing or what failed).
fn build(out: &Path, object: &Path) -> Result<(), String> {
    let clang = tool("clang", &["/usr/bin/clang"]);
    let bpftool = tool("bpftool", &["/usr/sbin/bpftool", "/usr/bin/bpftool", "/sbin/bpftool"]);
    let mut missing = Vec::new();
    if clang.is_none() {
        missing.push("clang (Debian package clang)");
    }
    if bpftool.is_none() {
        missing.push("bpftool (Debian package bpftool)");
    }
    if !Path::new(LIBBPF_HEADER).exists() {
        missing.push("libbpf's headers (Debian package libbpf-dev)");
    }
    if !Path::new(VMLINUX_BTF).exists() {
        missing.push("the kernel's BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)");
    }
    if !missing.is_empty() {
        return Err(format!("missing {}; `make install` as root installs them", missing.join(", ")));
    }
    let (clang, bpftool) = (clang.unwrap(), bpftool.unwrap());
    let header = Command::new(&bpftool).args(["btf", "dump", "file", VMLINUX_BTF, "format", "c"]).output().map_err(|e| format!("bpftool: {e}"))?;
    if !header.status.success() {
        return Err(format!("bpftool btf dump failed: {}", String::from_utf8_lossy(&header.stderr).trim()));
    }
    std::fs::write(out.join("vmlinux.h"), &header.stdout).map_err(|e| format!("vmlinux.h: {e}"))?;
    let compiled = Command::new(&clang)
        .args(["-g", "-O2", "-Wall", "-Werror", "-target", "bpf", "-D__TARGET_ARCH_x86", "-I"])
        .arg(out)
        .args(["-c", SOURCE, "-o"])
        .arg(object)
        .output()
        .map_err(|e| format!("clang: {e}"))?;
    if !compiled.status.success() {
        // Another kernel's types may lack a field the program reads: the
        // lab then refuses westwood with clang's first error (its tests
        // fail here, where it must build).
        let err = String::from_utf8_lossy(&compiled.stderr);
        let first = err.lines().find(|l| l.contains("error")).unwrap_or("no message");
        return Err(format!("clang could not compile {SOURCE} against this kernel's BTF: {first}"));
    }
    Ok(())
}

/// The tool's path: on PATH, else at one of its usual places (sbin is not
/// on every user's PATH).
fn tool(name: &str, usual: &[&str]) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).map(|d| d.join(name));
    let found = on_path.chain(usual.iter().map(PathBuf::from)).find(|p| p.is_file());
    match &found {
        Some(p) => println!("cargo:rerun-if-changed={}", p.display()),
        // A path that does not exist reruns this script at every build:
        // until the tool is installed.
        None => usual.iter().for_each(|p| println!("cargo:rerun-if-changed={p}")),
    }
    found
}

/// FNV-1a (64 bit) over every file under `roots`, in path order, each as its
/// path, a NUL, its length and its bytes: any edit, rename or new file moves it.
fn source_digest(roots: &[&str]) -> u64 {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = roots.iter().map(PathBuf::from).collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for f in &files {
        let text = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        eat(f.to_string_lossy().as_bytes());
        eat(&[0]);
        eat(&(text.len() as u64).to_le_bytes());
        eat(&text);
    }
    h
}
