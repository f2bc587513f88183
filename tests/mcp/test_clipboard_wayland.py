"""The clipboard on Wayland, through the compositor's data-control protocol: a headless sway
(wlroots) session, the real binary driven by the official MCP SDK with only WAYLAND_DISPLAY set
(no XWayland), and wl-clipboard's wl-copy/wl-paste as the independent other program.

sway refuses to run as root, so under root it runs as the unprivileged system user that
scripts/install-deps.sh creates (mcpcu-wl); this process, as root, can still reach its socket.
"""
import os
import pathlib
import pwd
import shutil
import subprocess
import tempfile
import time

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call

pytestmark = pytest.mark.anyio
SWAY_USER = "mcpcu-wl"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def sway():
    if os.environ.get("CI") != "true" and not os.environ.get("MCP_CU_TEST_DESKTOP"):
        pytest.skip("SKIPPED: no test desktop (run scripts/test.sh)")
    for tool in ("sway", "wl-copy", "wl-paste"):
        assert shutil.which(tool), f"{tool} is missing: scripts/install-deps.sh installs it"
    runtime = pathlib.Path(tempfile.mkdtemp(prefix="cu-sway-", dir="/tmp"))
    runtime.chmod(0o700)
    as_user = []
    if os.geteuid() == 0:
        user = pwd.getpwnam(SWAY_USER)
        os.chown(runtime, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", SWAY_USER, "--"]
    env = {"XDG_RUNTIME_DIR": str(runtime), "HOME": str(runtime), "PATH": os.environ["PATH"],
           "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"}
    log = open(runtime / "sway.log", "w")
    proc = subprocess.Popen([*as_user, "env", "-i", *[f"{k}={v}" for k, v in env.items()],
                             "sway", "-c", "/dev/null"], stdout=log, stderr=log)
    try:
        deadline = time.time() + 20
        sockets = []
        while time.time() < deadline and not sockets:
            assert proc.poll() is None, (runtime / "sway.log").read_text()
            sockets = [p.name for p in runtime.glob("wayland-*") if not p.name.endswith(".lock") and p.is_socket()]
            time.sleep(0.05)
        assert sockets, "sway made no Wayland socket in 20 s"
        yield {"XDG_RUNTIME_DIR": str(runtime), "WAYLAND_DISPLAY": sockets[0], "PATH": os.environ["PATH"],
               "HOME": os.environ.get("HOME", "/root")}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(runtime, ignore_errors=True)


def wl_paste(env):
    return subprocess.run(["wl-paste", "--no-newline"], env=env, capture_output=True, text=True, timeout=10)


def wl_copy(env, text):
    # wl-copy leaves a child serving the selection: no pipes of ours for it to hold open.
    return subprocess.run(["wl-copy", "--", text], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=10).returncode


async def test_clipboard_on_wayland_goes_through_data_control(sway, tmp_path):
    sessions = tmp_path / "sessions"
    env = {**sway, "MCP_CU_SESSIONS_DIR": str(sessions), "MCP_CU_MODEL": "none", "MCP_CU_CLIPBOARD_READ": "1"}
    text = "Grüße ✓ 世界 שלום"
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=30) as client:
        err, res = await call(client, "gui_clipboard", {"op": "write", "text": text})
        assert not err and res["chars"] == len(text), res
        # Another program reads what the server wrote, while the server serves it.
        pasted = wl_paste(sway)
        assert pasted.returncode == 0 and pasted.stdout == text, pasted
        # And the server reads what another program wrote.
        assert wl_copy(sway, "from outside ✓") == 0
        err, res = await call(client, "gui_clipboard", {"op": "read"})
        assert not err and res["text"] == "from outside ✓", res
    log = (sessions / "actions.log").read_text()
    assert "gui_clipboard.write" in log and "Grüße" not in log and "outside" not in log
