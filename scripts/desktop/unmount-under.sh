#!/usr/bin/env bash
# unmount-under.sh DIR — detach every mount below DIR (deepest first). A desktop's
# xdg-document-portal mounts a FUSE file system at $XDG_RUNTIME_DIR/doc; when the portal is
# killed (a stopped or interrupted run), the mount stays behind with no process serving it, and
# the next start's `rm -rf` of the state fails on it ("Is a directory").
DIR="${1:?usage: unmount-under.sh DIR}"
DIR="$(realpath -m "$DIR")"
awk -v d="$DIR/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
  fusermount -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
done
