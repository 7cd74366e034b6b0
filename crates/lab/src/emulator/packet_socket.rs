//! Raw Ethernet frames in and out of one interface: AF_PACKET `SOCK_RAW`
//! sockets (packet(7)), opened in the calling thread's network namespace and
//! usable from any thread afterwards.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Receive buffer: room for a few thousand full-size frames (each costs its
/// kernel buffer, ~2.3 kB), so a line-rate burst waits for the forwarder
/// instead of being dropped.
const RCVBUF: libc::c_int = 8 << 20;

#[derive(Debug)]
pub struct PacketSocket {
    fd: OwnedFd,
}

impl PacketSocket {
    /// Receives every frame arriving at interface `ifindex`, without blocking.
    /// The frames sent out of it are not received (PACKET_IGNORE_OUTGOING).
    pub fn receiver(ifindex: u32) -> io::Result<PacketSocket> {
        let s = PacketSocket::bound(ifindex, libc::ETH_P_ALL as u16)?;
        s.set(libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, 1)?;
        s.set(libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)?;
        // SO_RCVBUFFORCE (root) may exceed net.core.rmem_max.
        s.set(libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, RCVBUF)?;
        Ok(s)
    }

    /// Sends frames out of interface `ifindex`; receives nothing (protocol 0).
    pub fn sender(ifindex: u32) -> io::Result<PacketSocket> {
        PacketSocket::bound(ifindex, 0)
    }

    fn bound(ifindex: u32, protocol: u16) -> io::Result<PacketSocket> {
        let proto = protocol.to_be() as libc::c_int;
        // SAFETY: plain socket(2); the fd is owned below.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, proto) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        let s = PacketSocket { fd: unsafe { OwnedFd::from_raw_fd(fd) } };
        // SAFETY: an all-zero sockaddr_ll is valid; the fields set are packet(7)'s for bind.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = protocol.to_be();
        addr.sll_ifindex = ifindex as libc::c_int;
        let len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        // SAFETY: addr is a sockaddr_ll of the given length.
        if unsafe { libc::bind(fd, (&addr as *const libc::sockaddr_ll).cast(), len) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(s)
    }

    fn set(&self, level: libc::c_int, name: libc::c_int, value: libc::c_int) -> io::Result<()> {
        let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: an int option, passed by pointer with its size.
        if unsafe { libc::setsockopt(self.fd.as_raw_fd(), level, name, (&value as *const libc::c_int).cast(), len) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The next waiting frame, copied into `buf`: its full length, which
    /// exceeds `buf.len()` if the frame did not fit (MSG_TRUNC), and when the
    /// interface received it (the kernel's timestamp, SO_TIMESTAMPNS, on the
    /// real-time clock); `None` if no frame is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<(usize, SystemTime)>> {
        let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
        // Room for one SCM_TIMESTAMPNS message (CMSG_SPACE of a timespec), aligned.
        let mut control = [0u64; 8];
        // SAFETY: an all-zero msghdr is valid; iov and control outlive recvmsg.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control);
        // SAFETY: msg describes valid buffers.
        let n = unsafe { libc::recvmsg(self.fd.as_raw_fd(), &mut msg, libc::MSG_TRUNC) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(e) };
        }
        let mut at = None;
        // SAFETY: walking the control messages recvmsg wrote, with the CMSG macros of cmsg(3).
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                    at = Some(UNIX_EPOCH + Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32));
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        Ok(Some((n as usize, at.unwrap_or_else(SystemTime::now))))
    }

    /// Sends one frame without blocking; `ENOBUFS` or `EAGAIN` when the
    /// device or the socket buffer has no room.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: frame is readable for its length.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl AsFd for PacketSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
