"""gui_list, gui_state and gui_action through the official Python MCP SDK against the real binary,
over stdio and over Streamable HTTP, on real windows."""
import asyncio
import json
import subprocess
import time

import pytest

from conftest import BIN, call, element, eventually, observe, poll, window_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_calculator_7x6_by_element_ids(connect, apps):
    pid = apps.launch("calc")
    async with connect() as client:
        tools = await client.list_tools()
        assert {t.name for t in tools.tools} == {"gui_list", "gui_state", "gui_wait", "gui_action", "gui_window", "gui_open", "gui_clipboard", "click", "type_text",
                                              "look_at_screen", "ping", "health", "release_model"}
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        assert state["state_id"] and state["elements"] > 10
        steps = [{"type": "click", "element_id": element(state["outline"], "button", label)[0]} for label in "7×6="]
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"], "actions": steps})
        assert not err, res
        assert [r["how"] for r in res["results"]] == ["semantic"] * 4
        assert all(r["effect"] == "changed" for r in res["results"]), res
        await eventually(client, w["id"], lambda t: '"42"' in t, "42 on the display")


async def test_coordinate_click_at_an_element_centre(connect, apps):
    pid = apps.launch("qt5")
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"], points=True)
        _, (x, y) = element(state["outline"], "check_box", "Remember me")
        args = {"window_id": w["id"], "state_id": state["state_id"], "actions": [{"type": "click", "x": x, "y": y}]}
        err, res = await call(client, "gui_action", args)
        assert not err, res
        assert res["results"][0]["how"] == "coordinates" and res["results"][0]["effect"] == "changed"
        after = await observe(client, w["id"])
        assert 'check_box "Remember me"' in after["outline"] and "checked" in [
            line for line in after["outline"].splitlines() if "Remember me" in line][0]


async def test_state_errors(connect, apps):
    pid = apps.launch("qt6")
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        label, _ = element(state["outline"], "label", "clicks: 0")
        base = {"window_id": w["id"], "state_id": state["state_id"]}
        # Refused before acting: the state stays usable.
        err, res = await call(client, "gui_action", {**base, "actions": [{"type": "click", "x": -5, "y": 10}]})
        assert err and res["error"]["code"] == "OUT_OF_WINDOW", res
        err, res = await call(client, "gui_action", {**base, "actions": [{"type": "click", "element_id": "e999"}]})
        assert err and res["error"]["code"] == "ELEMENT_NOT_FOUND", res
        assert res["error"]["suggestion"] and res["error"]["retryable"] is False
        # A click on a static label acts, and honestly reports nothing changed (once the freshly
        # launched window has settled: focus arriving after launch is a real change, and Qt gives
        # the entry its focus up to a second after the window is shown and quiet).
        async def settled():
            outline = (await observe(client, w["id"], all=True))["outline"]
            entry = next(line for line in outline.splitlines() if '"Name entry"' in line)
            return "focused" in entry
        await poll(settled, "the Qt window's entry focused after launch")
        state = await observe(client, w["id"])
        label, _ = element(state["outline"], "label", "clicks: 0")
        base = {"window_id": w["id"], "state_id": state["state_id"]}
        err, res = await call(client, "gui_action", {**base, "actions": [{"type": "click", "element_id": label}]})
        assert not err, res
        assert res["results"][0]["effect"] == "no_change", res
        err, res = await call(client, "gui_action", {**base, "actions": [{"type": "wait", "ms": 1}]})
        assert err and res["error"]["code"] == "STATE_ALREADY_USED", res
        # Moved between observe and a coordinate action.
        state = await observe(client, w["id"])
        xid = w["id"].removeprefix("x11:")
        subprocess.run(["xdotool", "windowmove", "--sync", xid, "40", "60"], check=True)
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                    "actions": [{"type": "click", "x": 5, "y": 5}]})
        assert err and res["error"]["code"] == "WINDOW_MOVED", res
        # A closed window.
        apps.close()
        err, res = await call(client, "gui_state", {"window_id": w["id"]})
        assert err and res["error"]["code"] == "WINDOW_NOT_FOUND", res


async def test_state_expires_after_30_seconds(server_env, apps):
    from mcp import Client, StdioServerParameters
    pid = apps.launch("qt6")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        await asyncio.sleep(31)
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                    "actions": [{"type": "wait", "ms": 1}]})
        assert err and res["error"]["code"] == "STATE_EXPIRED", res


async def test_dangerous_delete_needs_confirmation_and_information_does_not(connect, apps):
    pid = apps.launch("zenity")
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"], points=True)
        delete, (x, y) = element(state["outline"], "button", "Delete")
        base = {"window_id": w["id"], "state_id": state["state_id"]}
        err, res = await call(client, "gui_action", {**base, "actions": [{"type": "click", "element_id": delete}]})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
        assert res["error"]["details"]["matched_rule"] == "Delete"
        assert res["error"]["details"]["would_activate"]["name"] == "Delete"
        err, res = await call(client, "gui_action", {**base, "actions": [{"type": "click", "x": x, "y": y}]})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", "by coordinates too"
        # The refused calls left the state usable: confirmed, it presses and the dialog closes.
        err, res = await call(client, "gui_action", {**base, "confirm_dangerous": True,
                                                    "actions": [{"type": "click", "element_id": delete}]})
        assert not err, res
        assert res["results"][0]["effect"] == "window_closed", res
    info_pid = apps.launch("zenity-info")
    async with connect() as client:
        w = await window_of(client, info_pid)
        state = await observe(client, w["id"])
        info, _ = element(state["outline"], "button", "Information")
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                    "actions": [{"type": "click", "element_id": info}]})
        assert not err, f"whole-word matching: 'Information' is not 'Format': {res}"
        assert res["results"][0]["effect"] == "window_closed"


async def test_set_value_changes_the_field_and_the_log_never_holds_the_text(connect, apps, sessions_dir):
    pid = apps.launch("qt6")
    secret = "correct horse battery staple"
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        entry, _ = element(state["outline"], "text_input", "Name entry")
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                    "actions": [{"type": "set_value", "element_id": entry, "text": secret}]})
        assert not err, res
        # The value is read back and answered (the agent set it; the log never holds it).
        assert res["results"][0] == {"step": 0, "type": "set_value", "how": "semantic", "effect": "changed",
                                     "value": secret}, res
        await eventually(client, w["id"], lambda t: secret in t, "the new value")
    log = (sessions_dir / "actions.log").read_text()
    assert "horse" not in log and "battery" not in log
    records = [json.loads(line) for line in log.splitlines()]
    mine = [r for r in records if r.get("action") == "gui_action.set_value"]
    assert mine and mine[-1]["text_len"] == len(secret) and mine[-1]["element_id"] == entry
    assert mine[-1]["how"] == "semantic" and mine[-1]["effect"] == "changed" and mine[-1]["result"] == "ok"


async def test_screenshot_is_image_content_in_window_space(server_env, apps):
    from mcp import Client, StdioServerParameters
    pid = apps.launch("calc")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
        w = await window_of(client, pid)
        res = await client.call_tool("gui_state", {"window_id": w["id"], "screenshot": True})
        images = [b for b in res.content if getattr(b, "type", "") == "image"]
        assert len(images) == 1, res.content
        mime = getattr(images[0], "mime_type", None) or getattr(images[0], "mimeType", None)
        assert mime == "image/jpeg"
        text_block = next(b.text for b in res.content if getattr(b, "type", "") == "text")
        text = json.loads(text_block)
        assert (text["image"]["width"], text["image"]["height"]) == (w["bounds"]["w"], w["bounds"]["h"])
        assert "scale" not in text["image"], "not scaled below 1024 px"
        assert len(text_block) < 8000, "the JPEG travels as image content, not inside the JSON"


async def test_a_scaled_screenshot_states_its_scale(server_env, apps):
    from mcp import Client, StdioServerParameters
    pid = apps.launch("calc")
    env = dict(server_env, MCP_CU_IMAGE_MAX_WIDTH="200", MCP_CU_IMAGE_QUALITY="50")
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=60) as client:
        w = await window_of(client, pid)
        res = await client.call_tool("gui_state", {"window_id": w["id"], "screenshot": True})
        text = json.loads(next(b.text for b in res.content if getattr(b, "type", "") == "text"))
        assert text["image"]["width"] == 200
        assert abs(text["image"]["scale"] - 200 / w["bounds"]["w"]) < 1e-6
        assert abs(text["image"]["height"] - round(w["bounds"]["h"] * text["image"]["scale"])) <= 1



async def test_a_shortcut_that_opens_a_dialog_says_window_opened_and_names_it(connect, apps, tmp_path):
    """Mousepad's ctrl+shift+s opens its Save As dialog: the step says window_opened and names the
    dialog (the old answer was a bare "changed"); the dialog is then driven by that id and the file
    lands on disk."""
    pid = apps.launch("mousepad")
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        element(state["outline"], "menu", "File")  # the menu bar is in the default outline
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                     "actions": [{"type": "key", "keys": "ctrl+shift+s"}]})
        assert not err and res["results"][0]["effect"] == "window_opened", res
        opened = res["results"][0]["opened"]
        assert opened["title"] == "Save As" and opened["window_id"] != w["id"], res
        err, listed = await call(client, "gui_list", {})
        assert any(x["id"] == opened["window_id"] and x["pid"] == pid for x in listed["windows"]), listed
        target = tmp_path / "saved-by-the-agent.txt"
        err, res = await call(client, "type_text", {"app": opened["window_id"], "target": "Name", "text": str(target)})
        assert not err and res["verified"] is True, res
        # GTK enables Save a moment after the name changes, as an agent observing again would see.
        await eventually(client, opened["window_id"], lambda text: any(
            '"Save"' in line and "disabled" not in line for line in text.splitlines()), "Save enabled")
        err, res = await call(client, "click", {"app": opened["window_id"], "target": "Save"})
        assert not err and res["results"][0]["effect"] == "window_closed", res
        await poll(lambda: asyncio.sleep(0, target.exists()), "the file on disk")

        async def dialog_gone():
            err, listed = await call(client, "gui_list", {})
            return not err and all(x["id"] != opened["window_id"] for x in listed["windows"])
        await poll(dialog_gone, "the Save As dialog closed")

        # The same dialog through the menu bar: the main window is unreadable for a moment while
        # the dialog opens, and that is not "window_closed".
        err, res = await call(client, "click", {"app": w["id"], "steps": ["File", "Save As..."]})
        assert not err and [r["effect"] for r in res["results"]] == ["changed", "window_opened"], res
        dialog = res["results"][1]["opened"]["window_id"]
        err, res = await call(client, "click", {"app": dialog, "target": "Cancel"})
        assert not err and res["results"][0]["effect"] == "window_closed", res
        # The same as a menu path in one target.
        err, res = await call(client, "click", {"app": w["id"], "target": "File > Save As..."})
        assert not err and [r["effect"] for r in res["results"]] == ["changed", "window_opened"], res
        err, res = await call(client, "click", {"app": res["results"][1]["opened"]["window_id"], "target": "Cancel"})
        assert not err and res["results"][0]["effect"] == "window_closed", res
