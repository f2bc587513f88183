#!/usr/bin/env python3
"""Remote worker overhead: gui_state on a calculator locally vs through a worker (median, p99),
screenshot bytes on the wire, and parallel gui_state calls across three workers (throughput,
p99). Uses the lab of tests/mcp/lab.py (network namespaces: run as root).

Usage: remote_bench.py REPS   (MCP_CU_BIN = a build with the `tls` feature; a desktop in env)"""
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "mcp"))
from lab import BIN, Worker, sh  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

KEEP = ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE", "HOME", "PATH"]


def stats(samples):
    s = sorted(samples)
    return {"median_ms": round(statistics.median(s), 1), "p99_ms": round(s[min(len(s) - 1, int(0.99 * len(s)))], 1)}


def client(env):
    return Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=60)


async def window_of(c, pid, machine=None):
    for _ in range(100):
        args = {"machine": machine} if machine else {}
        res = json.loads((await c.call_tool("gui_list", args)).content[0].text)
        for w in res["windows"]:
            if w.get("pid") == pid:
                return w["id"]
        await asyncio.sleep(0.1)
    raise SystemExit(f"no window for {pid}")


async def time_states(c, window_id, reps):
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        res = await c.call_tool("gui_state", {"window_id": window_id})
        samples.append((time.perf_counter() - t) * 1000)
        assert not res.is_error, res
    return samples


async def main(reps):
    tmp = Path(tempfile.mkdtemp(prefix="remote-bench-"))
    workers = [Worker(f"w{i}", 80 + i, 10 + i, tmp) for i in (1, 2, 3)]
    local_n = 84
    try:
        sh("bash", str(ROOT / "scripts/desktop/start-desktop.sh"), str(local_n))
        for w in workers:
            sh("bash", str(ROOT / "scripts/desktop/start-desktop.sh"), str(w.n))
            w.network_up()
            w.start()
        from lab import desktop_env
        local_env = {k: v for k, v in desktop_env(local_n).items() if k in KEEP}
        local_env["MCP_CU_SESSIONS_DIR"] = str(tmp / "controller")
        conf = tmp / "controller.toml"
        conf.write_text("".join(
            f'[machines.{w.name}]\nurl = "https://{w.ip}:8443/mcp"\ntoken_file = "{w.token_file}"\n'
            f'fingerprint = "{w.fingerprint}"\n\n' for w in workers))
        remote_env = dict(local_env, MCP_CU_CONFIG=str(conf))
        out = sh("bash", str(ROOT / "scripts/desktop/launch-apps.sh"), str(local_n), "calc").stdout
        local_pid = int(out.split("calc=")[1].split()[0])
        remote_pids = [w.launch("calc") for w in workers]

        async with client(local_env) as c:
            wid = await window_of(c, local_pid)
            await time_states(c, wid, 3)
            local = await time_states(c, wid, reps)
        async with client(remote_env) as c:
            ids = [await window_of(c, pid, w.name) for w, pid in zip(workers, remote_pids)]
            await time_states(c, ids[0], 3)
            remote = await time_states(c, ids[0], reps)
            shot = await c.call_tool("gui_state", {"window_id": ids[0], "screenshot": True})
            image = next(b for b in shot.content if getattr(b, "type", "") == "image")
            text = next(b for b in shot.content if getattr(b, "type", "") == "text")
        print(json.dumps({"gui_state_local": stats(local), "gui_state_remote": stats(remote),
                          "overhead_median_ms": round(statistics.median(remote) - statistics.median(local), 1)}))
        print(json.dumps({"screenshot_jpeg_bytes": len(base64.b64decode(image.data)),
                          "screenshot_base64_bytes_on_the_wire": len(image.data), "answer_text_bytes": len(text.text)}))

        for per_worker in (1, 3):
            async def one(window_id):
                async with client(remote_env) as c:
                    return await time_states(c, window_id, reps)
            t = time.perf_counter()
            results = await asyncio.gather(*(one(i) for i in ids for _ in range(per_worker)))
            wall = time.perf_counter() - t
            samples = [x for r in results for x in r]
            print(json.dumps({"parallel_clients": len(results), "calls": len(samples),
                              "throughput_calls_per_s": round(len(samples) / wall, 1), **stats(samples)}))
    finally:
        for w in workers:
            w.stop()
            w.network_down()
            subprocess.run(["bash", str(ROOT / "scripts/desktop/stop-desktop.sh"), str(w.n), "--purge"], capture_output=True)
        subprocess.run(["bash", str(ROOT / "scripts/desktop/stop-desktop.sh"), str(local_n), "--purge"], capture_output=True)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
