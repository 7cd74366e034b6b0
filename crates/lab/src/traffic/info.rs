//! Per-connection statistics read from the kernel: `TCP_INFO` on a TCP
//! socket (tcp(7), `struct tcp_info` of uapi `linux/tcp.h`) and, on an MPTCP
//! socket, `MPTCP_TCPINFO` and `MPTCP_SUBFLOW_ADDRS` (uapi `linux/mptcp.h`):
//! one `tcp_info` and one address pair per subflow, in the same order.

use std::io;
use std::mem::size_of;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::{AsRawFd, BorrowedFd};

const SOL_MPTCP: libc::c_int = 284;
const MPTCP_TCPINFO: libc::c_int = 2;
const MPTCP_SUBFLOW_ADDRS: libc::c_int = 3;
/// Subflows read per call; a connection has a handful.
const MAX_SUBFLOWS: usize = 16;

/// `struct tcp_info` up to `tcpi_snd_wnd` (Linux 5.19+). The kernel copies
/// min(its size, ours), so older kernels leave the tail zero.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub app_limited: u8,
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    /// Smoothed RTT, µs.
    pub rtt: u32,
    pub rttvar: u32,
    pub snd_ssthresh: u32,
    /// Congestion window, segments.
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    /// Bytes per second.
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    /// µs.
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    pub delivery_rate: u64,
    pub busy_time: u64,
    pub rwnd_limited: u64,
    pub sndbuf_limited: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
}

impl TcpInfo {
    /// The RFC 6675 pipe in bytes: outstanding − SACKed − lost + retransmitted
    /// (the kernel's `tcp_packets_in_flight`, in segments of `snd_mss`).
    pub fn in_flight_bytes(&self) -> u64 {
        let segs = (self.unacked as u64 + self.retrans as u64).saturating_sub(self.sacked as u64 + self.lost as u64);
        segs * self.snd_mss as u64
    }

    pub fn cwnd_bytes(&self) -> u64 {
        self.snd_cwnd as u64 * self.snd_mss as u64
    }

    /// Payload bytes acknowledged: the kernel's count includes the SYN's sequence number.
    pub fn payload_acked(&self) -> u64 {
        self.bytes_acked.saturating_sub(1)
    }

    /// Smoothed RTT in seconds; None before the first sample.
    pub fn srtt_s(&self) -> Option<f64> {
        (self.rtt > 0).then(|| self.rtt as f64 / 1e6)
    }
}

/// `TCP_INFO` of a TCP socket.
pub fn tcp_info(fd: BorrowedFd) -> io::Result<TcpInfo> {
    let mut info = TcpInfo::default();
    let mut len = size_of::<TcpInfo>() as libc::socklen_t;
    // SAFETY: `info` is a plain repr(C) struct of `len` bytes.
    let r = unsafe { libc::getsockopt(fd.as_raw_fd(), libc::SOL_TCP, libc::TCP_INFO, (&mut info as *mut TcpInfo).cast(), &mut len) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(info)
}

/// `struct mptcp_subflow_data`, the header of the per-subflow arrays.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct SubflowData {
    size_subflow_data: u32,
    num_subflows: u32,
    size_kernel: u32,
    size_user: u32,
}

#[repr(C)]
struct Array<T> {
    head: SubflowData,
    items: [T; MAX_SUBFLOWS],
}

/// `struct mptcp_subflow_addrs`: two `__kernel_sockaddr_storage`.
#[repr(C)]
#[derive(Clone, Copy)]
struct SubflowAddrs {
    local: [u8; 128],
    remote: [u8; 128],
}

/// One subflow of an MPTCP connection as the kernel reports it now.
#[derive(Debug, Clone, Copy)]
pub struct SubflowInfo {
    pub local: SocketAddr,
    pub remote: SocketAddr,
    pub tcp: TcpInfo,
}

fn read_array<T: Copy>(fd: BorrowedFd, opt: libc::c_int, zero: T) -> io::Result<Vec<T>> {
    let mut a = Array {
        head: SubflowData { size_subflow_data: size_of::<SubflowData>() as u32, num_subflows: 0, size_kernel: 0, size_user: size_of::<T>() as u32 },
        items: [zero; MAX_SUBFLOWS],
    };
    let mut len = size_of::<Array<T>>() as libc::socklen_t;
    // SAFETY: `a` is a repr(C) header followed by room for MAX_SUBFLOWS items, `len` bytes in all.
    let r = unsafe { libc::getsockopt(fd.as_raw_fd(), SOL_MPTCP, opt, (&mut a as *mut Array<T>).cast(), &mut len) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let n = (a.head.num_subflows as usize).min(MAX_SUBFLOWS);
    Ok(a.items[..n].to_vec())
}

fn sockaddr_v4(raw: &[u8; 128]) -> Option<SocketAddr> {
    // struct sockaddr_in: family (host order), port and address (network order).
    (u16::from_ne_bytes([raw[0], raw[1]]) == libc::AF_INET as u16).then(|| {
        let port = u16::from_be_bytes([raw[2], raw[3]]);
        SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(raw[4], raw[5], raw[6], raw[7]), port))
    })
}

/// The subflows of an MPTCP socket, each with its `tcp_info`. A connection
/// that fell back to TCP reports none.
pub fn mptcp_subflows(fd: BorrowedFd) -> io::Result<Vec<SubflowInfo>> {
    let zero = SubflowAddrs { local: [0; 128], remote: [0; 128] };
    // The two options walk the connection's subflow list separately: read
    // the addresses before and after the infos, and trust the pairing only
    // if the list did not change in between.
    loop {
        let before = read_array(fd, MPTCP_SUBFLOW_ADDRS, zero)?;
        let infos = read_array(fd, MPTCP_TCPINFO, TcpInfo::default())?;
        let after = read_array(fd, MPTCP_SUBFLOW_ADDRS, zero)?;
        if before.len() == infos.len() && before.iter().zip(&after).all(|(a, b)| a.local == b.local && a.remote == b.remote) && before.len() == after.len() {
            return Ok(infos
                .into_iter()
                .zip(before)
                .filter_map(|(tcp, a)| Some(SubflowInfo { local: sockaddr_v4(&a.local)?, remote: sockaddr_v4(&a.remote)?, tcp }))
                .collect());
        }
    }
}

const MPTCP_INFO: libc::c_int = 1;

/// `struct mptcp_info` (uapi `linux/mptcp.h`) up to `mptcpi_bytes_acked`
/// (Linux 6.7+); the kernel copies min(its size, ours).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MptcpInfo {
    pub subflows: u8,
    pub add_addr_signal: u8,
    pub add_addr_accepted: u8,
    pub subflows_max: u8,
    pub add_addr_signal_max: u8,
    pub add_addr_accepted_max: u8,
    pub flags: u32,
    pub token: u32,
    pub write_seq: u64,
    pub snd_una: u64,
    pub rcv_nxt: u64,
    pub local_addr_used: u8,
    pub local_addr_max: u8,
    pub csum_enabled: u8,
    pub retransmits: u32,
    pub bytes_retrans: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Data bytes the peer acknowledged at the connection level (DATA_ACK).
    pub bytes_acked: u64,
}

/// `MPTCP_INFO` of an MPTCP socket; None if the connection fell back to
/// TCP: the kernel then hands SOL_MPTCP options to the TCP subflow, which
/// refuses them with EOPNOTSUPP (`net/mptcp/sockopt.c`, kernel
/// `Documentation/networking/mptcp.rst`).
pub fn mptcp_info(fd: BorrowedFd) -> io::Result<Option<MptcpInfo>> {
    let mut info = MptcpInfo::default();
    let mut len = size_of::<MptcpInfo>() as libc::socklen_t;
    // SAFETY: `info` is a plain repr(C) struct of `len` bytes.
    let r = unsafe { libc::getsockopt(fd.as_raw_fd(), SOL_MPTCP, MPTCP_INFO, (&mut info as *mut MptcpInfo).cast(), &mut len) };
    if r == 0 {
        return Ok(Some(info));
    }
    match io::Error::last_os_error() {
        e if e.raw_os_error() == Some(libc::EOPNOTSUPP) => Ok(None),
        e => Err(e),
    }
}

/// A connected IP socket's (local, remote) addresses.
pub fn socket_ends(s: &socket2::Socket) -> Option<(SocketAddr, SocketAddr)> {
    Some((s.local_addr().ok()?.as_socket()?, s.peer_addr().ok()?.as_socket()?))
}
