//! Reading the files a scenario names (Mahimahi traces, Rocketfuel maps and
//! latencies) without trusting them: a path that is not a regular file (a
//! directory, FIFO or device such as `/dev/zero`) is refused, and so is a
//! file larger than its kind's limit, before anything is read beyond the
//! limit; text must be UTF-8. Each refusal says which limit and how to
//! raise it: `PATHPOOL_MAX_FILE_MB` (megabytes) overrides every kind's.
//! The scenario file itself is read the same way by `pathpool-sim`, and
//! checked alike by the Python front (`pathpool.api`).

use std::io::Read;
use std::path::Path;

/// What a file holds, for its size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A Mahimahi packet-delivery trace (the shared data's largest is 3.4 MB).
    Trace,
    /// A Rocketfuel `.cch` map or latency file (the largest is under 2 MB).
    Topology,
    /// A scenario file (the built-ins are a few kilobytes).
    Scenario,
}

impl FileKind {
    /// The default limit, bytes.
    pub fn limit(self) -> u64 {
        match self {
            FileKind::Trace | FileKind::Topology => 64 << 20,
            FileKind::Scenario => 16 << 20,
        }
    }

    fn name(self) -> &'static str {
        match self {
            FileKind::Trace => "trace",
            FileKind::Topology => "topology file",
            FileKind::Scenario => "scenario file",
        }
    }
}

/// The environment variable that overrides every kind's limit, in megabytes.
pub const LIMIT_VAR: &str = "PATHPOOL_MAX_FILE_MB";

fn limit(kind: FileKind) -> u64 {
    std::env::var(LIMIT_VAR).ok().and_then(|v| v.trim().parse::<f64>().ok()).filter(|mb| *mb > 0.0).map_or(kind.limit(), |mb| (mb * 1e6) as u64)
}

/// The text of `path`, a file of `kind`; Err says what is wrong (without the path).
pub fn read_text(path: &Path, kind: FileKind) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!("is not a regular file (a {} must be one; directories, FIFOs and devices are refused)", kind.name()));
    }
    let limit = limit(kind);
    let too_big = |size: u64| {
        format!("is {size} bytes, over the {limit}-byte limit for a {} (set {LIMIT_VAR} to raise it)", kind.name())
    };
    if meta.len() > limit {
        return Err(too_big(meta.len()));
    }
    // The file may grow while it is read: never take more than the limit.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes)).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| format!("is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_directories_and_binary_files_are_refused() {
        let dev = read_text(Path::new("/dev/zero"), FileKind::Trace).unwrap_err();
        assert!(dev.starts_with("is not a regular file"), "{dev}");
        let dir = read_text(Path::new("/"), FileKind::Topology).unwrap_err();
        assert!(dir.starts_with("is not a regular file"), "{dir}");
        let path = std::env::temp_dir().join(format!("pathpool-files-{}", std::process::id()));
        std::fs::write(&path, b"12\n\xff\xfe\n").unwrap();
        let binary = read_text(&path, FileKind::Trace).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(binary, "is not UTF-8 text (invalid byte at offset 3)");
    }
}
