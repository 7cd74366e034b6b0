//! The few `bpf(2)` commands the lab needs on the maps of its BPF Westwood+
//! (uapi `linux/bpf.h`, `union bpf_attr`): find a map by name
//! (`BPF_MAP_GET_NEXT_ID`, `BPF_MAP_GET_FD_BY_ID`, `BPF_OBJ_GET_INFO_BY_FD`),
//! look an element up and update one. Raw syscalls through libc: no BPF
//! library is needed for these.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const BPF_MAP_LOOKUP_ELEM: libc::c_long = 1;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_MAP_GET_NEXT_ID: libc::c_long = 12;
const BPF_MAP_GET_FD_BY_ID: libc::c_long = 14;
const BPF_OBJ_GET_INFO_BY_FD: libc::c_long = 15;
const BPF_ANY: u64 = 0;
/// `struct bpf_map_info`: `name[16]` follows type, id, key_size,
/// value_size, max_entries and map_flags (six u32).
const MAP_INFO_NAME: usize = 24;

/// `union bpf_attr`, as large as any command here uses (zero-filled).
#[repr(C, align(8))]
struct Attr([u8; 128]);

impl Attr {
    fn new() -> Attr {
        Attr([0; 128])
    }

    fn put_u32(&mut self, at: usize, v: u32) -> &mut Attr {
        self.0[at..at + 4].copy_from_slice(&v.to_ne_bytes());
        self
    }

    fn put_u64(&mut self, at: usize, v: u64) -> &mut Attr {
        self.0[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        self
    }

    fn u32_at(&self, at: usize) -> u32 {
        u32::from_ne_bytes(self.0[at..at + 4].try_into().expect("four bytes"))
    }
}

fn bpf(cmd: libc::c_long, attr: &mut Attr) -> io::Result<libc::c_long> {
    // SAFETY: `attr` is a zero-filled bpf_attr of 128 bytes with the
    // command's fields set; pointers in it point to live buffers of the
    // sizes given.
    let r = unsafe { libc::syscall(libc::SYS_bpf, cmd, attr.0.as_mut_ptr(), attr.0.len() as libc::c_uint) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// The newest map named `name` (the highest id: a map of an unregistered
/// object may linger until its last reference goes).
pub fn map_by_name(name: &str) -> io::Result<Option<OwnedFd>> {
    let (mut id, mut newest) = (0u32, None);
    loop {
        let mut attr = Attr::new();
        attr.put_u32(0, id);
        match bpf(BPF_MAP_GET_NEXT_ID, &mut attr) {
            Ok(_) => id = attr.u32_at(4),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(newest),
            Err(e) => return Err(e),
        }
        let mut attr = Attr::new();
        attr.put_u32(0, id);
        let fd = match bpf(BPF_MAP_GET_FD_BY_ID, &mut attr) {
            // SAFETY: the syscall returned a new file descriptor we own.
            Ok(fd) => unsafe { OwnedFd::from_raw_fd(fd as i32) },
            // Freed since it was listed.
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
            Err(e) => return Err(e),
        };
        let mut info = [0u8; 96];
        let mut attr = Attr::new();
        attr.put_u32(0, fd.as_raw_fd() as u32).put_u32(4, info.len() as u32).put_u64(8, info.as_mut_ptr() as u64);
        bpf(BPF_OBJ_GET_INFO_BY_FD, &mut attr)?;
        let raw = &info[MAP_INFO_NAME..MAP_INFO_NAME + 16];
        let end = raw.iter().position(|&b| b == 0).unwrap_or(16);
        if &raw[..end] == name.as_bytes() {
            newest = Some(fd);
        }
    }
}

/// `bpf_map_update_elem(map, key, value, BPF_ANY)`.
pub fn update(map: &OwnedFd, key: &[u8], value: &[u8]) -> io::Result<()> {
    let mut attr = Attr::new();
    attr.put_u32(0, map.as_raw_fd() as u32).put_u64(8, key.as_ptr() as u64).put_u64(16, value.as_ptr() as u64).put_u64(24, BPF_ANY);
    bpf(BPF_MAP_UPDATE_ELEM, &mut attr).map(|_| ())
}

/// `bpf_map_lookup_elem(map, key)` into `value`; false if there is none.
pub fn lookup(map: &OwnedFd, key: &[u8], value: &mut [u8]) -> io::Result<bool> {
    let mut attr = Attr::new();
    attr.put_u32(0, map.as_raw_fd() as u32).put_u64(8, key.as_ptr() as u64).put_u64(16, value.as_mut_ptr() as u64);
    match bpf(BPF_MAP_LOOKUP_ELEM, &mut attr) {
        Ok(_) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(false),
        Err(e) => Err(e),
    }
}
