"""The OCI image the suite builds once (deploy/image/build) and a containerd of its own.

test-image.py runs the image; test-release.py puts it in the air-gapped
bundle. Both take it from BUILD_DIR/image, rebuilt when the binary is newer.
"""
import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import k8slib


def skip(why):
    print(f"SKIP: {why}")
    raise SystemExit(77)


def archive_reachable(suite):
    try:
        urllib.request.urlopen(f"http://deb.debian.org/debian/dists/{suite}/Release", timeout=15).close()
        return True
    except Exception as e:  # noqa: BLE001 - any failure means no archive
        print(f"deb.debian.org: {e}")
        return False


def build_image(gdrcheck, src, out):
    """The image of @gdrcheck in @out (oci/ and gdrcheck-VERSION.oci.tar); its version.

    k8s-image and release may run at once (make test runs the release suite
    beside the rest): one builds, the other waits on the lock and reuses it.
    """
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_image(gdrcheck, src, out)


def _build_image(gdrcheck, src, out):
    version = k8slib.run([gdrcheck, "--version"], check_rc=[0]).stdout.split()[1]
    tar = os.path.join(out, f"gdrcheck-{version}.oci.tar")
    if os.path.exists(tar) and os.path.getmtime(tar) > os.path.getmtime(gdrcheck):
        print(f"image: reusing {tar}")
        return version
    suite = "bookworm"
    for line in open("/etc/os-release"):
        if line.startswith("VERSION_CODENAME="):
            suite = line.split("=", 1)[1].strip().strip('"') or suite
    if not archive_reachable(suite):
        skip(f"no network to the Debian archive (deb.debian.org, {suite}): the image cannot be built")
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(src, "deploy", "image", "build"), gdrcheck, out, suite],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"deploy/image/build failed:\n{p.stdout}\n{p.stderr}")
    print(p.stdout.strip().splitlines()[-1], f"(built in {time.monotonic() - t0:.0f} s)")
    return version


@contextlib.contextmanager
def private_containerd():
    """The ctr command line of a containerd of our own (no CRI, a private root and socket), or None."""
    containerd, ctr = shutil.which("containerd"), shutil.which("ctr")
    if not containerd or not ctr or os.geteuid() != 0:
        yield None
        return
    with tempfile.TemporaryDirectory() as tmp:
        sock = os.path.join(tmp, "containerd.sock")
        with open(os.path.join(tmp, "config.toml"), "w") as f:
            f.write('version = 2\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n')
        d = subprocess.Popen([containerd, "--config", os.path.join(tmp, "config.toml"), "--root",
                              os.path.join(tmp, "root"), "--state", os.path.join(tmp, "state"),
                              "--address", sock], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.1)
            yield [ctr, "--address", sock]
        finally:
            d.terminate()
            try:
                d.wait(timeout=20)
            except subprocess.TimeoutExpired:
                d.kill()
