#!/usr/bin/env python3
"""(Copied from the workplace reference ../shared/llm/ollama_shim.py, so the tests need nothing
outside the project.)

Ollama-native API shim in front of llama.cpp's llama-server (stdlib only).

No registry package ships the real Ollama server, so this speaks the subset of
Ollama's native API a client needs and forwards generation to an
OpenAI-compatible llama-server:

  GET  /api/version, /api/tags, /api/ps
  POST /api/chat, /api/generate   (stream true/false, format "json" or a JSON schema,
                                   options.temperature/num_predict/seed/top_p/top_k/stop,
                                   keep_alive: seconds, "5m", "1h", "0", -1)
  empty messages / empty prompt   -> load ("done_reason": "load"); with keep_alive 0 -> unload
                                     ("done_reason": "unload"), as Ollama does.

Two modes:
  --spawn "llama-server -m M.gguf ..."  the shim starts llama-server on first use (on a private
                                       port it appends), stops it when keep_alive expires or on
                                       keep_alive 0, so /api/ps and memory reflect a real load/unload.
  --upstream http://127.0.0.1:8080     proxy to an already-running server; load/unload is
                                       bookkeeping only.

Usage:
  python3 ollama_shim.py --port 11434 --model-name smollm2:135m \
      --spawn "/path/llama-server -m /path/SmolLM2.gguf -c 4096 -t 2"
Ollama durations are nanoseconds; unknown model names get 404 {"error": "model 'x' not found"}.
"""
import argparse, json, re, shlex, signal, socket, subprocess, threading, time, urllib.request, urllib.error
from datetime import datetime, timezone, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

A = None
LOCK = threading.RLock()
STATE = {"proc": None, "loaded": False, "expires": None, "upstream": None, "size": 0}


def now_iso(dt=None):
    return (dt or datetime.now(timezone.utc)).isoformat().replace("+00:00", "Z")


def parse_keep_alive(v):
    """-> seconds (float), None = forever. Ollama default 5m."""
    if v is None:
        return 300.0
    if isinstance(v, (int, float)):
        return None if v < 0 else float(v)
    s = str(v).strip()
    if re.fullmatch(r"-?\d+(\.\d+)?", s):
        f = float(s)
        return None if f < 0 else f
    total, found = 0.0, False
    for num, unit in re.findall(r"(-?\d+(?:\.\d+)?)(ms|h|m|s)", s):
        found = True
        total += float(num) * {"h": 3600, "m": 60, "s": 1, "ms": 0.001}[unit]
    if not found:
        raise ValueError(f"invalid keep_alive {v!r}")
    return None if total < 0 else total


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(method, url, body=None, timeout=600):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=timeout)


def ensure_loaded():
    """Returns load duration in seconds (0 if already loaded)."""
    with LOCK:
        if STATE["loaded"] and (A.upstream or (STATE["proc"] and STATE["proc"].poll() is None)):
            return 0.0
        t0 = time.monotonic()
        if A.upstream:
            STATE["upstream"] = A.upstream.rstrip("/")
        else:
            port = free_port()
            cmd = shlex.split(A.spawn) + ["--host", "127.0.0.1", "--port", str(port)]
            STATE["proc"] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            STATE["upstream"] = f"http://127.0.0.1:{port}"
            while True:
                if STATE["proc"].poll() is not None:
                    raise RuntimeError(f"llama-server exited rc={STATE['proc'].returncode}")
                try:
                    with http_json("GET", STATE["upstream"] + "/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except Exception:
                    pass
                if time.monotonic() - t0 > A.load_timeout:
                    unload()
                    raise RuntimeError("llama-server did not become healthy")
                time.sleep(0.05)
        STATE["loaded"] = True
        return time.monotonic() - t0


def unload():
    with LOCK:
        p = STATE["proc"]
        if p and p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        STATE.update(proc=None, loaded=False, expires=None)


def touch(keep_alive):
    ka = parse_keep_alive(keep_alive)
    with LOCK:
        if ka == 0:
            unload()
        else:
            STATE["expires"] = None if ka is None else time.monotonic() + ka


def reaper():
    while True:
        time.sleep(0.5)
        with LOCK:
            if STATE["loaded"] and STATE["expires"] is not None and time.monotonic() >= STATE["expires"]:
                unload()


def model_entry(ps=False):
    e = {"name": A.model_name, "model": A.model_name, "size": A.model_size, "digest": "0" * 64,
         "details": {"format": "gguf", "family": A.family, "families": [A.family], "parameter_size": A.parameter_size,
                     "quantization_level": A.quantization}}
    if ps:
        exp = STATE["expires"]
        e["expires_at"] = now_iso(datetime.now(timezone.utc) + timedelta(seconds=exp - time.monotonic())) if exp else "2318-01-01T00:00:00Z"
        e["size_vram"] = 0
        e["context_length"] = A.ctx
    else:
        e["modified_at"] = now_iso()
    return e


def oai_body(req, messages):
    o = req.get("options") or {}
    b = {"messages": messages, "stream": bool(req.get("stream", True))}
    for src, dst in [("temperature", "temperature"), ("num_predict", "max_tokens"), ("seed", "seed"),
                     ("top_p", "top_p"), ("top_k", "top_k"), ("stop", "stop"), ("repeat_penalty", "repeat_penalty")]:
        if src in o:
            b[dst] = o[src]
    fmt = req.get("format")
    if fmt == "json":
        b["response_format"] = {"type": "json_object"}
    elif isinstance(fmt, dict):
        b["response_format"] = {"type": "json_schema", "json_schema": {"name": "format", "schema": fmt}}
    if b["stream"]:
        b["stream_options"] = {"include_usage": True}
    return b


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        if A.verbose:
            super().log_message(*a)

    def send_json(self, code, obj):
        raw = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_HEAD(self):
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()

    def do_GET(self):
        if self.path in ("/", ""):
            raw = b"Ollama is running"
            self.send_response(200); self.send_header("Content-Length", str(len(raw))); self.end_headers(); self.wfile.write(raw)
        elif self.path == "/api/version":
            self.send_json(200, {"version": "0.0.0-shim"})
        elif self.path == "/api/tags":
            self.send_json(200, {"models": [model_entry()]})
        elif self.path == "/api/ps":
            with LOCK:
                self.send_json(200, {"models": [model_entry(ps=True)] if STATE["loaded"] else []})
        else:
            self.send_json(404, {"error": "not found"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            req = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            return self.send_json(400, {"error": "invalid JSON"})
        if self.path not in ("/api/chat", "/api/generate"):
            return self.send_json(404, {"error": "not found"})
        chat = self.path == "/api/chat"
        if req.get("model") != A.model_name:
            return self.send_json(404, {"error": f"model '{req.get('model')}' not found"})
        try:
            parse_keep_alive(req.get("keep_alive"))
        except ValueError as e:
            return self.send_json(400, {"error": str(e)})
        if chat:
            messages = [{"role": m.get("role"), "content": m.get("content", "")} for m in req.get("messages") or []]
        else:
            messages = ([{"role": "system", "content": req["system"]}] if req.get("system") else [])
            if req.get("prompt"):
                messages.append({"role": "user", "content": req["prompt"]})
        empty = not (req.get("messages") if chat else req.get("prompt"))
        t_start = time.monotonic()
        if empty:  # load / unload request
            if parse_keep_alive(req.get("keep_alive")) == 0:
                unload()
                reason = "unload"
            else:
                try:
                    ensure_loaded()
                except RuntimeError as e:
                    return self.send_json(500, {"error": str(e)})
                touch(req.get("keep_alive"))
                reason = "load"
            out = {"model": A.model_name, "created_at": now_iso(), "done": True, "done_reason": reason}
            out.update({"message": {"role": "assistant", "content": ""}} if chat else {"response": ""})
            return self.send_json(200, out)
        try:
            load_s = ensure_loaded()
        except RuntimeError as e:
            return self.send_json(500, {"error": str(e)})
        body = oai_body(req, messages)
        try:
            up = http_json("POST", STATE["upstream"] + "/v1/chat/completions", body)
        except urllib.error.HTTPError as e:
            return self.send_json(e.code, {"error": e.read().decode("utf-8", "replace")[:500]})
        except Exception as e:
            return self.send_json(502, {"error": str(e)})
        ns = lambda s: int(s * 1e9)
        def final(content, usage, timings, reason):
            t = timings or {}
            d = {"model": A.model_name, "created_at": now_iso(), "done": True, "done_reason": reason or "stop",
                 "total_duration": ns(time.monotonic() - t_start), "load_duration": ns(load_s),
                 "prompt_eval_count": (usage or {}).get("prompt_tokens", t.get("prompt_n", 0)),
                 "prompt_eval_duration": int(t.get("prompt_ms", 0) * 1e6),
                 "eval_count": (usage or {}).get("completion_tokens", t.get("predicted_n", 0)),
                 "eval_duration": int(t.get("predicted_ms", 0) * 1e6)}
            d.update({"message": {"role": "assistant", "content": content}} if chat else {"response": content})
            return d
        with up:
            if not body["stream"]:
                j = json.loads(up.read())
                ch = j["choices"][0]
                reason = "length" if ch.get("finish_reason") == "length" else "stop"
                res = final(ch["message"].get("content") or "", j.get("usage"), j.get("timings"), reason)
                touch(req.get("keep_alive"))
                return self.send_json(200, res)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            def emit(obj):
                raw = json.dumps(obj).encode() + b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(raw), raw)); self.wfile.flush()
            usage, timings, reason = None, None, None
            for line in up:
                line = line.strip()
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    break
                j = json.loads(data)
                usage = j.get("usage") or usage
                timings = j.get("timings") or timings
                for ch in j.get("choices") or []:
                    reason = ch.get("finish_reason") or reason
                    piece = (ch.get("delta") or {}).get("content")
                    if piece:
                        msg = {"model": A.model_name, "created_at": now_iso(), "done": False}
                        msg.update({"message": {"role": "assistant", "content": piece}} if chat else {"response": piece})
                        emit(msg)
            emit(final("", usage, timings, "length" if reason == "length" else "stop"))
            self.wfile.write(b"0\r\n\r\n"); self.wfile.flush()
            touch(req.get("keep_alive"))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=11434)
    ap.add_argument("--model-name", required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--spawn", help="llama-server command line without --host/--port")
    g.add_argument("--upstream", help="base URL of a running OpenAI-compatible server")
    ap.add_argument("--model-size", type=int, default=0)
    ap.add_argument("--family", default="llama")
    ap.add_argument("--parameter-size", default="")
    ap.add_argument("--quantization", default="")
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--load-timeout", type=float, default=120)
    ap.add_argument("--verbose", action="store_true")
    A = ap.parse_args()
    threading.Thread(target=reaper, daemon=True).start()
    def _stop(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, _stop)  # so the finally below stops a spawned llama-server
    srv = ThreadingHTTPServer((A.host, A.port), H)
    print(f"ollama shim on http://{A.host}:{A.port} model={A.model_name}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        unload()


if __name__ == "__main__":
    main()
