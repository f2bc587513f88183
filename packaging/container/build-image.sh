#!/usr/bin/env bash
# build-image.sh [BINARY] — the worker image from Debian's packages alone (no registry pull):
#   1. a bookworm root with debootstrap (minbase), then the desktop's packages installed in it
#      with apt (debootstrap's own --include cannot resolve dbus-session-bus), with updates;
#   2. that root imported as localhost/mcp-computer-use-base:bookworm;
#   3. Containerfile built on it (--pull=never) with BINARY (default: the release build) and
#      the desktop scripts: localhost/mcp-computer-use-desktop:VERSION.
# Needs root, debootstrap and podman (Debian's packages). Env: MCP_CU_IMAGE_WORK (default
# /var/tmp/mcp-cu-image; the root is kept there and reused), DEBIAN_MIRROR, MCP_CU_IMAGE_APPS
# (apps baked in; default gnome-calculator).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/target/release/mcp-computer-use}"
WORK="${MCP_CU_IMAGE_WORK:-/var/tmp/mcp-cu-image}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1)"
read -r -a APPS <<< "${MCP_CU_IMAGE_APPS:-gnome-calculator}"
PKGS=(xvfb openbox dbus-daemon dbus-bin at-spi2-core x11-utils procps libglib2.0-bin
      dconf-gsettings-backend fonts-dejavu-core ca-certificates tini "${APPS[@]}")
BASE=localhost/mcp-computer-use-base:bookworm
say() { echo "[build-image] $*" >&2; }
[ -x "$BIN" ] || { say "no binary at $BIN (cargo build --release, or pass one)"; exit 2; }
mkdir -p "$WORK"
t0=$SECONDS
# The base is remade when its packages changed or it is gone (the marker is written last).
if [ ! -f "$WORK/base.done" ] || [ "$(cat "$WORK/base.done")" != "${PKGS[*]}" ] || ! podman image exists "$BASE"; then
  umount "$WORK/rootfs/proc" 2>/dev/null || true   # left mounted by an interrupted run
  rm -rf "$WORK/rootfs" "$WORK/base.done"
  say "debootstrap bookworm from $MIRROR"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" "$MIRROR" >&2
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb http://security.debian.org/debian-security bookworm-security main\n' \
    "$MIRROR" "$MIRROR" > "$WORK/rootfs/etc/apt/sources.list"
  mount --bind /proc "$WORK/rootfs/proc"
  trap 'umount "$WORK/rootfs/proc" 2>/dev/null || true' EXIT
  say "apt-get install ${PKGS[*]}"
  chroot "$WORK/rootfs" sh -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends ${PKGS[*]} && apt-get upgrade -y -qq && apt-get clean && rm -rf /var/lib/apt/lists/*" >&2
  umount "$WORK/rootfs/proc"
  trap - EXIT
  say "root ready in $((SECONDS - t0)) s ($(du -sh "$WORK/rootfs" | cut -f1))"
  tar --numeric-owner --xattrs -C "$WORK/rootfs" -c . \
    | podman import --change 'CMD ["/bin/bash"]' - "$BASE" >&2
  echo "${PKGS[*]}" > "$WORK/base.done"
fi
CTX="$WORK/context"
rm -rf "$CTX" && mkdir -p "$CTX"
cp "$BIN" "$CTX/mcp-computer-use"
cp "$ROOT"/scripts/desktop/{start-desktop.sh,stop-desktop.sh,unmount-under.sh} "$ROOT/packaging/container/entrypoint.sh" \
   "$ROOT/packaging/container/Containerfile" "$CTX/"
podman build --pull=never --network=none -t "localhost/mcp-computer-use-desktop:$VERSION" -f "$CTX/Containerfile" "$CTX" >&2
say "localhost/mcp-computer-use-desktop:$VERSION built in $((SECONDS - t0)) s"
echo "localhost/mcp-computer-use-desktop:$VERSION"
