//! pcap export (`--pcap LINK[,LINK]`): every packet that starts
//! transmission on either direction of a chosen scenario link is written,
//! at that simulated instant, to `LINK.pcap` as an Ethernet frame with
//! synthesized IPv4 and TCP/UDP headers (`frame`, addresses from
//! `addresses`). It is the instant `links.packets_sent` counts it, so a
//! file holds exactly the two directions' `packets_sent`; packets the queue
//! refused are not in it, packets the loss model then lost are.
//!
//! The files are classic pcap (not pcapng), nanosecond timestamps of
//! simulated time, link type Ethernet, headers only (docs/results.md,
//! "pcap export").

mod addresses;
mod frame;
mod mptcp_option;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};

use crate::net::packet::Packet;
use crate::net::LinkId;
use crate::scenario::Model;
use crate::time::Time;
use addresses::{Addresses, MAX_LINKS};
use frame::Frames;

/// Link names listed in an unknown-link error before "and N more".
const LISTED_NAMES: usize = 20;

/// The scenario links `names` name, in the order given (each once), or an
/// error naming the first unknown one and the scenario's links.
pub fn resolve(model: &Model, names: &[String]) -> Result<Vec<u32>, String> {
    let mut links = Vec::new();
    for name in names {
        let Some(k) = model.links.iter().position(|l| &l.name == name) else {
            let all: Vec<&str> = model.links.iter().map(|l| l.name.as_str()).collect();
            let more = all.len().saturating_sub(LISTED_NAMES);
            let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
            let listed = all[..all.len().min(LISTED_NAMES)].join(", ");
            return Err(format!("--pcap: no link named '{name}' in the scenario; its links are: {listed}{tail}"));
        };
        if !links.contains(&(k as u32)) {
            links.push(k as u32);
        }
    }
    if model.links.len() > MAX_LINKS {
        let n = model.links.len();
        return Err(format!("--pcap: the scenario has {n} links; the capture's address plan (a /30 of 10.0.0.0/8 per link) has room for {MAX_LINKS}"));
    }
    Ok(links)
}

/// The file a link's packets go to in `dir`: the link's name, with
/// characters other than letters, digits, `.`, `_` and `-` replaced by `_`,
/// and `.pcap`.
pub fn file_name(link: &str) -> String {
    let safe: String = link.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    format!("{safe}.pcap")
}

struct Tap {
    link: String,
    path: PathBuf,
    writer: PcapWriter<BufWriter<File>>,
    packets: u64,
}

/// One written capture file.
#[derive(Debug, Clone)]
pub struct Written {
    pub link: String,
    pub path: PathBuf,
    pub packets: u64,
}

pub struct Capture {
    /// For each link direction, the tap it writes to.
    taps_of: Vec<Option<u32>>,
    taps: Vec<Tap>,
    frames: Frames,
    /// The first write error; the run goes on and `finish` reports it.
    error: Option<String>,
}

impl Capture {
    /// Opens `dir/LINK.pcap` for each named link (see [`resolve`] for the errors).
    pub fn open(model: &Model, names: &[String], dir: &Path) -> Result<Capture, String> {
        let links = resolve(model, names)?;
        let mut taps_of = vec![None; model.links.len() * 2];
        let mut taps = Vec::new();
        for k in links {
            let link = model.links[k as usize].name.clone();
            let path = dir.join(file_name(&link));
            if taps.iter().any(|t: &Tap| t.path == path) {
                return Err(format!("--pcap: links '{link}' and another would both be written to {}", path.display()));
            }
            let file = File::create(&path).map_err(|e| format!("--pcap: {}: {e}", path.display()))?;
            let header =
                PcapHeader { datalink: DataLink::ETHERNET, ts_resolution: TsResolution::NanoSecond, endianness: Endianness::Little, ..Default::default() };
            let writer = PcapWriter::with_header(BufWriter::new(file), header).map_err(|e| format!("--pcap: {}: {e}", path.display()))?;
            taps_of[2 * k as usize] = Some(taps.len() as u32);
            taps_of[2 * k as usize + 1] = Some(taps.len() as u32);
            taps.push(Tap { link, path, writer, packets: 0 });
        }
        let ifaces = crate::scenario::model::interfaces_of(&model.nodes, &model.links);
        Ok(Capture { taps_of, taps, frames: Frames::new(model, Addresses::new(model.nodes.len(), &ifaces)), error: None })
    }

    /// `p` starts transmission on link direction `l` at `now`.
    pub fn on_tx(&mut self, l: LinkId, now: Time, p: &Packet) {
        let Some(t) = self.taps_of[l as usize] else { return };
        let (data, len) = self.frames.build(l, p);
        let tap = &mut self.taps[t as usize];
        let packet = PcapPacket::new(Duration::from_nanos(now.nanos()), len, data);
        match tap.writer.write_packet(&packet) {
            Ok(_) => tap.packets += 1,
            Err(e) if self.error.is_none() => self.error = Some(format!("{}: {e}", tap.path.display())),
            Err(_) => {}
        }
    }

    /// Flushes the files; what was written, or the first write error.
    pub fn finish(self) -> Result<Vec<Written>, String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.taps
            .into_iter()
            .map(|t| {
                t.writer.into_writer().flush().map_err(|e| format!("{}: {e}", t.path.display()))?;
                Ok(Written { link: t.link, path: t.path, packets: t.packets })
            })
            .collect()
    }
}
