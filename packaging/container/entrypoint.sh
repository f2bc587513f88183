#!/usr/bin/env bash
#! A headless Linux desktop worker: Xvfb, openbox, a private D-Bus session and the AT-SPI bus
#! (the project's scripts/desktop/start-desktop.sh), optional apps, then the worker in front.
#! The container's entrypoint (Containerfile beside it); it also runs as it is outside one.
# env: MCP_CU_WORKER_LISTEN (default 0.0.0.0:8443), MCP_CU_WORKER_TOKEN_FILE (default
#      /run/secrets/worker.token), MCP_CU_WORKER_TLS_DIR (a kubernetes.io/tls Secret's tls.crt and
#      tls.key; without it a self-signed certificate), MCP_CU_WORKER_ALLOW_HOST (names clients call
#      this worker by, space-separated: a pod's name when its certificate is a wildcard one),
#      DESKTOP_DISPLAY (default 1), DESKTOP_APPS (commands started on the desktop, separated by
#      ';'), MCP_CU_BIN, START_DESKTOP (paths of the two programs).
set -euo pipefail
N="${DESKTOP_DISPLAY:-1}"
BIN="${MCP_CU_BIN:-/usr/local/bin/mcp-computer-use}"
START_DESKTOP="${START_DESKTOP:-/usr/local/lib/mcp-computer-use/start-desktop.sh}"
TOKEN_FILE="${MCP_CU_WORKER_TOKEN_FILE:-/run/secrets/worker.token}"
[ -r "$TOKEN_FILE" ] || { echo "no token file at $TOKEN_FILE (mount one; the worker never runs without a token)" >&2; exit 2; }
"$START_DESKTOP" "$N" >&2
set -a; . "/tmp/deskenv-$N/env"; set +a
IFS=';' read -r -a apps <<< "${DESKTOP_APPS:-}"
for app in "${apps[@]}"; do
  [ -n "${app// }" ] && { setsid bash -c "$app" >/dev/null 2>&1 < /dev/null & }
done
tls=(--tls-self-signed)
if [ -n "${MCP_CU_WORKER_TLS_DIR:-}" ]; then
  tls=(--tls-cert "$MCP_CU_WORKER_TLS_DIR/tls.crt" --tls-key "$MCP_CU_WORKER_TLS_DIR/tls.key")
fi
read -r -a hosts <<< "${MCP_CU_WORKER_ALLOW_HOST:-}"
for host in "${hosts[@]}"; do tls+=(--allow-host "$host"); done
exec "$BIN" worker --listen "${MCP_CU_WORKER_LISTEN:-0.0.0.0:8443}" "${tls[@]}" --token-file "$TOKEN_FILE"
