//! The scenario file format, exactly as written by users (TOML, or the same
//! structure as JSON/a Python dict). Every table refuses unknown keys so that a
//! typo is an error, not a silently ignored setting. `docs/scenario.md`
//! documents every field; keep the two in step.
//!
//! These types are only the *syntax*. `scenario::build` turns them into a
//! validated `Model` (names resolved, generators expanded, routes checked).

use serde::Deserialize;

use crate::units::{Bytes, Duration, Rate};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Defaults to the file stem.
    pub name: Option<String>,
    pub description: Option<String>,
    pub sim: SimSpec,
    /// Default TCP parameters for every flow; flows may override any of them.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// A built-in topology generator; `nodes` and `links` are added to what it builds.
    pub topology: Option<TopologySpec>,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub workloads: Vec<WorkloadSpec>,
    /// A router module (RCP) on routers' outgoing link directions.
    pub routers: Option<RoutersSpec>,
    /// Device-side controllers, each on one host (`crate::control`).
    #[serde(default)]
    pub controllers: Vec<ControllerSpec>,
    /// Hosts' radios and energy models (`crate::energy`).
    #[serde(default)]
    pub devices: Vec<DeviceSpec>,
    /// Cells (Node Bs) whose air interface UE links share (`net::cell`).
    #[serde(default)]
    pub cells: Vec<CellSpec>,
    /// Hosts' positions and movement, for the cells.
    #[serde(default)]
    pub mobility: Vec<MobilitySpec>,
    /// DNS resolvers on nodes, and the domains they answer (`crate::dns`).
    #[serde(default)]
    pub resolvers: Vec<ResolverSpec>,
    /// The hosts' stub resolvers: timeout and attempts.
    #[serde(default)]
    pub dns: DnsSpec,
    /// Settings of the kernel lab only; the simulator ignores them.
    #[serde(default)]
    pub lab: LabSpec,
    /// Mirrored content: objects replicated on several servers (`scenario::fetches`).
    #[serde(default)]
    pub contents: Vec<super::fetches::ContentSpec>,
    /// Fetch sessions: a client downloads a content in byte ranges over
    /// connections to its mirrors (`crate::app::fetch`).
    #[serde(default)]
    pub fetches: Vec<super::fetches::FetchSpec>,
    /// Web page loads: a main object and the objects it references, over a
    /// browser's connections (`crate::app::page`).
    #[serde(default)]
    pub pages: Vec<super::pages::PageSpec>,
    /// Downloads arriving over time from many users (`scenario::arrivals`).
    #[serde(default)]
    pub arrivals: Vec<super::arrivals::ArrivalSpec>,
}

/// `[[resolvers]]`: a DNS resolver on a node (docs/dns.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolverSpec {
    /// Its name in lookups (default: the node's name).
    pub name: Option<String>,
    pub node: String,
    /// Processing time from a query's arrival to its answer's departure (default 0).
    pub delay: Option<Duration>,
    /// The domains it serves, by name; any other gets NXDOMAIN.
    #[serde(default)]
    pub domains: std::collections::BTreeMap<String, DomainSpec>,
}

/// `[resolvers.domains."NAME"]`: a resolver's answer for one domain.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainSpec {
    /// Nodes, in the order of the answer (never rotated).
    pub mirrors: Vec<String>,
    pub ttl: Duration,
    /// Another answer for queries from a client interface of this name.
    #[serde(default)]
    pub by_interface: std::collections::BTreeMap<String, Vec<String>>,
}

/// `[dns]`: the hosts' stub resolvers.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DnsSpec {
    /// How long each query waits for its answer (default 5 s).
    pub timeout: Option<Duration>,
    /// Queries per lookup, the first included (default 2).
    pub attempts: Option<u32>,
}

/// `[[cells]]`: a cell (Node B); docs/cell.md gives every default's source.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    pub name: String,
    /// Centre, metres.
    pub position: (f64, f64),
    /// Metres; a UE farther than this hands over.
    pub radius: f64,
    pub tti: Option<Duration>,
    /// `round_robin` (default) or `proportional_fair`.
    pub scheduler: Option<String>,
    /// Proportional fair's averaging window, TTIs.
    pub pf_window: Option<f64>,
    /// Bandwidth, PRBs: 6, 15, 25, 50, 75 or 100.
    pub prbs: Option<u32>,
    pub tx_power: Option<f64>,
    pub ue_power: Option<f64>,
    pub antenna_gain: Option<f64>,
    pub ue_noise_figure: Option<f64>,
    pub noise_figure: Option<f64>,
    pub path_loss_1km: Option<f64>,
    pub path_loss_slope: Option<f64>,
    /// Shadowing standard deviation, dB (0: none).
    pub shadowing: Option<f64>,
    /// Shadowing decorrelation distance, metres.
    pub decorrelation: Option<f64>,
    pub bler: Option<f64>,
    pub harq_rtt: Option<Duration>,
    pub harq_max_retx: Option<u32>,
    pub residual_loss: Option<f64>,
    pub handover_interruption: Option<Duration>,
    pub report_interval: Option<Duration>,
    /// A fixed transport block per TTI, bits, instead of the CQI table.
    pub tbs_bits: Option<u64>,
}

/// `[[mobility]]`: where a host is and how it moves.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobilitySpec {
    pub host: String,
    /// At time zero, metres.
    pub position: (f64, f64),
    /// m/s (default 0).
    pub speed: Option<f64>,
    /// Degrees, 0 = +x, 90 = +y (default 0).
    pub heading: Option<f64>,
    /// Later changes of speed and/or heading.
    #[serde(default)]
    pub changes: Vec<MobilityChange>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobilityChange {
    pub at: Duration,
    pub speed: Option<f64>,
    pub heading: Option<f64>,
}

/// One name or a list of names.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn names(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// `[lab]`: how the kernel lab runs the scenario (`pathpool run --plane lab`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabSpec {
    /// Who opens MPTCP subflows on the real kernel.
    #[serde(default)]
    pub path_manager: LabPathManager,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabPathManager {
    /// pathpool's controller through the userspace path manager, opening
    /// exactly the subflows the simulator's path manager would.
    #[default]
    Userspace,
    /// The kernel's in-kernel path manager, with endpoints derived from the
    /// flow's path manager.
    Kernel,
}

/// `[[controllers]]`: a device-side controller on a host.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSpec {
    /// The host it runs on; it sees that host's connections and interfaces only.
    pub host: String,
    /// Its kind, by name (`crate::control::names`).
    pub kind: String,
    /// The kind's parameters, e.g. `params = { threshold = "5Mbps" }`.
    #[serde(default)]
    pub params: crate::cc::ParamTable,
    /// How often it gets a sample event (default 100 ms; 0: never).
    pub sample_interval: Option<Duration>,
    /// Simulator only: time between an event and the controller's actions
    /// (default 0; the kernel lab has its own, measured).
    pub reaction_delay: Option<Duration>,
}

/// `[[devices]]`: what a host's energy is measured with.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceSpec {
    pub host: String,
    /// A power model per interface, by interface name.
    #[serde(default)]
    pub radios: std::collections::BTreeMap<String, RadioSpec>,
    /// Green MPTCP's linear model over the host's interfaces.
    pub linear: Option<LinearSpec>,
    /// Battery level, percent, over time: `[[t, pct], ...]` (a hint for controllers).
    pub battery: Option<Vec<(Duration, f64)>>,
    /// Device temperature, °C, over time.
    pub temperature: Option<Vec<(Duration, f64)>>,
    /// Screen on (true) or off over time.
    pub screen: Option<Vec<(Duration, bool)>>,
    /// Signal level per interface, dBm (RSSI or RSRP), over time.
    #[serde(default)]
    pub signal: std::collections::BTreeMap<String, Vec<(Duration, f64)>>,
    /// Radio access technology per interface over time (`wifi`, `lte`, `umts`, `nr`).
    #[serde(default)]
    pub rat: std::collections::BTreeMap<String, Vec<(Duration, String)>>,
    /// The link's estimated bandwidth per interface over time (what a phone's
    /// radio reports: Android's `getLinkDownstreamBandwidthKbps`).
    #[serde(default)]
    pub bandwidth: std::collections::BTreeMap<String, Vec<(Duration, Rate)>>,
    /// A data limit per interface (cellular plans): a hint once the
    /// interface has sent and received this many wire bytes.
    #[serde(default)]
    pub data_limit: std::collections::BTreeMap<String, Bytes>,
}

/// One interface's power model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioSpec {
    /// `wifi`, `lte`, `umts`, `nr` or `wired` (`crate::energy::Technology`).
    pub technology: String,
    /// Overrides of the technology's parameters (docs/energy.md).
    #[serde(default)]
    pub params: crate::cc::ParamTable,
}

/// Green MPTCP's eq. 1 with constant weights (docs/energy.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearSpec {
    /// "data" (default; weights in J/bit) or "time" (weights in W).
    pub reading: Option<String>,
    /// w_D, the device's weight (default 0).
    pub w_device: Option<f64>,
    /// w_i by interface name; every interface of the host needs one.
    pub w: std::collections::BTreeMap<String, f64>,
}

/// Which end of a flow connects (and, for MPTCP, opens the subflows).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientEnd {
    /// The data's sender connects (an upload; the default).
    #[default]
    Src,
    /// The data's receiver connects (a phone downloading from a server).
    Dst,
}

/// `[routers]`: which router module runs, where, with which parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutersSpec {
    /// Module name (`rcp`).
    pub module: String,
    /// Names of the links whose router-side directions run the module;
    /// omitted: every direction leaving a router.
    pub links: Option<Vec<String>>,
    /// The module's parameters, e.g. `[routers.params] alpha = 0.1`.
    #[serde(default)]
    pub params: crate::cc::ParamTable,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Simulated time to run.
    pub duration: Duration,
    /// Master seed; every random stream is derived from it and a component name.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Time-series sampling interval; `0` disables time series.
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Duration,
    #[serde(default)]
    pub routing: RoutingMetric,
    /// Spread flows over equal-cost next hops by hashing the flow id.
    #[serde(default)]
    pub ecmp: bool,
    /// How SYN-ACKs and pure ACKs cross the network: `network` (queued like
    /// data) or `instant` (htsim's data-centre reverse path; `net::ack_path`).
    #[serde(default)]
    pub ack_path: crate::net::ack_path::AckPath,
    /// Header bytes added to every TCP segment on the wire
    /// (IPv4 20 + TCP 20 + timestamp option 12 = 52, as Linux sends).
    #[serde(default = "default_header_bytes")]
    pub header_bytes: u32,
    /// Whether a host's own outgoing link directions drop on overflow
    /// (`net::host_egress`); the kernel lab honours it too (`testbed/host_qdisc.rs`).
    #[serde(default)]
    pub host_egress: crate::net::host_egress::HostEgress,
}

fn default_seed() -> u64 {
    1
}
fn default_sample_interval() -> Duration {
    Duration(crate::time::Time::from_millis(100))
}
fn default_header_bytes() -> u32 {
    52
}

pub use crate::net::routing::RoutingMetric;

/// TCP parameters. All optional so that per-flow tables override the defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Congestion control algorithm, by name (`newreno`, `cubic`, `bbr`, `westwood`).
    pub cc: Option<String>,
    /// The algorithm's parameters, e.g. `[tcp.cc_params] beta = 0.7` for CUBIC.
    /// A table that changes `cc` starts from that algorithm's defaults; one
    /// that keeps it overrides the inherited parameters key by key.
    pub cc_params: Option<crate::cc::ParamTable>,
    /// Maximum segment size, payload bytes (default 1448).
    pub mss: Option<u32>,
    /// Initial window in segments (default 10, RFC 6928).
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold in segments (default: arbitrarily high, RFC 5681 §3.1).
    pub initial_ssthresh: Option<u32>,
    /// Lower bound of the retransmission timeout (default 200 ms as in Linux).
    pub min_rto: Option<Duration>,
    /// RTO before the first RTT sample (default 1 s, RFC 6298 §2.1).
    pub initial_rto: Option<Duration>,
    /// Upper bound of the retransmission timeout (default 60 s, RFC 6298 §2.5).
    pub max_rto: Option<Duration>,
    /// SACK-based loss recovery (RFC 6675); NewReno recovery (RFC 6582) when false.
    pub sack: Option<bool>,
    /// Fast-recovery window rule: "prr" (RFC 6937, default) or "rfc6675".
    pub recovery: Option<crate::tcp::RecoveryAlgorithm>,
    /// Acknowledge every `delayed_ack_segments` segments or after `delayed_ack_timeout`.
    pub delayed_ack: Option<bool>,
    pub delayed_ack_segments: Option<u32>,
    pub delayed_ack_timeout: Option<Duration>,
    /// Receiver buffer; the advertised window is what is free of it.
    pub rcv_buffer: Option<Bytes>,
    /// Model the SYN / SYN-ACK exchange before data (default true).
    pub handshake: Option<bool>,
    /// Duplicate ACKs that trigger fast retransmit (default 3).
    pub dupack_threshold: Option<u32>,
    /// NewReno's cwnd at the end of fast recovery: "ssthresh" (default) or "flight" (RFC 6582 §3.2 step 3).
    pub newreno_exit: Option<crate::tcp::NewRenoExit>,
    /// NewReno's timer on partial ACKs: "slow_but_steady" (default) or "impatient" (RFC 6582 §3.2 step 3).
    pub newreno_timer: Option<crate::tcp::NewRenoTimer>,
    /// When cwnd may grow: "always" (default) or "cwnd_limited" (Linux's tcp_is_cwnd_limited).
    pub cwnd_growth: Option<crate::tcp::CwndGrowth>,
    /// The retransmission timeout: "rfc6298" (default) or "linux" (srtt + max(4·rttvar, min_rto)).
    pub rto_formula: Option<crate::tcp::RtoFormula>,
    /// What bounds a single-path application's unacknowledged data: "unlimited" (default) or "linux".
    pub send_buffer: Option<crate::tcp::SendBufferModel>,
    /// RACK loss detection (RFC 8985) beside RFC 6675's: Linux's default.
    pub rack: Option<bool>,
    /// Linux's SACK compression at the receiver: duplicate ACKs beyond three withheld up to min(1 ms, RTT / 20).
    pub sack_compression: Option<bool>,
    /// What fast recovery's reduction is a fraction of: "flight_size" (default, RFC 5681) or "cwnd" (Linux).
    pub ssthresh_from: Option<crate::tcp::SsthreshFrom>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default)]
    pub kind: NodeKind,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    #[default]
    Host,
    Router,
}

/// Parameters of one direction of a link. At the link level they apply to
/// both directions; `a_to_b` / `b_to_a` override them per direction.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    pub rate: Option<Rate>,
    pub delay: Option<DelaySpec>,
    /// Mean of each packet's random extra delay (`net::jitter`).
    pub jitter: Option<Duration>,
    /// Drop-tail limit in packets (default 100, as ns-3's DropTailQueue).
    pub queue: Option<u64>,
    /// Drop-tail limit in bytes (instead of `queue`).
    pub queue_bytes: Option<Bytes>,
    pub loss: Option<LossSpec>,
    pub capacity: Option<CapacitySpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Defaults to "A-B".
    pub name: Option<String>,
    /// Endpoint: "node" or "node:interface".
    pub a: String,
    pub b: String,
    pub rate: Option<Rate>,
    pub delay: Option<DelaySpec>,
    pub jitter: Option<Duration>,
    pub queue: Option<u64>,
    pub queue_bytes: Option<Bytes>,
    pub loss: Option<LossSpec>,
    pub capacity: Option<CapacitySpec>,
    /// MTU of both its interfaces, bytes (default 1500, Ethernet; `net::mtu`).
    pub mtu: Option<u32>,
    /// The IP versions its two interfaces have addresses of: `["v4"]` (the
    /// default) or `["v4", "v6"]` (`net::family`).
    pub families: Option<Vec<String>>,
    #[serde(default)]
    pub a_to_b: DirectionSpec,
    #[serde(default)]
    pub b_to_a: DirectionSpec,
    /// Up/down events; a link that is down drops everything offered to it
    /// and the packets it was carrying.
    #[serde(default)]
    pub events: Vec<LinkEventSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkEventSpec {
    pub at: Duration,
    pub state: LinkState,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LinkState {
    Up,
    Down,
}

pub use crate::net::loss::LossSpec;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacitySpec {
    /// Piecewise-constant rate: `[[t0, rate0], [t1, rate1], ...]`, t0 = 0.
    pub schedule: Option<Vec<(Duration, Rate)>>,
    /// Mahimahi packet-delivery trace: one integer millisecond per line, each a
    /// delivery opportunity of 1500 bytes; the trace loops. The path is relative
    /// to the scenario file, or `data:REL` relative to the data directory.
    pub mahimahi: Option<String>,
    /// Start offset into the trace (default 0).
    pub offset: Option<Duration>,
    /// The cell(s) of `[[cells]]` a UE link may attach to: its rate comes
    /// from their schedulers (`net::cell`).
    pub cell: Option<OneOrMany>,
}

/// A direction's one-way propagation delay: a duration, or
/// `{ schedule = [[t0, delay0], [t1, delay1], ...] }` (piecewise constant, t0 = 0).
#[derive(Debug, Clone)]
pub enum DelaySpec {
    Constant(Duration),
    Schedule(DelayScheduleSpec),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayScheduleSpec {
    pub schedule: Vec<(Duration, Duration)>,
}

/// By hand rather than `#[serde(untagged)]`, which would hide why a value
/// was refused (a negative duration, an unknown key) behind "did not match
/// any variant".
impl<'de> Deserialize<'de> for DelaySpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, StrDeserializer};
        use serde::de::{Error, IntoDeserializer, MapAccess, Visitor};

        struct DelayVisitor;
        impl<'de> Visitor<'de> for DelayVisitor {
            type Value = DelaySpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a duration (such as \"10ms\") or a table {{ schedule = [[time, delay], ...] }}")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<DelaySpec, E> {
                Duration::deserialize(StrDeserializer::<E>::new(v)).map(DelaySpec::Constant)
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<DelaySpec, E> {
                Duration::deserialize(v.into_deserializer()).map(DelaySpec::Constant)
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<DelaySpec, E> {
                Duration::deserialize(v.into_deserializer()).map(DelaySpec::Constant)
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<DelaySpec, E> {
                Duration::deserialize(v.into_deserializer()).map(DelaySpec::Constant)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DelaySpec, A::Error> {
                DelayScheduleSpec::deserialize(MapAccessDeserializer::new(map)).map(DelaySpec::Schedule)
            }
        }
        d.deserialize_any(DelayVisitor)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// `pairs` senders `src0..` and receivers `dst0..` joined through routers
    /// `left` and `right` by the link `bottleneck`.
    Dumbbell {
        pairs: u32,
        access: LinkParams,
        bottleneck: LinkParams,
        /// Per-pair access delays (sender side), overriding `access.delay`.
        access_delays: Option<Vec<Duration>>,
    },
    /// Routers `r0..r{hops}` in a chain of `hops` links `l1..`; hosts
    /// `src_long`/`dst_long` at the ends and `src{i}`/`dst{i}` around link `l{i}`.
    ParkingLot { hops: u32, access: LinkParams, link: LinkParams },
    /// A Rocketfuel ISP router map (`.cch`): routers `r{uid}`, links
    /// `r{a}-r{b}` between internal routers, hosts `h{uid}_{k}` on edge routers.
    Rocketfuel {
        /// The `.cch` file: relative to the scenario, or `data:REL`.
        map: String,
        /// Which routers to drop before classifying.
        #[serde(default)]
        prune: RocketfuelPrune,
        /// Keep only the largest connected component (default true).
        #[serde(default = "yes")]
        largest_component: bool,
        /// Every router-router link.
        link: LinkParams,
        /// Links between an edge and a gateway router, instead of `link`.
        edge_link: Option<LinkParams>,
        /// Rocketfuel inferred latencies (`latencies.intra`: `cityUID cityUID ms`),
        /// one-way delays of the links they list, over `link`/`edge_link`'s delay.
        latencies: Option<String>,
        /// Hosts attached to every edge router.
        hosts: Option<RocketfuelHosts>,
    },
    /// An Internet Topology Zoo map (GraphML): one router per node, named
    /// for its label, links `{a}-{b}`, hosts `h_{router}_{k}`.
    Zoo {
        /// The GraphML file: relative to the scenario, or `data:REL`.
        file: String,
        /// Every router-router link; its `rate` where the file gives no `LinkSpeedRaw`.
        link: LinkParams,
        /// How a link's delay is found.
        #[serde(default)]
        delay: ZooDelay,
        /// Keep the nodes the file marks `Internal = 0` (default true).
        #[serde(default = "yes")]
        external: bool,
        /// Keep only the largest connected component (default false).
        #[serde(default)]
        largest_component: bool,
        /// Hosts attached to every router.
        hosts: Option<ZooHosts>,
    },
    /// A k-ary FatTree (Al-Fares et al., SIGCOMM 2008, §3): k pods of k/2
    /// edge switches `tor{t}` and k/2 aggregation switches `agg{a}`,
    /// (k/2)² core switches `core{c}`, k³/4 hosts `h{i}` (k/2 per edge
    /// switch). Defaults are htsim's FatTree (`datacenter/main_tcp.cpp`).
    Fattree {
        /// Even, from 2 to 32.
        k: u32,
        /// Every link (default 100 Gb/s, htsim's `HOST_NIC`).
        rate: Option<Rate>,
        /// Every link's one-way delay (default 1 µs, htsim's hop latency).
        delay: Option<Duration>,
        /// Switch output queues, packets (default 8, htsim's `memFromPkt(8)`).
        queue: Option<u64>,
        /// Switch output queues in bytes instead of `queue` (htsim counts bytes:
        /// `memFromPkt(8)` is 12 000, where its SYNs and ACKs take almost no room).
        queue_bytes: Option<Bytes>,
        /// A host's own output queue, packets (default 1000, htsim's `FEEDER_BUFFER`).
        host_queue: Option<u64>,
    },
}

/// `delay` of the Zoo generator.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ZooDelay {
    /// `link.delay` plus the great-circle distance between the two nodes at
    /// 2×10⁸ m/s, where the file places both; `link.delay` otherwise.
    #[default]
    Distance,
    /// `link.delay` on every link.
    Fixed,
}

/// `hosts = { ... }` of the Zoo generator.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZooHosts {
    /// Hosts `h_{router}_0 .. h_{router}_{N-1}` on every router.
    pub per_router: u32,
    /// Each host's link to its router.
    pub access: LinkParams,
}

fn yes() -> bool {
    true
}

/// `prune` of the Rocketfuel generator.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RocketfuelPrune {
    /// Keep every internal router.
    #[default]
    None,
    /// Drop edge routers (degree < 3) none of whose neighbours has degree > 2:
    /// the router chains into customer space that README.cch describes.
    EdgeChains,
    /// What ndnSIM's Rocketfuel reader keeps with `clientNodeDegrees = 2`,
    /// the reader and setting of the INRPP authors' Rocketfuel script
    /// (§IV-D): largest component, routers labelled client / gateway /
    /// backbone, client-client and client-backbone links dropped, largest
    /// component again. The routers keep the reader's labels.
    Ndnsim,
}

/// `hosts = { ... }` of the Rocketfuel generator.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RocketfuelHosts {
    /// Hosts `h{uid}_0 .. h{uid}_{N-1}` on each edge router `r{uid}`.
    pub per_edge_router: u32,
    /// Each host's link to its edge router.
    pub access: LinkParams,
}

/// Link parameters used by topology generators (both directions alike).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub rate: Rate,
    pub delay: Duration,
    /// As `[[links]]`' `jitter`.
    pub jitter: Option<Duration>,
    pub queue: Option<u64>,
    pub queue_bytes: Option<Bytes>,
    pub loss: Option<LossSpec>,
    /// As `[[links]]`' `mtu`.
    pub mtu: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Defaults to "f{index}". With `count`, `{i}` is replaced by 0..count-1.
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// Bytes to transfer; omitted = bulk (send until `stop` or the end).
    pub size: Option<Bytes>,
    #[serde(default)]
    pub start: Option<Duration>,
    /// Bulk flows stop sending new data at this time.
    pub stop: Option<Duration>,
    /// Repeat this entry `count` times, substituting `{i}` in name, src and dst.
    pub count: Option<u32>,
    /// With `count`: flow i starts at start + i·start_step.
    pub start_step: Option<Duration>,
    /// Start when the named (sized, earlier) flow completes, `start` later:
    /// a response after its request. `{i}` is replaced as in `name`.
    pub after: Option<String>,
    #[serde(default = "default_transport")]
    pub transport: String,
    /// Which end connects: "src" (default) or "dst" (a download: the
    /// destination is the client and opens the MPTCP subflows).
    #[serde(default)]
    pub client: ClientEnd,
    /// A single-path TCP flow from a multi-homed source: the source's
    /// interface it leaves by, and its ACKs return to (as a socket bound to
    /// that interface's address with per-interface routing). `{i}` is replaced.
    pub interface: Option<String>,
    /// Per-flow TCP parameters over the scenario's `[tcp]` defaults.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// With `transport = "mptcp"`: scheduler, coupling, path manager, timed
    /// actions (`scenario::mptcp`).
    pub mptcp: Option<super::mptcp::MptcpSpec>,
    /// INRPP end-point options: a misbehaving receiver (§V-C), the sender's
    /// reaction to a timeout.
    pub inrpp: Option<InrppFlowSpec>,
    /// An application on the flow's persistent connection (`scenario::apps`).
    pub app: Option<super::apps::AppSpec>,
}

/// `inrpp = { ... }` in a flow: how its receiver misbehaves, and how its
/// sender reacts to a timeout.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InrppFlowSpec {
    /// Every ACK the receiver sends carries this many forged slow-down
    /// notifications with fresh bogus nonces (a nonce flood, §V-C).
    #[serde(default)]
    pub forged_slow_downs: u32,
    /// A retransmission timeout after a whole RTO without any ACK puts a
    /// closed-loop sender back in open loop (§III-C's ACK silence; the
    /// default); false keeps it in closed loop on every timeout.
    #[serde(default = "yes")]
    pub timeout_open_loop: bool,
}

impl Default for InrppFlowSpec {
    fn default() -> InrppFlowSpec {
        InrppFlowSpec { forged_slow_downs: 0, timeout_open_loop: true }
    }
}

fn default_transport() -> String {
    "tcp".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadSpec {
    /// Poisson flow arrivals with Pareto sizes (PPBP, as in the INRPP paper):
    /// λ = load·C / (E[L]·packet bits), sizes Pareto(shape) with mean E[L] packets.
    PoissonPareto {
        name: Option<String>,
        /// Candidate sources and destinations, drawn uniformly per flow: a
        /// list of names and name patterns (`*`, `?`, `[...]`), or one pattern.
        src: Names,
        dst: Names,
        /// Offered load ρ relative to `capacity`.
        load: f64,
        /// Reference capacity C (for example the bottleneck rate).
        capacity: Rate,
        /// Mean flow size E[L] in packets of `mss` bytes.
        mean_size: f64,
        #[serde(default = "default_pareto_shape")]
        shape: f64,
        /// Number of flows to generate.
        flows: u32,
        #[serde(default)]
        start: Option<Duration>,
        #[serde(default = "default_transport")]
        transport: String,
        #[serde(default)]
        tcp: TcpSpec,
    },
    /// One long (bulk) flow from every host in `hosts` to another of them,
    /// the destinations drawn from the seed by `matrix` (`scenario::traffic_matrix`).
    TrafficMatrix {
        name: Option<String>,
        /// `permutation` or `random`.
        matrix: super::traffic_matrix::Matrix,
        /// The hosts taking part (names or patterns); default every host.
        hosts: Option<Names>,
        #[serde(default)]
        start: Option<Duration>,
        /// The flows stop sending new data at this time.
        stop: Option<Duration>,
        #[serde(default = "default_transport")]
        transport: String,
        #[serde(default)]
        tcp: TcpSpec,
        /// With `transport = "mptcp"`, as in a flow.
        mptcp: Option<super::mptcp::MptcpSpec>,
    },
}

fn default_pareto_shape() -> f64 {
    1.2
}

/// Node names: a list, or a single string; each entry a name or a glob
/// pattern (`*`, `?`, `[abc]`, `[a-z]`, `[!...]`) that matches host names.
#[derive(Debug, Clone)]
pub enum Names {
    One(String),
    List(Vec<String>),
}

impl Names {
    pub fn entries(&self) -> &[String] {
        match self {
            Names::One(s) => std::slice::from_ref(s),
            Names::List(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Names, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Names;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a node name or pattern, or a list of them")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Names, E> {
                Ok(Names::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(Names::List(out))
            }
        }
        d.deserialize_any(V)
    }
}
