"""Fig. 16's harness (validation/inrpp_hierarchical.py): the size classes,
the scenario edits per transport, and the acceptance rule of issue 19 (INRPP
below every other transport in every class where each completed at least 30
flows; docs/reproductions/inrpp.md, "Hierarchical topology")."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "validation"))
import inrpp_hierarchical as hier  # noqa: E402


def test_size_classes_are_1_3_10_steps_in_packets_of_1448_bytes():
    assert hier.size_class(1) == 0
    assert hier.size_class(9 * 1448) == 0
    assert hier.size_class(9 * 1448 + 1) == 1  # ten packets
    assert hier.size_class(30 * 1448) == 2
    assert hier.label(2) == "30-99"


def test_variants_switch_transport_and_routers():
    tcp = hier.variant("TCP", 10, "5s")
    assert 'transport = "tcp"' in tcp and "[routers]" not in tcp and "flows = 10" in tcp and 'duration = "5s"' in tcp
    rcp = hier.variant("RCP", 10, "5s")
    assert 'transport = "rcp"' in rcp and 'module = "rcp"' in rcp
    assert 'module = "inrpp"' in hier.variant("INRPP", 10, "5s")
    mptcp = hier.variant("MPTCP", 10, "5s")
    assert 'transport = "mptcp"' in mptcp and "[routers]" not in mptcp


def run(per_class: dict[int, tuple[int, float]]) -> dict:
    """A fake run: `count` completed flows of `fct` seconds in each class."""
    return {"flows": [[hier.EDGES[k] * hier.MSS, fct] for k, (count, fct) in per_class.items() for _ in range(count)]}


def test_acceptance_counts_only_classes_with_30_flows_done_by_each():
    others = run({1: (40, 1.0), 5: (5, 10.0)})
    # INRPP faster where there are 40 flows, slower in the class of 5: met.
    results = {t: [others] for t in ("TCP", "RCP", "MPTCP")} | {"INRPP": [run({1: (40, 0.5), 5: (5, 20.0)})]}
    text, met = hier.report(results, 45, "1s", [1])
    assert met and "MET" in text
    # Slower in the counted class: not met.
    results["INRPP"] = [run({1: (40, 1.5), 5: (5, 1.0)})]
    assert not hier.report(results, 45, "1s", [1])[1]
    # A tie is not "below".
    results["INRPP"] = [run({1: (40, 1.0), 5: (5, 1.0)})]
    assert not hier.report(results, 45, "1s", [1])[1]
