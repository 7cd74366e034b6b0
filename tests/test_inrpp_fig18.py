"""Fig. 18's drop-free frontier (validation/inrpp_fig18_frontier.py): the
offered load, the frontier rule, and one run at each side of the paper's
1 MB with flows 4.2 s apart (docs/reproductions/inrpp.md, "Fig. 18's
drop-free frontier")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "validation"))
import inrpp_fig18_frontier as fig18  # noqa: E402


def test_offered_load_is_one_near_4_14_s():
    # 80 Mb of payload per flow over 2 x 10 Mb/s x 1448/1500.
    assert fig18.offered_load(1) == pytest.approx(4.1436, abs=1e-4)
    assert fig18.offered_load(80e6 / (20e6 * 1448 / 1500)) == pytest.approx(1.0)


def test_drop_free_from_needs_every_larger_size_clean():
    rows = lambda drops: [{"cache_mb": c, "drops": d} for c, d in zip((0.5, 1, 2, 5), drops)]  # noqa: E731
    assert fig18.drop_free_from(rows([9, 0, 0, 0])) == 1
    # A clean size below a dropping one does not count.
    assert fig18.drop_free_from(rows([0, 3, 0, 0])) == 2
    assert fig18.drop_free_from(rows([0, 0, 0, 7])) is None
    assert fig18.drop_free_from(rows([0, 0, 0, 0])) == 0.5


def test_flows_4_2_s_apart_drop_at_half_a_megabyte_and_not_at_one(tmp_path):
    small = fig18.measure(4.2, 0.5, "nonce", tmp_path)
    paper = fig18.measure(4.2, 1, "nonce", tmp_path)
    assert small["drops"] > 1000 and small["done"] == 100
    assert paper["drops"] == 0 and paper["done"] == 100
    assert paper["afct_s"] < small["afct_s"]
