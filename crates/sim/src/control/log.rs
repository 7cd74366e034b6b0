//! The `controller_log` result table: one row per action a controller took
//! (or that its plane refused), with the event that led to it. The same
//! columns on both planes (docs/results.md).

use super::{Action, ConnId, Event};
use crate::metrics::{Column, Table};
use crate::net::NodeId;
use crate::scenario::Model;
use crate::time::Time;

/// The `detail` of `action` taken by a controller on `host`: an open's
/// interfaces by name ("lte0 -> server:eth0"), a lookup's interface by
/// name ("cdn.example at op over lte0"), else `Action::detail`. Both
/// planes write it so.
pub fn detail(model: &Model, host: NodeId, action: &Action) -> String {
    if let Action::Resolve { resolver, domain, interface: Some(i) } = action {
        if let Some(name) = model.nodes[host as usize].interfaces.get(*i as usize) {
            return format!("{domain} at {resolver} over {name}");
        }
    }
    let named = || {
        let Action::OpenSubflow { conn, local, remote, backup } = *action else { return None };
        let f = model.flows.get(conn as usize)?;
        let peer = if f.src == host { f.dst } else { f.src };
        let (mine, theirs) = (&model.nodes[host as usize], &model.nodes[peer as usize]);
        Some(format!(
            "{} -> {}:{}{}",
            mine.interfaces.get(local as usize)?,
            theirs.name,
            theirs.interfaces.get(remote as usize)?,
            if backup { ", backup" } else { "" }
        ))
    };
    named().unwrap_or_else(|| action.detail())
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub time: Time,
    pub host: String,
    pub controller: String,
    pub event: &'static str,
    pub action: &'static str,
    pub conn: Option<ConnId>,
    pub subflow: Option<u32>,
    /// "done", or "refused: <reason>".
    pub outcome: String,
    pub detail: String,
}

#[derive(Debug, Default)]
pub struct ControllerLog {
    pub rows: Vec<Row>,
}

impl ControllerLog {
    /// Records `action`, taken on `event` at `time`; `refused` is the
    /// plane's reason if it could not; `detail` is the `detail` column
    /// (`detail()` below).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        time: Time,
        host: &str,
        controller: &str,
        event: &Event,
        action: &Action,
        subflow: Option<u32>,
        refused: Option<String>,
        detail: String,
    ) {
        self.rows.push(Row {
            time,
            host: host.to_string(),
            controller: controller.to_string(),
            event: event.kind(),
            action: action.kind().name(),
            conn: action.conn().or(event.conn()),
            subflow: subflow.or(action.subflow()),
            outcome: refused.map_or_else(|| "done".to_string(), |r| format!("refused: {r}")),
            detail,
        });
    }

    /// `flow_name(conn)` gives the connection's flow name for the `flow` column.
    pub fn into_table(self, flow_name: impl Fn(ConnId) -> String) -> Table {
        let r = &self.rows;
        Table::new("controller_log")
            .col("time_s", Column::F64(r.iter().map(|x| x.time.secs()).collect()))
            .col("host", Column::Str(r.iter().map(|x| x.host.clone()).collect()))
            .col("controller", Column::Str(r.iter().map(|x| x.controller.clone()).collect()))
            .col("event", Column::Str(r.iter().map(|x| x.event.to_string()).collect()))
            .col("action", Column::Str(r.iter().map(|x| x.action.to_string()).collect()))
            .col("flow_id", Column::OptU64(r.iter().map(|x| x.conn.map(u64::from)).collect()))
            .col("flow", Column::Str(r.iter().map(|x| x.conn.map(&flow_name).unwrap_or_default()).collect()))
            .col("subflow_id", Column::OptU64(r.iter().map(|x| x.subflow.map(u64::from)).collect()))
            .col("outcome", Column::Str(r.iter().map(|x| x.outcome.clone()).collect()))
            .col("detail", Column::Str(r.iter().map(|x| x.detail.clone()).collect()))
    }
}
