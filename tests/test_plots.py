"""The overview figure."""

import tomllib

import pathpool
import pytest
from pathpool import plots
from pathpool.scenarios import BUILTIN_DIR

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


@pytest.fixture(scope="module")
def inrpp_results():
    """The built-in inrpp-dumbbell, cut to 8 simulated seconds (its three flows
    have started, and node 0's cache has filled and backpressured)."""
    scenario = tomllib.loads((BUILTIN_DIR / "inrpp-dumbbell.toml").read_text())
    scenario["name"] = "inrpp-dumbbell"
    scenario["sim"]["duration"] = "8s"
    return pathpool.run(scenario)


def _panel(figure, title):
    return next(ax for ax in figure.axes if ax.get_title().startswith(title))


def test_an_inrpp_run_gets_a_row_with_cache_and_utilisation_panels(inrpp_results):
    figure = plots.overview_figure(inrpp_results)
    titles = [ax.get_title() for ax in figure.axes]
    assert len(titles) == 6
    assert "INRPP cache occupancy" in titles
    assert "Link utilisation distribution" in titles

    interfaces = inrpp_results.frame("inrpp_interfaces")
    chosen = interfaces[interfaces["max_cache_bytes"] > 0].nlargest(plots.MAX_CACHE_INTERFACES, "max_cache_bytes")
    assert 0 < len(chosen) <= plots.MAX_CACHE_INTERFACES
    cache = _panel(figure, "INRPP cache occupancy")
    solid = [line for line in cache.lines if line.get_linestyle() == "-"]
    dashed = [line for line in cache.lines if line.get_linestyle() == "--"]
    assert len(solid) == len(dashed) == len(chosen)
    assert len(cache.lines) == 2 * len(chosen)
    names = dict(zip(inrpp_results.links["link_id"], inrpp_results.links["name"]))
    assert [line.get_label() for line in solid] == [names[i] for i in chosen["link_id"]]
    assert solid[0].get_label() == "n0-n2:n0>n2"
    for line, size_line, size in zip(solid, dashed, chosen["cache_size_bytes"], strict=True):
        assert size_line.get_color() == line.get_color()
        assert size_line.get_ydata()[0] * 1e3 == pytest.approx(size)  # 1.25 MB caches are drawn in kB
    assert cache.patches, "node 0 went into backpressure: its time there is shaded"

    cdf = _panel(figure, "Link utilisation distribution")
    (step,) = cdf.lines
    used = inrpp_results.links["bytes_sent"] > 0
    assert step.get_ydata()[-1] == 1.0
    assert len(step.get_xdata()) == used.sum() + 2  # from (0, 0) to (max(1, largest), 1)


def test_a_run_without_inrpp_keeps_four_panels(small_scenario):
    results = pathpool.run(small_scenario)
    assert results.frame("inrpp_ts").empty
    titles = [ax.get_title() for ax in plots.overview_figure(results).axes]
    assert len(titles) == 4
    assert not any(t.startswith(("INRPP", "Link utilisation")) for t in titles)


def test_an_inrpp_run_saves_to_png(inrpp_results, tmp_path):
    path = plots.save_plot(inrpp_results, tmp_path / "plot.png")
    assert path.read_bytes().startswith(PNG_SIGNATURE)


def test_an_inrpp_run_without_time_series_keeps_its_row():
    scenario = tomllib.loads((BUILTIN_DIR / "inrpp-dumbbell.toml").read_text())
    scenario["sim"] = {"duration": "4s", "sample_interval": 0}
    results = pathpool.run(scenario)
    assert results.frame("inrpp_ts").empty and not results.frame("inrpp_interfaces").empty
    figure = plots.overview_figure(results)
    assert len(figure.axes) == 6
    cache = _panel(figure, "INRPP cache occupancy")
    assert [t.get_text() for t in cache.texts] == [plots.NO_TIME_SERIES]
    assert _panel(figure, "Link utilisation distribution").lines
