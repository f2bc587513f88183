"""Key steps in a big app through MCP, per step (see steps-bench.sh).

Usage: steps_bench.py BIN REPS APP PID REACTION_MS STEP_REACTION_MS   (prints one JSON line)
REACTION_MS: the app's reaction to a digit; STEP_REACTION_MS: its mean reaction per key of the
same four keys, as an independent observer timed them.
"""
import asyncio
import json
import os
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

KEYS = {"lo-calc": ["1", "Tab", "2", "Return"], "lo-writer": ["a", "b", "c", "Return"]}


async def call(session, tool, args):
    start = time.perf_counter()
    result = await session.call_tool(tool, args)
    ms = (time.perf_counter() - start) * 1000
    if result.is_error:
        raise SystemExit(f"{tool} failed: {result.content[0].text}")
    return ms, json.loads(result.content[0].text)


async def main():
    binary, reps, app, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    reaction, step_reaction = float(sys.argv[5]), float(sys.argv[6])
    params = StdioServerParameters(command=binary, args=[], env=dict(os.environ))
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            window = None
            deadline = time.time() + 60
            while window is None and time.time() < deadline:
                _, listed = await call(s, "gui_list", {})
                window = next((x["id"] for x in listed["windows"] if x.get("pid") == pid), None)
            observe, single, sequence, effects = [], [], [], []
            for _ in range(reps):
                ms, state = await call(s, "gui_state", {"window_id": window, "max_elements": 1})
                observe.append(ms)
                ms, _ = await call(s, "gui_action", {"window_id": window, "state_id": state["state_id"],
                                                     "actions": [{"type": "key", "keys": "5"}]})
                single.append(ms)
                _, state = await call(s, "gui_state", {"window_id": window, "max_elements": 1})
                actions = [{"type": "key", "keys": k} for k in KEYS[app]]
                ms, done = await call(s, "gui_action", {"window_id": window, "state_id": state["state_id"],
                                                        "actions": actions})
                sequence.append(ms)
                effects = [r["effect"] for r in done["results"]]
            per_step = statistics.median(sequence) / len(KEYS[app])
            print(json.dumps({
                "app": app,
                "observe_ms": round(statistics.median(observe), 1),
                "one_key_action_ms": round(statistics.median(single), 1),
                "four_keys_ms": round(statistics.median(sequence), 1),
                "per_step_ms": round(per_step, 1),
                "app_reaction_ms": reaction,
                "per_step_over_reaction": round(per_step / reaction, 2) if reaction else None,
                "app_reaction_per_step_ms": step_reaction,
                "per_step_over_step_reaction": round(per_step / step_reaction, 2) if step_reaction else None,
                "one_key_all_ms": [round(x) for x in single],
                "four_keys_all_ms": [round(x) for x in sequence],
                "effects": effects,
            }))


asyncio.run(main())
