"""One self-contained HTML file for a results directory (``pathpool report DIR``).

The page holds the summary, interactive plots (Plotly; goodput and congestion
windows over time, queue occupancy of the busiest links, goodput per flow),
every non-empty table of the directory, the scenario text and the run info.
Plotly's JavaScript is inlined once in the page's head, so the file opens
offline and can be mailed or archived on its own.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from .results import Results, load

#: Default file name, inside the results directory.
REPORT_FILE = "report.html"
#: Rows shown of each table; the time series have many more (the files have them all).
MAX_TABLE_ROWS = 200
#: Link directions plotted in the queue panel: those whose queue grew largest.
MAX_QUEUE_LINKS = 4

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin-bottom: 1em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; }
details { margin-bottom: 0.5em; }
"""


def write_report(results_dir: str | os.PathLike, output: str | os.PathLike | None = None) -> Path:
    """Writes the HTML report of the results in ``results_dir`` to ``output``
    (default ``results_dir/report.html``) and returns its path.

    Raises FileNotFoundError if ``results_dir`` holds no results.
    """
    results = load(results_dir)
    path = Path(output) if output is not None else Path(results_dir) / REPORT_FILE
    path.write_text(report_html(results), encoding="utf-8")
    return path


def report_html(results: Results) -> str:
    """The report of ``results`` as one HTML document."""
    title = f"pathpool: {results.summary.get('scenario', results.path)}"
    sections = [
        f"<h1>{html.escape(str(title))}</h1>",
        "<h2>Summary</h2>", _key_values(results.summary),
        "<h2>Plots</h2>", *(_figure_html(fig) for fig in _figures(results)),
        "<h2>Tables</h2>", *_tables(results),
        "<h2>Scenario</h2>", f"<pre>{html.escape(results.scenario or '(not recorded)')}</pre>",
        "<h2>Run info</h2>", _key_values(results.run_info),
    ]
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(str(title))}</title>"
            f"<style>{STYLE}</style><script type=\"text/javascript\">{get_plotlyjs()}</script></head>\n"
            f"<body>\n" + "\n".join(sections) + "\n</body></html>\n")


def _key_values(data: dict) -> str:
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(_text(v))}</td></tr>" for k, v in data.items())
    return f"<table>{rows}</table>"


def _text(value: object) -> str:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)


def _figure_html(fig: go.Figure) -> str:
    # The library is in the head already: each plot brings only its data and layout.
    return fig.to_html(full_html=False, include_plotlyjs=False)


def _figures(results: Results) -> list[go.Figure]:
    flows, flow_ts, links, link_ts = results.flows, results.flow_ts, results.links, results.link_ts
    names = dict(zip(flows["flow_id"], flows["name"]))
    goodput, cwnd = go.Figure(), go.Figure()
    for flow_id, series in flow_ts.sort_values("time_s").groupby("flow_id", sort=True):
        name = str(names.get(flow_id, flow_id))
        goodput.add_scatter(x=series["time_s"], y=series["goodput_bps"] / 1e6, mode="lines", name=name)
        cwnd.add_scatter(x=series["time_s"], y=series["cwnd_bytes"], mode="lines", name=name)
    goodput.update_layout(title="Goodput over time", xaxis_title="time (s)", yaxis_title="goodput (Mb/s)")
    cwnd.update_layout(title="Congestion windows", xaxis_title="time (s)", yaxis_title="cwnd (bytes)")
    queues = go.Figure()
    busiest = links[links["max_queue_bytes"] > 0].nlargest(MAX_QUEUE_LINKS, "max_queue_bytes")
    for link in busiest.itertuples():
        series = link_ts[link_ts["link_id"] == link.link_id].sort_values("time_s")
        queues.add_scatter(x=series["time_s"], y=series["queue_packets"], mode="lines", name=str(link.name))
    queues.update_layout(title="Queues of the busiest links", xaxis_title="time (s)", yaxis_title="packets")
    bars = go.Figure(go.Bar(x=[str(n) for n in flows["name"]], y=flows["goodput_bps"] / 1e6))
    jain = results.summary.get("jain_index")
    bars.update_layout(title="Goodput per flow" + (f" (Jain's index {jain:.4f})" if jain is not None else ""),
                       yaxis_title="mean goodput (Mb/s)")
    return [goodput, cwnd, queues, bars]


def _tables(results: Results) -> list[str]:
    parts = []
    for name in sorted(results.tables):
        frame: pd.DataFrame = results.frame(name)
        if frame.empty:
            continue
        shown = f"first {MAX_TABLE_ROWS} of {len(frame)} rows" if len(frame) > MAX_TABLE_ROWS else f"{len(frame)} rows"
        parts.append(f"<details><summary><b>{html.escape(name)}</b> ({shown})</summary>"
                     f"{frame.head(MAX_TABLE_ROWS).to_html(index=False, border=0, na_rep='')}</details>")
    return parts
