"""The gate judges what an action will do, on a real dialog (issue 39): zenity's plain "Yes" under
"Delete the file report.txt permanently?" is a delete. By label, by id, by its point and by
Return (Yes has focus), it is refused without confirmation and zenity is still running; "No"
passes; confirmed, "Yes" answers, which zenity's exit status says independently (0 = yes)."""
import os
import subprocess

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, element, observe, poll, window_of

pytestmark = pytest.mark.anyio

QUESTION = "Delete the file report.txt permanently?"


@pytest.fixture
def anyio_backend():
    return "asyncio"


def zenity(server_env):
    env = dict(os.environ, **server_env)
    return subprocess.Popen(["zenity", "--question", "--title=Question", f"--text={QUESTION}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def test_regression_yes_under_a_delete_question_needs_confirmation(server_env):
    proc = zenity(server_env)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
            w = await window_of(client, proc.pid, timeout=30)
            wid = w["id"]

            async def fresh():
                state = await observe(client, wid, points=True)
                try:
                    return state, element(state["outline"], "button", "Yes")
                except AssertionError:
                    return None
            state, (yes, (x, y)) = await poll(fresh, "zenity's Yes button", timeout=15)

            err, res = await call(client, "click", {"app": wid, "target": "Yes"})
            assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
            assert "answers the dialog" in res["error"]["message"] and "Delete" in res["error"]["message"], res
            for actions in ([{"type": "click", "element_id": yes}],
                            [{"type": "click", "x": x, "y": y}],
                            [{"type": "focus", "element_id": yes}, {"type": "key", "keys": "Return"}],
                            [{"type": "key", "keys": "Return"}]):
                state, _ = await poll(fresh, "zenity's Yes button", timeout=15)
                err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                             "actions": actions})
                assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", (actions, res)
                assert proc.poll() is None, ("zenity answered without confirmation", actions)

            state, (yes, _) = await poll(fresh, "zenity's Yes button", timeout=15)
            err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                         "confirm_dangerous": True,
                                                         "actions": [{"type": "click", "element_id": yes}]})
            assert not err, res
        assert proc.wait(timeout=10) == 0, "zenity was answered Yes"
    finally:
        proc.kill()


async def test_no_under_a_delete_question_passes(server_env):
    proc = zenity(server_env)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
            w = await window_of(client, proc.pid, timeout=30)
            err, res = await call(client, "click", {"app": w["id"], "target": "No"})
            assert not err, res
        assert proc.wait(timeout=10) == 1, "zenity was answered No"
    finally:
        proc.kill()


FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def qt_gate(server_env, mode, marker, qt="5"):
    env = dict(os.environ, **server_env)
    return subprocess.Popen(["/usr/bin/python3", os.path.join(FIXTURES, "qt_gate.py"), qt, mode, str(marker)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pressed(marker):
    return marker.exists() and "deleted" in marker.read_text()


async def act(client, wid, actions, confirm=False, **observe_kw):
    state = await observe(client, wid, **observe_kw)
    return await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                             "confirm_dangerous": confirm, "actions": actions})


@pytest.mark.parametrize("qt", ["5", "6"])
async def test_regression_return_on_a_qt_check_box_presses_the_default_delete(server_env, tmp_path, qt):
    marker = tmp_path / "marker"
    proc = qt_gate(server_env, "confirm", marker, qt)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
            wid = (await window_of(client, proc.pid, timeout=30))["id"]
            state = await poll(lambda: observe(client, wid), "the Qt dialog", timeout=15)
            box, _ = element(state["outline"], "check_box", "Do not ask again")
            for actions in ([{"type": "key", "keys": "Return"}],
                            [{"type": "type", "text": "\n"}],
                            [{"type": "focus", "element_id": box}, {"type": "key", "keys": "Return"}]):
                err, res = await act(client, wid, actions)
                assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", (actions, res)
                assert "Return lands on" in res["error"]["message"], res
                assert not pressed(marker), ("Return pressed Delete without confirmation", actions)
            err, res = await act(client, wid, [{"type": "key", "keys": "Return"}], confirm=True)
            assert not err, res
        await poll(lambda: _true(pressed(marker)), "a confirmed Return pressing Delete", timeout=10)
    finally:
        proc.kill()


async def _true(value):
    return value


async def test_regression_a_letter_in_a_qt_context_menu_presses_its_item(server_env, tmp_path):
    marker = tmp_path / "marker"
    proc = qt_gate(server_env, "context", marker)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
            wid = (await window_of(client, proc.pid, timeout=30))["id"]

            async def item():
                state = await observe(client, wid, all=True)
                try:
                    return element(state["outline"], "list_item", "notes.txt")[0]
                except AssertionError:
                    return None
            notes = await poll(item, "the list's first row", timeout=15)
            err, res = await act(client, wid, [{"type": "right_click", "element_id": notes}], all=True)
            assert not err, res
            err, res = None, None

            async def refused():
                e, r = await act(client, wid, [{"type": "key", "keys": "d"}])
                return (e, r) if e and r["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION" else None
            err, res = await poll(refused, "the letter d refused while the menu is open", timeout=10, every=0.3)
            # Qt leaves its popups out of the tree: the menu is seen on the X server, its items
            # cannot be read, so the letter asks.
            assert "open menu" in res["error"]["message"], res
            assert not pressed(marker), "d pressed &Delete without confirmation"
            err, res = await act(client, wid, [{"type": "key", "keys": "d"}], confirm=True)
            assert not err, res
        await poll(lambda: _true(pressed(marker)), "a confirmed d pressing Delete", timeout=10)
    finally:
        proc.kill()


async def test_regression_a_qt_icon_button_nothing_names_needs_confirmation(server_env, tmp_path):
    marker = tmp_path / "marker"
    proc = qt_gate(server_env, "icon", marker)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
            wid = (await window_of(client, proc.pid, timeout=30))["id"]

            async def refresh():
                state = await observe(client, wid, points=True)
                try:
                    return element(state["outline"], "button", "Refresh")
                except AssertionError:
                    return None
            _, (rx, ry) = await poll(refresh, "the Refresh button", timeout=15)
            err, res = await act(client, wid, [{"type": "click", "x": rx, "y": ry}])
            assert not err, ("a named button passes", res)
            # The trash icon sits left of Refresh, in the same row.
            state = await observe(client, wid, all=True, points=True)
            icon = next((line.split()[0] for line in state["outline"].splitlines()
                         if line.split()[1:2] == ["button"] and '"' not in line), None)
            assert icon, state["outline"]
            err, res = await act(client, wid, [{"type": "click", "element_id": icon}], all=True)
            assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
            assert "unnamed" in res["error"]["message"], res
            assert not pressed(marker), "the unnamed trash button was pressed without confirmation"
            err, res = await act(client, wid, [{"type": "click", "element_id": icon}], confirm=True, all=True)
            assert not err, res
        await poll(lambda: _true(pressed(marker)), "a confirmed click on the trash icon", timeout=10)
    finally:
        proc.kill()
