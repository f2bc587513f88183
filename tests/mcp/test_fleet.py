"""A fleet found in DNS: 20 workers, each with its own headless desktop and network address (a
network namespace), each serving TLS with a certificate signed by one CA (its own, or a wildcard
one shared with `--allow-host` naming its pod), and a
real DNS server (dnsmasq) on loopback serving the records a Kubernetes headless Service would
(an SRV record per ready pod, an address per pod name). One controller (the real binary over
stdio, driven by the official MCP SDK) has only `[fleet]` in its configuration: it finds the
workers, lists every machine at once, acts on each while one is killed, and forgets a worker that
DNS no longer lists. Prints the timings and each worker pod's memory and CPU."""
import asyncio
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, ROOT, call
from lab import Worker, free_displays, sh

pytestmark = pytest.mark.anyio
COUNT = int(os.environ.get("MCP_CU_FLEET_WORKERS", "20"))
DOMAIN = "workers.fleet.test"
SRV = f"_mcp._tcp.{DOMAIN}"
VICTIM = f"w-{min(7, COUNT // 2)}"  # killed in the middle of the round


@pytest.fixture
def anyio_backend():
    return "asyncio"


def dnsmasq_binary():
    return shutil.which("dnsmasq") or ("/usr/sbin/dnsmasq" if os.path.exists("/usr/sbin/dnsmasq") else None)


class Dns:
    """dnsmasq on 127.0.0.1 serving `workers` as a headless Service's SRV and address records;
    restarted on the same port to change them (as pods become ready or go)."""

    def __init__(self, tmp):
        self.tmp, self.proc = tmp, None
        import socket
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]

    def serve(self, workers):
        self.stop()
        lines = ["no-resolv", "no-hosts", "bind-interfaces", "listen-address=127.0.0.1", f"port={self.port}",
                 "log-facility=-"]
        for w in workers:
            host = f"{w.name}.{DOMAIN}"
            lines += [f"srv-host={SRV},{host},8443", f"host-record={host},{w.ip}"]
        conf = self.tmp / "dnsmasq.conf"
        conf.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen([dnsmasq_binary(), "--keep-in-foreground", f"--conf-file={conf}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        first = workers[0].name if workers else None  # its first label, as the answer carries it
        while time.time() < deadline:
            probe = subprocess.run(["python3", "-c", DIG, str(self.port), SRV], capture_output=True, text=True)
            if probe.returncode == 0 and (first is None or first in probe.stdout):
                return
            time.sleep(0.05)
        raise AssertionError("dnsmasq never answered")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


# A minimal SRV query over UDP, to know when dnsmasq answers (no dig on the machine).
DIG = r"""
import socket, struct, sys
port, name = int(sys.argv[1]), sys.argv[2]
q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
msg = struct.pack(">HHHHHH", 7, 0x0100, 1, 0, 0, 0) + q + struct.pack(">HH", 33, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.5)
s.sendto(msg, ("127.0.0.1", port)); data = s.recv(4096)
print(data.decode("latin-1"))
"""


def make_ca(tmp):
    ca_key, ca = tmp / "ca.key", tmp / "ca.crt"
    sh("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
       "-keyout", str(ca_key), "-out", str(ca), "-days", "2", "-subj", "/CN=fleet test CA")
    return ca_key, ca


def make_certificate(tmp, ca_key, ca, host):
    key, csr, cert, ext = (tmp / f"{host.replace('*', 'any')}.{x}" for x in ("key", "csr", "crt", "ext"))
    ext.write_text(f"subjectAltName=DNS:{host}\nextendedKeyUsage=serverAuth\n")
    sh("openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
       "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={host}")
    sh("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
       "-out", str(cert), "-days", "2", "-extfile", str(ext))
    return cert, key


def worker_rss(worker):
    """RSS (MiB) of the worker process alone."""
    status = pathlib.Path(f"/proc/{worker.proc.pid}/status").read_text()
    return next(int(l.split()[1]) for l in status.splitlines() if l.startswith("VmRSS:")) / 1024


def controller_rss():
    """RSS (MiB) of the controller: this test's child process running the binary."""
    for proc in pathlib.Path("/proc").iterdir():
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv0 = (proc / "cmdline").read_bytes().split(b"\0")[0].decode()
            if ppid == os.getpid() and argv0 == BIN:
                status = (proc / "status").read_text()
                return next(int(l.split()[1]) for l in status.splitlines() if l.startswith("VmRSS:")) / 1024
        except (OSError, ValueError, IndexError):
            continue
    return None


def pod_usage(worker):
    """RSS (MiB) and CPU seconds of one worker pod: the worker and its desktop's processes."""
    pids = [worker.proc.pid]
    state = pathlib.Path(f"/tmp/deskenv-{worker.n}/pids")
    pids += [int(line.split("=")[1]) for line in state.read_text().splitlines() if "=" in line]
    rss_kib, ticks = 0, 0
    for pid in pids:
        try:
            status = pathlib.Path(f"/proc/{pid}/status").read_text()
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        rss_kib += next((int(l.split()[1]) for l in status.splitlines() if l.startswith("VmRSS:")), 0)
        ticks += int(stat[11]) + int(stat[12])
    return rss_kib / 1024, ticks / os.sysconf("SC_CLK_TCK")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    if os.environ.get("CI") != "true" and not os.environ.get("MCP_CU_TEST_DESKTOP"):
        pytest.skip("SKIPPED: no test desktop (run scripts/test.sh)")
    need_fail = os.environ.get("CI") == "true"
    if os.geteuid() != 0:
        (pytest.fail if need_fail else pytest.skip)("the fleet test needs root for network namespaces")
    if not dnsmasq_binary():
        (pytest.fail if need_fail else pytest.skip)("the fleet test needs dnsmasq (Debian's dnsmasq-base)")
    tmp = tmp_path_factory.mktemp("fleet")
    ca_key, ca = make_ca(tmp)
    displays = free_displays(COUNT)
    workers = [Worker(f"w-{i}", n, 101 + i, tmp) for i, n in enumerate(displays)]
    dns = Dns(tmp)
    started = time.time()
    desktops = []
    try:
        for w in workers:
            log = open(tmp / f"desktop-{w.n}.log", "w")
            desktops.append(subprocess.Popen(["bash", str(ROOT / "scripts/desktop/start-desktop.sh"), str(w.n)],
                                             stdout=subprocess.DEVNULL, stderr=log))
        for w, p in zip(workers, desktops):
            assert p.wait(timeout=180) == 0, (tmp / f"desktop-{w.n}.log").read_text()
        # Half the pods have a certificate of their own (its name is what Host may say); the
        # other half share one wildcard certificate, as a Secret for the whole StatefulSet would
        # give them, and are told their pod name (--allow-host, as the manifest does).
        wildcard = make_certificate(tmp, ca_key, ca, f"*.{DOMAIN}")
        for i, w in enumerate(workers):
            own = i < COUNT // 2
            w.tls = make_certificate(tmp, ca_key, ca, f"{w.name}.{DOMAIN}") if own else wildcard
            w.extra = () if own else ("--allow-host", f"{w.name}.{DOMAIN}")
            w.network_up()
            w.start(tls=w.tls, extra=w.extra)
        apps = {w.name: w.launch("qt6") for w in workers}
        dns.serve(workers)
        print(f"\nfleet: {COUNT} workers up in {time.time() - started:.1f} s")
        yield tmp, ca, workers, dns, apps
    finally:
        for p in desktops:  # a start still running when another failed: end it before the purge
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
        dns.stop()
        for w in workers:
            w.stop()
            w.network_down()
            subprocess.run(["bash", str(ROOT / "scripts/desktop/stop-desktop.sh"), str(w.n), "--purge"],
                           capture_output=True)


def controller(tmp, ca, workers, dns, server_env):
    config = tmp / "controller.toml"
    config.write_text("\n".join([
        "[fleet]", f'srv = "{SRV}"', f'token_file = "{workers[0].token_file}"', f'ca_file = "{ca}"',
        f'nameserver = "127.0.0.1:{dns.port}"', "refresh_seconds = 1", "timeout_seconds = 30", ""]))
    env = dict(server_env, MCP_CU_CONFIG=str(config))
    return Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=120)


async def list_all(client):
    t = time.perf_counter()
    err, res = await call(client, "gui_list", {"machine": "*"})
    assert not err, res
    return res, (time.perf_counter() - t) * 1000


async def test_a_fleet_found_in_dns_is_listed_driven_and_survives_a_dead_worker(fleet, server_env):
    tmp, ca, workers, dns, apps = fleet
    names = {w.name for w in workers}
    usage_before = {w.name: pod_usage(w) for w in workers}
    async with controller(tmp, ca, workers, dns, server_env) as client:
        # Every worker found by DNS, named by its pod, listed at once; the Qt window on each.
        deadline = time.time() + 60
        while True:
            res, cold_ms = await list_all(client)
            by = {m["machine"]: m for m in res["machines"]}
            windows = {m: next((w for w in by[m].get("windows", []) if w.get("pid") == apps[m]), None)
                       for m in names if m in by}
            if set(windows) == names and all(windows.values()):
                break
            assert time.time() < deadline, json.dumps(res)
            await asyncio.sleep(0.5)
        assert set(by) == names | {"local"}, sorted(by)
        assert all(windows[m]["id"].startswith(f"{m}/x11:") for m in names)
        res, warm_ms = await list_all(client)
        assert not res.get("unanswered"), res

        # One action on each worker at once; one worker killed while they run.
        async def act(name):
            t = time.perf_counter()
            err, res = await call(client, "click", {"app": windows[name]["id"], "target": "Remember me"})
            return name, err, res, (time.perf_counter() - t) * 1000

        victim = next(w for w in workers if w.name == VICTIM)
        t = time.perf_counter()
        tasks = [asyncio.ensure_future(act(m)) for m in sorted(names)]
        # Killed once the round is under way: as soon as the first click has answered.
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED, timeout=60)
        victim.proc.send_signal(signal.SIGKILL)
        results = await asyncio.gather(*tasks)
        round_ms = (time.perf_counter() - t) * 1000
        for name, err, res, _ in results:
            if name == VICTIM:
                # Not retried: an acting tool may have acted before the connection broke.
                if err:
                    assert res["error"]["code"] == "MACHINE_UNREACHABLE", res
            else:
                assert not err and res["window_id"] == windows[name]["id"], (name, res)
        acted = [name for name, err, _, _ in results if not err]
        assert len(acted) >= COUNT - 1
        # What the actions did, read back from each window (all but the dead one).
        for name in sorted(names - {VICTIM})[:3]:
            err, state = await call(client, "gui_state", {"window_id": windows[name]["id"]})
            assert not err and 'check_box "Remember me" checked' in state["outline"], state["outline"]

        # The dead worker still in DNS: listed as unanswered, the listing bounded.
        res, dead_ms = await list_all(client)
        assert res["unanswered"] == [VICTIM], res
        error = next(m for m in res["machines"] if m["machine"] == VICTIM)["error"]
        assert error["code"] == "MACHINE_UNREACHABLE", error
        assert dead_ms < 12000

        # DNS drops it (its pod is no longer ready): the controller forgets it, and a call naming
        # its window answers MACHINE_UNREACHABLE, not "unknown machine".
        alive = [w for w in workers if w.name != VICTIM]
        dns.serve(alive)
        deadline = time.time() + 15
        while True:
            res, _ = await list_all(client)
            if VICTIM not in {m["machine"] for m in res["machines"]}:
                break
            assert time.time() < deadline, res
            await asyncio.sleep(0.3)
        assert not res.get("unanswered"), res
        err, res = await call(client, "gui_state", {"window_id": windows[VICTIM]["id"]})
        assert err and res["error"]["code"] == "MACHINE_UNREACHABLE" and "left the fleet" in res["error"]["message"], res

        sessions_rss = controller_rss()

        # It comes back (restarted, ready again): found and driven again.
        victim.start(tls=victim.tls, extra=victim.extra)
        dns.serve(workers)
        deadline = time.time() + 15
        while True:
            err, res = await call(client, "gui_list", {"machine": VICTIM})
            if not err and any(w.get("pid") == apps[VICTIM] for w in res["windows"]):
                break
            assert time.time() < deadline, res
            await asyncio.sleep(0.3)

    usage = {w.name: pod_usage(w) for w in workers}
    alone = sorted(worker_rss(w) for w in workers if w.name != VICTIM)
    rss = sorted(u[0] for u in usage.values())
    cpu = sorted(usage[n][1] - usage_before[n][1] for n in usage if n != VICTIM)
    figures = {
        "workers": COUNT, "gui_list_all_first_ms": round(cold_ms), "gui_list_all_warm_ms": round(warm_ms),
        "gui_list_all_one_dead_ms": round(dead_ms), "click_on_each_parallel_ms": round(round_ms),
        "click_ms_median": round(sorted(r[3] for r in results)[len(results) // 2]),
        "pod_rss_mib_median": round(rss[len(rss) // 2]), "pod_rss_mib_max": round(rss[-1]),
        "worker_process_rss_mib_max": round(alone[-1]),
        "controller_rss_mib": sessions_rss and round(sessions_rss),
        "pod_cpu_seconds_during_test_max": round(cpu[-1], 2),
    }
    print("fleet figures: " + json.dumps(figures))
    (ROOT / "target").mkdir(exist_ok=True)
    (ROOT / "target" / "fleet-figures.json").write_text(json.dumps(figures, indent=1) + "\n")
