//! Network namespaces, named and removed by the lab.
//!
//! A namespace is created the way iproute2's `ip netns add` does it (a bind
//! mount of the namespace under `/run/netns/NAME`, ip-netns(8)), so that
//! `ip netns list` shows it and `clean` can find leftovers of a crashed run
//! by name prefix. Code runs inside a namespace on a thread that has
//! `setns(2)`-ed into it; commands run through `ip netns exec`.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};

const NETNS_DIR: &str = "/run/netns";

/// A namespace this process created; deleted on drop (also while unwinding).
#[derive(Debug)]
pub struct Netns {
    name: String,
}

impl Netns {
    /// Creates namespace `name` with its loopback up; fails if it exists.
    pub fn create(name: &str) -> io::Result<Netns> {
        ip(&["netns", "add", name])?;
        let ns = Netns { name: name.to_string() };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `f` on a fresh thread inside the namespace and returns its result.
    /// Sockets `f` opens belong to the namespace, also after it returns them.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> io::Result<T> {
        let file = File::open(format!("{NETNS_DIR}/{}", self.name))?;
        std::thread::scope(|s| {
            s.spawn(|| {
                // SAFETY: a valid namespace fd; CLONE_NEWNET changes only this thread.
                if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(f())
            })
            .join()
            .map_err(|_| io::Error::other(format!("thread in namespace {} panicked", self.name)))?
        })
    }

    /// `ip -n NAME ARGS...`.
    pub fn ip(&self, args: &[&str]) -> io::Result<String> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&all)
    }

    /// Runs `ip -n NAME -batch -` over `commands`, one per line; stops at the
    /// first that fails.
    pub fn ip_batch(&self, commands: &[String]) -> io::Result<()> {
        self.batch("ip", commands)
    }

    /// Runs `tc -n NAME -batch -` (iproute2's traffic control) over `commands`.
    pub fn tc_batch(&self, commands: &[String]) -> io::Result<()> {
        self.batch("tc", commands)
    }

    fn batch(&self, tool: &str, commands: &[String]) -> io::Result<()> {
        let mut child = Command::new(tool)
            .args(["-n", &self.name, "-batch", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("{tool} (iproute2): {e}")))?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(commands.join("\n").as_bytes())?;
        drop(stdin);
        let out = child.wait_with_output()?;
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "{tool} -n {} -batch: {}",
                self.name,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// Writes sysctl `key` (dotted, e.g. `net.mptcp.pm_type`) in the namespace.
    pub fn sysctl(&self, key: &str, value: &str) -> io::Result<()> {
        self.sysctls(&[(key, value)])
    }

    /// Writes several sysctls, in order, from one thread in the namespace
    /// (`/proc/sys/net` shows the namespace of the task that opens it).
    pub fn sysctls(&self, settings: &[(&str, &str)]) -> io::Result<()> {
        self.run(|| {
            for (key, value) in settings {
                let path = format!("/proc/sys/{}", key.replace('.', "/"));
                std::fs::write(&path, value).map_err(|e| io::Error::new(e.kind(), format!("sysctl {key}={value}: {e}")))?;
            }
            Ok(())
        })?
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Nothing to do on failure: `clean` removes what is left.
        let _ = ip(&["netns", "del", &self.name]);
    }
}

/// Names of existing namespaces that start with `prefix`.
pub fn list(prefix: &str) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    let dir = match std::fs::read_dir(NETNS_DIR) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(names),
        r => r?,
    };
    for entry in dir {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Deletes every namespace whose name starts with `prefix` (leftovers of
/// crashed runs; deleting a namespace removes its veth ends and so the
/// pairs) and returns their names. An empty prefix is refused.
pub fn clean(prefix: &str) -> io::Result<Vec<String>> {
    if prefix.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "refusing to clean with an empty prefix"));
    }
    let names = list(prefix)?;
    let mut first_error = None;
    for name in &names {
        // Another party (a testbed's drop racing a signal's cleanup) may
        // have deleted it meanwhile: gone is what we want.
        if let Err(e) = ip(&["netns", "del", name]) {
            if Path::new(NETNS_DIR).join(name).exists() {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(names),
    }
}

fn ip(args: &[&str]) -> io::Result<String> {
    let out = Command::new("ip").args(args).output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
