//! Root tests of the `mptcp_pm` client against this machine's kernel, each in
//! network namespaces of its own (named with a run prefix `pp-PID-N-`,
//! deleted on drop, also when a test fails). Skipped, with the reason printed, when not root
//! or when the kernel has no MPTCP.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::time::Duration;

use pathpool_lab::netns::{self, Netns};
use pathpool_lab::pm::{Endpoint, EndpointFlags, Error, Event, EventStream, Limits, LocalAddr, PathManager};
use pathpool_lab::{prefix, preflight};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};

/// `IPPROTO_MPTCP` (uapi `in.h`).
const IPPROTO_MPTCP: i32 = 262;
const WAIT: Duration = Duration::from_secs(5);

fn runnable(test: &str) -> bool {
    match preflight::check() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("SKIPPED {test}: {why}");
            false
        }
    }
}

fn ns_name(tag: &str) -> String {
    format!("{}{tag}", prefix::run_prefix())
}

fn mptcp_socket() -> Socket {
    Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::from(IPPROTO_MPTCP))).expect("MPTCP socket")
}

#[test]
fn endpoints_and_limits_round_trip() {
    if !runnable("endpoints_and_limits_round_trip") {
        return;
    }
    let ns = Netns::create(&ns_name("endp")).unwrap();
    ns.ip(&["link", "add", "dum0", "type", "veth", "peer", "name", "dum1"]).unwrap();
    ns.ip(&["link", "set", "dum0", "up"]).unwrap();
    ns.ip(&["link", "set", "dum1", "up"]).unwrap();
    // A signal endpoint with a port listens on its address: it must exist.
    ns.ip(&["addr", "add", "10.99.4.1/32", "dev", "dum0"]).unwrap();
    ns.run(|| {
        let dum0 = unsafe { libc::if_nametoindex(c"dum0".as_ptr()) } as i32;
        assert!(dum0 > 0);
        let mut pm = PathManager::open().unwrap();

        let limits = Limits { add_addr_accepted: 4, subflows: 3 };
        pm.set_limits(limits).unwrap();
        assert_eq!(pm.limits().unwrap(), limits);

        let ep = |id, addr: &str, port, flags, ifindex| Endpoint { id, addr: addr.parse().unwrap(), port, flags, ifindex };
        let wanted = vec![
            ep(1, "10.99.1.1", None, EndpointFlags::SIGNAL, None),
            ep(2, "10.99.2.1", None, EndpointFlags::SUBFLOW | EndpointFlags::BACKUP, Some(dum0)),
            ep(3, "fd00:99::1", None, EndpointFlags::SUBFLOW | EndpointFlags::FULLMESH, None),
            ep(4, "10.99.4.1", Some(8080), EndpointFlags::SIGNAL, None),
        ];
        for e in &wanted {
            pm.add_endpoint(e).unwrap();
        }
        let mut got = pm.endpoints().unwrap();
        got.sort_by_key(|e| e.id);
        assert_eq!(got, wanted);
        assert_eq!(pm.endpoint(2).unwrap(), wanted[1]);

        // Backup off, then fullmesh on (the two flags set-flags may change).
        pm.set_endpoint_flags(2, EndpointFlags::SUBFLOW).unwrap();
        assert_eq!(pm.endpoint(2).unwrap().flags, EndpointFlags::SUBFLOW);
        pm.set_endpoint_flags(2, EndpointFlags::SUBFLOW | EndpointFlags::BACKUP).unwrap();
        assert_eq!(pm.endpoint(2).unwrap().flags, EndpointFlags::SUBFLOW | EndpointFlags::BACKUP);

        // An endpoint added with id 0 gets a free id from the kernel.
        pm.del_endpoint(1).unwrap();
        pm.add_endpoint(&ep(0, "10.99.5.1", None, EndpointFlags::SUBFLOW, None)).unwrap();
        let all = pm.endpoints().unwrap();
        assert_eq!(all.len(), 4);
        let new = all.iter().find(|e| e.addr == "10.99.5.1".parse::<IpAddr>().unwrap()).unwrap();
        assert!(new.id != 0 && all.iter().filter(|e| e.id == new.id).count() == 1);

        match pm.del_endpoint(77) {
            Err(Error::Kernel { errno, .. }) => assert_eq!(errno, libc::EINVAL),
            other => panic!("deleting a missing endpoint: {other:?}"),
        }

        pm.flush_endpoints().unwrap();
        assert!(pm.endpoints().unwrap().is_empty());
    })
    .unwrap();
}

/// Client and server namespaces joined by two veth pairs (10.200.1.0/24 and
/// 10.200.2.0/24); the client runs the userspace path manager.
struct TwoPaths {
    client: Netns,
    server: Netns,
}

impl TwoPaths {
    fn new(tag: &str) -> TwoPaths {
        let client = Netns::create(&ns_name(&format!("{tag}-c"))).unwrap();
        let server = Netns::create(&ns_name(&format!("{tag}-s"))).unwrap();
        for path in 1..=2 {
            let (c, s) = (format!("c{path}"), format!("s{path}"));
            client.ip(&["link", "add", &c, "type", "veth", "peer", "name", &s, "netns", server.name()]).unwrap();
            client.ip(&["addr", "add", &format!("10.200.{path}.1/24"), "dev", &c]).unwrap();
            server.ip(&["addr", "add", &format!("10.200.{path}.2/24"), "dev", &s]).unwrap();
            client.ip(&["link", "set", &c, "up"]).unwrap();
            server.ip(&["link", "set", &s, "up"]).unwrap();
        }
        client.sysctl("net.mptcp.pm_type", "1").unwrap();
        server
            .run(|| PathManager::open()?.set_limits(Limits { add_addr_accepted: 2, subflows: 2 }))
            .unwrap()
            .unwrap();
        TwoPaths { client, server }
    }
}

/// A server that accepts one MPTCP connection and returns what it read.
fn serve_once(server: &Netns, port: u16) -> std::thread::JoinHandle<usize> {
    let listener: TcpListener = server
        .run(|| {
            let s = mptcp_socket();
            s.set_reuse_address(true).unwrap();
            // Any address: joins arrive at the server's other address too.
            s.bind(&SockAddr::from(SocketAddr::from(([0, 0, 0, 0], port)))).unwrap();
            s.listen(4).unwrap();
            s.into()
        })
        .unwrap();
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut total = 0;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match conn.read(&mut buf).unwrap() {
                0 => return total,
                n => total += n,
            }
        }
    })
}

#[test]
fn userspace_pm_opens_second_subflow_only_when_told() {
    if !runnable("userspace_pm_opens_second_subflow_only_when_told") {
        return;
    }
    let net = TwoPaths::new("upm");
    let port = 18080;
    let server = serve_once(&net.server, port);
    let mut server_events = net.server.run(EventStream::subscribe).unwrap().unwrap();

    let (mut events, mut pm, mut stream) = net
        .client
        .run(|| {
            let events = EventStream::subscribe().unwrap();
            let pm = PathManager::open().unwrap();
            let s = mptcp_socket();
            s.connect_timeout(&SockAddr::from(SocketAddr::from(([10, 200, 1, 2], port))), WAIT).unwrap();
            let stream: TcpStream = s.into();
            (events, pm, stream)
        })
        .unwrap();

    // The connection comes up with its initial subflow only. The client
    // sees it fully established once the server acknowledges data
    // (RFC 8684 §3.1), so send some first.
    stream.write_all(&[1u8; 100_000]).unwrap();
    let conn = events
        .wait_for(WAIT, |e| match e {
            Event::Established(c) => Some(*c),
            _ => None,
        })
        .expect("established event");
    assert!(!conn.server_side);
    assert_eq!(conn.remote, SocketAddr::from(([10, 200, 1, 2], port)));
    let early = events.wait_for(Duration::from_millis(500), |e| matches!(e, Event::SubEstablished(_)).then_some(()));
    assert!(early.is_none(), "the userspace path manager opened a subflow on its own");

    // Told to, it opens the second subflow over path 2.
    let local = LocalAddr { id: 2, ip: "10.200.2.1".parse().unwrap(), ifindex: None };
    let remote = SocketAddr::from(([10, 200, 2, 2], port));
    pm.subflow_create(conn.token, local, remote, false).unwrap();
    let sub = events
        .wait_for(WAIT, |e| match e {
            Event::SubEstablished(s) if s.token == conn.token => Some(*s),
            _ => None,
        })
        .expect("sub_established event");
    assert_eq!((sub.local_id, sub.local.ip(), sub.remote), (2, local.ip, remote));
    assert!(!sub.backup);
    stream.write_all(&[2u8; 1_000_000]).unwrap();

    // The server saw the join, then the MP_PRIO (RFC 8684 §3.3.8) that
    // marks the subflow backup.
    let joined = server_events
        .wait_for(WAIT, |e| match e {
            Event::SubEstablished(s) => Some(*s),
            _ => None,
        })
        .expect("server sub_established event");
    assert_eq!((joined.remote_id, joined.local, joined.remote), (2, sub.remote, sub.local));
    pm.set_subflow_backup(conn.token, sub.local, sub.remote, true).unwrap();
    let prio = server_events
        .wait_for(WAIT, |e| match e {
            Event::SubPriority(s) => Some(*s),
            _ => None,
        })
        .expect("server sub_priority event");
    assert!(prio.backup && prio.remote == sub.local);

    // Close it again.
    pm.subflow_destroy(conn.token, sub.local, sub.remote).unwrap();
    let closed = events
        .wait_for(WAIT, |e| match e {
            Event::SubClosed(s) if s.token == conn.token => Some(*s),
            _ => None,
        })
        .expect("sub_closed event");
    assert_eq!((closed.local, closed.remote), (sub.local, sub.remote));

    stream.write_all(&[3u8; 100_000]).unwrap();
    drop(stream);
    assert_eq!(server.join().unwrap(), 1_200_000);
    let closed = events.wait_for(WAIT, |e| match e {
        Event::Closed { token } => Some(*token),
        _ => None,
    });
    assert_eq!(closed, Some(conn.token));
    // Commands on a closed connection are refused by the kernel.
    assert!(matches!(pm.remove(conn.token, 2), Err(Error::Kernel { .. })));
}

#[test]
fn clean_removes_leftovers_by_prefix() {
    if !runnable("clean_removes_leftovers_by_prefix") {
        return;
    }
    let mine = ns_name("crash-");
    for i in 0..2 {
        std::mem::forget(Netns::create(&format!("{mine}{i}")).unwrap());
    }
    assert_eq!(netns::list(&mine).unwrap().len(), 2);
    assert_eq!(netns::clean(&mine).unwrap().len(), 2);
    assert!(netns::list(&mine).unwrap().is_empty());
    assert!(netns::clean("").is_err());

    // `clean_stale` removes a crashed run's namespaces (its process is
    // gone) and keeps those of a live one (this test).
    let dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    let _ = { dead }.wait();
    let crashed = format!("{}{dead_pid}-0-leftover", prefix::PATHPOOL);
    let alive = ns_name("alive");
    std::mem::forget(Netns::create(&crashed).unwrap());
    let _alive = Netns::create(&alive).unwrap();
    let removed = prefix::clean_stale().unwrap();
    assert!(removed.contains(&crashed), "{removed:?}");
    assert_eq!(netns::list(&alive).unwrap(), vec![alive]);
    assert!(netns::list(&crashed).unwrap().is_empty());
}
