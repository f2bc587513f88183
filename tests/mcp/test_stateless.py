"""The stateless revision of MCP (2026-07-28), as a client of it speaks: no `initialize`, every
request carrying its protocol version and capabilities in `_meta`, `server/discover` first.
Spoken as raw JSON-RPC (the official Python SDK 2.3 still opens sessions on 2025-06-18) over
stdio and over the Streamable HTTP listener: discovery, the tool listing (the same as the
session's), a tool call that works on a real window, one that fails with our error answer,
progress notifications of a long call, and the protocol's own refusals."""
import json
import os
import urllib.error
import urllib.request

import jsonschema

from conftest import STATELESS_META, ANSWERS, ROOT, TOKEN, RawStdio, http_server

VERSION = "2026-07-28"
META = {**STATELESS_META, "io.modelcontextprotocol/clientInfo": {"name": "test_stateless", "version": "1"}}
GOLDEN = json.loads((ROOT / "tests" / "golden" / "tools_list.json").read_text())


class Http:
    """The binary's Streamable HTTP listener, each request a POST of its own (no session)."""

    def __init__(self, url):
        self.url = url
        self.next_id = 0

    def request(self, method, params, routed=True):
        """As RawStdio.request; the revision's routing headers (Mcp-Method, and Mcp-Name for a tool
        call or a resource read) are sent unless `routed` is false."""
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": params.get("_meta", META)[
                       "io.modelcontextprotocol/protocolVersion"]}
        if routed:
            headers["Mcp-Method"] = method
            if method == "tools/call":
                headers["Mcp-Name"] = params["name"]
            elif method in ("resources/read", "skills/get"):
                headers["Mcp-Name"] = params["uri"]
        post = urllib.request.Request(self.url, data=body.encode(), method="POST", headers=headers)
        try:
            reply = urllib.request.urlopen(post, timeout=60)
        except urllib.error.HTTPError as refused:
            return json.loads(refused.read()), [refused.code]
        with reply:
            assert reply.status == 200, reply.status
            assert reply.headers.get("mcp-session-id") is None, "a stateless request opened a session"
            kind, text = reply.headers.get("content-type", ""), reply.read().decode()
        if kind.startswith("text/event-stream"):
            messages = [json.loads(line[5:]) for line in text.splitlines()
                        if line.startswith("data:") and line[5:].strip()]
        else:
            messages = [json.loads(text)]
        answer = next(m for m in messages if m.get("id") == self.next_id)
        return answer, [m for m in messages if "id" not in m]

    def close(self):
        pass


def discover_and_list(client):
    """server/discover, then tools/list: both as the stateless revision answers them."""
    found, _ = client.request("server/discover", {"_meta": META})
    assert VERSION in found["result"]["supportedVersions"], found
    assert "tools" in found["result"]["capabilities"], found
    assert found["result"]["instructions"] == (ROOT / "docs" / "AGENTS_SNIPPET.md").read_text()
    listed, _ = client.request("tools/list", {"_meta": META})
    tools = sorted(listed["result"]["tools"], key=lambda t: t["name"])
    keys = ("name", "description", "inputSchema", "outputSchema", "annotations")
    assert [{k: t[k] for k in keys if k in t} for t in tools] == GOLDEN, "not the session's listing"
    guide(client)


SKILL = ROOT / "packaging" / "plugin" / "mcp-computer-use" / "skills" / "desktop-windows" / "SKILL.md"


def guide(client):
    """The agent guide as a skill (the skills extension) and a resource: the plugin's SKILL.md,
    whose body is the instructions; its digest and size check out; other URIs are refused."""
    import hashlib
    found, _ = client.request("server/discover", {"_meta": META})
    assert {"resources", "extensions"} <= found["result"]["capabilities"].keys(), found
    text = SKILL.read_text()
    skills, _ = client.request("skills/list", {"_meta": META})
    [skill] = skills["result"]["skills"]
    assert skill["uri"] == "skill://desktop-windows/SKILL.md" and skill["frontmatter"]["name"] == "desktop-windows"
    [file] = skill["resources"]
    assert file["digest"] == "sha256:" + hashlib.sha256(text.encode()).hexdigest(), file
    assert file["size"] == len(text.encode())
    listed, _ = client.request("resources/list", {"_meta": META})
    assert [r["uri"] for r in listed["result"]["resources"]] == [skill["uri"]], listed
    assert listed["result"]["ttlMs"] > 0, listed
    read, _ = client.request("resources/read", {"uri": skill["uri"], "_meta": META})
    assert read["result"]["contents"][0]["text"] == text
    assert text.split("\n---\n", 1)[1] == found["result"]["instructions"]
    missing, _ = client.request("resources/read", {"uri": "skill://desktop-windows/x.md", "_meta": META})
    assert missing["error"]["code"] == -32602 and missing["error"]["data"]["uri"].endswith("x.md"), missing


def call(client, name, arguments, meta=META):
    """tools/call; returns (is_error, the structured answer, the notifications before it)."""
    response, notes = client.request("tools/call", {"name": name, "arguments": arguments, "_meta": meta})
    result = response["result"]
    answer = result["structuredContent"]
    # The text block is the same JSON, window text fenced (test_untrusted.py).
    assert json.loads(result["content"][0]["text"]).keys() == answer.keys()
    jsonschema.validate(answer, ANSWERS[name])
    return bool(result.get("isError")), answer, notes


def refusals(client):
    """What the revision refuses: a version it does not speak, a request without its `_meta`."""
    response, _ = client.request("tools/list", {"_meta": dict(META, **{
        "io.modelcontextprotocol/protocolVersion": "2099-01-01"})})
    assert response["error"]["code"] == -32022 and VERSION in response["error"]["data"]["supported"], response
    response, _ = client.request("tools/call", {"name": "gui_list", "arguments": {}})
    assert response["error"]["code"] == -32602, response


def test_stateless_over_stdio_without_a_desktop():
    client = RawStdio({"PATH": os.environ["PATH"]})
    try:
        discover_and_list(client)
        failed, answer, _ = call(client, "gui_list", {})
        assert failed and answer["error"]["code"] == "GUI_UNAVAILABLE", answer
        assert answer["error"]["retryable"] is False and answer["error"]["suggestion"], answer
        failed, answer, _ = call(client, "gui_state", {"window_id": "x11:0x1", "no_such": 1})
        assert failed and answer["error"]["code"] == "INVALID_ARGUMENT", answer
        refusals(client)
    finally:
        client.close()


def on_a_desktop(client, apps):
    """A real window listed and observed, a wait that never comes true reporting its progress,
    and a window that is not there, all over the stateless revision."""
    pid = apps.launch("qt6")
    # The server waits for the window (no polling here), then names it by its process.
    failed, came, _ = call(client, "gui_wait", {"timeout_ms": 15000, "condition": {
        "until": "window_appears", "text": "Qt6 fixture"}})
    assert not failed and came["outcome"] == "satisfied", came
    failed, answer, _ = call(client, "gui_list", {})
    assert not failed, answer
    window = next((w for w in answer["windows"] if w.get("pid") == pid), None)
    assert window, f"no window for pid {pid}: {answer['windows']}"
    failed, state, _ = call(client, "gui_state", {"window_id": window["id"]})
    assert not failed and state["state_id"] and state["outline"].count("\n") >= 3, state
    failed, waited, notes = call(
        client, "gui_wait", {"window_id": window["id"], "timeout_ms": 3500,
                             "condition": {"until": "appears", "name": "no such text anywhere"}},
        meta=dict(META, progressToken="wait-1"))
    assert not failed and waited["outcome"] == "unsatisfied", waited
    progress = [n["params"] for n in notes if n.get("method") == "notifications/progress"]
    assert len(progress) >= 2 and all(p["progressToken"] == "wait-1" for p in progress), notes
    assert [p["progress"] for p in progress] == sorted(p["progress"] for p in progress), progress
    failed, answer, _ = call(client, "gui_state", {"window_id": "x11:0x7ffffff0"})
    assert failed and answer["error"]["code"] == "WINDOW_NOT_FOUND", answer


def test_stateless_over_stdio_on_a_desktop(server_env, apps):
    client = RawStdio(server_env)
    try:
        on_a_desktop(client, apps)
    finally:
        client.close()


def test_stateless_over_http_on_a_desktop(server_env, apps):
    with http_server(server_env) as url:
        client = Http(url)
        try:
            discover_and_list(client)
            on_a_desktop(client, apps)
            refusals(client)
            # Over HTTP a request names its method in a header, so a proxy can route it.
            response, status = client.request("tools/list", {"_meta": META}, routed=False)
            assert status == [400] and response["error"]["code"] == -32020, response
        finally:
            client.close()
