#!/usr/bin/env bash
# container-test.sh [BINARY] — builds the worker image (packaging/container/build-image.sh) and
# runs it the way the Kubernetes manifest does (read-only root, /tmp on tmpfs, a home of its own, user
# 1000, no capabilities), then checks it from outside: the worker's announcement, /health, a
# gui_list through this binary as the controller ([machines.box], the pinned fingerprint) that
# sees the baked-in Calculator, and a stop that ends at once. Prints the timings and the
# container's memory. Needs root, debootstrap, podman and runc (Debian's packages); not part of
# .ci/run (the image takes ~3 minutes to build; docs/fleet.md says what ran here).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${1:-${MCP_CU_BIN:-$ROOT/target/release/mcp-computer-use}}"
WORK="${MCP_CU_IMAGE_WORK:-/var/tmp/mcp-cu-image}"
mkdir -p "$WORK"
# runc, and limits within what an unprivileged sandbox's conmon may set (podman asks for more;
# crun refuses hybrid cgroup v1/v2 hosts): harmless elsewhere.
printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\n' > "$WORK/containers.conf"
export CONTAINERS_CONF="$WORK/containers.conf"
IMAGE=$("$ROOT/packaging/container/build-image.sh" "$BIN")
TMP="$(mktemp -d)"
NAME="mcp-cu-test-$$"
cleanup() { podman rm -f "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
openssl rand -hex 32 | tr -d '\n' > "$TMP/token"
chmod 644 "$TMP/token"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
t0=$(date +%s%3N)
# The home is a directory of the host owned by the user, as Kubernetes' emptyDir with fsGroup is
# (podman 4.3 with runc does not apply a tmpfs's mode: it stays root's 755).
mkdir -p "$TMP/home" && chown 1000:1000 "$TMP/home"
podman run -d --name "$NAME" --user 1000:1000 --read-only --tmpfs /tmp -v "$TMP/home:/home/desk" \
  --cap-drop ALL --security-opt no-new-privileges -p "127.0.0.1:$PORT:8443" \
  -v "$TMP/token:/run/secrets/worker.token:ro" -e DESKTOP_APPS=gnome-calculator "$IMAGE" >/dev/null
# (grep without -q: an early exit would break the pipe, and pipefail would call it a miss)
for _ in $(seq 200); do podman logs "$NAME" 2>/dev/null | grep '"listening"' >/dev/null && break; sleep 0.1; done
LINE=$(podman logs "$NAME" 2>/dev/null | grep '"listening"' | tail -1 || true)
[ -n "$LINE" ] || { podman logs "$NAME" | tail -20; echo "FAIL: the worker never announced itself" >&2; exit 1; }
FP=$(printf '%s' "$LINE" | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
curl -sfk "https://127.0.0.1:$PORT/health" | grep '"version"' >/dev/null || { echo "FAIL: /health" >&2; exit 1; }
printf '[machines.box]\nurl = "https://127.0.0.1:%s/mcp"\ntoken_file = "%s"\nfingerprint = "%s"\ntimeout_seconds = 20\n' \
  "$PORT" "$TMP/token" "$FP" > "$TMP/controller.toml"
seen=""
for _ in $(seq 100); do
  out=$(MCP_CU_CONFIG="$TMP/controller.toml" MCP_CU_SESSIONS_DIR="$TMP/s" "$BIN" call gui_list '{"machine":"box"}' 2>/dev/null || true)
  if printf '%s' "$out" | grep '"title": *"Calculator"' >/dev/null; then seen=1; break; fi
  sleep 0.1
done
t1=$(date +%s%3N)
[ -n "$seen" ] || { echo "FAIL: no Calculator through the controller: $out" >&2; exit 1; }
MEM=$(podman stats --no-stream --format '{{.MemUsage}}' "$NAME" 2>/dev/null || echo "?")
s0=$(date +%s%3N); podman stop -t 10 "$NAME" >/dev/null; s1=$(date +%s%3N)
[ $((s1 - s0)) -lt 5000 ] || { echo "FAIL: the stop took $((s1 - s0)) ms (SIGTERM not honoured)" >&2; exit 1; }
echo "container: $IMAGE ($(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')): run to Calculator listed through the controller $((t1 - t0)) ms, memory $MEM, stop $((s1 - s0)) ms"
