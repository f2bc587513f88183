"""One scripted task done two ways, through the official SDK against the binary, counting tool
calls and result tokens (o200k_base) as an agent pays them: "press Compute, whose result shows
after 2 s, and read the result" on tests/fixtures/delayed.html in Chromium —
  polling: click, then gui_state until the outline shows the result (every 0.5 s);
  gui_wait: click, then gui_wait(value_contains);
  expect:   click with expect (one call).
Then what since_state_id and query save against a whole gui_state of the same window.
Usage: python agent_tools_bench.py BIN WINDOW_ID     (the page freshly loaded)"""
import asyncio
import json
import os
import sys
import time

import bpe_openai
from mcp import Client, StdioServerParameters

ENC = bpe_openai.get_encoding("o200k_base")
BIN, WINDOW = sys.argv[1], sys.argv[2]


def tokens(res):
    return sum(len(ENC.encode(b.text, disallowed_special=())) for b in res.content if getattr(b, "type", "") == "text")


def body(res):
    return json.loads(next(b.text for b in res.content if getattr(b, "type", "") == "text"))


async def reset(client):
    """Reloads the page (F5) and waits until Compute is there again."""
    state = body(await client.call_tool("gui_state", {"window_id": WINDOW, "max_elements": 1}))
    await client.call_tool("gui_action", {"window_id": WINDOW, "state_id": state["state_id"],
                                          "actions": [{"type": "key", "keys": "F5"}],
                                          "expect": {"until": "value_contains", "name": "Result", "text": "none"}})


async def task(client, how):
    calls = toks = 0
    started = time.time()

    async def run(tool, args):
        nonlocal calls, toks
        res = await client.call_tool(tool, args)
        calls += 1
        toks += tokens(res)
        return body(res)

    click = {"app": WINDOW, "target": "Compute"}
    if how == "polling":
        await run("click", click)
        while "Result: 42" not in (await run("gui_state", {"window_id": WINDOW}))["outline"]:
            await asyncio.sleep(0.5)
    elif how == "gui_wait":
        await run("click", click)
        answer = await run("gui_wait", {"window_id": WINDOW, "condition": {"until": "value_contains", "name": "Result", "text": "42"}})
        assert answer["outcome"] == "satisfied", answer
    else:
        answer = await run("click", {**click, "expect": {"until": "value_contains", "name": "Result", "text": "42"}})
        assert answer["expect"]["outcome"] == "satisfied", answer
    return calls, toks, time.time() - started


async def main():
    env = dict(os.environ)
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=60) as client:
        print("Task: press Compute (result after 2 s), read the result")
        print(f"{'way':10} {'calls':>5} {'tokens':>7} {'seconds':>8}")
        rows = {}
        for how in ("polling", "gui_wait", "expect"):
            await reset(client)
            rows[how] = await task(client, how)
            calls, toks, secs = rows[how]
            print(f"{how:10} {calls:5d} {toks:7d} {secs:8.2f}")
        p = rows["polling"]
        for how in ("gui_wait", "expect"):
            c, t, _ = rows[how]
            print(f"  {how}: {p[0] / c:.1f}x fewer calls, {p[1] / t:.1f}x fewer tokens than polling")
        print()
        await reset(client)
        whole = await client.call_tool("gui_state", {"window_id": WINDOW})
        state = body(whole)
        await client.call_tool("click", {"app": WINDOW, "target": "Compute"})
        await client.call_tool("gui_wait", {"window_id": WINDOW, "condition": {"until": "value_contains", "name": "Result", "text": "42"}})
        again = await client.call_tool("gui_state", {"window_id": WINDOW})
        since = await client.call_tool("gui_state", {"window_id": WINDOW, "since_state_id": state["state_id"]})
        query = await client.call_tool("gui_state", {"window_id": WINDOW, "query": "Result"})
        print("Observing the window again after the change")
        print(f"{'gui_state':28} {'tokens':>7}")
        for name, res in (("whole outline", again), ("since_state_id", since), ('query="Result"', query)):
            print(f"{name:28} {tokens(res):7d}")
        print(f"  since_state_id: {tokens(again) / tokens(since):.1f}x fewer tokens; query: {tokens(again) / tokens(query):.1f}x")


asyncio.run(main())
