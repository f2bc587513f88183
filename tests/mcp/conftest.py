"""Fixtures for the MCP end-to-end tests: the real binary, a real MCP client (the official Python
SDK), real apps on the test desktop that scripts/test.sh starts.

Without a desktop the tests skip, saying so; under CI=true a missing desktop is a failure.
"""
import asyncio
import contextlib
import json
import os
import pathlib
import re
import selectors
import signal
import socket
import subprocess
import sys
import time

import jsonschema

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MCP_CU_BIN", str(ROOT / "target" / "debug" / "mcp-computer-use"))
TOKEN = "test-token-0123456789abcdef"


def _desktop_number():
    number = os.environ.get("MCP_CU_TEST_DESKTOP")
    if number and os.environ.get("DISPLAY"):
        return number
    if os.environ.get("CI") == "true":
        pytest.fail("CI=true but no test desktop: run the suite through scripts/test.sh")
    pytest.skip("SKIPPED: no test desktop (run scripts/test.sh to start one)")


@pytest.fixture(scope="session")
def desktop():
    return _desktop_number()


@pytest.fixture
def sessions_dir(tmp_path):
    d = tmp_path / "sessions"
    d.mkdir()
    return d


@pytest.fixture
def server_env(desktop, sessions_dir):
    # The SDK passes only a few variables to a stdio server: give it the desktop explicitly.
    keep = ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE", "HOME", "PATH"]
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["MCP_CU_SESSIONS_DIR"] = str(sessions_dir)
    return env


class Apps:
    def __init__(self, desktop):
        self.desktop = desktop
        self.pids = []

    def launch(self, kind):
        out = subprocess.run(["bash", str(ROOT / "scripts/desktop/launch-apps.sh"), self.desktop, kind],
                             capture_output=True, text=True, check=True)
        pid = int(re.search(r"^%s=(\d+)$" % re.escape(kind), out.stdout, re.M).group(1))
        self.pids.append(pid)
        return pid

    def close(self):
        for pid in self.pids:
            subprocess.run(["pkill", "-KILL", "-P", str(pid)], check=False)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def apps(desktop):
    a = Apps(desktop)
    yield a
    a.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(env, extra_args=(), token=TOKEN):
    port = _free_port()
    env = dict(env, MCP_CU_HTTP_TOKEN=token) if token else dict(env)
    proc = subprocess.Popen([BIN, "serve", "--http", f"127.0.0.1:{port}", *extra_args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 10
        while time.time() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(params=["stdio", "http"])
def connect(request, server_env):
    """Returns an async-context-manager factory for a connected SDK client over stdio or HTTP."""
    if request.param == "stdio":
        def make():
            return Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60)
        yield make
    else:
        with http_server(server_env) as url:
            def make():
                http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
                return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60)
            yield make


def result_json(res):
    """The tool result as (is_error, JSON value): its structured content, as a program reads it
    (the text block is the same JSON with window text fenced, for the model: see
    test_untrusted.py)."""
    is_error = getattr(res, "is_error", None)
    if is_error is None:
        is_error = getattr(res, "isError", False)
    structured = getattr(res, "structuredContent", None)
    if structured is None:
        structured = getattr(res, "structured_content", None)
    if structured is not None:
        return bool(is_error), structured
    text = next(b.text for b in res.content if getattr(b, "type", "") == "text")
    return bool(is_error), json.loads(text)


# Every answer's full shape: tools/list declares an answer's fields one level deep (a lean
# listing), so each answer a test gets through call() is checked against its whole shape here.
ANSWERS = json.loads((ROOT / "tests" / "golden" / "answers.json").read_text())
_CHECKERS = {tool: jsonschema.Draft202012Validator(shape) for tool, shape in ANSWERS.items()}


async def call(client, tool, args):
    """Calls `tool`; returns (is_error, JSON answer), the answer checked against its full shape."""
    err, value = result_json(await client.call_tool(tool, args))
    if tool in _CHECKERS:
        _CHECKERS[tool].validate(value)
    else:
        assert err and set(value) == {"error"}, (tool, value)
    return err, value


# What every request of the stateless revision (2026-07-28) carries in its `_meta`.
STATELESS_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}


class RawStdio:
    """The binary over stdio as raw JSON-RPC, one message a line, each read within 60 s: what
    a client outside the SDK sends and receives, byte for byte."""

    def __init__(self, env):
        self.proc = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env)
        self.lines = selectors.DefaultSelector()
        self.lines.register(self.proc.stdout, selectors.EVENT_READ)
        self.next_id = 0

    def request(self, method, params):
        """Sends one request; returns (its response, the messages that came before it)."""
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        notes = []
        while True:
            assert self.lines.select(timeout=60), f"no answer to {method} within 60 s"
            line = self.proc.stdout.readline()
            assert line, f"the server closed its output during {method}"
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                return message, notes
            notes.append(message)

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def window_of(client, pid, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        err, value = await call(client, "gui_list", {})
        if not err:
            for w in value["windows"]:
                if w.get("pid") == pid and not w.get("minimized"):
                    return w
        time.sleep(0.1)
    raise AssertionError(f"no window for pid {pid}")


async def observe(client, window_id, **kw):
    """gui_state of a window, asserting it worked."""
    err, state = await call(client, "gui_state", {"window_id": window_id, **kw})
    assert not err, state
    return state


async def poll(fetch, what, timeout=10.0, every=0.1):
    """Awaits fetch() until it returns something truthy, within timeout seconds; returns it."""
    deadline = time.time() + timeout
    while True:
        value = await fetch()
        if value:
            return value
        assert time.time() < deadline, f"{what} within {timeout} s"
        await asyncio.sleep(every)


async def window_titled(client, text, timeout=40.0):
    """The first listed window whose title contains text."""
    async def find():
        err, listing = await call(client, "gui_list", {})
        return None if err else next((w for w in listing["windows"] if text in w["title"]), None)
    return await poll(find, f"a window titled {text!r}", timeout, every=0.3)


async def eventually(client, window_id, predicate, what, timeout=5.0, **kw):
    """Observes the window (gui_state with kw) until predicate(outline) holds; returns that outline."""
    deadline = time.time() + timeout
    while True:
        text = (await observe(client, window_id, **kw))["outline"]
        if predicate(text):
            return text
        assert time.time() < deadline, f"{what} never held:\n{text}"
        await asyncio.sleep(0.1)


def element(outline, role, name):
    """(id, (x, y)) of the first outline line with this role and name; (x, y) is the click point
    (observed with points=True; None without)."""
    for line in outline.splitlines():
        m = re.match(r'\s*(e\d+) (\w+)(?: "((?:[^"\\]|\\.)*)")?(?: =("(?:[^"\\]|\\.)*"))?(?: @(-?\d+),(-?\d+))?', line)
        if m and m.group(2) == role and (m.group(3) or "") == name:
            point = (int(m.group(5)), int(m.group(6))) if m.group(5) else None
            return m.group(1), point
    raise AssertionError(f"no {role} {name!r} in outline:\n{outline}")


@contextlib.asynccontextmanager
async def logged_client(server_env, log, spec="cu_backend_linux=debug"):
    """A client of a server whose log (MCP_CU_LOG=spec) goes to the file `log`."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client
    params = StdioServerParameters(command=BIN, args=[], env=dict(server_env, MCP_CU_LOG=spec))
    with open(log, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                yield client


async def kept_observation(client, window_id, log, walked, **kw):
    """Observes the window until an observation is answered from its kept walk unchanged (the
    answer's `read.how` says "kept"), within 20 s; returns (the walk's outline before it, the
    kept outline). `walked` is an outline of a walk already made; `log` is the server's log."""
    async def answered_from_the_walk():
        nonlocal walked
        state = await observe(client, window_id, **kw)
        if state["read"]["how"] == "kept":
            return state["outline"]
        walked = state["outline"]
        return None
    again = await poll(answered_from_the_walk, "an observation answered from the kept walk", timeout=20)
    return walked, again
