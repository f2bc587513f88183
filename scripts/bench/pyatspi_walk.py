#!/usr/bin/python3
"""pyatspi at its best, the peer of our snapshot: pyatspi_walk.py REPS PID TITLE

Walks the top-level window of application PID whose name is TITLE (or its only window), reading
name, role, states and extents per node, in one warm process; prints {"nodes", "median_ms"}.
"""
import json
import statistics
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402
import pyatspi  # noqa: E402


def walk(root):
    out = 0
    stack = [root]
    seen = set()
    while stack:
        acc = stack.pop()
        if acc is None:
            continue
        key = acc.path
        if key in seen:
            continue
        seen.add(key)
        try:
            _ = acc.name
            _ = acc.getRoleName()
            _ = acc.getState().getStates()
            try:
                c = acc.queryComponent()
                c.getExtents(pyatspi.DESKTOP_COORDS)
            except NotImplementedError:
                pass
            n = acc.childCount
        except GLib.Error:
            continue
        out += 1
        for i in range(n):
            try:
                stack.append(acc.getChildAtIndex(i))
            except GLib.Error:
                pass
    return out


def main():
    reps, pid, title = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    desktop = pyatspi.Registry.getDesktop(0)
    app = next(a for a in desktop if a is not None and a.get_process_id() == pid)
    # At its best: libatspi keeps its client cache off in a process without a main loop unless a
    # cache mask is set on the app; with it, names, roles, states and children come from memory.
    app.set_cache_mask(Atspi.Cache.ALL)
    frames = [f for f in app if f is not None]
    frame = next((f for f in frames if f.name == title), None)
    if frame is None:
        frame = next(f for f in frames if "showing" in [pyatspi.stateToString(s) for s in f.getState().getStates()])
    walk(frame)  # warm-up: fills libatspi's cache
    times, nodes = [], 0
    for _ in range(reps):
        t = time.perf_counter()
        nodes = walk(frame)
        times.append((time.perf_counter() - t) * 1000)
    print(json.dumps({"nodes": nodes, "median_ms": round(statistics.median(times), 1)}))


if __name__ == "__main__":
    main()
