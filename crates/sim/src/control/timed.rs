//! The scenario's timed path-manager actions (`mptcp.actions`) as a
//! controller: it arms a timer per action at the start and, when one fires,
//! turns it into actions on the subflows the view shows. An open on a
//! connection that cannot take it (not established, fallen back, an
//! interface down) is refused by the plane, as before.

use super::{Action, ConnId, Controller, Event, View};
use crate::mptcp::{Action as Timed, End};
use crate::time::Time;

pub struct TimedActions {
    /// (time, connection, action), `End::Local` meaning this host's interface.
    pub actions: Vec<(Time, ConnId, Timed)>,
}

impl Controller for TimedActions {
    fn on_event(&mut self, _now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        match *event {
            Event::Start => {
                for (i, &(at, _, _)) in self.actions.iter().enumerate() {
                    out.push(Action::ArmTimer { after: at, token: i as u64 });
                }
            }
            Event::Timer { token } => {
                let (_, conn, action) = self.actions[token as usize];
                let Some(c) = view.connection(conn) else { return };
                let uses = |s: &super::view::SubflowView, end: End, iface: u16| s.open && iface == if end == End::Local { s.local } else { s.remote };
                match action {
                    Timed::Open { local, remote, backup } => out.push(Action::OpenSubflow { conn, local, remote, backup }),
                    Timed::Close { end, iface } => {
                        out.extend(c.subflows.iter().filter(|s| uses(s, end, iface)).map(|s| Action::CloseSubflow { conn, subflow: s.id }))
                    }
                    Timed::SetBackup { end, iface, backup } => out.extend(
                        c.subflows.iter().filter(|s| uses(s, end, iface)).map(|s| Action::SetBackup { conn, subflow: s.id, backup }),
                    ),
                }
            }
            _ => {}
        }
    }
}
