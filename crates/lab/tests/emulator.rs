//! Root tests of the link emulator's accuracy (issue 6, "Emulator
//! accuracy"): ping RTT through a 20 ms link and through a delay schedule,
//! TCP goodput through a 50 Mb/s link, a Bernoulli loss rate, a Mahimahi
//! trace's bytes, and link events at their times. Each builds a two-host testbed (h1 = 10.0.1.1 —link— h2 =
//! 10.0.1.2) whose link is emulated; they run one at a time, since they
//! measure time on a shared machine. Skipped, with the reason printed, when
//! not root or when the kernel has no MPTCP.
//!
//! `emulator_ceiling` (ignored; `--ignored --nocapture`) measures the
//! emulator's ceiling for docs/lab-emulator.md.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pathpool_lab::emulator::stats::{DirectionStats, LATENESS_BOUNDS_US};
use pathpool_lab::netns::Netns;
use pathpool_lab::preflight;
use pathpool_lab::testbed::Testbed;
use pathpool_sim::engine::Seeds;
use pathpool_sim::net::loss::LossModel;
use pathpool_sim::scenario::spec::LossSpec;
use pathpool_sim::scenario::{load, Format, Source};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};

const H1: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 1);
const H2: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 2);

/// One test at a time: they time packets on a two-core machine.
static SERIAL: Mutex<()> = Mutex::new(());

fn runnable(test: &str) -> bool {
    match preflight::check() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("SKIPPED {test}: {why}");
            false
        }
    }
}

/// `../shared/data` beside the repository: the scenarios' data directory.
fn shared_data() -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    p.is_dir().then_some(p)
}

/// A testbed of hosts h1 and h2 joined by link "l" (h1 is its `a` end)
/// with the given TOML keys.
fn two_hosts(link: &str) -> Testbed {
    let toml = format!(
        "[sim]\nduration = \"60s\"\nseed = 7\n[[nodes]]\nname = \"h1\"\n[[nodes]]\nname = \"h2\"\n\
         [[links]]\nname = \"l\"\na = \"h1\"\nb = \"h2\"\n{link}\n"
    );
    let src = Source { name: "<test>".into(), dir: ".".into(), data_dir: shared_data() };
    let model = load(&toml, Format::Toml, &src, None).unwrap_or_else(|e| panic!("{e}"));
    Testbed::build(&model).unwrap()
}

/// Deliveries the emulator itself made more than 1 ms after their model
/// time (the last bucket of its lateness histogram): the host did not wake
/// its forwarder in time. Each can move one echo more than 1 ms with no
/// error in the model, so the ping tests allow one beyond-1-ms echo per
/// such delivery on top of their own allowance; a model error still moves
/// the mean or median, which they check without it.
fn late_deliveries(stats: &[DirectionStats]) -> usize {
    stats.iter().map(|s| s.lateness.buckets[LATENESS_BOUNDS_US.len()] as usize).sum()
}

fn print_stats(stats: &[DirectionStats]) {
    for s in stats {
        let l = &s.lateness;
        eprintln!(
            "  {}: {} packets, {} B; drops queue {} loss {} down {} oversize {} egress {}; control {}; \
             lateness mean {:.1} µs, max {:.1} µs, within 100 µs {:.2} %, within 1 ms {:.2} %",
            s.name,
            s.packets,
            s.bytes,
            s.drops_queue,
            s.drops_loss,
            s.drops_down,
            s.drops_oversize,
            s.drops_egress,
            s.control_frames,
            l.mean_ns() / 1e3,
            l.max_ns as f64 / 1e3,
            100.0 * l.fraction_within(100),
            100.0 * l.fraction_within(1000),
        );
    }
}

/// Frames the emulator had to refuse mean the testbed is wrong (offloads
/// left on) or the emulator overran its far end.
fn assert_nothing_refused(stats: &[DirectionStats]) {
    for s in stats {
        assert_eq!((s.drops_oversize, s.drops_egress), (0, 0), "{}", s.name);
    }
}

/// A socket buffer beyond `net.core.rmem_max` (SO_RCVBUFFORCE, root).
fn force_rcvbuf(fd: &impl AsRawFd, bytes: i32) {
    let len = std::mem::size_of::<i32>() as libc::socklen_t;
    // SAFETY: an int option passed by pointer with its size.
    let r = unsafe { libc::setsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, (&bytes as *const i32).cast(), len) };
    assert_eq!(r, 0, "SO_RCVBUFFORCE: {}", std::io::Error::last_os_error());
}

fn udp(ns: &Netns, addr: SocketAddr) -> UdpSocket {
    ns.run(|| {
        let s = UdpSocket::bind(addr).unwrap();
        force_rcvbuf(&s, 16 << 20);
        s
    })
    .unwrap()
}

/// Internet checksum (RFC 1071).
fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = data.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Receives one datagram into `buf` with the kernel's receive time
/// (SO_TIMESTAMPNS, socket(7)), as ping(8) times its replies.
fn recv_timestamped(sock: &Socket, buf: &mut [u8]) -> std::io::Result<(usize, SystemTime)> {
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let mut control = [0u64; 16];
    // SAFETY: an all-zero msghdr is valid; iov and control outlive recvmsg.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control);
    // SAFETY: msg describes valid buffers.
    let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, 0) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: walking the control messages recvmsg wrote, with the kernel's CMSG macros.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                return Ok((n as usize, UNIX_EPOCH + Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)));
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Err(std::io::Error::other("no SCM_TIMESTAMPNS"))
}

/// ICMP echo round-trip times from `ns` to `dst`, one request every
/// `interval`, each answered before the next (RFC 792), from a raw socket;
/// replies are timed by the kernel's receive timestamp, so that the wait of
/// this test's thread for a CPU does not count. Each with when it was sent.
fn ping(ns: &Netns, dst: Ipv4Addr, count: u16, interval: Duration) -> Vec<(Instant, Duration)> {
    let sock = ns.run(|| Socket::new(Domain::IPV4, Type::from(libc::SOCK_RAW), Some(Protocol::ICMPV4)).unwrap()).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let on: libc::c_int = 1;
    let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: an int option passed by pointer with its size.
    let r = unsafe { libc::setsockopt(sock.as_raw_fd(), libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, (&on as *const libc::c_int).cast(), len) };
    assert_eq!(r, 0, "SO_TIMESTAMPNS: {}", std::io::Error::last_os_error());
    let id = (std::process::id() & 0xffff) as u16;
    let to = SockAddr::from(SocketAddr::from((dst, 0)));
    let mut rtts = Vec::new();
    let start = Instant::now();
    for seq in 0..count {
        let mut req = vec![8u8, 0, 0, 0];
        req.extend_from_slice(&id.to_be_bytes());
        req.extend_from_slice(&seq.to_be_bytes());
        req.extend_from_slice(&[0x5a; 56]);
        let sum = checksum(&req);
        req[2..4].copy_from_slice(&sum.to_be_bytes());
        let (sent, sent_at) = (SystemTime::now(), Instant::now());
        sock.send_to(&req, &to).unwrap();
        let mut buf = [0u8; 1500];
        loop {
            let (n, at) = recv_timestamped(&sock, &mut buf).unwrap_or_else(|e| panic!("echo {seq}: {e}"));
            let icmp = &buf[(buf[0] & 0xf) as usize * 4..n];
            if icmp[0] == 0 && icmp[4..6] == id.to_be_bytes() && icmp[6..8] == seq.to_be_bytes() {
                rtts.push((sent_at, at.duration_since(sent).unwrap()));
                break;
            }
        }
        if let Some(wait) = (start + interval * (seq as u32 + 1)).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    rtts
}

/// Ping RTT through a link of 20 ms propagation delay each way (the
/// scenario's `delay`): 40 ms plus two 84-byte transmissions. The mean RTT
/// must be within ±1 ms (the criterion), and so must 95 % of the
/// echoes: on this shared 2-core machine a single echo can meet a scheduler
/// stall of the pinging process that is not the emulator's doing (seen once
/// in about ten runs). The first echo also waits for address resolution
/// (the simulator has none) and is not counted. An echo whose packet the
/// emulator itself delivered more than 1 ms late is the host's doing, not the
/// model's ([`late_deliveries`]); the mean leaves out as many of the slowest
/// echoes as there were such deliveries (a clean-clone CI run on 2026-11-28
/// had one echo of 103.9 ms with one delivery 63.7 ms late, which alone moved
/// the mean by 1.6 ms; six reruns that day had none).
#[test]
fn ping_rtt_through_a_20ms_link() {
    if !runnable("ping_rtt_through_a_20ms_link") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tb = two_hosts("rate = \"50Mbps\"\ndelay = \"20ms\"");
    let rtts = &ping(tb.node("h1").unwrap(), H2, 41, Duration::from_millis(25))[1..];
    let expected = 0.040 + 2.0 * 84.0 * 8.0 / 50e6;
    let ms: Vec<f64> = rtts.iter().map(|e| e.1.as_secs_f64() * 1e3).collect();
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    let (min, max) = ms.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    eprintln!("FIGURE ping RTT over 20 ms each way: {} echoes, min/mean/max {min:.3}/{mean:.3}/{max:.3} ms (expected {:.3})", ms.len(), expected * 1e3);
    let stats = tb.emulator().stats();
    print_stats(&stats);
    let host_late = late_deliveries(&stats);
    assert_eq!(ms.len(), 40);
    let mut sorted = ms.clone();
    sorted.sort_by(f64::total_cmp);
    let kept = &sorted[..ms.len() - host_late.min(ms.len() - 1)];
    let model_mean = kept.iter().sum::<f64>() / kept.len() as f64;
    assert!(
        (model_mean - expected * 1e3).abs() <= 1.0,
        "mean RTT {model_mean:.3} ms over {} echoes ({host_late} deliveries late by the host; all: {mean:.3}), expected {:.3} ± 1 ms",
        kept.len(),
        expected * 1e3
    );
    let within = ms.iter().filter(|rtt| (*rtt - expected * 1e3).abs() <= 1.0).count();
    assert!(
        within + host_late >= 38,
        "only {within} of 40 echoes within ±1 ms of {:.3} ms, {host_late} deliveries late by the host: {ms:?}",
        expected * 1e3
    );
}

/// Ping RTT through a link whose delay follows a schedule (the same each
/// way): 40 ms, then 10 ms from 1.5 s, then 30 ms from 3 s. An echo sent at
/// model time s takes d(s) out and d(s + d(s)) back, plus two 84-byte
/// transmissions. The check is statistical, not per echo, as this 2-core
/// machine is shared: in each phase the median error must be within
/// ±0.5 ms and 90 % of the echoes within ±1 ms (echoes whose legs start
/// within 2 ms of a step are left out: which side they fall is host timing),
/// plus one echo per delivery the emulator made more than 1 ms late ([`late_deliveries`]).
/// An echo off by more than a millisecond is either host lateness — which
/// the emulator's lateness histogram shows — or a model error, which would
/// move a whole phase's median.
#[test]
fn ping_rtt_follows_a_delay_schedule() {
    if !runnable("ping_rtt_follows_a_delay_schedule") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tb = two_hosts("rate = \"50Mbps\"\ndelay = { schedule = [[\"0s\", \"40ms\"], [\"1.5s\", \"10ms\"], [\"3s\", \"30ms\"]] }");
    let steps = [0.0, 1.5, 3.0];
    let delay = |t: f64| [0.040, 0.010, 0.030][steps.iter().rposition(|&s| s <= t).unwrap_or(0)];
    let near_step = |t: f64| steps[1..].iter().any(|&s| (t - s).abs() < 0.002);
    let tx = 84.0 * 8.0 / 50e6;
    let epoch = tb.emulator().epoch();
    // About 4.5 s: ~18 echoes of 80 ms, ~60 of 20 ms (one every 25 ms), ~25 of 60 ms.
    // The first echo also waits for address resolution, and is not counted.
    let echoes = ping(tb.node("h1").unwrap(), H2, 105, Duration::from_millis(25));
    // Per phase: (model time sent, RTT error in ms).
    let mut phases: [Vec<(f64, f64)>; 3] = Default::default();
    for &(sent, rtt) in &echoes[1..] {
        let s = sent.duration_since(epoch).as_secs_f64();
        let back = s + tx + delay(s);
        if s >= 4.5 || near_step(s) || near_step(back) {
            continue;
        }
        let expected = delay(s) + delay(back) + 2.0 * tx;
        let phase = steps.iter().rposition(|&p| p <= s).unwrap();
        phases[phase].push((s, (rtt.as_secs_f64() - expected) * 1e3));
    }
    let stats = tb.emulator().stats();
    print_stats(&stats);
    let host_late = late_deliveries(&stats);
    for (i, echoes) in phases.iter().enumerate() {
        let beyond: Vec<String> = echoes.iter().filter(|e| e.1.abs() > 1.0).map(|(s, e)| format!("{e:.3} ms at {s:.3} s")).collect();
        let mut errors: Vec<f64> = echoes.iter().map(|e| e.1).collect();
        errors.sort_by(f64::total_cmp);
        let median = errors[errors.len() / 2];
        let within = errors.len() - beyond.len();
        eprintln!(
            "FIGURE delay schedule phase {i}: {} echoes, RTT error min/median/max {:.3}/{median:.3}/{:.3} ms, {within} within ±1 ms; beyond: {beyond:?}; \
             deliveries late by the host (whole run): {host_late}",
            errors.len(),
            errors[0],
            errors[errors.len() - 1]
        );
        assert!(errors.len() >= 10, "phase {i}: only {} echoes", errors.len());
        assert!(median.abs() <= 0.5, "phase {i}: median RTT error {median:.3} ms: {errors:?}");
        assert!(
            (within + host_late) * 10 >= errors.len() * 9,
            "phase {i}: {within} of {} echoes within ±1 ms, {host_late} deliveries late by the host: {errors:?}",
            errors.len()
        );
    }
}

/// A TCP flow (the kernel's default CUBIC, plain sockets) through a 50 Mb/s,
/// 10 ms link with a 100-packet queue gets 90–101 % of the link rate as
/// goodput at the receiver, measured over 5 s after a 1.5 s start-up.
#[test]
fn tcp_goodput_through_a_50mbps_link() {
    if !runnable("tcp_goodput_through_a_50mbps_link") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tb = two_hosts("rate = \"50Mbps\"\ndelay = \"10ms\"\nqueue = 100");
    let listener = tb.node("h2").unwrap().run(|| TcpListener::bind((H2, 5001)).unwrap()).unwrap();
    let (warmup, window) = (Duration::from_millis(1500), Duration::from_secs(5));
    let receiver = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0u64;
        let mut first = None;
        let mut marks = Vec::new();
        loop {
            let n = conn.read(&mut buf).unwrap();
            if n == 0 {
                return marks;
            }
            total += n as u64;
            let t0 = *first.get_or_insert_with(Instant::now);
            let at = t0.elapsed();
            if (marks.is_empty() && at >= warmup) || (marks.len() == 1 && at >= warmup + window) {
                marks.push((at, total));
            }
        }
    });
    let mut stream = tb.node("h1").unwrap().run(|| TcpStream::connect((H2, 5001)).unwrap()).unwrap();
    let chunk = vec![0x33u8; 1 << 16];
    let end = Instant::now() + warmup + window + Duration::from_millis(500);
    while Instant::now() < end {
        stream.write_all(&chunk).unwrap();
    }
    drop(stream);
    let marks = receiver.join().unwrap();
    let [(t0, b0), (t1, b1)] = marks[..] else { panic!("the flow ran too short: {marks:?}") };
    let goodput = (b1 - b0) as f64 * 8.0 / (t1 - t0).as_secs_f64();
    let stats = tb.emulator().stats();
    eprintln!("FIGURE TCP goodput through 50 Mb/s, 10 ms: {:.2} Mb/s = {:.1} % (payload ceiling 1448/1500 = 96.5 %)", goodput / 1e6, goodput / 50e6 * 100.0);
    print_stats(&stats);
    assert_nothing_refused(&stats);
    assert!((0.90..=1.01).contains(&(goodput / 50e6)), "goodput {:.2} Mb/s", goodput / 1e6);
}

/// Bernoulli loss p = 0.05 on h1→h2: of 20 001 UDP datagrams the emulator
/// loses exactly those the simulator's loss stream for that direction
/// picks, and their fraction is within 4 standard deviations of p.
#[test]
fn bernoulli_loss_rate_and_sequence() {
    if !runnable("bernoulli_loss_rate_and_sequence") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let p = 0.05;
    let tb = two_hosts(&format!("rate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = 1000\na_to_b = {{ loss = {{ model = \"bernoulli\", p = {p} }} }}"));
    let rx = udp(tb.node("h2").unwrap(), (H2, 5002).into());
    let tx = udp(tb.node("h1").unwrap(), (H1, 0).into());
    rx.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    // Datagram 0 resolves h2's address (ARP), then 20 000 at 10 000 a second.
    let n: u64 = 20_001;
    let send = |k: u64| {
        let mut d = k.to_be_bytes().to_vec();
        d.resize(100, 0);
        tx.send_to(&d, (H2, 5002)).unwrap();
    };
    send(0);
    std::thread::sleep(Duration::from_millis(100));
    let sender = std::thread::scope(|s| {
        let receiver = s.spawn(|| {
            let mut got = vec![false; n as usize];
            let mut buf = [0u8; 100];
            while let Ok(len) = rx.recv(&mut buf) {
                assert_eq!(len, 100);
                got[u64::from_be_bytes(buf[..8].try_into().unwrap()) as usize] = true;
            }
            got
        });
        let start = Instant::now();
        for k in 1..n {
            if k % 100 == 0 {
                if let Some(w) = (start + Duration::from_millis(k / 10)).checked_duration_since(Instant::now()) {
                    std::thread::sleep(w);
                }
            }
            send(k);
        }
        receiver.join().unwrap()
    });
    let lost: Vec<u64> = (0..n).filter(|&k| !sender[k as usize]).collect();
    let rate = lost.len() as f64 / n as f64;
    let sigma = (p * (1.0 - p) / n as f64).sqrt();
    let stats = tb.emulator().stats();
    eprintln!("FIGURE Bernoulli loss p = {p}: {} of {n} lost = {:.4} (±4σ = ±{:.4})", lost.len(), rate, 4.0 * sigma);
    print_stats(&stats);
    assert_nothing_refused(&stats);
    assert_eq!(stats[0].drops_loss, lost.len() as u64, "every datagram lost was lost by the loss model");
    // The simulator's stream for this direction, drawn once per datagram.
    let mut model = LossModel::from_spec(Some(&LossSpec::Bernoulli { p }));
    let mut rng = Seeds { master: 7 }.stream("link:l:h1>h2:loss");
    let expected: Vec<u64> = (0..n).filter(|_| model.lose(&mut rng)).collect();
    assert_eq!(lost, expected, "the same losses as the simulator's stream");
    assert!((rate - p).abs() <= 4.0 * sigma, "loss rate {rate:.4}, p = {p}");
}

/// A saturated link replaying a Mahimahi trace (TMobile LTE downlink)
/// delivers the trace's bytes ±2 % over 2–9 s, counted independently from
/// the trace file: one 1500-byte opportunity a line.
#[test]
fn mahimahi_trace_delivers_the_traces_bytes() {
    if !runnable("mahimahi_trace_delivers_the_traces_bytes") {
        return;
    }
    let Some(data) = shared_data() else {
        eprintln!("SKIPPED mahimahi_trace_delivers_the_traces_bytes: ../shared/data not found");
        return;
    };
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(data.join("traces/mahimahi/TMobile-LTE-short.down")).unwrap();
    let (from_ms, to_ms) = (2_000u64, 9_000u64);
    // The run is shorter than the trace's period (140 s): no loop to count.
    let opportunities = text.lines().filter_map(|l| l.trim().parse::<u64>().ok()).filter(|&t| t > from_ms && t <= to_ms).count();
    let trace_bytes = opportunities as u64 * 1500;
    let delay = Duration::from_millis(10);
    let tb = two_hosts(
        "delay = \"10ms\"\nqueue = 1000\na_to_b = { capacity = { mahimahi = \"data:traces/mahimahi/TMobile-LTE-short.down\" } }\nb_to_a = { rate = \"100Mbps\" }",
    );
    let epoch = tb.emulator().epoch();
    let rx = udp(tb.node("h2").unwrap(), (H2, 5003).into());
    let tx = udp(tb.node("h1").unwrap(), (H1, 0).into());
    rx.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    // 1500-byte IP packets (1472 B of UDP payload), one per opportunity, at
    // 60 Mb/s: above the trace's peak of any 100 ms (54 Mb/s), so the
    // 1000-packet queue never empties.
    let payload = [0x77u8; 1472];
    let stop_at = Duration::from_millis(to_ms + 300);
    let received = std::thread::scope(|s| {
        let receiver = s.spawn(|| {
            let mut buf = [0u8; 1500];
            let mut bytes = 0u64;
            while let Ok(len) = rx.recv(&mut buf) {
                // Model time at which the packet's last bit left h1's side of the link.
                let left = epoch.elapsed().saturating_sub(delay);
                if left > Duration::from_millis(from_ms) && left <= Duration::from_millis(to_ms) {
                    bytes += len as u64 + 28;
                }
            }
            bytes
        });
        let mut k = 0u32;
        while epoch.elapsed() < stop_at {
            for _ in 0..50 {
                tx.send_to(&payload, (H2, 5003)).unwrap();
            }
            k += 1;
            if let Some(w) = (epoch + Duration::from_millis(10) * k).checked_duration_since(Instant::now()) {
                std::thread::sleep(w);
            }
        }
        receiver.join().unwrap()
    });
    let ratio = received as f64 / trace_bytes as f64;
    let stats = tb.emulator().stats();
    eprintln!("FIGURE Mahimahi TMobile-LTE-short.down, 2–9 s: received {received} B of the trace's {trace_bytes} B ({ratio:.4})");
    print_stats(&stats);
    assert_nothing_refused(&stats);
    assert!((0.98..=1.02).contains(&ratio), "received {received} B of the trace's {trace_bytes} B ({ratio:.4})");
}

/// A link down from 1.0 s to 1.5 s (model time), 5 ms delay, a datagram
/// every 0.5 ms: exactly those sent while it is down, or sent in its last
/// 5 ms up and so still on the wire when it fails, are lost. Judged by each
/// datagram's send time, away from the two boundaries by more than the
/// time a datagram takes to reach the emulator (1 ms allowed).
#[test]
fn link_events_at_their_times() {
    if !runnable("link_events_at_their_times") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tb = two_hosts(
        "rate = \"100Mbps\"\ndelay = \"5ms\"\nevents = [{ at = \"1s\", state = \"down\" }, { at = \"1.5s\", state = \"up\" }]",
    );
    let epoch = tb.emulator().epoch();
    let rx = udp(tb.node("h2").unwrap(), (H2, 5004).into());
    let tx = udp(tb.node("h1").unwrap(), (H1, 0).into());
    // Longer than the outage.
    rx.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let (sent, received) = std::thread::scope(|s| {
        let receiver = s.spawn(|| {
            let mut buf = [0u8; 100];
            let mut got = Vec::new();
            while rx.recv(&mut buf).is_ok() {
                got.push(u32::from_be_bytes(buf[..4].try_into().unwrap()));
            }
            got
        });
        let mut sent = Vec::new();
        while epoch.elapsed() < Duration::from_secs(2) {
            let k = sent.len() as u32;
            let mut d = k.to_be_bytes().to_vec();
            d.resize(100, 0);
            sent.push(epoch.elapsed());
            tx.send_to(&d, (H2, 5004)).unwrap();
            if let Some(w) = (epoch + Duration::from_micros(500) * (k + 1)).checked_duration_since(Instant::now()) {
                std::thread::sleep(w);
            }
        }
        (sent, receiver.join().unwrap())
    });
    let mut delivered = vec![false; sent.len()];
    for k in received {
        delivered[k as usize] = true;
    }
    let ms = |v: u64| Duration::from_millis(v);
    let lost_window = ms(995)..ms(1500);
    let near = |t: Duration| [ms(995), ms(1500)].iter().any(|&b| t.abs_diff(b) <= ms(1));
    let mut judged = 0;
    for (k, &t) in sent.iter().enumerate().filter(|&(_, &t)| !near(t) && t > ms(100)) {
        assert_eq!(delivered[k], !lost_window.contains(&t), "datagram {k} sent at {t:?}");
        judged += 1;
    }
    let stats = tb.emulator().stats();
    let lost = delivered.iter().filter(|d| !**d).count();
    eprintln!("FIGURE link down 1.0–1.5 s, 5 ms delay: {} datagrams, {lost} lost, {judged} judged by send time", sent.len());
    print_stats(&stats);
    assert!(judged > 3000);
    assert_eq!(stats[0].drops_down, lost as u64);
}

/// CPU time (s) used so far by this process's thread named `name` (proc(5)
/// `/proc/self/task/TID/stat`: utime and stime, in clock ticks).
fn thread_cpu_seconds(name: &str) -> f64 {
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = task.unwrap().path();
        if std::fs::read_to_string(dir.join("comm")).unwrap().trim() != name {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap();
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        // SAFETY: sysconf has no preconditions.
        return ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    }
    panic!("no thread {name}");
}

/// Sends `payload` `n` times in one sendmmsg(2) on a connected socket.
fn send_batch(sock: &UdpSocket, payload: &[u8], n: usize) -> usize {
    let mut iov = libc::iovec { iov_base: payload.as_ptr() as *mut libc::c_void, iov_len: payload.len() };
    // SAFETY: an all-zero mmsghdr is valid; every header points at the one iovec, which outlives the call.
    let mut msgs: Vec<libc::mmsghdr> = (0..n)
        .map(|_| {
            let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
            m.msg_hdr.msg_iov = &mut iov;
            m.msg_hdr.msg_iovlen = 1;
            m
        })
        .collect();
    // SAFETY: msgs holds n valid headers.
    let sent = unsafe { libc::sendmmsg(sock.as_raw_fd(), msgs.as_mut_ptr(), n as libc::c_uint, 0) };
    sent.max(0) as usize
}

/// The emulator's ceiling on this machine (docs/lab-emulator.md), through a
/// link with no effective limit (100 Gb/s, no delay, 10 000-packet queue),
/// 3 s each: UDP floods of 1500-byte and 64-byte IP packets (sendmmsg, 32
/// a call), and one TCP flow. Sender, receiver and emulator share the
/// machine's cores; the forwarder's own CPU time gives what it would carry
/// with a core to itself.
#[test]
#[ignore = "a measurement, not a check: cargo test --release -p pathpool-lab --test emulator -- --ignored --nocapture"]
fn emulator_ceiling() {
    if !runnable("emulator_ceiling") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let secs = 3.0;
    let no_limit = "rate = \"100Gbps\"\ndelay = \"0ms\"\nqueue = 10000";
    for ip_bytes in [1500usize, 64] {
        let tb = two_hosts(no_limit);
        let rx = udp(tb.node("h2").unwrap(), (H2, 5005).into());
        let tx = udp(tb.node("h1").unwrap(), (H1, 0).into());
        tx.connect((H2, 5005)).unwrap();
        rx.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
        let payload = vec![0u8; ip_bytes - 28];
        tx.send(&payload).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let (cpu0, fwd0, t0) = (thread_cpu_seconds("pp-emu-e0a"), tb.emulator().stats()[0].packets, Instant::now());
        let (sent, received, (cpu1, fwd1, t1)) = std::thread::scope(|s| {
            let receiver = s.spawn(|| {
                let mut buf = [0u8; 1500];
                let mut n = 0u64;
                while rx.recv(&mut buf).is_ok() {
                    n += 1;
                }
                n
            });
            let mut sent = 0u64;
            while t0.elapsed().as_secs_f64() < secs {
                sent += send_batch(&tx, &payload, 32) as u64;
            }
            let end = (thread_cpu_seconds("pp-emu-e0a"), tb.emulator().stats()[0].packets, Instant::now());
            (sent, receiver.join().unwrap(), end)
        });
        let span = (t1 - t0).as_secs_f64();
        let fwd = (fwd1 - fwd0) as f64 / span;
        let core = (cpu1 - cpu0) / span;
        eprintln!(
            "FIGURE ceiling, UDP {ip_bytes}-byte IP packets: sent {:.0} k/s; emulator forwarded {:.0} k/s = {:.3} Gb/s \
             using {:.0} % of a core ({:.0} k/s per core-second); receiver got {:.0} k/s",
            sent as f64 / span / 1e3,
            fwd / 1e3,
            fwd * ip_bytes as f64 * 8.0 / 1e9,
            core * 100.0,
            fwd / core / 1e3,
            received as f64 / span / 1e3,
        );
        print_stats(&tb.emulator().stats());
    }
    let tb = two_hosts(no_limit);
    let listener = tb.node("h2").unwrap().run(|| TcpListener::bind((H2, 5006)).unwrap()).unwrap();
    let receiver = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let (mut total, start) = (0u64, Instant::now());
        loop {
            match conn.read(&mut buf).unwrap() {
                0 => return total as f64 * 8.0 / start.elapsed().as_secs_f64(),
                n => total += n as u64,
            }
        }
    });
    let mut stream = tb.node("h1").unwrap().run(|| TcpStream::connect((H2, 5006)).unwrap()).unwrap();
    let chunk = vec![0u8; 1 << 16];
    let (cpu0, t0) = (thread_cpu_seconds("pp-emu-e0a"), Instant::now());
    while t0.elapsed().as_secs_f64() < secs {
        stream.write_all(&chunk).unwrap();
    }
    let core = (thread_cpu_seconds("pp-emu-e0a") - cpu0) / t0.elapsed().as_secs_f64();
    drop(stream);
    let goodput = receiver.join().unwrap();
    eprintln!("FIGURE ceiling, one TCP flow: {:.3} Gb/s goodput; the data direction's forwarder used {:.0} % of a core", goodput / 1e9, core * 100.0);
    print_stats(&tb.emulator().stats());
}
