//! A blocking generic-netlink socket: family and multicast-group resolution
//! through the `nlctrl` family, request/acknowledge, dumps, and reception of
//! multicast messages (kernel `Documentation/userspace-api/netlink/intro.rst`).

use std::fmt::Debug;
use std::os::fd::AsRawFd;
use std::time::Duration;

use netlink_packet_core::{
    Emitable, NetlinkHeader, NetlinkMessage, NetlinkPayload, NlasIterator, ParseableParametrized,
    NLM_F_ACK, NLM_F_ACK_TLVS, NLM_F_CAPPED, NLM_F_DUMP, NLM_F_REQUEST,
};
use netlink_packet_generic::ctrl::nlas::{GenlCtrlAttrs, McastGrpAttrs};
use netlink_packet_generic::ctrl::{GenlCtrl, GenlCtrlCmd};
use netlink_packet_generic::{GenlFamily, GenlHeader, GenlMessage};
use netlink_sys::{protocols::NETLINK_GENERIC, Socket, SocketAddr};

use super::error::Error;

/// `NLMSGERR_ATTR_MSG`: the extended-ACK error string (uapi `netlink.h`).
const NLMSGERR_ATTR_MSG: u16 = 1;
const NLMSG_HDRLEN: usize = 16;

/// A resolved generic-netlink family.
#[derive(Debug, Clone)]
pub(crate) struct Family {
    pub id: u16,
    /// (name, id) of each multicast group.
    pub groups: Vec<(String, u32)>,
}

pub(crate) struct GenlSocket {
    sock: Socket,
    seq: u32,
}

impl GenlSocket {
    /// Opens a socket in the calling thread's network namespace.
    pub fn open() -> Result<GenlSocket, Error> {
        let mut sock = Socket::new(NETLINK_GENERIC)?;
        sock.bind_auto()?;
        // Error replies carry only the failed request's header plus the
        // kernel's explanation.
        sock.set_cap_ack(true)?;
        sock.set_ext_ack(true)?;
        Ok(GenlSocket { sock, seq: 0 })
    }

    /// `CTRL_CMD_GETFAMILY` for `name`; `Error::NoFamily` if the kernel lacks it.
    pub fn resolve(&mut self, name: &str) -> Result<Family, Error> {
        let ctrl = GenlCtrl { cmd: GenlCtrlCmd::GetFamily, nlas: vec![GenlCtrlAttrs::FamilyName(name.into())] };
        let replies = match self.request(GenlMessage::from_payload(ctrl), false) {
            Err(Error::Kernel { errno: libc::ENOENT, .. }) => return Err(Error::NoFamily),
            r => r?,
        };
        let mut family = Family { id: 0, groups: Vec::new() };
        for nla in replies.into_iter().flat_map(|m| m.payload.nlas) {
            match nla {
                GenlCtrlAttrs::FamilyId(id) => family.id = id,
                GenlCtrlAttrs::McastGroups(groups) => {
                    for g in groups {
                        let (mut gname, mut gid) = (None, None);
                        for a in g {
                            match a {
                                McastGrpAttrs::Name(n) => gname = Some(n),
                                McastGrpAttrs::Id(i) => gid = Some(i),
                            }
                        }
                        if let (Some(n), Some(i)) = (gname, gid) {
                            family.groups.push((n, i));
                        }
                    }
                }
                _ => {}
            }
        }
        if family.id == 0 {
            return Err(Error::NoFamily);
        }
        Ok(family)
    }

    pub fn join_group(&self, group: u32) -> Result<(), Error> {
        Ok(self.sock.add_membership(group)?)
    }

    /// Sends `msg` with `NLM_F_ACK` (and `NLM_F_DUMP` if `dump`) and returns
    /// every reply message up to the acknowledgement or `NLMSG_DONE`.
    pub fn request<F>(&mut self, msg: GenlMessage<F>, dump: bool) -> Result<Vec<GenlMessage<F>>, Error>
    where
        F: GenlFamily + Emitable + ParseableParametrized<[u8], GenlHeader> + Debug,
    {
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let bytes = encode(msg, seq, dump);
        self.sock.send(&bytes, 0)?;
        let mut replies = Vec::new();
        loop {
            for m in self.recv_batch::<F>()? {
                if m.header.sequence_number != seq {
                    continue;
                }
                match m.payload {
                    NetlinkPayload::InnerMessage(inner) => replies.push(inner),
                    NetlinkPayload::Done(_) => return Ok(replies),
                    NetlinkPayload::Error(e) => match e.code {
                        None => return Ok(replies),
                        Some(code) => {
                            return Err(Error::Kernel { errno: -code.get(), message: ext_ack_message(m.header.flags, &e.header) })
                        }
                    },
                    // Noop, Overrun, and whatever a later netlink-packet-core adds.
                    _ => {}
                }
            }
        }
    }

    /// Waits up to `timeout` for the socket to become readable.
    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        self.sock.as_raw_fd()
    }

    pub fn wait_readable(&self, timeout: Duration) -> Result<bool, Error> {
        let mut pfd = libc::pollfd { fd: self.sock.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd for the duration of the call.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            return if e.kind() == std::io::ErrorKind::Interrupted { Ok(false) } else { Err(e.into()) };
        }
        Ok(n > 0)
    }

    /// Receives one datagram and splits it into netlink messages.
    pub fn recv_batch<F>(&mut self) -> Result<Vec<NetlinkMessage<GenlMessage<F>>>, Error>
    where
        F: GenlFamily + Emitable + ParseableParametrized<[u8], GenlHeader> + Debug,
    {
        let (buf, _from): (Vec<u8>, SocketAddr) = self.sock.recv_from_full()?;
        split(&buf)
    }
}

/// Serializes a request with sequence number `seq`.
pub(crate) fn encode<F>(msg: GenlMessage<F>, seq: u32, dump: bool) -> Vec<u8>
where
    F: GenlFamily + Emitable + Debug,
{
    let mut header = NetlinkHeader::default();
    header.flags = NLM_F_REQUEST | NLM_F_ACK | if dump { NLM_F_DUMP } else { 0 };
    header.sequence_number = seq;
    let mut nl = NetlinkMessage::new(header, NetlinkPayload::InnerMessage(msg));
    nl.finalize();
    let mut bytes = vec![0; nl.buffer_len()];
    nl.serialize(&mut bytes);
    bytes
}

/// Splits a datagram into its netlink messages (`NLMSG_OK`/`NLMSG_NEXT`).
pub(crate) fn split<F>(buf: &[u8]) -> Result<Vec<NetlinkMessage<GenlMessage<F>>>, Error>
where
    F: GenlFamily + Emitable + ParseableParametrized<[u8], GenlHeader> + Debug,
{
    let mut out = Vec::new();
    let mut off = 0;
    while off + NLMSG_HDRLEN <= buf.len() {
        let len = u32::from_ne_bytes(buf[off..off + 4].try_into().expect("4 bytes")) as usize;
        if len < NLMSG_HDRLEN || off + len > buf.len() {
            return Err(Error::Decode(format!("netlink message length {len} at offset {off} of {}", buf.len())));
        }
        out.push(NetlinkMessage::deserialize(&buf[off..off + len]).map_err(Error::decode)?);
        off += (len + 3) & !3;
    }
    Ok(out)
}

/// The extended-ACK message of an error reply: after the echoed request
/// (only its header when `NLM_F_CAPPED`), TLVs follow if `NLM_F_ACK_TLVS`.
fn ext_ack_message(flags: u16, echoed: &[u8]) -> Option<String> {
    if flags & NLM_F_ACK_TLVS == 0 || echoed.len() < NLMSG_HDRLEN {
        return None;
    }
    let skip = if flags & NLM_F_CAPPED != 0 {
        NLMSG_HDRLEN
    } else {
        (u32::from_ne_bytes(echoed[..4].try_into().ok()?) as usize + 3) & !3
    };
    NlasIterator::new(echoed.get(skip..)?)
        .filter_map(Result::ok)
        .find(|nla| nla.kind() == NLMSGERR_ATTR_MSG)
        .map(|nla| String::from_utf8_lossy(nla.value()).trim_end_matches('\0').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ext_ack_message_after_capped_header() {
        // Echoed nlmsghdr (16 bytes), then NLMSGERR_ATTR_MSG "bad id\0".
        let mut echoed = vec![0u8; 16];
        echoed[0] = 36;
        echoed.extend_from_slice(&[11, 0, 1, 0, b'b', b'a', b'd', b' ', b'i', b'd', 0, 0]);
        assert_eq!(ext_ack_message(NLM_F_CAPPED | NLM_F_ACK_TLVS, &echoed).as_deref(), Some("bad id"));
        assert_eq!(ext_ack_message(NLM_F_CAPPED, &echoed), None);
    }
}
