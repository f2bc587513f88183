"""Big trees as an agent sees them: the default gui_state (no arguments beyond the window) through
the official MCP SDK against the binary, on windows whose trees are far larger than an outline.
Usage: python bigtree_bench.py BIN REPS APP=PID...   (the apps are started by bigtree-bench.sh)
For the file chooser fixture it first clicks "Save As…" and observes the dialog that opens.
Prints per window: first call ms, median ms of REPS more, elements, o200k tokens, characters, and
the answer's notice (what was left out); then whether each stays under 1 s and 8,000 tokens."""
import asyncio
import json
import os
import statistics
import sys
import time

import bpe_openai
from mcp import Client, StdioServerParameters

ENC = bpe_openai.get_encoding("o200k_base")
BIN, REPS = sys.argv[1], int(sys.argv[2])
APPS = [(a.split("=", 1)[0], int(a.split("=", 1)[1])) for a in sys.argv[3:]]
LIMIT_MS, LIMIT_TOKENS = 1000, 8000


def text_of(res):
    return next(b.text for b in res.content if getattr(b, "type", "") == "text")


async def call(client, tool, args):
    res = await client.call_tool(tool, args)
    assert not res.is_error, text_of(res)
    return json.loads(text_of(res))


async def window_of(client, pid, title=None, deadline_s=60):
    """The window of process PID (with TITLE in its title), polled until it is listed."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        listed = await call(client, "gui_list", {})
        for w in listed["windows"]:
            if w.get("pid") == pid and (title is None or title in w.get("title", "")):
                return w["id"], w.get("title", "")
        await asyncio.sleep(0.2)
    raise SystemExit("no window of pid %d%s within %d s" % (pid, " titled " + title if title else "", deadline_s))


async def timed_state(client, wid):
    started = time.perf_counter()
    res = await client.call_tool("gui_state", {"window_id": wid})
    ms = (time.perf_counter() - started) * 1000
    text = text_of(res)
    assert not res.is_error, text
    return ms, text


async def main():
    rows = []
    async with Client(StdioServerParameters(command=BIN, args=[], env=dict(os.environ)), read_timeout_seconds=120) as client:
        for name, pid in APPS:
            if name.startswith("chooser-"):
                fixture, _ = await window_of(client, pid, "Chooser fixture")
                await call(client, "click", {"app": fixture, "target": "Save As…"})
                wid, title = await window_of(client, pid, "Save File")
            elif name == "chromium-table":
                wid, title = await window_of(client, pid, "Big table")
            else:
                wid, title = await window_of(client, pid)
            first_ms, _ = await timed_state(client, wid)
            runs = [await timed_state(client, wid) for _ in range(REPS)]
            text = runs[-1][1]
            state = json.loads(text)
            notice = " ".join(l.strip() for l in state.get("outline", "").splitlines() if l.lstrip().startswith("…")) or "-"
            rows.append((name, title, first_ms, statistics.median(ms for ms, _ in runs),
                         state.get("elements", 0), len(ENC.encode(text, disallowed_special=())), len(text), notice))
    print("%-16s %9s %9s %9s %7s %7s  %s" % ("window", "first_ms", "median_ms", "elements", "tokens", "chars", "notice"))
    for name, _title, first, med, elements, tokens, chars, notice in rows:
        print("%-16s %9.0f %9.0f %9d %7d %7d  %s" % (name, first, med, elements, tokens, chars, notice))
    print()
    for name, _title, first, med, _e, tokens, _c, _n in rows:
        ok = med < LIMIT_MS and tokens < LIMIT_TOKENS
        print("%-16s %s (median %.0f ms < %d ms, %d tokens < %d)" % (name, "meets" if ok else "MISSES", med, LIMIT_MS, tokens, LIMIT_TOKENS))


asyncio.run(main())
