"""The HTTP listener's rules, against the real binary: token, TLS, loopback. No desktop needed."""
import json
import os
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest
from mcp import Client
from mcp.client import streamable_http
from mcp.client.streamable_http import streamable_http_client

from conftest import BIN, TOKEN, http_server

pytestmark = pytest.mark.anyio
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture
def anyio_backend():
    return "asyncio"


def post(url, headers):
    request = urllib.request.Request(url, data=json.dumps(INIT).encode(), method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_requests_without_the_right_token_are_unauthorized(tmp_path):
    env = {"PATH": os.environ["PATH"], "MCP_CU_SESSIONS_DIR": str(tmp_path)}
    with http_server(env) as url:
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}, {"Authorization": TOKEN}):
            status, body = post(url, headers)
            assert status == 401, (headers, status, body)
            assert json.loads(body)["error"]["code"] == "UNAUTHORIZED"
        status, body = post(url, {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and "mcp-computer-use" in body


def test_public_binds_need_tls_and_tokens_never_come_from_argv(tmp_path):
    env = {"PATH": os.environ["PATH"], "MCP_CU_HTTP_TOKEN": TOKEN}
    out = subprocess.run([BIN, "serve", "--http", "0.0.0.0:0"], env=env, capture_output=True, text=True, timeout=10)
    assert out.returncode == 2 and json.loads(out.stdout)["error"]["code"] == "CONFIG_INVALID", out.stdout
    assert "TLS" in json.loads(out.stdout)["error"]["message"]
    out = subprocess.run([BIN, "serve", "--http", "127.0.0.1:0"], env={"PATH": os.environ["PATH"]},
                         capture_output=True, text=True, timeout=10)
    assert out.returncode == 2 and "token" in json.loads(out.stdout)["error"]["message"].lower()
    out = subprocess.run([BIN, "serve", "--http", "127.0.0.1:0", "--token", TOKEN], capture_output=True, text=True, timeout=10)
    assert out.returncode == 2, "there is no --token flag"


async def test_tls_listener_serves_the_sdk_client_and_refuses_plain_http(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], check=True, capture_output=True)
    env = {"PATH": os.environ["PATH"], "MCP_CU_SESSIONS_DIR": str(tmp_path)}
    with http_server(env, ["--tls-cert", str(cert), "--tls-key", str(key)]) as url:
        https = url.replace("http://", "https://")
        http = streamable_http.httpx2.AsyncClient(verify=ssl.create_default_context(cafile=str(cert)), headers={"Authorization": f"Bearer {TOKEN}"})
        async with Client(streamable_http_client(https, http_client=http), read_timeout_seconds=30) as client:
            names = {t.name for t in (await client.list_tools()).tools}
        assert names == {"gui_list", "gui_state", "gui_wait", "gui_action", "gui_window", "gui_open", "gui_clipboard", "click", "type_text",
                         "look_at_screen", "ping", "health", "release_model"}
        with pytest.raises(Exception):
            post(url, {"Authorization": f"Bearer {TOKEN}"})


@pytest.mark.parametrize("command", [["serve", "--http"], ["worker", "--listen"]])
def test_a_listener_ends_at_once_when_asked_to_stop(tmp_path, command):
    # Regression: in a container the worker runs as PID 1, where an unhandled SIGTERM is ignored;
    # `podman stop` waited its 10 s and killed it.
    import signal
    import socket
    import time
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": os.environ["PATH"], "MCP_CU_HTTP_TOKEN": TOKEN, "MCP_CU_SESSIONS_DIR": str(tmp_path)}
    proc = subprocess.Popen([BIN, *command, f"127.0.0.1:{port}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while True:
            try:
                if post(f"http://127.0.0.1:{port}/mcp", {"Authorization": f"Bearer {TOKEN}"})[0] == 200:
                    break
            except urllib.error.URLError:
                pass
            assert time.time() < deadline and proc.poll() is None, "the listener never answered"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=3) == 0
    finally:
        proc.kill()
