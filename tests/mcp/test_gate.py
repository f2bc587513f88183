"""The safety gate on real dialogs: every way the first round pressed "Delete" without
confirmation is refused on zenity (GTK 3), a GTK 4 dialog, a Qt 6 window and the fixture page in
Chromium and Firefox, and passes with confirm_dangerous. Whether Delete was pressed is read
independently of our answers: zenity's process exit, the apps' own "deleted"/"clicks" counters
over AT-SPI (our outline), the page's text."""
import os
import re
import subprocess

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, element, observe, poll, window_of, window_titled

pytestmark = pytest.mark.anyio

# kind → (how Delete is named in the outline, a regex for the press counter, or None = process exit)
APPS = {
    "zenity": ("button", None),
    "gtk4-dialog": ("button", r'"deleted: (\d+)"'),
    "qt6": ("button", r'"clicks: (\d+)"'),
    "chromium": ("button", r'"deleted (\d+)"'),
    "firefox": ("button", r'"deleted (\d+)"'),
}


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def a_window(client, pid, timeout=40):
    return await window_of(client, pid, timeout=timeout)


async def presses(client, wid, counter, pid):
    if counter is None:
        return 0 if _alive(pid) else 1
    state = await observe(client, wid, all=True)
    m = re.search(counter, state["outline"])
    return int(m.group(1)) if m else 0


def _alive(pid):
    import os
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


async def fresh(client, wid, role, **kw):
    """(state, Delete's id, Delete's point) from a new observation (a browser may still be
    loading its page)."""
    async def found():
        state = await observe(client, wid, points=True, **kw)
        try:
            delete, point = element(state["outline"], role, "Delete")
        except AssertionError:
            return None
        return state, delete, point
    return await poll(found, "a Delete button", timeout=10.0, every=0.2)


@pytest.mark.parametrize("kind", list(APPS))
async def test_every_path_to_delete_is_refused_until_confirmed(connect, apps, kind):
    role, counter = APPS[kind]
    pid = apps.launch(kind)
    async with connect() as client:
        w = await a_window(client, pid)
        wid = w["id"]
        state, delete, (x, y) = await fresh(client, wid, role)
        base = lambda s: {"window_id": wid, "state_id": s["state_id"]}  # noqa: E731
        def cases(outline, delete):
            out = {
                "space typed into Delete": [{"type": "type", "element_id": delete, "text": " "}],
                "drag from Delete to Delete": [{"type": "drag", "element_id": delete, "to_element_id": delete}],
                "focus Delete then Return": [{"type": "focus", "element_id": delete}, {"type": "key", "keys": "Return"}],
                "focus Delete then space key": [{"type": "focus", "element_id": delete}, {"type": "key", "keys": "space"}],
            }
            if kind == "zenity":
                cancel, _ = element(outline, "button", "Cancel")
                out["focus Cancel, Tab, space"] = [{"type": "focus", "element_id": cancel}, {"type": "type", "text": "\t "}]
                out["focus Cancel, Tab key, Return key"] = [{"type": "focus", "element_id": cancel},
                                                           {"type": "key", "keys": "Tab"}, {"type": "key", "keys": "Return"}]
            return out

        for what in cases(state["outline"], delete):
            state, delete, (x, y) = await fresh(client, wid, role)
            actions = cases(state["outline"], delete)[what]
            err, res = await call(client, "gui_action", {**base(state), "actions": actions})
            assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", (kind, what, res)
            assert await presses(client, wid, counter, pid) == 0, (kind, what, "Delete was pressed")

        # A click at Delete's point in an observation that lists one element: the hit test judges it.
        small = await observe(client, wid, max_elements=1)
        err, res = await call(client, "gui_action", {**base(small), "actions": [{"type": "click", "x": x, "y": y}]})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", (kind, res)
        # A malformed key refuses before acting: the same state then works, confirmed.
        err, res = await call(client, "gui_action", {**base(small), "actions": [{"type": "key", "keys": "ctrl+frobnicate"}]})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT", res
        assert await presses(client, wid, counter, pid) == 0, (kind, "Delete was pressed")
        err, res = await call(client, "gui_action", {**base(small), "confirm_dangerous": True,
                                                     "actions": [{"type": "click", "x": x, "y": y}]})
        assert not err, (kind, res)
        async def pressed():
            return await presses(client, wid, counter, pid) >= 1
        await poll(pressed, f"{kind}: a confirmed click pressing Delete")



async def test_regression_format_in_libreoffices_menu_bar_opens_without_confirmation(server_env, tmp_path):
    """LibreOffice Writer, driven through the tools only: opening menus ("Format", "Edit", the
    "Track Changes" submenu) is not an action; the item "Accept All" is judged, by id and by its
    point, and a point on the open popup (an X window of its own, outside the frame's hit test)
    fails closed."""
    env = dict(os.environ, **server_env, SAL_USE_VCLPLUGIN="gtk3")
    office = subprocess.Popen(["soffice", "--writer", "--norestore", "--nologo",
                               f"-env:UserInstallation=file://{tmp_path}/lo-profile"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=90) as client:
            writer = await window_titled(client, "LibreOffice Writer", timeout=120)
            wid = writer["id"]

            async def menu(name, role="menu"):
                async def shown():
                    state = await observe(client, wid, all=True, max_elements=3000, points=True)
                    m = re.search(r'(e\d+) %s "%s"(?: @(\d+),(\d+))?' % (role, re.escape(name)), state["outline"])
                    if m and (role == "menu" or m.group(2)):
                        return state, m.group(1), (int(m.group(2)), int(m.group(3))) if m.group(2) else None
                    return None
                return await poll(shown, f"{role} {name!r}", timeout=10.0, every=0.25)

            state, fmt, _ = await menu("Format")
            err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                         "actions": [{"type": "click", "element_id": fmt}]})
            assert not err, ("opening Format needs no confirmation", res)
            state = await observe(client, wid, max_elements=1)
            await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"], "actions": [{"type": "key", "keys": "Escape"}]})
            state, edit, _ = await menu("Edit")
            err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                         "actions": [{"type": "click", "element_id": edit}]})
            assert not err, res
            state, track, _ = await menu("Track Changes")
            err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                         "actions": [{"type": "click", "element_id": track}]})
            assert not err, res
            state, accept, point = await menu("Accept All", role="menu_item")
            err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                         "actions": [{"type": "click", "element_id": accept}]})
            assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
            small = await observe(client, wid, max_elements=1)
            err, res = await call(client, "gui_action", {"window_id": wid, "state_id": small["state_id"],
                                                         "actions": [{"type": "click", "x": point[0], "y": point[1]}]})
            assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
    finally:
        office.kill()
        subprocess.run(["pkill", "-KILL", "-f", f"{tmp_path}/lo-profile"], check=False)
