#!/usr/bin/env python3
"""(Copied from the workplace reference ../shared/llm/xllamacpp_server.py.)

Run llama.cpp's HTTP server (embedded via the PyPI wheel `xllamacpp`) on loopback.
Usage: python xllamacpp_server.py MODEL.gguf [PORT] [N_CTX]
       python xllamacpp_server.py -m MODEL.gguf [-c N_CTX] [-t THREADS] [--host H] [--port P]
The second form matches llama-server's flags, so ollama_shim.py --spawn can start it.
Serves /health, /v1/models, /v1/chat/completions, ... like llama-server. SIGTERM/Ctrl-C stops it.
"""
import argparse, signal, sys, threading
import xllamacpp as xlc

ap = argparse.ArgumentParser()
ap.add_argument("model_pos", nargs="?")
ap.add_argument("port_pos", nargs="?", type=int)
ap.add_argument("ctx_pos", nargs="?", type=int)
ap.add_argument("-m", "--model")
ap.add_argument("-c", "--ctx-size", type=int)
ap.add_argument("-t", "--threads", type=int, default=2)
ap.add_argument("--host", default="127.0.0.1")
ap.add_argument("--port", type=int)
a = ap.parse_args()
model = a.model or a.model_pos
if not model:
    sys.exit("usage: xllamacpp_server.py MODEL.gguf [PORT] [N_CTX]  |  -m MODEL [--port P]")
port = a.port or a.port_pos or 18080
n_ctx = a.ctx_size or a.ctx_pos or 4096

p = xlc.CommonParams()
p.model.path = model
p.n_ctx = n_ctx
p.hostnames = [a.host]
p.port = port
p.n_parallel = 1
p.offline = True          # never try to reach a model hub
p.ui = False              # no web UI
p.endpoint_props = True
p.endpoint_metrics = True
p.cpuparams.n_threads = a.threads
p.cpuparams_batch.n_threads = a.threads
server = xlc.Server(p)
print("listening:", server.listening_address, flush=True)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
signal.signal(signal.SIGINT, lambda *_: stop.set())
stop.wait()
