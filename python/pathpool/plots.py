"""An overview figure of one run: goodput and congestion windows over time,
queue occupancy of the busiest links, and goodput per flow.

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


def overview_figure(results: Results) -> Figure:
    """The overview figure of ``results``: four panels and a flow legend."""
    summary = results.summary
    flows = results.flows.sort_values("flow_id")
    colors = _flow_colors(flows["flow_id"].tolist())
    fig = Figure(figsize=(14, 8.5), layout="constrained")
    (ax_goodput, ax_cwnd), (ax_queue, ax_bars) = fig.subplots(2, 2)

    _plot_goodput(ax_goodput, results.flow_ts, colors)
    _plot_cwnd(ax_cwnd, results.flow_ts, colors)
    _plot_queues(ax_queue, results.links, results.link_ts)
    _plot_goodput_bars(ax_bars, flows, colors, summary.get("jain_index"))
    for ax in (ax_goodput, ax_cwnd, ax_queue):
        ax.set_xlim(0, summary.get("duration_s") or None)
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
