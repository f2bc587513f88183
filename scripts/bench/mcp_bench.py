"""gui_state as an agent sees it: one tool call through the official MCP SDK (stdio) against the
binary, timed from the client, beside a pyatspi walk of the same window in the same run.
Usage: python mcp_bench.py BIN REPS APP=PID|WINDOW_ID|TITLE...
Prints one table row per app: elements, median ms (ours / pyatspi) and pyatspi/ours, where ours
is the call as an agent makes it (answered from the last walk while the window's application
sent no event, backends/linux/src/trees.rs) and ours_walk the same call made to walk every time
(each asks a different max_depth, so no kept walk matches), and py/ping: pyatspi against our
`ping` tool, which does nothing (the most any tool could reach through this client); after_ms:
the next gui_state after an action (a Tab sent through gui_action), with how it was read; then the fixed cost of a call (gui_list and a gui_state of one element, also once the sessions directory
is full after 520 observations)."""
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from mcp import Client, StdioServerParameters

BIN, REPS = sys.argv[1], int(sys.argv[2])
APPS = [(a.split("=", 1)[0], *a.split("=", 1)[1].split("|", 2)) for a in sys.argv[3:]]
WALK = os.path.join(os.path.dirname(__file__), "pyatspi_walk.py")


def body(res):
    return json.loads(next(b.text for b in res.content if getattr(b, "type", "") == "text"))


async def timed(client, tool, args):
    started = time.perf_counter()
    res = await client.call_tool(tool, args)
    ms = (time.perf_counter() - started) * 1000
    assert not res.is_error, res
    return ms, body(res)


async def median_of(client, tool, args):
    await timed(client, tool, args)  # warm: the window found, connections made
    runs = [await timed(client, tool, args) for _ in range(REPS)]
    return statistics.median(ms for ms, _ in runs), runs[-1][1]


async def median_after_action(client, args):
    """gui_state right after an action on the window (a Tab: focus moves, as after most steps),
    each time: the tree then is walked, kept or read again from the app's events."""
    runs, hows = [], []
    for _ in range(REPS + 1):
        _, state = await timed(client, "gui_state", args)
        res = await client.call_tool("gui_action", {"window_id": args["window_id"], "state_id": state["state_id"],
                                                    "actions": [{"type": "key", "keys": "Tab"}]})
        assert not res.is_error, res
        ms, after = await timed(client, "gui_state", args)
        runs.append(ms)
        hows.append(after.get("read", {}).get("how", "?"))
    return statistics.median(runs[1:]), max(set(hows[1:]), key=hows[1:].count)


async def median_walked(client, args):
    """gui_state walking every time: no two calls in a row ask the same max_depth."""
    await timed(client, "gui_state", {**args, "max_depth": 100})
    runs = [await timed(client, "gui_state", {**args, "max_depth": 101 + i % 2}) for i in range(REPS)]
    return statistics.median(ms for ms, _ in runs)


def pyatspi(pid, title):
    out = subprocess.run(["/usr/bin/python3", WALK, str(REPS), pid, title], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


async def main():
    env = {k: v for k, v in os.environ.items()}
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=60) as client:
        print("%-22s %9s %9s %9s %9s %10s %13s %9s %9s %10s %8s" % (
            "window", "elements", "ours_ms", "py_ms", "py/ours", "walk_ms", "py/ours_walk", "py/ping",
            "after_ms", "py/after", "read"))
        for name, pid, wid, title in APPS:
            # Alternate the sides twice, keeping each side's better median (neither pays for the
            # other's warm-up or the app settling).
            ours, walked, py, pinged, after = [], [], [], [], []
            args = {"window_id": wid, "all": True, "max_elements": 5000}
            for _ in range(2):
                ms, state = await median_of(client, "gui_state", args)
                ours.append(ms)
                pinged.append((await median_of(client, "ping", {}))[0])
                walked.append(await median_walked(client, args))
                py.append(pyatspi(pid, title)["median_ms"])
                after_ms, how = await median_after_action(client, args)
                after.append(after_ms)
            elements = state["elements"]
            # py/ping: the most any tool could reach against this walk through this client (the
            # ping tool does nothing; its time is the SDK's and the pipe's).
            print("%-22s %9d %9.1f %9.1f %8.2fx %10.1f %12.2fx %8.2fx %9.1f %9.2fx %8s" % (
                name, elements, min(ours), min(py), min(py) / min(ours), min(walked), min(py) / min(walked),
                min(py) / min(pinged), min(after), min(py) / min(after), how))
        wid = APPS[0][2]
        list_ms, _ = await median_of(client, "gui_list", {})
        one_ms, _ = await median_of(client, "gui_state", {"window_id": wid, "max_elements": 1})
        transport = []
        for _ in range(REPS + 1):
            started = time.perf_counter()
            await client.list_tools()
            transport.append((time.perf_counter() - started) * 1000)
        pings = []
        for _ in range(REPS + 1):
            started = time.perf_counter()
            await client.call_tool("ping", {})
            pings.append((time.perf_counter() - started) * 1000)
        print("\nfixed cost: gui_list %.1f ms, gui_state of one element (%s) %.1f ms; "
              "the round trip of the ping tool %.2f ms, tools/list %.1f ms"
              % (list_ms, APPS[0][0], one_ms, statistics.median(pings[1:]), statistics.median(transport[1:])))
        # A long session: the sessions directory holds as many states and views as it keeps.
        for _ in range(520):
            await client.call_tool("gui_state", {"window_id": wid, "max_elements": 1})
        full_ms, _ = await median_of(client, "gui_state", {"window_id": wid, "max_elements": 1})
        print("after 520 observations (a full sessions directory): gui_state of one element %.1f ms" % full_ms)


asyncio.run(main())
