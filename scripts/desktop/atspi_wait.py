#!/usr/bin/python3
"""Wait until applications are registered on the AT-SPI desktop: atspi_wait.py NAME|PID... [--timeout S]

Run with Debian's python3 (python3-pyatspi). Exits 1 naming the apps still missing at the deadline.
"""
import argparse
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import GLib  # noqa: E402
import pyatspi  # noqa: E402


def registered():
    desktop = pyatspi.Registry.getDesktop(0)
    desktop.clear_cache()
    have = set()
    for app in desktop:
        if app is None:
            continue
        try:
            have.add(app.name)
            have.add(str(app.get_process_id()))
        except GLib.Error:
            pass
    return have


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("apps", nargs="+")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    t0 = time.time()
    want = set(args.apps)
    while True:
        missing = want - registered()
        if not missing:
            print("registered after %.2fs: %s" % (time.time() - t0, " ".join(sorted(want))))
            return 0
        if time.time() - t0 > args.timeout:
            print("not registered after %.0fs: %s" % (args.timeout, " ".join(sorted(missing))), file=sys.stderr)
            return 1
        time.sleep(0.1)


if __name__ == "__main__":
    sys.exit(main())
