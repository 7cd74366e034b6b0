"""An overview figure of one run: goodput and congestion windows over time,
queue occupancy of the busiest links, and goodput per flow; for runs with
INRPP routers also the cache occupancy of the busiest INRPP interfaces and the
distribution of link utilisation.

The figure is drawn on a standalone matplotlib Figure (rendered with Agg when
saved to PNG), without pyplot, so plotting never opens a window nor touches
matplotlib's global state.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .results import Results

#: Flows named in the legend; with more, the legend says how many are not listed.
MAX_LEGEND_FLOWS = 10
#: Link directions shown in the queue panel (those with the largest maximum queue).
MAX_QUEUE_LINKS = 4
#: ... leaving out those whose largest queue stayed below this fraction of the
#: largest queue of any link (access links that never really queued).
MIN_QUEUE_FRACTION = 0.1
#: Goodput time series are smoothed with a centred moving average this long.
SMOOTHING_S = 0.5
#: Shown in place of a time-series panel when the run sampled none.
NO_TIME_SERIES = "no time series (sim.sample_interval = 0)"
#: Bars of the per-flow goodput chart are labelled by flow name up to this many flows.
MAX_BAR_LABELS = 30
#: INRPP interfaces shown in the cache panel (those with the largest maximum cache occupancy).
MAX_CACHE_INTERFACES = 4
#: The cache panel's y axis reaches up to the cache sizes only if the largest
#: occupancy filled at least this fraction of the largest cache; otherwise it
#: follows the occupancy, and a note gives the sizes above the scale.
MIN_CACHE_FILL_SHOWN = 0.1
#: Opacity of the shading that marks an INRPP interface's time in Backpressure.
BACKPRESSURE_ALPHA = 0.12


def overview_figure(results: Results) -> Figure:
    """The overview figure of ``results``: four panels (goodput over time,
    congestion windows, queues of the busiest links, goodput per flow) and a
    flow legend.

    A run with energy models (``[[devices]]``) gets a row with each radio's
    power over time and the energy per interface and model; a run with video
    sessions (``app_ts``) a row with their buffer level and bitrate over time.

    A run with INRPP routers (``inrpp_interfaces`` not empty) gets a row
    of two panels: the cache occupancy over time of the INRPP interfaces whose
    caches filled most, with each cache's size dashed and its time in
    Backpressure shaded, and the empirical distribution of ``links.utilisation``
    over the link directions that carried traffic.
    """
    summary = results.summary
    flows = results.flows.sort_values("flow_id")
    colors = _flow_colors(flows["flow_id"].tolist())
    inrpp_interfaces = results.frame("inrpp_interfaces")
    inrpp = not inrpp_interfaces.empty
    energy = "energy" in results.tables and results.tables["energy"].num_rows > 0
    video = "app_ts" in results.tables and results.tables["app_ts"].num_rows > 0
    rows = 2 + inrpp + energy + video
    fig = Figure(figsize=(14, 4.25 * rows), layout="constrained")
    panels = fig.subplots(rows, 2)
    (ax_goodput, ax_cwnd), (ax_queue, ax_bars) = panels[:2]

    _plot_goodput(ax_goodput, results.flow_ts, colors)
    _plot_cwnd(ax_cwnd, results.flow_ts, colors)
    _plot_queues(ax_queue, results.links, results.link_ts)
    _plot_goodput_bars(ax_bars, flows, colors, summary.get("jain_index"))
    timelines = [ax_goodput, ax_cwnd, ax_queue]
    row = 2
    if inrpp:
        ax_cache, ax_cdf = panels[row]
        _plot_inrpp_cache(ax_cache, inrpp_interfaces, results.frame("inrpp_ts"), results.links)
        _plot_utilisation_cdf(ax_cdf, results.links)
        timelines.append(ax_cache)
        row += 1
    if energy:
        ax_power, ax_joules = panels[row]
        _plot_radio_power(ax_power, results.frame("radio_ts"))
        _plot_energy_bars(ax_joules, results.frame("energy"))
        timelines.append(ax_power)
        row += 1
    if video:
        ax_buffer, ax_bitrate = panels[row]
        app_ts = results.frame("app_ts")
        _plot_app_series(ax_buffer, app_ts, "buffer_s", "Video buffer", "buffer (s)", colors)
        _plot_app_series(ax_bitrate, app_ts, "bitrate_bps", "Video bitrate", "bitrate (Mb/s)", colors, scale=1e-6)
        timelines.extend([ax_buffer, ax_bitrate])
    for ax in timelines:
        ax.set_xlim(0, summary.get("duration_s") or None)
    _mark_controller_actions(timelines, results)
    _flow_legend(fig, flows, colors)
    where = "on the kernel lab" if summary.get("plane") == "lab" else "simulated"
    fig.suptitle(f"{summary.get('scenario', 'run')}  ·  seed {summary.get('seed')}  ·  "
                 f"{summary.get('duration_s', 0):g} s {where}", fontsize=14, fontweight="bold")
    return fig


def save_plot(results: Results, path: str | os.PathLike) -> Path:
    """Saves :func:`overview_figure` of ``results`` to the image file ``path``
    (PNG, or any format matplotlib knows by the file's extension)."""
    path = Path(path)
    overview_figure(results).savefig(path, dpi=120)
    return path


#: Controller actions marked on the time axes (subflow and scheduler changes).
MARKED_ACTIONS = {"open_subflow": "tab:green", "close_subflow": "tab:red", "set_backup": "tab:orange", "set_scheduler": "tab:purple"}


def _mark_controller_actions(axes: list[Axes], results: Results) -> None:
    """Marks every subflow or scheduler change a controller carried out
    (``controller_log``, outcome done) with a dotted vertical line on the
    time axes, labelled once on the first axis."""
    if "controller_log" not in results.tables:
        return
    log = results.frame("controller_log")
    done = log[(log["outcome"] == "done") & log["action"].isin(list(MARKED_ACTIONS))]
    if done.empty:
        return
    for ax in axes:
        for row in done.itertuples():
            ax.axvline(row.time_s, color=MARKED_ACTIONS[row.action], linestyle=":", linewidth=1.0, alpha=0.8)
    handles = [Line2D([], [], color=MARKED_ACTIONS[a], linestyle=":", label=a.replace("_", " ")) for a in MARKED_ACTIONS if a in set(done["action"])]
    axes[0].legend(handles=handles, title="controller actions", fontsize=8, title_fontsize=8, loc="upper right")


def _flow_colors(flow_ids: list[int]) -> dict[int, tuple[float, ...]]:
    """One colour per flow: a qualitative palette for few flows, a colour ramp for many."""
    if len(flow_ids) <= 10:
        palette = [colormaps["tab10"](i) for i in range(10)]
    elif len(flow_ids) <= 20:
        palette = [colormaps["tab20"](i) for i in range(20)]
    else:
        palette = [colormaps["viridis"](x) for x in np.linspace(0, 0.95, len(flow_ids))]
    return {flow_id: palette[i] for i, flow_id in enumerate(flow_ids)}


def _no_data(ax: Axes, title: str, message: str) -> None:
    ax.set_title(title)
    ax.text(0.5, 0.5, message, transform=ax.transAxes, ha="center", va="center", color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def _sample_interval(times: pd.Series) -> float:
    steps = np.diff(np.unique(times.to_numpy()))
    return float(np.median(steps)) if len(steps) else 0.0


def _plot_goodput(ax: Axes, flow_ts: pd.DataFrame, colors: dict) -> None:
    title = f"Goodput over time ({SMOOTHING_S:g} s moving average)"
    if flow_ts.empty:
        _no_data(ax, title, NO_TIME_SERIES)
        return
    interval = _sample_interval(flow_ts["time_s"])
    window = max(1, round(SMOOTHING_S / interval)) if interval > 0 else 1
    for flow_id, series in flow_ts.sort_values("time_s").groupby("flow_id", sort=True):
        smooth = series["goodput_bps"].rolling(window, center=True, min_periods=1).mean()
        ax.plot(series["time_s"], smooth / 1e6, color=colors.get(flow_id), linewidth=1.3)
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)


def _byte_unit(largest: float) -> tuple[float, str]:
    for scale, unit in ((1e6, "MB"), (1e3, "kB")):
        if largest >= 10 * scale:
            return scale, unit
    return 1.0, "bytes"


def _plot_cwnd(ax: Axes, flow_ts: pd.DataFrame, colors: dict) -> None:
    title = "Congestion window"
    if flow_ts.empty:
        _no_data(ax, title, NO_TIME_SERIES)
        return
    scale, unit = _byte_unit(float(flow_ts["cwnd_bytes"].max()))
    for flow_id, series in flow_ts.sort_values("time_s").groupby("flow_id", sort=True):
        ax.plot(series["time_s"], series["cwnd_bytes"] / scale, color=colors.get(flow_id), linewidth=1.0)
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"cwnd ({unit})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)


def _plot_queues(ax: Axes, links: pd.DataFrame, link_ts: pd.DataFrame) -> None:
    largest = links["max_queue_bytes"].max() if len(links) else 0
    queued = links[(links["max_queue_bytes"] > 0) & (links["max_queue_bytes"] >= MIN_QUEUE_FRACTION * largest)]
    busiest = queued.sort_values(["max_queue_bytes", "link_id"], ascending=[False, True]).head(MAX_QUEUE_LINKS)
    title = "Queue occupancy of the busiest links"
    if link_ts.empty or busiest.empty:
        _no_data(ax, title, NO_TIME_SERIES if link_ts.empty else "no queue built up on any link")
        return
    for i, link in enumerate(busiest.itertuples()):
        series = link_ts[link_ts["link_id"] == link.link_id].sort_values("time_s")
        ax.plot(series["time_s"], series["queue_packets"], color=colormaps["Dark2"](i), linewidth=1.0,
                label=f"{link.name} (max {link.max_queue_packets})")
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2, fontsize="small", frameon=False)


def _plot_goodput_bars(ax: Axes, flows: pd.DataFrame, colors: dict, jain: float | None) -> None:
    title = "Goodput per flow"
    if flows.empty:
        _no_data(ax, title, "no flows")
        return
    positions = np.arange(len(flows))
    mbps = flows["goodput_bps"].to_numpy() / 1e6
    bars = ax.bar(positions, mbps, color=[colors[f] for f in flows["flow_id"]], width=0.7)
    if len(flows) <= MAX_BAR_LABELS:
        slanted = len(flows) > 4
        ax.set_xticks(positions, flows["name"], fontsize="small",
                      rotation=30 if slanted else 0, ha="right" if slanted else "center")
    else:
        ax.set_xlabel("flows, in flow_id order")
        ax.set_xticks([])
    if len(flows) <= MAX_LEGEND_FLOWS:
        ax.bar_label(bars, fmt="%.1f", fontsize="small", padding=2)
        ax.margins(y=0.12)
    if jain is not None:
        title += f"   (Jain's index {jain:.3f})"
    ax.set_title(title)
    ax.set_ylabel("mean goodput (Mb/s)")
    ax.grid(axis="y", alpha=0.3)


def _plot_inrpp_cache(ax: Axes, interfaces: pd.DataFrame, inrpp_ts: pd.DataFrame, links: pd.DataFrame) -> None:
    """Cache occupancy of the MAX_CACHE_INTERFACES interfaces whose caches filled most,
    each with its cache size dashed and its time in Backpressure shaded, in its colour."""
    title = "INRPP cache occupancy"
    cached = interfaces[interfaces["max_cache_bytes"] > 0]
    busiest = cached.sort_values(["max_cache_bytes", "link_id"], ascending=[False, True]).head(MAX_CACHE_INTERFACES)
    if inrpp_ts.empty or busiest.empty:
        _no_data(ax, title, NO_TIME_SERIES if inrpp_ts.empty else "no INRPP interface cached anything")
        return
    names = dict(zip(links["link_id"], links["name"], strict=True))
    fullest, largest_size = float(busiest["max_cache_bytes"].max()), float(busiest["cache_size_bytes"].max())
    sizes_shown = fullest >= MIN_CACHE_FILL_SHOWN * largest_size
    scale, unit = _byte_unit(largest_size if sizes_shown else fullest)
    interval = _sample_interval(inrpp_ts["time_s"])
    backpressured = False
    for i, interface in enumerate(busiest.itertuples()):
        color = colormaps["Dark2"](i)
        series = inrpp_ts[inrpp_ts["link_id"] == interface.link_id].sort_values("time_s")
        ax.plot(series["time_s"], series["cache_bytes"] / scale, color=color, linewidth=1.0,
                label=names.get(interface.link_id, f"link {interface.link_id}"))
        ax.axhline(interface.cache_size_bytes / scale, color=color, linestyle="--", linewidth=1.0)
        for start, end in _spans(series["time_s"].to_numpy(), (series["state"] == "backpressure").to_numpy(), interval):
            ax.axvspan(start, end, color=color, alpha=BACKPRESSURE_ALPHA, linewidth=0)
            backpressured = True
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"cache ({unit})")
    if sizes_shown:
        ax.set_ylim(bottom=0)
    else:
        ax.set_ylim(0, 1.15 * fullest / scale)
        size_scale, size_unit = _byte_unit(largest_size)
        ax.text(0.99, 0.97, f"cache sizes (up to {largest_size / size_scale:g} {size_unit}) are above the scale",
                transform=ax.transAxes, ha="right", va="top", fontsize="small", color="0.4")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="0.4", linestyle="--", linewidth=1.0))
    labels.append("cache size")
    if backpressured:
        handles.append(Patch(color="0.4", alpha=BACKPRESSURE_ALPHA * 2, linewidth=0))
        labels.append("in backpressure")
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=3, fontsize="small",
              frameon=False)


def _spans(times: np.ndarray, mask: np.ndarray, interval: float) -> list[tuple[float, float]]:
    """The time spans of consecutive samples where ``mask`` holds, each sample
    standing for the ``interval`` centred on it."""
    spans = []
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    for first, last in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1, strict=True):
        spans.append((max(0.0, times[first] - interval / 2), times[last] + interval / 2))
    return spans


def _plot_utilisation_cdf(ax: Axes, links: pd.DataFrame) -> None:
    """The empirical CDF of utilisation over the link directions that carried traffic."""
    title = "Link utilisation distribution"
    used = np.sort(links.loc[links["bytes_sent"] > 0, "utilisation"].to_numpy())
    if len(used) == 0:
        _no_data(ax, title, "no link carried traffic")
        return
    right = max(1.0, float(used[-1]))
    xs = np.concatenate(([0.0], used, [right]))
    ys = np.concatenate(([0.0], np.arange(1, len(used) + 1) / len(used), [1.0]))
    ax.step(xs, ys, where="post", color=colormaps["Dark2"](0), linewidth=1.5)
    ax.set_title(title)
    ax.set_xlabel(f"utilisation over the run ({len(used)} link directions with traffic)")
    ax.set_ylabel("fraction of link directions")
    ax.set_xlim(-0.01 * right, 1.01 * right)  # off the spines: the steps at 0 and 1
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)


def _plot_radio_power(ax: Axes, radio_ts: pd.DataFrame) -> None:
    """Each radio's power over time (its state machine: idle, promotion, active, tail)."""
    title = "Radio power"
    if radio_ts.empty:
        _no_data(ax, title, NO_TIME_SERIES)
        return
    for i, ((node, iface), series) in enumerate(radio_ts.sort_values("time_s").groupby(["node", "interface"], sort=True)):
        ax.step(series["time_s"], series["power_w"], where="post", color=colormaps["Dark2"](i % 8), linewidth=1.3,
                label=f"{node}:{iface}")
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("power (W)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=3, fontsize="small", frameon=False)


def _plot_app_series(ax: Axes, app_ts: pd.DataFrame, column: str, title: str, ylabel: str, colors: dict,
                     scale: float = 1.0) -> None:
    """One line per video session (its flow's colour) of an ``app_ts`` column."""
    for flow_id, series in app_ts.sort_values("time_s").groupby("flow_id", sort=True):
        ax.step(series["time_s"], series[column] * scale, where="post", color=colors.get(flow_id), linewidth=1.3)
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)


def _plot_energy_bars(ax: Axes, energy: pd.DataFrame) -> None:
    """Energy over the run per host interface, one bar per model (radios, linear readings)."""
    labels = [f"{r.node}:{r.interface}\n{r.model}" for r in energy.itertuples()]
    models = sorted(set(energy["model"]))
    color = {m: colormaps["Set2"](i % 8) for i, m in enumerate(models)}
    bars = ax.bar(range(len(energy)), energy["energy_j"], color=[color[m] for m in energy["model"]])
    ax.bar_label(bars, fmt="%.3g", fontsize=8)
    ax.set_xticks(range(len(energy)), labels, fontsize=8)
    ax.set_title("Energy over the run")
    ax.set_ylabel("energy (J)")
    ax.grid(axis="y", alpha=0.3)


def _flow_legend(fig: Figure, flows: pd.DataFrame, colors: dict) -> None:
    """A figure legend naming at most MAX_LEGEND_FLOWS flows, beside the panels."""
    shown = flows.head(MAX_LEGEND_FLOWS)
    handles = [Line2D([], [], color=colors[f], linewidth=2) for f in shown["flow_id"]]
    labels = list(shown["name"])
    hidden = len(flows) - len(shown)
    if hidden:
        handles.append(Line2D([], [], linestyle="none"))
        labels.append(f"… and {hidden} more")
    fig.legend(handles, labels, loc="outside right upper", title="flows", fontsize="small", frameon=False)
