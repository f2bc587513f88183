"""Prints Playwright MCP's browser_snapshot of a page (the peer of our gui_state outline).

Usage: playwright_snapshot.py PLAYWRIGHT_MCP_BIN URL   (run with the test venv's python)
"""
import asyncio
import sys

from mcp import Client, StdioServerParameters


async def main(bin_path, url):
    params = StdioServerParameters(command=bin_path, args=[
        "--headless", "--isolated", "--no-sandbox", "--executable-path", "/usr/bin/chromium"])
    async with Client(params, read_timeout_seconds=120) as client:
        await client.call_tool("browser_navigate", {"url": url})
        res = await client.call_tool("browser_snapshot", {})
        text = "\n".join(b.text for b in res.content if getattr(b, "type", "") == "text")
        sys.stdout.write(text)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
