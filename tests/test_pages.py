"""The page-load built-in (page-two-paths): the pages and page_objects tables, written and read back."""

import pathpool
from pathpool.schema import SCHEMAS


def test_the_page_load_builtin_loads_both_pages_and_pat_is_faster(tmp_path):
    ran = pathpool.run("page-two-paths", out=tmp_path / "out")
    for name in ("pages", "page_objects"):
        assert ran.tables[name].schema.equals(SCHEMAS[name], check_metadata=False), name
    pages = ran.frame("pages").set_index("name")
    assert pages["objects"].tolist() == [11, 11]
    assert (pages["bytes"] == pages["content_bytes"]).all(), "every object arrived"
    assert pages.loc["pat", "load_s"] < pages.loc["browser", "load_s"]
    objects = ran.frame("page_objects")
    browser = objects[objects["page_id"] == 0]
    assert set(browser["interface"]) == {"wlan0"}, "the default policy keeps to Wi-Fi"
    assert browser["depth"].tolist() == [0, 1, 1] + [2] * 8
    back = pathpool.load(tmp_path / "out")
    assert back.frame("pages")["load_s"].tolist() == ran.frame("pages")["load_s"].tolist()
