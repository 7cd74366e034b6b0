//! S-MPTCP's algorithm checks on the simulator (issue 21, "Algorithm
//! checks"): Algorithm 2 on a 19 MB, a 21 MB and an unknown-size download;
//! Algorithm 1's on/off sequence; a RAT change; a fallback; the guard; the
//! buffer tuner; the MSS rule; BBR on an upload's subflows; bad parameters.
//! The kernel lab runs the same scenarios (crates/lab/tests/smptcp.rs).

mod common;
use common::{f64s, load_err, run_toml, table};
use pathpool_sim::metrics::{Column, Table};
use pathpool_sim::RunOutput;

/// A phone (Wi-Fi 20 Mb/s 5 ms, LTE 10 Mb/s 25 ms) fetching `app` from a
/// server, S-MPTCP with `params` on the phone, `devices` extra lines.
pub fn phone(duration: &str, app: &str, params: &str, devices: &str, mptcp_extra: &str) -> String {
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
rate = "20Mbps"
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
mptcp = {{ path_manager = "single_path", scheduler = "minrtt", coupling = "olia"{mptcp_extra} }}
app = {app}

[[devices]]
host = "phone"
rat = {{ wlan0 = [["0s", "wifi"]], lte0 = [["0s", "lte"]] }}
bandwidth = {{ wlan0 = [["0s", "20Mbps"]], lte0 = [["0s", "10Mbps"]] }}
{devices}

[[controllers]]
host = "phone"
kind = "smptcp"
params = {{ {params} }}
sample_interval = "100ms"
"#
    )
}

fn strs(t: &Table, col: &str) -> Vec<String> {
    match &t.columns.iter().find(|(n, _)| *n == col).unwrap_or_else(|| panic!("no column {col}")).1 {
        Column::Str(v) => v.clone(),
        other => panic!("column {col} is not text: {other:?}"),
    }
}

/// The smptcp controller's (time, action, detail) rows.
fn log(out: &RunOutput) -> Vec<(f64, String, String)> {
    let l = table(out, "controller_log");
    let (t, c, a, d) = (f64s(l, "time_s"), strs(l, "controller"), strs(l, "action"), strs(l, "detail"));
    (0..t.len()).filter(|&i| c[i] == "smptcp").map(|i| (t[i], a[i].clone(), d[i].clone())).collect()
}

fn acts(out: &RunOutput, kind: &str) -> Vec<f64> {
    log(out).into_iter().filter(|r| r.1 == kind).map(|r| r.0).collect()
}

/// Payload bytes the phone received over the LTE subflows (the phone is
/// the flow's destination: its interfaces are the subflows' remote ends).
fn lte_bytes(out: &RunOutput) -> f64 {
    let s = table(out, "subflows");
    let (local, bytes) = (strs(s, "remote_interface"), f64s(s, "bytes_acked"));
    (0..local.len()).filter(|&i| local[i] == "phone:lte0").map(|i| bytes[i]).sum()
}

/// When the application's first request left (one RTT after the start).
fn first_request_at(out: &RunOutput) -> f64 {
    let l = table(out, "controller_log");
    let (t, e) = (f64s(l, "time_s"), strs(l, "event"));
    (0..t.len()).find(|&i| e[i] == "app_request").map(|i| t[i]).expect("a request")
}

fn dump(out: &RunOutput) -> String {
    log(out).iter().map(|r| format!("{:.3} {} {}", r.0, r.1, r.2)).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_19_mb_download_stays_on_wifi_and_21_mb_opens_lte_at_establishment() {
    let small = run_toml(&phone("20s", r#"{ kind = "download", size = "19MB" }"#, "", "", ""));
    assert!(acts(&small, "open_subflow").is_empty(), "{}", dump(&small));
    assert_eq!(lte_bytes(&small), 0.0);
    let big = run_toml(&phone("20s", r#"{ kind = "download", size = "21MB" }"#, "", "", ""));
    let opens = acts(&big, "open_subflow");
    assert_eq!(opens.len(), 1, "{}", dump(&big));
    // The request leaves at establishment; the controller acts on it at once.
    assert!((opens[0] - first_request_at(&big)).abs() < 1e-9, "opened at {} s\n{}", opens[0], dump(&big));
    assert!(lte_bytes(&big) > 1e6, "LTE carried {} bytes", lte_bytes(&big));
}

#[test]
fn exactly_alpha1_matches_neither_branch_and_stays_single_path() {
    let out = run_toml(&phone("15s", r#"{ kind = "download", size = "20MB" }"#, "", "", ""));
    assert!(acts(&out, "open_subflow").is_empty(), "{}", dump(&out));
    assert!(log(&out).iter().any(|r| r.2.contains("neither branch")), "{}", dump(&out));
}

#[test]
fn an_unknown_size_download_opens_lte_after_alpha2() {
    // 100 MB at 20 Mb/s lasts 40 s on Wi-Fi alone.
    let out = run_toml(&phone("45s", r#"{ kind = "download", size = "100MB", size_announced = false }"#, "", "", ""));
    let opens = acts(&out, "open_subflow");
    assert_eq!(opens.len(), 1, "{}", dump(&out));
    let request = first_request_at(&out);
    assert!((opens[0] - (request + 30.0)).abs() < 1e-6, "opened at {} s, request at {request} s", opens[0]);
}

#[test]
fn the_completion_time_reading_compares_size_over_wifi_with_alpha2() {
    // 70 MB over the 20 Mb/s estimate: 28 s < 30 s, single path; 80 MB: 32 s, multipath.
    let rule = r#"download_rule = "completion_time""#;
    let short = run_toml(&phone("10s", r#"{ kind = "download", size = "70MB" }"#, rule, "", ""));
    assert!(acts(&short, "open_subflow").is_empty(), "{}", dump(&short));
    let long = run_toml(&phone("10s", r#"{ kind = "download", size = "80MB" }"#, rule, "", ""));
    assert_eq!(acts(&long, "open_subflow").len(), 1, "{}", dump(&long));
}

/// Algorithm 1 with C < 1: Wi-Fi's 6 Mb/s under an 8 Mb/s video of 170 s.
fn video(params: &str) -> RunOutput {
    video_of(170, params)
}

/// The same with a video of `length` seconds.
fn video_of(length: u32, params: &str) -> RunOutput {
    let app = format!(r#"{{ kind = "video", bitrate = "8Mbps", duration = "{length}s", max_buffer = "100s", low_watermark = "80s" }}"#);
    let text = phone(&format!("{}s", length + 10), &app, params, "", "")
        .replace(r#"rate = "20Mbps""#, r#"rate = "6Mbps""#)
        .replace(r#"wlan0 = [["0s", "20Mbps"]]"#, r#"wlan0 = [["0s", "6Mbps"]]"#);
    run_toml(&text)
}

#[test]
fn algorithm_1_opens_cellular_below_th_and_closes_it_at_th_with_hysteresis() {
    let out = video(r#"doubling = "hysteresis""#);
    let (opens, closes) = (acts(&out, "open_subflow"), acts(&out, "close_subflow"));
    let buffer = table(&out, "app_ts");
    let (bt, bs) = (f64s(buffer, "time_s"), f64s(buffer, "buffer_s"));
    let at = |t: f64| bs[bt.iter().position(|&x| x >= t - 1e-9).expect("sampled")];
    eprintln!("FIGURE smptcp video: opens {opens:?}, closes {closes:?}\n{}", dump(&out));
    assert!(opens.len() >= 2 && closes.len() >= 2, "{}", dump(&out));
    // The first open at the video's start (BR = 0 < 10 s), the first close
    // once 20 s are buffered; then open below 10 s, close at 40 s; then
    // the 30/60 s band at the cap.
    assert!(opens[0] - first_request_at(&out) < 0.2, "first open at {}", opens[0]);
    let bands = [(20.0, 10.0), (40.0, 20.0), (60.0, 30.0)];
    for (k, &close) in closes.iter().enumerate() {
        let (hi, lo) = bands[k.min(2)];
        // Checked at 1 s intervals on 100 ms samples: BR within one second of buffer change.
        assert!(at(close) >= hi - 1.0 && at(close) < hi + 2.0, "close {k} at {close} s with {} s buffered, band {hi}", at(close));
        if let Some(&reopen) = opens.get(k + 1) {
            assert!(at(reopen) < lo + 0.5, "reopen {k} at {reopen} s with {} s buffered, below {lo}", at(reopen));
        }
    }
    let apps = table(&out, "apps");
    assert_eq!(f64s(apps, "stalls")[0], 0.0, "stalls");
}

#[test]
fn algorithm_1_fill_holds_cellular_through_the_initial_fill_then_refills_in_the_capped_band() {
    let out = video_of(400, r#"doubling = "fill""#);
    let (opens, closes) = (acts(&out, "open_subflow"), acts(&out, "close_subflow"));
    let buffer = table(&out, "app_ts");
    let (bt, bs) = (f64s(buffer, "time_s"), f64s(buffer, "buffer_s"));
    let at = |t: f64| bs[bt.iter().position(|&x| x >= t - 1e-9).expect("sampled")];
    eprintln!("FIGURE smptcp video fill: opens {opens:?}, closes {closes:?}\n{}", dump(&out));
    assert!(opens.len() >= 2 && closes.len() >= 2, "{}", dump(&out));
    assert!(opens[0] - first_request_at(&out) < 0.2, "first open at {}", opens[0]);
    // Th doubles to 20, 40 and 60 s while the first fill runs, LTE staying open.
    let doubled: Vec<f64> = ["Th = 20 s", "Th = 40 s", "Th = 60 s"]
        .iter()
        .map(|th| log(&out).iter().find(|r| r.1 == "log" && r.2.contains(th)).map(|r| r.0).unwrap_or_else(|| panic!("no {th}\n{}", dump(&out))))
        .collect();
    assert!(doubled.windows(2).all(|w| w[0] < w[1]) && doubled[2] < closes[0], "doublings {doubled:?}, first close {}", closes[0]);
    // Every close at the capped Th (checked each second, buffer in 4 s segments), every reopen below Th/2 = 30 s.
    for (k, &close) in closes.iter().enumerate() {
        assert!(at(close) >= 59.0 && at(close) < 62.0, "close {k} at {close} s with {} s buffered", at(close));
    }
    for (k, &reopen) in opens.iter().enumerate().skip(1) {
        assert!(at(reopen) < 30.5 && at(reopen) >= 25.0, "reopen {k} at {reopen} s with {} s buffered", at(reopen));
    }
    // Th never resets: no line after the first close names a threshold below the cap.
    let lower = ["Th = 10 s", "Th = 20 s", "Th = 40 s"];
    assert!(log(&out).iter().filter(|r| r.0 > closes[0]).all(|r| lower.iter().all(|th| !r.2.contains(th))), "{}", dump(&out));
    assert_eq!(f64s(table(&out, "apps"), "stalls")[0], 0.0, "stalls");
}

#[test]
fn algorithm_1_keeps_wifi_alone_when_it_carries_the_bitrate() {
    let app = r#"{ kind = "video", bitrate = "8Mbps", duration = "50s", max_buffer = "100s", low_watermark = "80s" }"#;
    let out = run_toml(&phone("60s", app, "", "", ""));
    assert!(acts(&out, "open_subflow").is_empty(), "{}", dump(&out));
    assert!(log(&out).iter().any(|r| r.2.contains(">= 1: Wi-Fi only")), "{}", dump(&out));
}

#[test]
fn a_rat_change_out_of_the_mptcp_set_makes_lte_a_backup_within_the_event() {
    let devices = "";
    let text = phone("20s", r#"{ kind = "download", size = "200MB" }"#, "guard = \"off\"", devices, "")
        .replace(r#"lte0 = [["0s", "lte"]]"#, r#"lte0 = [["0s", "lte"], ["8s", "umts"], ["14s", "lte"]]"#);
    let out = run_toml(&text);
    let flags: Vec<(f64, String)> = log(&out).into_iter().filter(|r| r.1 == "set_backup").map(|r| (r.0, r.2)).collect();
    assert_eq!(flags.len(), 2, "{}", dump(&out));
    assert_eq!((flags[0].0, flags[0].1.as_str()), (8.0, "backup = true"));
    assert_eq!((flags[1].0, flags[1].1.as_str()), (14.0, "backup = false"));
}

#[test]
fn after_a_fallback_no_join_is_attempted_and_the_reason_is_logged() {
    let out = run_toml(&phone("10s", r#"{ kind = "download", size = "50MB" }"#, "", "", ", strip_options = true"));
    assert!(acts(&out, "open_subflow").is_empty(), "{}", dump(&out));
    assert!(log(&out).iter().any(|r| r.2.contains("fallback")), "{}", dump(&out));
}

#[test]
fn the_tuner_sizes_the_buffer_for_the_interfaces_in_use() {
    let out = run_toml(&phone("10s", r#"{ kind = "download", size = "50MB" }"#, "guard = \"off\"", "", ""));
    let sets: Vec<String> = log(&out).into_iter().filter(|r| r.1 == "set_receive_buffer").map(|r| r.2).collect();
    // Wi-Fi 4 MiB + LTE 8 MiB = the 12 MiB cap.
    assert_eq!(sets, [format!("{} bytes", 12 << 20)], "{}", dump(&out));
    let small = run_toml(&phone("10s", r#"{ kind = "download", size = "5MB" }"#, "", "", ""));
    let sets: Vec<String> = log(&small).into_iter().filter(|r| r.1 == "set_receive_buffer").map(|r| r.2).collect();
    assert_eq!(sets, [format!("{} bytes", 4 << 20)], "{}", dump(&small));
}

/// The phone's LTE link with MTU 1440 (SKT/KT's, the paper's Table 2).
fn phone_lte_1440(params: &str) -> String {
    let toml = phone("5s", r#"{ kind = "download", size = "21MB" }"#, params, "", "");
    toml.replacen("a = \"phone:lte0\"\nb = \"enb\"\n", "a = \"phone:lte0\"\nb = \"enb\"\nmtu = 1440\n", 1)
}

/// (packets, wire bytes) the server sent.
fn server_sent(out: &RunOutput) -> (f64, f64) {
    let l = table(out, "links");
    let i = strs(l, "name").iter().position(|n| n == "internet-server:server>internet").expect("the server's link");
    (f64s(l, "packets_sent")[i], f64s(l, "bytes_sent")[i])
}

#[test]
fn the_tuner_announces_the_smallest_mtu_less_40_before_the_syn() {
    let out = run_toml(&phone_lte_1440("guard = \"off\""));
    let l = table(&out, "controller_log");
    let (t, e, a, d, o) = (f64s(l, "time_s"), strs(l, "event"), strs(l, "action"), strs(l, "detail"), strs(l, "outcome"));
    let k = a.iter().position(|x| x == "set_mss").unwrap_or_else(|| panic!("no set_mss:\n{}", dump(&out)));
    assert_eq!((t[k], e[k].as_str(), d[k].as_str(), o[k].as_str()), (0.0, "connection_opening", "MSS 1400 bytes", "done"));
    assert!(d[k - 1].contains("MSS 1400 = min MTU (wlan0 1500, lte0 1440) - 40, lte0's"), "{}", d[k - 1]);
    // The server's segments: 1400 less 12 bytes of timestamps, 1440 bytes on the wire.
    let (packets, bytes) = server_sent(&out);
    assert!(packets > 10_000.0, "{packets}");
    assert!(bytes <= packets * 1440.0 && bytes > packets * 1430.0, "mean {} bytes", bytes / packets);
    // Off, or with equal MTUs, no MSS is set.
    let off = run_toml(&phone_lte_1440("guard = \"off\", tune_mss = false"));
    assert!(acts(&off, "set_mss").is_empty(), "{}", dump(&off));
    let equal = run_toml(&phone("5s", r#"{ kind = "download", size = "21MB" }"#, "guard = \"off\"", "", ""));
    assert!(acts(&equal, "set_mss").is_empty(), "{}", dump(&equal));
    let (packets, bytes) = server_sent(&equal);
    assert!(bytes > packets * 1490.0, "mean {} bytes: full 1500-byte packets", bytes / packets);
}

/// Mean wire bytes of the packets the phone's access link `router` sent to it
/// (the download's data on that subflow; no ACKs go that way), and how many.
fn to_phone_via(out: &RunOutput, router: &str) -> (f64, f64) {
    let l = table(out, "links");
    let names = strs(l, "name");
    let i = names.iter().position(|n| n.ends_with(&format!(":{router}>phone"))).unwrap_or_else(|| panic!("no {router}>phone in {names:?}"));
    let (p, b) = (f64s(l, "packets_sent")[i], f64s(l, "bytes_sent")[i]);
    (b / p, p)
}

#[test]
fn each_subflow_takes_its_own_mss_unless_the_rule_sets_the_smallest() {
    // LTE 1440, Wi-Fi 1500, a 21 MB download (multipath from the start).
    // Without the rule each subflow negotiates its own MSS, as on Linux:
    // Wi-Fi 1448-byte payloads (1500 on the wire), LTE 1388 (1440).
    let off = run_toml(&phone_lte_1440("guard = \"off\", tune_mss = false"));
    let (wifi, n_wifi) = to_phone_via(&off, "ap");
    let (lte, n_lte) = to_phone_via(&off, "enb");
    eprintln!("FIGURE smptcp mss off: Wi-Fi {wifi:.1} B x {n_wifi}, LTE {lte:.1} B x {n_lte}");
    assert!(n_wifi > 1000.0 && n_lte > 1000.0, "{n_wifi} {n_lte}: both subflows carry data");
    assert!(wifi > 1490.0 && wifi <= 1500.0, "Wi-Fi mean {wifi}");
    assert!(lte > 1430.0 && lte <= 1440.0, "LTE mean {lte}");
    // With the rule (MSS 1400 announced before the SYN, on every subflow) both are LTE's.
    let on = run_toml(&phone_lte_1440("guard = \"off\""));
    let (wifi, n_wifi) = to_phone_via(&on, "ap");
    let (lte, n_lte) = to_phone_via(&on, "enb");
    eprintln!("FIGURE smptcp mss on: Wi-Fi {wifi:.1} B x {n_wifi}, LTE {lte:.1} B x {n_lte}");
    assert!(n_wifi > 1000.0 && n_lte > 1000.0, "{n_wifi} {n_lte}: both subflows carry data");
    assert!(wifi > 1430.0 && wifi <= 1440.0, "Wi-Fi mean {wifi}");
    assert!(lte > 1430.0 && lte <= 1440.0, "LTE mean {lte}");
}

#[test]
fn the_guard_falls_back_to_the_best_single_path_when_multipath_is_slower() {
    // A large RTT gap (LTE 624 ms) with a small receive buffer: the Wi-Fi
    // subflow waits for LTE's segments, and multipath falls below Wi-Fi alone.
    let text = phone("40s", r#"{ kind = "download", size = "500MB" }"#, r#"max_buffer = "200KB""#, "", "")
        .replace(r#"delay = "25ms""#, r#"delay = "300ms""#)
        .replace(r#"rate = "10Mbps""#, r#"rate = "5Mbps""#);
    let out = run_toml(&text);
    let text = dump(&out);
    eprintln!("FIGURE smptcp guard:\n{text}");
    assert!(text.contains("trying single path"), "{text}");
    assert!(text.contains("single path stays"), "{text}");
    assert_eq!(acts(&out, "close_subflow").len(), 1, "{text}");
}

#[test]
fn bad_parameters_are_refused_naming_the_key() {
    let bad = |params: &str| load_err(&phone("5s", r#"{ kind = "download", size = "1MB" }"#, params, "", ""));
    assert!(bad(r#"mode = "turbo""#).contains("controllers[0].params.mode: unknown mode 'turbo'"), "{}", bad(r#"mode = "turbo""#));
    assert!(bad(r#"apps = "maps""#).contains("'maps' must be name:value"), "{}", bad(r#"apps = "maps""#));
    assert!(bad(r#"exclude = "clat0""#).contains("'clat0' is not an interface of phone"), "{}", bad(r#"exclude = "clat0""#));
    assert!(bad(r#"alpha2 = "-1s""#).contains("params.alpha2"), "{}", bad(r#"alpha2 = "-1s""#));
    assert!(bad(r#"speed = 3"#).contains("unknown parameter for smptcp"), "{}", bad("speed = 3"));
    assert!(bad(r#"tune_mss = 3"#).contains("params.tune_mss"), "{}", bad("tune_mss = 3"));
    let cc = bad(r#"sender_cc = "cubic""#);
    assert!(cc.contains("controllers[0].params.sender_cc") && cc.contains("bbr"), "{cc}");
}

#[test]
fn the_guard_brings_multipath_back_when_single_path_is_slower() {
    // Multipath's ~30 Mb/s is below 2 x Wi-Fi's 20 Mb/s estimate, so
    // single path is tried, measures less, and LTE comes back.
    let out = run_toml(&phone("20s", r#"{ kind = "download", size = "500MB" }"#, "guard_ratio = 2", "", ""));
    let text = dump(&out);
    assert!(text.contains("trying single path") && text.contains("multipath stays"), "{text}");
    assert_eq!((acts(&out, "open_subflow").len(), acts(&out, "close_subflow").len()), (2, 1), "{text}");
}

#[test]
fn reliability_mode_uses_lte_only_while_a_wifi_problem_lasts() {
    let text = phone("24s", r#"{ kind = "download", size = "500MB" }"#, r#"mode = "reliability""#, "", "");
    let out = run_toml(&text.replacen("queue = 100", "queue = 100\nevents = [{ at = \"5s\", state = \"down\" }, { at = \"12s\", state = \"up\" }]", 1));
    let (opens, closes) = (acts(&out, "open_subflow"), acts(&out, "close_subflow"));
    // Wi-Fi goes down at 5 s: with the primary unusable the one path moves
    // to LTE at once (no hold: there is no path to wait on). Wi-Fi is back
    // at 12 s; its subflow's bytes from the next samples start a 2 s
    // (problem_hold) wait before LTE leaves.
    assert_eq!((opens.len(), closes.len()), (1, 1), "{}", dump(&out));
    assert_eq!(opens[0], 5.0, "LTE opened at {}", opens[0]);
    assert!((14.0..=14.4).contains(&closes[0]), "LTE closed at {}", closes[0]);
}

#[test]
fn user_choice_and_operator_whitelist_set_the_mode() {
    let backup = run_toml(&phone("5s", r#"{ kind = "download", size = "1MB", name = "maps" }"#, r#"apps = "maps:backup""#, "", ""));
    let opened: Vec<String> = log(&backup).into_iter().filter(|r| r.1 == "open_subflow").map(|r| r.2).collect();
    assert_eq!(opened, ["lte0 -> server:eth0, backup"], "{}", dump(&backup));
    let free = run_toml(&phone("5s", r#"{ kind = "download", size = "1MB", name = "jiotv" }"#, r#"whitelist = "jiotv""#, "", ""));
    assert!(dump(&free).contains("operator whitelist (zero-rated jiotv): hassle_free"), "{}", dump(&free));
    assert_eq!(acts(&free, "open_subflow").len(), 1, "{}", dump(&free));
}

#[test]
fn heat_and_a_data_limit_take_lte_away() {
    let hot = run_toml(&phone("16s", r#"{ kind = "download", size = "500MB" }"#, r#"guard = "off""#, r#"temperature = [["0s", 35], ["5s", 45], ["10s", 38]]"#, ""));
    let (opens, closes) = (acts(&hot, "open_subflow"), acts(&hot, "close_subflow"));
    assert_eq!(opens.len(), 2, "{}", dump(&hot));
    assert_eq!((closes, opens[1]), (vec![5.0], 10.0), "{}", dump(&hot));
    let limited = run_toml(&phone("16s", r#"{ kind = "download", size = "500MB" }"#, r#"guard = "off""#, r#"data_limit = { lte0 = "5MB" }"#, ""));
    assert_eq!(acts(&limited, "close_subflow").len(), 1, "{}", dump(&limited));
    assert!(dump(&limited).contains("over its data limit") || lte_bytes(&limited) < 6e6, "{}", dump(&limited));
}

#[test]
fn excluded_and_cross_family_interfaces_carry_no_subflow() {
    for params in [r#"exclude = "lte0""#, r#"families = "wlan0:v4, lte0:v6", peer_families = "eth0:v4""#] {
        let out = run_toml(&phone("5s", r#"{ kind = "download", size = "50MB" }"#, params, "", ""));
        assert!(acts(&out, "open_subflow").is_empty(), "{params}: {}", dump(&out));
    }
}

#[test]
fn an_interactive_session_which_requests_nothing_is_in_reliability_mode_from_the_start() {
    let out = run_toml(&phone("3s", r#"{ kind = "interactive", message = "200B", interval = "20ms" }"#, "", "", ""));
    assert!(dump(&out).contains("auto: interactive (voice, games): reliability"), "{}", dump(&out));
    assert!(acts(&out, "open_subflow").is_empty(), "{}", dump(&out));
}

/// The phone uploading `size` to the server over both paths (hassle-free
/// from the start: Wi-Fi and LTE), S-MPTCP with `params`; Wi-Fi loses
/// `wifi_loss` of the packets each way.
fn upload(size: &str, params: &str, wifi_loss: f64) -> String {
    let params = if params.is_empty() { r#"mode = "hassle_free""#.to_string() } else { format!(r#"mode = "hassle_free", {params}"#) };
    let toml = phone("8s", "{}", &params, "", "");
    let flow = format!("src = \"phone\"\ndst = \"server\"\ntransport = \"mptcp\"\nsize = \"{size}\"\n");
    let toml = toml.replace("src = \"server\"\ndst = \"phone\"\nclient = \"dst\"\ntransport = \"mptcp\"\n", &flow).replace("app = {}\n", "");
    assert!(toml.contains("src = \"phone\"") && !toml.contains("app ="), "the template changed:\n{toml}");
    toml.replacen("a = \"phone:wlan0\"\nb = \"ap\"\n", &format!("a = \"phone:wlan0\"\nb = \"ap\"\nloss = {{ model = \"bernoulli\", p = {wifi_loss} }}\n"), 1)
}

/// The flows table's `cc` of flow 0 (what its sender runs).
fn flow_cc(out: &RunOutput) -> String {
    strs(table(out, "flows"), "cc")[0].clone()
}

/// Payload bytes the phone's subflow on `iface` had acknowledged.
fn uploaded_via(out: &RunOutput, iface: &str) -> f64 {
    let s = table(out, "subflows");
    let (local, bytes) = (strs(s, "local_interface"), f64s(s, "bytes_acked"));
    (0..local.len()).filter(|&i| local[i] == format!("phone:{iface}")).map(|i| bytes[i]).sum()
}

#[test]
fn on_an_upload_the_tuner_runs_bbr_on_every_subflow_before_the_syn() {
    let out = run_toml(&upload("100MB", "", 0.02));
    let l = table(&out, "controller_log");
    let (t, e, a, d, o) = (f64s(l, "time_s"), strs(l, "event"), strs(l, "action"), strs(l, "detail"), strs(l, "outcome"));
    let k = a.iter().position(|x| x == "set_congestion_control").unwrap_or_else(|| panic!("no set_congestion_control:\n{}", dump(&out)));
    assert_eq!((t[k], e[k].as_str(), d[k].as_str(), o[k].as_str()), (0.0, "connection_opening", "bbr", "done"));
    assert_eq!(d[k - 1], "fetch: congestion control bbr on every subflow, each its own (uncoupled): the phone sends the data");
    assert_eq!(flow_cc(&out), "uncoupled/bbr");
    assert_eq!(acts(&out, "open_subflow").len(), 1, "{}", dump(&out));
    // Off: the scenario's coupled OLIA, and no action.
    let keep = run_toml(&upload("100MB", r#"sender_cc = "keep""#, 0.02));
    assert!(acts(&keep, "set_congestion_control").is_empty(), "{}", dump(&keep));
    assert_eq!(flow_cc(&keep), "olia");
    // What BBR changes: with 2 % random loss on Wi-Fi, OLIA halves its
    // window at every loss and the Wi-Fi subflow crawls; BBR's window
    // follows its bandwidth and RTT estimates, not the losses.
    let (bbr_wifi, olia_wifi) = (uploaded_via(&out, "wlan0"), uploaded_via(&keep, "wlan0"));
    eprintln!("FIGURE smptcp upload, Wi-Fi 2 % loss, 8 s: Wi-Fi subflow bbr {bbr_wifi:.0} B, olia {olia_wifi:.0} B");
    assert!(bbr_wifi > 3.0 * olia_wifi, "bbr {bbr_wifi} vs olia {olia_wifi}");
}

#[test]
fn a_download_keeps_the_servers_congestion_control_and_runs_as_with_the_rule_off() {
    // The phone receives: the tuner sets nothing, the server's OLIA stays,
    // and the run is the one with `sender_cc = "keep"`, table for table.
    let text = |params: &str| phone("5s", r#"{ kind = "download", size = "21MB" }"#, params, "", "");
    let down = run_toml(&text(r#"guard = "off""#));
    assert!(acts(&down, "set_congestion_control").is_empty(), "{}", dump(&down));
    assert_eq!(flow_cc(&down), "olia");
    let keep = run_toml(&text(r#"guard = "off", sender_cc = "keep""#));
    for name in ["flows", "subflows", "controller_log", "links"] {
        assert_eq!(format!("{:?}", table(&down, name).columns), format!("{:?}", table(&keep, name).columns), "table {name}");
    }
}
