//! Names of everything a run creates start with `pp-PID-N-`: `pp-` marks
//! pathpool, PID is the creating process, N counts testbeds within it. So a
//! run's own objects are found by its prefix, and leftovers of crashed runs
//! by a PID that no longer lives.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::netns;

pub const PATHPOOL: &str = "pp-";

/// A fresh prefix for one testbed of this process.
pub fn run_prefix() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("{PATHPOOL}{}-{}-", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The PID in a name made from `run_prefix`.
fn owner(name: &str) -> Option<u32> {
    name.strip_prefix(PATHPOOL)?.split('-').next()?.parse().ok()
}

/// Deletes the namespaces of runs whose process is gone (a PID that is
/// alive keeps its namespaces, even if reused) and returns their names.
pub fn clean_stale() -> io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for name in netns::list(PATHPOOL)? {
        let alive = owner(&name).is_some_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
        if !alive {
            removed.extend(netns::clean(&name)?);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_unique_and_name_their_process() {
        let (a, b) = (run_prefix(), run_prefix());
        assert_ne!(a, b);
        assert_eq!(owner(&format!("{a}client")), Some(std::process::id()));
        assert_eq!(owner("pp-x-0-client"), None);
        assert_eq!(owner("other-12-0-client"), None);
    }
}
