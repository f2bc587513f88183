"""Each supported protocol revision through the official SDK, over stdio and Streamable HTTP: the
stateless 2026-07-28 (server/discover, what the SDK picks by itself and what every other test
here runs on), and the initialize handshake of 2025-11-25 and 2025-06-18. On each, the same core
of the tools: the listing, the agent guide as a resource, a real Qt window listed, observed and
typed into by element id (the value read back), a wait reporting progress, and a tool error."""
import json

import mcp.client.session
import pytest

from conftest import BIN, ROOT, TOKEN, call, http_server, observe, window_of
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

pytestmark = pytest.mark.anyio
REVISIONS = ("2026-07-28", "2025-11-25", "2025-06-18")
GOLDEN = {t["name"] for t in json.loads((ROOT / "tests" / "golden" / "tools_list.json").read_text())}


@pytest.fixture
def anyio_backend():
    return "asyncio"


def client_for(revision, transport, server_env, url):
    """A client that speaks `revision`: the stateless one adopted directly, a handshake one
    through initialize (the SDK asks for its newest handshake revision, so an older one is
    asked for by setting that)."""
    mode = revision if revision >= "2026" else "legacy"
    if transport == "stdio":
        source = StdioServerParameters(command=BIN, args=[], env=server_env)
    else:
        source = streamable_http_client(url, http_client=create_mcp_http_client(
            headers={"Authorization": f"Bearer {TOKEN}"}))
    return Client(source, read_timeout_seconds=60, mode=mode)


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("revision", REVISIONS)
async def test_the_core_tools_on_each_revision(revision, transport, server_env, apps, monkeypatch):
    if revision < "2026":
        monkeypatch.setattr(mcp.client.session, "LATEST_HANDSHAKE_VERSION", revision)
    with http_server(server_env) as url:
        async with client_for(revision, transport, server_env, url) as client:
            assert client.protocol_version == revision
            assert {t.name for t in (await client.list_tools()).tools} == GOLDEN
            resources = await client.list_resources()
            assert [str(r.uri) for r in resources.resources] == ["skill://desktop-windows/SKILL.md"]

            pid = apps.launch("qt6")
            window = await window_of(client, pid)
            state = await observe(client, window["id"])
            entry = next(line.split()[0] for line in state["outline"].splitlines()
                         if 'text_input "Name entry"' in line)
            err, done = await call(client, "gui_action", {
                "window_id": window["id"], "state_id": state["state_id"],
                "actions": [{"type": "type", "element_id": entry, "text": revision}]})
            assert not err and done["results"][0]["effect"] == "changed", done
            after = await observe(client, window["id"])
            assert f'text_input "Name entry" ="{revision}"' in after["outline"], after["outline"]

            seen = []

            async def progress(value, total, message):
                seen.append(value)
            raw = await client.call_tool("gui_wait", {
                "window_id": window["id"], "timeout_ms": 2500,
                "condition": {"until": "appears", "name": "no such text"}}, progress_callback=progress)
            assert json.loads(raw.content[0].text)["outcome"] == "unsatisfied"
            assert len(seen) >= 2 and seen == sorted(seen), seen

            err, res = await call(client, "gui_state", {"window_id": "x11:0x7ffffff0"})
            assert err and res["error"]["code"] == "WINDOW_NOT_FOUND", res
