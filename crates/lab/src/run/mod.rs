//! A scenario on the real Linux stack (`pathpool run --plane lab`): refuse
//! what the lab cannot run (`support.rs`), build the testbed, start per
//! flow a listening server in the namespace of its end that does not
//! connect and a client in the one that does (the source, or the
//! destination with `client = "dst"`), the data flowing from source to
//! destination either way; a controller thread per host that has
//! controllers or connects MPTCP flows (`control/`); sample the kernel's
//! per-connection statistics and the emulator's counters every
//! `sim.sample_interval`, stop at the scenario's end, and return the
//! simulator's tables (`collect.rs`).
//!
//! Model time zero is set a short lead after the build starts, so that
//! every listener and controller is ready when the first flow starts and
//! link events and capacity traces line up with the flows' start times. A
//! run that could not be set up within that lead fails rather than run
//! shifted in time.

mod collect;
mod connection;
mod control;
mod energy;
mod estimate;

use std::collections::BTreeSet;
use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pathpool_sim::metrics::sampler::{FlowSample, LinkSample, Sampler, SubflowSample};
use pathpool_sim::metrics::Table;
use pathpool_sim::results;
use pathpool_sim::mptcp::MptcpConfig;
use pathpool_sim::scenario::model::FlowModel;
use pathpool_sim::scenario::spec::LabPathManager;
use pathpool_sim::{Model, Time};

use crate::bpf::Westwood;
use crate::dns::server::Dnsmasq;
use crate::emulator::netdev;
use estimate::Estimates;
use crate::pm::{Endpoint, EndpointFlags, EventStream, Limits, PathManager};
use crate::preflight;
use crate::support::{self, kernel_cc, KernelFeatures};
use crate::testbed::{self, Testbed};
use crate::traffic::client::ClientSpec;
use crate::traffic::info::{self, TcpInfo};
use crate::traffic::server;
use crate::traffic::transfer::{self, Open};
use crate::traffic::{self, FlowState, RunClock, BASE_PORT};
use pathpool_sim::app::fetch::Fetch;
use pathpool_sim::app::{self, fetch_results, page_results, App};
use pathpool_sim::cc::westwood::WestwoodParams;
use pathpool_sim::cc::Params;
use pathpool_sim::control::ActionKind;
use connection::Connection;

pub struct LabOutput {
    pub tables: Vec<Table>,
    /// The simulator's summary fields, `plane = "lab"`.
    pub summary: serde_json::Value,
    /// Wall time from the build to the teardown.
    pub wall_s: f64,
}

#[derive(Debug)]
pub enum Error {
    /// Features the lab cannot run, one line each.
    Refused(Vec<String>),
    Testbed(testbed::Error),
    /// The run started and something broke; no results.
    Failed(Vec<String>),
    /// The caller asked to stop (its progress callback returned false).
    Interrupted,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Refused(lines) => write!(f, "the kernel lab cannot run this scenario:\n  - {}", lines.join("\n  - ")),
            Error::Testbed(e) => e.fmt(f),
            Error::Failed(lines) => write!(f, "the lab run failed:\n  - {}", lines.join("\n  - ")),
            Error::Interrupted => f.write_str("the lab run was interrupted"),
        }
    }
}

impl std::error::Error for Error {}

impl From<testbed::Error> for Error {
    fn from(e: testbed::Error) -> Error {
        Error::Testbed(e)
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::Testbed(testbed::Error::Io(e))
    }
}

/// Time from the start of the build to model time zero: namespaces and
/// veths take a few ms each on this kind of machine, `ip -batch` per node
/// a few more. The set-up is mostly CPU work in `ip` and the kernel, so on a
/// machine with more runnable threads than CPUs (load(5)'s one-minute
/// average, /proc/loadavg) it takes that many times longer: the lead grows
/// by the same factor, at most 4.
fn lead(model: &Model) -> Duration {
    let base = Duration::from_millis(1500 + 40 * (model.nodes.len() + model.links.len()) as u64 + 2 * model.flows.len() as u64);
    base.mul_f64(contention())
}

/// The one-minute load average per CPU, within [1, 4]; 1 if unreadable.
fn contention() -> f64 {
    let load = std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok());
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    load.map_or(1.0, |l| (l / cpus).clamp(1.0, 4.0))
}

/// The address of each node's interfaces, in the model's interface order.
fn addresses(model: &Model, testbed: &Testbed) -> Vec<Vec<IpAddr>> {
    model
        .nodes
        .iter()
        .zip(&testbed.plan().nodes)
        .map(|(m, p)| {
            m.interfaces
                .iter()
                .map(|name| IpAddr::V4(p.interfaces.iter().find(|i| &i.name == name).expect("every interface is planned").addr))
                .collect()
        })
        .collect()
}

/// The in-kernel path manager's endpoints on node `n` (the set-up of
/// ip-mptcp(8) and mptcp.dev): on a client, a `subflow` endpoint on every
/// interface that no MPTCP flow it connects starts on, flagged `backup` if
/// one of its flows asks for the backup path manager; on a server, a
/// `signal` endpoint (announced with ADD_ADDR) on every interface no flow
/// to it starts on. None where every flow is `single_path`.
fn kernel_endpoints(model: &Model, addrs: &[Vec<IpAddr>], n: u32, client: bool) -> Vec<Endpoint> {
    let mine = |f: &&FlowModel| (f.src == n || f.dst == n) && (f.client == n) == client;
    let configs: Vec<(&FlowModel, &MptcpConfig)> = model.flows.iter().filter(mine).filter_map(|f| Some((f, f.mptcp.as_ref()?))).collect();
    if configs.iter().all(|(_, c)| c.path_manager == "single_path") {
        return Vec::new();
    }
    let initial: Vec<usize> = configs.iter().map(|(f, c)| if f.src == n { c.initial.0 } else { c.initial.1 } as usize).collect();
    let flags = if !client {
        EndpointFlags::SIGNAL
    } else if configs.iter().any(|(_, c)| c.path_manager == "backup") {
        EndpointFlags::SUBFLOW | EndpointFlags::BACKUP
    } else {
        EndpointFlags::SUBFLOW
    };
    addrs[n as usize]
        .iter()
        .enumerate()
        .filter(|(k, _)| !initial.contains(k))
        .map(|(k, &addr)| Endpoint { id: k as u8 + 1, addr, port: None, flags, ifindex: None })
        .collect()
}

/// The end of flow `f` that does not connect: it listens.
fn server_of(f: &FlowModel) -> u32 {
    if f.client == f.src { f.dst } else { f.src }
}

/// How flow `i`'s client connects: from its end of the initial subflow (for
/// MPTCP) to the server's, setting the congestion control if it sends the data.
fn client_spec(model: &Model, addrs: &[Vec<IpAddr>], i: usize) -> ClientSpec {
    let f = &model.flows[i];
    let (src_if, dst_if) = f.mptcp.as_ref().map_or((0, 0), |m| m.initial);
    let at_src = f.client == f.src;
    let (client_if, server_if) = if at_src { (src_if, dst_if) } else { (dst_if, src_if) };
    let server = server_of(f);
    ClientSpec {
        mptcp: f.transport == "mptcp",
        cc: at_src.then(|| kernel_cc(&f.tcp.cc).to_string()),
        bind: f.mptcp.as_ref().map(|_| SocketAddr::new(addrs[f.client as usize][client_if as usize], 0)),
        server: SocketAddr::new(addrs[server as usize][server_if as usize], BASE_PORT + i as u16),
        start: f.start,
        after: f.after.map(|a| a as usize),
        ask_opening: model.controllers.iter().any(|c| {
            c.host == f.client && (c.actions.contains(&ActionKind::SetMss) || (at_src && c.actions.contains(&ActionKind::SetCongestionControl)))
        }),
    }
}

/// The BPF Westwood+ registered for a run with `westwood` flows, each
/// flow's `increment` written by its server port (`bpf/`); None otherwise.
fn westwood(model: &Model) -> Result<Option<Westwood>, String> {
    let flows: Vec<(usize, &FlowModel)> = model.flows.iter().enumerate().filter(|(_, f)| f.tcp.cc == "westwood").collect();
    if flows.is_empty() {
        return Ok(None);
    }
    let w = Westwood::register()?;
    for (i, f) in flows {
        let a = WestwoodParams::read(&mut Params::new("westwood", &f.tcp.cc_params)).increment;
        w.set_flow_increment(BASE_PORT + i as u16, a).map_err(|e| format!("flow '{}': increment in the BPF map: {e}", f.name))?;
    }
    Ok(Some(w))
}

/// Runs `model` in the lab. `progress(now)` is called after each sample; a
/// false return stops the run (`Error::Interrupted`).
pub fn run(model: &Model, progress: &mut dyn FnMut(Time) -> bool) -> Result<LabOutput, Error> {
    preflight::check().map_err(testbed::Error::Unavailable)?;
    let refused = support::refusals(model, &KernelFeatures::probe()?);
    if !refused.is_empty() {
        return Err(Error::Refused(refused));
    }
    // Registered before the testbed's lead starts (bpftool takes a few hundred ms).
    let registered = westwood(model).map_err(|e| Error::Failed(vec![e]))?;
    let wall = Instant::now();
    let zero = wall + lead(model);
    let testbed = Testbed::build_at(model, Some(zero))?;
    let addrs = addresses(model, &testbed);
    let ns = |node: u32| testbed.node(&model.nodes[node as usize].name).expect("every node has a namespace");
    let is_mptcp = |i: usize| model.flows[i].transport == "mptcp";

    // Where MPTCP flows are opened, the userspace path manager (pathpool's
    // controllers open the subflows) or the in-kernel one; both ends get
    // room for joins and announcements.
    let mode = model.lab.path_manager;
    let ends = |client: bool| -> BTreeSet<u32> {
        let mptcp = (0..model.flows.len()).filter(|&i| is_mptcp(i)).map(|i| &model.flows[i]);
        mptcp.map(|f| if client { f.client } else { server_of(f) }).collect()
    };
    let (clients, servers) = (ends(true), ends(false));
    if mode == LabPathManager::Userspace {
        for &n in &clients {
            ns(n).sysctl("net.mptcp.pm_type", "1")?;
        }
    }
    // A node that is both client and server of MPTCP flows is set up as a client.
    let roles = clients.iter().map(|&n| (n, true)).chain(servers.difference(&clients).map(|&n| (n, false)));
    for (n, client) in roles {
        let endpoints = if mode == LabPathManager::Kernel { kernel_endpoints(model, &addrs, n, client) } else { Vec::new() };
        ns(n)
            .run(|| -> Result<(), crate::pm::Error> {
                let mut pm = PathManager::open()?;
                pm.set_limits(Limits { add_addr_accepted: 8, subflows: 8 })?;
                endpoints.iter().try_for_each(|e| pm.add_endpoint(e))
            })?
            .map_err(|e| Error::Failed(vec![format!("MPTCP path manager on {}: {e}", model.nodes[n as usize].name)]))?;
    }
    let mut listeners = Vec::with_capacity(model.flows.len());
    for (i, f) in model.flows.iter().enumerate() {
        let cc = (f.client != f.src).then(|| kernel_cc(&f.tcp.cc));
        listeners.push(Some(ns(server_of(f)).run(|| server::listen(BASE_PORT + i as u16, is_mptcp(i), cc))??));
    }
    // Each resolver's dnsmasq, serving from before model time zero (`dns/server.rs`).
    let mut resolvers = Vec::with_capacity(model.resolvers.len());
    for r in &model.resolvers {
        resolvers.extend(Dnsmasq::start_all(r, ns(r.node), &addrs[r.node as usize], &addrs).map_err(|e| Error::Failed(vec![e]))?);
    }
    let westwood = registered.as_ref();
    let estimates = Estimates::open(model, westwood, ns)?;
    let hosts: Vec<u32> = control::hosts(model, mode).into_iter().collect();
    // Each node's interface MTUs as its own namespace has them (netdevice(7) SIOCGIFMTU).
    let mut mtus: Vec<Vec<Option<u32>>> = model.nodes.iter().map(|_| Vec::new()).collect();
    for &n in &hosts {
        let names = &model.nodes[n as usize].interfaces;
        mtus[n as usize] = ns(n).run(|| names.iter().map(|i| netdev::interface(i).ok().map(|(_, mtu)| mtu)).collect())?;
    }
    let mut pm_sockets = Vec::with_capacity(hosts.len());
    for &n in &hosts {
        let pair = ns(n).run(|| Ok::<_, crate::pm::Error>((EventStream::subscribe()?, PathManager::open()?)))?;
        pm_sockets.push(pair.map_err(|e| Error::Failed(vec![format!("path manager on {}: {e}", model.nodes[n as usize].name)]))?);
    }
    if Instant::now() > zero {
        return Err(Error::Failed(vec![format!(
            "setting up took {:.2} s, more than the {:.2} s lead before model time zero",
            wall.elapsed().as_secs_f64(),
            lead(model).as_secs_f64()
        )]));
    }

    let clock = RunClock { epoch: zero, stop: Default::default() };
    let flows: Vec<FlowState> = model.flows.iter().map(|f| FlowState { app: f.app.as_ref().map(|a| Mutex::new(App::new(a))), ..Default::default() }).collect();
    let mut app_ts = app::Series::default();
    let conns: Vec<Mutex<Connection>> = model.flows.iter().map(|_| Mutex::default()).collect();
    let specs: Vec<ClientSpec> = (0..model.flows.len()).map(|i| client_spec(model, &addrs, i)).collect();
    let record = Mutex::new(control::Record::default());
    let sessions: Vec<Mutex<Fetch>> = model.fetches.iter().map(|_| Mutex::default()).collect();
    let sent_on: Vec<Mutex<Vec<(u32, u32)>>> = model.flows.iter().map(|_| Mutex::default()).collect();
    let dns = Mutex::new(Vec::new());
    let shared = control::Shared {
        model,
        addrs: &addrs,
        flows: &flows,
        conns: &conns,
        emulator: testbed.emulator(),
        mode,
        clock: &clock,
        log: &record,
        westwood,
        estimates: &estimates,
        mtus: &mtus,
        sessions: &sessions,
        sent_on: &sent_on,
        dns: &dns,
    };

    let mut sampler = Sampler::new(model.sample_interval, model.flows.len(), model.links.len() * 2);
    let mut end = EndState::new(model.flows.len());
    let mut energy = energy::LabEnergy::new(model);
    let mut errors = Vec::new();
    let mut interrupted = false;
    std::thread::scope(|s| {
        let (clock, flows, shared) = (&clock, &flows, &shared);
        for (i, (f, spec)) in model.flows.iter().zip(&specs).enumerate() {
            let listener = listeners[i].take().expect("one listener per flow");
            let cc = (f.client != f.src).then(|| kernel_cc(&f.tcp.cc));
            let (connect, accept) = (Open::Connect { ns: ns(f.client), spec }, Open::Accept { listener, cc });
            let (at_src, at_dst) = if f.client == f.src { (connect, accept) } else { (accept, connect) };
            let (size, stop) = (f.size, f.stop.unwrap_or(model.duration).min(model.duration));
            let quickack = !f.tcp.delayed_ack;
            if f.fetch.is_some() {
                // A fetch session's connection: its client host's thread opens it when asked (`control/fetch.rs`).
                s.spawn(move || traffic::mirror::server(at_src, model, flows, i, clock));
                continue;
            }
            if f.app.is_some() {
                // The application's client is the destination, its server the source.
                let end = model.duration;
                s.spawn(move || traffic::app::client(at_dst, quickack, end, flows, i, clock));
                s.spawn(move || traffic::app::server(at_src, flows, i, clock));
                continue;
            }
            s.spawn(move || transfer::destination(at_dst, size, quickack, flows, i, clock));
            s.spawn(move || transfer::source(at_src, size, stop, flows, i, clock));
        }
        let controllers: Vec<_> = hosts
            .iter()
            .zip(pm_sockets)
            .map(|(&n, (events, pm))| {
                let ns = ns(n);
                s.spawn(move || control::run(shared, n, ns, events, pm))
            })
            .collect();

        let dt = model.sample_interval;
        let mut k = 1;
        while dt > Time::ZERO && Time(dt.0 * k) <= model.duration {
            let t = Time(dt.0 * k);
            if !clock.sleep_until(t) {
                break;
            }
            sample(model, &testbed, flows, &conns, &estimates, &mut end, Some(&mut sampler), t);
            sample_apps(flows, clock, model.duration, &mut app_ts, t);
            if let Some(e) = energy.as_mut() {
                e.sample(t, &testbed.emulator().stats(), model);
            }
            if !progress(t) {
                interrupted = true;
                break;
            }
            k += 1;
        }
        if !interrupted && clock.sleep_until(model.duration) {
            sample(model, &testbed, flows, &conns, &estimates, &mut end, None, model.duration);
            if let Some(e) = energy.as_mut() {
                e.sample(model.duration, &testbed.emulator().stats(), model);
            }
        }
        clock.stop.store(true, Ordering::Relaxed);
        for c in controllers {
            match c.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => errors.push(e),
                Err(_) => errors.push("a controller thread panicked".into()),
            }
        }
    });
    if interrupted {
        return Err(Error::Interrupted);
    }
    for (f, state) in model.flows.iter().zip(&flows) {
        if let Some(e) = state.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
            errors.push(format!("flow '{}': {e}", f.name));
        }
    }
    if !errors.is_empty() {
        return Err(Error::Failed(errors));
    }
    let links = testbed.emulator().stats();
    drop(resolvers);
    drop(testbed);
    // Only runs with fetch sessions (and pages) have their tables, as in the simulator.
    let ledgers: Vec<Fetch> = sessions.into_iter().map(|f| f.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    let sent_on: Vec<Vec<(u32, u32)>> = sent_on.into_iter().map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    let opened = |flow: u32| flows[flow as usize].started().is_some();
    let fetches = (!model.fetches.is_empty()).then(|| {
        // Requests are in the TCP byte stream: none is resent by the application.
        let pairs: Vec<(&Fetch, u64)> = ledgers.iter().map(|f| (f, 0)).collect();
        fetch_results::tables(model, &pairs, opened)
    });
    let pages = (!model.pages.is_empty()).then(|| {
        let place = |conn: u32, ask: (u32, u32)| sent_on[conn as usize].iter().position(|&a| a == ask);
        page_results::tables(model, |s| &ledgers[s as usize], |_| 0, opened, place)
    });
    let conns: Vec<Connection> = conns.into_iter().map(|c| c.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    let record = record.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut out = collect::output(model, &flows, &conns, &end, &links, sampler, record, wall.elapsed().as_secs_f64());
    // Only runs with applications have their tables, as in the simulator.
    if flows.iter().any(|f| f.app.is_some()) {
        let mut apps: Vec<(u32, App)> =
            flows.into_iter().enumerate().filter_map(|(i, f)| Some((i as u32, f.app?.into_inner().unwrap_or_else(|e| e.into_inner())))).collect();
        out.tables.push(app::table(apps.iter_mut().map(|(i, a)| (*i, a)), model.duration));
        out.tables.push(app_ts.into_table());
    }
    if let Some(e) = energy {
        let (table, radio_ts, summary) = e.finish(model.duration, model, &end.delivered);
        out.summary["energy"] = summary;
        out.tables.extend([table, radio_ts]);
    }
    // Only runs with resolvers have a `dns` table, as in the simulator.
    if !model.resolvers.is_empty() {
        out.tables.push(results::dns(model, &dns.into_inner().unwrap_or_else(|e| e.into_inner())));
    }
    out.tables.extend(fetches.into_iter().flatten());
    out.tables.extend(pages.into_iter().flatten());
    Ok(out)
}

/// The `app_ts` rows at sample time `t`: each started application's
/// (buffer, bitrate), read under its lock at the clock's time (never past
/// `end`), so the session never sees time go back.
fn sample_apps(flows: &[FlowState], clock: &RunClock, end: Time, series: &mut app::Series, t: Time) {
    for (i, state) in flows.iter().enumerate() {
        let Some(a) = &state.app else { continue };
        if state.started().is_some_and(|at| at <= t) {
            let mut a = traffic::app::lock(a);
            if let Some(sample) = a.sample(clock.now().min(end)) {
                series.push(t, i as u32, sample);
            }
        }
    }
}

/// What a single-path flow's sender last reported, and its srtt samples.
#[derive(Default, Clone)]
struct SenderInfo {
    last: Option<TcpInfo>,
    srtt_sum_s: f64,
    srtt_samples: u64,
}

/// Per flow: bytes delivered at the end of the run, and the TCP sender's
/// statistics (single-path flows; MPTCP keeps them per subflow).
struct EndState {
    delivered: Vec<u64>,
    senders: Vec<SenderInfo>,
}

impl EndState {
    fn new(flows: usize) -> EndState {
        EndState { delivered: vec![0; flows], senders: vec![SenderInfo::default(); flows] }
    }
}

/// Reads every flow's kernel statistics and every direction's counters at
/// model time `t`; with a sampler, also adds the time-series rows (flows
/// that have started by t and not finished before it, as the simulator).
fn sample(
    model: &Model,
    testbed: &Testbed,
    flows: &[FlowState],
    conns: &[Mutex<Connection>],
    estimates: &Estimates,
    end: &mut EndState,
    mut sampler: Option<&mut Sampler>,
    t: Time,
) {
    for (i, (f, state)) in model.flows.iter().zip(flows).enumerate() {
        let delivered = state.delivered.load(Ordering::Relaxed);
        end.delivered[i] = delivered;
        let paced = f.tcp.cc == "bbr";
        let mut flow = FlowSample { delivered, cwnd: 0, srtt: None, in_flight: 0, pacing_rate: None, bw_estimate: None, imbalance: 0, increment: None };
        if let Some(socket) = state.socket(true) {
            if f.transport == "mptcp" {
                let subflows = info::mptcp_subflows(socket.as_fd()).unwrap_or_default();
                let mut conn = conns[i].lock().unwrap_or_else(|e| e.into_inner());
                let (mut pacing, mut bw) = (0.0, None);
                for (j, r) in conn.subflows.iter_mut().enumerate() {
                    let Some(s) = subflows.iter().find(|s| r.is_info(s, true)) else { continue };
                    r.last = Some(s.tcp);
                    let est = if r.is_open() { estimates.of(f, s.local, s.remote) } else { None };
                    if let Some(e) = est {
                        *bw.get_or_insert(0.0) += e.bw_estimate;
                    }
                    if let Some(srtt) = s.tcp.srtt_s() {
                        r.srtt_sum_s += srtt;
                        r.srtt_samples += 1;
                        flow.srtt = Some(flow.srtt.map_or(Time::from_secs_f64(srtt), |m: Time| m.min(Time::from_secs_f64(srtt))));
                    }
                    flow.cwnd += s.tcp.cwnd_bytes();
                    flow.in_flight += s.tcp.in_flight_bytes();
                    pacing += s.tcp.pacing_rate as f64;
                    if let (Some(sampler), true) = (sampler.as_deref_mut(), r.is_open()) {
                        let sub = SubflowSample {
                            delivered: s.tcp.payload_acked(),
                            cwnd: s.tcp.cwnd_bytes(),
                            srtt: s.tcp.srtt_s().map(Time::from_secs_f64),
                            in_flight: s.tcp.in_flight_bytes(),
                            bw_estimate: est.map(|e| e.bw_estimate),
                            increment: est.and_then(|e| e.increment),
                        };
                        sampler.subflow(t, i as u32, j as u32, sub);
                    }
                }
                flow.pacing_rate = paced.then_some(pacing);
                flow.bw_estimate = bw;
            } else if let Ok(tcp) = info::tcp_info(socket.as_fd()) {
                let s = &mut end.senders[i];
                s.last = Some(tcp);
                if let Some(srtt) = tcp.srtt_s() {
                    s.srtt_sum_s += srtt;
                    s.srtt_samples += 1;
                }
                flow.cwnd = tcp.cwnd_bytes();
                flow.srtt = tcp.srtt_s().map(Time::from_secs_f64);
                flow.in_flight = tcp.in_flight_bytes();
                flow.pacing_rate = paced.then_some(tcp.pacing_rate as f64);
                if let Some(e) = info::socket_ends(&socket).and_then(|(local, remote)| estimates.of(f, local, remote)) {
                    flow.bw_estimate = Some(e.bw_estimate);
                    flow.increment = e.increment;
                }
            }
        }
        let finished_before = state.finished().is_some_and(|at| at + model.sample_interval <= t);
        let started = state.started().is_some_and(|at| at <= t);
        if let (Some(sampler), true) = (sampler.as_deref_mut(), started && !finished_before) {
            sampler.flow(t, i as u32, flow);
        }
    }
    if let Some(sampler) = sampler {
        for (id, d) in testbed.emulator().stats().iter().enumerate() {
            let dir = &model.links[id / 2].dirs[id % 2];
            let link = LinkSample {
                queue_bytes: d.queue_bytes,
                queue_packets: d.queue_packets,
                bytes_sent: d.bytes,
                capacity_bits: dir.capacity.bits_until(t),
                delay: dir.delay.at(t),
            };
            sampler.link(t, id as u32, link);
        }
    }
}
