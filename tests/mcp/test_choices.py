"""Drop-downs chosen in one step (issue 40), on toolkits we did not write: gtk3-widget-factory's
combo boxes (GTK 3), a web `<select>` in Chromium and FeatherPad's preferences (Qt 5).
`set_value` presses the option by its label, the popup left closed where its action takes it,
else as a person does in the open popup, and answers the value read back; a label no option has
is refused naming the options, nothing sent. An open popup's item acts by its id (the popup is
the receiver, not the window under it). The choice is checked with pyatspi, outside our
tools."""
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


# A Qt combo box's current text is its accessible name: the combo boxes of application PID,
# read live.
PYATSPI_QT_COMBOS = """
import sys, pyatspi
pid = int(sys.argv[1])
app = next(a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.get_process_id() == pid)
combos = pyatspi.findAllDescendants(app, lambda a: a is not None and a.getRole() == pyatspi.ROLE_COMBO_BOX)
print(";".join(c.name for c in combos))
"""


def qt_combos(pid, env):
    out = subprocess.run(["/usr/bin/python3", "-c", PYATSPI_QT_COMBOS, str(pid)],
                         env=dict(os.environ, **env), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().split(";")


async def test_a_qt_combo_box_is_set_in_one_step_and_its_open_list_acts_by_id(apps, server_env):
    pid = apps.launch("featherpad")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
        wid = (await window_of(client, pid, timeout=30))["id"]
        # Qt answers the menu item's action only once the dialog it opens closes: the click
        # says what opened instead of timing out.
        err, res = await call(client, "click", {"app": wid, "target": "Options > Preferences..."})
        assert not err and res["results"][-1]["effect"] == "window_opened", res
        dialog = res["results"][-1]["opened"]["window_id"]
        positions = ["North", "South", "West", "East"]

        async def tab_position():
            state = await observe(client, dialog)
            found = re.search(r'(e\d+) combo_box "(%s)"' % "|".join(positions), state["outline"])
            return found and (state, found.group(1), found.group(2))
        state, combo, was = await poll(tab_position, "the Tab position combo box", timeout=20)
        want = next(p for p in positions if p != was)
        err, res = await call(client, "gui_action", {"window_id": dialog, "state_id": state["state_id"], "actions": [
            {"type": "set_value", "element_id": combo, "text": want.lower()}]})
        assert not err, res
        assert res["results"][0]["value"] == want, res
        assert want in qt_combos(pid, server_env), "the combo box shows the choice"
        # Opened by a click, its list's item is clicked by its id where the popup covers the
        # dialog (refused before as an unknown receiver).
        state, combo, _ = await tab_position()
        err, res = await call(client, "gui_action", {"window_id": dialog, "state_id": state["state_id"], "actions": [
            {"type": "click", "element_id": combo}]})
        assert not err, res
        other = next(p for p in positions if p != want)

        async def item_shown():
            err, state = await call(client, "gui_state", {"window_id": dialog, "query": other})
            found = not err and re.search(r'(e\d+) list_item "%s"(?! offscreen)' % other, state["outline"])
            return found and (state, found.group(1))
        state, item = await poll(item_shown, "the open list's item", timeout=10, every=0.3)
        err, res = await call(client, "gui_action", {"window_id": dialog, "state_id": state["state_id"], "actions": [
            {"type": "click", "element_id": item}]})
        assert not err, res
        assert other in qt_combos(pid, server_env), "the item clicked in the open list is chosen"
