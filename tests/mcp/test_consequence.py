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
