"""Typing speed through MCP (see type-bench.sh).

Usage: type_bench.py BIN REPS APP PID   (prints one JSON line)
"""
import asyncio
import json
import os
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TABLE = [("Item", "Qty", "Price"), ("Chair", "3", "49.9"), ("Lamp", "2", "15"), ("Desk", "1", "120")]
PROSE = "The quick brown fox jumps over the lazy dog.\nA second line, with a comma.\n"


async def call(session, tool, args):
    result = await session.call_tool(tool, args)
    if result.is_error:
        raise SystemExit(f"{tool} failed: {result.content[0].text}")
    return json.loads(result.content[0].text)


async def window_of(session, pid):
    deadline = time.time() + 90
    while time.time() < deadline:
        listed = await call(session, "gui_list", {})
        found = [x["id"] for x in listed["windows"] if x.get("pid") == pid]
        if found:
            return found[0]
        await asyncio.sleep(0.5)
    raise SystemExit(f"no window of pid {pid}")


async def ready(session, window, needle):
    deadline = time.time() + 60
    while time.time() < deadline:
        state = await call(session, "gui_state", {"window_id": window})
        if needle in state["outline"]:
            return
        await asyncio.sleep(0.5)
    raise SystemExit(f"{needle!r} never showed")


async def main():
    binary, reps, app, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    params = StdioServerParameters(command=binary, args=[], env=dict(os.environ))
    per_char = []
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            window = await window_of(s, pid)
            if app == "lo-calc":
                await ready(s, window, 'cell "A1"')
            for rep in range(reps):
                if app == "lo-calc":
                    first_row = 2 + rep * 6
                    await call(s, "click", {"app": window, "target": f"A{first_row}"})
                    text = "".join("\t".join(row) + "\n" for row in TABLE)
                else:
                    text = PROSE
                state = await call(s, "gui_state", {"window_id": window, "max_elements": 1})
                started = time.perf_counter()
                await call(s, "gui_action", {"window_id": window, "state_id": state["state_id"],
                                             "actions": [{"type": "type", "text": text}]})
                per_char.append((time.perf_counter() - started) * 1000 / len(text))
                if app == "lo-calc":
                    last = f'cell "C{first_row + 3}" ="120"'
                    deadline = time.time() + 10
                    while True:
                        outline = (await call(s, "gui_state", {"window_id": window}))["outline"]
                        if last in outline or time.time() > deadline:
                            break
                        await asyncio.sleep(0.3)
                    for r_, row in enumerate(TABLE):
                        for c_, value in enumerate(row):
                            cell = f'cell "{"ABC"[c_]}{first_row + r_}" ="{value}"'
                            if cell not in outline:
                                raise SystemExit(f"{app}: {cell} not typed")
    print(json.dumps({
        "app": app, "reps": reps, "characters": len(text),
        "ms_per_char_median": round(statistics.median(per_char), 1),
        "ms_per_char": [round(x, 1) for x in per_char], "target_ms_per_char": 15,
    }))


asyncio.run(main())
