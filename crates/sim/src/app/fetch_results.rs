//! The results of fetch sessions (docs/results.md): `fetches`, one row per
//! session, and `fetch_requests`, one row per request (content range or
//! probe), built from the sessions' ledgers (`fetch::Fetch`) by either
//! plane at the end of its run.

use super::fetch::{Ask, Fetch, SessionRequest};
use crate::metrics::{Column, Table};
use crate::net::NodeId;
use crate::time::Time;
use crate::Model;

/// The `fetches` table (one row per session) and `fetch_requests` (one row
/// per request, content or probe), at the end of the run. `sessions` holds
/// each session's ledger and its requests resent after a loss,
/// `opened(flow)` whether a candidate connection was opened.
pub fn tables(model: &Model, sessions: &[(&Fetch, u64)], opened: impl Fn(u32) -> bool) -> [Table; 2] {
    let node = |n: NodeId| model.nodes[n as usize].name.clone();
    let (mut id, mut name, mut client, mut content, mut policy, mut total) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut bytes, mut requests, mut start, mut completion, mut conns, mut remaps) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut probes, mut probe_bytes, mut resent, mut error, mut discarded) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut r_session, mut r_id, mut r_kind, mut r_off, mut r_len) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut r_flow, mut r_mirror, mut r_iface, mut r_sent, mut r_done) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut r_first, mut r_family, mut r_discarded) = (vec![], vec![], vec![]);
    for (s, (m, session)) in model.fetches.iter().zip(sessions).enumerate() {
        let f = session.0;
        let is_probe = |r: &&SessionRequest| r.ask == Ask::Probe;
        id.push(s as u32);
        name.push(m.name.clone());
        client.push(node(m.client));
        content.push(model.contents[m.content].name.clone());
        policy.push(m.policy.name().to_string());
        total.push(m.bytes);
        bytes.push(f.bytes_done());
        requests.push(f.requests.iter().filter(|r| !is_probe(r)).count() as u64);
        start.push(f.started_at.map(Time::secs));
        completion.push(f.finished_at.zip(f.started_at).map(|(end, begin)| (end - begin).secs()));
        conns.push(m.candidates.iter().filter(|k| opened(k.flow)).count() as u64);
        remaps.push(f.remaps);
        probes.push(f.requests.iter().filter(is_probe).count() as u64);
        probe_bytes.push(f.requests.iter().filter(is_probe).map(|r| r.request_bytes as u64 + r.len).sum());
        resent.push(session.1);
        discarded.push(f.discarded());
        error.push(f.error.clone().unwrap_or_default());
        for (i, r) in f.requests.iter().enumerate() {
            let k = m.candidates.iter().find(|k| k.flow == r.conn).expect("a candidate of its session");
            r_session.push(s as u32);
            r_id.push(i as u32);
            let (kind, off) = match r.ask {
                Ask::Range { off } => ("range", Some(off)),
                Ask::Probe => ("probe", None),
            };
            r_kind.push(kind.to_string());
            r_off.push(off);
            r_len.push(r.len);
            r_flow.push(r.conn);
            r_mirror.push(node(k.mirror));
            r_iface.push(model.nodes[m.client as usize].interfaces[k.iface as usize].clone());
            r_family.push(k.family.name().to_string());
            r_sent.push(r.sent_at.secs());
            r_first.push(r.first_byte_at.map(Time::secs));
            r_done.push(r.done_at.map(Time::secs));
            r_discarded.push(r.discarded);
        }
    }
    let sessions = Table::new("fetches")
        .col("session_id", Column::U32(id))
        .col("name", Column::Str(name))
        .col("client", Column::Str(client))
        .col("content", Column::Str(content))
        .col("policy", Column::Str(policy))
        .col("content_bytes", Column::U64(total))
        .col("bytes", Column::U64(bytes))
        .col("requests", Column::U64(requests))
        .col("start_s", Column::OptF64(start))
        .col("completion_s", Column::OptF64(completion))
        .col("connections", Column::U64(conns))
        .col("remaps", Column::U64(remaps))
        .col("probes", Column::U64(probes))
        .col("probe_bytes", Column::U64(probe_bytes))
        .col("requests_resent", Column::U64(resent))
        .col("discarded_bytes", Column::U64(discarded))
        .col("error", Column::Str(error));
    let requests = Table::new("fetch_requests")
        .col("session_id", Column::U32(r_session))
        .col("request_id", Column::U32(r_id))
        .col("kind", Column::Str(r_kind))
        .col("offset", Column::OptU64(r_off))
        .col("bytes", Column::U64(r_len))
        .col("flow_id", Column::U32(r_flow))
        .col("mirror", Column::Str(r_mirror))
        .col("interface", Column::Str(r_iface));
    // A scenario with IPv6 links: each request's connection's IP version.
    let requests = if model.has_v6() { requests.col("family", Column::Str(r_family)) } else { requests };
    let requests = requests
        .col("sent_s", Column::F64(r_sent))
        .col("first_byte_s", Column::OptF64(r_first))
        .col("done_s", Column::OptF64(r_done))
        .col("discarded_bytes", Column::U64(r_discarded));
    [sessions, requests]
}
