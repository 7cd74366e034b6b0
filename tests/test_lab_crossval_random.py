"""The random simulator-vs-kernel suite's generator (validation/lab_space.py):
deterministic per seed, inside its stated space, and every scenario valid and
made of features the kernel lab runs. Fast: nothing is run."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pathpool
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "validation"))
import lab_space  # noqa: E402

DRAWS = [lab_space.draw(seed, i) for seed in (1, 2, 77) for i in range(40)]


def test_the_same_seed_and_index_give_the_same_scenario():
    for seed in (1, 2, 77):
        for i in range(10):
            assert lab_space.to_toml(lab_space.draw(seed, i)) == lab_space.to_toml(lab_space.draw(seed, i))


def test_other_seeds_and_indices_give_other_scenarios():
    texts = {lab_space.to_toml(d).split("\n", 1)[1] for d in DRAWS}  # the first line names seed and index
    assert len(texts) == len(DRAWS)


def test_draws_stay_inside_the_stated_space():
    for d in DRAWS:
        assert 1 <= len(d.paths) <= 3
        for p in d.paths:
            assert lab_space.RATE_MBPS[0] <= p.rate_mbps <= lab_space.RATE_MBPS[1]
            assert lab_space.DELAY_MS[0] <= p.delay_ms <= lab_space.DELAY_MS[1]
            assert p.loss == 0 or lab_space.LOSS[0] <= p.loss <= lab_space.LOSS[1]
            bdp = p.rate_mbps * 1e6 * 2 * p.delay_ms / 1e3 / (8 * 1500)
            assert p.queue == max(lab_space.MIN_QUEUE, -(-bdp // 1))
        assert len({p.delay_ms for p in d.paths}) == len(d.paths)
        assert d.cc in ("cubic", "bbr", "newreno")
        assert 0 <= len(d.cross) <= 2
        for c in d.cross:
            assert c.cc in ("cubic", "bbr", "newreno")
            assert 0 <= c.path < len(d.paths)
            assert lab_space.CROSS_START_S[0] <= c.start_s <= lab_space.CROSS_START_S[1]
        assert d.size is None or d.size >= lab_space.MIN_SIZE
    # Every dimension takes each of its values somewhere in 120 draws.
    assert {len(d.paths) for d in DRAWS} == {1, 2, 3}
    assert {len(d.cross) for d in DRAWS} == {0, 1, 2}
    assert {d.mptcp for d in DRAWS} == {True, False}
    assert {d.size is None for d in DRAWS} == {True, False}
    assert {d.cc for d in DRAWS} == {"cubic", "bbr", "newreno"}
    assert {p.loss == 0 for d in DRAWS for p in d.paths} == {True, False}


def test_the_files_say_what_the_draws_say():
    for d in DRAWS[:20]:
        s = tomllib.loads(lab_space.to_toml(d))
        assert s["sim"]["duration"] == f"{lab_space.DURATION_S:g}s"
        bottlenecks = {link["name"]: link for link in s["links"] if link.get("name", "").startswith("path")}
        assert sorted(bottlenecks) == [f"path{i}" for i in d.used_paths()]
        assert set(d.main_paths()) <= set(d.used_paths())
        for i in d.used_paths():
            p, link = d.paths[i], bottlenecks[f"path{i}"]
            assert link["rate"] == f"{p.rate_mbps:g}Mbps" and link["queue"] == p.queue
            # Access and egress links add 0.5 ms each to the bottleneck's delay.
            assert float(link["delay"].removesuffix("ms")) + 2 * lab_space.ACCESS_MS == pytest.approx(p.delay_ms)
            assert ("loss" in link) == (p.loss > 0)
        main, *cross = s["flows"]
        assert main.get("transport", "tcp") == ("mptcp" if d.mptcp else "tcp")
        assert main.get("size") == d.size and main["tcp"] == {"cc": d.cc}
        if d.mptcp:  # what the lab runs: upstream Linux's uncoupled subflows and default scheduler
            assert main["mptcp"] == {"coupling": "uncoupled", "scheduler": "minrtt", "path_manager": "fullmesh"}
        assert len(cross) == len(d.cross)


def test_every_scenario_validates(tmp_path):
    for d in DRAWS:
        path = tmp_path / f"{d.name}.toml"
        path.write_text(lab_space.to_toml(d))
        assert pathpool.validate(str(path)) == d.name


def test_the_kernel_like_copy_changes_only_the_simulator_options(tmp_path):
    """--sim-kernel-like: the same network and flows, with cwnd_limited growth, Linux's RTO and send buffer, RACK, SACK
    compression and ssthresh from cwnd on every flow, CUBIC's constant Reno-friendly α, and MPTCP's linger scheduler."""
    for d in DRAWS:
        plain, kernel_like = tomllib.loads(lab_space.to_toml(d)), tomllib.loads(lab_space.to_toml(d, kernel_like=True))
        for a, b in zip(plain["flows"], kernel_like["flows"]):
            params = {"cc_params": {"reno_alpha": "linux"}} if a["tcp"]["cc"] == "cubic" else {}
            assert b["tcp"] == {**a["tcp"], "cwnd_growth": "cwnd_limited", "rto_formula": "linux",
                              "send_buffer": "linux", "rack": True, "sack_compression": True, "ssthresh_from": "cwnd", **params}
            if "mptcp" in a:
                assert b["mptcp"] == {**a["mptcp"], "scheduler": "linger"}
            assert {k: v for k, v in a.items() if k not in ("tcp", "mptcp")} == {k: v for k, v in b.items() if k not in ("tcp", "mptcp")}
        # Both planes run every scenario's hosts behind a qdisc.
        assert plain["sim"]["host_egress"] == "qdisc" and "lab" not in plain
        assert {k: v for k, v in plain.items() if k != "flows"} == {k: v for k, v in kernel_like.items() if k != "flows"}
        path = tmp_path / f"{d.name}.kernel-like.toml"
        path.write_text(lab_space.to_toml(d, kernel_like=True))
        assert pathpool.validate(str(path)) == d.name


def test_a_scenario_runs_and_its_flows_cross_their_paths(tmp_path):
    """A tiny run (0.5 s, cross flows from 0.1 s) of a TCP draw with cross flows on two paths: every flow delivers,
    over the bottleneck the generator put it on."""
    d = next(d for d in DRAWS if not d.mptcp and len(d.used_paths()) >= 2)
    for c in d.cross:
        c.start_s = 0.1
    text = lab_space.to_toml(d).replace('duration = "12s"', 'duration = "0.5s"')
    path = tmp_path / "tiny.toml"
    path.write_text(text)
    results = pathpool.run(str(path))
    assert (results.flows.bytes_delivered > 0).all()
    sent = {row.name: row.bytes_sent for row in results.links.itertuples()}
    expected = [d.main_paths()[0]] + [c.path for c in d.cross]
    for (flow, delivered), i in zip(results.flows[["name", "bytes_delivered"]].itertuples(index=False), expected):
        assert sent[f"path{i}:l{i}>r{i}"] >= delivered, flow


# --- The comparison (validation/crossval_compare.py) and --lab-runs K: synthetic per-run figures, nothing run. ---

import json  # noqa: E402
import math  # noqa: E402

import crossval_compare as cc  # noqa: E402
import lab_crossval_random as suite  # noqa: E402


def flow(goodput_mbps: float = 10.0, size: int | None = None, fct: float | None = None, name: str = "main") -> dict:
    """One run's figures of a flow, as the suite caches them: bulk unless `size`; complete when `fct` is given."""
    return {"name": name, "size": size, "start_s": 0.0, "completed": fct is not None, "fct_s": fct,
            "goodput_bps": goodput_mbps * 1e6, "bytes_delivered": 0, "srtt_ms": 20.0, "cwnd_kb": 50.0,
            "retransmits": 3, "segments": 100}


def test_one_kernel_run_compares_as_the_suite_always_did():
    c = cc.compare(flow(11.0), [flow(10.0)])
    assert (c["metric"], c["within"], c["beyond"]) == ("goodput", True, False) and c["delta"] == pytest.approx(0.1)
    c = cc.compare(flow(size=10**6, fct=1.0), [flow(size=10**6, fct=2.0)])
    assert (c["metric"], c["within"], c["beyond"]) == ("fct", False, True) and c["delta"] == pytest.approx(-0.5)
    c = cc.compare(flow(3.0, size=10**6), [flow(4.0, size=10**6)])
    assert c["metric"] == "goodput (incomplete on both)" and c["delta"] == pytest.approx(-0.25)
    assert cc.compare(flow(size=10**6, fct=1.0), [flow(size=10**6)]) == {
        "metric": "incomplete on lab only", "delta": None, "within": False, "beyond": True}
    assert cc.compare(flow(size=10**6), [flow(size=10**6, fct=1.0)])["metric"] == "incomplete on sim only"


def test_the_kernel_reference_is_the_median_of_its_runs():
    # fct runs 1.2, 2.0, 1.0: the median 1.2 (the mean 1.4 or the first run would give other answers).
    runs = [flow(size=10**6, fct=t) for t in (1.2, 2.0, 1.0)]
    c = cc.compare(flow(size=10**6, fct=1.0), runs)
    assert c["metric"] == "fct" and c["delta"] == pytest.approx(-1 / 6)
    assert (c["within"], c["beyond"]) == (False, False)
    assert cc.reference(runs, "fct") == pytest.approx(1.2)
    # An even number of runs: the mean of the middle two.
    c = cc.compare(flow(13.0), [flow(g) for g in (40.0, 10.0, 14.0, 12.0)])
    assert c["delta"] == pytest.approx(0.0) and c["within"]


def test_leave_one_out_compares_each_run_with_the_median_of_the_others():
    loo = cc.leave_one_out([flow(g) for g in (10.0, 12.0, 20.0)])
    assert [c["delta"] for c in loo] == pytest.approx([10 / 16 - 1, 12 / 15 - 1, 20 / 11 - 1])
    assert cc.tally(loo) == {"within": 0, "of": 3, "beyond": 1, "share": 0.0}
    # Two runs: each against the other alone (with itself in the median, both would be ±1/3).
    assert [c["delta"] for c in cc.leave_one_out([flow(10.0), flow(20.0)])] == pytest.approx([-0.5, 1.0])
    close = cc.leave_one_out([flow(g) for g in (10.0, 10.5, 11.0)])
    assert cc.tally(close) == {"within": 3, "of": 3, "beyond": 0, "share": 1.0}
    assert cc.worst(close)["delta"] == pytest.approx(11 / 10.25 - 1)  # +7.3 %, against −7.0 % and 0
    with pytest.raises(ValueError):
        cc.leave_one_out([flow(10.0)])


def test_a_flow_complete_on_some_kernel_runs_only_counts_outside_both_tolerances_on_both_sides():
    runs = [flow(size=10**6, fct=1.5), flow(size=10**6, fct=1.7), flow(1.0, size=10**6)]
    c = cc.compare(flow(size=10**6, fct=1.6), runs)
    assert c == {"metric": "complete on 2 of 3 kernel runs", "delta": None, "within": False, "beyond": True}
    loo = cc.leave_one_out(runs)
    assert [c["metric"] for c in loo] == ["complete on 1 of 2 kernel runs"] * 2 + ["incomplete on this kernel run only"]
    assert cc.tally(loo) == {"within": 0, "of": 3, "beyond": 3, "share": 0.0}
    assert cc.worst(loo + [cc.compare(flow(10.0), [flow(100.0)])])["delta"] is None
    # Incomplete on every kernel run: compared by goodput against the median, or incomplete on the lab only.
    runs = [flow(g, size=10**6) for g in (2.0, 3.0, 4.0)]
    assert cc.compare(flow(3.3, size=10**6), runs)["delta"] == pytest.approx(0.1)
    assert cc.compare(flow(size=10**6, fct=1.0), runs)["metric"] == "incomplete on lab only"


# random-1-000 has two bulk flows (main, cross0). Per-run goodputs (Mb/s) chosen so that every share is known:
#   main:   sim 10, kernel 10 / 11 / 14 → median 11, Δ −9.1 % (within); leave-one-out −20 %, −8.3 %, +33 %
#   cross0: sim 20, kernel 30 / 31 / 32 → median 31, Δ −35.5 %;          leave-one-out −4.8 %, 0, +4.9 %
SIM = {"main": 10.0, "cross0": 20.0}
LAB = [{"main": 10.0, "cross0": 30.0}, {"main": 11.0, "cross0": 31.0}, {"main": 14.0, "cross0": 32.0}]
# The kernel run with the cross flow's access links longer (--cross-shift-us): main +4.5 % (within), cross0 +29 %.
SHIFTED = {"main": 11.5, "cross0": 40.0}


def cached(figures: dict) -> dict:
    return {"plane": "x", "load_before": [1.0, 1.0, 1.0], "flows": [flow(g, name=n) for n, g in figures.items()]}


@pytest.fixture
def suite_dir(tmp_path, monkeypatch):
    """The suite's output under tmp_path, the simulator's and lab runs 0 and 1 of random-1-000 cached there;
    a lab run (a child process) is faked: it writes LAB[run] to the cache file of the run it was asked for, or
    SHIFTED for the scenario's copy with its cross flows' access links longer (recorded as "shifted")."""
    monkeypatch.setattr(suite, "OUT", tmp_path)
    d = lab_space.draw(1, 0)
    path = tmp_path / "scenarios" / f"{d.name}.toml"
    path.parent.mkdir(parents=True)
    path.write_text(lab_space.to_toml(d))
    (tmp_path / "cache").mkdir()
    suite.cache_file(path, "sim").write_text(json.dumps(cached(SIM)))
    for r in (0, 1):
        suite.cache_file(path, "lab", r).write_text(json.dumps(cached(LAB[r])))
    children = []

    class Child:
        def __init__(self, argv, **_):
            assert argv[2] == "--measure" and argv[4] == "--measure-run"
            target, run = Path(argv[3]), int(argv[5])
            assert target == path or target.name == f"{d.name}.cross+50us.toml"
            children.append(run if target == path else "shifted")
            suite.cache_file(target, "lab", run).write_text(json.dumps(cached(LAB[run] if target == path else SHIFTED)))
            self.returncode = 0

        def communicate(self, timeout=None):
            return None, ""

    monkeypatch.setattr(suite.subprocess, "Popen", Child)
    return tmp_path, path, children


def test_lab_run_r_is_cached_beside_run_0_whose_name_is_unchanged(tmp_path, monkeypatch):
    monkeypatch.setattr(suite, "OUT", tmp_path)
    path = tmp_path / "random-1-000.toml"
    path.write_text(lab_space.to_toml(lab_space.draw(1, 0)))
    zero, two = suite.cache_file(path, "lab"), suite.cache_file(path, "lab", 2)
    assert zero == suite.cache_file(path, "lab", 0) and zero.parent == two.parent
    stem, plane, key, ext = zero.name.split(".")
    assert (stem, plane, len(key), ext) == ("random-1-000", "lab", 16, "json")
    assert two.name == f"random-1-000.lab.{key}.run2.json"


def test_a_changed_lab_build_or_kernel_is_a_new_lab_cache_key_and_leaves_the_simulators(tmp_path, monkeypatch):
    monkeypatch.setattr(suite, "OUT", tmp_path)
    path = tmp_path / "random-1-000.toml"
    path.write_text(lab_space.to_toml(lab_space.draw(1, 0)))
    lab, sim = suite.cache_file(path, "lab"), suite.cache_file(path, "sim")
    assert suite.lab_id().startswith(pathpool._core.lab_build())
    monkeypatch.setattr(suite, "lab_id", lambda: "another-emulator")
    assert suite.cache_file(path, "lab") != lab
    assert suite.cache_file(path, "sim") == sim


def test_one_lab_run_reads_run_0_only_and_keeps_the_table(suite_dir):
    out, _, children = suite_dir
    assert suite.main(["--n", "1", "--seed", "1"]) == 0
    assert children == []
    result = json.loads((out / "results.json").read_text())
    assert (result["within"], result["flows"], result["beyond"]) == (1, 2, 0) and "kernel_loo" not in result
    assert [r["delta"] for r in result["rows"]] == pytest.approx([0.0, 20 / 30 - 1])
    assert (out / "table.md").read_text().splitlines()[0] == "| " + " | ".join(suite.HEADERS_ONE_RUN) + " |"


def test_k_lab_runs_make_only_the_missing_runs_and_report_both_figures(suite_dir):
    out, _, children = suite_dir
    assert suite.main(["--n", "1", "--seed", "1", "--lab-runs", "3"]) == 0
    assert children == [2], "runs 0 and 1 were cached"
    result = json.loads((out / "results.json").read_text())
    assert (result["within"], result["flows"], result["beyond"], result["lab_runs"]) == (1, 2, 0, 3)
    assert result["kernel_loo"] == {"within": 4, "of": 6, "beyond": 0}
    main, cross = result["rows"]
    assert main["delta"] == pytest.approx(10 / 11 - 1) and main["lab_median"] == pytest.approx(11e6)
    assert cross["delta"] == pytest.approx(20 / 31 - 1) and not cross["within"]
    assert [c["delta"] for c in main["kernel_loo"]] == pytest.approx([10 / 12.5 - 1, 11 / 12 - 1, 14 / 10.5 - 1])
    table = (out / "table.md").read_text()
    assert "| main | TCP bbr bulk | goodput | 10.00 Mb/s | 10.00 / 11.00 / 14.00 Mb/s | 11.00 | -9.1 % | +33.3 % |" in table
    assert "4 of 6 (flow, run) pairs within 15% (66.7 %), 0 beyond 40%" in table
    # Cached now: a second suite runs nothing; --rerun 0 makes run 0 again, and only run 0.
    assert suite.main(["--n", "1", "--seed", "1", "--lab-runs", "3"]) == 0 and children == [2]
    assert suite.main(["--n", "1", "--seed", "1", "--lab-runs", "3", "--rerun", "0"]) == 0 and children == [2, 0]


def test_a_cross_shifted_kernel_run_is_compared_with_the_median_of_the_unshifted_ones(suite_dir):
    out, _, children = suite_dir
    assert suite.main(["--n", "1", "--seed", "1", "--lab-runs", "3", "--cross-shift-us", "50"]) == 0
    assert children == [2, "shifted"]
    shifted = tomllib.loads((out / "scenarios" / "random-1-000.cross+50us.toml").read_text())
    assert [link["delay"] for link in shifted["links"] if link["a"].startswith("xc") or link["b"].startswith("xs")] == ["0.55ms"] * 2
    result = json.loads((out / "results.json").read_text())
    assert (result["cross_shift_us"], result["cross_shift"], result["sim_on_shifted_flows"]) == (
        50, {"within": 1, "of": 2, "beyond": 0}, {"within": 1, "of": 2, "beyond": 0})
    main, cross = result["rows"]
    assert main["cross_shift"]["delta"] == pytest.approx(11.5 / 11 - 1) and cross["cross_shift"]["delta"] == pytest.approx(40 / 31 - 1)
    assert ("kernel with the cross flows' access links 50 µs longer (their RTT 200 µs longer) vs the median of the unshifted "
            "kernel runs, on the 1 scenarios with cross flows: 1 of 2 flows within 15% (50.0 %), 0 beyond 40%; the simulator "
            "on the same flows: 1 of 2 (50.0 %), 0 beyond; the kernel vs itself on them: 4 of 6") in (out / "table.md").read_text()


def test_the_cross_shift_copy_lengthens_only_the_cross_flows_access_links(tmp_path):
    for d in DRAWS:
        plain, shifted = tomllib.loads(lab_space.to_toml(d)), tomllib.loads(lab_space.to_toml(d, cross_shift_us=50))
        assert {k: v for k, v in plain.items() if k != "links"} == {k: v for k, v in shifted.items() if k != "links"}
        for a, b in zip(plain["links"], shifted["links"]):
            cross = a["a"].startswith("xc") or a["b"].startswith("xs")
            assert b == ({**a, "delay": "0.55ms"} if cross else a)
        path = tmp_path / f"{d.name}.cross.toml"
        path.write_text(lab_space.to_toml(d, cross_shift_us=50))
        assert pathpool.validate(str(path)) == d.name


def test_bad_lab_runs_and_rerun_are_refused(suite_dir):
    for argv in (["--lab-runs", "0"], ["--rerun", "1"], ["--cross-shift-us", "-1"]):
        with pytest.raises(SystemExit):
            suite.main(["--n", "1", *argv])


def test_the_lab_child_writes_the_run_it_is_given(suite_dir, monkeypatch):
    _, path, _ = suite_dir
    made = []
    monkeypatch.setattr(suite, "run_and_cache", lambda p, plane, cached: made.append((p, plane, cached)))
    assert suite.main(["--measure", str(path), "--measure-run", "2"]) == 0
    assert suite.main(["--measure", str(path)]) == 0
    assert made == [(path, "lab", suite.cache_file(path, "lab", 2)), (path, "lab", suite.cache_file(path, "lab"))]
