"""The ``pathpool`` command: run, validate and list scenarios, and plot results.

Errors in what the user gave (an invalid scenario, a missing file, an
existing results directory) are printed in red on stderr and exit with status
2, having written nothing.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from pathlib import Path

import click
import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import _core, api, plots, topology
from ._core import LabError, ScenarioError
from .results import FORMATS, Results, load
from .scenarios import builtin_scenarios

#: Flows listed in the summary after a run; the rest are in the flows table.
MAX_SUMMARY_FLOWS = 20

DATA_DIR_HELP = (f"Directory that 'data:' paths in the scenario point into "
                 f"[default: ${api.DATA_ENV}, else ../shared/data beside the repository].")


def _console(stderr: bool = False) -> Console:
    """A rich console on stdout (or stderr). Off a terminal, and unless $COLUMNS
    says otherwise, it is 120 columns wide rather than rich's 80, so that the
    flows table stays readable in logs."""
    console = Console(stderr=stderr, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 120
    return console


@contextlib.contextmanager
def _user_errors(*more: type[Exception]) -> Iterator[None]:
    """Turns errors in the user's input (and the ``more`` kinds) into a red
    message on stderr and exit status 2."""
    try:
        yield
    except (ScenarioError, LabError, FileNotFoundError, FileExistsError, *more) as error:
        console = _console(stderr=True)
        for line in str(error).splitlines():
            console.print(Text(line, style="red"), soft_wrap=True)
        raise click.exceptions.Exit(2) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(api.__version__, prog_name="pathpool")
def main() -> None:
    """pathpool: a multipath transport lab.

    Run a scenario (a TOML file, or the name of a built-in one) in the
    packet-level simulator; results are tables (Parquet or CSV) plus a
    summary, in a results directory.
    """


@main.command("run")
@click.argument("scenario")
@click.option("--out", "-o", "out_dir", required=True, type=click.Path(path_type=Path), metavar="DIR",
              help="Results directory to create.")
@click.option("--seed", type=click.IntRange(min=0), metavar="N", help="Seed instead of the scenario's sim.seed.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="parquet", show_default=True,
              help="File format of the result tables.")
@click.option("--force", is_flag=True, help="Replace the results directory if it already exists.")
@click.option("--plot", "with_plot", is_flag=True, help="Also draw the overview figure, OUT/plot.png.")
@click.option("--data-dir", type=click.Path(path_type=Path), metavar="DIR", help=DATA_DIR_HELP)
@click.option("--plane", type=click.Choice(api.PLANES), default="sim", show_default=True,
              help="Where to run: the simulator, or the kernel lab (root; real Linux MPTCP in network "
                   "namespaces with emulated links, in real time).")
@click.option("--pcap", metavar="LINK[,LINK]",
              help="Also write the packets crossing these scenario links to OUT/LINK.pcap (simulator only; "
                   "synthesized headers, no payload: docs/results.md).")
def run_command(scenario: str, out_dir: Path, seed: int | None, fmt: str, force: bool, with_plot: bool,
                data_dir: Path | None, plane: str, pcap: str | None) -> None:
    """Run SCENARIO and write its results to the directory OUT.

    SCENARIO is a scenario file or the name of a built-in scenario (see
    'pathpool scenarios'). The scenario is checked before anything runs; a
    progress bar appears if the run takes more than a second. With --plane
    lab, features the kernel lab cannot run are refused first, each named.
    """
    if pcap and plane != "sim":
        raise click.BadParameter("is for the simulator (--plane sim)", param_hint="--pcap")
    with _user_errors():
        api.validate(scenario, data_dir)
        try:
            results = api.run(scenario, seed=seed, out=out_dir, fmt=fmt, data_dir=data_dir,
                              progress=True, force=force, plane=plane, pcap=pcap)
        except KeyboardInterrupt:
            _console(stderr=True).print(Text("interrupted; no results written", style="red"))
            raise click.exceptions.Exit(130) from None
    console = _console()
    _print_summary(console, results)
    _warn_if_the_emulator_fell_behind(console, results)
    console.print(Text.assemble("results: ", (str(out_dir), "bold"), f" ({fmt})"))
    if pcap:
        for path in sorted(out_dir.glob("*.pcap")):
            console.print(Text.assemble("pcap:    ", (str(path), "bold")))
    if with_plot:
        console.print(Text.assemble("plot:    ", (str(plots.save_plot(results, out_dir / "plot.png")), "bold")))


def _seeds(text: str | None) -> list[int | None]:
    """``1,2,5`` or ``1-4`` (or both, ``1-3,7``) → the seeds; None → the scenario's own."""
    if not text:
        return [None]
    seeds: list[int | None] = []
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise click.BadParameter(f"{text!r}: expected seeds like 1,2,5 or 1-4")
        seeds.extend(range(int(low), int(high) + 1) if dash else [int(low)])
    return seeds


@main.command("sweep")
@click.argument("scenario")
@click.option("--set", "assignments", multiple=True, metavar="PATH=V1,V2,...",
              help="A scenario field and the values to try, e.g. tcp.cc=cubic,bbr or links[2].rate=10Mbps,50Mbps "
                   "(repeat for a grid).")
@click.option("--seeds", metavar="LIST", help="Seeds to run each combination with: 1,2,5 or 1-4 "
                                             "[default: the scenario's].")
@click.option("--out", "-o", "out_dir", required=True, type=click.Path(path_type=Path), metavar="DIR",
              help="Sweep directory: points/<id>/ per run, index.csv; rerunning resumes.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), metavar="N",
              help="Runs in parallel, locally or on --cluster local [default: CPUs].")
@click.option("--cluster", metavar="ADDRESS",
              help="Run the points on Dask: 'local' starts a LocalCluster of --jobs workers, tcp://HOST:8786 "
                   "uses a running scheduler (docs/sweep.md) [default: local processes, no Dask].")
@click.option("--plane", type=click.Choice(api.PLANES), default="sim", show_default=True,
              help="Where to run (the kernel lab runs one point at a time).")
@click.option("--data-dir", type=click.Path(path_type=Path), metavar="DIR", help=DATA_DIR_HELP)
def sweep_command(scenario: str, assignments: tuple[str, ...], seeds: str | None, out_dir: Path, jobs: int | None,
                  cluster: str | None, plane: str, data_dir: Path | None) -> None:
    """Run SCENARIO over a grid of field values and seeds, in parallel.

    Every combination of the --set values, for every seed, is run and written
    to DIR/points/<id>/ as a results directory; DIR/index.csv lists each
    point's parameters and headline numbers, and a table of means over the
    seeds is printed. Every point is checked before anything runs; a point
    that fails is tried once more. Run the same command again after an
    interruption or a failure: only the points without results run.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from . import sweep

    with _user_errors(ConnectionError):
        try:
            grid = dict(sweep.parse_assignment(a) for a in assignments)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--set") from None
        if cluster is not None and plane == "lab":
            raise click.BadParameter(sweep.LAB_ON_CLUSTER, param_hint="--cluster")
        console = _console()
        points = sweep.grid_points(grid, _seeds(seeds))
        progress = Progress(TextColumn("sweep [bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=_console(stderr=True), transient=True)
        task = progress.add_task(scenario, total=len(points))

        def done(point: sweep.Point, error: str | None) -> None:
            progress.advance(task)
            if error:
                progress.console.print(Text(f"failed: {point.label()}: {error}", style="red"))

        def retry(point: sweep.Point, error: str) -> None:
            progress.console.print(Text(f"failed, trying once more: {point.label()}: {error}", style="yellow"))

        try:
            with progress:
                outcome = sweep.run_sweep(scenario, grid, _seeds(seeds), out_dir, jobs=jobs, plane=plane,
                                          data_dir=data_dir, on_point_done=done, cluster=cluster,
                                          on_point_retry=retry)
        except ValueError as error:
            if isinstance(error, ScenarioError):
                raise
            raise click.BadParameter(str(error), param_hint="--set") from None
        except KeyboardInterrupt:
            _console(stderr=True).print(Text(f"interrupted; finished points are kept in {out_dir} "
                                             "(run the same command to resume)", style="red"))
            raise click.exceptions.Exit(130) from None
    console.print(_sweep_table(outcome.index, list(grid)))
    console.print(Text.assemble(f"{outcome.ran} point(s) run now, {len(points) - outcome.ran} already done · "
                                "index: ", (str(out_dir / "index.csv"), "bold")))
    if outcome.failed:
        for label, error in outcome.failed.items():
            _console(stderr=True).print(Text(f"failed: {label}: {error}", style="red"))
        raise click.exceptions.Exit(1)


def _sweep_table(index: pd.DataFrame, params: list[str]) -> Table:
    """Means over seeds (± standard deviation) for each combination of the grid."""
    table = Table(title=Text("sweep: means over seeds", style="bold"), box=box.SIMPLE_HEAD)
    for p in params:
        table.add_column(p, style="bold")
    for header in ("seeds", "goodput\nMb/s", "Jain", "AFCT\ns"):
        table.add_column(header, justify="right", no_wrap=True)
    done = index[index["done"]]
    groups = done.groupby(params, sort=False, dropna=False) if params else [((), done)]
    for key, rows in groups:
        key = key if isinstance(key, tuple) else (key,)
        goodput = rows["total_goodput_bps"] / 1e6
        spread = f" ± {goodput.std():.2f}" if len(rows) > 1 else ""
        afct = pd.to_numeric(rows["afct_s"], errors="coerce")
        jain = pd.to_numeric(rows["jain_index"], errors="coerce")
        table.add_row(*(str(k) for k in key), str(len(rows)), f"{goodput.mean():.2f}{spread}",
                      _optional(jain.mean(), "{:.4f}"), _optional(afct.mean(), "{:.3f}"))
    return table


@main.group("lab")
def lab_group() -> None:
    """The kernel lab's housekeeping."""


@lab_group.command("clean")
def lab_clean_command() -> None:
    """Remove the network namespaces (and so the links) of lab runs that crashed, and the BPF Westwood+ one left registered."""
    with _user_errors():
        removed = _core.lab_clean()
    console = _console()
    for name in removed:
        console.print(f"removed {name}")
    console.print(Text.assemble(("✓ ", "bold green"), f"{len(removed)} leftover(s) removed"))


@main.group("topology")
def topology_group() -> None:
    """Router maps: what they offer multipath transports."""


@topology_group.command("census")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--prune", type=click.Choice(topology.PRUNES), default="none", show_default=True,
              help="Filter each map as the rocketfuel generator's prune does (docs/scenario.md).")
@click.option("--largest-component", is_flag=True, help="Keep only each map's largest connected component.")
@click.option("--markdown", is_flag=True, help="Print a Markdown table instead.")
def topology_census_command(files: tuple[Path, ...], prune: str, largest_component: bool, markdown: bool) -> None:
    """One-hop detours in Rocketfuel .cch maps (the INRPP paper's Table I).

    For each internal link u-v of each FILE, the number of routers linked to
    both u and v; prints the share of links with at least one, how those
    split into 1, 2, 3, 4 and 5+ detours (% of them), and the maximum.
    """
    with _user_errors(ValueError):
        rows = [topology.detour_census(f, prune, largest_component) for f in files]
    head = ["map", "routers", "links", "≥ 1 detour %", "1", "2", "3", "4", "5+", "max"]
    cells = [[str(c.path), str(c.routers), str(c.links), f"{c.with_detour_pct:.2f}",
              *(f"{p:.2f}" for p in c.by_count_pct), str(c.max)] for c in rows]
    if markdown:
        click.echo("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for row in cells:
            click.echo("| " + " | ".join(row) + " |")
        return
    table = Table(title="One-hop detours per link", caption="columns 1-5+: % of the links with a detour")
    for i, h in enumerate(head):
        table.add_column(h, justify="left" if i == 0 else "right", style="bold cyan" if i == 0 else None,
                         overflow="fold")
    for row in cells:
        table.add_row(*row)
    _console().print(table)


@main.command("validate")
@click.argument("scenario")
@click.option("--data-dir", type=click.Path(path_type=Path), metavar="DIR", help=DATA_DIR_HELP)
def validate_command(scenario: str, data_dir: Path | None) -> None:
    """Check SCENARIO (a file or a built-in name) without running it."""
    with _user_errors():
        name = api.validate(scenario, data_dir)
    _console().print(Text.assemble(("✓ ", "bold green"), f"{scenario}: scenario {name!r} is valid"))


@main.command("scenarios")
def scenarios_command() -> None:
    """List the built-in scenarios."""
    table = Table(title="Built-in scenarios", caption="run one with: pathpool run NAME --out DIR",
                  show_lines=True)
    table.add_column("name", style="bold cyan", no_wrap=True)
    table.add_column("what it shows")
    for name, (_, description) in builtin_scenarios().items():
        table.add_row(Text(name), Text(description))
    _console().print(table)


@main.command("plot")
@click.argument("results_dir", type=click.Path(path_type=Path))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Image file to write [default: RESULTS_DIR/plot.png].")
def plot_command(results_dir: Path, output: Path | None) -> None:
    """Draw the overview figure of the results in RESULTS_DIR."""
    with _user_errors():
        results = load(results_dir)
    path = plots.save_plot(results, output or results_dir / "plot.png")
    _console().print(Text.assemble("plot: ", (str(path), "bold")))


@main.command("report")
@click.argument("results_dir", type=click.Path(path_type=Path))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="HTML file to write [default: RESULTS_DIR/report.html].")
def report_command(results_dir: Path, output: Path | None) -> None:
    """Write one self-contained HTML file of the results in RESULTS_DIR: summary,
    interactive plots, tables, scenario and run info (opens offline)."""
    from .report import write_report

    with _user_errors():
        path = write_report(results_dir, output)
    _console().print(Text.assemble("report: ", (str(path), "bold")))


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _format_bytes(size: float) -> str:
    """A byte count in decimal units, as scenario files write them (1 MB = 10^6 bytes)."""
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size:.0f} B"


def _optional(value: object, template: str, missing: str = "—") -> str:
    """``template.format(value)``, or ``missing`` for a null or NaN value."""
    return missing if _is_missing(value) else template.format(value)


def _flows_table(results: Results) -> Table:
    flows = results.flows.sort_values("flow_id")
    summary = results.summary
    where = "simulated" if summary.get("plane", "sim") == "sim" else "on the kernel lab"
    table = Table(title=Text(f"{summary['scenario']} · seed {summary['seed']} · "
                             f"{summary['duration_s']:g} s {where}", style="bold"), box=box.SIMPLE_HEAD,
                  collapse_padding=True, pad_edge=False)
    table.add_column("flow", style="bold")
    table.add_column("src → dst")
    table.add_column("cc", no_wrap=True)
    for header in ("size", "FCT\ns", "goodput\nMb/s", "retx", "timeouts", "mean RTT\nms"):
        table.add_column(header, justify="right", no_wrap=True)
    for flow in flows.head(MAX_SUMMARY_FLOWS).itertuples():
        size = "bulk" if pd.isna(flow.size_bytes) else _format_bytes(flow.size_bytes)
        fct = _optional(flow.fct_s, "{:.3f}", missing="—" if pd.isna(flow.size_bytes) else "not done")
        rtt_ms = None if _is_missing(flow.rtt_mean_s) else flow.rtt_mean_s * 1e3
        table.add_row(Text(flow.name), Text(f"{flow.src} → {flow.dst}"), Text(flow.cc), size, fct,
                      f"{flow.goodput_bps / 1e6:.2f}", f"{flow.retransmits:,}", _optional(flow.timeouts, "{:,.0f}"),
                      _optional(rtt_ms, "{:.1f}"))
    if len(flows) > MAX_SUMMARY_FLOWS:
        table.caption = f"{len(flows) - MAX_SUMMARY_FLOWS} more flows in the flows table"
    return table


def _totals_table(results: Results) -> Table:
    summary, info = results.summary, results.run_info
    packets = summary["packets"]
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("total goodput", f"{summary['total_goodput_bps'] / 1e6:.2f} Mb/s")
    table.add_row("Jain's index", _optional(summary["jain_index"], "{:.4f}"))
    table.add_row("flows completed", f"{summary['flows_completed']} of {summary['flows']}")
    table.add_row("AFCT", _optional(summary["afct_s"], "{:.3f} s"))
    if packets["sent"] is not None:
        table.add_row("packets", f"{packets['sent']:,} sent · {packets['delivered']:,} delivered · "
                                 f"{packets['dropped']:,} dropped · {packets['in_flight']:,} in flight")
    else:
        table.add_row("packets", f"{packets['delivered']:,} delivered · {packets['dropped']:,} dropped "
                                 f"(link emulator)")
    if summary["events"] is None and info.get("wall_s") is not None:
        table.add_row("wall time", f"{info['wall_s']:.2f} s (real time, testbed set-up included)")
    elif info.get("wall_s") is not None:
        rate = f", {info['events_per_s'] / 1e6:.2f} M events/s" if info.get("events_per_s") else ""
        table.add_row("wall time", f"{info['wall_s']:.2f} s ({summary['events']:,} events{rate})")
    return table


def _subflows_table(results: Results) -> Table | None:
    """One row per MPTCP subflow (of the flows listed above), or None without MPTCP."""
    subflows = results.frame("subflows")
    if subflows.empty:
        return None
    names = dict(zip(results.flows["flow_id"], results.flows["name"]))
    shown = set(results.flows.sort_values("flow_id").head(MAX_SUMMARY_FLOWS)["flow_id"])
    table = Table(title=Text("MPTCP subflows", style="bold"), box=box.SIMPLE_HEAD, collapse_padding=True,
                  pad_edge=False)
    table.add_column("flow", style="bold")
    table.add_column("local → remote")
    table.add_column("state")
    for header in ("open\ns", "closed\ns", "acked\nMB", "retx", "mean RTT\nms"):
        table.add_column(header, justify="right", no_wrap=True)
    for sub in subflows.sort_values(["flow_id", "subflow_id"]).itertuples():
        if sub.flow_id not in shown:
            continue
        path = f"{sub.local_interface} → {sub.remote_interface}" + (" (backup)" if sub.backup else "")
        rtt_ms = None if _is_missing(sub.rtt_mean_s) else sub.rtt_mean_s * 1e3
        table.add_row(Text(f"{names[sub.flow_id]}/{sub.subflow_id}"), Text(path), sub.state,
                      f"{sub.opened_s:.2f}", _optional(sub.closed_s, "{:.2f}"),
                      f"{sub.bytes_acked / 1e6:.2f}", f"{sub.retransmits:,}", _optional(rtt_ms, "{:.1f}"))
    return table


#: Rows of the controller log shown in the summary (the table has them all).
MAX_SUMMARY_ACTIONS = 12


def _controller_table(results: Results) -> Table | None:
    """The actions of the scenario's own controllers (not the flows' path
    managers and timed actions, which the subflows table already tells), or
    None if they took none."""
    if "controller_log" not in results.tables:
        return None
    log = results.frame("controller_log")
    log = log[~log["controller"].isin(["path_manager", "timed"])]
    if log.empty:
        return None
    table = Table(title=Text("Controller actions", style="bold"), box=box.SIMPLE_HEAD, collapse_padding=True,
                  pad_edge=False)
    table.add_column("s", justify="right")
    for header in ("host", "controller", "on", "action", "flow", "outcome", "detail"):
        table.add_column(header)
    for row in log.head(MAX_SUMMARY_ACTIONS).itertuples():
        flow = row.flow + ("" if _is_missing(row.subflow_id) else f"/{int(row.subflow_id)}")
        table.add_row(f"{row.time_s:.2f}", row.host, row.controller, row.event, row.action, flow, row.outcome,
                      Text(row.detail))
    if len(log) > MAX_SUMMARY_ACTIONS:
        table.caption = f"{len(log) - MAX_SUMMARY_ACTIONS} more in the controller_log table"
    return table


#: Share of packets the lab's emulator may deliver over 1 ms late before the run is flagged.
LATE_WARNING_FRACTION = 0.01


def _warn_if_the_emulator_fell_behind(console: Console, results: Results) -> None:
    """A kernel-lab run whose link emulator delivered many packets late (an
    overloaded machine, or links beyond the emulator's ceiling) has delays
    the scenario did not ask for: say so next to its numbers."""
    emulator = results.summary.get("emulator")
    if emulator and emulator["late_over_1ms_fraction"] > LATE_WARNING_FRACTION:
        console.print(Text(f"warning: the link emulator delivered {emulator['late_over_1ms_fraction']:.1%} of "
                           f"packets more than 1 ms late (worst {emulator['late_max_s'] * 1e3:.1f} ms): this "
                           "run's delays exceed the scenario's (see docs/lab-emulator.md for the ceiling)",
                           style="yellow"))


def _print_summary(console: Console, results: Results) -> None:
    console.print(_flows_table(results))
    subflows = _subflows_table(results)
    if subflows is not None:
        console.print(subflows)
    actions = _controller_table(results)
    if actions is not None:
        console.print(actions)
    console.print(_totals_table(results))
    console.print()
