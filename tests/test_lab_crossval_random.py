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
    """--sim-kernel-like: the same network and flows, with cwnd_limited growth on every flow, CUBIC's constant
    Reno-friendly α and MPTCP's linger scheduler."""
    for d in DRAWS:
        plain, kernel_like = tomllib.loads(lab_space.to_toml(d)), tomllib.loads(lab_space.to_toml(d, kernel_like=True))
        for a, b in zip(plain["flows"], kernel_like["flows"]):
            params = {"cc_params": {"reno_alpha": "linux"}} if a["tcp"]["cc"] == "cubic" else {}
            assert b["tcp"] == {**a["tcp"], "cwnd_growth": "cwnd_limited", **params}
            if "mptcp" in a:
                assert b["mptcp"] == {**a["mptcp"], "scheduler": "linger"}
            assert {k: v for k, v in a.items() if k not in ("tcp", "mptcp")} == {k: v for k, v in b.items() if k not in ("tcp", "mptcp")}
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
