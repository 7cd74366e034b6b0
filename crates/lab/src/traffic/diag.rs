//! BBR's bandwidth estimate of a namespace's TCP sockets, MPTCP subflows
//! included, through the socket-diagnostics netlink family (sock_diag(7)):
//! a `SOCK_DIAG_BY_FAMILY` dump of IPv4 TCP sockets (`struct
//! inet_diag_req_v2`, uapi `linux/inet_diag.h`) asking for the congestion
//! control's info, which BBR answers with an `INET_DIAG_BBRINFO` attribute
//! (`struct tcp_bbr_info`, uapi `linux/inet_diag.h`; `bbr_get_info()` in
//! net/ipv4/tcp_bbr.c). A subflow has no file descriptor of its own, so
//! `TCP_CC_INFO` cannot reach it; the dump does, keyed by its addresses.
//! The socket belongs to the namespace it was opened in (`Netns::run`).

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::AsRawFd;

use netlink_packet_core::{NlasIterator, NLA_TYPE_MASK, NLM_F_DUMP, NLM_F_REQUEST};
use netlink_sys::{protocols::NETLINK_SOCK_DIAG, Socket};

const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const NLMSG_HDRLEN: usize = 16;
/// `struct inet_diag_msg`: family, state, timer, retrans, a 48-byte
/// `inet_diag_sockid`, then expires, rqueue, wqueue, uid, inode.
const DIAG_MSG_LEN: usize = 72;
/// `INET_DIAG_VEGASINFO`: its bit in `idiag_ext` is the one `bbr_get_info()`
/// also answers (`INET_DIAG_BBRINFO`, 16, has no bit in the 8-bit mask).
const INET_DIAG_VEGASINFO: u8 = 3;
const INET_DIAG_BBRINFO: u16 = 16;

/// A sock_diag socket of one namespace.
#[derive(Debug)]
pub struct Diag {
    sock: Socket,
}

impl Diag {
    /// Opens it in the calling thread's namespace.
    pub fn open() -> io::Result<Diag> {
        let mut sock = Socket::new(NETLINK_SOCK_DIAG)?;
        sock.bind_auto()?;
        let timeout = libc::timeval { tv_sec: 1, tv_usec: 0 };
        // SAFETY: a valid option of the right size; a failure only loses the bound on a read.
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&timeout as *const libc::timeval).cast(),
                size_of::<libc::timeval>() as libc::socklen_t,
            )
        };
        Ok(Diag { sock })
    }

    /// Every BBR socket's (local, remote) addresses and its bandwidth
    /// estimate, bytes of payload per second (`bbr_max_bw()` × MSS: the
    /// windowed maximum delivery rate).
    pub fn bbr_bandwidths(&self) -> io::Result<Vec<(SocketAddr, SocketAddr, f64)>> {
        self.sock.send(&dump_request(), 0)?;
        let mut found = Vec::new();
        loop {
            let (buf, _) = self.sock.recv_from_full()?;
            let mut at = 0;
            while at + NLMSG_HDRLEN <= buf.len() {
                let len = u32::from_ne_bytes(buf[at..at + 4].try_into().expect("four bytes")) as usize;
                let kind = u16::from_ne_bytes(buf[at + 4..at + 6].try_into().expect("two bytes"));
                if len < NLMSG_HDRLEN || at + len > buf.len() {
                    return Err(io::Error::other("sock_diag: truncated netlink message"));
                }
                match kind {
                    NLMSG_DONE => return Ok(found),
                    NLMSG_ERROR => {
                        let errno = i32::from_ne_bytes(buf[at + 16..at + 20].try_into().expect("four bytes"));
                        return Err(io::Error::from_raw_os_error(-errno));
                    }
                    SOCK_DIAG_BY_FAMILY => found.extend(bbr_of(&buf[at + NLMSG_HDRLEN..at + len])),
                    _ => {}
                }
                at += (len + 3) & !3;
            }
        }
    }
}

/// A dump of the namespace's IPv4 TCP sockets in every state, with their congestion control's info.
fn dump_request() -> [u8; NLMSG_HDRLEN + 56] {
    let mut req = [0u8; NLMSG_HDRLEN + 56];
    req[0..4].copy_from_slice(&((NLMSG_HDRLEN + 56) as u32).to_ne_bytes());
    req[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    req[6..8].copy_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    // struct inet_diag_req_v2: family, protocol, ext, pad, states, then a zero sockid.
    req[16] = libc::AF_INET as u8;
    req[17] = libc::IPPROTO_TCP as u8;
    req[18] = 1 << (INET_DIAG_VEGASINFO - 1);
    req[20..24].copy_from_slice(&u32::MAX.to_ne_bytes());
    req
}

/// The addresses and BBR bandwidth of one `inet_diag_msg` with its attributes, if it has `INET_DIAG_BBRINFO`.
fn bbr_of(msg: &[u8]) -> Option<(SocketAddr, SocketAddr, f64)> {
    if msg.len() < DIAG_MSG_LEN {
        return None;
    }
    // inet_diag_sockid at offset 4: sport and dport (big endian), src[4] and dst[4] (IPv4 in the first word).
    let port = |at: usize| u16::from_be_bytes([msg[at], msg[at + 1]]);
    let ip = |at: usize| Ipv4Addr::new(msg[at], msg[at + 1], msg[at + 2], msg[at + 3]);
    let local = SocketAddr::V4(SocketAddrV4::new(ip(8), port(4)));
    let remote = SocketAddr::V4(SocketAddrV4::new(ip(24), port(6)));
    // struct tcp_bbr_info: bbr_bw_lo, bbr_bw_hi (bytes/s), bbr_min_rtt, bbr_pacing_gain, bbr_cwnd_gain.
    let info = NlasIterator::new(&msg[DIAG_MSG_LEN..])
        .map_while(Result::ok)
        .find(|nla| nla.kind() & NLA_TYPE_MASK == INET_DIAG_BBRINFO && nla.value().len() >= 8)?;
    let word = |k: usize| u32::from_ne_bytes(info.value()[4 * k..4 * k + 4].try_into().expect("four bytes")) as u64;
    Some((local, remote, (word(0) | word(1) << 32) as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bbr_attribute_is_read_with_the_sockets_addresses() {
        let mut msg = vec![0u8; DIAG_MSG_LEN];
        msg[4..6].copy_from_slice(&5001u16.to_be_bytes());
        msg[6..8].copy_from_slice(&40000u16.to_be_bytes());
        msg[8..12].copy_from_slice(&[10, 0, 0, 1]);
        msg[24..28].copy_from_slice(&[10, 0, 1, 2]);
        // An unrelated attribute first (INET_DIAG_CONG, "bbr\0"), then BBR's.
        msg.extend_from_slice(&8u16.to_ne_bytes());
        msg.extend_from_slice(&4u16.to_ne_bytes());
        msg.extend_from_slice(b"bbr\0");
        msg.extend_from_slice(&24u16.to_ne_bytes());
        msg.extend_from_slice(&INET_DIAG_BBRINFO.to_ne_bytes());
        for w in [2_500_000u32, 1, 20_000, 256, 512] {
            msg.extend_from_slice(&w.to_ne_bytes());
        }
        let (local, remote, bw) = bbr_of(&msg).expect("a BBR socket");
        assert_eq!(local, "10.0.0.1:5001".parse().unwrap());
        assert_eq!(remote, "10.0.1.2:40000".parse().unwrap());
        assert_eq!(bw, (2_500_000u64 + (1u64 << 32)) as f64);
    }

    /// A BBR connection over loopback in this namespace: the dump finds
    /// its sending socket, with a positive estimate once data has flowed.
    #[test]
    fn a_loopback_bbr_sender_is_found() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let sender = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        sender.set_tcp_congestion(b"bbr").unwrap();
        sender.connect(&listener.local_addr().unwrap().into()).unwrap();
        let (mut receiver, _) = listener.accept().unwrap();
        let reader = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while receiver.read(&mut buf).unwrap() > 0 {}
        });
        let mut sender: std::net::TcpStream = sender.into();
        let chunk = vec![7u8; 1 << 16];
        for _ in 0..64 {
            sender.write_all(&chunk).unwrap();
        }
        let (local, remote) = (sender.local_addr().unwrap(), sender.peer_addr().unwrap());
        let found = Diag::open().unwrap().bbr_bandwidths().unwrap();
        drop(sender);
        reader.join().unwrap();
        let bw = found.iter().find(|&&(l, r, _)| l == local && r == remote).map(|&(.., bw)| bw);
        assert!(bw.is_some_and(|bw| bw > 0.0), "{local} → {remote} not among {found:?}");
    }

    #[test]
    fn a_socket_without_bbr_info_gives_nothing() {
        assert_eq!(bbr_of(&[0u8; DIAG_MSG_LEN]), None);
    }
}
