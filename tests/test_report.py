"""pathpool report: one HTML file, opened offline in a real headless browser (Debian's chromium)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pathpool
from pathpool.cli import main

#: Debian's chromium: the real binary, else the wrapper script on PATH.
CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", shutil.which("chromium")) if p and Path(p).is_file()),
                None)


@pytest.fixture
def report(runner, small_scenario, tmp_path) -> Path:
    pathpool.run(small_scenario, out=tmp_path / "run")
    written = runner.invoke(main, ["report", str(tmp_path / "run")])
    assert written.exit_code == 0, written.output
    return tmp_path / "run" / "report.html"


def test_the_report_holds_the_summary_tables_scenario_and_run_info_and_loads_nothing(report):
    text = report.read_text()
    assert "total_goodput_bps" in text and "wall_s" in text
    assert "<b>flows</b> (3 rows)" in text and "<b>flow_ts</b> (" in text and "<b>link_ts</b> (" in text
    assert 'bottleneck = { rate = &quot;20Mbps&quot;' in text
    assert "<script src=" not in text


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make install apt-installs it as root)")
def test_the_report_renders_its_plots_offline_in_a_headless_browser_without_console_errors(report):
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            # Offline: the page must bring everything it needs.
            page = browser.new_context(offline=True).new_page()
            page.on("console", lambda message: message.type == "error" and errors.append(message.text))
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(report.as_uri())
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=20_000)
            plots = page.locator(".js-plotly-plot")
            assert plots.count() == 4
            for k in range(4):
                assert plots.nth(k).locator("svg.main-svg").count() >= 1
            # Goodput over time: one line per flow, drawn.
            assert plots.nth(0).locator("g.trace.scatter path.js-line").count() == 3
            assert plots.nth(3).locator("g.trace.bars path").count() == 3
        finally:
            browser.close()
    assert errors == []
