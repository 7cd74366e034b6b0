//! What the kernel lab can run. A scenario that asks for something the
//! kernel or the testbed cannot provide is refused before anything starts,
//! with one line per feature naming the flow, node or parameter and why
//! (issue 6). Pure apart from `KernelFeatures::probe`, which reads what this
//! kernel offers.
//!
//! What maps onto the kernel, and how:
//! - `tcp` flows: a TCP socket with the flow's congestion control
//!   (`TCP_CONGESTION`; `newreno` is the kernel's `reno`, which like the
//!   simulator's default uses SACK and PRR; `westwood` is the lab's BPF
//!   Westwood+, `pp_westwood`, with its `increment` parameter: `bpf/`).
//! - `mptcp` flows with `coupling = "uncoupled"`: upstream Linux MPTCP runs
//!   each subflow's own congestion control (it has no LIA, OLIA or BALIA),
//!   `scheduler = "minrtt"` is its default scheduler (lowest-latency subflow
//!   with room, backup subflows only when no other can send), and so is
//!   `"linger"`, the simulator's closer model of it, and the path
//!   managers `fullmesh`, `backup` and `single_path` and timed actions are
//!   replayed through the userspace path manager (`run/control/`); or,
//!   with `[lab] path_manager = "kernel"`, the in-kernel path manager runs
//!   with endpoints derived from them (no timed actions then).
//! - `[[controllers]]` run unchanged (`run/control/`), their subflow
//!   actions through the userspace path manager; a controller that may set
//!   the scheduler is refused (the kernel has no BPF MPTCP scheduler), and
//!   so is one that may act on subflows when the in-kernel path manager runs;
//!   one that may set Westwood+'s increment runs where the BPF Westwood+ does.
//! - Every TCP parameter at its default: those defaults are Linux's (MSS
//!   1448, initial window 10, RTO floor 200 ms, initial RTO 1 s, three
//!   duplicate ACKs, SACK with PRR); `cwnd_growth`, `rto_formula`,
//!   `send_buffer` and `rack` either way (Linux always grows cwnd only while
//!   cwnd-limited, computes its timeout as `rto_formula = "linux"`, autotunes
//!   its send buffer as `send_buffer = "linux"` and runs RACK). `delayed_ack = false`, the simulator's
//!   default, is approximated by re-arming `TCP_QUICKACK` after every read at
//!   the receiver (tcp(7)); Linux has no way to turn delayed ACKs off.
//! - Applications (`app = { ... }`) run their simulator sessions on the
//!   flow's connection (`traffic/app.rs`): requests are messages on the
//!   stream, answered in order by the server.
//! - Fetch sessions (`[[fetches]]`: mirrored content over several
//!   connections) run at their client host's thread over real TCP
//!   connections bound to the client's interfaces (`run/control/fetch.rs`),
//!   answered by the mirrors (`traffic/mirror.rs`); controllers may open,
//!   steer, probe and close them; page loads share a browser's pool of
//!   them, and arrivals are sessions drawn over time.
//! - Resolvers (`[[resolvers]]`) are dnsmasq servers in their nodes'
//!   namespaces and lookups real UDP queries (`dns/`, `run/control/lookups.rs`),
//!   where dnsmasq is installed, answers by interface as one dnsmasq per
//!   answer set on its own port (`dns/server.rs`); refused: two resolvers on
//!   one node (one server per node, on port 53), more than
//!   `dns::MAX_VIEWS` answer sets by interface, and TTLs that are not whole
//!   seconds (the wire's TTL is an integer, RFC 1035 §3.2.1).
//! - IPv6 (`[[links]] families = ["v4", "v6"]`) is refused: the lab gives
//!   its veths IPv4 addresses only, and its dnsmasq serves A records only
//!   (docs/scenario.md, `families`).
//! - Cells (`[[cells]]`, links with `capacity = { cell = ... }`) are
//!   refused: the emulator times each direction on its own, and a cell's
//!   scheduler shares one air interface among several links.
//! - `[sim] host_egress = "qdisc"`: a TBF qdisc on every host interface
//!   (`testbed/host_qdisc.rs`); refused where a host's outgoing direction
//!   has a varying capacity.
//! - `[[devices]]` energy models (radios, Green MPTCP's linear model) are
//!   fed the link emulator's counters of the host's interfaces at every
//!   sample (`run/energy.rs`).

use std::collections::BTreeSet;
use std::io;

use pathpool_sim::control::ActionKind;
use pathpool_sim::net::ack_path::AckPath;
use pathpool_sim::net::host_egress::HostEgress;
use pathpool_sim::scenario::spec::LabPathManager;
use pathpool_sim::tcp::{RecoveryAlgorithm, TcpConfig};
use pathpool_sim::Model;

use crate::dns;
use crate::testbed::host_qdisc::host_qdiscs;

/// The most flows a lab run starts (each has a client and a server thread).
pub const MAX_FLOWS: usize = 1000;

/// What this kernel offers beyond MPTCP itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelFeatures {
    /// `net.ipv4.tcp_available_congestion_control`, kernel names.
    pub congestion_controls: BTreeSet<String>,
    /// `net.mptcp.available_schedulers`.
    pub schedulers: BTreeSet<String>,
    /// Whether the lab's BPF Westwood+ can run here, else why not (`bpf::available`).
    pub westwood: Result<(), String>,
    /// Whether dnsmasq is installed, else why not (`dns::server::dnsmasq`).
    pub dnsmasq: Result<(), String>,
}

impl KernelFeatures {
    pub fn probe() -> io::Result<KernelFeatures> {
        let words = |path: &str| -> io::Result<BTreeSet<String>> {
            Ok(std::fs::read_to_string(path)?.split_whitespace().map(str::to_string).collect())
        };
        Ok(KernelFeatures {
            congestion_controls: words("/proc/sys/net/ipv4/tcp_available_congestion_control")?,
            schedulers: words("/proc/sys/net/mptcp/available_schedulers").unwrap_or_default(),
            westwood: crate::bpf::available(),
            dnsmasq: crate::dns::server::dnsmasq().map(|_| ()),
        })
    }
}

/// The kernel's name for the simulator's congestion control `cc`.
pub fn kernel_cc(cc: &str) -> &str {
    match cc {
        "newreno" => "reno",
        "westwood" => crate::bpf::KERNEL_NAME,
        other => other,
    }
}

/// Everything in `model` the lab cannot run, one line each; empty if it can
/// run all of it.
pub fn refusals(model: &Model, kernel: &KernelFeatures) -> Vec<String> {
    let mut out = Vec::new();
    if model.flows.len() > MAX_FLOWS {
        out.push(format!("{} flows: the lab runs at most {MAX_FLOWS}", model.flows.len()));
    }
    for r in &model.routers {
        out.push(format!(
            "routers: node '{}' runs router module '{}', which Linux routers do not have",
            model.nodes[r.node as usize].name, r.module
        ));
    }
    if model.ack_path == AckPath::Instant {
        out.push("sim.ack_path = \"instant\": ACKs that skip every queue are htsim's idealised reverse path, not something a kernel does".into());
    }
    for l in model.links.iter().filter(|l| l.v6) {
        out.push(format!(
            "link '{}': families = [\"v4\", \"v6\"]: IPv6 is not built on the lab (its veths have IPv4 addresses only, its dnsmasq serves no AAAA records); the simulator runs it",
            l.name
        ));
    }
    resolver_refusals(model, kernel, &mut out);
    controller_refusals(model, kernel, &mut out);
    for u in &model.ues {
        let l = &model.links[u.link as usize];
        out.push(format!(
            "link '{}': its capacity comes from cells ({}), a shared air interface with mobility that the lab's link emulator does not carry",
            l.name,
            u.cells.iter().map(|&c| model.cells[c].name.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    if model.host_egress == HostEgress::Qdisc {
        out.extend(host_qdiscs(model).into_iter().filter_map(Result::err));
    }
    let default = TcpConfig::default();
    for f in &model.flows {
        let flow = format!("flow '{}'", f.name);
        if let Some(i) = f.src_if {
            out.push(format!(
                "{flow}: interface '{}': binding a single-path flow to one source interface is not built on the lab (its socket would need that interface's address)",
                model.nodes[f.src as usize].interfaces[i as usize]
            ));
        }
        match f.transport.as_str() {
            "tcp" => cc_refusals(&flow, &f.tcp, kernel, &mut out),
            "mptcp" => {
                let m = f.mptcp.as_ref().expect("an mptcp flow has its configuration");
                if m.coupling != "uncoupled" {
                    out.push(format!(
                        "{flow}: mptcp.coupling '{}': Linux MPTCP has no coupled congestion control; use \"uncoupled\"",
                        m.coupling
                    ));
                } else {
                    cc_refusals(&flow, &f.tcp, kernel, &mut out);
                }
                if m.scheduler.starts_with("green") {
                    out.push(format!(
                        "{flow}: mptcp.scheduler '{}': Green MPTCP's scheduler needs a BPF MPTCP scheduler, which this kernel lacks; the lab runs Rules 1 and 3 (path_manager = \"green\", cc = \"bbr\") with the default scheduler (\"minrtt\")",
                        m.scheduler
                    ));
                } else if !matches!(m.scheduler.as_str(), "minrtt" | "linger") && !kernel.schedulers.contains(&m.scheduler) {
                    out.push(format!(
                        "{flow}: mptcp.scheduler '{}': this kernel's MPTCP schedulers are {} (\"minrtt\" and \"linger\" run as \"default\")",
                        m.scheduler,
                        list(&kernel.schedulers)
                    ));
                }
                if m.options_stripped {
                    out.push(format!("{flow}: mptcp.strip_options: the lab has no middlebox that strips MPTCP options"));
                }
                if model.lab.path_manager == LabPathManager::Kernel && m.path_manager == "green" {
                    out.push(format!(
                        "{flow}: mptcp.path_manager 'green': the in-kernel path manager cannot wait for the initial burst; use [lab] path_manager = \"userspace\""
                    ));
                }
                if model.lab.path_manager == LabPathManager::Kernel && !m.actions.is_empty() {
                    out.push(format!(
                        "{flow}: mptcp.actions: the in-kernel path manager takes no timed actions; use [lab] path_manager = \"userspace\""
                    ));
                }
                if m.baselines {
                    out.push(format!("{flow}: mptcp.baselines: the lab does not run single-path baselines; set it to false"));
                }
            }
            other => out.push(format!("{flow}: transport '{other}' needs router support that Linux lacks")),
        }
        if f.forged_slow_downs > 0 {
            out.push(format!("{flow}: inrpp.forged_slow_downs: INRPP notifications exist only in the simulator"));
        }
        let t = &f.tcp;
        let mut differs = |field: &str, ours: String, linux: String| {
            out.push(format!("{flow}: tcp.{field} = {ours}: the lab runs Linux's {linux}"));
        };
        if t.mss != default.mss {
            differs("mss", t.mss.to_string(), default.mss.to_string());
        }
        if t.initial_window != default.initial_window {
            differs("initial_window", t.initial_window.to_string(), default.initial_window.to_string());
        }
        for (field, ours, linux) in [
            ("min_rto", t.min_rto, default.min_rto),
            ("initial_rto", t.initial_rto, default.initial_rto),
            ("max_rto", t.max_rto, default.max_rto),
        ] {
            if ours != linux {
                differs(field, format!("{}s", ours.secs()), format!("{}s", linux.secs()));
            }
        }
        if !t.sack {
            differs("sack", "false".into(), "SACK".into());
        }
        if t.recovery != RecoveryAlgorithm::Prr {
            differs("recovery", format!("{:?}", t.recovery), "PRR".into());
        }
        if t.dupack_threshold != default.dupack_threshold {
            differs("dupack_threshold", t.dupack_threshold.to_string(), default.dupack_threshold.to_string());
        }
        if t.rcv_buffer != default.rcv_buffer {
            differs("rcv_buffer", t.rcv_buffer.to_string(), "receive-buffer autotuning".into());
        }
        if t.delayed_ack && (t.delayed_ack_segments != default.delayed_ack_segments || t.delayed_ack_timeout != default.delayed_ack_timeout) {
            differs("delayed_ack_*", "non-default".into(), "delayed-ACK timing".into());
        }
        if !t.handshake {
            differs("handshake", "false".into(), "three-way handshake".into());
        }
    }
    out
}

/// `[[resolvers]]` that dnsmasq cannot serve as the simulator's resolver answers (`dns/server.rs`).
fn resolver_refusals(model: &Model, kernel: &KernelFeatures, out: &mut Vec<String>) {
    for (i, r) in model.resolvers.iter().enumerate() {
        let at = format!("resolvers[{i}] ('{}' on {})", r.name, model.nodes[r.node as usize].name);
        if let Err(why) = &kernel.dnsmasq {
            out.push(format!("{at}: {why}"));
        }
        if let Some(other) = model.resolvers[..i].iter().find(|o| o.node == r.node) {
            out.push(format!("{at}: '{}' runs on the same node, and the lab runs one DNS server per node (port 53)", other.name));
        }
        for (domain, zone) in &r.zones {
            if zone.ttl.nanos() % 1_000_000_000 != 0 {
                out.push(format!("{at}: domains.\"{domain}\".ttl {} is not whole seconds, as a TTL on the wire is (RFC 1035 §3.2.1)", zone.ttl));
            }
        }
        let views = dns::server::views(r).len();
        if views > dns::MAX_VIEWS {
            let why = format!("answers for {views} interface names; the lab runs one dnsmasq per name, at most {}", dns::MAX_VIEWS);
            out.push(format!("{at}: by_interface: {why}"));
        }
    }
}

/// `[[controllers]]` that may emit an action the lab cannot carry out,
/// from the kinds each declares for its parameters.
fn controller_refusals(model: &Model, kernel: &KernelFeatures, out: &mut Vec<String>) {
    let subflows = [ActionKind::OpenSubflow, ActionKind::CloseSubflow, ActionKind::SetBackup];
    for (i, c) in model.controllers.iter().enumerate() {
        let at = format!("controllers[{i}] ('{}' on {})", c.kind, model.nodes[c.host as usize].name);
        if c.actions.contains(&ActionKind::SetScheduler) {
            out.push(format!("{at}: may set a connection's scheduler, and the kernel has no BPF MPTCP scheduler"));
        }
        if let (true, Err(why)) = (c.actions.contains(&ActionKind::SetIncrement), &kernel.westwood) {
            out.push(format!("{at}: may set Westwood+'s increment coefficient, and {why}"));
        }
        if model.lab.path_manager == LabPathManager::Kernel {
            if let Some(k) = c.actions.iter().find(|k| subflows.contains(k)) {
                out.push(format!(
                    "{at}: may {} ({}), and the in-kernel path manager takes no subflow commands; use [lab] path_manager = \"userspace\"",
                    k.name().replace('_', " "),
                    k.name()
                ));
            }
        }
    }
}

fn cc_refusals(flow: &str, t: &TcpConfig, kernel: &KernelFeatures, out: &mut Vec<String>) {
    let name = kernel_cc(&t.cc);
    if t.cc == "westwood" {
        if let Err(why) = &kernel.westwood {
            out.push(format!("{flow}: tcp.cc 'westwood': {why}"));
        }
        // Its one parameter, `increment`, is the BPF program's (checked by the scenario's loader).
        return;
    }
    if !kernel.congestion_controls.contains(name) {
        out.push(format!(
            "{flow}: tcp.cc '{}': not available in this kernel (it has {})",
            t.cc,
            list(&kernel.congestion_controls)
        ));
    }
    if !t.cc_params.is_empty() {
        let names: Vec<&str> = t.cc_params.keys().map(String::as_str).collect();
        out.push(format!(
            "{flow}: tcp.cc_params ({}): the kernel's algorithms take no per-flow parameters",
            names.join(", ")
        ));
    }
}

fn list(names: &BTreeSet<String>) -> String {
    names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathpool_sim::scenario::{load, Format, Source};
    use pathpool_sim::net::capacity::Capacity;
    use pathpool_sim::Time;

    fn kernel() -> KernelFeatures {
        KernelFeatures {
            congestion_controls: ["reno", "cubic", "bbr"].map(String::from).into(),
            schedulers: ["default"].map(String::from).into(),
            westwood: Err("the lab's BPF Westwood+ was not built: missing clang (Debian package clang)".into()),
            dnsmasq: Ok(()),
        }
    }

    fn with_westwood() -> KernelFeatures {
        KernelFeatures { westwood: Ok(()), ..kernel() }
    }

    fn model(flows: &str) -> Model {
        let src = Source { name: "<test>".into(), dir: ".".into(), data_dir: None };
        let toml = format!(
            r#"
            [sim]
            duration = "1s"
            [[nodes]]
            name = "c"
            [[nodes]]
            name = "r"
            kind = "router"
            [[nodes]]
            name = "s"
            [[links]]
            a = "c:eth0"
            b = "r"
            rate = "10Mbps"
            delay = "1ms"
            [[links]]
            name = "second"
            a = "c:eth1"
            b = "r"
            rate = "10Mbps"
            delay = "1ms"
            [[links]]
            a = "r"
            b = "s"
            rate = "10Mbps"
            delay = "1ms"
            {flows}
            "#
        );
        load(&toml, Format::Toml, &src, None).unwrap()
    }

    #[test]
    fn linux_defaults_run() {
        let m = model(
            r#"
            [[flows]]
            src = "c"
            dst = "s"
            tcp = { cc = "cubic" }
            [[flows]]
            src = "c"
            dst = "s"
            transport = "mptcp"
            tcp = { cc = "bbr" }
            mptcp = { coupling = "uncoupled", path_manager = "backup" }
            "#,
        );
        assert_eq!(refusals(&m, &kernel()), Vec::<String>::new());
    }

    #[test]
    fn instant_acks_are_refused() {
        let mut m = model("[[flows]]\nsrc = \"c\"\ndst = \"s\"");
        m.ack_path = AckPath::Instant;
        let r = refusals(&m, &kernel());
        assert!(r.len() == 1 && r[0].contains("sim.ack_path"), "{r:?}");
    }

    #[test]
    fn applications_run() {
        let m = model(
            r#"
            [[flows]]
            src = "s"
            dst = "c"
            client = "dst"
            app = { kind = "video", bitrate = "2Mbps", segment = "1s", duration = "1s" }
            [[flows]]
            src = "s"
            dst = "c"
            client = "dst"
            transport = "mptcp"
            mptcp = { coupling = "uncoupled" }
            app = { kind = "download", size = "1MB", count = 2 }
            "#,
        );
        assert_eq!(refusals(&m, &kernel()), Vec::<String>::new());
    }

    #[test]
    fn each_unsupported_feature_is_named() {
        let m = model(
            r#"
            [[flows]]
            name = "w"
            src = "c"
            dst = "s"
            tcp = { cc = "westwood", sack = false }
            [[flows]]
            name = "m"
            src = "c"
            dst = "s"
            transport = "mptcp"
            mptcp = { coupling = "lia", scheduler = "blest", baselines = true }
            [[flows]]
            name = "forger"
            src = "c"
            dst = "s"
            inrpp = { forged_slow_downs = 2 }
            "#,
        );
        let r = refusals(&m, &kernel());
        assert_eq!(r.len(), 6, "{r:#?}");
        assert!(r[5].starts_with("flow 'forger': inrpp.forged_slow_downs"), "{}", r[5]);
        assert_eq!(r[0], "flow 'w': tcp.cc 'westwood': the lab's BPF Westwood+ was not built: missing clang (Debian package clang)");
        assert!(r[1].starts_with("flow 'w': tcp.sack = false"), "{}", r[1]);
        assert!(r[2].contains("flow 'm': mptcp.coupling 'lia'"), "{}", r[2]);
        assert!(r[3].contains("mptcp.scheduler 'blest'"), "{}", r[3]);
        assert!(r[4].contains("mptcp.baselines"), "{}", r[4]);
    }

    #[test]
    fn fetch_sessions_and_pat_run_with_resolvers_where_dnsmasq_is() {
        let text = r#"
            [[contents]]
            name = "movie"
            bytes = "1MB"
            mirrors = ["s"]
            [[fetches]]
            name = "dl"
            client = "c"
            content = "movie"
            policy = "controller"
            [[controllers]]
            host = "c"
            kind = "pat"
            "#;
        assert_eq!(refusals(&model(text), &kernel()), Vec::<String>::new());
        let dns = text.replace("mirrors = [\"s\"]", "mirrors = [\"s\"]\n            domain = \"cdn.example\"")
            + "[[resolvers]]\nname = \"local\"\nnode = \"s\"\n[resolvers.domains.\"cdn.example\"]\nmirrors = [\"s\"]\nttl = \"60s\"\n"
            + "[controllers.params]\nresolvers = \"local\"\n";
        assert_eq!(refusals(&model(&dns), &kernel()), Vec::<String>::new());
        let why = "dnsmasq is not installed (Debian package dnsmasq-base; `make install` as root installs it)";
        let missing = KernelFeatures { dnsmasq: Err(why.into()), ..kernel() };
        assert_eq!(refusals(&model(&dns), &missing), [format!("resolvers[0] ('local' on s): {why}")]);
    }

    #[test]
    fn pages_and_arrivals_run() {
        let text = r#"
            [[contents]]
            name = "index"
            bytes = "10kB"
            mirrors = ["s"]
            [[pages]]
            name = "news"
            client = "c"
            objects = [{ content = "index" }]
            [[arrivals]]
            name = "users"
            clients = ["c"]
            mirrors = ["s"]
            rate = 5
            "#;
        let m = model(text);
        let n = m.arrivals[0].sessions.len();
        assert!(n > 0 && m.fetches.len() == n + 1, "{n} sessions drawn, {} in all", m.fetches.len());
        let r = refusals(&m, &kernel());
        assert_eq!(r, Vec::<String>::new());
    }

    #[test]
    fn green_path_manager_needs_the_userspace_path_manager() {
        let flow = r#"
            [[flows]]
            src = "c"
            dst = "s"
            transport = "mptcp"
            tcp = { cc = "bbr" }
            mptcp = { coupling = "uncoupled", path_manager = "green" }
            "#;
        assert_eq!(refusals(&model(flow), &kernel()), Vec::<String>::new());
        let r = refusals(&model(&format!("{flow}\n[lab]\npath_manager = \"kernel\"\n")), &kernel());
        assert_eq!(r.len(), 1, "{r:#?}");
        assert!(r[0].starts_with("flow 'f0': mptcp.path_manager 'green': the in-kernel path manager cannot wait"), "{}", r[0]);
        let green = flow.replace("path_manager = \"green\"", "path_manager = \"green\", scheduler = \"green\"")
            + "[[devices]]\nhost = \"c\"\nlinear = { w = { eth0 = 1, eth1 = 3 } }\n";
        let r = refusals(&model(&green), &kernel());
        assert!(r.iter().any(|m| m.starts_with("flow 'f0': mptcp.scheduler 'green': Green MPTCP's scheduler needs a BPF MPTCP scheduler")), "{r:#?}");
    }

    /// A controller on client `c` (two interfaces) that falls back to eth1.
    const FALLBACK: &str = r#"
            [[flows]]
            src = "c"
            dst = "s"
            transport = "mptcp"
            mptcp = { coupling = "uncoupled", path_manager = "single_path" }
            [[controllers]]
            host = "c"
            kind = "rate_fallback"
            params = { threshold = "1Mbps" }
            "#;

    #[test]
    fn controllers_run_with_the_userspace_path_manager() {
        assert_eq!(refusals(&model(FALLBACK), &kernel()), Vec::<String>::new());
    }

    #[test]
    fn ipv6_links_are_refused() {
        let mut m = model(FALLBACK);
        m.links[1].v6 = true;
        let r = refusals(&m, &kernel());
        assert_eq!(r.len(), 1, "{r:#?}");
        assert!(r[0].starts_with("link 'second': families = [\"v4\", \"v6\"]: IPv6 is not built on the lab"), "{}", r[0]);
    }

    #[test]
    fn host_qdiscs_need_a_constant_rate_leaving_each_host() {
        let mut m = model(FALLBACK);
        m.host_egress = HostEgress::Qdisc;
        assert_eq!(refusals(&m, &kernel()), Vec::<String>::new());
        m.links[1].dirs[0].capacity = Capacity::Schedule { steps: vec![(Time::ZERO, 1e6)] };
        let r = refusals(&m, &kernel());
        assert_eq!(r.len(), 1, "{r:#?}");
        assert!(r[0].starts_with("link 'second': [sim] host_egress = \"qdisc\" needs a constant rate"), "{}", r[0]);
    }

    #[test]
    fn a_controller_that_may_set_the_scheduler_is_refused() {
        let mut m = model(FALLBACK);
        // No built-in kind sets the scheduler yet: declare it as one would.
        m.controllers[0].actions.push(ActionKind::SetScheduler);
        let r = refusals(&m, &kernel());
        assert_eq!(r.len(), 1, "{r:#?}");
        assert!(r[0].starts_with("controllers[0] ('rate_fallback' on c): may set a connection's scheduler"), "{}", r[0]);
    }

    #[test]
    fn what_dnsmasq_cannot_answer_is_refused() {
        let text = FALLBACK.replace("kind = \"rate_fallback\"\n            params = { threshold = \"1Mbps\" }", "kind = \"lookup\"\n            params = { resolver = \"s\", domain = \"cdn.example\" }")
            + "[[resolvers]]\nnode = \"s\"\n[resolvers.domains.\"cdn.example\"]\nmirrors = [\"s\"]\nttl = \"1.5s\"\n"
            + "[resolvers.domains.\"cdn.example\".by_interface]\neth1 = [\"s\"]\n"
            + "[[resolvers]]\nname = \"again\"\nnode = \"s\"\n";
        let r = refusals(&model(&text), &kernel());
        assert_eq!(r.len(), 2, "answers by interface are served; {r:#?}");
        assert!(r[0].starts_with("resolvers[0] ('s' on s): domains.\"cdn.example\".ttl 1.5"), "{}", r[0]);
        assert!(r[0].ends_with("is not whole seconds, as a TTL on the wire is (RFC 1035 §3.2.1)"), "{}", r[0]);
        assert_eq!(r[1], "resolvers[1] ('again' on s): 's' runs on the same node, and the lab runs one DNS server per node (port 53)");
    }

    #[test]
    fn the_emptcp_weight_manager_runs_where_the_bpf_westwood_does() {
        let text = FALLBACK
            .replace("kind = \"rate_fallback\"\n            params = { threshold = \"1Mbps\" }", "kind = \"emptcp\"\n            params = { bw_max = 110000 }")
            .replace("mptcp = {", "tcp = { cc = \"westwood\", cc_params = { increment = 0.5 } }\n            mptcp = {");
        assert!(text.contains("emptcp") && text.contains("increment = 0.5"));
        assert_eq!(refusals(&model(&text), &with_westwood()), Vec::<String>::new());
        let r = refusals(&model(&text), &kernel());
        assert_eq!(r.len(), 2, "{r:#?}");
        assert_eq!(r[0], "controllers[0] ('emptcp' on c): may set Westwood+'s increment coefficient, and the lab's BPF Westwood+ was not built: missing clang (Debian package clang)");
        assert_eq!(r[1], "flow 'f0': tcp.cc 'westwood': the lab's BPF Westwood+ was not built: missing clang (Debian package clang)");
    }

    #[test]
    fn subflow_actions_are_refused_with_the_in_kernel_path_manager() {
        let m = model(&format!("{FALLBACK}\n[lab]\npath_manager = \"kernel\"\n"));
        let r = refusals(&m, &kernel());
        assert_eq!(r.len(), 1, "{r:#?}");
        assert!(r[0].contains("may open subflow (open_subflow), and the in-kernel path manager takes no subflow commands"), "{}", r[0]);
    }
}
