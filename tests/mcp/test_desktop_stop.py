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


def portal_mount(n, state):
    """Has desktop :n's document portal mount its file system, as an app's file chooser does (it
    asks the portal where documents are mounted); the mount point."""
    subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.portal.Documents",
                    "--object-path", "/org/freedesktop/portal/documents",
                    "--method", "org.freedesktop.portal.Documents.GetMountPoint"],
                   env=desktop_env(n), check=True, capture_output=True, timeout=30)
    deadline = time.time() + 10
    while not mounts_under(state):
        assert time.time() < deadline, "the document portal mounted nothing"
        time.sleep(0.05)
    return mounts_under(state)[0]


def test_regression_the_document_portals_mount_does_not_outlive_the_desktop(desktop):
    n = free_displays(1, start=85)[0]
    state = pathlib.Path(f"/tmp/deskenv-{n}")
    subprocess.run(["bash", str(ROOT / "scripts/desktop/start-desktop.sh"), str(n)], check=True,
                   capture_output=True)
    try:
        portal_mount(n, state)
    finally:
        out = subprocess.run(["bash", str(ROOT / "scripts/desktop/stop-desktop.sh"), str(n), "--purge"],
                             capture_output=True, text=True)
    assert mounts_under(state) == [], out.stderr
    assert not state.exists(), ("the state directory is left", out.stderr)
    left = subprocess.run(["pgrep", "-f", f"deskenv-{n}/"], capture_output=True, text=True).stdout
    assert left == "", left


def test_regression_a_dead_portal_mount_left_by_a_killed_run_failed_the_next_start(desktop):
    """A run killed with its desktop (the machine restarted under CI) took the portal's daemon and
    its `fusermount3 auto_unmount` helper with it, and left the FUSE mount with nothing serving it
    ("Transport endpoint is not connected"). The next start's `rm -rf` of the runtime directory
    failed on it, and with it every Wayland test. Starting now detaches what is mounted below the
    state first (scripts/desktop/unmount-under.sh)."""
    n = free_displays(1, start=85)[0]
    state = pathlib.Path(f"/tmp/deskenv-{n}")
    start = ["bash", str(ROOT / "scripts/desktop/start-desktop.sh"), str(n)]
    subprocess.run(start, check=True, capture_output=True)
    try:
        mount = portal_mount(n, state)
        # What a killed run leaves: the daemon and its unmount helper gone at once, the mount kept.
        subprocess.run(["pkill", "-KILL", "-f", f"fusermount3 .*{mount}"], check=True)
        subprocess.run(["pkill", "-KILL", "-f", "xdg-document-portal"], check=False)
        deadline = time.time() + 10
        while True:
            try:
                pathlib.Path(mount).stat()
            except OSError:
                break  # the dead mount: nothing answers for it
            assert time.time() < deadline, "the portal's mount still answers after its daemon was killed"
            time.sleep(0.05)
        assert mount in mounts_under(state), "the dead mount was not left behind"
        restarted = subprocess.run(start, capture_output=True, text=True)
        assert restarted.returncode == 0, restarted.stderr
    finally:
        out = subprocess.run(["bash", str(ROOT / "scripts/desktop/stop-desktop.sh"), str(n), "--purge"],
                             capture_output=True, text=True)
    assert mounts_under(state) == [], out.stderr
    assert not state.exists(), ("the state directory is left", out.stderr)
