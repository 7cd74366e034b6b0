//! S-MPTCP's algorithm checks on the kernel lab against the simulator
//! (issue 21): the same controller, the same scripted inputs, the same
//! action order on both planes. Actions driven by an event (a request, a
//! hint, a timer) must come within ±150 ms of the simulator's; Algorithm
//! 1's are driven by the player's buffer level, which real TCP fills at a
//! slightly different pace, so they are compared by the level they acted
//! at. The lab runs the legacy-style uncoupled CUBIC subflows (no coupled
//! congestion control on upstream Linux), and the simulator with them too.
//! They need root and a kernel with MPTCP, and say SKIPPED otherwise.

mod common;

use common::{f64s, lab, model, runnable, strs, table};
use pathpool_sim::metrics::Table;

/// One test at a time: a lab run is real time, and another test's
/// simulator run on the same two cores would delay its controller threads.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The simulator test's phone (crates/sim/tests/smptcp.rs) with the lab's
/// subflows: Wi-Fi `wifi` 5 ms, LTE 10 Mb/s 25 ms.
fn phone(duration: &str, wifi: &str, app: &str, params: &str, rat: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
[[nodes]]
name = "phone"
[[nodes]]
name = "ap"
kind = "router"
[[nodes]]
name = "enb"
kind = "router"
[[nodes]]
name = "internet"
kind = "router"
[[nodes]]
name = "server"
[[links]]
a = "phone:wlan0"
b = "ap"
rate = "{wifi}"
delay = "5ms"
queue = 100
[[links]]
a = "phone:lte0"
b = "enb"
rate = "10Mbps"
delay = "25ms"
queue = 200
[[links]]
a = "ap"
b = "internet"
rate = "100Mbps"
delay = "5ms"
[[links]]
a = "enb"
b = "internet"
rate = "100Mbps"
delay = "10ms"
[[links]]
a = "internet"
b = "server"
rate = "1Gbps"
delay = "2ms"

[[flows]]
name = "fetch"
src = "server"
dst = "phone"
client = "dst"
transport = "mptcp"
tcp = {{ cc = "cubic" }}
mptcp = {{ path_manager = "single_path", coupling = "uncoupled" }}
app = {app}

[[devices]]
host = "phone"
rat = {{ wlan0 = [["0s", "wifi"]], lte0 = {rat} }}
bandwidth = {{ wlan0 = [["0s", "{wifi}"]], lte0 = [["0s", "10Mbps"]] }}

[[controllers]]
host = "phone"
kind = "smptcp"
params = {{ {params} }}
sample_interval = "100ms"
"#
    )
}

/// The smptcp rows of the log: (time, action, detail, outcome).
fn rows(tables: &[Table]) -> Vec<(f64, String, String, String)> {
    let log = table(tables, "controller_log");
    let (t, c, a, d, o) = (f64s(log, "time_s"), strs(log, "controller"), strs(log, "action"), strs(log, "detail"), strs(log, "outcome"));
    (0..t.len()).filter(|&k| c[k] == "smptcp").map(|k| (t[k], a[k].clone(), d[k].clone(), o[k].clone())).collect()
}

/// The non-log actions: (time, action, detail).
fn actions(tables: &[Table]) -> Vec<(f64, String, String)> {
    rows(tables).into_iter().filter(|r| r.1 != "log").map(|r| (r.0, r.1, r.2)).collect()
}

/// Runs `toml` on both planes and checks the action order, outcomes and
/// (when `timed`) the ±150 ms bound; returns (simulator, lab) tables.
fn both(name: &str, toml: &str, timed: bool) -> Option<(Vec<Table>, Vec<Table>)> {
    if !runnable(name) {
        return None;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sim = pathpool_sim::run(&model(toml), &mut |_| {}).tables;
    let out = lab(toml).unwrap();
    let (s, l) = (actions(&sim), actions(&out.tables));
    eprintln!("FIGURE {name}: simulator {s:?}\nFIGURE {name}: lab {l:?}");
    let kinds = |a: &[(f64, String, String)]| a.iter().map(|r| r.1.clone()).collect::<Vec<_>>();
    assert_eq!(kinds(&l), kinds(&s), "{name}: action order");
    for r in rows(&out.tables).iter().filter(|r| r.1 != "log") {
        assert_eq!(r.3, "done", "{name}: {r:?}");
    }
    for ((ts, action, _), (tl, _, _)) in s.iter().zip(&l) {
        eprintln!("FIGURE {name} {action}: simulator {ts:.3} s, lab {tl:.3} s ({:+.0} ms)", (tl - ts) * 1e3);
        if timed {
            assert!((tl - ts).abs() <= 0.150, "{name} {action}: lab {tl} s, simulator {ts} s");
        }
    }
    Some((sim, out.tables))
}

const LTE: &str = r#"[["0s", "lte"]]"#;

#[test]
fn downloads_of_19_and_21_mb_act_alike_on_both_planes() {
    let small = phone("8s", "20Mbps", r#"{ kind = "download", size = "19MB" }"#, r#"guard = "off""#, LTE);
    if let Some((sim, _)) = both("smptcp 19 MB", &small, true) {
        assert!(actions(&sim).iter().all(|a| a.1 != "open_subflow"));
    }
    let big = phone("8s", "20Mbps", r#"{ kind = "download", size = "21MB" }"#, r#"guard = "off""#, LTE);
    if let Some((sim, lab)) = both("smptcp 21 MB", &big, true) {
        assert!(actions(&sim).iter().any(|a| a.1 == "open_subflow"));
        // The tuner's 12 MiB buffer was set on the phone's socket.
        assert!(actions(&lab).iter().any(|a| a.1 == "set_receive_buffer" && a.2 == format!("{} bytes", 12 << 20)));
    }
}

#[test]
fn an_unknown_size_download_opens_lte_after_30_s_on_both_planes() {
    let toml = phone("36s", "20Mbps", r#"{ kind = "download", size = "100MB", size_announced = false }"#, r#"guard = "off""#, LTE);
    if let Some((sim, _)) = both("smptcp unknown size", &toml, true) {
        let open = actions(&sim).into_iter().find(|a| a.1 == "open_subflow").expect("opened");
        assert!((30.0..30.2).contains(&open.0), "{open:?}");
    }
}

#[test]
fn a_rat_change_makes_lte_a_backup_within_one_sample_on_both_planes() {
    let toml = phone("16s", "20Mbps", r#"{ kind = "download", size = "200MB" }"#, r#"guard = "off""#, r#"[["0s", "lte"], ["6s", "umts"], ["11s", "lte"]]"#);
    if let Some((_, lab)) = both("smptcp RAT change", &toml, true) {
        let flags: Vec<(f64, String)> = actions(&lab).into_iter().filter(|a| a.1 == "set_backup").map(|a| (a.0, a.2)).collect();
        assert_eq!(flags.len(), 2, "{flags:?}");
        assert!(flags[0].0 - 6.0 <= 0.1 && flags[1].0 - 11.0 <= 0.1, "{flags:?}");
    }
}

/// The player's buffer (s) at time `t`, from `app_ts` (for the printout).
fn buffer_at(tables: &[Table], t: f64) -> f64 {
    let ts = table(tables, "app_ts");
    let (time, level) = (f64s(ts, "time_s"), f64s(ts, "buffer_s"));
    let k = time.iter().position(|&x| x >= t - 1e-6).unwrap_or(time.len() - 1);
    level[k]
}

/// The buffer lead BR (s) Algorithm 1 read at the check that issued the
/// action at `t`, from its log line ("..., BR = 9.4 s: ...") within 10 ms
/// before. `app_ts` is no substitute on the lab: its sample at the same
/// instant may come after a 4 s segment lands (a CI run read 13.2 s there
/// and failed; a rerun read 13.2 s beside a logged 9.4 s).
fn logged_br(tables: &[Table], t: f64) -> f64 {
    let line = rows(tables).into_iter().find(|r| r.1 == "log" && (t - 0.010..=t).contains(&r.0) && r.2.contains("BR = "));
    let line = line.unwrap_or_else(|| panic!("no Algorithm 1 log line before the action at {t} s")).2;
    let value = line.split("BR = ").nth(1).and_then(|rest| rest.split(" s").next()).unwrap_or("");
    value.parse().unwrap_or_else(|_| panic!("BR in {line:?}"))
}

#[test]
fn algorithm_1_switches_cellular_at_the_same_buffer_levels_on_both_planes() {
    let app = r#"{ kind = "video", bitrate = "8Mbps", duration = "70s", max_buffer = "100s", low_watermark = "80s" }"#;
    let toml = phone("75s", "6Mbps", app, r#"doubling = "hysteresis""#, LTE);
    if let Some((sim, lab)) = both("smptcp video", &toml, false) {
        // Open at the start (BR = 0 < 10 s), close at BR >= 20 s, reopen below 10 s.
        for (plane, tables) in [("simulator", &sim), ("lab", &lab)] {
            let acts: Vec<(f64, String)> = actions(tables).into_iter().filter(|a| a.1.ends_with("subflow")).map(|a| (a.0, a.1)).collect();
            let br: Vec<f64> = acts.iter().map(|(t, _)| logged_br(tables, *t)).collect();
            let levels: Vec<String> = acts
                .iter()
                .zip(&br)
                .map(|((t, a), br)| format!("{a} at {t:.1} s, BR {br:.1} s (app_ts {:.1} s)", buffer_at(tables, *t)))
                .collect();
            eprintln!("FIGURE smptcp video {plane}: {levels:?}");
            assert_eq!(acts.iter().map(|a| a.1.as_str()).collect::<Vec<_>>(), ["open_subflow", "close_subflow", "open_subflow"], "{plane}");
            assert!(br[0] < 1.0, "{plane}: {levels:?}");
            // Checked every second; the buffer grows in 4 s segments and drains at 1 s/s.
            assert!((20.0..24.5).contains(&br[1]), "{plane}: {levels:?}");
            assert!((8.0..10.0).contains(&br[2]), "{plane}: {levels:?}");
        }
        let stalls = |t: &[Table]| f64s(table(t, "apps"), "stalls")[0];
        assert_eq!((stalls(&sim), stalls(&lab)), (0.0, 0.0));
    }
}

/// The phone uploading to the server for `duration` over both paths
/// (hassle-free from the start), S-MPTCP with `params` beside the mode.
fn upload(duration: &str, params: &str) -> String {
    let toml = phone(duration, "20Mbps", "{}", &format!(r#"mode = "hassle_free"{params}"#), LTE)
        .replace("src = \"server\"\ndst = \"phone\"\nclient = \"dst\"\n", "src = \"phone\"\ndst = \"server\"\n")
        .replace("app = {}\n", "")
        .replace("[sim]\n", "[sim]\nsample_interval = \"250ms\"\n");
    assert!(toml.contains("src = \"phone\"") && !toml.contains("app ="), "the template changed:\n{toml}");
    toml
}

/// Per subflow id, how many `subflow_ts` samples carry a BBR bandwidth
/// estimate: on the lab, sockets the kernel answered `INET_DIAG_BBRINFO` for
/// in the phone's namespace (sock_diag, what `ss -tni` prints as `bbr:(...)`).
fn bbr_samples(tables: &[Table]) -> Vec<(u32, usize)> {
    let ts = table(tables, "subflow_ts");
    let (ids, bw) = (f64s(ts, "subflow_id"), f64s(ts, "bw_estimate_bps"));
    let mut out: Vec<(u32, usize)> = Vec::new();
    for (k, &id) in ids.iter().enumerate() {
        let id = id as u32;
        if !out.iter().any(|o| o.0 == id) {
            out.push((id, 0));
        }
        if bw[k].is_finite() && bw[k] > 0.0 {
            out.iter_mut().find(|o| o.0 == id).expect("pushed").1 += 1;
        }
    }
    out.sort();
    out
}

fn flow_cc(tables: &[Table]) -> String {
    strs(table(tables, "flows"), "cc")[0].clone()
}

#[test]
fn an_upload_runs_bbr_on_every_subflow_on_both_planes() {
    let Some((sim, lab)) = both("smptcp upload bbr", &upload("4s", ""), true) else { return };
    let acts = |t: &[Table]| actions(t).into_iter().map(|a| (a.1, a.2)).collect::<Vec<_>>();
    for (plane, t) in [("simulator", &sim), ("lab", &lab)] {
        assert_eq!(acts(t)[0], ("set_congestion_control".to_string(), "bbr".to_string()), "{plane}: {:?}", acts(t));
        assert_eq!(flow_cc(t), "uncoupled/bbr", "{plane}");
    }
    // The kernel's own reading: both subflows, the join included, run BBR.
    let (s, l) = (bbr_samples(&sim), bbr_samples(&lab));
    eprintln!("FIGURE smptcp upload bbr, samples with a BBR estimate by subflow: simulator {s:?}, lab {l:?}");
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(l.iter().all(|&(_, n)| n >= 4), "{l:?}");
    // Off: no action, and the kernel reports no BBR on any subflow (CUBIC).
    let Some((sim, lab)) = both("smptcp upload keep", &upload("3s", r#", sender_cc = "keep""#), true) else { return };
    for (plane, t) in [("simulator", &sim), ("lab", &lab)] {
        assert!(acts(t).iter().all(|a| a.0 != "set_congestion_control"), "{plane}: {:?}", acts(t));
        assert_eq!(flow_cc(t), "uncoupled/cubic", "{plane}");
    }
    let l = bbr_samples(&lab);
    eprintln!("FIGURE smptcp upload keep, samples with a BBR estimate by subflow: lab {l:?}");
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(l.iter().all(|&(_, n)| n == 0), "{l:?}");
}
