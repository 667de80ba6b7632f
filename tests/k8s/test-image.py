#!/usr/bin/env python3
"""deploy/image/build makes the OCI image; it runs as the DaemonSet runs it.

Builds the image once into BUILD_DIR/image (rebuilt when the binary is newer),
unpacks it with umoci and runs, with the DaemonSet's security context (read-only
root filesystem, no capabilities, no new privileges, the host's /sys read-only,
a bind-mounted output directory):
  gdrcheck --version, gdrcheck check --root on a fixture (output identical to
  the build tree's binary), gdrcheck labels writing into the bind mount, the
  DaemonSet's labels --host-root, and the example pods' gdrcheck pod.
Every container under deploy/ that adds IPC_LOCK runs with its securityContext
as containerd's CRI sets it and must hold CAP_IPC_LOCK in CapEff (the image's
non-root user, the control, must not). The archive's io.containerd.image.name
is the image every manifest names, and, with containerd installed, 'ctr images
import' into a private containerd stores it under that name.
The runtime is runc, else crun, else unshare + chroot; it says which ran
(GDRCHECK_IMAGE_RUNTIMES=crun,chroot narrows the list).
Skips (exit 77) with a line saying why when the tools, root or user
namespaces, or the Debian archive are missing.

Usage: test-image.py GDRCHECK SOURCE_ROOT BUILD_DIR FIXTURES
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import k8slib
from imagelib import build_image, private_containerd, skip

FIXTURE = "seed2-b300-e810"


def deploy_images(src):
    """(file, image) of every container under deploy/ that runs gdrcheck (the chart's templates aside)."""
    import yaml
    out = []
    for dirpath, _, files in sorted(os.walk(os.path.join(src, "deploy"))):
        for fn in sorted(files):
            if not fn.endswith((".yaml", ".yml")) or "templates" in dirpath:
                continue
            with open(os.path.join(dirpath, fn)) as f:
                for doc in yaml.safe_load_all(f):
                    for c in containers(doc):
                        if "gdrcheck" in c.get("image", ""):
                            out.append((os.path.relpath(os.path.join(dirpath, fn), src), c["image"]))
    return out


def containers(doc):
    if not isinstance(doc, dict):
        return []
    spec = doc.get("spec", {}) or {}
    if doc.get("kind") == "Pod":
        return spec.get("containers", [])
    pod = (spec.get("template") or {}).get("spec") or {}
    return pod.get("containers", [])


def import_name_errors(out, src, version):
    """The archive's name is the manifests' image, and containerd imports it under it."""
    errs = []
    with open(os.path.join(out, "oci", "index.json")) as f:
        names = {m.get("annotations", {}).get("io.containerd.image.name") for m in json.load(f)["manifests"]}
    if len(names) != 1 or None in names:
        return [f"the OCI index names the image {names}, not one io.containerd.image.name"]
    name = names.pop()
    refs = deploy_images(src)
    if not refs:
        errs.append("no gdrcheck container under deploy/")
    for path, image in refs:
        if image != name:
            errs.append(f"{path} runs {image}, the archive imports as {name}")
    if name != f"localhost/gdrcheck:{version}":
        errs.append(f"the archive's name {name} is not localhost/gdrcheck:{version}")
    with private_containerd() as ctr:
        if not ctr:
            print("containerd import: skipped (needs root, containerd and ctr); the annotation was checked")
            return errs
        # The README's command against a containerd of our own (no CRI, a private root and socket).
        base = ctr + ["-n", "k8s.io"]
        p = subprocess.run(base + ["images", "import", os.path.join(out, f"gdrcheck-{version}.oci.tar")],
                           capture_output=True, text=True, timeout=300)
        ls = subprocess.run(base + ["images", "ls", "-q"], capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            errs.append(f"ctr images import failed: {p.stderr[-300:]}")
        elif name not in ls.stdout.split():
            errs.append(f"ctr images import stored {ls.stdout.split()}, the manifests pull {name}")
        else:
            print(f"containerd import: {name}, the image the manifests name")
    return errs


# containerd's CRI (pkg/cri/opts/spec_linux.go WithCapabilities, and the
# 1.6.18 fix for GHSA-c9cp-9c75-9v8c) puts a container's capabilities in the
# bounding, effective and permitted sets, none in inheritable or ambient.
def cri_caps(sc):
    caps = [] if "ALL" in (sc.get("capabilities", {}).get("drop") or []) else DEFAULT_CAPS
    caps = sorted(set(caps) | {"CAP_" + c for c in sc.get("capabilities", {}).get("add") or []})
    return {"bounding": caps, "effective": caps, "permitted": caps, "inheritable": [], "ambient": []}


DEFAULT_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
                "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
                "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]
CAP_IPC_LOCK = 14


def bundle_config(bundle, args, uid, mounts, rootless, caps=None):
    with open(os.path.join(bundle, "config.json")) as f:
        cfg = json.load(f)
    proc = cfg["process"]
    proc["args"] = args
    proc["terminal"] = False
    proc["user"] = {"uid": uid, "gid": uid}
    proc["noNewPrivileges"] = True
    # capabilities: drop ALL, as the DaemonSet's securityContext (or a pod's, as containerd sets them).
    proc["capabilities"] = caps or {k: [] for k in ("bounding", "effective", "inheritable", "permitted", "ambient")}
    cfg["root"]["readonly"] = True
    # hostNetwork: the host's network namespace.
    cfg["linux"]["namespaces"] = [n for n in cfg["linux"]["namespaces"] if n["type"] != "network"]
    for dst, src_dir, ro in mounts:
        cfg["mounts"].append({"destination": dst, "type": "bind", "source": src_dir,
                              "options": ["rbind", "ro" if ro else "rw"]})
    if rootless:
        cfg["linux"].pop("resources", None)
    with open(os.path.join(bundle, "config.json"), "w") as f:
        json.dump(cfg, f)


def run_in(runtime, bundle, rootfs, args, uid, mounts, rootless, state, caps=None):
    """(returncode, stdout, stderr) of @args in the image."""
    if runtime in ("runc", "crun"):
        bundle_config(bundle, args, uid, mounts, rootless, caps)
        cid = f"gdrcheck-test-{os.getpid()}-{time.monotonic_ns()}"
        p = subprocess.run([runtime, "--root", state, "run", "--bundle", bundle, cid],
                           capture_output=True, text=True, timeout=120)
        subprocess.run([runtime, "--root", state, "delete", "--force", cid], capture_output=True)
        return p.returncode, p.stdout, p.stderr
    # unshare + chroot: a private mount namespace, the same binds, a read-only root.
    script = "set -e\n"
    for dst, _, _ in mounts:
        script += f"mkdir -p '{rootfs + dst}'\n"
    # The read-only root first, then the binds on top of it (some of them writable).
    script += f"mount --bind '{rootfs}' '{rootfs}'\nmount -o remount,bind,ro '{rootfs}'\n"
    for dst, src_dir, ro in mounts:
        target = rootfs + dst
        script += f"mount --rbind '{src_dir}' '{target}'\n"
        if ro:
            script += f"mount -o remount,bind,ro '{target}'\n"
    # The DaemonSet's context inside: no capabilities, no new privileges (setpriv is util-linux,
    # in the image). In a user namespace only uid 0 is mapped.
    if os.geteuid() != 0:
        uid = 0
    script += (f"exec chroot '{rootfs}' setpriv --reuid={uid} --regid={uid} --clear-groups "
               "--inh-caps=-all --bounding-set=-all --no-new-privs -- " + " ".join(f"'{a}'" for a in args) + "\n")
    cmd = ["unshare", "--mount", "--fork"] + ([] if os.geteuid() == 0 else ["--user", "--map-root-user"])
    p = subprocess.run(cmd + ["sh", "-c", script], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    gdrcheck, src, builddir, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    for tool in ("mmdebstrap", "umoci"):
        k8slib.need(tool)
    libs = k8slib.run(["ldd", gdrcheck]).stdout
    if "libasan" in libs or "libubsan" in libs:
        skip("a sanitizer build: its runtime is not in the image; the plain build's test covers the image")
    rootless = os.geteuid() != 0
    if rootless and not userns_ok():
        skip("not root and no unprivileged user namespaces: neither mmdebstrap nor a runtime can run")
    if rootless:
        import pwd
        user = pwd.getpwuid(os.getuid()).pw_name
        try:
            ranges = [l.split(":")[0] for l in open("/etc/subuid")]
        except OSError:
            ranges = []
        if user not in ranges and str(os.getuid()) not in ranges:
            skip(f"not root and no /etc/subuid range for {user}: mmdebstrap --mode=unshare cannot map the image's users")
    out = os.path.join(os.path.abspath(builddir), "image")
    version = build_image(gdrcheck, src, out)
    tag = f"gdrcheck:{version}"
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        bundle = os.path.join(tmp, "bundle")
        k8slib.run(["umoci", "unpack"] + (["--rootless"] if rootless else []) +
                   ["--image", f"{out}/oci:{tag}", bundle], check_rc=[0])
        rootfs = os.path.join(bundle, "rootfs")
        with open(os.path.join(bundle, "config.json")) as f:
            image_uid = json.load(f)["process"]["user"]["uid"]
        if image_uid == 0:
            errors.append("the image runs as root by default")
        fixture = os.path.join(os.path.abspath(fixtures), FIXTURE)
        outdir = os.path.join(tmp, "out")
        os.mkdir(outdir)
        os.chmod(outdir, 0o777)
        # The built fixture links to its committed files: bind what the links name.
        mounts = [("/fixture/root", os.path.join(fixture, "root"), True),
                  ("/fixture/netlink", os.path.realpath(os.path.join(fixture, "netlink")), True),
                  ("/out", outdir, False), ("/host/sys", "/sys", True)]
        state = os.path.join(tmp, "state")
        runtime = None
        # GDRCHECK_IMAGE_RUNTIMES=crun,chroot tries only those (to test each path).
        order = os.environ.get("GDRCHECK_IMAGE_RUNTIMES", "runc,crun,chroot").split(",")
        for cand in order:
            if cand != "chroot" and not shutil.which(cand):
                continue
            rc, so, se = run_in(cand, bundle, rootfs, ["/usr/bin/gdrcheck", "--version"], image_uid, mounts,
                                rootless, state)
            if rc == 0:
                runtime = cand
                break
            print(f"{cand} cannot run the image here (exit {rc}): {se.strip()[:300]}")
        if runtime is None:
            skip("no container runtime (runc, crun) nor unshare + chroot can run the image here")
        print(f"runtime: {runtime}" + (" (unshare + chroot)" if runtime == "chroot" else ""))
        want_version = k8slib.run([gdrcheck, "--version"], check_rc=[0]).stdout.strip()
        if so.strip() != want_version or so.split()[1] != version:
            errors.append(f"--version printed {so!r}, the build tree's binary {want_version!r}")

        want = k8slib.run([gdrcheck, "check", "--root", "root", "--netlink-replay", "netlink"], cwd=fixture)
        rc, so, se = run_in(runtime, bundle, rootfs,
                            ["/usr/bin/gdrcheck", "check", "--root", "/fixture/root",
                             "--netlink-replay", "/fixture/netlink"], image_uid, mounts, rootless, state)
        if rc != want.returncode or so.replace("/fixture/root", "root") != want.stdout:
            errors.append(f"check --root in the image: exit {rc}, stdout differs from the build tree's:\n{so}\n{se}")

        rc, so, se = run_in(runtime, bundle, rootfs,
                            ["/usr/bin/gdrcheck", "labels", "--root", "/fixture/root", "--netlink-replay",
                             "/fixture/netlink", "--nfd", "/out/gdrcheck", "--prom", "/out/gdrcheck.prom"],
                            0, mounts, rootless, state)
        if rc != 0:
            errors.append(f"labels in the image: exit {rc}: {se}")
        for name in ("gdrcheck", "gdrcheck.prom"):
            if not os.path.exists(os.path.join(outdir, name)):
                errors.append(f"labels in the image did not write /out/{name}")
        if os.path.exists(os.path.join(outdir, "gdrcheck")):
            print(open(os.path.join(outdir, "gdrcheck")).read().strip())
        # The DaemonSet's own command: the host's /sys, /proc, /dev, /usr under /host, live netlink.
        host = mounts + [("/host/proc", "/proc", True), ("/host/dev", "/dev", True), ("/host/usr", "/usr", True)]
        rc, so, se = run_in(runtime, bundle, rootfs,
                            ["/usr/bin/gdrcheck", "labels", "--host-root", "/host", "--nfd", "/out/node",
                             "--prom", "/out/node.prom"], 0, host, rootless, state)
        if rc != 0 or "collect=ok" not in open(os.path.join(outdir, "node")).read():
            errors.append(f"labels --host-root /host in the image: exit {rc}: {se}")
        else:
            print("labels --host-root /host (the DaemonSet's command) read this machine from the image")
        # The example pods' command: it reads the container it runs in (exit 0 or 1, a verdict).
        rc, so, se = run_in(runtime, bundle, rootfs, ["/usr/bin/gdrcheck", "pod"], image_uid, mounts,
                            rootless, state)
        if rc not in (0, 1) or "pod.mode" not in so:
            errors.append(f"gdrcheck pod in the image: exit {rc}: {se}{so[-300:]}")
        # Every shipped container that adds IPC_LOCK holds it in its effective set, run as
        # containerd runs it; the image's own non-root user with the same context would not.
        if runtime in ("runc", "crun") and not rootless:
            import yaml
            for path in sorted({p for p, _ in deploy_images(src)}):
                with open(os.path.join(src, path)) as f:
                    for doc in yaml.safe_load_all(f):
                        for c in containers(doc):
                            sc = c.get("securityContext") or {}
                            if "IPC_LOCK" not in (sc.get("capabilities", {}).get("add") or []):
                                continue
                            uid = sc.get("runAsUser", image_uid)
                            rc, so, se = run_in(runtime, bundle, rootfs, ["/bin/grep", "CapEff", "/proc/self/status"],
                                                uid, mounts, rootless, state, cri_caps(sc))
                            eff = int(so.split()[1], 16) if rc == 0 and so.startswith("CapEff") else None
                            if eff is None or not eff >> CAP_IPC_LOCK & 1:
                                errors.append(f"{path}: container {c['name']} (uid {uid}) has CapEff {so.strip()} "
                                              "without CAP_IPC_LOCK")
                            else:
                                print(f"{path}: {c['name']} runs with CAP_IPC_LOCK effective (uid {uid})")
                            # The control: the image's non-root user, the same capabilities.
                            rc, so, _ = run_in(runtime, bundle, rootfs, ["/bin/grep", "CapEff", "/proc/self/status"],
                                               image_uid, mounts, rootless, state, cri_caps(sc))
                            if rc == 0 and int(so.split()[1], 16):
                                errors.append(f"the runtime gives a non-root process CapEff {so.strip()}: "
                                              "the test no longer shows why the pods run as uid 0")
        else:
            print("CapEff of the shipped pods: skipped (needs runc or crun as root)")
        errors += import_name_errors(out, os.path.abspath(src), version)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(out, "oci", "blobs"))
                   for f in fs)
        print(f"image size: {size / 2**20:.1f} MiB compressed (OCI blobs)")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
