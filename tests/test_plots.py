"""The overview figure."""

import pathpool
from pathpool import plots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_overview_has_four_titled_panels_with_labelled_axes(small_scenario):
    figure = plots.overview_figure(pathpool.run(small_scenario))
    panels = figure.axes
    assert len(panels) == 4
    for ax in panels:
        assert ax.get_title()
        assert ax.get_ylabel()
    legend_texts = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend_texts == ["bulk0", "bulk1", "sized"]


def test_the_flow_legend_is_capped(write_scenario):
    scenario = write_scenario("""\
[sim]
duration = "1s"

[topology]
kind = "dumbbell"
pairs = 12
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "100Mbps", delay = "10ms" }

[[flows]]
count = 12
name = "flow{i}"
src = "src{i}"
dst = "dst{i}"
""")
    figure = plots.overview_figure(pathpool.run(scenario))
    legend_texts = [t.get_text() for t in figure.legends[0].get_texts()]
    assert len(legend_texts) == plots.MAX_LEGEND_FLOWS + 1
    assert legend_texts[-1] == "… and 2 more"


def test_a_run_without_time_series_still_plots(small_scenario, write_scenario, tmp_path):
    text = small_scenario.read_text().replace("[sim]\n", "[sim]\nsample_interval = 0\n")
    scenario = write_scenario(text, "no-time-series.toml")
    results = pathpool.run(scenario)
    assert results.flow_ts.empty
    path = plots.save_plot(results, tmp_path / "plot.png")
    assert path.read_bytes().startswith(PNG_SIGNATURE)
