"""The CLI's state and act in separate processes, and the audit log under concurrent writers."""
import concurrent.futures
import json
import os
import re
import subprocess

from conftest import BIN


def run(args, env):
    out = subprocess.run([BIN, *args], env=env, capture_output=True, text=True, timeout=60)
    return out.returncode, out.stdout


def test_state_then_act_in_two_processes_works_once(server_env, apps):
    pid = apps.launch("calc")
    code, listing = run(["list"], server_env)
    assert code == 0, listing
    window = next(w["id"] for w in json.loads(listing)["windows"] if w.get("pid") == pid)
    code, state = run(["state", window], server_env)
    assert code == 0, state
    state_id = re.match(r"state_id: (s[0-9a-f]{12})", state).group(1)
    seven = re.search(r'^\s*(e\d+) button "7"', state, re.M).group(1)
    actions = json.dumps([{"type": "click", "element_id": seven}])
    code, out = run(["act", window, state_id, actions], server_env)
    assert code == 0, out
    assert json.loads(out)["results"][0]["how"] == "semantic"
    code, out = run(["act", window, state_id, actions], server_env)
    assert code == 1 and json.loads(out)["error"]["code"] == "STATE_ALREADY_USED", out


def test_call_runs_any_tool_in_process_with_its_checks(server_env, apps):
    pid = apps.launch("calc")
    code, listing = run(["list"], server_env)
    window = next(w["id"] for w in json.loads(listing)["windows"] if w.get("pid") == pid)
    code, out = run(["call", "click", json.dumps({"app": window, "steps": ["6", "×", "7", "="],
                                                    "expect": {"until": "value_is", "role": "text_area", "text": "42"}})],
                    server_env)
    assert code == 0 and json.loads(out)["expect"]["outcome"] == "satisfied", out
    code, out = run(["call", "gui_wait", json.dumps({"condition": {"until": "window_appears", "text": "no such title"},
                                                       "timeout_ms": 300})], server_env)
    assert code == 0 and json.loads(out)["outcome"] == "unsatisfied", out
    code, out = run(["call", "gui_open", '{"program": "bash"}'], server_env)
    assert code == 1 and json.loads(out)["error"]["code"] == "PROGRAM_NOT_ALLOWED", out
    # Bad input is a usage error (exit 2), as everywhere on the command line.
    code, out = run(["call", "gui_list", "[1, 2]"], server_env)
    assert code == 2 and json.loads(out)["error"]["code"] == "INVALID_ARGUMENT", out
    code, out = run(["call", "no_such_tool"], server_env)
    assert code == 2 and json.loads(out)["error"]["code"] == "INVALID_ARGUMENT", out


def test_concurrent_processes_lose_no_audit_line(server_env, sessions_dir, desktop):
    # Refused calls are logged too: 8 processes x 12 calls each, all at once.
    def worker(i):
        for _ in range(12):
            code, out = run(["act", "x11:0x1", "s%012x" % i, '[{"type":"wait","ms":1}]'], server_env)
            assert code == 1 and json.loads(out)["error"]["code"] in ("STATE_EXPIRED", "GUI_UNAVAILABLE")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    lines = (sessions_dir / "actions.log").read_text().splitlines()
    assert len(lines) == 96
    for line in lines:
        record = json.loads(line)
        assert record["result"] == "refused" and record["action"] == "gui_action"


def test_selftest_passes_on_the_desktop_and_leaves_no_window_behind(server_env):
    """`selftest` (first contact on a new OS) on the test desktop: every check passes, the report
    names the backend and the scale, and the windows it opened are gone afterwards."""
    before = {w["id"] for w in json.loads(run(["list"], server_env)[1])["windows"]}
    out = subprocess.run([BIN, "selftest", "--json"], env=server_env, capture_output=True, text=True, timeout=240)
    report = json.loads(out.stdout)
    failed = [c for c in report["checks"] if not c["ok"]]
    assert out.returncode == 0 and report["ok"] and not failed, failed or out.stderr[-2000:]
    names = [c["name"] for c in report["checks"]]
    for expected in ("7 × 6 = by element ids", "observe: the display shows 42", "7 × 6 = by label",
                     "a click at an element's point lands on it", "capture: the image is the window",
                     "type non-ASCII text, read it back", "close the editor (don't save)"):
        assert expected in names, names
    assert report["backend"]["name"].startswith("linux") and report["scale"] > 0, report
    after = {w["id"] for w in json.loads(run(["list"], server_env)[1])["windows"]}
    assert after <= before, f"selftest left windows open: {after - before}"
    # The table a person reads says the same.
    table = subprocess.run([BIN, "selftest"], env=server_env, capture_output=True, text=True, timeout=240)
    assert table.returncode == 0 and "all checks passed" in table.stdout, table.stdout
