"""autoharness binding for mcp-computer-use (cua-auto-harness 0.5.0, Layer A).

The harness (package `autoharness`) audits an input path: it runs a Tk
"event oracle" probe fullscreen on an X display, asks the binding to inject
canonical actions (contracts.py), and compares what the probe received with
what was asked. This binding injects EVERY canonical action through our MCP
server, over stdio with the official MCP Python SDK, using only the tools
`gui_list` (find the probe window once), `gui_state` (a fresh single-use
state_id, and the window's current bounds) and `gui_action` (one call per
canonical action; several steps allowed).

    autoharness test --adapter scripts/harness/autoharness_mcp.py:mcp_computer_use \
        --no-tui --reps 1

Environment (all optional):
    AH_MCP_DISPLAY     X display number of a desktop already running (63)
    AH_MCP_DESKENV     env file of that desktop (/tmp/deskenv-$N/env)
    MCP_CU_BIN         the server binary (/tmp/mcu-harness-bin); run as `serve`
    AH_MCP_WORKDIR     where the probe copies, pid files and logs go (/tmp/ah-d$N)
    AH_MCP_PYTHON_DIR  a bin dir whose python3 has tkinter + python-xlib; put
                       first on PATH for the guest shell (the venv of this run)
    AH_MCP_CONFIRM     retry (default): a step the safety gate refuses with
                       DANGEROUS_ACTION_NEEDS_CONFIRMATION is retried ONCE with
                       confirm_dangerous=true on the same (unused) state, and
                       that is recorded; never: the refusal fails the rep;
                       always: DIAGNOSTIC ONLY, every gui_action is sent with
                       confirm_dangerous=true from the start (to see the
                       input path behind the gate).
    AH_MCP_SCREENSHOT  mcp (default): gui_state screenshot=true, with a raw
                       X root capture (python-xlib) only when our tool errors,
                       recorded; xlib: always the raw capture.

Environment isolation ("the guest" is this very machine, shared with other
sessions): the harness's fixed probe paths (/tmp/autoharness_*), fixed ports
(8791/8792) and its `pkill -f autoharness_probe` would collide with, or kill,
another session's probe. exec() rewrites those paths and ports to private ones
and replaces each pkill by a kill of the pid this binding recorded when it
launched the process. It never runs apt-get install (the python on PATH
already has tkinter and python-xlib).

Every tool call is logged to $AH_MCP_WORKDIR/mcp_calls.jsonl, and the counts
(per tool, per error code, gate confirmations, screenshot fallbacks) are
written to $AH_MCP_WORKDIR/mcp_stats.json at teardown.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from autoharness.adapters import SutExecutionError, UnsupportedActionError
from autoharness.backend import Backend, register_backend
from autoharness.contracts import (Action, ButtonPress, ButtonRelease, Click,
                                   Drag, KeyChord, Move, Scroll, TypeText,
                                   Wait, action_to_dict)

PROBE_TITLE = "autoharness-probe"

# canonical key name (contracts.KEY_NAMES and the catalog's extras) -> the key
# names our `key` step takes (X keysym style, docs/tools.md)
KEY_NAME = {
    "enter": "Return", "esc": "Escape", "tab": "Tab", "space": "space",
    "backspace": "BackSpace", "delete": "Delete", "insert": "Insert",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "home": "Home", "end": "End", "pageup": "Page_Up", "pagedown": "Page_Down",
    "minus": "minus", "equal": "equal", "grave": "grave",
    "backslash": "backslash", "slash": "slash", "semicolon": "semicolon",
    "apostrophe": "apostrophe", "comma": "comma", "period": "period",
    "bracketleft": "bracketleft", "bracketright": "bracketright",
    "kp_enter": "KP_Enter", "kp_add": "KP_Add", "kp_subtract": "KP_Subtract",
    "kp_multiply": "KP_Multiply", "kp_divide": "KP_Divide",
    "menu": "Menu", "caps_lock": "Caps_Lock", "num_lock": "Num_Lock",
    "scroll_lock": "Scroll_Lock", "print": "Print", "pause": "Pause",
    "ctrl": "ctrl", "shift": "shift", "alt": "alt", "super": "super",
}
for _i in range(1, 25):
    KEY_NAME[f"f{_i}"] = f"F{_i}"

MODIFIERS = {"ctrl", "shift", "alt", "super"}


def _key_name(name: str) -> str:
    if name in KEY_NAME:
        return KEY_NAME[name]
    if len(name) == 1 and name.isprintable() and name != "+":
        return name
    raise UnsupportedActionError(
        f"no key name of our `key` step for canonical key {name!r}")


def _mods(mods: List[str]) -> Optional[str]:
    for m in mods:
        if m not in MODIFIERS:
            raise UnsupportedActionError(f"unknown modifier {m!r}")
    return "+".join(mods) if mods else None


# --------------------------------------------------------------------------
# A persistent MCP stdio session, driven from synchronous code
# --------------------------------------------------------------------------

class McpSession:
    """One server process for the whole run (`<bin> serve`, stdio), the
    official SDK's ClientSession in a private event-loop thread."""

    def __init__(self, command: str, args: List[str], env: Dict[str, str],
                 errlog_path: str):
        self.command, self.args, self.env = command, args, env
        self.errlog_path = errlog_path
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever,
                                       daemon=True)
        self.session = None
        self._stop: Optional[asyncio.Event] = None
        self._main_fut = None
        self._ready = threading.Event()
        self._start_error: Optional[BaseException] = None

    async def _main(self):
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
        self._stop = asyncio.Event()
        params = StdioServerParameters(command=self.command, args=self.args,
                                       env=self.env)
        try:
            with open(self.errlog_path, "a", encoding="utf-8") as errlog:
                async with stdio_client(params, errlog=errlog) as (r, w):
                    async with ClientSession(r, w) as s:
                        await s.initialize()
                        self.session = s
                        self._ready.set()
                        await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            self._start_error = exc
            self._ready.set()
            raise

    def start(self, timeout: float = 60.0) -> None:
        self.thread.start()
        self._main_fut = asyncio.run_coroutine_threadsafe(self._main(),
                                                          self.loop)
        if not self._ready.wait(timeout) or self.session is None:
            raise RuntimeError(f"MCP server did not start: {self._start_error}"
                               f" (stderr: {self.errlog_path})")

    def call(self, tool: str, args: Dict[str, Any], timeout: float = 180.0):
        fut = asyncio.run_coroutine_threadsafe(
            self.session.call_tool(tool, args, read_timeout_seconds=timeout),
            self.loop)
        return fut.result(timeout + 10)

    def close(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
            try:
                self._main_fut.result(15)
            except Exception:
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class ToolError(Exception):
    def __init__(self, tool: str, code: str, message: str, payload: dict):
        super().__init__(f"{tool} answered {code}: {message}")
        self.tool, self.code, self.message, self.payload = (tool, code,
                                                            message, payload)


# --------------------------------------------------------------------------
# The backend
# --------------------------------------------------------------------------

def _free_port(preferred: int) -> int:
    for port in [preferred] + list(range(preferred + 2, preferred + 200, 2)):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free local port for the probe")


def _read_env_file(path: str) -> Dict[str, str]:
    """The variables a desktop env file exports, as bash sees them."""
    out = subprocess.run(["bash", "-c", f"set -a; . {path}; env -0"],
                         capture_output=True, check=True).stdout
    env = {}
    for item in out.split(b"\0"):
        if b"=" in item:
            k, _, v = item.partition(b"=")
            env[k.decode()] = v.decode(errors="replace")
    return env


@register_backend("mcp_computer_use")
class McpComputerUseBackend(Backend):
    """Our MCP server as the system under test (see the module docstring)."""

    probe_capabilities = frozenset({"pointer", "wheel", "keyboard", "text"})
    supports_raw_tap = True

    def __init__(self, env_dir: Optional[str] = None, **_ignored):
        self.display_num = os.environ.get("AH_MCP_DISPLAY", "63").lstrip(":")
        self.guest_display = f":{self.display_num}"
        self.deskenv = os.environ.get(
            "AH_MCP_DESKENV", f"/tmp/deskenv-{self.display_num}/env")
        self.bin = os.environ.get("MCP_CU_BIN", "/tmp/mcu-harness-bin")
        self.workdir = os.environ.get("AH_MCP_WORKDIR",
                                      f"/tmp/ah-d{self.display_num}")
        self.python_dir = os.environ.get(
            "AH_MCP_PYTHON_DIR", os.path.dirname(os.path.abspath(
                __import__("sys").executable)))
        self.confirm_policy = os.environ.get("AH_MCP_CONFIRM", "retry")
        self.shot_mode = os.environ.get("AH_MCP_SCREENSHOT", "mcp")
        self.session: Optional[McpSession] = None
        self.window_id: Optional[str] = None
        self.env: Dict[str, str] = {}
        self.stats = {
            "tool_calls": Counter(), "error_codes": Counter(),
            "error_codes_by_tool": Counter(), "gate_confirmations": [],
            "screenshots": Counter(), "reps": 0, "actions": Counter(),
            "sut_failures": [],
        }
        self._rep = 0
        self._calllog = None
        self._torn_down = False

    # -- paths / rewriting ------------------------------------------------

    def _paths(self) -> Dict[str, str]:
        w = self.workdir
        n = self.display_num
        return {
            # longest first: the .py/.jsonl/.out variants share prefixes
            "/tmp/autoharness_probe.py": f"{w}/ah{n}_app.py",
            "/tmp/autoharness_probe.out": f"{w}/ah{n}_app.out",
            "/tmp/autoharness_events.jsonl": f"{w}/ah{n}_app_events.jsonl",
            "/tmp/autoharness_raw.py": f"{w}/ah{n}_tap.py",
            "/tmp/autoharness_raw.jsonl": f"{w}/ah{n}_tap_events.jsonl",
            "/tmp/autoharness_raw.out": f"{w}/ah{n}_tap.out",
            "/tmp/autoharness_tk_apt.log": f"{w}/tk_apt.log",
            "/tmp/autoharness_xlib_apt.log": f"{w}/xlib_apt.log",
        }

    def _rewrite(self, cmd: str) -> str:
        """Map the harness's shared names onto this session's private ones."""
        for old, new in sorted(self._paths().items(), key=lambda kv: -len(kv[0])):
            cmd = cmd.replace(old, new)
        cmd = re.sub(r"(127\.0\.0\.1:|--port )8791\b",
                     lambda m: f"{m.group(1)}{self.app_port}", cmd)
        cmd = re.sub(r"(127\.0\.0\.1:|--port )8792\b",
                     lambda m: f"{m.group(1)}{self.raw_port}", cmd)
        # pkill by name could hit another session's probe: kill by our pid
        for name, pidf in (("autoharness_probe", "app.pid"),
                           ("autoharness_raw", "tap.pid")):
            cmd = re.sub(rf"pkill -f {name}\b",
                         f"{{ [ -s {self.workdir}/{pidf} ] && kill "
                         f"$(cat {self.workdir}/{pidf}) 2>/dev/null; }}", cmd)
        # remember the pid of what we launch in the background
        for script, pidf in ((f"ah{self.display_num}_app.py", "app.pid"),
                             (f"ah{self.display_num}_tap.py", "tap.pid")):
            if script in cmd and "nohup" in cmd and cmd.rstrip().endswith("&"):
                cmd = cmd.rstrip() + f" echo $! > {self.workdir}/{pidf}"
        return cmd

    # -- the six primitives -------------------------------------------------

    def boot(self) -> None:
        os.makedirs(self.workdir, exist_ok=True)
        if not os.path.isfile(self.deskenv):
            raise RuntimeError(
                f"no desktop env file {self.deskenv}: start the desktop first "
                f"(scripts/desktop/start-desktop.sh {self.display_num})")
        self.env = _read_env_file(self.deskenv)
        self.env["PATH"] = self.python_dir + ":" + self.env.get("PATH", "")
        self.env.pop("PYTHONHOME", None)
        rc = subprocess.run(["xdpyinfo", "-display", self.guest_display],
                            capture_output=True, env=self.env).returncode
        if rc != 0:
            raise RuntimeError(f"display {self.guest_display} is not up")
        self.app_port = _free_port(18700 + 2 * int(self.display_num))
        self.raw_port = _free_port(self.app_port + 1)
        self._calllog = open(os.path.join(self.workdir, "mcp_calls.jsonl"),
                             "a", encoding="utf-8")
        self._calllog.write(json.dumps({"event": "boot", "t": time.time(),
                                        "display": self.guest_display,
                                        "app_port": self.app_port,
                                        "raw_port": self.raw_port}) + "\n")
        server_env = dict(self.env)
        server_env.setdefault("MCP_CU_MODEL", "none")
        server_env.setdefault("MCP_CU_SESSIONS_DIR",
                              os.path.join(self.workdir, "sessions"))
        os.makedirs(server_env["MCP_CU_SESSIONS_DIR"], exist_ok=True)
        self.session = McpSession(self.bin, ["serve"], server_env,
                                  os.path.join(self.workdir, "server.stderr"))
        self.session.start()

    def exec(self, cmd: str, timeout: int = 120) -> Tuple[int, str]:
        if re.search(r"\bapt-get\s+install\b", cmd):
            # The python3 on PATH already has tkinter and python-xlib; never
            # install system packages behind the user's back.
            return 1, "apt-get install refused by the mcp_computer_use binding"
        real = self._rewrite(cmd)
        if f"127.0.0.1:{self.app_port}/reset" in real:
            self._rep += 1
            self.stats["reps"] = self._rep
            self._log({"event": "rep_start", "rep": self._rep})
        try:
            p = subprocess.run(["bash", "-c", real], env=self.env,
                               stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            return 124, (exc.stdout or b"").decode(errors="replace")
        return p.returncode, p.stdout.decode(errors="replace")

    def copy_in(self, local_path: str, guest_path: str) -> None:
        dst = self._rewrite(guest_path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(local_path, dst)

    def supports(self, action: Action) -> Optional[str]:
        try:
            self._translate(action, 0, 0)
        except UnsupportedActionError as exc:
            return str(exc)
        return None

    def inject(self, action: Action) -> None:
        if isinstance(action, Wait):
            time.sleep(action.seconds)
            return
        self.stats["actions"][action.kind] += 1
        window_id = self._probe_window()
        state = self._call("gui_state", {"window_id": window_id,
                                         "max_elements": 1})
        bounds = state["window"]["bounds"]
        steps = self._translate(action, bounds["x"], bounds["y"])
        args = {"window_id": window_id, "state_id": state["state_id"],
                "actions": steps}
        if self.confirm_policy == "always":
            # diagnostic mode only: every call pre-confirmed, recorded
            self.stats["gate_confirmations"].append({
                "rep": self._rep, "action": action_to_dict(action),
                "message": "pre-confirmed (AH_MCP_CONFIRM=always)"})
            args["confirm_dangerous"] = True
        first_refusal = None
        try:
            self._call("gui_action", args, action=action)
        except ToolError as exc:
            if (exc.code == "DANGEROUS_ACTION_NEEDS_CONFIRMATION"
                    and self.confirm_policy == "retry"):
                self.stats["gate_confirmations"].append({
                    "rep": self._rep, "action": action_to_dict(action),
                    "message": exc.message})
                first_refusal = exc
                try:
                    self._call("gui_action", {**args, "confirm_dangerous": True},
                               action=action)
                    return
                except ToolError as exc2:
                    exc = exc2
            what = str(exc)
            if first_refusal is not None and exc is not first_refusal:
                what = (f"{first_refusal}; the retry with confirm_dangerous="
                        f"true on the same state then got {exc}")
            self.stats["sut_failures"].append({
                "rep": self._rep, "action": action_to_dict(action),
                "code": exc.code, "message": what})
            raise SutExecutionError(what) from None

    def screenshot(self, dst_path: str) -> None:
        if self.shot_mode == "mcp":
            try:
                self._screenshot_mcp(dst_path)
                self.stats["screenshots"]["gui_state"] += 1
                return
            except ToolError as exc:
                self.stats["screenshots"][f"fallback_xlib_after_{exc.code}"] += 1
            except Exception as exc:  # noqa: BLE001
                self.stats["screenshots"][
                    f"fallback_xlib_after_{type(exc).__name__}"] += 1
        else:
            self.stats["screenshots"]["xlib"] += 1
        self._screenshot_xlib(dst_path)

    def teardown(self) -> None:
        if self._torn_down:
            return
        self._torn_down = True
        for pidf in ("app.pid", "tap.pid"):
            path = os.path.join(self.workdir, pidf)
            try:
                pid = int(open(path).read().strip())
                os.kill(pid, 15)
            except Exception:
                pass
        if self.session is not None:
            self.session.close()
        stats = {k: (dict(v) if isinstance(v, Counter) else v)
                 for k, v in self.stats.items()}
        stats["tool_calls_total"] = sum(self.stats["tool_calls"].values())
        with open(os.path.join(self.workdir, "mcp_stats.json"), "w",
                  encoding="utf-8") as f:
            json.dump(stats, f, indent=1, ensure_ascii=False)
        if self._calllog:
            self._calllog.close()

    # -- helpers ----------------------------------------------------------

    def _log(self, obj: dict) -> None:
        if self._calllog:
            obj.setdefault("t", round(time.time(), 3))
            self._calllog.write(json.dumps(obj, ensure_ascii=False) + "\n")
            self._calllog.flush()

    def _call(self, tool: str, args: Dict[str, Any],
              action: Optional[Action] = None, keep_images: bool = False):
        """One tool call; the JSON answer, or ToolError with its code."""
        self.stats["tool_calls"][tool] += 1
        t0 = time.time()
        res = self.session.call(tool, args)
        ms = round((time.time() - t0) * 1000)
        texts = [b.text for b in res.content if getattr(b, "type", "") == "text"]
        images = [b for b in res.content if getattr(b, "type", "") == "image"]
        payload: Dict[str, Any] = {}
        for t in texts:
            try:
                payload = json.loads(t)
                break
            except ValueError:
                continue
        is_error = bool(getattr(res, "is_error", False)
                        or getattr(res, "isError", False))
        err = payload.get("error") if isinstance(payload, dict) else None
        logged_args = dict(args)
        self._log({"rep": self._rep, "tool": tool, "args": logged_args,
                   "action": action_to_dict(action) if action else None,
                   "ms": ms, "is_error": is_error,
                   "answer": (texts[0][:1500] if texts else None),
                   "images": len(images)})
        if is_error or err:
            code = (err or {}).get("code", "UNKNOWN")
            self.stats["error_codes"][code] += 1
            self.stats["error_codes_by_tool"][f"{tool}:{code}"] += 1
            raise ToolError(tool, code, (err or {}).get("message",
                                                        " ".join(texts)[:300]),
                            payload)
        if keep_images:
            payload["_images"] = images
        return payload

    def _probe_window(self) -> str:
        if self.window_id is not None:
            return self.window_id
        deadline = time.time() + 20
        while time.time() < deadline:
            listing = self._call("gui_list", {})
            wins = [w for w in listing.get("windows", [])
                    if w.get("title") == PROBE_TITLE]
            if wins:
                self.window_id = wins[0]["id"]
                self._log({"event": "probe_window", "window": wins[0]})
                return self.window_id
            time.sleep(0.5)
        raise RuntimeError(f"gui_list does not list the {PROBE_TITLE} window")

    def _translate(self, action: Action, ox: int, oy: int) -> List[dict]:
        """One canonical action as the steps of ONE gui_action call.
        Screen coordinates become window-relative (minus the window origin)."""
        def pt(x, y):
            return {"x": int(x) - ox, "y": int(y) - oy}

        if isinstance(action, Click):
            step = {"type": "click", **pt(action.x, action.y),
                    "button": action.button}
            if action.count != 1:
                step["count"] = action.count
            mods = _mods(action.modifiers)
            if mods:
                step["modifiers"] = mods
            return [step]
        if isinstance(action, ButtonPress):
            return [{"type": "mouse_down", **pt(action.x, action.y),
                     "button": action.button}]
        if isinstance(action, ButtonRelease):
            return [{"type": "mouse_up", **pt(action.x, action.y),
                     "button": action.button}]
        if isinstance(action, Move):
            return [{"type": "move", **pt(action.x, action.y)}]
        if isinstance(action, Scroll):
            step = {"type": "scroll", **pt(action.x, action.y),
                    "dy": int(action.dy_ticks), "dx": int(action.dx_ticks)}
            mods = _mods(action.modifiers)
            if mods:
                step["modifiers"] = mods
            return [step]
        if isinstance(action, Drag):
            path = list(action.path)
            if len(path) < 2:
                raise UnsupportedActionError("a drag needs two points")
            mods = _mods(action.modifiers)
            if len(path) == 2:
                (x0, y0), (x1, y1) = path
                step = {"type": "drag", **pt(x0, y0),
                        "to_x": int(x1) - ox, "to_y": int(y1) - oy,
                        "button": action.button}
                if mods:
                    step["modifiers"] = mods
                return [step]
            # our drag step has a start and an end only: a path through
            # intermediate points is mouse_down, a move per point (paced by
            # step_delay_ms), mouse_up
            extra = {"modifiers": mods} if mods else {}
            steps = [{"type": "mouse_down", **pt(*path[0]),
                      "button": action.button, **extra}]
            for p in path[1:]:
                steps.append({"type": "wait", "ms": max(action.step_delay_ms, 10)})
                steps.append({"type": "move", **pt(*p), **extra})
            steps.append({"type": "mouse_up", **pt(*path[-1]),
                          "button": action.button, **extra})
            return steps
        if isinstance(action, KeyChord):
            if not action.keys:
                raise UnsupportedActionError("empty key chord")
            return [{"type": "key",
                     "keys": "+".join(_key_name(k) for k in action.keys)}]
        if isinstance(action, TypeText):
            return [{"type": "type", "text": action.text}]
        raise UnsupportedActionError(
            f"no gui_action translation for {type(action).__name__}")

    def _screenshot_mcp(self, dst_path: str) -> None:
        from PIL import Image
        window_id = self._probe_window()
        ans = self._call("gui_state", {"window_id": window_id,
                                       "max_elements": 1, "screenshot": True},
                         keep_images=True)
        images = ans.get("_images") or []
        if not images:
            raise RuntimeError("gui_state screenshot=true sent no image")
        img = Image.open(io.BytesIO(base64.b64decode(images[0].data)))
        img = img.convert("RGB")
        b = ans["window"]["bounds"]
        if img.size != (b["w"], b["h"]):
            img = img.resize((b["w"], b["h"]), Image.NEAREST)
        # the harness reads the HUD strip in screen coordinates
        canvas = Image.new("RGB", (max(b["x"] + b["w"], 1),
                                   max(b["y"] + b["h"], 1)))
        canvas.paste(img, (b["x"], b["y"]))
        canvas.save(dst_path, "PNG")

    def _screenshot_xlib(self, dst_path: str) -> None:
        from PIL import Image
        from Xlib import X, display
        d = display.Display(self.guest_display)
        try:
            root = d.screen().root
            g = root.get_geometry()
            raw = root.get_image(0, 0, g.width, g.height, X.ZPixmap,
                                 0xFFFFFFFF)
            Image.frombytes("RGB", (g.width, g.height), raw.data, "raw",
                            "BGRX").save(dst_path, "PNG")
        finally:
            d.close()


if __name__ == "__main__":
    # Smoke test against a probe that is already running on the display:
    #   python autoharness_mcp.py '{"kind":"click","x":960,"y":540}'
    import sys
    from autoharness.contracts import action_from_dict
    b = McpComputerUseBackend()
    b.boot()
    try:
        for arg in sys.argv[1:]:
            a = action_from_dict(json.loads(arg))
            print(a, "->", b._translate(a, 0, 0))
            try:
                b.inject(a)
                print("ok")
            except Exception as exc:  # noqa: BLE001
                print("ERROR", type(exc).__name__, exc)
    finally:
        b._torn_down = False
        b.session.close()
        print(json.dumps({k: (dict(v) if isinstance(v, Counter) else v)
                          for k, v in b.stats.items()}, indent=1))
