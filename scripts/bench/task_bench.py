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

    async def window(self, title_part, timeout=120, app=""):
        deadline = time.time() + timeout
        while True:
            listing = await self("gui_list", {})
            found = [w for w in listing["windows"]
                     if title_part in w["title"] and app.lower() in w["app"].lower()]
            if found:
                return found[0]["id"]
            if time.time() > deadline:
                raise RuntimeError(f"no window {title_part!r}")
            await asyncio.sleep(0.5)

    async def until(self, wid, text, timeout=15, **kw):
        return (await self.until_state(wid, text, timeout, **kw))["outline"]

    async def until_state(self, wid, text, timeout=15, **kw):
        """The first observation whose outline shows text (an error answer, such as a page not
        on screen yet, counts as not yet)."""
        deadline = time.time() + timeout
        while True:
            try:
                state = await self("gui_state", {"window_id": wid, **kw})
                if text in state["outline"]:
                    return state
            except RuntimeError:
                pass
            if time.time() > deadline:
                raise RuntimeError(f"{text!r} never appeared")
            await asyncio.sleep(0.3)


def line_id(outline, pattern):
    for line in outline.splitlines():
        if re.search(pattern, line):
            return line.split()[0]
    raise RuntimeError(f"nothing matches {pattern!r}")


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
    """Add an item to a JavaScript todo app and tick another one."""
    wid = await agent.window("Todo app", app=browser)
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
        if sorted(os.listdir(folder)) == ["final.odt", "notes.txt"]:
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
    """Read one target's notes in a 324-row page, its row below the fold (query answers the row)."""
    target = "riscv64gc-unknown-linux-gnu"
    wid = await agent.window("Platform Support", app=browser)
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
    """Choose "Gamma" in a web page's second <select> in Chromium; pyatspi says what it chose."""
    wid = await agent.window("Controls benchmark", app="chromium")
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
                done, why = False, str(e)[:120]
            rows.append((name, done, agent.calls, agent.tokens, time.time() - started, why))
    print("%-16s %5s %6s %7s %8s" % ("task", "done", "calls", "tokens", "seconds"))
    for name, done, calls, toks, secs, why in rows:
        print("%-16s %5s %6d %7d %8.1f %s" % (name, "yes" if done else "NO", calls, toks, secs, why))
    print("%-16s %5s %6d %7d %8.1f" % ("total", "%d/%d" % (sum(r[1] for r in rows), len(rows)),
                                        sum(r[2] for r in rows), sum(r[3] for r in rows), sum(r[4] for r in rows)))


asyncio.run(main())
