#!/usr/bin/env bash
# make-secrets.sh [NAMESPACE] > secrets.yaml — the fleet's secrets as Kubernetes Secret manifests:
#   worker-tls      a CA (ca.crt) and one wildcard certificate for *.workers.NAMESPACE.svc.cluster.local
#                   (tls.crt, tls.key) that every worker pod serves; the controller checks workers
#                   against ca.crt, and each pod accepts its own name (MCP_CU_WORKER_ALLOW_HOST)
#   controller-tls  the controller's certificate from the same CA (controller, controller.NAMESPACE.svc…)
#   worker-token    the bearer token the workers take and the controller sends
#   controller-token the bearer token agents send to the controller
# NAMESPACE must be the one the manifests use: it is also in kustomization.yaml (`namespace`),
# namespace.yaml and the controller's [fleet] srv (controller.yaml); change all four together.
# Needs openssl and GNU base64 only (no kubectl, no cluster). The CA key is not kept: make new
# secrets to add certificates. With cert-manager, issue the same names from a CA Issuer instead.
set -euo pipefail
NS="${1:-computer-use}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
ec() { echo -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes; }
openssl req -x509 $(ec) -keyout ca.key -out ca.crt -days 825 -subj "/CN=mcp-computer-use fleet CA ($NS)" 2>/dev/null
issue() { # NAME SAN...
  local name="$1"; shift
  local sans; sans="$(printf 'DNS:%s,' "$@")"
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "${sans%,}" > "$name.ext"
  openssl req -new $(ec) -keyout "$name.key" -out "$name.csr" -subj "/CN=$1" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$name.crt" \
    -days 825 -extfile "$name.ext" 2>/dev/null
}
issue workers "*.workers.$NS.svc.cluster.local" "*.workers.$NS.svc"
issue controller controller "controller.$NS" "controller.$NS.svc" "controller.$NS.svc.cluster.local"
openssl rand -hex 32 | tr -d '\n' > worker.token
openssl rand -hex 32 | tr -d '\n' > controller.token
b64() { base64 -w0 < "$1"; }
secret() { # NAME TYPE KEY=FILE...
  local name="$1" type="$2"; shift 2
  printf -- '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\ntype: %s\ndata:\n' "$name" "$NS" "$type"
  for pair in "$@"; do printf '  %s: %s\n' "${pair%%=*}" "$(b64 "${pair#*=}")"; done
}
secret worker-tls kubernetes.io/tls tls.crt=workers.crt tls.key=workers.key ca.crt=ca.crt
secret controller-tls kubernetes.io/tls tls.crt=controller.crt tls.key=controller.key ca.crt=ca.crt
secret worker-token Opaque token=worker.token
secret controller-token Opaque token=controller.token
