"""A lab of remote workers for the remote tests and the remote benchmark: each worker has its own
headless desktop (scripts/desktop) and its own network address — a network namespace with a veth
pair, 10.77.N.2 inside and 10.77.N.1 on the host — and serves over TLS with a self-signed
certificate whose fingerprint it announces. Needs root (network namespaces)."""
import contextlib
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MCP_CU_BIN", str(ROOT / "target" / "debug" / "mcp-computer-use"))
TOKEN = "worker-token-0123456789abcdef"


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def free_displays(count, start=71, stop=99):
    """Display numbers no X server and no desktop state uses: a test's own desktops never take
    over (and purge) a contributor's or a concurrent run's."""
    free = [n for n in range(start, stop)
            if not pathlib.Path(f"/tmp/.X11-unix/X{n}").exists()
            and not pathlib.Path(f"/tmp/.X{n}-lock").exists()
            and not pathlib.Path(f"/tmp/deskenv-{n}").exists()]
    if len(free) < count:
        raise RuntimeError(f"fewer than {count} free X displays in {start}..{stop}")
    return free[:count]


def desktop_env(n):
    env = dict(os.environ)
    for line in pathlib.Path(f"/tmp/deskenv-{n}/env").read_text().splitlines():
        m = re.match(r"export (\w+)='?([^']*)'?$", line)
        if m:
            env[m.group(1)] = m.group(2)
    return env


class Worker:
    def __init__(self, name, n, index, tmp):
        self.name, self.n, self.ns = name, n, f"cuw{index}"
        self.host_ip, self.ip = f"10.77.{index}.1", f"10.77.{index}.2"
        self.sessions = tmp / f"{name}-sessions"
        self.sessions.mkdir()
        self.token_file = tmp / f"{name}.token"
        self.token_file.write_text(TOKEN)
        # The desktop credential: decisions and a person's input from a Desktop page need it,
        # never the tool token.
        self.desktop_token_file = tmp / f"{name}.desktop-token"
        self.desktop_token_file.write_text(f"desktop-{name}-0123456789abcdef")
        self.proc = None
        self.fingerprint = None
        self.extra_env = {}

    def network_up(self):
        i = self.ns.removeprefix("cuw")
        sh("ip", "netns", "add", self.ns)
        sh("ip", "link", "add", f"cuv{i}a", "type", "veth", "peer", "name", f"cuv{i}b")
        sh("ip", "link", "set", f"cuv{i}b", "netns", self.ns)
        sh("ip", "addr", "add", f"{self.host_ip}/24", "dev", f"cuv{i}a")
        sh("ip", "link", "set", f"cuv{i}a", "up")
        sh("ip", "netns", "exec", self.ns, "ip", "addr", "add", f"{self.ip}/24", "dev", f"cuv{i}b")
        sh("ip", "netns", "exec", self.ns, "ip", "link", "set", f"cuv{i}b", "up")
        sh("ip", "netns", "exec", self.ns, "ip", "link", "set", "lo", "up")

    def network_down(self):
        i = self.ns.removeprefix("cuw")
        subprocess.run(["ip", "link", "del", f"cuv{i}a"], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)

    def command(self, *extra):
        return ["ip", "netns", "exec", self.ns, BIN, "worker", "--token-file", str(self.token_file),
                "--desktop-token-file", str(self.desktop_token_file), *extra]

    def start(self, tls=None, extra=()):
        """Starts the worker: with a self-signed certificate, or `tls=(cert, key)` files."""
        env = dict(desktop_env(self.n), MCP_CU_SESSIONS_DIR=str(self.sessions), **self.extra_env)
        certificate = ["--tls-cert", str(tls[0]), "--tls-key", str(tls[1])] if tls else ["--tls-self-signed"]
        self.proc = subprocess.Popen(self.command("--listen", f"{self.ip}:8443", *certificate, *extra),
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        announce = json.loads(self.proc.stdout.readline())
        self.fingerprint = announce.get("fingerprint")
        assert announce["listening"] == f"https://{self.ip}:8443/mcp"
        deadline = time.time() + 10
        while time.time() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((self.ip, 8443), timeout=0.2):
                return
            time.sleep(0.05)
        raise AssertionError(f"worker {self.name} never listened")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def launch(self, app):
        out = sh("bash", str(ROOT / "scripts/desktop/launch-apps.sh"), str(self.n), app)
        return int(re.search(r"^%s=(\d+)$" % re.escape(app), out.stdout, re.M).group(1))


def silent_server():
    """A TCP server that accepts connections and never answers."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    held = []

    def accept():
        while True:
            try:
                held.append(s.accept()[0])
            except OSError:
                return
    threading.Thread(target=accept, daemon=True).start()
    return s
