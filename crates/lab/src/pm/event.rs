//! Path-manager events the kernel multicasts on the `mptcp_pm_events` group
//! (kernel `Documentation/netlink/specs/mptcp_pm.yaml`: enum `event-type`
//! gives the generic-netlink command of each event and the attributes it
//! carries; attribute-set `event-attr`, enum `mptcp_event_attr`).

use std::net::{IpAddr, SocketAddr};

use netlink_packet_core::{parse_u16, parse_u16_be, parse_u32, parse_u8, NlasIterator, NLA_TYPE_MASK};

use super::address::{ipv4, ipv6};
use super::error::Error;

const EVENT_CREATED: u8 = 1;
const EVENT_ESTABLISHED: u8 = 2;
const EVENT_CLOSED: u8 = 3;
const EVENT_ANNOUNCED: u8 = 6;
const EVENT_REMOVED: u8 = 7;
const EVENT_SUB_ESTABLISHED: u8 = 10;
const EVENT_SUB_CLOSED: u8 = 11;
const EVENT_SUB_PRIORITY: u8 = 13;
const EVENT_LISTENER_CREATED: u8 = 15;
const EVENT_LISTENER_CLOSED: u8 = 16;

const ATTR_TOKEN: u16 = 1;
const ATTR_LOC_ID: u16 = 3;
const ATTR_REM_ID: u16 = 4;
const ATTR_SADDR4: u16 = 5;
const ATTR_SADDR6: u16 = 6;
const ATTR_DADDR4: u16 = 7;
const ATTR_DADDR6: u16 = 8;
const ATTR_SPORT: u16 = 9;
const ATTR_DPORT: u16 = 10;
const ATTR_BACKUP: u16 = 11;
const ATTR_ERROR: u16 = 12;
const ATTR_FLAGS: u16 = 13;
const ATTR_IF_IDX: u16 = 15;
const ATTR_RESET_REASON: u16 = 16;
const ATTR_SERVER_SIDE: u16 = 18;

/// `MPTCP_PM_EV_FLAG_SERVER_SIDE` in attribute `flags` (uapi `mptcp.h`).
const EV_FLAG_SERVER_SIDE: u16 = 1 << 1;

/// A connection-level event's endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connection {
    /// The local token, the handle every per-connection command takes.
    pub token: u32,
    pub local: SocketAddr,
    pub remote: SocketAddr,
    /// This host accepted the connection (it is the server side).
    pub server_side: bool,
}

/// A subflow-level event's subflow (RFC 8684 §3.2: one TCP connection of
/// the MPTCP connection, named by the local and remote address ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subflow {
    pub token: u32,
    pub local_id: u8,
    pub remote_id: u8,
    pub local: SocketAddr,
    pub remote: SocketAddr,
    /// The subflow's backup bit (RFC 8684 §3.3.8, MP_PRIO).
    pub backup: bool,
    pub ifindex: Option<u32>,
    /// A copy of the subflow socket's `sk_err`, if any.
    pub error: Option<u8>,
    /// The MP_TCPRST reason (RFC 8684 §3.6), on `sub_closed` after a reset.
    pub reset_reason: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A connection was created (after the first SYN/ACK exchange).
    Created(Connection),
    /// The connection is fully established; new subflows may be created.
    Established(Connection),
    Closed { token: u32 },
    /// The peer announced an address (ADD_ADDR, RFC 8684 §3.4.1).
    Announced { token: u32, remote_id: u8, addr: IpAddr, port: Option<u16> },
    /// The peer removed an address (REMOVE_ADDR, RFC 8684 §3.4.2).
    Removed { token: u32, remote_id: u8 },
    SubEstablished(Subflow),
    SubClosed(Subflow),
    /// A subflow's backup bit changed (MP_PRIO, RFC 8684 §3.3.8).
    SubPriority(Subflow),
    ListenerCreated { local: SocketAddr },
    ListenerClosed { local: SocketAddr },
}

impl Event {
    /// Decodes one event message: its generic-netlink command and attributes.
    pub fn decode(cmd: u8, attrs: &[u8]) -> Result<Event, Error> {
        let a = EventAttrs::decode(attrs)?;
        Ok(match cmd {
            EVENT_CREATED => Event::Created(a.connection()?),
            EVENT_ESTABLISHED => Event::Established(a.connection()?),
            EVENT_CLOSED => Event::Closed { token: a.token()? },
            EVENT_ANNOUNCED => Event::Announced {
                token: a.token()?,
                remote_id: need(a.rem_id, "rem_id")?,
                addr: need(a.daddr, "daddr")?,
                port: a.dport,
            },
            EVENT_REMOVED => Event::Removed { token: a.token()?, remote_id: need(a.rem_id, "rem_id")? },
            EVENT_SUB_ESTABLISHED => Event::SubEstablished(a.subflow()?),
            EVENT_SUB_CLOSED => Event::SubClosed(a.subflow()?),
            EVENT_SUB_PRIORITY => Event::SubPriority(a.subflow()?),
            EVENT_LISTENER_CREATED => Event::ListenerCreated { local: a.local()? },
            EVENT_LISTENER_CLOSED => Event::ListenerClosed { local: a.local()? },
            other => return Err(Error::Decode(format!("unknown mptcp_pm event type {other}"))),
        })
    }

    /// The connection token, for every event that has one.
    pub fn token(&self) -> Option<u32> {
        match self {
            Event::Created(c) | Event::Established(c) => Some(c.token),
            Event::Closed { token } | Event::Announced { token, .. } | Event::Removed { token, .. } => Some(*token),
            Event::SubEstablished(s) | Event::SubClosed(s) | Event::SubPriority(s) => Some(s.token),
            Event::ListenerCreated { .. } | Event::ListenerClosed { .. } => None,
        }
    }
}

#[derive(Default)]
struct EventAttrs {
    token: Option<u32>,
    loc_id: Option<u8>,
    rem_id: Option<u8>,
    saddr: Option<IpAddr>,
    daddr: Option<IpAddr>,
    sport: Option<u16>,
    dport: Option<u16>,
    backup: Option<u8>,
    error: Option<u8>,
    flags: u16,
    ifindex: Option<u32>,
    reset_reason: Option<u32>,
    server_side: Option<u8>,
}

fn need<T>(v: Option<T>, name: &str) -> Result<T, Error> {
    v.ok_or_else(|| Error::Decode(format!("event lacks attribute {name}")))
}

impl EventAttrs {
    fn decode(buf: &[u8]) -> Result<EventAttrs, Error> {
        let d = Error::decode;
        let mut a = EventAttrs::default();
        for nla in NlasIterator::new(buf) {
            let nla = nla.map_err(d)?;
            let v = nla.value();
            // `family` (2) is implied by which of saddr4/saddr6 is present.
            match nla.kind() & NLA_TYPE_MASK {
                ATTR_TOKEN => a.token = Some(parse_u32(v).map_err(d)?),
                ATTR_LOC_ID => a.loc_id = Some(parse_u8(v).map_err(d)?),
                ATTR_REM_ID => a.rem_id = Some(parse_u8(v).map_err(d)?),
                ATTR_SADDR4 => a.saddr = Some(IpAddr::V4(ipv4(v)?)),
                ATTR_SADDR6 => a.saddr = Some(IpAddr::V6(ipv6(v)?)),
                ATTR_DADDR4 => a.daddr = Some(IpAddr::V4(ipv4(v)?)),
                ATTR_DADDR6 => a.daddr = Some(IpAddr::V6(ipv6(v)?)),
                // Ports are big-endian here (`nla_put_be16`), unlike the
                // endpoint port of the `address` set.
                ATTR_SPORT => a.sport = Some(parse_u16_be(v).map_err(d)?),
                ATTR_DPORT => a.dport = Some(parse_u16_be(v).map_err(d)?),
                ATTR_BACKUP => a.backup = Some(parse_u8(v).map_err(d)?),
                ATTR_ERROR => a.error = Some(parse_u8(v).map_err(d)?),
                ATTR_FLAGS => a.flags = parse_u16(v).map_err(d)?,
                ATTR_IF_IDX => a.ifindex = Some(parse_u32(v).map_err(d)?),
                ATTR_RESET_REASON => a.reset_reason = Some(parse_u32(v).map_err(d)?),
                ATTR_SERVER_SIDE => a.server_side = Some(parse_u8(v).map_err(d)?),
                _ => {}
            }
        }
        Ok(a)
    }

    fn token(&self) -> Result<u32, Error> {
        need(self.token, "token")
    }

    fn local(&self) -> Result<SocketAddr, Error> {
        Ok(SocketAddr::new(need(self.saddr, "saddr")?, need(self.sport, "sport")?))
    }

    fn remote(&self) -> Result<SocketAddr, Error> {
        Ok(SocketAddr::new(need(self.daddr, "daddr")?, need(self.dport, "dport")?))
    }

    fn connection(&self) -> Result<Connection, Error> {
        Ok(Connection {
            token: self.token()?,
            local: self.local()?,
            remote: self.remote()?,
            // Older kernels send attribute `server_side`, newer ones the
            // `MPTCP_PM_EV_FLAG_SERVER_SIDE` flag; accept both.
            server_side: self.server_side == Some(1) || self.flags & EV_FLAG_SERVER_SIDE != 0,
        })
    }

    fn subflow(&self) -> Result<Subflow, Error> {
        Ok(Subflow {
            token: self.token()?,
            local_id: need(self.loc_id, "loc_id")?,
            remote_id: need(self.rem_id, "rem_id")?,
            local: self.local()?,
            remote: self.remote()?,
            backup: self.backup == Some(1),
            ifindex: self.ifindex,
            error: self.error,
            reset_reason: self.reset_reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nla(kind: u16, value: &[u8]) -> Vec<u8> {
        let mut v = ((4 + value.len()) as u16).to_ne_bytes().to_vec();
        v.extend_from_slice(&kind.to_ne_bytes());
        v.extend_from_slice(value);
        while !v.len().is_multiple_of(4) {
            v.push(0);
        }
        v
    }

    /// `sub_established` with the attributes the spec lists for it: token,
    /// family, loc_id, rem_id, saddr4, daddr4, sport, dport (big-endian),
    /// backup, if_idx.
    #[test]
    fn sub_established() {
        let attrs = [
            nla(1, &0xdead_beefu32.to_ne_bytes()),
            nla(2, &2u16.to_ne_bytes()),
            nla(3, &[2]),
            nla(4, &[0]),
            nla(5, &[10, 0, 2, 1]),
            nla(7, &[10, 0, 2, 2]),
            nla(9, &40000u16.to_be_bytes()),
            nla(10, &8080u16.to_be_bytes()),
            nla(11, &[1]),
            nla(15, &5u32.to_ne_bytes()),
        ]
        .concat();
        let e = Event::decode(10, &attrs).unwrap();
        assert_eq!(
            e,
            Event::SubEstablished(Subflow {
                token: 0xdead_beef,
                local_id: 2,
                remote_id: 0,
                local: "10.0.2.1:40000".parse().unwrap(),
                remote: "10.0.2.2:8080".parse().unwrap(),
                backup: true,
                ifindex: Some(5),
                error: None,
                reset_reason: None,
            })
        );
        assert_eq!(e.token(), Some(0xdead_beef));
        assert!(matches!(Event::decode(11, &attrs).unwrap(), Event::SubClosed(_)));
        assert!(matches!(Event::decode(13, &attrs).unwrap(), Event::SubPriority(_)));
    }

    /// `created` over IPv6 on the server side (flag `MPTCP_PM_EV_FLAG_SERVER_SIDE`).
    #[test]
    fn created_v6_server_side() {
        let s: std::net::Ipv6Addr = "fd00::1".parse().unwrap();
        let d: std::net::Ipv6Addr = "fd00::2".parse().unwrap();
        let attrs = [
            nla(1, &7u32.to_ne_bytes()),
            nla(2, &10u16.to_ne_bytes()),
            nla(6, &s.octets()),
            nla(8, &d.octets()),
            nla(9, &80u16.to_be_bytes()),
            nla(10, &50000u16.to_be_bytes()),
            nla(13, &2u16.to_ne_bytes()),
        ]
        .concat();
        let c = Connection {
            token: 7,
            local: "[fd00::1]:80".parse().unwrap(),
            remote: "[fd00::2]:50000".parse().unwrap(),
            server_side: true,
        };
        assert_eq!(Event::decode(1, &attrs).unwrap(), Event::Created(c));
        assert_eq!(Event::decode(2, &attrs).unwrap(), Event::Established(c));
    }

    #[test]
    fn address_events_and_closed() {
        let token = nla(1, &9u32.to_ne_bytes());
        let announced = [token.clone(), nla(4, &[3]), nla(2, &2u16.to_ne_bytes()), nla(7, &[10, 0, 3, 2])].concat();
        assert_eq!(
            Event::decode(6, &announced).unwrap(),
            Event::Announced { token: 9, remote_id: 3, addr: "10.0.3.2".parse().unwrap(), port: None }
        );
        let removed = [token.clone(), nla(4, &[3])].concat();
        assert_eq!(Event::decode(7, &removed).unwrap(), Event::Removed { token: 9, remote_id: 3 });
        assert_eq!(Event::decode(3, &token).unwrap(), Event::Closed { token: 9 });
        let listener = [nla(2, &2u16.to_ne_bytes()), nla(9, &8080u16.to_be_bytes()), nla(5, &[10, 0, 1, 2])].concat();
        assert_eq!(Event::decode(15, &listener).unwrap(), Event::ListenerCreated { local: "10.0.1.2:8080".parse().unwrap() });
    }

    #[test]
    fn malformed_events_are_errors() {
        let token = nla(1, &9u32.to_ne_bytes());
        assert!(Event::decode(99, &token).is_err(), "unknown type");
        assert!(Event::decode(10, &token).is_err(), "sub_established without addresses");
        assert!(Event::decode(3, &nla(1, &[1, 2])).is_err(), "short token");
    }
}
