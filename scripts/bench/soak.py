"""The soak loop behind soak.sh: one stdio server, observe -> act -> observe for MINUTES, the
server's RSS and open descriptors printed every minute (JSON lines), then a summary."""
import asyncio
import json
import os
import sys
import time

from mcp import Client, StdioServerParameters

MINUTES, APP_PID, BIN = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
PAUSE = float(os.environ.get("SOAK_PAUSE", "0"))  # seconds between loops (a quieter machine)


def text(res):
    return json.loads(next(b.text for b in res.content if getattr(b, "type", "") == "text"))


def server_pid():
    """The server: the child of this process running BIN."""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().split(b"\0")
                with open(f"/proc/{pid}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if cmd and cmd[0].decode(errors="replace") == BIN and ppid == os.getpid():
                return int(pid)
    raise SystemExit("server process not found")


def sample(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return rss // 1024, len(os.listdir(f"/proc/{pid}/fd"))


def box_checked(outline):
    return "checked" in next(line for line in outline.splitlines() if '"Remember me"' in line)


async def main():
    env = {k: v for k, v in os.environ.items()}
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=60) as c:
        windows = text(await c.call_tool("gui_list", {}))["windows"]
        window = next(w["id"] for w in windows if w.get("pid") == APP_PID)
        pid = server_pid()
        start = time.monotonic()
        samples, loops, failures, next_sample = [], 0, 0, 0.0
        while time.monotonic() - start < MINUTES * 60:
            if time.monotonic() - start >= next_sample:
                rss, fds = sample(pid)
                samples.append((rss, fds))
                print(json.dumps({"minute": round((time.monotonic() - start) / 60, 1), "rss_mb": rss,
                                  "fds": fds, "loops": loops, "failures": failures}), flush=True)
                next_sample += 60
            state = text(await c.call_tool("gui_state", {"window_id": window}))
            line = next(l for l in state["outline"].splitlines() if '"Remember me"' in l)
            before = box_checked(state["outline"])
            res = text(await c.call_tool("gui_action", {"window_id": window, "state_id": state["state_id"],
                                                        "actions": [{"type": "click", "element_id": line.split()[0]}]}))
            after = text(await c.call_tool("gui_state", {"window_id": window}))
            loops += 1
            if PAUSE:
                await asyncio.sleep(PAUSE)
            if "error" in res or box_checked(after["outline"]) == before:
                failures += 1
        rss, fds = sample(pid)
        samples.append((rss, fds))
        first, peak = samples[1] if len(samples) > 1 else samples[0], max(s[0] for s in samples)
        print(json.dumps({"summary": True, "minutes": MINUTES, "loops": loops, "failures": failures,
                          "rss_mb_first_minute": first[0], "rss_mb_last": rss, "rss_mb_peak": peak,
                          "fds_first_minute": first[1], "fds_last": fds,
                          "loops_per_second": round(loops / (MINUTES * 60), 2)}), flush=True)


asyncio.run(main())
