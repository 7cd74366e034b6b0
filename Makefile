# pathpool — the two commands of the README, and a few more.
#   make run    set up .venv, build, run the built-in default scenario, print a summary, write results and a plot
#   make test   set up .venv, build, run every Rust and Python test
VENV     := .venv
PY       := $(VENV)/bin/python
SCENARIO ?= default
OUT      ?= results/$(SCENARIO)
MATURIN  := VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin

.PHONY: run test install bpf-toolchain chromium tshark dnsmasq bench validate crossval lab-crossval lab-crossval-random inrpp inrpp-multihomed inrpp-sensitivity inrpp-table1 inrpp-fig18 inrpp-hierarchical inrpp-rocketfuel inrpp-all green smptcp emptcp pat fuzz clean

# The virtualenv with pathpool (editable) and its Python dependencies.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip 'maturin>=1.7,<2'
	$(MATURIN) develop --release -E test
	touch $@

# The kernel lab's BPF Westwood+ is built from source (crates/lab/build.rs) with
# clang, libbpf's headers and bpftool (which also registers it at run time):
# Debian's packages, installed here when missing and root; otherwise the lab
# refuses tcp.cc = "westwood", naming what is missing (docs/lab.md).
BPF_TOOLS_MISSING := $(shell command -v clang >/dev/null || echo clang; test -f /usr/include/bpf/bpf_helpers.h || echo libbpf-dev; command -v bpftool >/dev/null || test -x /usr/sbin/bpftool || echo bpftool)
bpf-toolchain:
ifneq ($(strip $(BPF_TOOLS_MISSING)),)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get install -y $(BPF_TOOLS_MISSING) || { apt-get update && apt-get install -y $(BPF_TOOLS_MISSING); } || echo "warning: could not install $(BPF_TOOLS_MISSING): the lab will refuse tcp.cc = \"westwood\""; \
	else \
		echo "warning: missing $(BPF_TOOLS_MISSING) (install as root: apt-get install -y $(BPF_TOOLS_MISSING)): the lab will refuse tcp.cc = \"westwood\""; \
	fi
endif

# The HTML report's test (tests/test_report.py) opens the report in a real headless
# browser: Debian's chromium, driven by Playwright (whose own browser download is not
# used). Installed here when missing and root; otherwise that test skips, saying so.
CHROMIUM_MISSING := $(shell command -v chromium >/dev/null || echo chromium)
chromium:
ifneq ($(CHROMIUM_MISSING),)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get install -y chromium || { apt-get update && apt-get install -y chromium; } || echo "warning: could not install chromium: the HTML report's browser test will skip"; \
	else \
		echo "warning: chromium missing (install as root: apt-get install -y chromium): the HTML report's browser test will skip"; \
	fi
endif

# The pcap export's test (tests/test_pcap.py) also reads the files with tshark: Debian's,
# installed here when missing and root, with wireshark-common's setuid question answered
# "no" beforehand so that it installs without asking; otherwise that test skips, saying so.
TSHARK_MISSING := $(shell command -v tshark >/dev/null || echo tshark)
tshark:
ifneq ($(TSHARK_MISSING),)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y tshark || { apt-get update && apt-get install -y tshark; } || \
			echo "warning: could not install tshark: the pcap test's tshark check will skip"; \
	else \
		echo "warning: tshark missing (install as root: apt-get install -y tshark): the pcap test's tshark check will skip"; \
	fi
endif

# The kernel lab's DNS resolvers are Debian's dnsmasq (crates/lab/src/dns/server.rs),
# installed here when missing and root; otherwise the lab refuses [[resolvers]],
# naming the package (docs/dns.md).
DNSMASQ_MISSING := $(shell command -v dnsmasq >/dev/null || test -x /usr/sbin/dnsmasq || echo dnsmasq-base)
dnsmasq:
ifneq ($(DNSMASQ_MISSING),)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y dnsmasq-base || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y dnsmasq-base; } || echo "warning: could not install dnsmasq-base: the lab will refuse [[resolvers]]"; \
	else \
		echo "warning: dnsmasq missing (install as root: apt-get install -y dnsmasq-base): the lab will refuse [[resolvers]]"; \
	fi
endif

# Rebuilds the Rust extension in place (quick when nothing changed).
install: bpf-toolchain chromium tshark dnsmasq $(VENV)/.installed
	$(MATURIN) develop --release --skip-install

run: install
	$(VENV)/bin/pathpool run $(SCENARIO) --out $(OUT) --force --plot

test: install
	cargo test --release --workspace --exclude pathpool-py
	$(PY) -m pytest -q
	@# The kernel lab's tests must leave no namespace behind (pathpool lab clean removes crash leftovers).
	@if ip netns list 2>/dev/null | grep '^pp-'; then echo "error: kernel-lab namespaces left behind (above)"; exit 1; fi

# Speed: pathpool vs the ns-3 and htsim anchors on two dumbbells, side by side (docs/performance.md).
# Builds both anchors into ~/.cache/pathpool-anchors if missing; peak RSS needs GNU time (/usr/bin/time).
bench: install
	cargo build --release -p pathpool-sim
	$(PY) bench/dumbbell.py --workload all --repeat 3

# Scaling curve: load, set-up, event loop, process wall time and peak RSS of the Rust core
# against 10 ... 100 000 long flows on a 1 Gb/s dumbbell, with the log-log slope
# (docs/performance.md); the table on stdout, results/bench-scale/scale.json and scale.png.
# About two minutes on a quiet 2-core machine; not part of make test.
.PHONY: bench-scale
bench-scale: install
	cargo build --release -p pathpool-sim
	$(PY) bench/scale.py --repeat 3 --json results/bench-scale/scale.json --plot results/bench-scale/scale.png

# Scaling curve: 10^3 ... 10^6 short downloads arriving over time (Poisson, 2 000/s of 20 kB on
# a 1 Gb/s dumbbell, load 0.32): time per phase, peak RSS of the run and of the model alone,
# events per flow (docs/performance.md); results/bench-scale/arrivals.json and arrivals.png.
# About ten minutes on a quiet 2-core machine, most of it the 10^6 run; not part of make test.
.PHONY: bench-arrivals
bench-arrivals: install
	cargo build --release -p pathpool-sim
	$(PY) bench/arrivals_scale.py --json results/bench-scale/arrivals.json --plot results/bench-scale/arrivals.png

# Scaling curve against the topology's size: one long flow per host on FatTree(k), k = 4 ... 32,
# and on six Rocketfuel maps with 2 hosts per edge router (docs/performance.md);
# results/bench-scale/topology.json and topology.png. A few minutes; not part of make test.
.PHONY: bench-topology
bench-topology: install
	cargo build --release -p pathpool-sim
	$(PY) bench/topology_scale.py --json results/bench-scale/topology.json --plot results/bench-scale/topology.png

# Data-centre scale: FatTree permutations (TCP, MPTCP with 8 subflows) on pathpool and on htsim's
# own datacenter program (main_tcp.cpp, built into ~/.cache/pathpool-anchors/htsim-fattree if
# missing), side by side with ratios (docs/performance.md). A few minutes on a quiet 2-core machine.
.PHONY: bench-fattree
bench-fattree:
	cargo build --release -p pathpool-sim
	python3 bench/fattree.py --k 4 8 --json results/bench-fattree/fattree.json

# Validation figures against closed-form models and the congestion controls'
# papers and RFCs (docs/validation.md).
validate:
	cargo test --release -p pathpool-sim --test tcp_validation --test cc_validation --test rcp --test inrpp --test inrpp_multihomed -- --nocapture --test-threads=1 2>&1 | grep -oE '(FIGURE|test result).*'

# Congestion control against ns-3 3.44, side by side (docs/validation.md). Long: about
# 15 minutes on 2 cores (ns-3 takes 4 of them for BBR with 10 flows at 100 Mb/s);
# finished rows are cached in results/crossval/cache.json, so an interrupted run
# resumes. CROSSVAL_ARGS=--quick runs the 8 fast rows (10 Mb/s, 1 and 2 flows).
crossval: $(VENV)/.installed
	$(PY) validation/ns3_crossval.py --json results/crossval/crossval.json $(CROSSVAL_ARGS)

# The simulator against the real Linux stack: validation/lab/*.toml on both planes,
# side by side (docs/validation.md). Needs root; about 3 minutes of real time.
# Each plane's result is cached under results/lab-crossval/, keyed on that plane's build (--fresh reruns).
lab-crossval: install
	$(PY) validation/lab_crossval.py --markdown results/lab-crossval/table.md

# The simulator against the real Linux stack on N random scenarios drawn with SEED from
# validation/lab_space.py's space (1-3 paths, 5-200 Mb/s, 2-100 ms one way, loss 0-1 %,
# 0-2 CUBIC/BBR/Reno cross flows, MPTCP or TCP, sized or bulk; docs/validation.md), each run
# on both planes and compared flow by flow. Needs root; 12 s of model time per scenario,
# about 20-30 s of real time each (10-15 minutes for 30). Scenario files under
# results/lab-crossval-random/scenarios/ (rerun one with pathpool run FILE --plane lab);
# each plane's result cached under results/lab-crossval-random/cache/, so a run resumes;
# LAB_RANDOM_ARGS="--rerun I" measures scenario I's lab plane again.
# LAB_RANDOM_ARGS="--lab-runs K" runs each lab plane K times (run 0 is the cached run above, the
# others cached beside it): the simulator against the median of the K kernel runs, beside the
# kernel's own spread (each run against the median of the others). K x ~20 s per scenario, idle.
# LAB_RANDOM_ARGS="--cross-shift-us D" adds a kernel run of each scenario with cross flows, their
# access links D µs longer, against the median of the others (docs/validation.md, "Phase effects").
N    ?= 30
SEED ?= 1
lab-crossval-random: install
	$(PY) validation/lab_crossval_random.py --n $(N) --seed $(SEED) $(LAB_RANDOM_ARGS)

# INRPP's dumbbell with a detour (Fig. 8): the paper's Table V, Fig. 9 and
# backpressure timeline beside pathpool's (docs/reproductions/inrpp.md). Seconds.
inrpp:
	python3 validation/inrpp_paper.py

# INRPP's multihomed topology (Fig. 13): Fig. 14's AFCT by flow size and Table VI's
# Jain's index for TCP, RCP, MPTCP and INRPP, E[L] = 30 and 500 packets, beside the
# paper (docs/reproductions/inrpp.md, multihomed). Seconds. INRPP_MH_ARGS=--seeds=1,2,3
# averages over seeds.
inrpp-multihomed:
	python3 validation/inrpp_multihomed.py $(INRPP_MH_ARGS)

# INRPP's cache sensitivity (Fig. 18: 100 flows, caches 0.5-20 MB, two arrival patterns)
# and TCP friendliness (Fig. 19: 50 INRPP + 50 TCP vs 100 TCP), each with both hold rules
# and with timeouts that keep the loop closed, beside the paper (docs/reproductions/inrpp.md).
# About five minutes on one core; INRPP_SENS_ARGS=--full adds caches, flows 10 ms apart and
# a 200 s Fig. 19 (about 20 minutes).
inrpp-sensitivity:
	python3 validation/inrpp_sensitivity.py $(INRPP_SENS_ARGS)

# INRPP's Table I: one-hop detours in nine Rocketfuel ISPs (the .r0.cch maps), the paper's
# rows beside pathpool's census, and the other map variants where a cell differs by more
# than a point (docs/reproductions/inrpp.md). A second or two.
inrpp-table1: install
	$(PY) validation/inrpp_table1.py

# INRPP's Fig. 18 as a frontier: flow spacing (1-6 s) x cache size (0.1-50 MB), the smallest
# drop-free cache for each spacing beside the paper's 1 MB; results/inrpp-fig18/report.md and
# frontier.png. 108 runs one at a time, about 10 minutes of CPU on one core; finished runs are
# cached in results/inrpp-fig18/cache.jsonl (an interrupted run resumes, INRPP_FIG18_ARGS=--fresh
# starts over, --dense runs 25 spacings x 14 sizes, 350 runs, about 35 minutes).
inrpp-fig18: install
	$(PY) validation/inrpp_fig18_frontier.py $(INRPP_FIG18_ARGS)

# INRPP's hierarchical (transit-stub) topology (Fig. 15): Fig. 16's AFCT by flow size for TCP,
# RCP, MPTCP and INRPP, 6000 flows of E[L] = 125 packets, seeds 1-3, beside the paper's claims
# and issue 19's acceptance (docs/reproductions/inrpp.md); results/inrpp-hierarchical/report.md
# and afct.png. 12 runs, about two minutes; finished runs are cached in
# results/inrpp-hierarchical/cache.jsonl (INRPP_HIER_ARGS=--fresh starts over).
INRPP_HIER_ARGS ?= --seeds 1,2,3
inrpp-hierarchical: install
	$(PY) validation/inrpp_hierarchical.py $(INRPP_HIER_ARGS)

# INRPP's Rocketfuel experiment (section IV-D): Fig. 17 (AFCT by flow size, link-utilisation
# histogram) and Table VII for TCP, RCP, MPTCP and INRPP on the built-in inrpp-rocketfuel (rho = 0.8
# of each edge router's 100 Mb/s edge link), and the mean utilisation against rho for TCP and INRPP,
# beside the paper (docs/reproductions/inrpp.md, Rocketfuel); results/inrpp-rocketfuel/report.md,
# fig17.png and sensitivity.png. Ten runs one at a time; finished runs are cached in
# results/inrpp-rocketfuel/cache.jsonl (an interrupted run resumes, INRPP_RF_ARGS=--fresh starts over).
inrpp-rocketfuel: install
	$(PY) validation/inrpp_rocketfuel.py $(INRPP_RF_ARGS)

# Every INRPP reproduction above, one after the other.
inrpp-all: inrpp inrpp-multihomed inrpp-sensitivity inrpp-table1 inrpp-fig18 inrpp-hierarchical inrpp-rocketfuel

# The paper harnesses below (green, smptcp, emptcp, pat) share one run cache,
# validation/cache.py: a run's key holds its parameters, the measuring function and the
# simulator build (a digest of pathpool._core), so after a rebuild every run is done again.

# Green MPTCP (docs/reproductions/green.md): Scenario 1, Table 1 on two networks,
# energy for a fixed volume, the primary's queue depth, Fig. 3, and (as root) the
# kernel lab's Rules 1 + 3 beside the simulator. About 4 minutes on 2 cores, 5 more for the lab;
# finished runs are cached in results/green/cache.jsonl (an interrupted run resumes,
# GREEN_ARGS=--fresh starts over, --seeds N for fewer seeds).
green: install
	$(PY) validation/green_paper.py $(if $(filter 0,$(shell id -u)),--lab) $(GREEN_ARGS)

# S-MPTCP (docs/reproductions/smptcp.md, issue 21): Figs. 4-5 (aggregation, eq. 1),
# Figs. 8-9 (an hour of 1080p60 video, Wi-Fi rates calibrated for legacy's bytes) and
# Figs. 6-7 (12 h of radio energy), the baselines beside the paper; S-MPTCP rows are
# "pending" until the smptcp controller validates. About 20 minutes (250 runs, one at a time); finished
# runs are cached in results/smptcp/cache.jsonl (an interrupted run resumes,
# SMPTCP_ARGS=--fresh starts over, --quick runs a subset in about a minute). The report is
# results/smptcp/report.md. As root it adds --lab: a 10-minute video and two download rows on
# the kernel lab beside the simulator, both with uncoupled CUBIC (about 27 minutes of real time).
smptcp: install
	$(PY) validation/smptcp_paper.py $(if $(filter 0,$(shell id -u)),--lab) $(SMPTCP_ARGS)

# eMPTCP (docs/reproductions/emptcp.md, issue 22): the weight manager's fixed point on a
# wired bottleneck, Tables II/III and Figs. 12-17 on the cellular model, beside the paper.
# About a minute on 2 cores; writes results/emptcp/report.md. Finished runs are cached in
# results/emptcp/cache.jsonl (validation/cache.py). EMPTCP_ARGS=--seeds N, --fresh.
emptcp: install
	$(PY) validation/emptcp_paper.py $(EMPTCP_ARGS)

# PAT (docs/reproductions/pat.md, issue 16): Fig. 10 (three UEs walking past a building through the cell
# model, UE1 with PAT on 5G + Wi-Fi), Fig. 11 (five mirrors with changing RTTs, 4-128 MB
# downloads with PAT, the default policy and MPTCP), Figs. 12-13 (a synthetic population of 50 domains
# calibrated to Figs. 7-9, 50 trials each), Fig. 14 (page load time: HTTP Archive's median page on the
# population's networks, PAT against a browser's 6 connections per server) and Fig. 15 (overhead against
# probe period and connections), beside the paper. About 1-2.5 minutes on 2 cores (5886 runs); finished runs
# are cached in results/pat/cache.jsonl (an interrupted run resumes, PAT_ARGS=--fresh starts over, --quick
# runs a subset in about 17 s into report-quick.md). Writes results/pat/report.md and plots.
pat: install
	$(PY) validation/pat_paper.py $(PAT_ARGS)

# The scenario fuzzer's long form (tests/fuzz_scenarios.py; make test runs 400 mutants):
# 5000 mutants of every built-in and validation scenario, each refused cleanly or run
# for 1 s, none may panic, exceed 2 GB or hang. About 2 minutes.
fuzz:
	cargo build --release -p pathpool-sim
	python3 tests/fuzz_scenarios.py --mutants 5000 $(FUZZ_ARGS)

clean:
	rm -rf $(VENV) target results
