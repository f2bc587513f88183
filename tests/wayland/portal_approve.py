#!/usr/bin/python3
"""Answers the desktop's screen-sharing dialog the way a person would, over AT-SPI (the dialog is
xdg-desktop-portal-gnome's GTK 4 window on the same session): selects the windows whose titles
are given (all listed windows without arguments, or the monitor), ticks "Allow remote
interaction" and presses Share. Runs until it has answered one dialog or the timeout passes.

Usage: portal_approve.py [--timeout S] [--count N] [--deny] [TITLE...]
(answers up to N dialogs, default 1; exits 0 when it answered at least one)
"""
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
import pyatspi  # noqa: E402


def nodes_of(root):
    out, stack = [], [root]
    while stack:
        a = stack.pop()
        if a is not None:
            out.append(a)
            stack.extend(a.getChildAtIndex(i) for i in range(a.childCount))
    return out


def list_under(nodes, text):
    """The list beside the label that says `text` ("Select window…", "Select monitor…")."""
    for a in nodes:
        if a.getRoleName() == "label" and text in (a.name or ""):
            parent = a.parent
            for i in range(parent.childCount if parent is not None else 0):
                child = parent.getChildAtIndex(i)
                if child is not None and child.getRoleName() == "list":
                    return child
    return None


def answer(titles, deny):
    for app in pyatspi.Registry.getDesktop(0):
        if app is None or app.name != "xdg-desktop-portal-gnome" or app.childCount == 0:
            continue
        nodes = nodes_of(app)
        button = "Cancel" if deny else "Share"
        press = [a for a in nodes if a.getRoleName() == "push button"
                 and (a.name or "").replace("_", "").split(" ")[0] == button]
        if not press:
            continue
        if not deny:
            # Prefer sharing windows: their page lists them only once it is shown.
            for tab in [a for a in nodes if a.getRoleName() == "page tab" and a.name == "Single Window"]:
                tabs = tab.parent
                kids = [tabs.getChildAtIndex(i) for i in range(tabs.childCount)]
                tabs.querySelection().selectChild(kids.index(tab))
                time.sleep(0.5)
                nodes = nodes_of(app)
            windows = list_under(nodes, "Select window")
            monitors = list_under(nodes, "Select monitor")
            if windows is not None and windows.childCount > 0:
                rows = [windows.getChildAtIndex(i) for i in range(windows.childCount)]
                selection = windows.querySelection()
                for i, row in enumerate(rows):
                    if not titles or any(t in (row.name or "") for t in titles):
                        selection.selectChild(i)
            elif monitors is not None and monitors.childCount > 0:
                for tab in [a for a in nodes if a.getRoleName() == "page tab" and a.name == "Entire Screen"]:
                    tabs = tab.parent
                    kids = [tabs.getChildAtIndex(i) for i in range(tabs.childCount)]
                    tabs.querySelection().selectChild(kids.index(tab))
                    time.sleep(0.3)
                if not any(monitors.getChildAtIndex(i).getState().contains(pyatspi.STATE_SELECTED)
                           for i in range(monitors.childCount)):
                    monitors.querySelection().selectChild(0)
            for a in nodes:
                if a.getRoleName() == "check box" and "remote interaction" in (a.name or "") \
                        and not a.getState().contains(pyatspi.STATE_CHECKED):
                    a.queryAction().doAction(0)
            time.sleep(0.2)  # Share becomes sensitive once a source is selected
        press[0].queryAction().doAction(0)
        return True
    return False


def main():
    args = sys.argv[1:]
    timeout, deny = 60.0, False
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    if "--deny" in args:
        args.remove("--deny")
        deny = True
    count = 1
    if "--count" in args:
        i = args.index("--count")
        count = int(args[i + 1])
        del args[i:i + 2]
    deadline = time.time() + timeout
    answered = 0
    while time.time() < deadline and answered < count:
        try:
            if answer(args, deny):
                answered += 1
                print("answered", flush=True)
                time.sleep(1.0)  # let the dialog go away before looking for the next
                continue
        except Exception as e:  # the dialog may be half-built
            print("retry:", repr(e), file=sys.stderr, flush=True)
        time.sleep(0.2)
    if not answered:
        print("no dialog", flush=True)
    return 0 if answered else 1


if __name__ == "__main__":
    sys.exit(main())
