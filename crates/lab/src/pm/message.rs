//! One `mptcp_pm` generic-netlink message: a command (or event type) and its
//! attributes (kernel `Documentation/netlink/specs/mptcp_pm.yaml`,
//! `operations` and attribute-set `attr`, enum `mptcp_pm_attrs`).
//!
//! Requests are built from typed [`Attr`]s; replies and events are kept as
//! raw attribute bytes and decoded by the attribute set their command uses
//! (`address.rs`, `event.rs`), since one family number space carries both.

use netlink_packet_core::{DecodeError, Emitable, Nla, ParseableParametrized};
use netlink_packet_generic::{GenlFamily, GenlHeader};

use super::address::Address;

/// `MPTCP_PM_NAME`, `MPTCP_PM_VER` and `MPTCP_PM_EV_GRP_NAME` (uapi `mptcp_pm.h`).
pub const FAMILY_NAME: &str = "mptcp_pm";
pub const FAMILY_VERSION: u8 = 1;
pub const EVENTS_GROUP: &str = "mptcp_pm_events";

/// `enum mptcp_pm_cmd` (spec `operations`, values 1..=11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    AddAddr = 1,
    DelAddr = 2,
    GetAddr = 3,
    FlushAddrs = 4,
    SetLimits = 5,
    GetLimits = 6,
    SetFlags = 7,
    Announce = 8,
    Remove = 9,
    SubflowCreate = 10,
    SubflowDestroy = 11,
}

const ATTR_ADDR: u16 = 1;
const ATTR_RCV_ADD_ADDRS: u16 = 2;
const ATTR_SUBFLOWS: u16 = 3;
const ATTR_TOKEN: u16 = 4;
const ATTR_LOC_ID: u16 = 5;
const ATTR_ADDR_REMOTE: u16 = 6;

/// The request attributes of attribute-set `attr` (`MPTCP_PM_ATTR_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attr {
    /// The local address or endpoint (`MPTCP_PM_ATTR_ADDR`, nested).
    Addr(Address),
    /// Limit on ADD_ADDRs accepted per connection (`MPTCP_PM_ATTR_RCV_ADD_ADDRS`).
    RcvAddAddrs(u32),
    /// Limit on additional subflows per connection (`MPTCP_PM_ATTR_SUBFLOWS`).
    Subflows(u32),
    /// The connection's local token (`MPTCP_PM_ATTR_TOKEN`, RFC 8684 §3.2).
    Token(u32),
    /// A local address id (`MPTCP_PM_ATTR_LOC_ID`).
    LocId(u8),
    /// The peer's address (`MPTCP_PM_ATTR_ADDR_REMOTE`, nested).
    AddrRemote(Address),
}

impl Nla for Attr {
    fn value_len(&self) -> usize {
        match self {
            Attr::Addr(a) => a.nest(ATTR_ADDR).value_len(),
            Attr::AddrRemote(a) => a.nest(ATTR_ADDR_REMOTE).value_len(),
            Attr::RcvAddAddrs(_) | Attr::Subflows(_) | Attr::Token(_) => 4,
            Attr::LocId(_) => 1,
        }
    }

    fn kind(&self) -> u16 {
        match self {
            Attr::Addr(a) => a.nest(ATTR_ADDR).kind(),
            Attr::AddrRemote(a) => a.nest(ATTR_ADDR_REMOTE).kind(),
            Attr::RcvAddAddrs(_) => ATTR_RCV_ADD_ADDRS,
            Attr::Subflows(_) => ATTR_SUBFLOWS,
            Attr::Token(_) => ATTR_TOKEN,
            Attr::LocId(_) => ATTR_LOC_ID,
        }
    }

    fn emit_value(&self, buf: &mut [u8]) {
        match self {
            Attr::Addr(a) => a.nest(ATTR_ADDR).emit_value(buf),
            Attr::AddrRemote(a) => a.nest(ATTR_ADDR_REMOTE).emit_value(buf),
            Attr::RcvAddAddrs(n) | Attr::Subflows(n) | Attr::Token(n) => buf.copy_from_slice(&n.to_ne_bytes()),
            Attr::LocId(id) => buf[0] = *id,
        }
    }
}

/// Reply attributes a client reads back: endpoints and limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ReplyAttrs {
    pub addr: Option<Address>,
    pub rcv_add_addrs: Option<u32>,
    pub subflows: Option<u32>,
}

impl ReplyAttrs {
    pub fn decode(payload: &[u8]) -> Result<ReplyAttrs, super::Error> {
        use netlink_packet_core::{parse_u32, NlasIterator, NLA_TYPE_MASK};
        let mut r = ReplyAttrs::default();
        for nla in NlasIterator::new(payload) {
            let nla = nla.map_err(super::Error::decode)?;
            match nla.kind() & NLA_TYPE_MASK {
                ATTR_ADDR => r.addr = Some(Address::decode(nla.value())?),
                ATTR_RCV_ADD_ADDRS => r.rcv_add_addrs = Some(parse_u32(nla.value()).map_err(super::Error::decode)?),
                ATTR_SUBFLOWS => r.subflows = Some(parse_u32(nla.value()).map_err(super::Error::decode)?),
                _ => {}
            }
        }
        Ok(r)
    }
}

/// The generic-netlink payload: command byte plus encoded attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmMessage {
    pub cmd: u8,
    pub attrs: Vec<u8>,
}

impl PmMessage {
    pub fn request(cmd: Command, attrs: &[Attr]) -> PmMessage {
        let mut buf = vec![0; attrs.buffer_len()];
        attrs.emit(&mut buf);
        PmMessage { cmd: cmd as u8, attrs: buf }
    }
}

impl GenlFamily for PmMessage {
    fn family_name() -> &'static str {
        FAMILY_NAME
    }

    fn command(&self) -> u8 {
        self.cmd
    }

    fn version(&self) -> u8 {
        FAMILY_VERSION
    }
}

impl Emitable for PmMessage {
    fn buffer_len(&self) -> usize {
        self.attrs.len()
    }

    fn emit(&self, buf: &mut [u8]) {
        buf.copy_from_slice(&self.attrs)
    }
}

impl ParseableParametrized<[u8], GenlHeader> for PmMessage {
    fn parse_with_param(buf: &[u8], header: GenlHeader) -> Result<PmMessage, DecodeError> {
        Ok(PmMessage { cmd: header.cmd, attrs: buf.to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pm::address::EndpointFlags;
    use crate::pm::genl::encode;
    use netlink_packet_generic::GenlMessage;
    use std::net::{IpAddr, Ipv4Addr};

    fn v4(a: u8, b: u8, c: u8, d: u8) -> Option<IpAddr> {
        Some(IpAddr::V4(Ipv4Addr::new(a, b, c, d)))
    }

    /// `add-addr` of endpoint 10.0.0.2 id 3 flags subflow,backup dev 7, as a
    /// whole netlink message (family id 0x1d, sequence 1), byte by byte from
    /// the spec: nlmsghdr, genlmsghdr (cmd 1, version 1), then the nested
    /// `addr` (type 1 | NLA_F_NESTED) holding family, id, addr4, flags, if-idx.
    #[test]
    fn add_endpoint_message_bytes() {
        let addr = Address {
            ip: v4(10, 0, 0, 2),
            id: Some(3),
            port: None,
            flags: Some(EndpointFlags::SUBFLOW | EndpointFlags::BACKUP),
            ifindex: Some(7),
        };
        let mut msg = GenlMessage::from_payload(PmMessage::request(Command::AddAddr, &[Attr::Addr(addr)]));
        msg.set_resolved_family_id(0x1d);
        #[rustfmt::skip]
        let expected: Vec<u8> = vec![
            64, 0, 0, 0,   0x1d, 0,   5, 0,   1, 0, 0, 0,   0, 0, 0, 0, // nlmsghdr: len, type, REQUEST|ACK, seq, pid
            1, 1, 0, 0,                                                 // genlmsghdr: ADD_ADDR, version 1
            44, 0, 1, 0x80,                                             // MPTCP_PM_ATTR_ADDR | NLA_F_NESTED
            6, 0, 1, 0,   2, 0, 0, 0,                                   //   family AF_INET (u16) + pad
            5, 0, 2, 0,   3, 0, 0, 0,                                   //   id 3 (u8) + pad
            8, 0, 3, 0,   10, 0, 0, 2,                                  //   addr4, network order
            8, 0, 6, 0,   6, 0, 0, 0,                                   //   flags subflow|backup
            8, 0, 7, 0,   7, 0, 0, 0,                                   //   if-idx 7
        ];
        assert_eq!(encode(msg, 1, false), expected);
    }

    #[test]
    fn dump_sets_nlm_f_dump() {
        let mut msg = GenlMessage::from_payload(PmMessage::request(Command::GetAddr, &[]));
        msg.set_resolved_family_id(0x1d);
        let bytes = encode(msg, 9, true);
        assert_eq!(bytes.len(), 20);
        // NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP (0x300).
        assert_eq!(&bytes[6..8], &[0x05, 0x03]);
        assert_eq!(&bytes[16..18], &[3, 1]);
    }

    /// `subflow-create` as `pm_nl_ctl csf lip 10.0.2.1 lid 2 rip 10.0.2.2
    /// rport 8080 token 0x01020304` sends it: local nest (family, id, addr4,
    /// flags subflow), token, remote nest (family, addr4, port in host order).
    #[test]
    fn subflow_create_attribute_bytes() {
        let local = Address { ip: v4(10, 0, 2, 1), id: Some(2), flags: Some(EndpointFlags::SUBFLOW), ..Address::default() };
        let remote = Address { ip: v4(10, 0, 2, 2), port: Some(8080), ..Address::default() };
        let msg = PmMessage::request(
            Command::SubflowCreate,
            &[Attr::Addr(local), Attr::Token(0x0102_0304), Attr::AddrRemote(remote)],
        );
        assert_eq!(msg.cmd, 10);
        #[rustfmt::skip]
        let expected: Vec<u8> = vec![
            36, 0, 1, 0x80,
            6, 0, 1, 0,   2, 0, 0, 0,
            5, 0, 2, 0,   2, 0, 0, 0,
            8, 0, 3, 0,   10, 0, 2, 1,
            8, 0, 6, 0,   2, 0, 0, 0,
            8, 0, 4, 0,   4, 3, 2, 1,                                   // MPTCP_PM_ATTR_TOKEN (u32)
            28, 0, 6, 0x80,                                             // MPTCP_PM_ATTR_ADDR_REMOTE | NESTED
            6, 0, 1, 0,   2, 0, 0, 0,
            8, 0, 3, 0,   10, 0, 2, 2,
            6, 0, 5, 0,   0x90, 0x1f, 0, 0,                             // port 8080 = 0x1f90, host order
        ];
        assert_eq!(msg.attrs, expected);
    }

    #[test]
    fn limits_and_remove_attribute_bytes() {
        let msg = PmMessage::request(Command::SetLimits, &[Attr::RcvAddAddrs(4), Attr::Subflows(8)]);
        assert_eq!(msg.cmd, 5);
        assert_eq!(msg.attrs, vec![8, 0, 2, 0, 4, 0, 0, 0, 8, 0, 3, 0, 8, 0, 0, 0]);
        let msg = PmMessage::request(Command::Remove, &[Attr::Token(7), Attr::LocId(9)]);
        assert_eq!(msg.cmd, 9);
        assert_eq!(msg.attrs, vec![8, 0, 4, 0, 7, 0, 0, 0, 5, 0, 5, 0, 9, 0, 0, 0]);
    }

    /// A `get-addr` reply as `mptcp_nl_fill_addr()` writes it (nest with
    /// NLA_F_NESTED: family, id, flags, addr6, if-idx), and a `get-limits` reply.
    #[test]
    fn decode_replies() {
        let mut v6 = vec![20, 0, 4, 0];
        v6.extend_from_slice(&"fd00::5".parse::<std::net::Ipv6Addr>().unwrap().octets());
        #[rustfmt::skip]
        let mut inner: Vec<u8> = vec![
            6, 0, 1, 0,   10, 0, 0, 0,
            5, 0, 2, 0,   4, 0, 0, 0,
            8, 0, 6, 0,   9, 0, 0, 0,
        ];
        inner.extend_from_slice(&v6);
        inner.extend_from_slice(&[8, 0, 7, 0, 3, 0, 0, 0]);
        let mut reply = vec![(inner.len() + 4) as u8, 0, 1, 0x80];
        reply.extend_from_slice(&inner);
        let r = ReplyAttrs::decode(&reply).unwrap();
        let a = r.addr.unwrap();
        assert_eq!(a.ip, Some("fd00::5".parse().unwrap()));
        assert_eq!(a.id, Some(4));
        assert_eq!(a.flags, Some(EndpointFlags::SIGNAL | EndpointFlags::FULLMESH));
        assert!(a.flags.unwrap().contains(EndpointFlags::FULLMESH) && !a.flags.unwrap().contains(EndpointFlags::BACKUP));
        assert_eq!(a.ifindex, Some(3));

        let r = ReplyAttrs::decode(&[8, 0, 2, 0, 1, 0, 0, 0, 8, 0, 3, 0, 2, 0, 0, 0]).unwrap();
        assert_eq!((r.rcv_add_addrs, r.subflows), (Some(1), Some(2)));
    }

    #[test]
    fn family_mismatch_is_an_error() {
        // family AF_INET6 with an addr4.
        let inner = [6, 0, 1, 0, 10, 0, 0, 0, 8, 0, 3, 0, 10, 0, 0, 1];
        assert!(Address::decode(&inner).is_err());
    }
}
