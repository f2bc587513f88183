"""The GTK 4, Qt 5 and KDE Save dialogs (in-process, `tests/fixtures/file_chooser.py`),
driven through the MCP tools with the recipe in docs/recipes.md: the button that opens the dialog
answers `window_opened` with its id (Qt's press showed its button pressed for 100 ms and answered
`changed`), a full path is typed into the name field by its label, Return saves, the dialog's
step answers `window_closed`, and the file is checked on disk. (GTK 3's chooser is driven in
`test_gui_tools.py` through Mousepad's Save As.)"""
import re

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, eventually, observe, poll, window_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


# kind: (the name field's label, a line the dialog's default outline must show)
CHOOSERS = {
    "gtk4": ("Name:", r'button "Modified"'),  # a column header, named by the label inside it
    "qt5": ("File name:", r'cell "existing\.txt"'),  # the file list
    "kde": ("Name:", r'"existing\.txt"'),  # KDE's own dialog (the Plasma platform theme)
}


@pytest.mark.parametrize("kind", sorted(CHOOSERS))
async def test_a_save_dialog_takes_a_full_path_by_its_label(kind, apps, server_env, tmp_path, monkeypatch):
    field, shown = CHOOSERS[kind]
    (tmp_path / "existing.txt").write_text("already here")
    target = tmp_path / "out" / f"report-{kind}.txt"
    target.parent.mkdir()
    monkeypatch.setenv("CHOOSER_DIR", str(tmp_path))
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env),
                      read_timeout_seconds=60) as client:
        pid = apps.launch(f"chooser-{kind}")
        w = await window_of(client, pid, timeout=30)
        err, res = await call(client, "click", {"app": w["id"], "target": "Save As…"})
        assert not err, res
        step = res["results"][0]
        assert step["effect"] == "window_opened" and step["opened"]["title"] == "Save File", res
        dialog = step["opened"]["window_id"]
        await eventually(client, dialog, lambda o: re.search(shown, o), f"{shown} in the dialog", timeout=10)

        err, res = await call(client, "type_text", {"app": dialog, "target": field, "text": str(target)})
        assert not err and res["verified"], res
        state = await observe(client, dialog)
        err, res = await call(client, "gui_action", {"window_id": dialog, "state_id": state["state_id"],
                                                     "actions": [{"type": "key", "keys": "Return"}]})
        assert not err, res

        async def saved():
            return target.exists() and target.read_text() == "saved by the fixture\n"
        await poll(saved, f"{target} written", timeout=10)
        assert res["results"][0]["effect"] == "window_closed", res
        await eventually(client, w["id"], lambda o: 'label "saved: /' in o,
                         "the app's own word that it saved", timeout=10)


async def test_regression_a_key_in_a_dialog_a_press_opened_froze_the_app(apps, server_env, tmp_path, monkeypatch):
    """GTK 3 runs the "clicked" handler of a button pressed through AT-SPI while it dispatches the
    press, and the fixture's handler runs the chooser in a nested main loop (`gtk_dialog_run`):
    the connection the press came by dispatches nothing more while the dialog is open. Reads sent
    through it waited, and Escape typed while one was pending froze the app for good. Now the
    press's connection is used no more: the dialog is read, Escape closes it, and the app still
    answers."""
    (tmp_path / "existing.txt").write_text("already here")
    monkeypatch.setenv("CHOOSER_DIR", str(tmp_path))
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env),
                      read_timeout_seconds=60) as client:
        pid = apps.launch("chooser-gtk3")
        w = await window_of(client, pid, timeout=30)
        err, res = await call(client, "click", {"app": w["id"], "target": "Save As…"})
        assert not err and res["results"][0]["effect"] == "window_opened", res
        dialog = res["results"][0]["opened"]["window_id"]
        await eventually(client, dialog, lambda o: "existing.txt" in o, "the file list", timeout=15)
        state = await observe(client, dialog)
        err, res = await call(client, "gui_action", {"window_id": dialog, "state_id": state["state_id"],
                                                     "actions": [{"type": "key", "keys": "Escape"}]})
        assert not err and res["results"][0]["effect"] == "window_closed", res
        # The app answers: its window is read afresh (a walk of a new depth).
        err, res = await call(client, "gui_state", {"window_id": w["id"], "max_depth": 7})
        assert not err and "Save As" in res["outline"], res
