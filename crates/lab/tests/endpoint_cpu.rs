//! The experiment's own senders and receivers get the CPU they need beside
//! the link emulator (docs/lab-emulator.md, "The endpoints' CPU"). The
//! emulator's forwarders are real-time threads; until 2026-11-27 the one
//! carrying a busy direction (a 138 Mb/s bottleneck, packets due every few
//! tens of µs) spun a whole core, and on this 2-core machine the receiving
//! host went unscheduled for ~15 ms at a time: no ACK for a round trip,
//! then one ACK for ~100 segments, a burst of as many segments from the
//! sender at once, and drops in the 1 Gb/s access link's 100-packet queue
//! that a real host with its own CPU never sees. The transfer below (the
//! random suite's scenario random-1-010) took 3.5–4.3 s on the kernel then,
//! against the simulator's 3.17 s. Needs root and says SKIPPED otherwise.
//!
//! That starvation happened on every run. A single stall of this shared VM
//! can still drop a few packets once in a while (2026-11-28, one clean-clone
//! CI rehearsal of four: 8 drops, completion time +0.1 %; the next four runs
//! clean), so a run with drops is made again: the test fails when the second
//! run drops too, as the starved receiver did.

mod common;

use common::{f64s, lab, model, runnable, strs, table};

/// One CUBIC transfer of 51.9 MB over a 1 Gb/s access link and a 137.9 Mb/s,
/// 11.8 ms RTT bottleneck with a 1 BDP (136-packet) queue.
const FAST_PATH: &str = r#"
[sim]
duration = "8s"
seed = 1010
[[nodes]]
name = "client"
[[nodes]]
name = "server"
[[nodes]]
name = "l1"
kind = "router"
[[nodes]]
name = "r1"
kind = "router"
[[links]]
a = "client:eth0"
b = "l1"
rate = "1Gbps"
delay = "0.5ms"
[[links]]
name = "path1"
a = "l1"
b = "r1"
rate = "137.9Mbps"
delay = "4.9ms"
queue = 136
[[links]]
a = "r1"
b = "server:eth0"
rate = "1Gbps"
delay = "0.5ms"
[[flows]]
name = "main"
src = "client"
dst = "server"
size = "51938000B"
tcp = { cc = "cubic" }
"#;

fn fct(tables: &[pathpool_sim::metrics::Table]) -> f64 {
    f64s(table(tables, "flows"), "fct_s")[0]
}

#[test]
fn a_fast_flow_is_ack_clocked_and_completes_as_in_the_simulator() {
    if !runnable("lab endpoint cpu") {
        return;
    }
    let sim = fct(&pathpool_sim::run(&model(FAST_PATH), &mut |_| {}).tables);
    let mut attempt = 0;
    let (kernel, access_drops) = loop {
        let out = lab(FAST_PATH).unwrap();
        let l = table(&out.tables, "links");
        let access = strs(l, "name").iter().position(|n| n == "client-l1:client>l1").expect("the access link");
        let access_drops = f64s(l, "drops_queue")[access];
        let kernel = fct(&out.tables);
        eprintln!(
            "FIGURE lab endpoint cpu: fct simulator {sim:.3} s, kernel {kernel:.3} s ({:+.1} %); access link drops {access_drops}",
            (kernel - sim) / sim * 100.0
        );
        attempt += 1;
        if access_drops == 0.0 || attempt == 2 {
            break (kernel, access_drops);
        }
        eprintln!("access link drops on run 1 (a host stall?): running again");
    };
    // An ACK-clocked sender never has 100 segments waiting behind a link 7× faster than its bottleneck.
    assert_eq!(access_drops, 0.0, "the 1 Gb/s access link dropped packets on {attempt} runs: the sender burst");
    assert!((kernel - sim).abs() / sim <= 0.10, "fct: kernel {kernel} s, simulator {sim} s");
}
