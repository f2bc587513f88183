"""The task benchmark: short tasks on real applications, each scripted the way an agent works
(observe, find by visible text, act, verify by observation), through the official MCP SDK against
the binary. Whether a task was done is checked independently of the tools: a file on disk, the
page's own window title (X11, read with xdotool), or a pyatspi read.
Usage: python task_bench.py BIN WORKDIR TASK...   (the apps are started by task-bench.sh)
Prints one row per task: done, tool calls, result tokens (o200k_base), wall seconds; then totals."""
import asyncio
import json
import os
import re
import subprocess
import sys
import time
import zipfile

import bpe_openai
from mcp import Client, StdioServerParameters

ENC = bpe_openai.get_encoding("o200k_base")
BIN, WORK, TASKS = sys.argv[1], sys.argv[2], sys.argv[3:]


class Agent:
    """Counts what the tasks spend: calls and result tokens."""

    def __init__(self, client):
        self.client, self.calls, self.tokens = client, 0, 0

    async def __call__(self, tool, args):
        res = await self.client.call_tool(tool, args)
        self.calls += 1
        text = next(b.text for b in res.content if getattr(b, "type", "") == "text")
        self.tokens += len(ENC.encode(text, disallowed_special=()))
        body = json.loads(text)
        if res.is_error:
            raise RuntimeError(f"{tool}: {body['error']['code']}: {body['error']['message']}")
        return body

    async def window(self, title_part, timeout=120, app="", but=(), front=False):
        """The id of the first listed window whose title holds title_part and none of `but`;
        front: brought to the front first unless focused, as an agent must for a browser or a
        click at a point: input is refused where another window covers the point, a wholly
        covered Firefox marks no document showing, a Chromium covered since it opened has no page
        tree and one covered later does not scroll to an element."""
        deadline = time.time() + timeout
        while True:
            listing = await self("gui_list", {})
            found = [w for w in listing["windows"]
                     if title_part in w["title"] and app.lower() in w["app"].lower()
                     and not any(b in w["title"] for b in but)]
            if found:
                if front and not found[0].get("focused"):
                    await self("gui_window", {"window_id": found[0]["id"], "op": "focus"})
                return found[0]["id"]
            if time.time() > deadline:
                raise RuntimeError(f"no window {title_part!r}")
            await asyncio.sleep(0.5)

    async def tidy(self, tool, args):
        """A call that only puts the app back for the next task (close a dialog, go back a page):
        not the task's work, so neither counted nor allowed to fail it."""
        try:
            res = await self.client.call_tool(tool, args)
            return json.loads(next(b.text for b in res.content if getattr(b, "type", "") == "text"))
        except Exception:
            return {}

    async def until(self, wid, text, timeout=15, **kw):
        return (await self.until_state(wid, text, timeout, **kw))["outline"]

    async def until_state(self, wid, text, timeout=15, **kw):
        """The first observation whose outline shows text (an error answer, such as a page not
        on screen yet, counts as not yet)."""
        deadline = time.time() + timeout
        last = ""
        while True:
            try:
                state = await self("gui_state", {"window_id": wid, **kw})
                if text in state["outline"]:
                    return state
                last = state["outline"].replace("\n", " ")
            except RuntimeError as e:
                last = str(e)
            if time.time() > deadline:
                raise RuntimeError(f"{text!r} never appeared; last: {last[-300:]}")
            await asyncio.sleep(0.3)


def line_id(outline, pattern):
    for line in outline.splitlines():
        if re.search(pattern, line):
            return line.split()[0]
    raise RuntimeError(f"nothing matches {pattern!r}")


def el_id(outline, pattern):
    """The id of the element a pattern finds, e.g. r'(e\\d+) link "x"' inside a table row's line."""
    m = re.search(pattern, outline, re.M)
    if not m:
        raise RuntimeError(f"nothing matches {pattern!r}")
    return m.group(1)


def x11_title(wid):
    return subprocess.run(["xdotool", "getwindowname", str(int(wid.removeprefix("x11:"), 16))],
                          capture_output=True, text=True).stdout.strip()


async def calculator(agent):
    """12 × 3 in gnome-calculator, the result read back."""
    wid = await agent.window("Calculator")
    await agent("click", {"app": wid, "steps": ["1", "2", "×", "3", "="],
                          "expect": {"until": "value_contains", "role": "text_area", "text": "36"}})
    out = subprocess.run(["/usr/bin/python3", "-c", READ_CALC], capture_output=True, text=True).stdout
    return "36" in out


READ_CALC = """
import pyatspi
d = pyatspi.Registry.getDesktop(0)
def texts(a, n=0):
    if n > 30: return
    try:
        t = a.queryText(); yield t.getText(0, -1)
    except Exception: pass
    for c in a: yield from texts(c, n + 1)
for app in d:
    if app and app.name == "gnome-calculator":
        print(list(texts(app)))
"""


async def todo(agent, browser):
    """Add an item to a JavaScript todo app and tick another one (the browser brought to the front
    first: wholly covered, Firefox marks no document showing and its fields are not found)."""
    wid = await agent.window("Todo app", app=browser, front=True)
    await agent.until(wid, "items left", query="items left")
    await agent("type_text", {"app": wid, "target": "New item", "text": "Call the bank"})
    await agent("click", {"app": wid, "target": "Add"})
    await agent("click", {"app": wid, "target": "Write report"})
    await agent.until(wid, '="2 items left"', query="items left")
    deadline = time.time() + 5
    while "(3 items, 2 left)" not in x11_title(wid) and time.time() < deadline:
        await asyncio.sleep(0.1)
    return "(3 items, 2 left)" in x11_title(wid)


async def mousepad_save(agent):
    """Type a note in Mousepad and save it by a full path typed into the GTK 3 file chooser."""
    path = os.path.join(WORK, "notes.txt")
    wid = await agent.window("Mousepad")
    state = await agent("gui_state", {"window_id": wid})
    area = line_id(state["outline"], r"^\s*e\d+ text_area")
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "click", "element_id": area},
                                           {"type": "type", "text": "groceries: tea, rice"},
                                           {"type": "key", "keys": "ctrl+s"}]})
    dialog = await agent.window("Save As", timeout=15)
    await agent("type_text", {"app": dialog, "target": "Name", "text": path})
    state = await agent("gui_state", {"window_id": dialog, "max_elements": 1})
    await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"],
                               "actions": [{"type": "key", "keys": "Return"}]})
    deadline = time.time() + 10
    while time.time() < deadline:
        if os.path.exists(path) and "groceries: tea, rice" in open(path).read():
            return True
        await asyncio.sleep(0.2)
    return False


async def calc_formula(agent):
    """Read a total in LibreOffice Calc, add a formula by the cell's name, save."""
    path = os.path.join(WORK, "data.ods")
    wid = await agent.window("LibreOffice Calc")
    # A query for a cell answers its row: `row 4: e24 A4 Total | e25 B4 7 | …`.
    outline = await agent.until(wid, " B4 ", timeout=60, query="B4")
    if not re.search(r"e\d+ B4 7\b", outline):
        return False
    await agent("type_text", {"app": wid, "target": "D2", "text": "=B2*C2\n"})
    await agent.until(wid, " D2 4.5", query="D2")
    state = await agent("gui_state", {"window_id": wid, "max_elements": 1})
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "key", "keys": "ctrl+s"}]})
    deadline = time.time() + 20
    while time.time() < deadline:
        with zipfile.ZipFile(path) as z:
            if "B2]*[.C2]" in z.read("content.xml").decode():
                return True
        await asyncio.sleep(0.3)
    return False


async def thunar_rename(agent):
    """Rename a file in Thunar through its context menu (list view first: its icon view exposes
    no files)."""
    folder = os.path.join(WORK, "files")
    wid = await agent.window("files - Thunar", app="thunar")
    await agent("click", {"app": wid, "steps": ["View", "List View"]})
    # The file's row (`e69 row 1: report.odt | 6 bytes | …`), acted on by its id.
    state = await agent("gui_state", {"window_id": wid, "query": "report.odt"})
    cell = line_id(state["outline"], r'row \d+: report\.odt')
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "click", "element_id": cell},
                                           {"type": "right_click", "element_id": cell}]})
    done = await agent("click", {"app": wid, "target": "Rename..."})
    dialog = done["results"][0]["opened"]["window_id"]
    await agent("type_text", {"app": dialog, "target": "Enter the new name:", "text": "final.odt"})
    await agent("click", {"app": dialog, "target": "Rename"})
    deadline = time.time() + 5
    while time.time() < deadline:
        files = [f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f))]
        if sorted(files) == ["final.odt", "notes.txt"]:
            return True
        await asyncio.sleep(0.1)
    return False


async def kcalc(agent):
    """12 × 12 in kcalc (KDE, Qt 5), read from its result display in the outline."""
    wid = await agent.window("KCalc", app="kcalc")
    await agent("click", {"app": wid, "steps": ["1", "2", "×", "1", "2", "="]})
    outline = await agent.until(wid, 'window "144"')
    return bool(re.search(r'^ e\d+ window "144"', outline, re.M))


async def chooser(agent, kind):
    """Save through the toolkit's own Save dialog by typing a full path into its name field."""
    path = os.path.join(WORK, f"saved-{kind}.txt")
    wid = await agent.window(f"Chooser fixture ({kind})")
    done = await agent("click", {"app": wid, "target": "Save As…"})
    dialog = done["results"][0]["opened"]["window_id"]
    field = {"gtk4": "Name:", "qt5": "File name:", "kde": "Name:"}[kind]
    await agent("type_text", {"app": dialog, "target": field, "text": path})
    state = await agent("gui_state", {"window_id": dialog, "max_elements": 1})
    await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"],
                               "actions": [{"type": "key", "keys": "Return"}]})
    deadline = time.time() + 10
    while time.time() < deadline:
        if os.path.exists(path) and open(path).read() == "saved by the fixture\n":
            return True
        await asyncio.sleep(0.1)
    return False


PLATFORMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures",
                         "rust-platform-support.html")


def platform_notes(target):
    """The notes of a target in the Rust book's platform-support page, read from its HTML."""
    html = open(PLATFORMS).read()
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S):
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if cells and cells[0] == target:
            return " ".join(cells[-1].split())
    raise RuntimeError(f"no {target} in the page")


async def table_row(agent, browser):
    """Read one target's notes in a 324-row page, its row below the fold (query answers the row);
    the browser brought to the front first (wholly covered, Firefox marks no document showing)."""
    target = "riscv64gc-unknown-linux-gnu"
    wid = await agent.window("Platform Support", app=browser, front=True)
    outline = await agent.until(wid, f'link "{target}"', timeout=30, page=True, query=target)
    row = next(l for l in outline.splitlines() if f'"{target}"' in l)
    return platform_notes(target) in row


async def gtk3_combo(agent):
    """Choose "Right" in gtk3-widget-factory's first text combo box; pyatspi says what it chose."""
    wid = await agent.window("gtk3-widget-factory")
    state = await agent("gui_state", {"window_id": wid})
    combo = line_id(state["outline"], r'combo_box "(Left|Middle|Right)"')
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "set_value", "element_id": combo, "text": "right"}]})
    out = subprocess.run(["/usr/bin/python3", "-c", READ_COMBOS, "gtk3-widget-factory", "Right"],
                         capture_output=True, text=True).stdout
    return out.strip().split(";")[0] == "Right"


async def web_select(agent):
    """Choose "Gamma" in a web page's second <select> in Chromium (its window brought to the front:
    the select opens by a click); pyatspi says what it chose."""
    wid = await agent.window("Controls benchmark", app="chromium", front=True)
    state = await agent.until_state(wid, 'combo_box "Choice 1"', timeout=30, page=True, query="Choice 1")
    combo = line_id(state["outline"], r'combo_box "Choice 1"')
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "set_value", "element_id": combo, "text": "gamma"}]})
    out = subprocess.run(["/usr/bin/python3", "-c", READ_COMBOS, "Chromium", "Gamma"],
                         capture_output=True, text=True).stdout
    return out.strip().split(";")[:3] == ["Alpha", "Gamma", "Alpha"]


# The choice of each combo box of app NAME (argv[1]) holding an option OPTION (argv[2]), in order.
READ_COMBOS = """
import sys, pyatspi
OPTION = (pyatspi.ROLE_MENU_ITEM, pyatspi.ROLE_LIST_ITEM)
out = []
apps = [a for a in pyatspi.Registry.getDesktop(0) if a and a.name == sys.argv[1]]
combos = [c for app in apps  # two Chromium processes: the one whose combo boxes hold the option
          for c in pyatspi.findAllDescendants(app, lambda a: a is not None and a.getRole() == pyatspi.ROLE_COMBO_BOX)]
for combo in combos:
    options = pyatspi.findAllDescendants(combo, lambda a: a is not None and a.getRole() in OPTION)
    if not any(o.name == sys.argv[2] for o in options):
        continue
    try:
        sel = combo.querySelection()
        out.append(sel.getSelectedChild(0).name if sel.nSelectedChildren else "")
    except NotImplementedError:
        out.append(next((o.name for o in options if o.getState().contains(pyatspi.STATE_SELECTED)), ""))
print(";".join(out))
"""


async def calc_row(agent):
    """Read the row of "Pears" in LibreOffice Calc: its quantity beside it."""
    wid = await agent.window("LibreOffice Calc")
    outline = await agent.until(wid, "row 3:", timeout=60, query="Pears")
    return bool(re.search(r"row 3: e\d+ A3 Pears \| e\d+ B3 4 \| e\d+ C3 2", outline))


async def calc_save_xlsx(agent):
    """Save the sheet as Excel through the Save dialog: the file type chosen from its list."""
    path = os.path.join(WORK, "data.xlsx")
    wid = await agent.window("LibreOffice Calc")
    state = await agent("gui_state", {"window_id": wid, "max_elements": 1})
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "key", "keys": "ctrl+shift+s"}]})
    dialog = await agent.window("Save", timeout=30)
    state = await agent("gui_state", {"window_id": dialog})
    combo = line_id(state["outline"], r'combo_box "ODF Spreadsheet \(')
    name = line_id(state["outline"], r"text_input =")
    save = line_id(state["outline"], r'button "Save"')
    await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"], "actions": [
        {"type": "set_value", "element_id": combo, "text": "Excel 2007-365 (.xlsx)"},
        {"type": "set_value", "element_id": name, "text": path},
        {"type": "click", "element_id": save}]})
    keep = await agent.window("Confirm File Format", timeout=30)
    # "Format" is a blocked word: the person agreed to the format asked for.
    await agent("click", {"app": keep, "target": "Use Excel 2007-365 Format", "confirm_dangerous": True})
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with zipfile.ZipFile(path) as z:
                if "xl/workbook.xml" in z.namelist():
                    return True
        except (OSError, zipfile.BadZipFile):
            pass
        await asyncio.sleep(0.3)
    return False


# The controls of app NAME (argv[1]) in its top-level windows whose title holds argv[2] (all
# windows when empty), as JSON: role, name, window, text (a spin button's text, else its value;
# a combo box's chosen option), checked, showing, w and h. Big tables are not entered.
READ_CONTROLS = """
import json, sys, pyatspi
R = pyatspi
KINDS = {R.ROLE_CHECK_BOX: "check_box", R.ROLE_RADIO_BUTTON: "radio_button", R.ROLE_COMBO_BOX: "combo_box",
         R.ROLE_SPIN_BUTTON: "spin_button", R.ROLE_ENTRY: "entry", R.ROLE_TOOL_BAR: "tool_bar",
         R.ROLE_PAGE_TAB_LIST: "tab_list", R.ROLE_TOGGLE_BUTTON: "toggle_button"}
OPTION = (R.ROLE_MENU_ITEM, R.ROLE_LIST_ITEM)
out = []
def walk(a, window, depth=0):
    if a is None or depth > 40:
        return
    try:
        role, kids = a.getRole(), a.childCount
    except Exception:
        return
    if role in KINDS:
        st = a.getState()
        text = ""
        try:
            text = a.queryText().getText(0, -1)
        except Exception:
            pass
        if role == R.ROLE_SPIN_BUTTON and not text:
            try:
                text = "%g" % a.queryValue().currentValue
            except Exception:
                pass
        if role == R.ROLE_COMBO_BOX:
            options = R.findAllDescendants(a, lambda o: o is not None and o.getRole() in OPTION)
            text = next((o.name for o in options if o.getState().contains(R.STATE_SELECTED)), "")
        x, y, w, h = a.queryComponent().getExtents(R.DESKTOP_COORDS)
        out.append({"role": KINDS[role], "name": a.name, "window": window, "text": text,
                    "checked": st.contains(R.STATE_CHECKED), "showing": st.contains(R.STATE_SHOWING),
                    "w": w, "h": h})
        if role == R.ROLE_COMBO_BOX:
            return
    if role == R.ROLE_TABLE and kids > 200:
        return
    for c in a:
        walk(c, window, depth + 1)
for app in R.Registry.getDesktop(0):
    if app and app.name == sys.argv[1]:
        for top in app:
            if top is not None and sys.argv[2] in (top.name or ""):
                walk(top, top.name)
print(json.dumps(out))
"""


def controls(app, window=""):
    """READ_CONTROLS of app's windows whose title holds window."""
    out = subprocess.run(["/usr/bin/python3", "-c", READ_CONTROLS, app, window],
                         capture_output=True, text=True).stdout
    return json.loads(out or "[]")


async def featherpad_prefs(agent):
    """FeatherPad's main window and its (modal) Preferences dialog, opened from the menu."""
    main = await agent.window("", app="featherpad", but=("Preferences", "Save as"))
    done = await agent("click", {"app": main, "target": "Options > Preferences..."})
    return main, done["results"][-1]["opened"]["window_id"]


async def qt_combo(agent):
    """FeatherPad (Qt 5) Preferences: the "Tab position" combo box set to West by set_value, then
    Close (FeatherPad applies its preferences then); pyatspi reads the combo's choice, and the main
    window's tab bar turned upright (west)."""
    main, dialog = await featherpad_prefs(agent)
    try:
        state = await agent("gui_state", {"window_id": dialog})
        # `e18 combo_box "North"`: a Qt combo box is named by its current text.
        combo = el_id(state["outline"], r'(e\d+) combo_box "(North|South|West|East)"')
        await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"],
                                   "actions": [{"type": "set_value", "element_id": combo, "text": "West"}]})
        # Qt names a combo box by its current text (its options are not marked selected).
        chosen = [c["name"] for c in controls("FeatherPad", "Preferences")
                  if c["role"] == "combo_box" and c["name"] in ("North", "South", "West", "East")]
        await agent("click", {"app": dialog, "target": "Close"})
    finally:
        await agent.tidy("gui_window", {"window_id": dialog, "op": "close"})  # if still open
    deadline = time.time() + 5
    while True:
        tabs = [c for c in controls("FeatherPad") if c["role"] == "tab_list" and c["showing"]]
        done = chosen == ["West"] and bool(tabs) and tabs[0]["h"] > tabs[0]["w"]
        if done or time.time() > deadline:
            return done
        await asyncio.sleep(0.3)


async def qt_check(agent):
    """FeatherPad Preferences: tick "Do not show toolbar" by its label; pyatspi reads the check box
    ticked and the main window's toolbar gone."""
    main, dialog = await featherpad_prefs(agent)
    try:
        await agent("click", {"app": dialog, "target": "Do not show toolbar"})
        seen = controls("FeatherPad")
        box = [c for c in seen if c["role"] == "check_box" and c["name"] == "Do not show toolbar"]
        bars = [c for c in seen if c["role"] == "tool_bar" and c["window"] != "Preferences" and c["showing"]]
        return bool(box) and box[0]["checked"] and not bars
    finally:
        await agent.tidy("click", {"app": dialog, "target": "Close"})


async def qt_spin(agent):
    """FeatherPad Preferences, tab "Text": the "Text tab size" spin button ("4 spaces") set to 8 by
    set_value; pyatspi reads its value."""
    main, dialog = await featherpad_prefs(agent)
    try:
        await agent("click", {"app": dialog, "target": "Text"})
        state = await agent("gui_state", {"window_id": dialog})
        spin = el_id(state["outline"], r'(e\d+) spin_button "[^"]*" ="\d+ spaces"')
        await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"],
                                   "actions": [{"type": "set_value", "element_id": spin, "text": "8"}]})
        spins = [c for c in controls("FeatherPad", "Preferences")
                 if c["role"] == "spin_button" and c["text"].endswith(" spaces")]
        return bool(spins) and spins[0]["text"] == "8 spaces"
    finally:
        await agent.tidy("click", {"app": dialog, "target": "Close"})


async def featherpad_save(agent):
    """Type a note in FeatherPad and save it through its Qt Save dialog, the path typed into
    "File name:"; the file on disk is read."""
    path = os.path.join(WORK, "meeting.txt")
    wid = await agent.window("", app="featherpad", but=("Preferences", "Save as"))
    state = await agent("gui_state", {"window_id": wid})
    area = el_id(state["outline"], r"^\s*(e\d+) text_area")
    done = await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                                      "actions": [{"type": "click", "element_id": area},
                                                  {"type": "type", "text": "meeting at 10"},
                                                  {"type": "key", "keys": "ctrl+s"}]})
    dialog = done["results"][-1]["opened"]["window_id"]
    await agent("type_text", {"app": dialog, "target": "File name:", "text": path})
    await agent("click", {"app": dialog, "target": "Save"})
    deadline = time.time() + 10
    while time.time() < deadline:
        if os.path.exists(path) and "meeting at 10" in open(path).read():
            return True
        await asyncio.sleep(0.2)
    return False


async def widget_spin(agent, title, app, value):
    """Set the first spin button of a widget factory to value; pyatspi reads it back."""
    wid = await agent.window(title)
    state = await agent("gui_state", {"window_id": wid})
    spin = el_id(state["outline"], r'^\s*(e\d+) spin_button ="\d+"$')  # the enabled one
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "set_value", "element_id": spin, "text": value}]})
    spins = [c for c in controls(app) if c["role"] == "spin_button"]
    return bool(spins) and spins[0]["text"] == value


async def gtk3_spin(agent):
    """gtk3-widget-factory: its spin button (50) set to 75 by set_value; pyatspi reads the value."""
    return await widget_spin(agent, "gtk3-widget-factory", "gtk3-widget-factory", "75")


async def gtk4_spin(agent):
    """gtk4-widget-factory (GTK 4), brought to the front (its check box is clicked at its point):
    its spin button (50) set to 70 by set_value and its unticked check box ticked; pyatspi reads
    both."""
    wid = await agent.window("GTK Widget Factory", front=True)
    state = await agent("gui_state", {"window_id": wid})
    spin = el_id(state["outline"], r'^\s*(e\d+) spin_button ="\d+"$')
    box = el_id(state["outline"], r'^\s*(e\d+) check_box "checkbutton"$')  # enabled, unticked
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "set_value", "element_id": spin, "text": "70"},
                                           {"type": "click", "element_id": box}]})
    seen = controls("gtk4-widget-factory")
    spins = [c for c in seen if c["role"] == "spin_button"]
    boxes = [c["checked"] for c in seen if c["role"] == "check_box" and c["name"] == "checkbutton"]
    return bool(spins) and spins[0]["text"] == "70" and boxes[:2] == [True, True]


async def mousepad_prefs(agent):
    """Mousepad Preferences (GTK 3): tick "Long line margin at column:", set the spin button it
    enables to 100 and the color scheme combo box to Classic; read back with gsettings."""
    wid = await agent.window(" - Mousepad", app="mousepad")
    done = await agent("click", {"app": wid, "target": "Edit > Preferences"})
    dialog = done["results"][-1]["opened"]["window_id"]
    try:
        state = await agent("gui_state", {"window_id": dialog})
        outline = state["outline"]
        margin = el_id(outline, r'(e\d+) check_box "Long line margin at column:"')
        column = el_id(outline, r'(e\d+) spin_button')  # disabled until the box is ticked
        scheme = el_id(outline, r'(e\d+) combo_box "[^"]*" ="None"')
        await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"], "actions": [
            {"type": "click", "element_id": margin},
            {"type": "set_value", "element_id": column, "text": "100"},
            {"type": "set_value", "element_id": scheme, "text": "Classic"}]})
        want = {"show-right-margin": "true", "right-margin-position": "uint32 100", "color-scheme": "'classic'"}
        deadline = time.time() + 5
        while True:
            got = {k: subprocess.run(["gsettings", "get", "org.xfce.mousepad.preferences.view", k],
                                     capture_output=True, text=True).stdout.strip() for k in want}
            if got == want or time.time() > deadline:
                return got == want
            await asyncio.sleep(0.2)
    finally:
        await agent.tidy("gui_window", {"window_id": dialog, "op": "close"})


# The texts of cells (argv[1:], "B3") of the sheet in LibreOffice Calc's window, ";"-joined: read
# through the sheet table's cell lookup (its million rows are never walked).
READ_CELLS = """
import re, sys, pyatspi
def find(a, role, depth=0):
    if a is None or depth > 12:
        return None
    try:
        if a.getRole() == role:
            return a
        if a.getRole() == pyatspi.ROLE_TABLE:
            return None
        kids = list(a)
    except Exception:
        return None
    for c in kids:
        found = find(c, role, depth + 1)
        if found is not None:
            return found
for app in pyatspi.Registry.getDesktop(0):
    if not app or app.name != "soffice":
        continue
    for frame in app:
        if frame is None or "LibreOffice Calc" not in (frame.name or ""):
            continue
        doc = find(frame, pyatspi.ROLE_DOCUMENT_SPREADSHEET)
        sheet = next(c for c in doc if c.getRole() == pyatspi.ROLE_TABLE).queryTable()
        texts = []
        for ref in sys.argv[1:]:
            col, row = re.match(r"([A-Z])(\\d+)$", ref).groups()
            texts.append(sheet.getAccessibleAt(int(row) - 1, ord(col) - 65).queryText().getText(0, -1))
        print(";".join(texts))
"""


def calc_cells(*refs):
    out = subprocess.run(["/usr/bin/python3", "-c", READ_CELLS, *refs], capture_output=True, text=True).stdout
    return out.strip().split(";")


async def calc_type(agent):
    """Type a small table (Tab between cells, Return between rows) into LibreOffice Calc two rows
    below the data, reached by clicking "Total" (A4) and going down; pyatspi reads the cells."""
    wid = await agent.window("LibreOffice Calc")
    state = await agent.until_state(wid, " A4 Total", timeout=60, query="Total")
    total = el_id(state["outline"], r"(e\d+) A4 Total")
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"], "actions": [
        {"type": "click", "element_id": total}, {"type": "key", "keys": "Down"}, {"type": "key", "keys": "Down"},
        {"type": "type", "text": "Fruit\tKg\nPlums\t5\nFigs\t2\n"}]})
    deadline = time.time() + 5
    while True:
        cells = calc_cells("A6", "B6", "A7", "B7", "A8", "B8")
        if cells == ["Fruit", "Kg", "Plums", "5", "Figs", "2"] or time.time() > deadline:
            return cells == ["Fruit", "Kg", "Plums", "5", "Figs", "2"]
        await asyncio.sleep(0.3)


async def calc_sort(agent):
    """Sort A1:C3 of the sheet by Qty, descending, through Data > Sort...: the range selected by
    click and shift+click, the "Sort Key 1" list (an unnamed toggle button) opened and its "Qty"
    option clicked by id; pyatspi reads the sheet's new order (the Total row untouched)."""
    wid = await agent.window("LibreOffice Calc")
    state = await agent("gui_state", {"window_id": wid, "max_elements": 30})
    a1 = el_id(state["outline"], r'(e\d+) cell "A1"')
    c3 = el_id(state["outline"], r'(e\d+) cell "C3"')
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"], "actions": [
        {"type": "click", "element_id": a1}, {"type": "click", "element_id": c3, "modifiers": "shift"}]})
    done = await agent("click", {"app": wid, "target": "Data > Sort..."})
    dialog = done["results"][-1]["opened"]["window_id"]
    state = await agent("gui_state", {"window_id": dialog})
    key1 = el_id(state["outline"], r"^\s*(e\d+) toggle_button")  # Sort Key 1's list, unnamed
    await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"],
                               "actions": [{"type": "click", "element_id": key1}]})
    state = await agent("gui_state", {"window_id": dialog})  # the list's options: `cell "Qty"`
    outline = state["outline"]
    await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"], "actions": [
        {"type": "click", "element_id": el_id(outline, r'(e\d+) cell "Qty"')},
        {"type": "click", "element_id": el_id(outline, r'(e\d+) radio_button "Descending"')},
        {"type": "click", "element_id": el_id(outline, r'(e\d+) button "OK"')}]})
    deadline = time.time() + 5
    while True:
        cells = calc_cells("A2", "B2", "A3", "B3", "A4")
        if cells == ["Pears", "4", "Apples", "3", "Total"] or time.time() > deadline:
            return cells == ["Pears", "4", "Apples", "3", "Total"]
        await asyncio.sleep(0.3)


# Each table of LibreOffice Writer's document: "name;rows;columns" a line.
READ_WRITER_TABLES = """
import pyatspi
def tables(a, depth=0):
    if a is None or depth > 14:
        return
    try:
        role = a.getRole()
        if role == pyatspi.ROLE_TABLE:
            yield a
            return
        kids = list(a)
    except Exception:
        return
    for c in kids:
        yield from tables(c, depth + 1)
for app in pyatspi.Registry.getDesktop(0):
    if app and app.name == "soffice":
        for frame in app:
            if frame is not None and "LibreOffice Writer" in (frame.name or ""):
                for t in tables(frame):
                    q = t.queryTable()
                    print("%s;%d;%d" % (t.name, q.nRows, q.nColumns))
"""


async def writer_table(agent):
    """LibreOffice Writer, Table > Insert Table...: 4 rows, 3 columns, named "Prices" (spin buttons
    and a field set by set_value), then Insert; pyatspi finds the table in the document."""
    wid = await agent.window("LibreOffice Writer")
    done = await agent("click", {"app": wid, "target": "Table > Insert Table..."})
    dialog = done["results"][-1]["opened"]["window_id"]
    state = await agent("gui_state", {"window_id": dialog})
    outline = state["outline"]
    # The spin buttons are named by their tooltips: "Enter the number of rows that you want…".
    await agent("gui_action", {"window_id": dialog, "state_id": state["state_id"], "actions": [
        {"type": "set_value", "element_id": el_id(outline, r'(e\d+) spin_button "[^"]*number of rows'), "text": "4"},
        {"type": "set_value", "element_id": el_id(outline, r'(e\d+) spin_button "[^"]*number of columns'), "text": "3"},
        {"type": "set_value", "element_id": el_id(outline, r'(e\d+) text_input "Enter a name'), "text": "Prices"},
        {"type": "click", "element_id": el_id(outline, r'(e\d+) button "Insert"')}]})
    deadline = time.time() + 10
    while True:
        out = subprocess.run(["/usr/bin/python3", "-c", READ_WRITER_TABLES], capture_output=True, text=True).stdout
        # The accessible name carries a page suffix: "Prices-1".
        if any(re.match(r"Prices(-\d+)?;4;3$", line) for line in out.splitlines()):
            return True
        if time.time() > deadline:
            return False
        await asyncio.sleep(0.3)


async def web_form(agent, browser):
    """Fill a sign-up form (the browser brought to the front, as for todo): three text fields, a
    date's three spin buttons, a radio button, a <select> and the terms check box, in one
    gui_action by the ids of one observation; pyatspi reads every control back."""
    wid = await agent.window("Sign-up form", app=browser, front=True)
    state = await agent.until_state(wid, 'text_input "First name"', timeout=30, page=True)
    o = state["outline"]
    def set_(pattern, text):
        return {"type": "set_value", "element_id": el_id(o, pattern), "text": text}
    # "I accept the terms" holds a blocked word: the person agreed to the terms.
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"], "confirm_dangerous": True,
                               "actions": [
        set_(r'(e\d+) text_input "First name"', "Ada"), set_(r'(e\d+) text_input "Last name"', "Lovelace"),
        set_(r'(e\d+) text_input "Email"', "ada@example.org"),
        set_(r'(e\d+) spin_button "Month', "12"), set_(r'(e\d+) spin_button "Day', "10"),
        set_(r'(e\d+) spin_button "Year', "1815"),
        {"type": "click", "element_id": el_id(o, r'(e\d+) radio_button "Pro"')},
        set_(r'(e\d+) combo_box "Country"', "Japan"),
        {"type": "click", "element_id": el_id(o, r'(e\d+) check_box "I accept the terms"')}]})
    seen = {(c["role"], (c["name"].split() or [""])[0]): c
            for c in controls({"chromium": "Chromium", "firefox": "Firefox"}[browser], "Sign-up form")}
    want = {("entry", "First"): "Ada", ("entry", "Last"): "Lovelace", ("entry", "Email"): "ada@example.org",
            ("spin_button", "Month"): "12", ("spin_button", "Day"): "10", ("spin_button", "Year"): "1815",
            ("combo_box", "Country"): "Japan"}
    texts = all(k in seen and seen[k]["text"] == v for k, v in want.items())
    ticks = {k: seen.get(k, {}).get("checked") for k in
             [("radio_button", "Free"), ("radio_button", "Pro"), ("check_box", "I"), ("check_box", "Send")]}
    return texts and ticks == {("radio_button", "Free"): False, ("radio_button", "Pro"): True,
                               ("check_box", "I"): True, ("check_box", "Send"): True}


async def link_below(agent):
    """Open the docs of the 209th target of the Rust book's Tier 3 table, far below the fold, by
    its link found with query and acted on by id (Chromium brought to the front: covered, it does
    not scroll); the window title shows the page it opened (a file missing beside the fixture:
    Chromium titles the error page with its URL). Then back to the table, uncounted."""
    target = "xtensa-esp32s3-espidf"
    wid = await agent.window("Platform Support", app="chromium", front=True)
    state = await agent.until_state(wid, f'link "{target}"', timeout=30, page=True, query=target)
    link = el_id(state["outline"], rf'(e\d+) link "{target}"')
    await agent("gui_action", {"window_id": wid, "state_id": state["state_id"],
                               "actions": [{"type": "click", "element_id": link}]})
    deadline = time.time() + 10
    while "platform-support/esp-idf.html" not in x11_title(wid) and time.time() < deadline:
        await asyncio.sleep(0.2)
    done = "platform-support/esp-idf.html" in x11_title(wid)
    back = await agent.tidy("gui_state", {"window_id": wid, "max_elements": 1})  # back to the table
    if back.get("state_id"):
        await agent.tidy("gui_action", {"window_id": wid, "state_id": back["state_id"],
                                        "actions": [{"type": "key", "keys": "alt+Left"}]})
        deadline = time.time() + 10
        while "Platform Support" not in x11_title(wid) and time.time() < deadline:
            await asyncio.sleep(0.2)
    return done


def platform_table(member):
    """The targets (first column) of the platform-support table that lists member, from its HTML."""
    html = open(PLATFORMS).read()
    for table in re.findall(r"<table>(.*?)</table>", html, re.S):
        rows = [re.findall(r"<td[^>]*>(.*?)</td>", r, re.S) for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
        targets = [re.sub(r"<[^>]+>", "", r[0]).strip() for r in rows if r]
        if member in targets:
            return targets
    raise RuntimeError(f"no table lists {member}")


async def table_list(agent):
    """List every target of the Rust book's "Tier 2 with Host Tools" table in Firefox: a query for
    one known target answers its table's id and row count, then table= reads all the rows; the
    list is compared with the page's HTML. Firefox brought to the front first, as in table_row."""
    member = "x86_64-apple-darwin"
    wid = await agent.window("Platform Support", app="firefox", front=True)
    state = await agent.until_state(wid, f'"{member}"', timeout=30, page=True, query=member)
    # `e8 table "Tier 2 with Host Tools", 26 rows: target | notes`
    m = re.search(r'(e\d+) table "Tier 2 with Host Tools", (\d+) rows', state["outline"])
    if not m:
        return False
    read = await agent("gui_state", {"window_id": wid, "state_id": state["state_id"], "page": True,
                                     "table": m.group(1), "rows": f"1-{m.group(2)}"})
    # `e85 row 1: e86 link "aarch64-pc-windows-gnullvm" | ARM64 …` or `e91 row 4: arm-unknown-… | …`
    listed = re.findall(r'row \d+: (?:e\d+ link ")?([\w.-]+)', read["outline"])
    return listed == platform_table(member)


async def thunar_mkdir(agent):
    """Create a folder in Thunar through File > Create Folder...: the name typed into its dialog,
    then Create; the folder on disk is checked."""
    folder = os.path.join(WORK, "files", "invoices 2024")
    wid = await agent.window("files - Thunar", app="thunar")
    done = await agent("click", {"app": wid, "target": "File > Create Folder..."})
    dialog = done["results"][-1]["opened"]["window_id"]
    await agent("type_text", {"app": dialog, "target": "Enter the name:", "text": "invoices 2024"})
    await agent("click", {"app": dialog, "target": "Create"})
    deadline = time.time() + 5
    while time.time() < deadline:
        if os.path.isdir(folder):
            return True
        await asyncio.sleep(0.1)
    return False


RUN = {
    "table-firefox": lambda a: table_row(a, "firefox"),
    "table-chromium": lambda a: table_row(a, "chromium"),
    "gtk3-combo": gtk3_combo,
    "web-select": web_select,
    "calc-row": calc_row,
    "calc-save-xlsx": calc_save_xlsx,
    "calculator": calculator,
    "todo-firefox": lambda a: todo(a, "firefox"),
    "todo-chromium": lambda a: todo(a, "chromium"),
    "mousepad-save": mousepad_save,
    "calc-formula": calc_formula,
    "thunar-rename": thunar_rename,
    "kcalc": kcalc,
    "chooser-gtk4": lambda a: chooser(a, "gtk4"),
    "chooser-qt5": lambda a: chooser(a, "qt5"),
    "chooser-kde": lambda a: chooser(a, "kde"),
    "qt-combo": qt_combo,
    "qt-check": qt_check,
    "qt-spin": qt_spin,
    "featherpad-save": featherpad_save,
    "gtk3-spin": gtk3_spin,
    "gtk4-spin": gtk4_spin,
    "mousepad-prefs": mousepad_prefs,
    "calc-type": calc_type,
    "calc-sort": calc_sort,
    "writer-table": writer_table,
    "form-chromium": lambda a: web_form(a, "chromium"),
    "form-firefox": lambda a: web_form(a, "firefox"),
    "link-below": link_below,
    "table-list": table_list,
    "thunar-mkdir": thunar_mkdir,
}


async def main():
    env = dict(os.environ)
    rows = []
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=120) as client:
        for name in TASKS:
            agent = Agent(client)
            started = time.time()
            try:
                done = await RUN[name](agent)
                why = ""
            except Exception as e:  # a task that fails is reported, and the next one runs
                done, why = False, str(e)[:400]
            rows.append((name, done, agent.calls, agent.tokens, time.time() - started, why))
    print("%-16s %5s %6s %7s %8s" % ("task", "done", "calls", "tokens", "seconds"))
    for name, done, calls, toks, secs, why in rows:
        print("%-16s %5s %6d %7d %8.1f %s" % (name, "yes" if done else "NO", calls, toks, secs, why))
    print("%-16s %5s %6d %7d %8.1f" % ("total", "%d/%d" % (sum(r[1] for r in rows), len(rows)),
                                        sum(r[2] for r in rows), sum(r[3] for r in rows), sum(r[4] for r in rows)))


asyncio.run(main())
