#!/usr/bin/python3
"""An app's own reaction to keys, as an independent observer sees it: `xdotool key` to the app's
first event that shows a change, through pyatspi in this process.

Usage: reaction.py PID REPS               median ms from a digit to its `object:text-changed`
       reaction.py PID REPS KEY [KEY...]  median ms per key of the sequence, each key to the
                                          app's first event of text, state (not pressed/armed),
                                          active descendant, selection, children or name, as
                                          the effect watch counts them
(the window must have keyboard focus)
"""
import statistics
import subprocess
import sys
import threading
import time

import pyatspi

pid, reps, keys = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
seen = threading.Event()

# What an observation shows (as backends/linux/src/changes.rs judges it).
SHOWN = [
    "object:text-changed",
    "object:state-changed",
    "object:active-descendant-changed",
    "object:selection-changed",
    "object:children-changed",
    "object:property-change:accessible-name",
    "object:property-change:accessible-value",
    "object:value-changed",
    "focus:",
]


def on_event(event):
    try:
        if event.type.startswith("object:state-changed") and event.type.split(":")[-1] in (
            "pressed", "armed", "defunct"):
            return
        if event.host_application.get_process_id() == pid:
            seen.set()
    except Exception:
        pass


def react(key):
    """ms from `xdotool key KEY` to the app's first event."""
    seen.clear()
    start = time.perf_counter()
    subprocess.run(["xdotool", "key", key], check=True)
    if not seen.wait(5):
        raise SystemExit(f"the app sent no event within 5 s of {key}")
    return (time.perf_counter() - start) * 1000


def main():
    samples = []
    # Let the registry loop start before the first key.
    time.sleep(1.0)
    for i in range(reps + 1):
        if keys:
            per_key = []
            for key in keys:
                per_key.append(react(key))
                time.sleep(0.3)
            ms = statistics.mean(per_key)
        else:
            ms = react(str(i % 10))
            subprocess.run(["xdotool", "key", "BackSpace"], check=True)
            time.sleep(0.3)
        if i:  # the first round warms the app up
            samples.append(ms)
    print(round(statistics.median(samples), 1))
    pyatspi.Registry.stop()


for kind in SHOWN if keys else ["object:text-changed"]:
    pyatspi.Registry.registerEventListener(on_event, kind)
threading.Thread(target=main, daemon=True).start()
pyatspi.Registry.start()
