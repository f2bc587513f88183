"""click and type_text by visible label, through the official MCP SDK against the real binary, on
real windows: gnome-calculator (English and Hebrew), a Hebrew GTK fixture, a Qt line edit, Firefox
and Chromium inputs. Also the CLI's --click/--click-steps/--type and `open`."""
import asyncio
import json
import subprocess
import time

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, eventually, observe, window_of

pytestmark = pytest.mark.anyio

HEBREW_FORM = "טופס בדיקה"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def connect(server_env):
    return lambda: Client(StdioServerParameters(command=BIN, args=[], env=server_env), read_timeout_seconds=60)


async def test_calculator_steps_by_digits_symbols_and_synonyms(connect, apps):
    pid = apps.launch("calc")
    async with connect() as client:
        w = await window_of(client, pid)
        app = w["id"]  # two calculators may be open on the test desktop; the id names this one
        sequences = [["7", "×", "6", "="], ["seven", "multiply", "six", "equals"],
                     ["שבע", "כפול", "שש", "שווה"], ["7", "*", "6", "="]]
        for steps in sequences:
            err, res = await call(client, "click", {"app": app, "steps": steps})
            assert not err, res
            assert [r["target"] for r in res["results"]] == steps
            assert [r["name"] for r in res["results"]] == ["7", "×", "6", "="]
            # After the first calculation the history shows a label "=": the button still wins.
            assert [r["role"] for r in res["results"]] == ["button"] * 4, res
            assert all(r["via"] == "semantic" and r["effect"] == "changed" for r in res["results"]), res
            if steps[0] != "7":
                assert {r["how"] for r in res["results"]} == {"synonym"}
            await eventually(client, w["id"], lambda t: 'text_area ="42"' in t, "42 on the display")
            # Start the next sequence from another value, so each one shows its own 42.
            err, res = await call(client, "click", {"app": app, "target": "0"})
            assert not err, res
            await eventually(client, w["id"], lambda t: 'text_area ="0"' in t, "0 on the display")


async def test_hebrew_calculator_by_its_localized_title(connect, apps):
    pid = apps.launch("calc-he")
    async with connect() as client:
        w = await window_of(client, pid)
        assert w["title"] == "מחשבון"
        windows = (await call(client, "gui_list", {}))[1]["windows"]
        if sum(x["title"] == "מחשבון" for x in windows) > 1:
            pytest.fail("another Hebrew calculator is open on the test desktop")
        err, res = await call(client, "click", {"app": "מחשבון", "steps": ["שבע", "כפול", "שש", "שווה"]})
        assert not err, res
        assert res["window_id"] == w["id"] and res["title"] == "מחשבון"
        await eventually(client, w["id"], lambda t: 'text_area ="42"' in t, "42 on the display")


async def status_of(client, window_id):
    for line in (await observe(client, window_id))["outline"].splitlines():
        if 'label "נלחץ:' in line or 'label "מצב:' in line:
            return line.split('"')[1]
    raise AssertionError("no status line")


async def test_hebrew_labels_normalized_and_the_gate(connect, apps, sessions_dir):
    pid = apps.launch("hebrew")
    async with connect() as client:
        w = await window_of(client, pid)
        for said, pressed, how in [("שמור", "שְׁמוֹר", "normalized"), ("צ'ק אין", "צ׳ק־אין", "normalized"),
                                   ('דו"ח שנתי', "דו״ח שנתי", "normalized"), ("הצג כאשר מוכן", "הצג כאשר מוכן", "exact"),
                                   ("כפתור שְׁמוֹר", "שְׁמוֹר", "exact")]:
            err, res = await call(client, "click", {"app": HEBREW_FORM, "target": said})
            assert not err, (said, res)
            assert res["results"][0]["name"] == pressed and res["results"][0]["how"] == how, res
            assert await status_of(client, w["id"]) == "נלחץ: " + pressed

        # "שלח" is refused without confirmation, before anything is observed or pressed.
        err, res = await call(client, "click", {"app": HEBREW_FORM, "target": "שלח"})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
        assert res["error"]["details"]["matched_rule"] == "שלח"
        assert await status_of(client, w["id"]) == "נלחץ: שְׁמוֹר"
        # Named by its toolkit id, which holds no blocked word: the resolved name is checked too.
        err, res = await call(client, "click", {"app": HEBREW_FORM, "target": "btn-go"})
        assert err and res["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION", res
        assert res["error"]["details"]["would_click"] == {"name": "שלח", "role": "button"}
        err, res = await call(client, "click", {"app": HEBREW_FORM, "target": "שלח", "confirm_dangerous": True})
        assert not err, res
        assert await status_of(client, w["id"]) == "נלחץ: שלח"

        # Ambiguous and weak targets return candidates and press nothing.
        err, res = await call(client, "click", {"app": HEBREW_FORM, "target": "פתח"})
        assert err and res["error"]["code"] == "TARGET_AMBIGUOUS", res
        assert [c["name"] for c in res["error"]["details"]["candidates"]] == ["פתח", "פתח"]
        err, res = await call(client, "click", {"app": HEBREW_FORM, "target": "הגדרות"})
        assert err and res["error"]["code"] == "TARGET_AMBIGUOUS", res
        cands = res["error"]["details"]["candidates"]
        assert cands[0] == {**cands[0], "name": "הגדרות מתקדמות", "how": "contains"} and len(cands) <= 5
        err, res = await call(client, "click", {"app": HEBREW_FORM, "target": "הגדרות מתקדמת"})
        assert err and res["error"]["code"] == "TARGET_AMBIGUOUS" and res["error"]["details"]["candidates"][0]["how"] == "fuzzy"
        assert await status_of(client, w["id"]) == "נלחץ: שלח"

    log = [json.loads(line) for line in (sessions_dir / "actions.log").read_text().splitlines()]
    clicks = [r for r in log if r.get("action") == "click"]
    assert any(r.get("result") == "refused" and r.get("error_code") == "DANGEROUS_ACTION_NEEDS_CONFIRMATION" for r in clicks)
    assert any(r.get("result") == "ok" and r.get("name") == "שלח" and r.get("confirmed") for r in clicks)


async def test_bad_targets_are_rejected_with_codes(connect, apps):
    pid = apps.launch("hebrew")
    async with connect() as client:
        await window_of(client, pid)
        for target in ["@e3", "x" * 201, "   "]:
            err, res = await call(client, "click", {"app": HEBREW_FORM, "target": target})
            assert err and res["error"]["code"] == "INVALID_TARGET", (target, res)
        err, res = await call(client, "click", {"app": HEBREW_FORM, "steps": ["1"] * 11})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT"
        err, res = await call(client, "click", {"app": HEBREW_FORM, "target": "No such button"})
        assert err and res["error"]["code"] == "ELEMENT_NOT_FOUND"
        assert "שלח" in res["error"]["details"]["labels"]
        err, res = await call(client, "click", {"app": "No Such App", "target": "OK"})
        assert err and res["error"]["code"] == "APP_NOT_FOUND"
        assert HEBREW_FORM in [w["title"] for w in res["error"]["details"]["windows"]]
        err, res = await call(client, "type_text", {"app": HEBREW_FORM, "target": "שם", "text": "x" * 2001})
        assert err and res["error"]["code"] == "TEXT_TOO_LONG"
        err, res = await call(client, "type_text", {"app": HEBREW_FORM, "target": "שם", "text": "two\nlines"})
        assert err and res["error"]["code"] == "INVALID_ARGUMENT", "a newline would press Enter"


async def type_and_read_back(client, app, target, window_id, field_line):
    text = "Hello שלום 123"
    err, res = await call(client, "type_text", {"app": app, "target": target, "text": text})
    assert not err, res
    assert res["verified"] is True and res["chars"] == len(text), res
    assert text not in json.dumps(res, ensure_ascii=False), "the typed text is never echoed"
    await eventually(client, window_id, lambda t: f'{field_line} ="{text}"' in t, f"{text!r} in the field")
    # Replacing, not appending.
    err, res = await call(client, "type_text", {"app": app, "target": target, "text": "second"})
    assert not err, res
    await eventually(client, window_id, lambda t: f'{field_line} ="second"' in t, "replaced text")
    return res


async def test_type_text_into_gtk_qt_firefox_and_chromium(connect, apps, sessions_dir):
    pids = {kind: apps.launch(kind) for kind in ["hebrew", "qt5", "firefox", "chromium"]}
    async with connect() as client:
        w = {kind: await window_of(client, pid, timeout=40) for kind, pid in pids.items()}
        for browser in ["firefox", "chromium"]:  # the window comes before its page
            await eventually(client, w[browser]["id"], lambda t: 'text_input "Name"' in t, "the page", timeout=30)
        gtk = await type_and_read_back(client, HEBREW_FORM, "שם", w["hebrew"]["id"], "text_input")
        assert gtk["name"] == "שם:" and gtk["via"] == "semantic"
        # The fixture has one field: a bare role word names it.
        err, res = await call(client, "type_text", {"app": HEBREW_FORM, "target": "שדה", "text": "role word"})
        assert not err and res["how"] == "role", res
        await type_and_read_back(client, w["qt5"]["id"], "Name entry", w["qt5"]["id"], 'text_input "Name entry"')
        firefox = await type_and_read_back(client, w["firefox"]["id"], "Name", w["firefox"]["id"], 'text_input "Name"')
        chromium = await type_and_read_back(client, w["chromium"]["id"], "field Name", w["chromium"]["id"], 'text_input "Name"')
        # Firefox ignores EditableText and Chromium has none: both are typed, then read back.
        assert firefox["via"] == "keyboard" and chromium["via"] == "keyboard"
    log = (sessions_dir / "actions.log").read_text()
    assert "שלום" not in log and "second" not in log
    types = [json.loads(line) for line in log.splitlines() if '"type_text"' in line]
    assert len(types) >= 9 and all(r["result"] == "ok" and r["text_len"] > 0 for r in types)


def cli(*args, env):
    out = subprocess.run([BIN, *args], capture_output=True, text=True, env=env, timeout=60)
    return out.returncode, out.stdout


async def test_cli_click_type_and_open(apps, server_env):
    pid = apps.launch("hebrew")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env)) as client:
        await window_of(client, pid)
    env = server_env
    code, out = cli("--click", HEBREW_FORM, "שמור", env=env)
    assert code == 0 and json.loads(out)["results"][0]["name"] == "שְׁמוֹר", out
    code, out = cli("--click", HEBREW_FORM, "שלח", env=env)
    assert code == 1 and json.loads(out)["error"]["code"] == "DANGEROUS_ACTION_NEEDS_CONFIRMATION"
    code, out = cli("--click", HEBREW_FORM, "שלח", "--confirm-dangerous", env=env)
    assert code == 0, out
    code, out = cli("--click-steps", HEBREW_FORM, "שמור", "פתח", env=env)
    err = json.loads(out)["error"]
    assert code == 1 and err["code"] == "TARGET_AMBIGUOUS" and len(err["details"]["completed"]) == 1, out
    code, out = cli("--type", HEBREW_FORM, "שם", "cli text", env=env)
    assert code == 0 and json.loads(out)["verified"] is True, out
    code, out = cli("--click", HEBREW_FORM, "@e1", env=env)
    assert code == 1 and json.loads(out)["error"]["code"] == "INVALID_TARGET"

    # open: a new window comes, is verified, and is named for the other tools.
    code, out = cli("open", "zenity", "--args", "--entry", "--title=Opened by test", "--text=Value:", env=env)
    assert code == 0, out
    assert out.count("\n") == 1, "one JSON line"
    opened = json.loads(out)
    try:
        assert opened["ok"] and opened["verified"] and opened["app"] == "Opened by test", opened
        assert opened["process"] == "zenity" and opened["seconds"] < 15
        code, out = cli("--type", opened["app"], "Value", "typed", env=env)
        assert code == 0, out
    finally:
        subprocess.run(["kill", str(opened.get("pid", 0))], check=False)
    code, out = cli("open", "true", "--timeout", "1.5", env=env)
    failed = json.loads(out)
    assert code == 1 and not failed["ok"] and failed["error"]["code"] == "TIMEOUT", out
    assert "new_windows_seen" in failed and "frontmost" in failed
    code, out = cli("open", "no-such-program-for-test", env=env)
    assert code == 1 and json.loads(out)["error"]["code"] == "APP_NOT_FOUND", out
