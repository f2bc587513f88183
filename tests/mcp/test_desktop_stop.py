"""The test desktop's stop ends everything its private bus started and leaves nothing behind: the
document portal that LibreOffice and Firefox D-Bus-activate mounts a FUSE file system in the
desktop's runtime directory; left running, it kept that mount, `rm -rf` of the state failed, and
the next start of that display could not clear it. stop-desktop.sh ends every process whose
environment names the desktop's bus (the portal's FUSE mount goes with its daemon)."""
import pathlib
import subprocess
import time

from conftest import ROOT
from lab import desktop_env, free_displays


def mounts_under(path):
    prefix = str(path) + "/"
    return [line.split()[1] for line in open("/proc/mounts") if line.split()[1].startswith(prefix)]


def test_regression_the_document_portals_mount_does_not_outlive_the_desktop(desktop):
    n = free_displays(1, start=85)[0]
    state = pathlib.Path(f"/tmp/deskenv-{n}")
    subprocess.run(["bash", str(ROOT / "scripts/desktop/start-desktop.sh"), str(n)], check=True,
                   capture_output=True)
    try:
        env = desktop_env(n)
        # What an app's file chooser does: ask the portal where documents are mounted.
        subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.portal.Documents",
                        "--object-path", "/org/freedesktop/portal/documents",
                        "--method", "org.freedesktop.portal.Documents.GetMountPoint"],
                       env=env, check=True, capture_output=True, timeout=30)
        deadline = time.time() + 10
        while not mounts_under(state):
            assert time.time() < deadline, "the document portal mounted nothing"
            time.sleep(0.05)
    finally:
        out = subprocess.run(["bash", str(ROOT / "scripts/desktop/stop-desktop.sh"), str(n), "--purge"],
                             capture_output=True, text=True)
    assert mounts_under(state) == [], out.stderr
    assert not state.exists(), ("the state directory is left", out.stderr)
    left = subprocess.run(["pgrep", "-f", f"deskenv-{n}/"], capture_output=True, text=True).stdout
    assert left == "", left
