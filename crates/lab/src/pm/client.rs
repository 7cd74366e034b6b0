//! The typed `mptcp_pm` command client: endpoints and limits for the
//! in-kernel path manager (`net.mptcp.pm_type=0`), and the per-connection
//! commands of the userspace path manager (`pm_type=1`). Each method is one
//! operation of `Documentation/netlink/specs/mptcp_pm.yaml`, sent with the
//! attributes the kernel's selftest client `pm_nl_ctl.c` sends.

use std::net::{IpAddr, SocketAddr};

use netlink_packet_generic::GenlMessage;

use super::address::{Address, EndpointFlags};
use super::error::Error;
use super::genl::{Family, GenlSocket};
use super::message::{Attr, Command, PmMessage, ReplyAttrs, FAMILY_NAME};

/// A path-manager endpoint: a local address the in-kernel path manager may
/// use (`ip mptcp endpoint`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Endpoint id; 0 on add lets the kernel choose one.
    pub id: u8,
    pub addr: IpAddr,
    /// Only with `SIGNAL`: announce this port instead of the connection's.
    pub port: Option<u16>,
    pub flags: EndpointFlags,
    /// Bind subflows from this endpoint to this interface.
    pub ifindex: Option<i32>,
}

/// Per-connection limits of the in-kernel path manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// ADD_ADDRs accepted from the peer (`MPTCP_PM_ATTR_RCV_ADD_ADDRS`).
    pub add_addr_accepted: u32,
    /// Additional subflows, created or accepted (`MPTCP_PM_ATTR_SUBFLOWS`).
    pub subflows: u32,
}

/// A local address for the userspace path manager's commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalAddr {
    /// Local address id (RFC 8684 §3.2: the MP_JOIN "Address ID"); non-zero.
    pub id: u8,
    pub ip: IpAddr,
    pub ifindex: Option<i32>,
}

/// A connection to the kernel's `mptcp_pm` family in the calling thread's
/// network namespace.
pub struct PathManager {
    sock: GenlSocket,
    family: Family,
}

impl PathManager {
    /// Opens the family; `Error::NoFamily` when the kernel has no MPTCP.
    pub fn open() -> Result<PathManager, Error> {
        let mut sock = GenlSocket::open()?;
        let family = sock.resolve(FAMILY_NAME)?;
        Ok(PathManager { sock, family })
    }

    fn call(&mut self, cmd: Command, attrs: &[Attr], dump: bool) -> Result<Vec<ReplyAttrs>, Error> {
        let mut msg = GenlMessage::from_payload(PmMessage::request(cmd, attrs));
        msg.set_resolved_family_id(self.family.id);
        let replies = self.sock.request(msg, dump)?;
        replies.iter().map(|m| ReplyAttrs::decode(&m.payload.attrs)).collect()
    }

    // --- in-kernel path manager: endpoints and limits -------------------

    /// `add-addr`.
    pub fn add_endpoint(&mut self, ep: &Endpoint) -> Result<(), Error> {
        let addr = Address {
            ip: Some(ep.addr),
            id: (ep.id != 0).then_some(ep.id),
            port: ep.port,
            flags: Some(ep.flags),
            ifindex: ep.ifindex,
        };
        self.call(Command::AddAddr, &[Attr::Addr(addr)], false).map(drop)
    }

    /// `del-addr` by id (id 0, the initial subflow's address, is not an endpoint).
    pub fn del_endpoint(&mut self, id: u8) -> Result<(), Error> {
        let addr = Address { id: Some(id), ..Address::default() };
        self.call(Command::DelAddr, &[Attr::Addr(addr)], false).map(drop)
    }

    /// `flush-addrs`: removes every endpoint.
    pub fn flush_endpoints(&mut self) -> Result<(), Error> {
        self.call(Command::FlushAddrs, &[], false).map(drop)
    }

    /// `get-addr` dump: every endpoint.
    pub fn endpoints(&mut self) -> Result<Vec<Endpoint>, Error> {
        self.call(Command::GetAddr, &[], true)?.into_iter().map(endpoint_from).collect()
    }

    /// `get-addr` of one endpoint.
    pub fn endpoint(&mut self, id: u8) -> Result<Endpoint, Error> {
        let addr = Address { id: Some(id), ..Address::default() };
        let reply = self.call(Command::GetAddr, &[Attr::Addr(addr)], false)?;
        endpoint_from(reply.into_iter().next().ok_or_else(|| Error::Decode("get-addr: no reply".into()))?)
    }

    /// `set-flags` on an endpoint: only `BACKUP` and `FULLMESH` can change.
    pub fn set_endpoint_flags(&mut self, id: u8, flags: EndpointFlags) -> Result<(), Error> {
        let addr = Address { id: Some(id), flags: Some(flags), ..Address::default() };
        self.call(Command::SetFlags, &[Attr::Addr(addr)], false).map(drop)
    }

    /// `get-limits`.
    pub fn limits(&mut self) -> Result<Limits, Error> {
        let reply = self.call(Command::GetLimits, &[], false)?;
        let r = reply.into_iter().next().ok_or_else(|| Error::Decode("get-limits: no reply".into()))?;
        Ok(Limits {
            add_addr_accepted: r.rcv_add_addrs.ok_or_else(|| Error::Decode("get-limits: no rcv-add-addrs".into()))?,
            subflows: r.subflows.ok_or_else(|| Error::Decode("get-limits: no subflows".into()))?,
        })
    }

    /// `set-limits` (each at most `MPTCP_PM_ADDR_MAX`, 8).
    pub fn set_limits(&mut self, limits: Limits) -> Result<(), Error> {
        let attrs = [Attr::RcvAddAddrs(limits.add_addr_accepted), Attr::Subflows(limits.subflows)];
        self.call(Command::SetLimits, &attrs, false).map(drop)
    }

    // --- userspace path manager: per-connection commands ----------------

    /// `announce`: send ADD_ADDR for `local` on connection `token` (RFC 8684 §3.4.1).
    pub fn announce(&mut self, token: u32, local: LocalAddr) -> Result<(), Error> {
        let addr = Address {
            ip: Some(local.ip),
            id: Some(local.id),
            flags: Some(EndpointFlags::SIGNAL),
            ifindex: local.ifindex,
            ..Address::default()
        };
        self.call(Command::Announce, &[Attr::Addr(addr), Attr::Token(token)], false).map(drop)
    }

    /// `remove`: send REMOVE_ADDR for local address id `local_id` (RFC 8684 §3.4.2)
    /// and close the subflows using it.
    pub fn remove(&mut self, token: u32, local_id: u8) -> Result<(), Error> {
        self.call(Command::Remove, &[Attr::Token(token), Attr::LocId(local_id)], false).map(drop)
    }

    /// `subflow-create`: open a subflow (MP_JOIN, RFC 8684 §3.2) from `local`
    /// to `remote`, with the backup bit if `backup`.
    pub fn subflow_create(&mut self, token: u32, local: LocalAddr, remote: SocketAddr, backup: bool) -> Result<(), Error> {
        let flags = if backup { EndpointFlags::SUBFLOW | EndpointFlags::BACKUP } else { EndpointFlags::SUBFLOW };
        let local = Address {
            ip: Some(local.ip),
            id: Some(local.id),
            flags: Some(flags),
            ifindex: local.ifindex,
            ..Address::default()
        };
        let attrs = [Attr::Addr(local), Attr::Token(token), Attr::AddrRemote(socket_address(remote))];
        self.call(Command::SubflowCreate, &attrs, false).map(drop)
    }

    /// `subflow-destroy`: close the subflow between `local` and `remote`.
    pub fn subflow_destroy(&mut self, token: u32, local: SocketAddr, remote: SocketAddr) -> Result<(), Error> {
        let attrs = [Attr::Addr(socket_address(local)), Attr::Token(token), Attr::AddrRemote(socket_address(remote))];
        self.call(Command::SubflowDestroy, &attrs, false).map(drop)
    }

    /// `set-flags` on a subflow: send MP_PRIO with the backup bit (RFC 8684 §3.3.8).
    pub fn set_subflow_backup(&mut self, token: u32, local: SocketAddr, remote: SocketAddr, backup: bool) -> Result<(), Error> {
        let flags = if backup { EndpointFlags::BACKUP } else { EndpointFlags::NONE };
        let local = Address { flags: Some(flags), ..socket_address(local) };
        let attrs = [Attr::Addr(local), Attr::Token(token), Attr::AddrRemote(socket_address(remote))];
        self.call(Command::SetFlags, &attrs, false).map(drop)
    }
}

fn socket_address(a: SocketAddr) -> Address {
    Address { ip: Some(a.ip()), port: Some(a.port()), ..Address::default() }
}

fn endpoint_from(r: ReplyAttrs) -> Result<Endpoint, Error> {
    let a = r.addr.ok_or_else(|| Error::Decode("get-addr reply without an address".into()))?;
    Ok(Endpoint {
        id: a.id.ok_or_else(|| Error::Decode("endpoint without an id".into()))?,
        addr: a.ip.ok_or_else(|| Error::Decode("endpoint without an address".into()))?,
        port: a.port.filter(|&p| p != 0),
        flags: a.flags.unwrap_or_default(),
        ifindex: a.ifindex.filter(|&i| i != 0),
    })
}
