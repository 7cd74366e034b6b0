//! The results of page loads (docs/results.md): `pages`, one row per page,
//! and `page_objects`, one row per object, built from the objects' fetch
//! session ledgers by either plane at the end of its run.

use super::fetch::{Ask, Fetch};
use crate::control::SessionId;
use crate::metrics::{Column, Table};
use crate::net::NodeId;
use crate::time::Time;
use crate::Model;

/// The `pages` table (one row per page) and `page_objects` (one row per
/// object), at the end of the run: `fetch(s)` and `resent_of(s)` are session
/// s's ledger and its requests resent after a loss, `opened(flow)` whether
/// a connection was opened, `place(conn, (s, r))` where request r of
/// session s came among the requests sent on `conn` (0: the first).
pub fn tables<'f>(
    model: &Model,
    fetch: impl Fn(SessionId) -> &'f Fetch,
    resent_of: impl Fn(SessionId) -> u64,
    opened: impl Fn(u32) -> bool,
    place: impl Fn(u32, (SessionId, u32)) -> Option<usize>,
) -> [Table; 2] {
    let node = |n: NodeId| model.nodes[n as usize].name.clone();
    let (mut id, mut name, mut client, mut policy, mut objects, mut total) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut bytes, mut start, mut load, mut conns, mut resent, mut error) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut discarded = vec![];
    let (mut o_page, mut o_id, mut o_session, mut o_content, mut o_after, mut o_depth) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut o_bytes, mut o_ready, mut o_sent, mut o_first, mut o_done) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut o_flow, mut o_mirror, mut o_iface, mut o_reused) = (vec![], vec![], vec![], vec![]);
    for (p, page) in model.pages.iter().enumerate() {
        let session = |s: u32| &model.fetches[s as usize];
        id.push(p as u32);
        name.push(page.name.clone());
        client.push(node(page.client));
        policy.push(session(page.objects[0].session).policy.name().to_string());
        objects.push(page.objects.len() as u64);
        total.push(page.objects.iter().map(|o| session(o.session).bytes).sum::<u64>());
        bytes.push(page.objects.iter().map(|o| fetch(o.session).bytes_done()).sum::<u64>());
        start.push(page.start.secs());
        // Page load time: from the page's start to the last object's last byte (PAT §VIII, Fig. 14).
        let ends: Option<Vec<Time>> = page.objects.iter().map(|o| fetch(o.session).finished_at).collect();
        load.push(ends.and_then(|e| e.into_iter().max()).map(|end| (end - page.start).secs()));
        conns.push(page.pool.iter().filter(|k| opened(k.flow)).count() as u64);
        resent.push(page.objects.iter().map(|o| resent_of(o.session)).sum::<u64>());
        discarded.push(page.objects.iter().map(|o| fetch(o.session).discarded()).sum::<u64>());
        let failed = page
            .objects
            .iter()
            .find_map(|o| fetch(o.session).error.as_ref().map(|e| format!("{}: {e}", model.contents[session(o.session).content].name)));
        error.push(failed.unwrap_or_default());
        for (j, o) in page.objects.iter().enumerate() {
            let (m, f) = (session(o.session), fetch(o.session));
            o_page.push(p as u32);
            o_id.push(j as u32);
            o_session.push(o.session);
            o_content.push(model.contents[m.content].name.clone());
            o_after.push(o.after.map(|a| model.contents[session(page.objects[a].session).content].name.clone()).unwrap_or_default());
            o_depth.push(o.depth);
            o_bytes.push(m.bytes);
            o_ready.push(f.started_at.map(Time::secs));
            // Its one content request (the whole object).
            let (r, i) = match f.requests.iter().enumerate().find(|(_, r)| r.ask != Ask::Probe) {
                Some((i, r)) => (Some(r), i as u32),
                None => (None, 0),
            };
            o_sent.push(r.map(|r| r.sent_at.secs()));
            o_first.push(r.and_then(|r| r.first_byte_at).map(Time::secs));
            o_done.push(r.and_then(|r| r.done_at).map(Time::secs));
            o_flow.push(r.map(|r| r.conn as u64));
            let k = r.map(|r| *m.candidates.iter().find(|k| k.flow == r.conn).expect("a candidate of its session"));
            o_mirror.push(k.map(|k| node(k.mirror)).unwrap_or_default());
            o_iface.push(k.map(|k| model.nodes[page.client as usize].interfaces[k.iface as usize].clone()).unwrap_or_default());
            // Whether an earlier request (of any object, or a probe) used its connection.
            o_reused.push(r.is_some_and(|r| place(r.conn, (o.session, i)).is_some_and(|at| at > 0)));
        }
    }
    let pages = Table::new("pages")
        .col("page_id", Column::U32(id))
        .col("name", Column::Str(name))
        .col("client", Column::Str(client))
        .col("policy", Column::Str(policy))
        .col("objects", Column::U64(objects))
        .col("content_bytes", Column::U64(total))
        .col("bytes", Column::U64(bytes))
        .col("start_s", Column::F64(start))
        .col("load_s", Column::OptF64(load))
        .col("connections", Column::U64(conns))
        .col("requests_resent", Column::U64(resent))
        .col("discarded_bytes", Column::U64(discarded))
        .col("error", Column::Str(error));
    let objects = Table::new("page_objects")
        .col("page_id", Column::U32(o_page))
        .col("object", Column::U32(o_id))
        .col("session_id", Column::U32(o_session))
        .col("content", Column::Str(o_content))
        .col("after", Column::Str(o_after))
        .col("depth", Column::U32(o_depth))
        .col("bytes", Column::U64(o_bytes))
        .col("ready_s", Column::OptF64(o_ready))
        .col("sent_s", Column::OptF64(o_sent))
        .col("first_byte_s", Column::OptF64(o_first))
        .col("done_s", Column::OptF64(o_done))
        .col("flow_id", Column::OptU64(o_flow))
        .col("mirror", Column::Str(o_mirror))
        .col("interface", Column::Str(o_iface))
        .col("reused", Column::Bool(o_reused));
    [pages, objects]
}
