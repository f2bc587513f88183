#!/usr/bin/python3
"""An app's own reaction to a key, as an independent observer sees it: `xdotool key` (a digit) to
the first `object:text-changed` event of the app's process, through pyatspi in this process.

Usage: reaction.py PID REPS   (prints the median in ms; the window must have keyboard focus)
"""
import statistics
import subprocess
import sys
import threading
import time

import pyatspi

pid, reps = int(sys.argv[1]), int(sys.argv[2])
seen = threading.Event()


def on_event(event):
    try:
        if event.host_application.get_process_id() == pid:
            seen.set()
    except Exception:
        pass


def main():
    samples = []
    # Let the registry loop start before the first key.
    time.sleep(1.0)
    for i in range(reps + 1):
        seen.clear()
        start = time.perf_counter()
        subprocess.run(["xdotool", "key", str(i % 10)], check=True)
        if not seen.wait(5):
            raise SystemExit("the app sent no text-changed event within 5 s")
        if i:  # the first key warms the app up
            samples.append((time.perf_counter() - start) * 1000)
        subprocess.run(["xdotool", "key", "BackSpace"], check=True)
        time.sleep(0.3)
    print(round(statistics.median(samples), 1))
    pyatspi.Registry.stop()


pyatspi.Registry.registerEventListener(on_event, "object:text-changed")
threading.Thread(target=main, daemon=True).start()
pyatspi.Registry.start()
