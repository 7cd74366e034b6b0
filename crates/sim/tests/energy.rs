//! Radios and Green MPTCP's linear model in a run (`[[devices]]`): which
//! bytes they count, both readings of the linear model against the other
//! result tables, and bad input.

mod common;
use common::{f64s, load_err, run_toml, strs, table};

fn rate_fallback_with(device: &str) -> String {
    let path = format!("{}/../../python/pathpool/scenarios/rate-fallback.toml", env!("CARGO_MANIFEST_DIR"));
    let base = std::fs::read_to_string(&path).unwrap();
    format!("{base}\n[[devices]]\nhost = \"phone\"\n{device}\n")
}


/// The `energy` rows of `model`, as (interface, joules, up, down).
fn rows(out: &pathpool_sim::RunOutput, model: &str) -> Vec<(String, f64, f64, f64)> {
    let e = table(out, "energy");
    let (i, m, j, u, d) = (strs(e, "interface"), strs(e, "model"), f64s(e, "energy_j"), f64s(e, "bytes_up"), f64s(e, "bytes_down"));
    (0..i.len()).filter(|&k| m[k] == model).map(|k| (i[k].clone(), j[k], u[k], d[k])).collect()
}

/// The phone's wire bytes per interface from the `interfaces` table: (sent, received).
fn phone_bytes(out: &pathpool_sim::RunOutput, iface: &str) -> (f64, f64) {
    let t = table(out, "interfaces");
    let (n, i, s, r) = (strs(t, "node"), strs(t, "interface"), f64s(t, "bytes_sent"), f64s(t, "bytes_received"));
    let k = (0..n.len()).find(|&k| n[k] == "phone" && i[k] == iface).unwrap();
    (s[k], r[k])
}

#[test]
fn radios_count_every_wire_byte_both_ways() {
    let out = run_toml(&rate_fallback_with("radios = { wlan0 = { technology = \"wifi\" }, lte0 = { technology = \"lte\" } }"));
    for (model, iface) in [("wifi", "wlan0"), ("lte", "lte0")] {
        let r = &rows(&out, model)[0];
        assert_eq!(r.0, iface);
        assert_eq!((r.2, r.3), phone_bytes(&out, iface), "{iface}: the radio counts what the interface sent and received");
    }
    // LTE idles until 11 s, is active while its subflow is open, then tails (Huang et al.).
    let ts = table(&out, "radio_ts");
    let (t, i, state) = (f64s(ts, "time_s"), strs(ts, "interface"), strs(ts, "state"));
    let at = |x: f64| (0..t.len()).find(|&k| i[k] == "lte0" && (t[k] - x).abs() < 1e-9).map(|k| state[k].clone()).unwrap();
    assert_eq!((at(5.0).as_str(), at(15.0).as_str(), at(25.0).as_str()), ("idle", "active", "tail"));
    let lte_j = rows(&out, "lte")[0].1;
    // Closed form of the active part alone: β over ~10 s plus α_u per uplink Mbit.
    let up_mbit = rows(&out, "lte")[0].2 * 8.0 / 1e6;
    assert!(lte_j > 1.288 * 9.5 + 0.43839 * up_mbit, "{lte_j} J");
}

#[test]
fn linear_model_data_reading_is_sum_of_weights_times_bits() {
    let out = run_toml(&rate_fallback_with("linear = { reading = \"data\", w_device = 5e-9, w = { wlan0 = 1e-9, lte0 = 3e-9 } }"));
    let r = rows(&out, "linear:data");
    for (iface, w) in [("wlan0", 1e-9), ("lte0", 3e-9)] {
        let (sent, received) = phone_bytes(&out, iface);
        let got = r.iter().find(|x| x.0 == iface).unwrap().1;
        let want = w * 8.0 * (sent + received);
        assert!((got - want).abs() <= 1e-12 * want.max(1.0), "{iface}: {got} vs {want}");
    }
    let delivered = f64s(table(&out, "flows"), "bytes_delivered")[0];
    let device = r.iter().find(|x| x.0 == "device").unwrap().1;
    assert!((device - 5e-9 * 8.0 * delivered).abs() < 1e-9, "{device}");
}

#[test]
fn linear_model_time_reading_counts_time_in_use() {
    let out = run_toml(&rate_fallback_with("linear = { reading = \"time\", w_device = 10, w = { wlan0 = 1, lte0 = 3 } }"));
    let r = rows(&out, "linear:time");
    let get = |i: &str| r.iter().find(|x| x.0 == i).unwrap().1;
    // Wi-Fi carries the bulk upload to the end (30 s); LTE from the session's
    // start (0 s, eq. 1's k = 0) to its last byte, within an RTT of the
    // controller closing its subflow.
    assert!((get("wlan0") - 30.0).abs() < 0.01, "{}", get("wlan0"));
    let log = table(&out, "controller_log");
    let (t, action) = (f64s(log, "time_s"), strs(log, "action"));
    let closed = (0..t.len()).find(|&k| action[k] == "close_subflow").map(|k| t[k]).expect("LTE is closed");
    let lte_s = get("lte0") / 3.0;
    assert!((closed..closed + 0.3).contains(&lte_s), "LTE in use until {lte_s} s, closed at {closed} s");
    assert!((get("device") - 10.0 * 30.0).abs() < 0.1, "{}", get("device"));
}

#[test]
fn bad_devices_are_refused_before_the_run() {
    let cases = [
        ("radios = { wlan0 = { technology = \"5g\" } }", "devices[0].radios.wlan0.technology", "unknown radio technology '5g'"),
        ("radios = { wlan0 = { technology = \"lte\", params = { tail_power_mw = -1 } } }", "devices[0].radios.wlan0.params.tail_power_mw", "0 or more"),
        ("radios = { eth7 = { technology = \"wifi\" } }", "devices[0].radios.eth7", "'eth7' is not an interface of phone"),
        ("radios = { lte0 = { technology = \"nr\" } }", "devices[0].radios.lte0.params", "required"),
        ("linear = { w = { wlan0 = 1 } }", "devices[0].linear.w", "missing: lte0"),
        ("linear = { w = { wlan0 = 1, lte0 = -2 } }", "devices[0].linear.w.lte0", "0 or more"),
        ("linear = { reading = \"energy\", w = { wlan0 = 1, lte0 = 2 } }", "devices[0].linear.reading", "must be one of"),
        ("", "devices[0]", "names no radio, energy model, hint or data limit"),
        ("battery = [[\"0s\", 120]]", "devices[0].battery[0]", "between 0 and 100"),
        ("battery = [[\"2s\", 50], [\"1s\", 40]]", "devices[0].battery[1]", "step times must increase"),
        ("screen = [[\"40s\", true]]", "devices[0].screen[0]", "after the end of the run"),
        ("rat = { lte0 = [[\"1s\", \"6g\"]] }", "devices[0].rat.lte0[0]", "unknown radio access technology '6g'"),
        ("signal = { wlan1 = [[\"0s\", -60]] }", "devices[0].signal.wlan1", "not an interface of phone"),
        ("data_limit = { lte0 = 0 }", "devices[0].data_limit.lte0", "must be positive"),
    ];
    for (device, field, what) in cases {
        let err = load_err(&rate_fallback_with(device));
        assert!(err.contains(field) && err.contains(what), "{device}: {err}");
    }
    let err = load_err(&rate_fallback_with("radios = { wlan0 = { technology = \"wifi\" } }").replace("host = \"phone\"\nradios", "host = \"ap\"\nradios"));
    assert!(err.contains("devices[0].host") && err.contains("router"), "{err}");
}
