"""look_at_screen, ping, health and release_model through the official MCP SDK against the real
binary, on real windows, with a real model server: llama.cpp's server (xllamacpp) with SmolLM2-135M
over the OpenAI-compatible API, and the Ollama-API adapter (tests/llm/ollama_shim.py, which starts
and stops the real llama.cpp server as Ollama loads and unloads) for the Ollama path, including
auto-start through a stand-in `ollama` executable. A tiny model's wording is never asserted: only
format and plumbing.
"""
import asyncio
import contextlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import threading
import time
import urllib.request
import http.server

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, ROOT, _free_port, call, eventually, poll, window_of

pytestmark = pytest.mark.anyio
LLM_DIR = ROOT / "tests" / "llm"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="session")
def llm_url():
    url = os.environ.get("MCP_CU_TEST_LLM_URL")
    if url:
        return url
    if os.environ.get("CI") == "true":
        pytest.fail("CI=true but no test model server: run the suite through scripts/test.sh")
    pytest.skip("SKIPPED: no test model server (scripts/test.sh starts one)")


# These tests check format and plumbing, not the tiny model's speed: a generous model timeout
# (the call budget of 110 s still bounds every call), so a busy 2-core machine does not turn
# an answer into MODEL_TIMEOUT (seen in a fresh run beside a release build). Tests of the
# timeout itself pass their own values.
PATIENT = {"MCP_CU_TIMEOUT_BASE": "90", "MCP_CU_TIMEOUT_MIN": "60", "MCP_CU_TIMEOUT_MAX": "100"}


def openai_env(server_env, llm_url, **extra):
    env = dict(server_env, MCP_CU_LLM_API="openai", MCP_CU_OLLAMA_URL=llm_url, MCP_CU_MODEL="smollm2", **PATIENT)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def client_for(env):
    return Client(StdioServerParameters(command=BIN, args=[], env=env), read_timeout_seconds=150)


def metric(llm_url, name):
    text = urllib.request.urlopen(llm_url + "/metrics", timeout=5).read().decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


def get_json(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def ollama_ps(url):
    return get_json(url + "/api/ps")[1]["models"]


@contextlib.contextmanager
def ollama_adapter():
    """The Ollama-API adapter on a free port, spawning the real llama.cpp server on first use."""
    port = _free_port()
    env = dict(os.environ, OLLAMA_HOST=f"127.0.0.1:{port}")
    proc = subprocess.Popen([str(LLM_DIR / "ollama"), "serve"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            with contextlib.suppress(OSError):
                if get_json(url + "/api/tags", timeout=2)[0] == 200:
                    break
            time.sleep(0.1)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


def ollama_env(server_env, url, **extra):
    env = dict(server_env, MCP_CU_LLM_API="ollama", MCP_CU_OLLAMA_URL=url, MCP_CU_MODEL="smollm2:135m",
               MCP_CU_NUM_CTX="2048", MCP_CU_AUTOSTART_OLLAMA="0", **PATIENT)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def llama_children():
    """PIDs of llama.cpp servers the adapter spawned (xllamacpp_server.py -m … --port)."""
    out = subprocess.run(["pgrep", "-f", "xllamacpp_server.py -m .* -c 2048 -t 2 --host"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


async def test_look_at_screen_answers_in_about_a_hundred_tokens_of_json(apps, server_env, llm_url):
    pid = apps.launch("calc")
    async with client_for(openai_env(server_env, llm_url)) as client:
        w = await window_of(client, pid)
        err, res = await call(client, "look_at_screen", {"question": "What number does the display show?", "app": w["id"]})
        assert not err, res
        assert res["windows_seen"] == ["Calculator"]
        assert res["status"] == "unknown", "a calculator has no status: the conservative rule"
        assert isinstance(res["summary"], str) and 0 < len(res["summary"]) <= 160
        if "discarded" in res.get("hint", ""):
            # The tiny test model's junk is never passed on: the summary is the window's text.
            assert "confidence" not in res, res
        else:
            assert 0.0 <= res["confidence"] <= 1.0
        assert res["model_used"] == "smollm2"
        assert res["timing"]["timeout_source"] in ("static", "adaptive", "bumped")
        assert 0 < res["timing"]["timeout_seconds"] <= 110 and res["timing"]["model_wall_seconds"] > 0
        assert res["memory"]["keep_alive"] == 180 and res["memory"]["reason"] == "idle"
        assert res["duration_seconds"] >= res["timing"]["model_wall_seconds"]
        assert not any(v in (None, "", [], {}) for v in res.values()), "empty fields are left out"
        assert "image" not in res and "image_error" not in res
        # The model really read the window: the question and the display reached it.
        before = metric(llm_url, "llamacpp:prompt_tokens_total")
        err, res = await call(client, "look_at_screen", {"question": "Is a number shown?", "app": w["id"]})
        assert not err, res
        assert metric(llm_url, "llamacpp:prompt_tokens_total") > before
        # The second look without a session suggests one; the timing history is persisted.
        assert "session_id" in res.get("hint", ""), res
    stats = json.loads((pathlib.Path(server_env["MCP_CU_SESSIONS_DIR"]) / "timing_stats.json").read_text())
    assert len(stats["warm"]) >= 2 and stats["timeouts_in_a_row"] == 0


async def test_questions_are_bounded_and_hinted(apps, server_env, llm_url):
    pid = apps.launch("calc")
    async with client_for(openai_env(server_env, llm_url)) as client:
        w = await window_of(client, pid)
        err, res = await call(client, "look_at_screen", {"question": "x" * 301, "app": w["id"]})
        assert err and res["error"]["code"] == "QUESTION_TOO_LONG" and res["error"]["suggestion"], res
        err, res = await call(client, "look_at_screen", {"question": "מה מוצג במחשבון?", "app": w["id"]})
        assert not err, res
        assert "English" in res["hint"], res
        err, res = await call(client, "look_at_screen", {"question": "What? Why? When?", "app": w["id"]})
        assert not err and "one short" in res["hint"], res
        err, res = await call(client, "look_at_screen", {"question": "Done?", "app": "No Such App"})
        assert err and res["error"]["code"] == "APP_NOT_FOUND"


async def test_sessions_track_changes_cache_answers_and_replace_old_ones(apps, server_env, llm_url):
    pid = apps.launch("calc")
    sessions = pathlib.Path(server_env["MCP_CU_SESSIONS_DIR"])
    old = sessions / "codex__stale.json"
    old.write_text("{}")
    two_days_ago = time.time() - 48 * 3600
    os.utime(old, (two_days_ago, two_days_ago))
    q = "What number does the display show?"
    session = {"client": "codex", "session_id": "task-1"}
    async with client_for(openai_env(server_env, llm_url)) as client:
        w = await window_of(client, pid)
        app = w["id"]
        err, first = await call(client, "look_at_screen", {"question": q, "app": app, **session})
        assert not err, first
        assert first["session"] == session and "cached" not in first
        assert not old.exists(), "files older than the TTL are deleted"
        record = json.loads((sessions / "codex__task-1.json").read_text())
        assert record["app"] and record["questions"][-1]["question"] == q and record["updated_ms"] > 0
        err, res = await call(client, "click", {"app": app, "steps": ["7", "×", "6", "="]})
        assert not err, res
        await eventually(client, app, lambda t: 'text_area ="42"' in t, "42 on the display")
        err, changed = await call(client, "look_at_screen", {"question": q, "app": app, **session})
        assert not err, changed
        assert "cached" not in changed, "the screen changed: the model is asked again"
        assert "new text in the last message" in changed["changed_since_last"], changed

        # The history list settles after the display: ask again until the answer comes from the
        # cache (the screen is still), instead of sleeping and hoping.
        async def from_cache():
            err, again = await call(client, "look_at_screen", {"question": q, "app": app, **session})
            assert not err, again
            return again if again.get("cached") else None
        changed = await poll(from_cache, "a cached answer once the calculator is still", timeout=30, every=0.5)
    # The same question on the unchanged screen comes from the file, with no model call: this
    # server's model URL answers nothing at all.
    dead = openai_env(server_env, f"http://127.0.0.1:{_free_port()}")
    async with client_for(dead) as client:
        err, cached = await call(client, "look_at_screen", {"question": q, "app": app, **session})
        assert not err, cached
        assert cached["cached"] is True and cached["summary"] == changed["summary"]
        assert "model_used" not in cached and "changed_since_last" not in cached
        # A new session id replaces the client's old file; a session id alone is client "default".
        err, res = await call(client, "look_at_screen", {"question": q, "app": app, "client": "codex", "session_id": "task-2"})
        assert err and res["error"]["code"] == "OLLAMA_UNREACHABLE" and res["extracted"]["extractor"] == "generic"
        assert (sessions / "codex__task-2.json").exists() and not (sessions / "codex__task-1.json").exists()
        err, res = await call(client, "look_at_screen", {"question": q, "app": app, "session_id": "a/b..c"})
        assert (sessions / "default__abc.json").exists(), "ids are sanitized to [A-Za-z0-9_-]"
        for bad in [{"session_id": "!!!"}, {"client": "codex"}, {"client": "***", "session_id": "x"}]:
            err, res = await call(client, "look_at_screen", {"question": q, "app": app, **bad})
            assert err and res["error"]["code"] == "INVALID_ARGUMENT", (bad, res)


async def test_no_model_answers_from_extraction_and_images_come_as_image_content(apps, server_env):
    pid = apps.launch("calc")
    env = dict(server_env, MCP_CU_MODEL="none")
    async with client_for(env) as client:
        w = await window_of(client, pid)
        raw = await client.call_tool("look_at_screen", {"question": "What is shown?", "app": w["id"], "include_image": True})
        text = next(b.text for b in raw.content if b.type == "text")
        res = json.loads(text)
        assert res["model_used"] == "none" and res["summary"] and "timing" not in res, res
        images = [b for b in raw.content if b.type == "image"]
        assert len(images) == 1 and getattr(images[0], "mime_type", None) == "image/jpeg"
        assert res["image"]["width"] <= 1024 and res["image"]["bytes"] > 1000, res
        err, plain = await call(client, "look_at_screen", {"question": "What is shown?", "app": w["id"]})
        assert not err and "image" not in plain


async def test_a_model_server_that_never_answers_gives_model_timeout_then_the_bump(apps, server_env):
    pid = apps.launch("calc")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held = []
    stop = threading.Event()

    def hold():
        listener.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])
    threading.Thread(target=hold, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = openai_env(server_env, url, MCP_CU_TIMEOUT_BASE=2, MCP_CU_TIMEOUT_MIN=1, MCP_CU_TIMEOUT_MAX=5)
    try:
        async with client_for(env) as client:
            w = await window_of(client, pid)
            started = time.time()
            err, res = await call(client, "look_at_screen", {"question": "Done?", "app": w["id"]})
            took = time.time() - started
            assert err and res["error"]["code"] == "MODEL_TIMEOUT" and res["error"]["retryable"], res
            assert res["extracted"]["status"] == "unknown" and res["extracted"]["text"], "the agent can go on"
            first = res["timing"]["timeout_seconds"]
            assert took < first + 4, (took, first)
            err, res = await call(client, "look_at_screen", {"question": "Done?", "app": w["id"]})
            assert err and res["timing"]["timeout_source"] == "bumped", res
            assert res["timing"]["timeout_seconds"] == pytest.approx(min(first * 1.5, 5), abs=0.2)
        # The call budget caps every wait: 30 s computed, 6 s budget.
        env = openai_env(server_env, url, MCP_CU_CALL_BUDGET_SECONDS=6)
        async with client_for(env) as client:
            started = time.time()
            err, res = await call(client, "look_at_screen", {"question": "Done?", "app": w["id"]})
            assert err and res["error"]["code"] == "MODEL_TIMEOUT" and res["timing"]["budget_capped"] is True, res
            assert time.time() - started < 9
    finally:
        stop.set()
        listener.close()
        for s in held:
            s.close()
    stats = json.loads((pathlib.Path(server_env["MCP_CU_SESSIONS_DIR"]) / "timing_stats.json").read_text())
    assert stats["timeouts_in_a_row"] >= 2


async def test_ollama_api_keep_alive_cold_detection_and_release(apps, server_env, llm_url):
    pid = apps.launch("calc")
    with ollama_adapter() as url:
        assert ollama_ps(url) == []
        async with client_for(ollama_env(server_env, url)) as client:
            w = await window_of(client, pid)
            err, res = await call(client, "look_at_screen", {"question": "What is shown?", "app": w["id"]})
            assert not err, res
            assert res["timing"].get("cold") is True and res["memory"]["was_loaded"] is False, res
            assert res["memory"]["keep_alive"] == 180
            assert [m["name"] for m in ollama_ps(url)] == ["smollm2:135m"]
            assert llama_children(), "the adapter runs a real llama.cpp server while loaded"
            err, res = await call(client, "look_at_screen", {"question": "What is shown?", "app": w["id"], "keep_warm": True})
            assert not err, res
            assert "cold" not in res["timing"] and res["memory"]["was_loaded"] is True
            assert res["memory"]["keep_alive"] == 600 and res["memory"]["reason"] == "keep_warm"
            err, health = await call(client, "health", {})
            assert not err and health["model"]["reachable"] and health["model"]["loaded"] is True, health
            err, res = await call(client, "release_model", {})
            assert not err and res["released"] and res["was_loaded"] and res["freed_mb"] > 0, res
            assert ollama_ps(url) == []
            deadline = time.time() + 10
            while llama_children() and time.time() < deadline:
                time.sleep(0.2)
            assert not llama_children(), "unloading stopped the real server process"
            err, res = await call(client, "ping", {})
            assert not err and res["ok"] and res["cold"] is True, res
            assert [m["context_length"] for m in ollama_ps(url)] == [2048]
            err, res = await call(client, "release_model", {})
            assert not err and res["was_loaded"], res
        # Under the free-memory floor the model is unloaded right after answering.
        async with client_for(ollama_env(server_env, url, MCP_CU_MIN_FREE_MB=1_000_000)) as client:
            err, res = await call(client, "look_at_screen", {"question": "What is shown?", "app": w["id"]})
            assert not err, res
            assert res["memory"]["unloaded_low_memory"] is True and res["memory"]["keep_alive"] == 0, res
            assert ollama_ps(url) == []


async def test_ollama_is_auto_started_once_under_a_lock(apps, server_env, tmp_path):
    pid = apps.launch("calc")
    port = _free_port()
    starts = tmp_path / "starts"
    env = ollama_env(server_env, f"http://127.0.0.1:{port}", MCP_CU_AUTOSTART_OLLAMA=1,
                     PATH=f"{LLM_DIR}:{server_env['PATH']}", MCP_CU_TEST_OLLAMA_STARTS=starts,
                     MCP_CU_TEST_GGUF=os.environ["MCP_CU_TEST_GGUF"],
                     MCP_CU_TEST_PYTHON=os.environ["MCP_CU_TEST_PYTHON"])
    try:
        async with client_for(env) as a, client_for(env) as b:
            w = await window_of(a, pid)
            ask = {"question": "What is shown?", "app": w["id"]}
            (err_a, res_a), (err_b, res_b) = await asyncio.gather(call(a, "look_at_screen", ask), call(b, "look_at_screen", ask))
            assert not err_a and not err_b, (res_a, res_b)
            assert len(starts.read_text().splitlines()) == 1, "the lock let exactly one start through"
            assert res_a["timing"]["cold"] is True or res_b["timing"]["cold"] is True
            healths = [(await call(c, "health", {}))[1] for c in (a, b)]
            assert sorted(h["ollama_autostarted"] for h in healths) == [False, True], healths
            last = healths[0]["last_autostart"]
            assert last["ok"] is True and last["method"] == "detached", last
            sessions = pathlib.Path(server_env["MCP_CU_SESSIONS_DIR"])
            assert (sessions / "ollama-autostart.lock").exists()
            assert "ollama shim on" in (sessions / "ollama-autostart.log").read_text()
            # Inside a session the start-up check is skipped; when Ollama has gone away, the call
            # starts it once and asks again.
            in_session = dict(ask, client="agent", session_id="s1")
            err, res = await call(a, "look_at_screen", in_session)
            assert not err, res
            first_shim = int(starts.read_text().split()[0])
            os.killpg(first_shim, signal.SIGTERM)
            deadline = time.time() + 20
            while time.time() < deadline:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    time.sleep(0.2)
                    continue
                break
            err, res = await call(a, "look_at_screen", dict(in_session, question="Anything new?"))
            assert not err, res
            assert len(starts.read_text().splitlines()) == 2, "started again once, inside the session"
    finally:
        for line in starts.read_text().splitlines() if starts.exists() else []:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(line.split()[0]), signal.SIGTERM)
        deadline = time.time() + 20
        while llama_children() and time.time() < deadline:
            time.sleep(0.2)
    # Off means off.
    env["MCP_CU_AUTOSTART_OLLAMA"] = "0"
    async with client_for(env) as client:
        err, res = await call(client, "look_at_screen", {"question": "What is shown?", "app": w["id"]})
        assert err and res["error"]["code"] == "OLLAMA_UNREACHABLE", res


async def test_ping_health_and_release_over_the_openai_api(server_env, llm_url):
    async with client_for(openai_env(server_env, llm_url)) as client:
        err, res = await call(client, "ping", {})
        assert not err and res["ok"] and res["model_used"] == "smollm2", res
        err, health = await call(client, "health", {})
        assert not err and health["ok"] is True and health["gui"]["ok"] and health["model"]["api"] == "openai", health
        err, res = await call(client, "release_model", {})
        assert err and res["error"]["code"] == "NOT_SUPPORTED" and res["error"]["suggestion"], res
    async with client_for(openai_env(server_env, f"http://127.0.0.1:{_free_port()}")) as client:
        err, health = await call(client, "health", {})
        assert not err and health["ok"] is False and health["model"]["reachable"] is False, health
        assert health["model"]["error"]["code"] == "OLLAMA_UNREACHABLE"


async def test_click_asks_the_model_about_weak_candidates(apps, server_env, llm_url):
    apps.launch("hebrew")
    form = "טופס בדיקה"
    async with client_for(openai_env(server_env, llm_url)) as client:
        before = metric(llm_url, "llamacpp:prompt_tokens_total")
        err, res = await call(client, "click", {"app": form, "target": "הגדרות מתקדמת"})
        assert metric(llm_url, "llamacpp:prompt_tokens_total") > before, "the weak candidates went to the model"
        if err:  # The tiny model declined: the candidates come back, nothing was pressed.
            assert res["error"]["code"] == "TARGET_AMBIGUOUS" and res["error"]["details"]["candidates"], res
        else:
            assert res["results"][0]["how"] == "model" and res["results"][0]["name"] == "הגדרות מתקדמות", res
    # With less than 5 s of the call budget, click answers with the candidates, asking no model.
    async with client_for(openai_env(server_env, llm_url, MCP_CU_CALL_BUDGET_SECONDS=4)) as client:
        before = metric(llm_url, "llamacpp:prompt_tokens_total")
        err, res = await call(client, "click", {"app": form, "target": "הגדרות מתקדמת"})
        assert err and res["error"]["code"] == "TARGET_AMBIGUOUS", res
        assert metric(llm_url, "llamacpp:prompt_tokens_total") == before


def run_cli(*args, env, timeout=120):
    return subprocess.run([BIN, *args], env=env, capture_output=True, text=True, timeout=timeout)


async def test_cli_ask_release_and_health_http(apps, server_env, llm_url, tmp_path):
    pid = apps.launch("calc")
    async with client_for(server_env) as client:
        w = await window_of(client, pid)
    env = openai_env(server_env, llm_url)
    image = tmp_path / "calc.jpg"
    out = run_cli("--ask", "What is shown?", "--app", w["id"], "--image-out", str(image), env=env)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["summary"] and res["image"]["bytes"] == image.stat().st_size and image.read_bytes()[:2] == b"\xff\xd8"
    dead = openai_env(server_env, f"http://127.0.0.1:{_free_port()}")
    out = run_cli("--ask", "What is shown?", "--app", w["id"], env=dead)
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "OLLAMA_UNREACHABLE"
    out = run_cli("--release", env=env)
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "NOT_SUPPORTED"
    out = run_cli("--health", env=env)
    assert out.returncode == 0 and json.loads(out.stdout)["model"]["reachable"] is True, out.stdout
    # --health-http beside the stdio server: 200 when everything works, 503 when not.
    for model_env, code in [(env, 200), (dead, 503)]:
        port = _free_port()
        proc = subprocess.Popen([BIN, "--health-http"], env=dict(model_env, MCP_CU_HEALTH_PORT=str(port)),
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 10
            status = None
            while time.time() < deadline:
                with contextlib.suppress(OSError):
                    status, body = get_json(f"http://127.0.0.1:{port}/health")
                    break
                time.sleep(0.1)
            assert status == code and body["ok"] is (code == 200), body
        finally:
            proc.stdin.close()
            proc.wait(timeout=10)


async def test_profiles_read_live_windows_built_from_their_fixtures(apps, server_env):
    # The hand-written fixtures as real GTK windows under the apps' names: extraction through AT-SPI.
    env = dict(server_env, MCP_CU_MODEL="none")
    async with client_for(env) as client:
        for kind, app, status, expect in [
            ("outline:claude_code/working", "Claude", "working",
             {"session": "Fix login flow", "branch": "fix/login-redirect", "context_used": "45%", "background_tasks": 2}),
            ("outline:claude_code/finished", "Claude", "finished",
             {"next_step": "update the expired-token fixture, then rerun the suite.",
              "files": ["src/auth/redirect.rs", "tests/login.rs"], "model": "Claude Sonnet 4.5"}),
            ("outline:codex_desktop/finished", "Codex", "finished",
             {"projects": ["acme-app", "infra"], "needs_attention": True, "mode": "Agent"}),
            ("outline:editor/failing", "Cursor", "error", {"project": "acme-app"}),
        ]:
            pid = apps.launch(kind)
            w = await window_of(client, pid)
            deadline = time.time() + 5  # a window that just appeared may still be laying out
            while True:
                err, res = await call(client, "look_at_screen", {"question": "Is it finished?", "app": w["id"]})
                assert not err, (kind, res)
                settled = res["status"] == status and all(res.get("details", {}).get(k) == v for k, v in expect.items())
                if settled or time.time() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert res["status"] == status, (kind, res)
            for key, value in expect.items():
                assert res["details"].get(key) == value, (kind, key, res["details"])
            if kind.endswith("failing"):
                assert any("2 errors in Problems" in f for f in res["details"]["failures"]), res
            assert "Stop" not in res["summary"] and res["model_used"] == "none", res


class _JunkModel(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server that answers every chat with the junk try-it once showed."""

    def log_message(self, *args):
        pass

    def _json(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._json({"data": [{"id": "junk"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        answer = {"summary": "1" + "0" * 159, "confidence": 1.0}
        self._json({"choices": [{"message": {"content": json.dumps(answer)}}]})


async def test_regression_a_degenerate_model_answer_is_never_passed_on(apps, server_env):
    """try-it's first answer was 160 characters of zeros with confidence 1.0: junk is replaced by
    the window's own text, without a confidence, and the hint says why."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _JunkModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        pid = apps.launch("calc")
        url = f"http://127.0.0.1:{server.server_address[1]}"
        env = dict(server_env, MCP_CU_LLM_API="openai", MCP_CU_OLLAMA_URL=url, MCP_CU_MODEL="junk")
        async with client_for(env) as client:
            w = await window_of(client, pid)
            err, res = await call(client, "look_at_screen", {"question": "What number does the display show?", "app": w["id"]})
            assert not err, res
            assert "0000000000" not in res["summary"] and "confidence" not in res, res
            assert "repeated itself and was discarded" in res["hint"], res
            assert res["model_used"] == "junk", res
    finally:
        server.shutdown()
