//! What the emulator asks of and sets on network devices, through the
//! `ioctl(2)`s of netdevice(7) and the ethtool ioctl (uapi `ethtool.h`), in
//! the calling thread's network namespace.
//!
//! Segmentation and checksum offloads are turned off on the nodes' ends of
//! the emulated links. With them on, a veth hands over 64 kB TSO super-frames
//! and frames whose checksum is left for a device to fill in (the frame
//! itself carries only the pseudo-header sum). The emulator must see what a
//! wire carries — MTU-sized packets, the unit of the simulator's model and
//! of Mahimahi's opportunities — and re-sends frames as plain data, so the
//! sender's kernel segments and checksums them in software instead.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// uapi `ethtool.h`: set transmit checksumming, set and get TCP segmentation offload.
const ETHTOOL_STXCSUM: u32 = 0x17;
const ETHTOOL_GTSO: u32 = 0x1e;
const ETHTOOL_STSO: u32 = 0x1f;

/// uapi `struct ethtool_value`.
#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

/// Index and MTU of interface `name`.
pub fn interface(name: &str) -> io::Result<(u32, u32)> {
    let c = CString::new(name).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in an interface name"))?;
    // SAFETY: c is a NUL-terminated string.
    let index = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if index == 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("interface {name}: {e}")));
    }
    let mut req = ifreq(name);
    ioctl(libc::SIOCGIFMTU, &mut req)?;
    // SAFETY: SIOCGIFMTU filled the union's mtu member.
    Ok((index, unsafe { req.ifr_ifru.ifru_mtu } as u32))
}

/// Turns off transmit checksum offload and TSO on interface `name`, and
/// checks that TSO is off.
pub fn disable_offloads(name: &str) -> io::Result<()> {
    for cmd in [ETHTOOL_STXCSUM, ETHTOOL_STSO] {
        ethtool(name, EthtoolValue { cmd, data: 0 })?;
    }
    if ethtool(name, EthtoolValue { cmd: ETHTOOL_GTSO, data: 0 })?.data != 0 {
        return Err(io::Error::other(format!("{name}: TSO stays on")));
    }
    Ok(())
}

fn ethtool(name: &str, mut value: EthtoolValue) -> io::Result<EthtoolValue> {
    let mut req = ifreq(name);
    req.ifr_ifru.ifru_data = (&mut value as *mut EthtoolValue).cast();
    ioctl(libc::SIOCETHTOOL, &mut req).map_err(|e| io::Error::new(e.kind(), format!("{name}: ethtool command {:#x}: {e}", value.cmd)))?;
    Ok(value)
}

fn ifreq(name: &str) -> libc::ifreq {
    // SAFETY: an all-zero ifreq is valid.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in req.ifr_name.iter_mut().zip(name.bytes().take(libc::IFNAMSIZ - 1)) {
        *dst = src as libc::c_char;
    }
    req
}

/// An interface ioctl, on a throwaway datagram socket of this namespace.
fn ioctl(request: libc::c_ulong, req: &mut libc::ifreq) -> io::Result<()> {
    // SAFETY: plain socket(2); the fd is owned below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: req is a valid ifreq for the netdevice(7)/ethtool requests used here.
    if unsafe { libc::ioctl(sock.as_raw_fd(), request, req as *mut libc::ifreq) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
