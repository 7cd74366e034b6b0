//! pathpool's kernel lab: scenarios on the real Linux MPTCP stack, in network
//! namespaces with emulated links, driven through the MPTCP netlink path
//! manager.

pub mod bpf;
pub mod dns;
pub mod emulator;
pub mod netns;
pub mod pm;
pub mod prefix;
pub mod preflight;
pub mod run;
pub mod support;
pub mod testbed;
pub mod traffic;

/// A digest of this crate's source (`src/`, `bpf/`; computed by `build.rs`):
/// what a cache of kernel-lab results is keyed on besides the scenario and
/// the kernel, so that results of an earlier emulator are not reused.
pub const SOURCE_DIGEST: &str = env!("PATHPOOL_LAB_SOURCE");

/// Removes what crashed runs left behind: their namespaces
/// (`prefix::clean_stale`) and the BPF Westwood+ if its registering process
/// is gone (`bpf::clean_stale`). Returns what it removed.
pub fn clean_stale() -> Result<Vec<String>, String> {
    let mut removed = prefix::clean_stale().map_err(|e| e.to_string())?;
    if bpf::clean_stale()? {
        removed.push(format!("{} (BPF tcp_congestion_ops)", bpf::KERNEL_NAME));
    }
    Ok(removed)
}
