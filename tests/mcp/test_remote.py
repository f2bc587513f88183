"""The remote worker: three workers, each with its own headless desktop and its own network
address (a network namespace with a veth pair, made here and removed after), TLS with a pinned
self-signed certificate, and one controller (the real binary over stdio, driven by the official
MCP SDK) that forwards calls by `machine`."""
import asyncio
import json
import os
import re
import subprocess
import time

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, ROOT, poll, result_json, call
from lab import Worker, desktop_env, free_displays, sh, silent_server

pytestmark = pytest.mark.anyio
WORKERS = ("w1", "w2", "w3")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def lab(tmp_path_factory, request):
    if os.environ.get("CI") != "true" and not os.environ.get("MCP_CU_TEST_DESKTOP"):
        pytest.skip("SKIPPED: no test desktop (run scripts/test.sh)")
    if os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("the remote tests need root for network namespaces")
        pytest.skip("SKIPPED: network namespaces need root")
    tmp = tmp_path_factory.mktemp("lab")
    displays = free_displays(len(WORKERS))
    workers = {name: Worker(name, n, i, tmp) for i, (name, n) in enumerate(zip(WORKERS, displays), start=1)}
    workers["w3"].extra_env = {"MCP_CU_APPROVALS": "1"}  # w3's gate waits for a person
    workers["w1"].extra_env = {"MCP_CU_MODEL": "none"}  # look_at_screen answers from extraction there
    silent = silent_server()
    try:
        for w in workers.values():
            sh("bash", str(ROOT / "scripts/desktop/start-desktop.sh"), str(w.n))
            w.network_up()
            w.start()
        yield tmp, workers, silent.getsockname()[1]
    finally:
        silent.close()
        for w in workers.values():
            w.stop()
            w.network_down()
            subprocess.run(["bash", str(ROOT / "scripts/desktop/stop-desktop.sh"), str(w.n), "--purge"],
                           capture_output=True)


def controller_config(tmp, workers, silent_port):
    bad_token = tmp / "bad.token"
    bad_token.write_text("wrong-token-0123456789abcdef")
    lines = []
    for w in workers.values():
        lines += [f"[machines.{w.name}]", f'url = "https://{w.ip}:8443/mcp"', f'token_file = "{w.token_file}"',
                  f'desktop_token_file = "{w.desktop_token_file}"',
                  f'fingerprint = "{w.fingerprint}"', "timeout_seconds = 20", ""]
    # w3 again, reached with the tool token alone.
    w3 = workers["w3"]
    lines += ["[machines.w3tools]", f'url = "https://{w3.ip}:8443/mcp"', f'token_file = "{w3.token_file}"',
              f'fingerprint = "{w3.fingerprint}"', "timeout_seconds = 20", ""]
    w1 = workers["w1"]
    lines += ["[machines.badtoken]", f'url = "https://{w1.ip}:8443/mcp"', f'token_file = "{bad_token}"',
              f'fingerprint = "{w1.fingerprint}"', "",
              "[machines.wrongcert]", f'url = "https://{w1.ip}:8443/mcp"', f'token_file = "{w1.token_file}"',
              f'fingerprint = "{"ab" * 32}"', "",
              "[machines.silent]", f'url = "http://127.0.0.1:{silent_port}/mcp"', f'token_file = "{w1.token_file}"',
              "timeout_seconds = 3", ""]
    path = tmp / "controller.toml"
    path.write_text("\n".join(lines))
    return path


@pytest.fixture
def controller(lab, server_env):
    tmp, workers, silent_port = lab
    env = dict(server_env, MCP_CU_CONFIG=str(controller_config(tmp, workers, silent_port)))
    return lambda: Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=60), env


async def window_on(client, machine, pid, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        err, res = await call(client, "gui_list", {"machine": machine})
        assert not err, res
        for w in res["windows"]:
            if w.get("pid") == pid:
                return w
        await asyncio.sleep(0.2)
    raise AssertionError(f"no window of pid {pid} on {machine}")


async def test_three_machines_listed_driven_and_observed(lab, controller, sessions_dir):
    _, workers, _ = lab
    connect, _ = controller
    calc = workers["w1"].launch("calc")
    form = workers["w2"].launch("hebrew")
    qt = workers["w3"].launch("qt5")
    async with connect() as client:
        tools = await client.list_tools()
        assert "_desktop" not in {t.name for t in tools.tools}
        assert all("machine" in t.input_schema["properties"] for t in tools.tools)
        w_calc = await window_on(client, "w1", calc)
        w_form = await window_on(client, "w2", form)
        w_qt = await window_on(client, "w3", qt)
        assert w_calc["id"].startswith("w1/x11:") and w_form["id"].startswith("w2/")

        err, res = await call(client, "gui_list", {"machine": "all"})
        assert not err, res
        by_machine = {m["machine"]: m for m in res["machines"]}
        assert {"local", "w1", "w2", "w3", "silent", "badtoken", "wrongcert"} <= set(by_machine)
        assert any(w["id"] == w_qt["id"] for w in by_machine["w3"]["windows"])
        assert by_machine["badtoken"]["error"]["code"] == "UNAUTHORIZED"

        # Act on w1's calculator while observing w2's form, concurrently.
        click = call(client, "click", {"app": w_calc["id"], "steps": ["7", "×", "6", "="]})
        observe = client.call_tool("gui_state", {"window_id": w_form["id"], "screenshot": True})
        (err1, res1), raw = await asyncio.gather(click, observe)
        assert not err1, res1
        assert res1["window_id"] == w_calc["id"]
        assert any(getattr(b, "type", "") == "image" for b in raw.content), f"the screenshot arrives as image content: {raw.content}"
        err, state = result_json(raw)
        assert not err and state["state_id"].startswith("w2/") and "שלח" in state["outline"]
        deadline = time.time() + 5
        while True:
            err, calc_state = await call(client, "gui_state", {"window_id": w_calc["id"]})
            assert not err, calc_state
            if 'text_area ="42"' in calc_state["outline"]:
                break
            assert time.time() < deadline, calc_state["outline"]
            await asyncio.sleep(0.1)

        # look_at_screen runs on the machine that shows the window (its extraction and model); the
        # image comes back as image content.
        raw = await client.call_tool("look_at_screen", {"question": "What is shown?", "app": w_calc["id"],
                                                         "include_image": True, "client": "ctl", "session_id": "r1"})
        err, look = result_json(raw)
        assert not err and look["windows_seen"] == ["Calculator"] and look["model_used"] == "none", look
        assert "42" in look["summary"] and look["image"]["bytes"] > 0, look
        assert any(getattr(b, "type", "") == "image" for b in raw.content)
        assert (workers["w1"].sessions / "ctl__r1.json").exists(), "the session file lives on the worker"

        # A state routes by itself; a local id or another machine's id with machine=w1 is refused.
        err, res = await call(client, "gui_action", {"window_id": w_form["id"], "state_id": state["state_id"],
                                                      "actions": [{"type": "wait", "ms": 1}]})
        assert not err, res
        err, res = await call(client, "gui_state", {"window_id": w_calc["id"].split("/", 1)[1], "machine": "w1"})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT", res
        err, res = await call(client, "gui_state", {"window_id": w_form["id"], "machine": "w1"})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT", res

        # The gate applies on the machine that acts.
        err, res = await call(client, "click", {"app": w_form["id"], "target": "שלח"})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
        # The internal call is refused through the controller's MCP surface.
        err, res = await call(client, "_desktop", {"op": "windows", "machine": "w1"})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT"

    log = [json.loads(line) for line in (sessions_dir / "actions.log").read_text().splitlines()]
    assert any(r.get("machine") == "w1" and r.get("action") == "forward.click" and r["result"] == "ok" for r in log)
    worker_log = [json.loads(line) for line in (workers["w2"].sessions / "actions.log").read_text().splitlines()]
    assert any(r.get("action") == "click" and r.get("error_code") == "DANGEROUS_ACTION_NEEDS_CONFIRMATION" for r in worker_log)


async def test_failures_are_bounded_and_named(lab, controller):
    _, workers, _ = lab
    connect, _ = controller
    async with connect() as client:
        err, res = await call(client, "gui_list", {"machine": "badtoken"})
        assert err and res["error"]["code"] == "UNAUTHORIZED", res
        err, res = await call(client, "gui_list", {"machine": "wrongcert"})
        assert err and res["error"]["code"] == "MACHINE_UNREACHABLE" and res["error"]["retryable"] is False, res
        t = time.time()
        err, res = await call(client, "gui_list", {"machine": "silent"})
        assert err and res["error"]["code"] == "MACHINE_UNREACHABLE" and res["error"]["retryable"] is True, res
        assert time.time() - t < 8, "bounded by the machine's timeout"
        assert res["error"]["details"]["machine"] == "silent"

        # A worker killed mid-session and restarted: its old state is refused, the controller
        # reconnects by itself.
        w1 = workers["w1"]
        pid = w1.launch("zenity-entry")
        w = await window_on(client, "w1", pid)
        err, state = await call(client, "gui_state", {"window_id": w["id"]})
        assert not err, state
        w1.stop()
        err, res = await call(client, "gui_list", {"machine": "w1"})
        assert err and res["error"]["code"] == "MACHINE_UNREACHABLE", res
        w1.start()
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                      "actions": [{"type": "wait", "ms": 1}]})
        assert err and res["error"]["code"] == "STATE_EXPIRED", res
        err, res = await call(client, "gui_list", {"machine": "w1"})
        assert not err and any(x["id"] == w["id"] for x in res["windows"]), res


async def test_a_worker_killed_mid_call_answers_machine_unreachable_in_time(lab, controller):
    _, workers, _ = lab
    connect, _ = controller
    w1 = workers["w1"]
    async with connect() as client:
        pid = w1.launch("zenity-entry")
        w = await window_on(client, "w1", pid)
        err, state = await call(client, "gui_state", {"window_id": w["id"]})
        assert not err, state

        entry = next(re.match(r"\s*(e\d+) text_input", line).group(1)
                     for line in state["outline"].splitlines() if " text_input" in line)
        # The controller's ids carry their machine ("w1/s…"); the worker's file has the bare id.
        used = w1.sessions / "states" / f"{state['state_id'].split('/')[-1]}.used"

        async def kill_mid_call():
            # Once the worker is inside the call: it used the state up right before its first input.
            await poll(lambda: asyncio.sleep(0, used.exists()), "the worker acting", timeout=15, every=0.05)
            w1.stop()

        started = time.time()
        killer = asyncio.create_task(kill_mid_call())
        err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                      "actions": [{"type": "focus", "element_id": entry},
                                                                  {"type": "wait", "ms": 8000}]})
        await killer
        assert err and res["error"]["code"] == "MACHINE_UNREACHABLE" and res["error"]["retryable"] is True, res
        assert time.time() - started < 20, "within the machine's timeout (20 s)"
        w1.start()
        err, res = await call(client, "gui_list", {"machine": "w1"})
        assert not err, res


def test_listener_rules_and_health(lab):
    _, workers, _ = lab
    w1 = workers["w1"]
    env = dict(desktop_env(w1.n), MCP_CU_SESSIONS_DIR=str(w1.sessions))
    # A non-loopback bind without TLS is refused at start-up.
    out = subprocess.run(w1.command("--listen", f"{w1.ip}:9000"), env=env, capture_output=True, text=True, timeout=20)
    assert out.returncode == 2 and "needs TLS" in out.stdout, out
    health = sh("ip", "netns", "exec", w1.ns, "curl", "-sk", f"https://{w1.ip}:8443/health").stdout
    assert json.loads(health)["status"] in ("idle", "busy")
    # Nothing runs without the token.
    code = sh("ip", "netns", "exec", w1.ns, "curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
              "-H", "content-type: application/json", "-d", "{}", f"https://{w1.ip}:8443/mcp").stdout
    assert code == "401"


def test_internal_call_through_the_controller(lab, controller):
    _, workers, _ = lab
    _, env = controller
    out = subprocess.run([BIN, "desktop-call", "w3", '{"op":"windows"}'], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out
    windows = json.loads(out.stdout)["windows"]
    assert windows and all(not w["id"].startswith("w3/") for w in windows), "the worker's own ids"
    wid = windows[0]["id"]
    out = subprocess.run([BIN, "desktop-call", "w3", json.dumps({"op": "capture", "window_id": wid})],
                         env=env, capture_output=True, text=True, timeout=60)
    shot = json.loads(out.stdout)
    assert out.returncode == 0 and shot["jpeg_bytes"][0] > 1000 and shot["geometry"]["w"] > 0, out
    moved = dict(shot["geometry"], x=shot["geometry"]["x"] + 5)
    event = {"kind": "move", "at": {"x": 5, "y": 5}}
    out = subprocess.run([BIN, "desktop-call", "w3", json.dumps({"op": "input", "window_id": wid, "geometry": moved, "event": event})],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "WINDOW_MOVED", out
    out = subprocess.run([BIN, "desktop-call", "w3", json.dumps({"op": "input", "window_id": wid, "geometry": shot["geometry"], "event": event})],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and json.loads(out.stdout)["sent"] is True, out
    audit = [json.loads(line) for line in (workers["w3"].sessions / "actions.log").read_text().splitlines()]
    assert any(r.get("action") == "desktop.input.move" and r.get("result") == "ok" and r.get("window") == wid
               for r in audit), audit


def test_regression_the_tool_token_alone_decided_approvals_and_sent_input_on_a_worker(lab, controller):
    """Issue 39: whoever held a worker's tool token could approve what its gate held back and
    send input no gate judged, through the Desktop page's internal call. Now those need the
    worker's desktop credential; with the tool token alone (machine w3tools: w3 without
    desktop_token_file) they are refused, and only looking is allowed."""
    _, workers, _ = lab
    _, env = controller
    run = lambda request: subprocess.run([BIN, "desktop-call", "w3tools", json.dumps(request)], env=env,
                                         capture_output=True, text=True, timeout=60)
    out = run({"op": "windows"})
    assert out.returncode == 0, out
    wid = json.loads(out.stdout)["windows"][0]["id"]
    shot = json.loads(run({"op": "capture", "window_id": wid}).stdout)
    for request in ({"op": "input", "window_id": wid, "geometry": shot["geometry"],
                     "event": {"kind": "move", "at": {"x": 5, "y": 5}}},
                    {"op": "decide", "id": "a0000000000000000", "approve": True, "by": "someone"},
                    {"op": "activate", "window_id": wid}):
        out = run(request)
        assert out.returncode == 1, (request, out)
        error = json.loads(out.stdout)["error"]
        assert error["code"] == "UNAUTHORIZED" and "desktop" in error["suggestion"], (request, error)


async def test_concurrent_clients_across_workers_mix_nothing(lab, controller):
    _, workers, _ = lab
    connect, _ = controller
    pids = {name: w.launch("qt6") for name, w in workers.items()}

    async def one_client(name):
        async with connect() as client:
            w = await window_on(client, name, pids[name])
            for _ in range(4):
                err, state = await call(client, "gui_state", {"window_id": w["id"]})
                assert not err, state
                assert state["state_id"].startswith(f"{name}/") and state["window"]["id"] == w["id"]
                err, res = await call(client, "gui_action", {"window_id": w["id"], "state_id": state["state_id"],
                                                              "actions": [{"type": "wait", "ms": 1}]})
                assert not err, res
    await asyncio.gather(*(one_client(name) for name in workers), one_client("w1"))


async def test_a_worker_without_a_desktop_says_so_and_keeps_serving(tmp_path):
    """Direct to a worker (the controller's own view of it): no session reachable as this user."""
    from conftest import TOKEN, _free_port
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    port = _free_port()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MCP_CU_SESSIONS_DIR": str(tmp_path / "s"),
           "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    proc = subprocess.Popen([BIN, "worker", "--listen", f"127.0.0.1:{port}", "--token-file", str(token_file)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        announce = json.loads(proc.stdout.readline())
        assert announce["desktop"].startswith("unavailable"), announce
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "gui_list" in names and "_desktop" not in names
            for _ in range(2):  # it keeps serving
                err, res = result_json(await client.call_tool("gui_list", {}))
                assert err and res["error"]["code"] == "GUI_UNAVAILABLE", res
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_a_remote_approval_is_decided_on_the_controllers_page(lab, controller, tmp_path):
    """w3's gate holds a click for a person; the controller's Desktop page shows and approves it."""
    from conftest import _free_port
    from test_webui import TOKEN as PAGE_TOKEN, Browser

    _, workers, _ = lab
    connect, env = controller
    port = _free_port()
    page = subprocess.Popen([BIN, "webui", "--listen", f"127.0.0.1:{port}"], env=dict(env, MCP_CU_HTTP_TOKEN=PAGE_TOKEN),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    browser = Browser()
    try:
        pid = workers["w3"].launch("zenity")
        async with connect() as client:
            w = await window_on(client, "w3", pid)
            for _ in range(50):
                if subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/"]).returncode == 0:
                    break
                time.sleep(0.1)
            browser("open", url=f"http://127.0.0.1:{port}/?token={PAGE_TOKEN}")
            waiting = asyncio.create_task(call(client, "click", {"app": w["id"], "target": "Delete"}))
            shown = await browser.later("wait_approval")
            assert "on w3" in shown["text"] and "Delete" in shown["text"] and shown["crop"] == 1, shown
            await browser.later("decide", approve=True)
            err, res = await waiting
            assert not err and res["results"][0]["approved_by"].startswith("Desktop page"), res
        log = [json.loads(line) for line in (workers["w3"].sessions / "actions.log").read_text().splitlines()]
        assert any(r.get("action") == "approval.click" and r.get("result") == "approved" for r in log), log
    finally:
        browser.close()
        page.terminate()
        page.wait(timeout=10)


def make_ca_signed(tmp, ip):
    """A CA, and a certificate for `ip` it signed (openssl)."""
    run = lambda *a: sh("openssl", *a, cwd=tmp)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "w.key", "-out", "w.csr", "-subj", f"/CN={ip}")
    (tmp / "san.ext").write_text(f"subjectAltName=IP:{ip}\n")
    run("x509", "-req", "-in", "w.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "w.pem",
        "-days", "2", "-extfile", "san.ext")
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.pem", "-days", "2",
        "-subj", "/CN=another CA")
    return tmp / "ca.pem", tmp / "w.pem", tmp / "w.key", tmp / "other.pem"


async def test_a_worker_with_a_ca_signed_certificate(lab, server_env, tmp_path):
    """--tls-cert/--tls-key on the worker, ca_file on the controller; another CA is refused."""
    _, workers, _ = lab
    w2 = workers["w2"]
    ca, cert, key, other = make_ca_signed(tmp_path, w2.ip)
    env = dict(desktop_env(w2.n), MCP_CU_SESSIONS_DIR=str(w2.sessions))
    proc = subprocess.Popen(w2.command("--listen", f"{w2.ip}:8444", "--tls-cert", str(cert), "--tls-key", str(key)),
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert json.loads(proc.stdout.readline())["listening"] == f"https://{w2.ip}:8444/mcp"
        config = tmp_path / "ca.toml"
        config.write_text("".join(
            f'[machines.{name}]\nurl = "https://{w2.ip}:8444/mcp"\ntoken_file = "{w2.token_file}"\n'
            f'ca_file = "{path}"\ntimeout_seconds = 10\n\n' for name, path in [("trusted", ca), ("stranger", other)]))
        params = StdioServerParameters(command=BIN, args=[], env=dict(server_env, MCP_CU_CONFIG=str(config)))
        async with Client(params, read_timeout_seconds=60) as client:
            err, res = await call(client, "gui_list", {"machine": "trusted"})
            assert not err and res["backend"]["name"], res
            err, res = await call(client, "gui_list", {"machine": "stranger"})
            assert err and res["error"]["code"] == "MACHINE_UNREACHABLE", res
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_regression_the_controllers_own_words_did_not_reach_the_worker(lab, server_env):
    """Issue 39: a controller's extra blocked words (and approvals) applied to its own desktop
    only; a forwarded call met the worker's settings alone. Now they travel with each acting
    call and hold on the machine that acts, for that call."""
    tmp, workers, silent_port = lab
    config = controller_config(tmp, workers, silent_port)
    tight = tmp / "tight-controller.toml"
    tight.write_text(config.read_text() + '\n[safety]\nblocklist_extra = ["7"]\n')
    env = dict(server_env, MCP_CU_CONFIG=str(tight))
    pid = workers["w1"].launch("calc")
    async with Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=60) as client:
        w = await window_on(client, "w1", pid)
        err, res = await call(client, "click", {"app": w["id"], "target": "7"})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
        assert res["error"]["details"]["matched_rule"] == "7", res
        # Looking is not acting: nothing is added to it.
        err, res = await call(client, "gui_state", {"window_id": w["id"]})
        assert not err, res
    log = [json.loads(line) for line in (workers["w1"].sessions / "actions.log").read_text().splitlines()]
    assert any(r.get("action") == "click" and r.get("error_code") == "DANGEROUS_ACTION_NEEDS_CONFIRMATION"
               for r in log), log
