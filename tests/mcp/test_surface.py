"""The tool surface changes only on purpose: tools/list against tests/golden/tools_list.json, and
the initialize instructions against docs/AGENTS_SNIPPET.md; what a client pays to load the tools
stays within its bound. UPDATE_GOLDEN=1 rewrites the golden
(so does `UPDATE_GOLDEN=1 cargo test -p cu-mcp golden`, which checks the same file without a
client). Every other test's successful calls are checked against their outputSchema by the SDK
client itself, and against their full shapes (tests/golden/answers.json) by conftest's call()."""
import json
import os

import bpe_openai
import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, ROOT, STATELESS_META, RawStdio

pytestmark = pytest.mark.anyio
GOLDEN = ROOT / "tests" / "golden" / "tools_list.json"


@pytest.fixture
def anyio_backend():
    return "asyncio"


def plain(tool):
    data = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
    keys = ("name", "description", "inputSchema", "outputSchema", "annotations")
    return {k: data[k] for k in keys if k in data}


async def test_tools_list_matches_the_golden_file():
    # No desktop needed: listing tools never touches the GUI.
    async with Client(StdioServerParameters(command=BIN, args=[], env={"PATH": os.environ["PATH"]})) as client:
        tools = sorted((plain(t) for t in (await client.list_tools()).tools), key=lambda t: t["name"])
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(tools, indent=2, ensure_ascii=False) + "\n")
    assert tools == json.loads(GOLDEN.read_text()), "the tool surface changed: review, then UPDATE_GOLDEN=1"
    for tool in tools:
        assert tool["outputSchema"]["type"] == "object", tool["name"]
        shapes = tool["outputSchema"]["anyOf"]
        assert any(s.get("required") == ["error"] for s in shapes), f"{tool['name']}: errors not declared"
    annotations = {t["name"]: t["annotations"] for t in tools}
    assert annotations["gui_list"]["readOnlyHint"] and annotations["gui_state"]["readOnlyHint"]
    assert annotations["gui_action"]["destructiveHint"] and not annotations["gui_action"]["readOnlyHint"]


# What tools/list may cost a client that forwards all of it (names, descriptions, input and
# output schemas, annotations), in o200k tokens (issue 44: it was 25.3k).
CATALOG_TOKENS = 8000


async def test_the_tool_list_costs_a_client_at_most_8k_tokens():
    # The listing as the server writes it (raw JSON-RPC, not the SDK's models of it).
    client = RawStdio({"PATH": os.environ["PATH"]})
    try:
        listed, _ = client.request("tools/list", {"_meta": STATELESS_META})
        found, _ = client.request("server/discover", {"_meta": STATELESS_META})
    finally:
        client.close()
    tools = listed["result"]["tools"]
    compact = {"separators": (",", ":"), "ensure_ascii": False}
    sent = json.dumps(tools, **compact)
    encoding = bpe_openai.get_encoding("o200k_base")
    tokens = len(encoding.encode(sent))
    shown = sum(len(encoding.encode(json.dumps([t["name"], t["description"], t["inputSchema"]], **compact)))
                for t in tools)
    instructions = len(encoding.encode(found["result"]["instructions"]))
    print(f"tools/list: {tokens} tokens as sent ({len(sent)} bytes), {shown} of names, descriptions "
          f"and input schemas; instructions {instructions}")
    assert tokens <= CATALOG_TOKENS, f"tools/list costs {tokens} tokens (bound {CATALOG_TOKENS})"


async def test_instructions_are_the_agents_snippet():
    async with Client(StdioServerParameters(command=BIN, args=[], env={"PATH": os.environ["PATH"]})) as client:
        instructions = client.instructions
        assert client.server_info.name == "mcp-computer-use"
    assert instructions == (ROOT / "docs" / "AGENTS_SNIPPET.md").read_text()
    # The plugin's skill carries the same guide under its front matter (packaging/plugin).
    skill = (ROOT / "packaging" / "plugin" / "mcp-computer-use" / "skills" / "desktop-windows" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: desktop-windows\n") and skill.split("\n---\n", 1)[1] == instructions
    for rule in ("once, for 30 seconds", "element_id", "window-relative", "confirm_dangerous"):
        assert rule in instructions
