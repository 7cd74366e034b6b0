#!/usr/bin/env python3
"""Mutation fuzzing of the scenario loader (issue "Robustness and structure").

Takes the built-in scenarios and the validation scenarios, mutates each
many times (deleting keys, swapping types, negative, zero, huge and
non-finite numbers, Unicode and empty strings, out-of-range indices,
duplicated array entries), and runs every mutant through the Rust core's
own binary, ``pathpool-sim validate``, under a memory and time limit. A
mutant that validates is then run for 1 s of simulated time. A run that
panics, is killed (memory), or exceeds the time limit is a finding: its
scenario is written to ``results/fuzz/`` for a regression test.

Why this and not cargo-fuzz: the loader's input is structured TOML whose
interesting failures sit behind well-formed syntax (a valid file with an
absurd value); mutating real scenarios at the value level reaches them in
thousands of cases, needs no nightly toolchain, and runs the exact binary
users run, limits included.

Usage:  python tests/fuzz_scenarios.py [--mutants 5000] [--seed 1] [--bin target/release/pathpool-sim]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted((REPO / "python" / "pathpool" / "scenarios").glob("*.toml")) + sorted((REPO / "validation" / "lab").glob("*.toml"))
# The shared data (traces, maps) where it exists, so mutants of the scenarios that use it load.
DATA = REPO.parent / "shared" / "data"
ENV = {**os.environ, **({"PATHPOOL_DATA": str(DATA)} if DATA.is_dir() else {})}
MEMORY_BYTES = 2 << 30
TIMEOUT_S = 60

ODD_VALUES = [
    -1, 0, -1e308, 1e308, 2**63, -(2**63), 1e-12, float("nan"), float("inf"),
    "", "∞", "ñ", "🛰️", "x" * 300, "-5Mbps", "0s", "1e30s", "1ns", "NaN", "data:../../etc/passwd", "/dev/zero",
    True, [], {}, [1, 2], {"a": 1},
]


def leaves(doc, path=()):
    """Every (path, value) in a nested dict/list."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from leaves(v, path + (i,))
    yield path, doc


def parent(doc, path):
    for step in path[:-1]:
        doc = doc[step]
    return doc


def mutate(doc: dict, rng: random.Random) -> dict:
    """One to three random edits of a copy of ``doc``."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.choices([1, 2, 3], weights=[6, 3, 1])[0]):
        spots = [p for p, _ in leaves(doc) if p]
        if not spots:
            break
        path = rng.choice(spots)
        holder, key = parent(doc, path), path[-1]
        value = holder[key]
        op = rng.random()
        if op < 0.15 and isinstance(holder, dict):
            del holder[key]
        elif op < 0.25 and isinstance(holder, list):
            holder.append(copy.deepcopy(value))
        elif op < 0.35 and isinstance(holder, dict):
            holder[key + "_typo" if isinstance(key, str) else key] = value
        elif op < 0.55 and isinstance(value, (int, float)) and not isinstance(value, bool):
            holder[key] = rng.choice([-value, value * 10**rng.randint(3, 12), 0, value / 1e9, -1, value * 2, value / 2])
        elif op < 0.7 and isinstance(value, str):
            holder[key] = rng.choice(["∞" + value, value[: max(0, len(value) - 2)], value.upper(), "-" + value, value + value])
        else:
            holder[key] = rng.choice(ODD_VALUES)
    return doc


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def run(binary: Path, args: list[str], text: str, workdir: Path) -> tuple[str, str]:
    """(outcome, output) of one pathpool-sim call on ``text``: ok, refused, or a finding."""
    path = workdir / "mutant.json"
    path.write_text(text)
    try:
        p = subprocess.run([str(binary), *args, str(path)], capture_output=True, text=True, timeout=TIMEOUT_S,
                           preexec_fn=limit_memory, cwd=workdir, env=ENV)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    out = p.stdout + p.stderr
    if "panicked" in out or p.returncode < 0 or p.returncode == 101:
        return "crash", out
    return ("ok" if p.returncode == 0 else "refused"), out


def capped(doc: dict) -> dict:
    """The mutant cut to 1 s of simulated time (the property: it runs without panic)."""
    doc = copy.deepcopy(doc)
    sim = doc.get("sim")
    if isinstance(sim, dict):
        sim["duration"] = "1s"
    return doc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutants", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "pathpool-sim")
    ap.add_argument("--out", type=Path, default=REPO / "results" / "fuzz")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    bases = [tomllib.loads(p.read_text()) for p in SOURCES]
    counts = {"ok": 0, "refused": 0, "crash": 0, "timeout": 0}
    findings = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for k in range(args.mutants):
            base = rng.randrange(len(bases))
            mutant = mutate(bases[base], rng)
            try:
                text = json.dumps(mutant, allow_nan=True)
            except (TypeError, ValueError):
                continue
            outcome, out = run(args.bin, ["validate"], text, work)
            if outcome == "ok":
                outcome, out = run(args.bin, ["run", "--json"], json.dumps(capped(mutant), allow_nan=True), work)
                outcome = "ok" if outcome in ("ok", "refused") else outcome
            counts[outcome] += 1
            if outcome in ("crash", "timeout"):
                findings.append((k, SOURCES[base].name, text, out[-2000:]))
            if (k + 1) % 250 == 0:
                print(f"\r  {k + 1}/{args.mutants} mutants: {counts}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"fuzz: {args.mutants} mutants of {len(SOURCES)} scenarios (seed {args.seed}): {counts}")
    if findings:
        args.out.mkdir(parents=True, exist_ok=True)
        for k, name, text, out in findings:
            (args.out / f"finding-{args.seed}-{k}.json").write_text(text)
            print(f"finding {k} (from {name}):\n{out}\n")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
