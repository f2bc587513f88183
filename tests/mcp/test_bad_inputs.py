"""One table of bad inputs across every tool, the CLI and each HTTP listener, against the real
binary on a real window (the Qt 6 fixture: a "clicks: 0" label that a "Delete" button counts into,
a "Name entry" field, a "Remember me" check box).

Each row gives the input and the error code it must give. After each row the test checks that
nothing happened: the window shows what it showed before (no click counted, no text typed, no box
checked), a state the row carried is still usable (a focus step with it succeeds afterwards: the
refused call used nothing up), every file in the sessions directory is whole (parses, no
temporary file left), and the server still answers.
"""
import json
import os
import socket
import ssl
import subprocess
import time

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, TOKEN, _free_port, call, element, http_server, observe, window_of

pytestmark = pytest.mark.anyio

LONG = "x" * 100_000
BIDI = "\u202eeteleD"  # "Delete" reversed behind a right-to-left override
DEEP = "[" * 20_000 + "]" * 20_000

# (tool, arguments, code). $W: the fixture's window, $S: a fresh state of it, $E/$D/$C: the ids
# of its entry, its "Delete" button and its check box, $W2/$S2: another window and its state.
MCP_ROWS = [
    ("gui_state", {}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": 123}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": "$W", "bogus": 1}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": ""}, "WINDOW_NOT_FOUND"),
    ("gui_state", {"window_id": LONG}, "WINDOW_NOT_FOUND"),
    ("gui_state", {"window_id": "x11:4294967295"}, "WINDOW_NOT_FOUND"),
    ("gui_state", {"window_id": "../../etc/passwd"}, "WINDOW_NOT_FOUND"),
    ("gui_state", {"window_id": "x11:1\u0000"}, "WINDOW_NOT_FOUND"),
    ("gui_state", {"window_id": "$W", "max_elements": -1}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": "$W", "max_elements": 1e12}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": "$W", "query": "x" * 201}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": "$W", "query": 7}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": "$W", "all": "yes"}, "INVALID_ARGUMENT"),
    ("gui_state", {"window_id": "$W", "machine": "nowhere"}, "INVALID_ARGUMENT"),
    ("gui_list", {"machine": "../x"}, "INVALID_ARGUMENT"),
    ("gui_list", {"bogus": True}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "actions": []}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S"}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "forged-0123456789", "actions": [{"type": "click", "element_id": "$C"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "s000000000000", "actions": [{"type": "click", "element_id": "$C"}]}, "STATE_EXPIRED"),
    ("gui_action", {"window_id": "$W", "state_id": "../../../etc/passwd", "actions": [{"type": "click", "element_id": "$C"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "a/b", "actions": [{"type": "click", "element_id": "$C"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S2", "actions": [{"type": "click", "element_id": "$C"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W2", "state_id": "$S", "actions": [{"type": "click", "element_id": "$C"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": "click"}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": []}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "focus", "element_id": "$E"}] * 500}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "explode"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "x": "NaN", "y": 5}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "x": 1e20, "y": 5}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "x": 10.5, "y": 5}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "x": -5, "y": 10}]}, "OUT_OF_WINDOW"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "x": 99999, "y": 10}]}, "OUT_OF_WINDOW"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "x": 2147483647, "y": -2147483648}]}, "OUT_OF_WINDOW"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "x": 5}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "element_id": "$C", "x": 5, "y": 5}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "element_id": "e9999"}]}, "ELEMENT_NOT_FOUND"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "element_id": ""}]}, "ELEMENT_NOT_FOUND"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "element_id": "$D"}]}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "confirm_dangerous": "yes", "actions": [{"type": "click", "element_id": "$D"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "click", "element_id": "$C", "colour": "red"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "type", "element_id": "$E", "text": "y" * 2001}]}, "TEXT_TOO_LONG"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "type", "element_id": "$E"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "key", "keys": "ctrl+nonsense"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "key", "keys": ""}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "key", "keys": "+".join(["ctrl"] * 60) + "+a"}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "wait", "ms": -1}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "wait", "ms": 10**12}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "scroll", "element_id": "$E", "dy": 2**40}]}, "INVALID_ARGUMENT"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "drag", "element_id": "$E", "to_x": 5000, "to_y": 5}]}, "OUT_OF_WINDOW"),
    ("gui_action", {"window_id": "$W", "state_id": "$S", "actions": [{"type": "set_value", "element_id": "$D", "text": "1"}]}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    ("click", {}, "INVALID_ARGUMENT"),
    ("click", {"app": "$W"}, "INVALID_ARGUMENT"),
    ("click", {"app": "$W", "target": ""}, "INVALID_TARGET"),
    ("click", {"app": "$W", "target": LONG}, "INVALID_TARGET"),
    ("click", {"app": "$W", "target": "@e3"}, "INVALID_TARGET"),
    ("click", {"app": "$W", "target": "Name\u0007entry"}, "INVALID_TARGET"),
    ("click", {"app": "$W", "target": "Name\nentry"}, "INVALID_TARGET"),
    # Bidi overrides: the gate sees through them, and reads a reversed run as it is displayed.
    ("click", {"app": "$W", "target": "\u202eDelete"}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    ("click", {"app": "$W", "target": "De\u200blete"}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    # Displayed, the reversed run reads "Delete": the gate judges what a person sees (issue 39).
    ("click", {"app": "$W", "target": BIDI}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    ("click", {"app": "$W", "target": "Delete"}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    ("click", {"app": "$W", "steps": ["Remember me", "Delete"]}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    ("click", {"app": "$W", "steps": ["Remember me"] * 11}, "INVALID_ARGUMENT"),
    ("click", {"app": "$W", "target": "Remember me", "steps": ["Remember me"]}, "INVALID_ARGUMENT"),
    ("click", {"app": "no-such-app-anywhere", "target": "OK"}, "APP_NOT_FOUND"),
    ("click", {"app": "$W", "target": "Remember me", "x": 4}, "INVALID_ARGUMENT"),
    ("type_text", {"app": "$W", "target": "Name entry"}, "INVALID_ARGUMENT"),
    ("type_text", {"app": "$W", "target": "Name entry", "text": "y" * 2001}, "TEXT_TOO_LONG"),
    ("type_text", {"app": "$W", "target": "Name entry", "text": 42}, "INVALID_ARGUMENT"),
    # The gate judges the target before anything else.
    ("type_text", {"app": "$W", "target": "Delete", "text": "x"}, "DANGEROUS_ACTION_NEEDS_CONFIRMATION"),
    ("type_text", {"app": "$W", "target": "Remember me", "text": "x"}, "ELEMENT_NOT_FOUND"),  # not a field
    ("type_text", {"app": "$W", "target": "Name entry", "text": "Delete\n"}, "INVALID_ARGUMENT"),
    ("look_at_screen", {"question": LONG}, "QUESTION_TOO_LONG"),
    # Session ids name files: separators, dots and NUL are dropped (documented), never followed;
    # an id with nothing left is refused. files_whole() checks nothing lands outside.
    ("look_at_screen", {"question": "What?", "app": "$W", "session_id": "../escape"}, None),
    ("look_at_screen", {"question": "What?", "app": "$W", "session_id": "nul\u0000byte"}, None),
    ("look_at_screen", {"question": "What?", "app": "$W", "client": "../../x", "session_id": "s1"}, None),
    ("look_at_screen", {"question": "What?", "session_id": "../.."}, "INVALID_ARGUMENT"),
    ("look_at_screen", {"question": "What?", "session_id": "/"}, "INVALID_ARGUMENT"),
    ("look_at_screen", {"question": ""}, "INVALID_ARGUMENT"),
    ("look_at_screen", {"question": "What?", "app": "x11:4294967295"}, "APP_NOT_FOUND"),
    ("ping", {"bogus": 1}, "INVALID_ARGUMENT"),
    ("release_model", {"now": True}, "INVALID_ARGUMENT"),
    ("health", {"deep": json.loads("[" * 100 + "]" * 100)}, "INVALID_ARGUMENT"),
    ("gui_nope", {}, "INVALID_ARGUMENT"),
]


@pytest.fixture
def anyio_backend():
    return "asyncio"


def witness(outline):
    """What the fixture shows that any input would change."""
    lines = outline.splitlines()
    label = next(line for line in lines if '"clicks: ' in line)
    entry = next(line for line in lines if '"Name entry"' in line)
    box = next(line for line in lines if '"Remember me"' in line)
    # Without the element id (ids are renumbered per observation) and focus (the probe moves it).
    shown = entry.split("@")[0].split(None, 1)[1]
    return label.split('"')[1], shown.replace("focused", "").split(), "checked" in box


def files_whole(sessions):
    for path in sessions.rglob("*"):
        if path.is_file():
            assert not path.name.endswith((".tmp", ".partial")) and ".tmp" not in path.suffixes, path
            if path.suffix == ".json":
                json.loads(path.read_text())
            if path.suffix == ".jsonl":
                for line in path.read_text().splitlines():
                    json.loads(line)


def fill(value, ids):
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, list):
        return [fill(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, ids) for k, v in value.items()}
    return value


async def test_bad_inputs_to_every_tool_change_nothing(apps, server_env, sessions_dir):
    pid = apps.launch("qt6")
    other = apps.launch("qt5")
    env = dict(server_env, MCP_CU_MODEL="none")
    params = StdioServerParameters(command=BIN, args=[], env=env)
    async with Client(params, read_timeout_seconds=60) as client:
        w = await window_of(client, pid)
        w2 = await window_of(client, other)
        first = await observe(client, w["id"])
        first_at = time.monotonic()
        before = witness(first["outline"])
        codes = []
        for tool, args, code in MCP_ROWS:
            state = await observe(client, w["id"])
            outline = state["outline"]
            ids = {"$W": w["id"], "$S": state["state_id"], "$W2": w2["id"],
                   "$S2": (await observe(client, w2["id"]))["state_id"],
                   "$E": element(outline, "text_input", "Name entry")[0],
                   "$D": element(outline, "button", "Delete")[0],
                   "$C": element(outline, "check_box", "Remember me")[0]}
            filled = fill(args, ids)
            err, res = await call(client, tool, filled)
            got = res.get("error", {}).get("code") if err else None
            codes.append((tool, json.dumps(args)[:90], code, got))
            if err and got:
                assert res["error"]["suggestion"], (tool, res)
                assert isinstance(res["error"]["retryable"], bool), (tool, res)
            # Nothing happened: the window is as it was, files are whole, and a state the row
            # carried is still usable.
            now = (await observe(client, w["id"]))["outline"]
            assert witness(now) == before, (tool, args, now)
            files_whole(sessions_dir)
            assert not any(p.name.startswith("escape") or p.name == "x" for p in sessions_dir.parent.iterdir())
            if "$S" in json.dumps(args):
                err2, res2 = await call(client, "gui_action", {
                    "window_id": w["id"], "state_id": state["state_id"],
                    "actions": [{"type": "focus", "element_id": ids["$E"]}]})
                assert not err2, ("the refused call used the state up", tool, args, res2)
        # An expired state (30 s old): refused, and nothing happens.
        while time.monotonic() - first_at < 31:
            await anyio.sleep(0.2)
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": first["state_id"],
                                                     "actions": [{"type": "click", "element_id": ids["$C"]}]})
        codes.append(("gui_action", "expired state", "STATE_EXPIRED", res.get("error", {}).get("code")))
        assert witness((await observe(client, w["id"]))["outline"]) == before
    wrong = [row for row in codes if row[2] != row[3]]
    assert not wrong, "\n".join(f"{t} {a}: want {want}, got {got}" for t, a, want, got in wrong)
    assert len(codes) >= 60


def run_cli(args, env, stdin=None):
    return subprocess.run([BIN, *args], env=env, capture_output=True, text=True, timeout=60, input=stdin)


def cli_error(out):
    """The error code and message of a CLI answer (one JSON document on stdout)."""
    error = json.loads(out.stdout)["error"]
    return error["code"], error["message"]


BAD_TOML = """
[safety]
blocked_words = "not a list"
unknown_key = 1
[model]
name = 42
timeout = "forever"
[llm]
url = "ftp://nowhere"
api = "carrier-pigeon"
[health]
port = 99999999
[no_such_table]
x = 1
sessions_dir = [
"""


def test_bad_inputs_to_the_cli_and_config_change_nothing(tmp_path, server_env, sessions_dir):
    env = dict(server_env, MCP_CU_MODEL="none")
    bad_config = tmp_path / "bad.toml"
    bad_config.write_text(BAD_TOML)
    broken = tmp_path / "broken.toml"
    broken.write_text(BAD_TOML.replace("sessions_dir = [\n", ""))
    rows = [
        (["--health", "list"], env, "INVALID_ARGUMENT"),
        (["state"], env, "INVALID_ARGUMENT"),
        (["state", "../../etc/passwd"], env, "WINDOW_NOT_FOUND"),
        (["state", "x11:4294967295"], env, "WINDOW_NOT_FOUND"),
        (["act", "x11:1", "forged-state", "not json"], env, "INVALID_ARGUMENT"),
        (["no-such-command"], env, "INVALID_ARGUMENT"),
        (["--ask", LONG[:5000]], env, "QUESTION_TOO_LONG"),
        (["list"], dict(env, MCP_CU_CONFIG=str(bad_config)), "CONFIG_INVALID"),
        (["list"], dict(env, MCP_CU_CONFIG=str(broken)), "CONFIG_INVALID"),
        (["list"], dict(env, MCP_CU_IMAGE_QUALITY="lots"), "CONFIG_INVALID"),
        (["list"], dict(env, MCP_CU_CONFIG=str(tmp_path / "missing.toml")), "CONFIG_INVALID"),
        (["serve", "--http", "0.0.0.0:0"], dict(env, MCP_CU_HTTP_TOKEN=TOKEN), "CONFIG_INVALID"),
        (["serve", "--http", "127.0.0.1:0"], dict(env, MCP_CU_HTTP_TOKEN="short"), "CONFIG_INVALID"),
    ]
    wrong = []
    for args, row_env, code in rows:
        out = run_cli(args, row_env)
        try:
            got = cli_error(out)[0]
        except (ValueError, IndexError, KeyError, TypeError):
            got = f"exit {out.returncode}: {out.stdout[-200:]!r} {out.stderr[-200:]!r}"
        if got != code or out.returncode == 0:
            wrong.append(f"{args[:3]}: want {code}, got {got}")
        files_whole(sessions_dir)
    # The broken config names every mistake at once, not only the first.
    out = run_cli(["list"], dict(env, MCP_CU_CONFIG=str(broken)))
    message = cli_error(out)[1]
    for key in ("blocked_words", "unknown_key", "name", "timeout", "url", "api", "port", "no_such_table"):
        assert key in message, (key, message)
    assert not wrong, "\n".join(wrong)


def raw(port, request, tls=False, timeout=10):
    """Sends raw bytes; returns (status, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    if tls:
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        s = ctx.wrap_socket(s, server_hostname="localhost")
    with s:
        try:
            s.sendall(request)
        except OSError:
            pass  # refused before the body was all sent: read the answer it gave
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                head, _, body = data.partition(b"\r\n\r\n")
                length = [int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")]
                if length and len(body) >= length[0]:
                    break
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else None
    return status, body


def request(method, path, port, body=b"", headers=None, host=None):
    headers = {"Host": host or f"127.0.0.1:{port}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "Content-Length": str(len(body)),
               "Connection": "close", **(headers or {})}
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items() if v is not None)
    return head.encode() + b"\r\n" + body


INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode()
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def http_rows(port):
    return [
        ("no token", request("POST", "/mcp", port, INIT), 401),
        ("wrong token", request("POST", "/mcp", port, INIT, {"Authorization": "Bearer wrong-wrong-wrong-wrong"}), 401),
        ("token without Bearer", request("POST", "/mcp", port, INIT, {"Authorization": TOKEN}), 401),
        ("rebinding Host", request("POST", "/mcp", port, INIT, AUTH, host="evil.example:80"), 403),
        ("foreign Origin", request("POST", "/mcp", port, INIT, {**AUTH, "Origin": "http://evil.example"}), 403),
        ("10 MB body", request("POST", "/mcp", port, b"{" + b" " * 10_000_000 + b"}", AUTH), 413),
        # The MCP SDK answers a body it cannot decode with 415.
        ("deep JSON", request("POST", "/mcp", port, DEEP.encode(), AUTH), (400, 415)),
        ("not JSON", request("POST", "/mcp", port, b"\xff\xfe not json", AUTH), (400, 415)),
        ("unknown path", request("GET", "/nowhere", port, b"", AUTH), 404),
        ("unknown JSON-RPC method", request("POST", "/mcp", port, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "nope"}).encode(), AUTH), (400, 404)),
        ("header line of 100 kB", request("POST", "/mcp", port, INIT, {**AUTH, "X-Junk": "j" * 100_000}), 431),
    ]


def test_bad_requests_to_every_listener_are_refused_and_the_listener_keeps_serving(server_env, tmp_path):
    env = dict(server_env, MCP_CU_MODEL="none")
    wrong = []

    def check(name, port, tls=False):
        for what, data, status in http_rows(port):
            got, body = raw(port, data, tls=tls)
            want = status if isinstance(status, tuple) else (status,)
            if got not in want:
                wrong.append(f"{name} {what}: want {status}, got {got} {body[:120]!r}")
            if got == 401:
                assert json.loads(body)["error"]["code"] == "UNAUTHORIZED", body
        # Still serving.
        got, _ = raw(port, request("POST", "/mcp", port, INIT, AUTH), tls=tls)
        assert got == 200, (name, got)

    with http_server(env) as url:
        check("serve --http", int(url.split(":")[2].split("/")[0]))
    token = tmp_path / "token"
    token.write_text(TOKEN)
    port = _free_port()
    worker = subprocess.Popen([BIN, "worker", "--listen", f"127.0.0.1:{port}", "--tls-self-signed",
                               "--token-file", str(token)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        json.loads(worker.stdout.readline())
        check("worker", port, tls=True)
        # Plain HTTP to the TLS port: refused, and the worker keeps serving.
        got, _ = raw(port, request("POST", "/mcp", port, INIT, AUTH))
        assert got is None or got == 400
        assert worker.poll() is None
    finally:
        worker.kill()
        worker.wait(timeout=10)
    page_port = _free_port()
    page = subprocess.Popen([BIN, "webui", "--listen", f"127.0.0.1:{page_port}"], env=dict(env, MCP_CU_HTTP_TOKEN=TOKEN),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", page_port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        for what, data, status in [
            ("no token", request("GET", "/api/machines", page_port), 401),
            ("wrong cookie", request("GET", "/api/machines", page_port, headers={"Cookie": "cu_x=forged"}), 401),
            ("rebinding Host", request("GET", "/api/machines", page_port, headers=AUTH, host="evil.example"), 403),
            ("foreign Origin", request("POST", "/api/input", page_port, b"{}", {**AUTH, "Origin": "http://evil.example"}), 403),
            ("input to a forged window", request("POST", "/api/input", page_port, json.dumps({"machine": "local", "window": "x11:4294967295", "kind": "click", "x": 1, "y": 1}).encode(), AUTH), (400, 404)),
            ("10 MB body", request("POST", "/api/input", page_port, b"{" + b" " * 10_000_000 + b"}", AUTH), 413),
            ("path traversal", request("GET", "/api/capture/local/..%2F..%2Fetc%2Fpasswd", page_port, b"", AUTH), (400, 404)),
        ]:
            got, body = raw(page_port, data)
            want = status if isinstance(status, tuple) else (status,)
            if got not in want:
                wrong.append(f"webui {what}: want {status}, got {got} {body[:120]!r}")
        got, _ = raw(page_port, request("GET", "/api/machines", page_port, b"", AUTH))
        assert got == 200
    finally:
        page.kill()
        page.wait(timeout=10)
    assert not wrong, "\n".join(wrong)
