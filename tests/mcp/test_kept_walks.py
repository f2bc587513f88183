"""An observation of a window that sent no event since its last walk is answered from that walk
(backends/linux/src/trees.rs). These tests change the window from outside the server (xdotool),
wait until an independent observer sees the change (pyatspi, or X11 itself), and then require the
very next gui_state to show it: a kept walk must never hide a change."""
import subprocess

import pytest

from conftest import element, observe, poll, window_of

pytestmark = pytest.mark.anyio

# Reads the text of the element named NAME in application PID, live (no client cache).
PYATSPI_TEXT = """
import sys, pyatspi
pid, name = int(sys.argv[1]), sys.argv[2]
app = next(a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.get_process_id() == pid)
hit = pyatspi.findDescendant(app, lambda a: a is not None and a.name == name)
t = hit.queryText()
print(t.getText(0, t.characterCount))
"""


@pytest.fixture
def anyio_backend():
    return "asyncio"


def xdotool(*args):
    subprocess.run(["xdotool", *args], check=True, capture_output=True, text=True)


def text_seen_by_pyatspi(pid, name):
    out = subprocess.run(["/usr/bin/python3", "-c", PYATSPI_TEXT, str(pid), name],
                         capture_output=True, text=True, timeout=20)
    return out.stdout.strip()


# The screen y of the element named NAME in application PID, live.
PYATSPI_Y = """
import sys, pyatspi
pid, name = int(sys.argv[1]), sys.argv[2]
app = next(a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.get_process_id() == pid)
hit = pyatspi.findDescendant(app, lambda a: a is not None and a.name == name)
print(hit.queryComponent().getExtents(pyatspi.DESKTOP_COORDS).y)
"""


def y_seen_by_pyatspi(pid, name):
    out = subprocess.run(["/usr/bin/python3", "-c", PYATSPI_Y, str(pid), name],
                         capture_output=True, text=True, timeout=20)
    return out.stdout.strip()


# The text of the field (role entry) named NAME in application PID, live: a page's <label> of
# the same name comes first in the tree.
PYATSPI_FIELD = """
import sys, pyatspi
pid, name = int(sys.argv[1]), sys.argv[2]
app = next(a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.get_process_id() == pid)
hit = pyatspi.findDescendant(app, lambda a: a is not None and a.name == name and a.getRoleName() == "entry")
t = hit.queryText()
print(t.getText(0, t.characterCount))
"""


def field_text_seen_by_pyatspi(pid, name):
    out = subprocess.run(["/usr/bin/python3", "-c", PYATSPI_FIELD, str(pid), name],
                         capture_output=True, text=True, timeout=20)
    return out.stdout.strip()


def entry_line(outline):
    return next(line for line in outline.splitlines() if '"Name entry"' in line)


async def test_kept_walk_shows_a_change_made_from_outside(connect, apps):
    pid = apps.launch("qt6")
    async with connect() as client:
        w = await window_of(client, pid)
        xid = str(int(w["id"].split(":", 1)[1], 16))
        first = await observe(client, w["id"], all=True, points=True)
        # Asked again with nothing changed: this is the observation kept from the walk.
        again = await observe(client, w["id"], all=True, points=True)
        assert entry_line(again["outline"]) == entry_line(first["outline"])
        assert "kept" not in entry_line(again["outline"])

        # Typed by XTEST, outside the server: only the application's own events can tell.
        _, (x, y) = element(again["outline"], "text_input", "Name entry")
        xdotool("windowactivate", "--sync", xid)
        xdotool("mousemove", "--window", xid, str(x), str(y), "click", "1")
        xdotool("type", "--delay", "20", "kept")

        async def typed():
            return text_seen_by_pyatspi(pid, "Name entry").endswith("kept")
        await poll(typed, "pyatspi reading the typed text", timeout=15)
        after = await observe(client, w["id"], all=True, points=True)
        assert "kept" in entry_line(after["outline"]), after["outline"]


async def test_kept_walk_is_not_given_for_a_resized_window(connect, apps):
    pid = apps.launch("qt6")
    async with connect() as client:
        w = await window_of(client, pid)
        xid = str(int(w["id"].split(":", 1)[1], 16))
        await observe(client, w["id"], all=True, points=True)
        before = await observe(client, w["id"], all=True, points=True)
        _, (x_before, _) = element(before["outline"], "text_input", "Name entry")
        width = before["window"]["bounds"]["w"]

        # A resize moves the elements without any accessibility event (Qt sends none for it).
        xdotool("windowsize", "--sync", xid, str(width + 200), str(before["window"]["bounds"]["h"]))

        async def resized():
            out = subprocess.run(["xwininfo", "-id", xid], capture_output=True, text=True, check=True).stdout
            return f"Width: {width + 200}" in out
        await poll(resized, "X11 reporting the new width")

        # The layout follows the window a moment later: once X11 has the new size, the entry's
        # centre must move with it in the next observations, never stay where the kept walk had it.
        async def moved():
            after = await observe(client, w["id"], all=True, points=True)
            assert after["window"]["bounds"]["w"] == width + 200, after["window"]
            _, (x_after, _) = element(after["outline"], "text_input", "Name entry")
            return x_after > x_before
        await poll(moved, "the entry centred in the wider window")


async def scrolled_then_observed(client, w, pid, name, at):
    """Waits until the page is still and kept, scrolls three wheel steps at `at` (the pointer put
    there first: moving it sends events of its own), waits until pyatspi sees the element `name`
    move, and returns its outline line before and in the very next observation."""
    xid = str(int(w["id"].split(":", 1)[1], 16))
    xdotool("windowactivate", "--sync", xid)
    xdotool("mousemove", "--window", xid, str(at[0]), str(at[1]))

    def line_of(outline):
        return next(line for line in outline.splitlines() if f'"{name}"' in line)

    async def still():
        one = (await observe(client, w["id"], all=True, points=True))["outline"]
        return one == (await observe(client, w["id"], all=True, points=True))["outline"]
    await poll(still, "the page still after the pointer came", timeout=10)
    before = line_of((await observe(client, w["id"], all=True, points=True))["outline"])
    y = y_seen_by_pyatspi(pid, name)
    xdotool("click", "5", "click", "5", "click", "5")

    async def moved():
        return y_seen_by_pyatspi(pid, name) != y
    await poll(moved, f"pyatspi seeing {name!r} move", timeout=10)
    outline = (await observe(client, w["id"], all=True, points=True))["outline"]
    after = next((line for line in outline.splitlines() if f'"{name}"' in line), None)
    return before, after, outline


async def test_a_scrolled_web_page_is_read_again(connect, apps):
    # Chromium scrolls a page with no event but object:bounds-changed: a kept walk of a window
    # holding a document holds only while every element of the document is where it was.
    pid = apps.launch("chromium-page:longlist.html")
    async with connect() as client:
        w = await window_of(client, pid, timeout=40)

        async def listed():
            return "Article 1:" in (await observe(client, w["id"], all=True, points=True))["outline"]
        await poll(listed, "the long list rendered", timeout=30)
        bounds = (await observe(client, w["id"], max_elements=1))["window"]["bounds"]
        before, after, outline = await scrolled_then_observed(
            client, w, pid, "Article 1: notes on topic 7", (bounds["w"] // 2, bounds["h"] * 2 // 3))
        assert after != before, outline


async def test_regression_an_inner_region_scrolled_on_a_kept_page_is_read_again(connect, apps):
    # Only the region scrolls: the page's own elements stay where they were, the region's rows
    # move, so the kept walk must not be given (it would show the rows where they were).
    pid = apps.launch("chromium-page:inner_scroll.html")
    async with connect() as client:
        w = await window_of(client, pid, timeout=40)

        async def listed():
            return "Region row 1" in (await observe(client, w["id"], all=True, points=True))["outline"]
        await poll(listed, "the region rendered", timeout=30)
        first = (await observe(client, w["id"], all=True, points=True))["outline"]
        _, (x, y) = element(first, "link", "Region row 1")
        heading = next(line for line in first.splitlines() if '"Inner scroll"' in line and "heading" in line)
        before, after, outline = await scrolled_then_observed(client, w, pid, "Region row 1", (x + 80, y))
        assert after != before, outline
        assert heading in outline, outline


async def todo_field_clicked(client, pid):
    """The Firefox todo window once its page shows, its "New item" field clicked by XTEST."""
    w = await window_of(client, pid, timeout=40)
    xid = str(int(w["id"].split(":", 1)[1], 16))

    async def page_ready():
        state = await observe(client, w["id"], points=True)
        return "New item" in state["outline"] and state
    state = await poll(page_ready, "the todo page", timeout=30)
    _, (x, y) = element(state["outline"], "text_input", "New item")
    xdotool("windowactivate", "--sync", xid)
    xdotool("mousemove", "--window", xid, str(x), str(y), "click", "1")
    return w


async def test_a_kept_page_with_text_typed_from_outside_shows_each_letter(connect, apps):
    """Issue 41: after the first letter (an element comes: a walk), each letter typed into a web
    page's field changes that one element; the kept walk reads it again instead of walking the
    window, and the very next observation must show every letter, as pyatspi reads it."""
    pid = apps.launch("firefox-todo")
    async with connect() as client:
        w = await todo_field_clicked(client, pid)
        typed = ""
        for letter in "kept":
            xdotool("type", letter)
            typed += letter

            async def seen():
                return field_text_seen_by_pyatspi(pid, "New item") == typed
            await poll(seen, f"pyatspi reading {typed!r}", timeout=15)
            after = await observe(client, w["id"])
            line = next(l for l in after["outline"].splitlines() if '"New item"' in l)
            assert f'="{typed}"' in line, after["outline"]


# Whether application PID holds an element whose name or text is TEXT, live (no client cache).
PYATSPI_HOLDS = """
import sys, pyatspi
pid, text = int(sys.argv[1]), sys.argv[2]
app = next(a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.get_process_id() == pid)
def says(a):
    if a is None:
        return False
    if a.name == text:
        return True
    try:
        t = a.queryText()
    except NotImplementedError:
        return False
    return t.getText(0, t.characterCount) == text
print("yes" if pyatspi.findDescendant(app, says) is not None else "no")
"""


def held_by_pyatspi(pid, text):
    out = subprocess.run(["/usr/bin/python3", "-c", PYATSPI_HOLDS, str(pid), text],
                         capture_output=True, text=True, timeout=30)
    return out.stdout.strip() == "yes"


async def added_from_outside(client, w, pid, lines, typing):
    """Types each of `lines` from outside the server (`typing(line)`), waits until pyatspi sees
    it, and requires the very next observation to show it; returns how each was read."""
    reads = []
    for line in lines:
        typing(line)

        async def seen():
            return held_by_pyatspi(pid, line)
        await poll(seen, f"pyatspi seeing {line!r}", timeout=20)
        after = await observe(client, w["id"])
        assert f'"{line}"' in after["outline"], after["outline"]
        reads.append(after["read"]["how"])
    return reads


async def test_regression_a_row_added_to_a_kept_page_walked_the_window(connect, apps):
    """Issue 41: an item added to a web page's list (elements came) is walked again in its
    subtree and spliced in, or the window is walked where the events cannot say (here the
    title's change); either way the very next observation shows each new row as pyatspi
    reads it."""
    pid = apps.launch("firefox-todo")
    async with connect() as client:
        w = await todo_field_clicked(client, pid)
        await observe(client, w["id"])

        def add(line):
            xdotool("type", "--delay", "10", line)
            xdotool("key", "Return")
        # Each row shown by the very next observation, as pyatspi reads it. Not required to be
        # read from events here: the page's title counts its items, and Firefox renames
        # elements of its hidden tab-list window with it, whose changes walk the window.
        await added_from_outside(client, w, pid, ["Buy milk", "Call the plumber", "Pay rent"], add)


async def test_regression_a_paragraph_added_in_writer_walked_the_window(connect, apps):
    """Issue 41: LibreOffice hangs a new paragraph without saying its parent's children
    changed (only the paragraph's own `accessible-parent`), so the kept walk must ask where it
    hangs and walk that parent again; the next observation shows each new paragraph."""
    pid = apps.launch("lo-writer")
    async with connect() as client:
        w = await window_of(client, pid, timeout=60)
        xid = str(int(w["id"].split(":", 1)[1], 16))
        xdotool("windowactivate", "--sync", xid)
        await observe(client, w["id"])

        def write(line):
            xdotool("type", "--delay", "10", line)
            xdotool("key", "Return")
        reads = await added_from_outside(
            client, w, pid, ["First kept line", "Second kept line", "Third kept line"], write)
        assert "events" in reads, reads
