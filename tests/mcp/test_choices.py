"""Drop-downs chosen in one step (issue 40), on toolkits we did not write: gtk3-widget-factory's
combo boxes (GTK 3) and a web `<select>` in Chromium. `set_value` presses the option by its
label, the popup left closed, and answers the value read back; a label no option has is refused
naming the options, nothing sent. The choice is checked with pyatspi, outside our tools."""
import os
import re
import subprocess

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, observe, poll, window_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


# What each combo box of application PID holding an option NAME says is chosen, in document
# order, and how many of their menus are showing (a popup left open), read live.
PYATSPI_CHOSEN = """
import sys, pyatspi
pid, name = int(sys.argv[1]), sys.argv[2]
app = next(a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.get_process_id() == pid)
OPTION = (pyatspi.ROLE_MENU_ITEM, pyatspi.ROLE_LIST_ITEM)
def options(combo):
    return pyatspi.findAllDescendants(combo, lambda a: a is not None and a.getRole() in OPTION)
combos = pyatspi.findAllDescendants(app, lambda a: a is not None and a.getRole() == pyatspi.ROLE_COMBO_BOX)
combos = [c for c in combos if any(o.name == name for o in options(c))]
chosen, showing = [], 0
for combo in combos:
    try:
        sel = combo.querySelection()
        chosen.append(sel.getSelectedChild(0).name if sel.nSelectedChildren else "")
    except NotImplementedError:
        chosen.append(next((o.name for o in options(combo) if o.getState().contains(pyatspi.STATE_SELECTED)), ""))
    showing += len(pyatspi.findAllDescendants(combo, lambda a: a is not None and a.getRole() == pyatspi.ROLE_MENU
                                              and a.getState().contains(pyatspi.STATE_SHOWING)))
print(";".join(chosen), "|", showing)
"""


def chosen(pid, name, env):
    """(the choices of the combo boxes holding an option name, in order; menus showing)."""
    out = subprocess.run(["/usr/bin/python3", "-c", PYATSPI_CHOSEN, str(pid), name],
                         env=dict(os.environ, **env), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    values, menus = out.stdout.strip().rsplit("|", 1)
    return values.strip().split(";"), int(menus)


async def test_gtk3_combo_boxes_are_set_by_their_option_in_one_step(apps, server_env):
    pid = apps.launch("gtk3")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
        wid = (await window_of(client, pid, timeout=30))["id"]
        state = await observe(client, wid)
        # The text combo named by its choice, and the icon combo whose options are names.
        text = re.search(r'(e\d+) combo_box "(Left|Middle|Right)"', state["outline"])
        icons = re.search(r'(e\d+) combo_box "[\w-]+-symbolic" ="(Andrea|Otto|Orville|Benjamin)"', state["outline"])
        assert text and icons, state["outline"]
        want_text = "Right" if text.group(2) != "Right" else "Left"
        want_icon = "Benjamin" if icons.group(2) != "Benjamin" else "Otto"
        err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"], "actions": [
            {"type": "set_value", "element_id": text.group(1), "text": "Top"}]})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT", res
        assert res["error"]["details"]["options"] == ["Left", "Middle", "Right"], res
        err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"], "actions": [
            {"type": "set_value", "element_id": text.group(1), "text": want_text.lower()},
            {"type": "set_value", "element_id": icons.group(1), "text": want_icon}]})
        assert not err, res
        assert [(r["how"], r["value"]) for r in res["results"]] == [
            ("semantic", want_text), ("semantic", want_icon)], res
        # The first combo box of each kind in the outline is the first in the tree.
        values, showing = chosen(pid, want_text, server_env)
        assert values[0] == want_text and showing == 0, ("the text combo, its popup closed", values, showing)
        assert chosen(pid, want_icon, server_env)[0][0] == want_icon, "the icon combo"


async def test_a_web_select_is_set_by_its_option_in_one_step(apps, server_env):
    pid = apps.launch("chromium-controls")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
        wid = (await window_of(client, pid, timeout=60))["id"]

        async def select():
            err, state = await call(client, "gui_state", {"window_id": wid, "page": True, "query": "Choice 1"})
            found = not err and re.search(r'(e\d+) combo_box "Choice 1" ="Alpha"', state["outline"])
            return found and (state, found.group(1))
        state, combo = await poll(select, "the select on the page", timeout=30, every=0.5)
        err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"], "actions": [
            {"type": "set_value", "element_id": combo, "text": "gamma"}]})
        assert not err, res
        assert res["results"][0]["value"] == "Gamma", res
        # Choice 0, 1 and 2 hold the same options: the second one took it.
        assert chosen(pid, "Gamma", server_env)[0][:3] == ["Alpha", "Gamma", "Alpha"]
