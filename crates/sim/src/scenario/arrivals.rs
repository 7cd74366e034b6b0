//! `[[arrivals]]`: downloads arriving over time from many users. Sessions
//! arrive as a Poisson process (exponential gaps of mean 1/`rate`) between
//! `start` and `stop`; each downloads its own object, of a size drawn from
//! `size`, held by `mirrors`, as a fetch session (`app::fetch`) of a client
//! drawn uniformly from `clients`. Everything is drawn from the scenario's
//! seed (one stream per entry, `engine::rng`), so a run is reproducible.
//!
//! The generated objects and sessions are `[[contents]]` and `[[fetches]]`
//! entries named `{name}.{k}`, reported under `arrivals[i] (session k)`.

use serde::Deserialize;

use super::error::Problems;
use super::fetches::{ContentSpec, FetchSpec};
use super::spec::{Names, TcpSpec};
use crate::engine::Seeds;
use crate::time::Time;
use crate::units::{Bytes, Duration};

/// Sessions per entry at most: beyond, a study belongs in a sweep.
pub const MAX_SESSIONS: f64 = 100_000.0;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivalSpec {
    /// Defaults to "arrivals{index}".
    pub name: Option<String>,
    /// The users' hosts: names or patterns; each session's is drawn uniformly.
    pub clients: Names,
    /// The servers holding each session's object.
    pub mirrors: Vec<String>,
    /// The domain the objects are served under (looked up, docs/dns.md).
    pub domain: Option<String>,
    /// Sessions per second.
    pub rate: f64,
    pub start: Option<Duration>,
    /// Default: the end of the run.
    pub stop: Option<Duration>,
    /// The objects' size distribution (default SURGE's lognormal body).
    pub size: Option<SizeSpec>,
    /// Each session's policy, preferred interface, request and TCP settings,
    /// as `[[fetches]]`.
    pub policy: Option<String>,
    pub prefer: Option<String>,
    pub request: Option<Bytes>,
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Object sizes, in bytes (at least 1).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeSpec {
    Fixed {
        bytes: Bytes,
    },
    /// ln(size) normal with mean `mu` and deviation `sigma`; the defaults
    /// are the body of web file sizes in SURGE (Barford and Crovella,
    /// "Generating Representative Web Workloads for Network and Server
    /// Performance Evaluation", SIGMETRICS 1998): μ = 9.357, σ = 1.318
    /// (median 11.6 kB, mean 27.6 kB).
    Lognormal {
        #[serde(default = "surge_mu")]
        mu: f64,
        #[serde(default = "surge_sigma")]
        sigma: f64,
    },
    /// Pareto (type I) with `shape` α > 1 and the given mean (scale
    /// mean·(α−1)/α), the heavy tail of web transfer sizes (Crovella and
    /// Bestavros, "Self-Similarity in World Wide Web Traffic", IEEE/ACM ToN
    /// 1997).
    Pareto {
        mean: Bytes,
        shape: f64,
    },
}

fn surge_mu() -> f64 {
    9.357
}

fn surge_sigma() -> f64 {
    1.318
}

impl Default for SizeSpec {
    fn default() -> SizeSpec {
        SizeSpec::Lognormal { mu: surge_mu(), sigma: surge_sigma() }
    }
}

/// The generated objects and sessions, each with the field it is reported
/// under, and each entry's name with the number of sessions it drew.
#[derive(Default)]
pub struct Generated {
    pub contents: Vec<(String, ContentSpec)>,
    pub fetches: Vec<(String, FetchSpec)>,
    pub entries: Vec<(String, u32)>,
}

/// An `[[arrivals]]` entry as run: its name and its sessions (ids in
/// `Model::fetches`, after the `[[fetches]]` ones).
#[derive(Debug, Clone, PartialEq)]
pub struct ArrivalModel {
    pub name: String,
    pub sessions: std::ops::Range<u32>,
}

/// Draws every entry's sessions; `hosts` are the scenario's host names
/// (for `clients` patterns).
pub fn expand(specs: &[ArrivalSpec], duration: Time, seeds: &Seeds, hosts: &[&str], p: &mut Problems) -> Generated {
    let mut out = Generated::default();
    for (i, a) in specs.iter().enumerate() {
        entry(a, i, duration, seeds, hosts, &mut out, p);
    }
    out
}

fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

fn entry(a: &ArrivalSpec, i: usize, duration: Time, seeds: &Seeds, hosts: &[&str], out: &mut Generated, p: &mut Problems) {
    let field = format!("arrivals[{i}]");
    let before = p.list.len();
    let clients = super::build::endpoint_names(&a.clients, &format!("{field}.clients"), hosts, p);
    if clients.is_empty() {
        p.add(format!("{field}.clients"), "needs at least one client host");
    }
    if a.mirrors.is_empty() {
        p.add(format!("{field}.mirrors"), "needs at least one mirror (a node holding the objects)");
    }
    if !positive(a.rate) {
        p.add(format!("{field}.rate"), format!("must be a positive number of sessions per second, got {}", a.rate));
    }
    let start = a.start.map_or(Time::ZERO, |s| s.0);
    let stop = a.stop.map_or(duration, |s| s.0.min(duration));
    if start >= stop {
        p.add(format!("{field}.start"), format!("starts at {start}, not before its stop ({stop})"));
    }
    let size = a.size.clone().unwrap_or_default();
    match &size {
        SizeSpec::Fixed { bytes } if bytes.0 == 0 => p.add(format!("{field}.size.bytes"), "must be positive"),
        SizeSpec::Lognormal { mu, sigma } if !mu.is_finite() || !positive(*sigma) => {
            p.add(format!("{field}.size"), format!("needs a finite mu and a positive sigma, got mu = {mu}, sigma = {sigma}"))
        }
        SizeSpec::Pareto { mean, shape } if mean.0 == 0 || !(shape.is_finite() && *shape > 1.0) => {
            p.add(format!("{field}.size"), format!("needs a positive mean and a shape above 1 (a finite mean), got mean = {} B, shape = {shape}", mean.0))
        }
        _ => {}
    }
    if p.list.len() == before && a.rate * (stop - start).secs() > MAX_SESSIONS {
        p.add(
            format!("{field}.rate"),
            format!("{} sessions/s over {} gives about {:.0} sessions; at most {MAX_SESSIONS} per entry", a.rate, stop - start, a.rate * (stop - start).secs()),
        );
    }
    if p.list.len() != before {
        return;
    }
    let label = a.name.clone().unwrap_or_else(|| format!("arrivals{i}"));
    let drawn = out.fetches.len();
    let mut rng = seeds.stream(&format!("arrivals:{label}"));
    let mut t = start.secs();
    for k in 0.. {
        t += rng.exponential(1.0 / a.rate);
        let at = Time::from_secs_f64(t);
        if at >= stop {
            break;
        }
        let bytes = match size {
            SizeSpec::Fixed { bytes } => bytes.0 as f64,
            SizeSpec::Lognormal { mu, sigma } => rng.lognormal(mu, sigma),
            SizeSpec::Pareto { mean, shape } => rng.pareto(shape, mean.0 as f64 * (shape - 1.0) / shape),
        };
        let client = clients[rng.below(clients.len())];
        let name = format!("{label}.{k}");
        let at_field = format!("{field} (session {k})");
        let content = ContentSpec { name: name.clone(), bytes: Bytes(bytes.round().max(1.0) as u64), mirrors: a.mirrors.clone(), domain: a.domain.clone() };
        out.contents.push((at_field.clone(), content));
        let fetch = FetchSpec {
            name: Some(name.clone()),
            client: client.to_string(),
            content: name,
            chunk: None,
            pipeline: None,
            request: a.request,
            start: Some(Duration(at)),
            policy: a.policy.clone(),
            prefer: a.prefer.clone(),
            resolver: None,
            family: None,
            tcp: a.tcp.clone(),
        };
        out.fetches.push((at_field, fetch));
    }
    out.entries.push((label, (out.fetches.len() - drawn) as u32));
}

/// The entries' session ranges, the first generated session being `first`.
pub fn models(entries: &[(String, u32)], first: u32) -> Vec<ArrivalModel> {
    let mut next = first;
    let mut out = Vec::new();
    for (name, n) in entries {
        out.push(ArrivalModel { name: name.clone(), sessions: next..next + n });
        next += n;
    }
    out
}
