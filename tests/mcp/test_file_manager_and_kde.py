"""Thunar (GTK 3 file manager) and kcalc (KDE, Qt 5), Debian's packages, driven through the MCP
tools as an agent would. Thunar's right-click menu never appeared in `gui_state` (GTK 3 keeps a
context menu in a top-level window of its own), its files were three lines each, and a click by
id on a file pressed the cell's "activate" (which opens the file). kcalc's result display (a
`window "144"` with no children) was shown only with all=true. The rename is checked on disk."""
import os
import re

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, element, eventually, observe, window_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def line_of(outline, pattern):
    found = [l for l in outline.splitlines() if re.search(pattern, l)]
    assert found, f"no line like {pattern!r} in:\n{outline}"
    return found[0]


async def test_thunar_renames_a_file_through_its_context_menu(apps, server_env, tmp_path, monkeypatch):
    folder = tmp_path / "files"
    folder.mkdir()
    for name in ("report.odt", "notes.txt", "budget.ods"):
        (folder / name).write_text(name)
    monkeypatch.setenv("THUNAR_DIR", str(folder))
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env),
                      read_timeout_seconds=60) as client:
        pid = apps.launch("thunar")
        w = await window_of(client, pid, timeout=30)
        outline = (await observe(client, w["id"]))["outline"]
        assert re.search(r'menu "View"', outline), outline
        # Thunar's icon view exposes no items; its list view is a tree view of cells.
        err, res = await call(client, "click", {"app": w["id"], "steps": ["View", "List View"]})
        assert not err, res
        outline = await eventually(client, w["id"], lambda o: 'cell "report.odt"' in o,
                                   "the file list", timeout=10)
        assert len(re.findall(r'cell "report\.odt"', outline)) == 1, outline
        assert not re.search(r'^\s*e\d+ cell(?! ")', outline, re.M), f"an unnamed cell listed:\n{outline}"

        state = await observe(client, w["id"])
        cell, _ = element(state["outline"], "cell", "report.odt")
        err, res = await call(client, "gui_action", {
            "window_id": w["id"], "state_id": state["state_id"],
            "actions": [{"type": "click", "element_id": cell}, {"type": "right_click", "element_id": cell}]})
        assert not err, res
        assert [r["how"] for r in res["results"]] == ["coordinates", "coordinates"], res
        outline = await eventually(client, w["id"], lambda o: 'menu_item "Rename..."' in o,
                                   "the context menu in the window's outline", timeout=10)
        assert os.path.exists(folder / "report.odt"), "the click opened or moved nothing"

        err, res = await call(client, "click", {"app": w["id"], "target": "Rename..."})
        assert not err, res
        step = res["results"][0]
        assert step["effect"] == "window_opened", res
        dialog = step["opened"]["window_id"]
        assert "report.odt" in step["opened"]["title"], res
        err, res = await call(client, "type_text", {"app": dialog, "target": "Enter the new name:",
                                                    "text": "final-report.odt"})
        assert not err and res["verified"], res
        err, res = await call(client, "click", {"app": dialog, "target": "Rename"})
        assert not err and res["results"][0]["effect"] == "window_closed", res
        assert sorted(os.listdir(folder)) == ["budget.ods", "final-report.odt", "notes.txt"]


async def test_kcalc_shows_its_result_display_by_default(apps, server_env):
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env),
                      read_timeout_seconds=60) as client:
        pid = apps.launch("kcalc")
        w = await window_of(client, pid, timeout=30)
        outline = (await observe(client, w["id"]))["outline"]
        assert re.search(r'^ e\d+ window "0"(?: |$)', outline, re.M), outline
        assert 'menu "File"' in outline or 'menu_item "File"' in outline, outline
        assert "Bit 63" not in outline, f"the hidden bit buttons are listed:\n{outline}"
        err, res = await call(client, "click", {"app": w["id"], "steps": ["1", "2", "×", "1", "2", "="]})
        assert not err, res
        outline = await eventually(client, w["id"], lambda o: re.search(r'window "144"', o),
                                   "144 on the display", timeout=10)
        line_of(outline, r'^ e\d+ window "144"(?: |$)')
