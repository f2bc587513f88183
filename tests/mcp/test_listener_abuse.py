"""Every HTTP listener under abuse: 2,000 idle or half-sent connections (plus a stream of new ones)
against a server whose open-file limit is 1,024, while 50 real clients make real requests. Each
listener must answer every real client within seconds, keep its memory bounded, and keep serving
afterwards. Loopback only; every loop here is bounded."""
import contextlib
import json
import os
import resource
import socket
import ssl
import subprocess
import threading
import time

import anyio
import httpx2 as httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from conftest import BIN, TOKEN, _free_port, result_json

pytestmark = pytest.mark.anyio
IDLE = 2000
REAL_CLIENTS = 50
ANSWER_WITHIN = 10.0
FILE_LIMIT = 1024
# A TLS ClientHello cut off after its first bytes: the handshake never completes.
PARTIAL_HELLO = bytes.fromhex("160301020001 0001fc0303".replace(" ", ""))
PARTIAL_HEADERS = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


@pytest.fixture
def anyio_backend():
    return "asyncio"


def limited():
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait_listening(port, proc, deadline=15):
    end = time.time() + deadline
    while time.time() < end:
        assert proc.poll() is None, "the listener exited"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise AssertionError("never listened")


class Attacker:
    """Holds IDLE connections (half of them with a half-sent request), then keeps opening new ones
    until stopped (at most `seconds`)."""

    def __init__(self, port, tls):
        self.port, self.first = port, PARTIAL_HELLO if tls else PARTIAL_HEADERS
        self.held, self.opened, self.stop = [], 0, threading.Event()

    def _open(self, half_sent):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", self.port))
        self.held.append((s, half_sent))
        self.opened += 1

    def flood(self):
        for i in range(IDLE):
            self._open(i % 2 == 1)
        # Send the half requests once the connects have completed (bounded wait).
        end = time.time() + 5
        for s, half in self.held:
            if half:
                while time.time() < end:
                    try:
                        s.send(self.first)
                        break
                    except BlockingIOError:
                        time.sleep(0.01)
                    except OSError:
                        break

    def keep_opening(self, seconds):
        end = time.time() + seconds
        while not self.stop.is_set() and time.time() < end:
            self._open(False)
            time.sleep(0.05)  # 20 new connections a second, the whole time

    def close(self):
        self.stop.set()
        for s, _ in self.held:
            s.close()


@contextlib.contextmanager
def listener(kind, env, tmp_path):
    """Starts one listener under the file limit; yields (port, proc, scheme)."""
    port = _free_port()
    env = dict(env, MCP_CU_HTTP_TOKEN=TOKEN)
    stdin = subprocess.DEVNULL
    if kind == "serve":
        cmd, scheme = [BIN, "serve", "--http", f"127.0.0.1:{port}"], "http"
    elif kind == "worker":
        token = tmp_path / "worker.token"
        token.write_text(TOKEN)
        cmd = [BIN, "worker", "--listen", f"127.0.0.1:{port}", "--tls-self-signed", "--token-file", str(token)]
        scheme = "https"
    elif kind == "webui":
        cmd, scheme = [BIN, "webui", "--listen", f"127.0.0.1:{port}"], "http"
    else:
        cmd, scheme, stdin = [BIN, "--health-http"], "http", subprocess.PIPE
        env["MCP_CU_HEALTH_PORT"] = str(port)
    proc = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=limited)
    try:
        wait_listening(port, proc)
        yield port, proc, scheme
    finally:
        proc.kill()
        proc.wait(timeout=10)


async def real_request(kind, port, scheme):
    """One real client's request; returns its latency in seconds."""
    start = time.monotonic()
    base = f"{scheme}://127.0.0.1:{port}"
    if kind in ("serve", "worker"):
        http = httpx.AsyncClient(verify=False, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with Client(streamable_http_client(f"{base}/mcp", http_client=http), read_timeout_seconds=30) as c:
            is_error, body = result_json(await c.call_tool("gui_list", {}))
            assert not is_error and isinstance(body["windows"], list), body
    else:
        async with httpx.AsyncClient(timeout=30, headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            r = await http.get(f"{base}/health" if kind == "health" else f"{base}/api/machines")
            assert r.status_code in (200, 503) if kind == "health" else r.status_code == 200, r.status_code
            if kind == "health":
                assert "ok" in r.json()
    return time.monotonic() - start


@pytest.mark.parametrize("kind", ["serve", "worker", "webui", "health"])
async def test_listeners_answer_real_clients_under_two_thousand_idle_connections(kind, server_env, tmp_path):
    need = IDLE * 2 + 500
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):  # root may raise the hard limit too
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), max(hard, need)))
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < need:
        pytest.fail(f"this test needs an open-file limit of {need}; the hard limit is {hard}")
    with listener(kind, server_env, tmp_path) as (port, proc, scheme):
        baseline = await real_request(kind, port, scheme)
        rss_before = rss_kib(proc.pid)
        attacker = Attacker(port, tls=scheme == "https")
        try:
            await anyio.to_thread.run_sync(attacker.flood)
            opener = threading.Thread(target=attacker.keep_opening, args=(60,), daemon=True)
            opener.start()
            latencies = []

            async def one():
                latencies.append(await real_request(kind, port, scheme))

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    for _ in range(REAL_CLIENTS):
                        tg.start_soon(one)
            attacker.stop.set()
            opener.join(timeout=10)
            rss_after, fds = rss_kib(proc.pid), open_fds(proc.pid)
        finally:
            attacker.close()
        assert proc.poll() is None, "the listener survived"
        assert len(latencies) == REAL_CLIENTS
        print(f"\n{kind}: {attacker.opened} hostile connections; {REAL_CLIENTS} real clients, "
              f"slowest {max(latencies):.2f} s (alone {baseline:.2f} s); "
              f"RSS {rss_before // 1024} -> {rss_after // 1024} MiB; {fds} open fds")
        assert max(latencies) < ANSWER_WITHIN, sorted(latencies)[-5:]
        assert fds < FILE_LIMIT, fds
        assert rss_after - rss_before < 200 * 1024, (rss_before, rss_after)
        # Afterwards it still serves, promptly.
        assert await real_request(kind, port, scheme) < ANSWER_WITHIN
