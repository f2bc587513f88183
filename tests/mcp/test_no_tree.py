"""A window whose application exposes no accessibility tree (xlogo, X11 only) is still a window
for the tools: listed with `no_tree`, observed as the window alone with a notice, captured, and
driven by coordinates, every press asking for confirmation (the gate cannot see what it would
touch). It used to be missing from gui_list altogether. Its geometry is checked with xwininfo."""
import re
import subprocess

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, observe, poll

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def xlogo(server_env):
    proc = subprocess.Popen(["xlogo", "-geometry", "300x200+150+150"], env=server_env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.kill()


async def test_regression_a_window_without_an_accessibility_tree_is_listed_and_driven(server_env, xlogo):
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
        async def listed():
            err, listing = await call(client, "gui_list", {})
            return None if err else next((w for w in listing["windows"] if w["title"] == "xlogo"), None)
        win = await poll(listed, "xlogo listed", timeout=15)
        assert win["no_tree"] is True and win["app"] == "XLogo", win
        xid = int(win["id"].removeprefix("x11:"), 16)
        info = subprocess.run(["xwininfo", "-id", str(xid)], env=server_env, capture_output=True, text=True).stdout
        assert int(re.search(r"Width: (\d+)", info).group(1)) == win["bounds"]["w"] == 300, info
        assert int(re.search(r"Height: (\d+)", info).group(1)) == win["bounds"]["h"] == 200, info

        state = await observe(client, win["id"], screenshot=True)
        assert state["outline"].startswith('window "xlogo" 300x200'), state["outline"]
        assert "exposes no accessibility tree" in state["outline"], state["outline"]
        assert state["image"]["width"] == 300 and state["image"]["height"] == 200, state["image"]

        click = {"window_id": win["id"], "state_id": state["state_id"],
                 "actions": [{"type": "click", "x": 150, "y": 100}]}
        err, res = await call(client, "gui_action", click)
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
        err, res = await call(client, "gui_action", {**click, "confirm_dangerous": True})
        assert not err, ("the refused call left the observation usable", res)
        assert res["results"][0]["effect"] == "not_checked", res
