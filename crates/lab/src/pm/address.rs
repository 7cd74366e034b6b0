//! The `address` attribute set of the `mptcp_pm` generic-netlink family
//! (kernel `Documentation/netlink/specs/mptcp_pm.yaml`, attribute-set
//! `address`, enum `mptcp_pm_addr_attrs`): one endpoint or one side of a
//! subflow, always carried nested inside `MPTCP_PM_ATTR_ADDR` or
//! `MPTCP_PM_ATTR_ADDR_REMOTE`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::ops::BitOr;

use netlink_packet_core::{parse_u16, parse_u32, parse_u8, Emitable, Nla, NlasIterator, NLA_F_NESTED};

use super::error::Error;

const ATTR_FAMILY: u16 = 1;
const ATTR_ID: u16 = 2;
const ATTR_ADDR4: u16 = 3;
const ATTR_ADDR6: u16 = 4;
const ATTR_PORT: u16 = 5;
const ATTR_FLAGS: u16 = 6;
const ATTR_IF_IDX: u16 = 7;

const AF_INET: u16 = libc::AF_INET as u16;
const AF_INET6: u16 = libc::AF_INET6 as u16;

/// Endpoint flags, `MPTCP_PM_ADDR_FLAG_*` in `include/uapi/linux/mptcp.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EndpointFlags(pub u32);

impl EndpointFlags {
    pub const NONE: EndpointFlags = EndpointFlags(0);
    /// Announce the address to the peer (ADD_ADDR, RFC 8684 §3.4.1).
    pub const SIGNAL: EndpointFlags = EndpointFlags(1 << 0);
    /// Open subflows from this address (MP_JOIN, RFC 8684 §3.2).
    pub const SUBFLOW: EndpointFlags = EndpointFlags(1 << 1);
    /// Subflows from this address carry the backup bit (RFC 8684 §3.3.8).
    pub const BACKUP: EndpointFlags = EndpointFlags(1 << 2);
    /// Open a subflow from this address to every address the peer announces.
    pub const FULLMESH: EndpointFlags = EndpointFlags(1 << 3);
    /// Created by the kernel itself (for an address the peer joined); read-only.
    pub const IMPLICIT: EndpointFlags = EndpointFlags(1 << 4);
    /// Use this address for subflows towards addresses the peer announces
    /// (newer kernels; `laminar` in `pm_nl_ctl`).
    pub const LAMINAR: EndpointFlags = EndpointFlags(1 << 5);

    pub fn contains(self, other: EndpointFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for EndpointFlags {
    type Output = EndpointFlags;
    fn bitor(self, rhs: EndpointFlags) -> EndpointFlags {
        EndpointFlags(self.0 | rhs.0)
    }
}

/// One `address` nest. Every field is optional on the wire; which ones a
/// command needs is the caller's business (see `client.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Address {
    /// `addr4`/`addr6`; `family` is emitted alongside and derived on decode.
    pub ip: Option<IpAddr>,
    pub id: Option<u8>,
    pub port: Option<u16>,
    pub flags: Option<EndpointFlags>,
    pub ifindex: Option<i32>,
}

impl Address {
    /// The nested attribute `kind` (`MPTCP_PM_ATTR_ADDR` or `MPTCP_PM_ATTR_ADDR_REMOTE`).
    pub(crate) fn nest(&self, kind: u16) -> Nest<'_> {
        Nest { kind, addr: self }
    }

    /// Decodes the value of an `address` nest.
    pub(crate) fn decode(value: &[u8]) -> Result<Address, Error> {
        let mut a = Address::default();
        let mut family = None;
        for nla in NlasIterator::new(value) {
            let nla = nla.map_err(Error::decode)?;
            let v = nla.value();
            match nla.kind() {
                ATTR_FAMILY => family = Some(parse_u16(v).map_err(Error::decode)?),
                ATTR_ID => a.id = Some(parse_u8(v).map_err(Error::decode)?),
                ATTR_ADDR4 => a.ip = Some(IpAddr::V4(ipv4(v)?)),
                ATTR_ADDR6 => a.ip = Some(IpAddr::V6(ipv6(v)?)),
                // Host byte order on the wire although the spec says
                // big-endian: the kernel reads it with `htons(nla_get_u16())`
                // and dumps it with `nla_put_u16(ntohs())` (pm_netlink.c).
                ATTR_PORT => a.port = Some(parse_u16(v).map_err(Error::decode)?),
                ATTR_FLAGS => a.flags = Some(EndpointFlags(parse_u32(v).map_err(Error::decode)?)),
                ATTR_IF_IDX => a.ifindex = Some(parse_u32(v).map_err(Error::decode)? as i32),
                _ => {}
            }
        }
        match (family, a.ip) {
            (Some(AF_INET), Some(IpAddr::V6(_))) | (Some(AF_INET6), Some(IpAddr::V4(_))) => {
                Err(Error::Decode("address family does not match the address".into()))
            }
            _ => Ok(a),
        }
    }

    /// The attributes inside the nest, in the order `pm_nl_ctl` sends them.
    fn attrs(&self) -> Vec<AddrAttr> {
        let mut v = Vec::new();
        if let Some(ip) = self.ip {
            v.push(AddrAttr::Family(if ip.is_ipv4() { AF_INET } else { AF_INET6 }));
        }
        if let Some(id) = self.id {
            v.push(AddrAttr::Id(id));
        }
        if let Some(ip) = self.ip {
            v.push(AddrAttr::Ip(ip));
        }
        if let Some(port) = self.port {
            v.push(AddrAttr::Port(port));
        }
        if let Some(flags) = self.flags {
            v.push(AddrAttr::Flags(flags.0));
        }
        if let Some(ifindex) = self.ifindex {
            v.push(AddrAttr::IfIdx(ifindex));
        }
        v
    }
}

pub(crate) fn ipv4(v: &[u8]) -> Result<Ipv4Addr, Error> {
    let b: [u8; 4] = v.try_into().map_err(|_| Error::Decode(format!("IPv4 address of {} bytes", v.len())))?;
    Ok(Ipv4Addr::from(b))
}

pub(crate) fn ipv6(v: &[u8]) -> Result<Ipv6Addr, Error> {
    let b: [u8; 16] = v
        .get(..16)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| Error::Decode(format!("IPv6 address of {} bytes", v.len())))?;
    Ok(Ipv6Addr::from(b))
}

enum AddrAttr {
    Family(u16),
    Id(u8),
    Ip(IpAddr),
    Port(u16),
    Flags(u32),
    IfIdx(i32),
}

impl Nla for AddrAttr {
    fn value_len(&self) -> usize {
        match self {
            AddrAttr::Family(_) | AddrAttr::Port(_) => 2,
            AddrAttr::Id(_) => 1,
            AddrAttr::Ip(IpAddr::V4(_)) | AddrAttr::Flags(_) | AddrAttr::IfIdx(_) => 4,
            AddrAttr::Ip(IpAddr::V6(_)) => 16,
        }
    }

    fn kind(&self) -> u16 {
        match self {
            AddrAttr::Family(_) => ATTR_FAMILY,
            AddrAttr::Id(_) => ATTR_ID,
            AddrAttr::Ip(IpAddr::V4(_)) => ATTR_ADDR4,
            AddrAttr::Ip(IpAddr::V6(_)) => ATTR_ADDR6,
            AddrAttr::Port(_) => ATTR_PORT,
            AddrAttr::Flags(_) => ATTR_FLAGS,
            AddrAttr::IfIdx(_) => ATTR_IF_IDX,
        }
    }

    fn emit_value(&self, buf: &mut [u8]) {
        match self {
            AddrAttr::Family(f) => buf.copy_from_slice(&f.to_ne_bytes()),
            AddrAttr::Id(id) => buf[0] = *id,
            // Network byte order: the octets as written.
            AddrAttr::Ip(IpAddr::V4(a)) => buf.copy_from_slice(&a.octets()),
            AddrAttr::Ip(IpAddr::V6(a)) => buf.copy_from_slice(&a.octets()),
            AddrAttr::Port(p) => buf.copy_from_slice(&p.to_ne_bytes()),
            AddrAttr::Flags(f) => buf.copy_from_slice(&f.to_ne_bytes()),
            AddrAttr::IfIdx(i) => buf.copy_from_slice(&i.to_ne_bytes()),
        }
    }
}

/// An `Address` emitted as a nested attribute (`NLA_F_NESTED` set, as the
/// kernel's selftest client `pm_nl_ctl.c` sends it).
pub(crate) struct Nest<'a> {
    kind: u16,
    addr: &'a Address,
}

impl Nla for Nest<'_> {
    fn value_len(&self) -> usize {
        self.addr.attrs().as_slice().buffer_len()
    }

    fn kind(&self) -> u16 {
        self.kind | NLA_F_NESTED
    }

    fn emit_value(&self, buf: &mut [u8]) {
        self.addr.attrs().as_slice().emit(buf)
    }
}
