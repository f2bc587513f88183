"""The tools that save an agent's turns, through the official Python SDK against the real binary
on real apps: gui_wait (a browser page that answers after 2 s, a condition that never comes
true, a window that closes), expect on click and gui_action, since_state_id, gui_window on a
GTK window (checked with xwininfo / the window list), gui_open (allowed and refused), and
progress notifications for a long call."""
import os
import pathlib
import subprocess
import time

import pytest

from conftest import call, element, observe, window_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def xwininfo(window_id):
    """The X server's own view of a window (geometry, map state), independent of our tools."""
    out = subprocess.run(["xwininfo", "-id", window_id.split(":", 1)[1]], capture_output=True, text=True, check=True).stdout
    info = {}
    for line in out.splitlines():
        key, _, value = line.strip().partition(":")
        info[key.strip()] = value.strip()
    return info


async def test_click_with_expect_waits_for_a_late_result_in_one_call(connect, apps):
    pid = apps.launch("chromium-delayed")
    async with connect() as client:
        w = await window_of(client, pid, timeout=30)
        err, res = await call(client, "gui_wait", {"window_id": w["id"], "timeout_ms": 15000,
                                                   "condition": {"until": "appears", "role": "button", "name": "Compute"}})
        assert not err and res["outcome"] == "satisfied", res
        started = time.time()
        err, res = await call(client, "click", {"app": w["id"], "target": "Compute",
                                                "expect": {"until": "value_contains", "name": "Result", "text": "42"}})
        took = time.time() - started
        assert not err, res
        expect = res["expect"]
        assert expect["outcome"] == "satisfied", expect
        assert 1800 <= expect["waited_ms"] <= 8000, expect
        assert "Result: 42" in expect["seen"] and took < 12, (expect, took)
        assert 'Result: 42' in expect["changes"], expect
        # The answer's state is a real observation: the outline reads the same.
        state = await observe(client, w["id"], since_state_id=expect["state_id"])
        assert state["outline"] == "(nothing changed)\n", state["outline"]


async def test_a_wait_that_never_comes_true_is_unsatisfied_on_time_with_progress(connect, apps):
    pid = apps.launch("qt6")
    async with connect() as client:
        w = await window_of(client, pid)
        notes = []

        async def progress(value, total, message):
            notes.append((value, message))

        started = time.time()
        res = await client.call_tool("gui_wait", {"window_id": w["id"], "timeout_ms": 2500,
                                                  "condition": {"until": "appears", "name": "no such text anywhere"}},
                                     progress_callback=progress)
        took = time.time() - started
        text = next(b.text for b in res.content if getattr(b, "type", "") == "text")
        import json
        answer = json.loads(text)
        assert answer["outcome"] == "unsatisfied", answer
        assert 2.4 <= took < 6, took
        assert "no element matching" in answer["seen"], answer
        assert answer["state_id"], answer
        assert len(notes) >= 2 and all("gui_wait" in m for _, m in notes), notes
        assert [v for v, _ in notes] == sorted(v for v, _ in notes), notes


async def test_gui_action_expect_and_since_state_id_on_qt(connect, apps):
    pid = apps.launch("qt6")
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        # "Delete" only counts clicks in this fixture; the gate still asks, so it is confirmed.
        button, _ = element(state["outline"], "button", "Delete")
        label, _ = element(state["outline"], "label", "clicks: 0")
        err, res = await call(client, "gui_action", {
            "window_id": w["id"], "state_id": state["state_id"],
            "actions": [{"type": "click", "element_id": button}], "confirm_dangerous": True,
            "expect": {"until": "value_is", "element_id": label, "text": "clicks: 1"}})
        assert not err, res
        expect = res["expect"]
        assert expect["outcome"] == "satisfied", expect
        # Measured from the state acted on, with the label's id kept.
        assert f'~ {label} label "clicks: 1"' in expect["changes"], expect["changes"]
        assert expect["change_count"]["changed"] >= 1
        # since_state_id on a used-up state: the same change, nothing else.
        later = await observe(client, w["id"], since_state_id=state["state_id"])
        assert f'~ {label} label "clicks: 1"' in later["outline"], later["outline"]
        assert later["changes"]["added"] == 0 and later["changes"]["removed"] == 0, later
        # Ids that stayed are usable with the new state: click again by the old id.
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": later["state_id"],
                                                     "actions": [{"type": "click", "element_id": button}],
                                                     "confirm_dangerous": True})
        assert not err, res
        err, res = await call(client, "gui_wait", {"window_id": w["id"], "timeout_ms": 5000,
                                                   "condition": {"until": "value_is", "name": "clicks", "text": "clicks: 2"}})
        assert not err and res["outcome"] == "satisfied", res
        # Bad conditions are coded errors, and refused before acting: the state stays usable.
        fresh = await observe(client, w["id"])
        for expect in [{"until": "appears"}, {"until": "value_is", "name": "x"}, {"until": "sometimes"},
                       {"until": "stable", "name": "x"}]:
            err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": fresh["state_id"],
                                                         "actions": [{"type": "click", "element_id": button}],
                                                         "confirm_dangerous": True, "expect": expect})
            assert err and res["error"]["code"] == "INVALID_ARGUMENT", (expect, res)
        err, res = await call(client, "gui_wait", {"window_id": w["id"], "timeout_ms": 600000,
                                                   "condition": {"until": "stable"}})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT", res
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": fresh["state_id"],
                                                     "actions": [{"type": "click", "element_id": button}],
                                                     "confirm_dangerous": True})
        assert not err, res


async def test_gui_window_ops_are_read_back_and_match_the_x_server(connect, apps):
    pid = apps.launch("gtk3")
    async with connect() as client:
        w = await window_of(client, pid)
        wid = w["id"]
        err, res = await call(client, "gui_window", {"window_id": wid, "op": "move", "x": 120, "y": 90})
        assert not err and res["outcome"] == "done", res
        x = xwininfo(wid)
        assert (x["Absolute upper-left X"], x["Absolute upper-left Y"]) == ("120", "90"), x
        # gtk3-widget-factory's minimum size is about 1366x741: below it the answer must not say done.
        err, res = await call(client, "gui_window", {"window_id": wid, "op": "resize", "width": 300, "height": 200})
        assert not err and res["outcome"] == "not_seen", res
        assert xwininfo(wid)["Width"] != "300"
        err, res = await call(client, "gui_window", {"window_id": wid, "op": "resize", "width": 1400, "height": 800})
        assert not err and res["outcome"] == "done", res
        x = xwininfo(wid)
        assert (x["Width"], x["Height"]) == ("1400", "800"), x
        err, res = await call(client, "gui_window", {"window_id": wid, "op": "minimize"})
        assert not err and res["outcome"] == "done" and res["window"]["minimized"], res
        assert xwininfo(wid)["Map State"] == "IsUnMapped"
        err, res = await call(client, "gui_window", {"window_id": wid, "op": "restore"})
        assert not err and res["outcome"] == "done", res
        assert xwininfo(wid)["Map State"] == "IsViewable"
        err, res = await call(client, "gui_window", {"window_id": wid, "op": "maximize"})
        assert not err and res["outcome"] == "done", res
        assert int(xwininfo(wid)["Width"]) > 1400
        for bad in [{"op": "move", "x": 1}, {"op": "resize", "width": 0, "height": 5}, {"op": "spin"},
                    {"op": "minimize", "x": 3, "y": 3}]:
            err, res = await call(client, "gui_window", {"window_id": wid, **bad})
            assert err and res["error"]["code"] == "INVALID_ARGUMENT", (bad, res)
        err, res = await call(client, "gui_window", {"window_id": wid, "op": "close"})
        assert not err and res["outcome"] == "done" and "window" not in res, res
        err, res = await call(client, "gui_wait", {"window_id": wid, "condition": {"until": "window_closes"}, "timeout_ms": 3000})
        assert not err and res["outcome"] == "satisfied", res


async def test_closing_an_edited_document_answers_with_the_save_dialog(connect, apps):
    pid = apps.launch("mousepad")
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        area = next(line.split()[0] for line in state["outline"].splitlines() if line.split()[1:2] == ["text_area"])
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                     "actions": [{"type": "type", "element_id": area, "text": "draft"}],
                                                     "expect": {"until": "stable", "quiet_ms": 300}})
        assert not err, res
        assert 'text_area ="draft"' in res["expect"]["changes"], res
        err, res = await call(client, "gui_window", {"window_id": w["id"], "op": "close"})
        assert not err and res["outcome"] == "dialog", res
        dialog = res["dialog"]
        assert "Save" in dialog["title"], res
        # "Don't Save" throws the edit away: it needs the user's confirmation (issue 39).
        err, res = await call(client, "click", {"app": dialog["window_id"], "target": "Don't Save"})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
        err, res = await call(client, "click", {"app": dialog["window_id"], "target": "Don't Save",
                                                "confirm_dangerous": True,
                                                "expect": {"until": "window_closes"}})
        assert not err and res["expect"]["outcome"] == "satisfied", res
        err, res = await call(client, "gui_wait", {"window_id": w["id"], "condition": {"until": "window_closes"}, "timeout_ms": 5000})
        assert not err and res["outcome"] == "satisfied", res


async def test_gui_open_starts_desktop_apps_and_refuses_shells(connect, apps):
    async with connect() as client:
        for program, args in [("bash", ["-c", "xterm"]), ("xterm", []), ("/bin/sh", []), ("python3", ["-c", "1"]),
                              ("ftp://example.org/x", []), ("no-such-program-anywhere", [])]:
            err, res = await call(client, "gui_open", {"program": program, "args": args})
            assert err and res["error"]["code"] == "PROGRAM_NOT_ALLOWED", (program, res)
            assert res["error"]["details"]["config_key"] == "apps.allow"
        err, res = await call(client, "gui_open", {"program": "gnome-calculator", "timeout_ms": 20000})
        assert not err and res["ok"], res
        apps.pids.append(res["pid"])
        listed = await window_of(client, res["pid"])
        assert listed["id"] == res["window_id"]
        err, res = await call(client, "gui_window", {"window_id": res["window_id"], "op": "close"})
        assert not err and res["outcome"] == "done", res


async def test_clipboard_write_then_paste_enters_text_a_layout_cannot_type(connect, apps, server_env):
    from mcp import Client, StdioServerParameters
    from conftest import BIN
    pid = apps.launch("mousepad")
    text = "Grüße ✓ שלום 漢字"
    async with connect() as client:
        w = await window_of(client, pid)
        err, res = await call(client, "gui_clipboard", {"op": "write", "text": text})
        assert not err and res["chars"] == len(text), res
        state = await observe(client, w["id"])
        area = next(line.split()[0] for line in state["outline"].splitlines() if line.split()[1:2] == ["text_area"])
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                     "actions": [{"type": "click", "element_id": area},
                                                                 {"type": "key", "keys": "ctrl+v"}],
                                                     "expect": {"until": "value_is", "role": "text_area", "text": text}})
        assert not err and res["expect"]["outcome"] == "satisfied", res
        # Reading is off by default.
        err, res = await call(client, "gui_clipboard", {"op": "read"})
        assert err and res["error"]["code"] == "NOT_ALLOWED", res
        # A server whose user turned reading on reads what the first one holds.
        env = {**server_env, "MCP_CU_CLIPBOARD_READ": "1"}
        async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=30) as reader:
            err, res = await call(reader, "gui_clipboard", {"op": "read"})
            assert not err and res["text"] == text, res
    log = (pathlib.Path(server_env["MCP_CU_SESSIONS_DIR"]) / "actions.log").read_text()
    assert "gui_clipboard.write" in log and "Grüße" not in log and "שלום" not in log


async def test_set_of_marks_draws_on_the_screenshot_only_when_asked(connect, apps):
    pid = apps.launch("calc")
    async with connect() as client:
        w = await window_of(client, pid)

        async def shot(**kw):
            res = await client.call_tool("gui_state", {"window_id": w["id"], "screenshot": True, **kw})
            images = [b for b in res.content if getattr(b, "type", "") == "image"]
            assert len(images) == 1, res
            return images[0].data

        plain, marked, plain_again = await shot(), await shot(marks=True), await shot()
        # The window did not change between the shots: only the marks make the difference.
        assert plain == plain_again or abs(len(plain) - len(plain_again)) < len(plain) // 50
        assert marked != plain and len(marked) > len(plain), (len(marked), len(plain))
        err, res = await call(client, "gui_state", {"window_id": w["id"], "marks": True})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT", res


async def test_a_page_that_swapped_its_content_is_one_line_of_the_diff(connect, apps):
    """gtk3-widget-factory's page switcher replaces the window's content: the diff says so in
    one line naming what went and what came (it listed ~100 elements, ~870 tokens)."""
    pid = apps.launch("gtk3")
    async with connect() as client:
        w = await window_of(client, pid)
        state = await observe(client, w["id"])
        page1, _ = element(state["outline"], "radio_button", "Page 1")
        page2, _ = element(state["outline"], "radio_button", "Page 2")
        if '"Page 2" checked' in state["outline"]:
            page2 = page1
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                     "actions": [{"type": "click", "element_id": page2}]})
        assert not err, res
        deadline = time.time() + 10
        while True:
            later = await observe(client, w["id"], since_state_id=state["state_id"])
            swapped = [l for l in later["outline"].splitlines() if " swapped: " in l]
            if swapped or time.time() > deadline:
                break
        assert len(swapped) == 1 and " → " in swapped[0], later["outline"]
        assert not any(l.startswith(("+ ", "- ")) for l in later["outline"].splitlines()), later["outline"]
        # The counts still say how much changed.
        assert later["changes"]["added"] >= 4 and later["changes"]["removed"] >= 4, later["changes"]
        assert len(later["outline"]) < 1200, len(later["outline"])
