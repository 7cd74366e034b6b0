//! Root tests of the testbed builder: a two-path scenario carries one MPTCP
//! connection over both paths; a signal, an error and a normal drop all
//! leave no namespace behind. Skipped, with the reason printed, when not
//! root or when the kernel has no MPTCP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use pathpool_lab::netns;
use pathpool_lab::pm::{Endpoint, EndpointFlags, Event, EventStream, Limits, PathManager};
use pathpool_lab::preflight;
use pathpool_lab::testbed::{self, Testbed};
use pathpool_sim::scenario::{load, Format, Source};
use pathpool_sim::Model;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};

const IPPROTO_MPTCP: i32 = 262;
const WAIT: Duration = Duration::from_secs(5);

/// client =eth0= r1 =eth0= server (path 1), client =eth1= r2 =eth1= server (path 2);
/// links 0..3 get 10.0.1.0/24 .. 10.0.4.0/24.
const TWO_PATHS: &str = r#"
[sim]
duration = "1s"
[[nodes]]
name = "client"
[[nodes]]
name = "server"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "r2"
kind = "router"
[[links]]
a = "client:eth0"
b = "r1"
rate = "20Mbps"
delay = "10ms"
[[links]]
a = "r1"
b = "server:eth0"
rate = "20Mbps"
delay = "10ms"
[[links]]
a = "client:eth1"
b = "r2"
rate = "30Mbps"
delay = "40ms"
[[links]]
a = "r2"
b = "server:eth1"
rate = "30Mbps"
delay = "40ms"
"#;

fn runnable(test: &str) -> bool {
    match preflight::check() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("SKIPPED {test}: {why}");
            false
        }
    }
}

fn model(toml: &str) -> Model {
    let src = Source { name: "<test>".into(), dir: ".".into(), data_dir: None };
    load(toml, Format::Toml, &src, None).unwrap()
}

#[test]
fn two_path_testbed_carries_one_mptcp_connection_over_both_paths() {
    if !runnable("two_path_testbed_carries_one_mptcp_connection_over_both_paths") {
        return;
    }
    let tb = Testbed::build(&model(TWO_PATHS)).unwrap();
    let (client, server) = (tb.node("client").unwrap(), tb.node("server").unwrap());
    let port = 5201;

    // In-kernel path manager: the server announces its path-2 address, the
    // client accepts it and opens a subflow to it, which source routing and
    // the static routes send out of eth1 through r2.
    server
        .run(|| {
            let mut pm = PathManager::open()?;
            pm.set_limits(Limits { add_addr_accepted: 0, subflows: 2 })?;
            let ep = Endpoint { id: 1, addr: "10.0.4.2".parse().unwrap(), port: None, flags: EndpointFlags::SIGNAL, ifindex: None };
            pm.add_endpoint(&ep)
        })
        .unwrap()
        .unwrap();
    client.run(|| PathManager::open()?.set_limits(Limits { add_addr_accepted: 2, subflows: 2 })).unwrap().unwrap();

    let listener: TcpListener = server
        .run(|| {
            let s = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::from(IPPROTO_MPTCP))).unwrap();
            s.bind(&SockAddr::from(SocketAddr::from(([0, 0, 0, 0], port)))).unwrap();
            s.listen(4).unwrap();
            s.into()
        })
        .unwrap();
    let receiver = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut got = Vec::new();
        conn.read_to_end(&mut got).unwrap();
        got.len()
    });

    let (mut events, mut stream) = client
        .run(|| {
            let events = EventStream::subscribe().unwrap();
            let s = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::from(IPPROTO_MPTCP))).unwrap();
            s.connect_timeout(&SockAddr::from(SocketAddr::from(([10, 0, 2, 2], port))), WAIT).unwrap();
            let stream: TcpStream = s.into();
            (events, stream)
        })
        .unwrap();
    stream.write_all(&[7u8; 200_000]).unwrap();
    let sub = events
        .wait_for(WAIT, |e| match e {
            Event::SubEstablished(s) => Some(*s),
            _ => None,
        })
        .expect("a second subflow");
    assert_eq!(sub.local.ip(), "10.0.3.1".parse::<std::net::IpAddr>().unwrap(), "left by eth1");
    assert_eq!(sub.remote.ip(), "10.0.4.2".parse::<std::net::IpAddr>().unwrap());
    stream.write_all(&[7u8; 800_000]).unwrap();
    drop(stream);
    assert_eq!(receiver.join().unwrap(), 1_000_000);

    let prefix = tb.prefix().to_string();
    assert_eq!(netns::list(&prefix).unwrap().len(), 5, "four nodes and the emulator");
    drop(tb);
    assert!(netns::list(&prefix).unwrap().is_empty());
}

#[test]
fn failed_build_leaves_nothing() {
    if !runnable("failed_build_leaves_nothing") {
        return;
    }
    // "lo" passes the plan but exists in every namespace: the veth fails.
    let m = model(
        r#"
        [sim]
        duration = "1s"
        [[nodes]]
        name = "failbuild1"
        [[nodes]]
        name = "failbuild2"
        [[links]]
        a = "failbuild1:lo"
        b = "failbuild2"
        rate = "1Mbps"
        delay = "1ms"
    "#,
    );
    match Testbed::build(&m) {
        Err(testbed::Error::Io(e)) => assert!(e.to_string().contains("lo"), "{e}"),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("built a testbed with a second 'lo'"),
    }
    let left = netns::list(&format!("pp-{}-", std::process::id())).unwrap();
    assert!(!left.iter().any(|n| n.contains("failbuild")), "{left:?}");
}

/// `pathpool-lab up` on TWO_PATHS (written to a file named after `tag`),
/// once it is ready: the file, the child, its namespace prefix and its
/// "ready" line, and the rest of its output (kept open: the child writes
/// more when it stops).
type Up = (std::path::PathBuf, std::process::Child, String, String, std::io::Lines<BufReader<std::process::ChildStdout>>);

fn up(tag: &str) -> Up {
    let file = std::env::temp_dir().join(format!("pathpool-lab-{tag}-{}.toml", std::process::id()));
    std::fs::write(&file, TWO_PATHS).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pathpool-lab"))
        .args(["up", file.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let prefix = format!("pp-{}-0-", child.id());
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("ready"))).expect("ready line").unwrap();
    (file, child, prefix, ready, lines)
}

#[test]
fn sigint_removes_the_testbed_of_pathpool_lab_up() {
    if !runnable("sigint_removes_the_testbed_of_pathpool_lab_up") {
        return;
    }
    let (file, mut child, prefix, ready, _out) = up("test");
    assert!(ready.contains(&prefix), "{ready}");
    assert_eq!(netns::list(&prefix).unwrap().len(), 5, "four nodes and the emulator");

    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    // Keep its standard input open (`wait` would close it first, which is
    // the other way to stop `up`): the signal alone must clean up.
    let stdin = child.stdin.take();
    let deadline = std::time::Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "pathpool-lab up ignored SIGINT");
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(stdin);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGINT));
    assert!(netns::list(&prefix).unwrap().is_empty());
}

/// A run killed with SIGKILL cannot clean up; the next testbed removes
/// exactly its namespaces (its PID is dead) and leaves a live run's alone.
#[test]
fn the_next_testbed_removes_a_killed_runs_namespaces() {
    if !runnable("the_next_testbed_removes_a_killed_runs_namespaces") {
        return;
    }
    let (file, mut child, dead, _, _out) = up("kill");
    // A live run's namespaces: another testbed of this process.
    let model = load(TWO_PATHS, Format::Toml, &Source { name: "<test>".into(), dir: ".".into(), data_dir: None }, None).unwrap();
    let live = Testbed::build(&model).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_file(&file).unwrap();
    let left = netns::list(&dead).unwrap();
    assert_eq!(left.len(), 5, "SIGKILL left its four nodes and the emulator: {left:?}");
    let next = Testbed::build(&model).unwrap();
    let removed = next.stale_removed();
    assert!(left.iter().all(|n| removed.contains(n)), "the killed run's namespaces: {removed:?}");
    // Anything else removed belonged to another dead run, never a live one.
    let pid = |n: &String| n.strip_prefix("pp-").and_then(|r| r.split('-').next()).map(|p| format!("/proc/{p}"));
    assert!(removed.iter().all(|n| pid(n).is_some_and(|p| !std::path::Path::new(&p).exists())), "{removed:?}");
    assert!(netns::list(&dead).unwrap().is_empty());
    assert_eq!(netns::list(live.prefix()).unwrap().len(), 5, "the live run's are untouched");
}
