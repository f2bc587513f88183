#!/usr/bin/python3
"""Click-by-label latency on gnome-calculator, from the call to the observed effect (the display
reads the expected value), for three drivers in one run:

- ours: the `click` tool of a running mcp-computer-use MCP server (stdio, official Python SDK);
- pyatspi: the predecessor's way, a fresh full walk of the window per step, find the label, doAction;
- xdotool: raw pointer clicks at coordinates computed beforehand (no label lookup at all: a floor).

Usage: click_bench.py REPS CALC_PID MCP_BIN VENV_PYTHON   (prints one JSON line per driver)
The MCP side runs in the venv's python (the SDK lives there); this file re-executes itself there.
"""
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

SINGLE = ["7"]
SEQUENCE = ["7", "×", "6", "="]
EXPECT = {"7": "7", "=": "42"}


def atspi_calc(pid):
    import pyatspi
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is not None and app.get_process_id() == pid:
            return app[0]
    raise SystemExit(f"no calculator window for pid {pid}")


def display_of(window):
    import pyatspi
    found = pyatspi.findDescendant(window, lambda a: a.getRoleName() in ("text", "editbar") and a.childCount == 0)
    return found.queryText()


def read(display):
    return display.getText(0, -1).strip()


def wait_for(display, value, timeout=5.0):
    deadline = time.perf_counter() + timeout
    while read(display) != value:
        if time.perf_counter() > deadline:
            raise SystemExit(f"display never showed {value!r} (shows {read(display)!r})")
        time.sleep(0.002)


def reset(display):
    subprocess.run(["xdotool", "key", "Escape"], check=True)
    wait_for(display, "")


def stats(samples):
    s = sorted(samples)
    return {"median_ms": round(statistics.median(s), 1), "p90_ms": round(s[int(0.9 * (len(s) - 1))], 1)}


def time_driver(name, reps, display, run):
    out = {"driver": name}
    for label, steps in (("single", SINGLE), ("sequence4", SEQUENCE)):
        samples = []
        for _ in range(reps):
            reset(display)
            t = time.perf_counter()
            run(steps)
            wait_for(display, EXPECT[steps[-1]])
            samples.append((time.perf_counter() - t) * 1000)
        out[label] = stats(samples)
    return out


def is_button(a, label):
    # GTK 4 names a button and its inner label together ("7 7"), as the agent-cu walk saw it.
    return a.getRoleName() in ("push button", "button") and a.name in (label, f"{label} {label}")


def pyatspi_driver(pid):
    import pyatspi

    def run(steps):
        for step in steps:
            window = atspi_calc(pid)  # fresh lookup and walk per step, as agent-cu did
            nodes = []
            stack = [window]
            while stack:
                a = stack.pop()
                if a is None:
                    continue
                nodes.append(a)
                stack.extend(a[i] for i in range(a.childCount))
            button = next(a for a in nodes if is_button(a, step))
            button.queryAction().doAction(0)
    return run


def window_origin(pid):
    xid = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid)], check=True,
                         capture_output=True, text=True).stdout.split()[-1]
    geo = subprocess.run(["xdotool", "getwindowgeometry", "--shell", xid], check=True,
                         capture_output=True, text=True).stdout
    values = dict(line.split("=", 1) for line in geo.split())
    return int(values["X"]), int(values["Y"])


def xdotool_driver(window, pid):
    import pyatspi
    ox, oy = window_origin(pid)  # GTK 4 reports extents relative to the window
    points = {}
    for label in set(SINGLE + SEQUENCE):
        b = pyatspi.findDescendant(window, lambda a: is_button(a, label))
        e = b.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        points[label] = (ox + e.x + e.width // 2, oy + e.y + e.height // 2)

    def run(steps):
        args = ["xdotool"]
        for step in steps:
            x, y = points[step]
            args += ["mousemove", str(x), str(y), "click", "1"]
        subprocess.run(args, check=True)
    return run


async def ours(reps, pid, binary):
    from mcp import Client, StdioServerParameters
    keep = ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HOME", "PATH", "MCP_CU_SESSIONS_DIR"]
    env = {k: os.environ[k] for k in keep if k in os.environ}
    async with Client(StdioServerParameters(command=binary, args=[], env=env)) as client:
        windows = json.loads((await client.call_tool("gui_list", {})).content[0].text)["windows"]
        app = next(w["id"] for w in windows if w.get("pid") == pid)
        await client.call_tool("click", {"app": app, "target": "0"})  # warm the connection

        samples = {}
        display = display_of(atspi_calc(pid))
        for label, steps in (("single", SINGLE), ("sequence4", SEQUENCE)):
            times = []
            for _ in range(reps):
                reset(display)
                t = time.perf_counter()
                res = await client.call_tool("click", {"app": app, "steps": steps})
                if getattr(res, "is_error", False) or getattr(res, "isError", False):
                    raise SystemExit(res.content[0].text)
                wait_for(display, EXPECT[steps[-1]])
                times.append((time.perf_counter() - t) * 1000)
            samples[label] = stats(times)
        return {"driver": "mcp-computer-use click", **samples}


def main():
    reps, pid, binary, venv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if "--ours" in sys.argv:
        print(json.dumps(asyncio.run(ours(reps, pid, binary))))
        return
    window = atspi_calc(pid)
    display = display_of(window)
    print(json.dumps(time_driver("pyatspi fresh walk per step", reps, display, pyatspi_driver(pid))))
    print(json.dumps(time_driver("xdotool coordinates (no lookup)", reps, display, xdotool_driver(window, pid))))
    # The MCP SDK lives in the venv; pyatspi in the system python: run our side there.
    env = dict(os.environ, PYTHONPATH="/usr/lib/python3/dist-packages")
    subprocess.run([venv, __file__, *sys.argv[1:5], "--ours"], check=True, env=env)


if __name__ == "__main__":
    main()
