"""gnome-text-editor (GTK 4, Debian's package), driven through the MCP tools: GTK 4 names an
unnamed widget after its class, so the document read "EditorSourceView" and the search field
"EditorSearchEntry"; its buttons read "_Replace Replace" (the mnemonic label, doubled) and its
icon buttons "GtkImage". Now class names are no labels, mnemonic markers are gone, doubled names
are collapsed, an icon button takes its tooltip, and a menu button is listed once. The typed text
is checked with pyatspi."""
import subprocess

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, element, eventually, observe, window_titled

pytestmark = pytest.mark.anyio

READ = """
import pyatspi, sys
for app in pyatspi.Registry.getDesktop(0):
    if app and app.name == "gnome-text-editor":
        def walk(a):
            if a.getRoleName() == "text":
                t = a.queryText(); print(t.getText(0, t.characterCount))
            for c in a: walk(c)
        walk(app)
"""


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def editor(server_env):
    proc = subprocess.Popen(["gnome-text-editor", "--standalone", "--ignore-session"], env=server_env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.kill()


async def test_regression_gtk4_class_names_and_mnemonics_are_not_labels(server_env, editor):
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
        win = await window_titled(client, "Text Editor")
        wid = win["id"]
        outline = await eventually(client, wid, lambda t: "text_area" in t, "the document", timeout=20)
        assert outline.count('button "View"') == 1, outline
        state = await observe(client, wid, max_elements=1)
        err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                     "actions": [{"type": "key", "keys": "ctrl+h"}]})
        assert not err, res
        outline = await eventually(client, wid, lambda t: '"Replace All"' in t, "the replace bar")
        body = "\n".join(outline.splitlines()[1:])  # below the window's own title
        for junk in ("EditorS", "Gtk", "\"_", " _", "Replace Replace"):
            assert junk not in body, (junk, outline)
        element(outline, "button", "Move to next match (Ctrl+G)")

        doc, _ = element(outline, "text_area", "")
        state = await observe(client, wid)
        err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                     "actions": [{"type": "click", "element_id": doc},
                                                                 {"type": "type", "text": "draft of the plan"}]})
        assert not err, res
        read = subprocess.run(["/usr/bin/python3", "-c", READ], env=server_env, capture_output=True, text=True)
        assert "draft of the plan" in read.stdout, read


PLACEHOLDER = """
import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk
w = Gtk.Window(title="Placeholder fixture"); e = Gtk.Entry(); e.set_placeholder_text("Search files")
w.add(e); w.connect("destroy", Gtk.main_quit); w.show_all(); Gtk.main()
"""


async def test_an_unnamed_field_is_named_by_its_placeholder(server_env):
    """GTK 3 gives an unnamed entry's placeholder as the attribute placeholder-text: the field is
    listed, and typed into, by it."""
    proc = subprocess.Popen(["/usr/bin/python3", "-c", PLACEHOLDER], env=server_env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env),
                          read_timeout_seconds=60) as client:
            win = await window_titled(client, "Placeholder fixture")
            await eventually(client, win["id"], lambda t: 'text_input "Search files"' in t,
                             "the field named by its placeholder", timeout=20)
            err, res = await call(client, "type_text", {"app": win["id"], "target": "Search files",
                                                        "text": "budget"})
            assert not err and res["verified"], res
            outline = (await observe(client, win["id"]))["outline"]
            assert 'text_input "Search files" ="budget"' in outline, outline
    finally:
        proc.kill()
