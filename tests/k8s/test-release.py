#!/usr/bin/env python3
"""The release, built and installed here as a RHEL admin would from the bundle.

1. meson dist as make dist runs it (xztar; the suite is running the tests,
   so they are not rerun) of this checkout's HEAD: the tarball holds the
   suite and gdrcheck.spec with meson.build's version.
2. tools/rpm/build-rpm.sh builds the binary and source RPMs from it
   (--without check: the suite runs the tests); rpmlint with
   tools/rpm/rpmlint.toml reports no error; the binary RPM holds exactly
   what `meson install` installs (prefix /usr, manual pages gzipped, rpm's
   /usr/lib/.build-id aside); its Requires name none of the libraries
   gdrcheck loads with dlopen, its Recommends all of them; its gdrcheck
   prints the version.
3. deploy/bundle/build makes the air-gapped bundle from them and the image
   (BUILD_DIR/image, the one k8s-image runs), and the command blocks of its
   INSTALL.md that carry a "test:" marker run here against local targets:
   sha256sum -c; skopeo copy into a local OCI layout in place of the
   registry (the manifest must be the archive's); helm install rendered by
   helm template and kubectl apply -k by kubectl kustomize (the DaemonSet's
   image must be $REGISTRY/gdrcheck:VERSION); ctr images import into a
   private containerd (the image must be localhost/gdrcheck:VERSION); the
   mirror loop over `gdrcheck k8s --images` (each image copied under
   $REGISTRY).
Skips (77) with the reason in a sanitizer build, outside a git checkout, or
without a tool (tools/install-deps.sh test installs them all).

Usage: test-release.py GDRCHECK SOURCE_ROOT BUILD_DIR FIXTURES
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import yaml

import k8slib
from imagelib import build_image, private_containerd, skip

# Loaded with dlopen (docs/architecture.md): never Required, always Recommended.
DLOPEN_PACKAGES = {"libibverbs", "rdma-core", "hwloc-libs", "libxml2", "libmicrohttpd", "libcurl"}
DLOPEN_SONAMES = ("libibverbs", "libhwloc", "libxml2", "libmicrohttpd", "libcurl", "libcuda",
                  "libnvidia-ml")


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout


def dist_tarball(src, build, version, errors):
    run(["meson", "dist", "-C", build, "--no-tests", "--formats", "xztar", "--allow-dirty"])
    tarball = os.path.join(build, "meson-dist", f"gdrcheck-{version}.tar.xz")
    with tarfile.open(tarball) as t:
        names = set(t.getnames())
        spec = t.extractfile(f"gdrcheck-{version}/gdrcheck.spec").read().decode()
    top = f"gdrcheck-{version}/"
    for need in ("meson.build", "tests/meson.build", "tests/run-fixture.py", "tests/unit/meson.build",
                 "docs/meson.build", "tools/gen-man.py", "LICENSE"):
        if top + need not in names:
            errors.append(f"the release tarball lacks {need}")
    m = re.search(r"^Version:\s*(\S+)", spec, re.M)
    if not m or m.group(1) != version:
        errors.append(f"gdrcheck.spec in the tarball says Version {m and m.group(1)}, gdrcheck --version {version}")
    print(f"meson dist: {tarball}, {len(names)} entries, gdrcheck.spec Version {m and m.group(1)}")
    return tarball


def rpm_files(rpm):
    """Installed paths of a binary RPM: files and links, man pages without .gz, rpm's build-id links aside."""
    out = set()
    for line in run(["rpm", "-qp", "--qf", "[%{FILEMODES:perms} %{FILENAMES}\n]", rpm]).splitlines():
        perms, path = line.split(" ", 1)
        if perms.startswith("d") or path.startswith("/usr/lib/.build-id/"):
            continue
        out.add(re.sub(r"(/man/man\d/[^/]+)\.gz$", r"\1", path))
    return out


def meson_files(build):
    """What `meson install` installs, as under prefix /usr."""
    prefix = next(o["value"] for o in json.loads(run(["meson", "introspect", "--buildoptions", build]))
                  if o["name"] == "prefix")
    out = set()
    with tempfile.TemporaryDirectory() as dest:
        run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", dest])
        for d, _, files in os.walk(dest):
            for f in files:
                path = os.path.join(d, f)[len(dest):]
                out.add("/usr" + path[len(prefix):] if path.startswith(prefix + "/") else path)
    return out


def check_rpm(build, tarball, version, errors):
    top = os.path.join(build, "release-rpm")
    run(["sh", os.path.join(SRC, "tools", "rpm", "build-rpm.sh"), tarball, top, "--without", "check"])
    rpms = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(top, "RPMS")) for f in fs if f.endswith(".rpm")]
    srpms = [os.path.join(top, "SRPMS", f) for f in os.listdir(os.path.join(top, "SRPMS"))]
    if len(rpms) != 1 or len(srpms) != 1:
        raise SystemExit(f"rpmbuild wrote {rpms} and {srpms}, not one binary and one source RPM")
    rpm, srpm = rpms[0], srpms[0]
    lint = subprocess.run(["rpmlint", "-c", os.path.join(SRC, "tools", "rpm", "rpmlint.toml"), rpm, srpm],
                          capture_output=True, text=True)
    summary = re.search(r"(\d+) errors?, (\d+) warnings?", lint.stdout)
    if not summary or summary.group(1) != "0" or lint.returncode != 0:
        errors.append(f"rpmlint: {lint.stdout[-2000:]}{lint.stderr[-500:]}")
    else:
        print(f"rpmlint: 0 errors, {summary.group(2)} warnings (gdrcheck.spec says why each does not apply)")
    want, have = meson_files(build), rpm_files(rpm)
    if want != have:
        errors.append(f"the RPM's files are not what meson install installs: only in the RPM {sorted(have - want)}, "
                      f"only in meson install {sorted(want - have)}")
    else:
        print(f"RPM files: the {len(have)} files meson install installs")
    requires = run(["rpm", "-qp", "--requires", rpm]).split("\n")
    recommends = set(run(["rpm", "-qp", "--recommends", rpm]).split())
    for r in requires:
        if r.startswith(DLOPEN_SONAMES) or r.split(" ")[0] in DLOPEN_PACKAGES:
            errors.append(f"the RPM requires {r}, which gdrcheck loads only when a command needs it")
    if recommends != DLOPEN_PACKAGES:
        errors.append(f"the RPM recommends {sorted(recommends)}, not {sorted(DLOPEN_PACKAGES)}")
    with tempfile.TemporaryDirectory() as tmp:
        payload = os.path.join(tmp, "payload.tar")
        with open(rpm, "rb") as i, open(payload, "wb") as o:
            subprocess.run(["rpm2archive", "-n"], stdin=i, stdout=o, check=True)
        with tarfile.open(payload) as t:
            t.extract("./usr/bin/gdrcheck", tmp)
        got = run([os.path.join(tmp, "usr", "bin", "gdrcheck"), "--version"]).split()
        if got[:2] != ["gdrcheck", version] or "git" in got[2:3]:
            errors.append(f"the RPM's gdrcheck --version says {' '.join(got)}: built from the tarball, no git describe")
    return rpm, srpm


def blocks(install_md):
    """The ```sh blocks of INSTALL.md marked <!-- test: NAME -->, by name."""
    out = {}
    for m in re.finditer(r"<!-- test: ([a-z-]+) -->\n```sh\n(.*?)```", install_md, re.S):
        out[m.group(1)] = m.group(2)
    return out


# Stand-ins on PATH for the commands that would reach a registry or a cluster.
SHIMS = {
    # To docker://HOST/PATH:TAG: into a local OCI layout under TAG; from docker://
    # (the mirror loop, which would pull from the internet): logged only.
    "skopeo": r'''#!/bin/sh
echo "$*" >>"$T/skopeo.log"
[ "$1" = copy ] || exec "$REAL_SKOPEO" "$@"
shift
src='' dst=''
for a in "$@"; do
	case $a in
	-*) ;;
	*) if [ -z "$src" ]; then src=$a; else dst=$a; fi ;;
	esac
done
case $src in docker://*) exit 0 ;; esac
case $dst in docker://*) dst="oci:$T/layout:${dst##*:}" ;; esac
exec "$REAL_SKOPEO" copy "$src" "$dst"
''',
    "helm": r'''#!/bin/sh
[ "$1" = install ] && { shift; exec "$REAL_HELM" template "$@" >"$T/helm.yaml"; }
exec "$REAL_HELM" "$@"
''',
    "kubectl": r'''#!/bin/sh
[ "$1 $2" = "apply -k" ] && exec "$REAL_KUBECTL" kustomize "$3" >"$T/kustomize.yaml"
exec "$REAL_KUBECTL" "$@"
''',
}


def daemonset_images(path):
    with open(path) as f:
        return {c["image"] for d in yaml.safe_load_all(f) if d and d.get("kind") == "DaemonSet"
                for c in d["spec"]["template"]["spec"]["containers"]}


def archive_manifest(archive):
    with tarfile.open(archive) as t:
        return json.load(t.extractfile("./index.json"))["manifests"][0]["digest"]


def check_install_md(bundle, version, gdrcheck, errors):
    with open(os.path.join(bundle, "INSTALL.md")) as f:
        b = blocks(f.read())
    for name in ("checksums", "image-push", "ctr-import", "helm", "kustomize", "mirror"):
        if name not in b:
            errors.append(f"INSTALL.md has no block marked test: {name}")
            return
    registry = re.search(r"^REGISTRY=(\S+)", b["image-push"], re.M).group(1)
    want = f"{registry}/gdrcheck:{version}"
    with tempfile.TemporaryDirectory() as t:
        shims = os.path.join(t, "bin")
        os.mkdir(shims)
        env = dict(os.environ, T=t, PATH=shims + os.pathsep + os.environ["PATH"])
        for tool, body in SHIMS.items():
            env["REAL_" + tool.upper()] = shutil.which(tool)
            with open(os.path.join(shims, tool), "w") as f:
                f.write(body)
            os.chmod(os.path.join(shims, tool), 0o755)
        # The admin's gdrcheck is the build tree's; images.txt from the seed's node.
        fixture = os.path.join(FIXTURES, "k8s-seed2-no-multus", "root")
        with open(os.path.join(bundle, "images.txt"), "w") as f:
            subprocess.run([gdrcheck, "k8s", "--root", fixture, "--helm-values", "gpu-operator", "--images",
                            "--gpu-operator-version", "26.3.3"], stdout=f, check=True)
        script = "set -e\n" + "".join(b[n] for n in ("checksums", "image-push", "helm", "kustomize", "mirror"))
        p = subprocess.run(["sh", "-c", script], cwd=bundle, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            errors.append(f"INSTALL.md's commands failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
            return
        print("INSTALL.md: sha256sum -c SHA256SUMS passed")
        # skopeo copy: the local layout holds the archive's manifest under the tag.
        index = json.load(open(os.path.join(t, "layout", "index.json")))
        got = {m.get("annotations", {}).get("org.opencontainers.image.ref.name"): m["digest"] for m in index["manifests"]}
        if got.get(version) != archive_manifest(os.path.join(bundle, "image", f"gdrcheck-{version}.oci.tar")):
            errors.append(f"skopeo copy to the local layout stored {got}, not the archive's manifest as {version}")
        log = open(os.path.join(t, "skopeo.log")).read()
        if f"docker://{want}" not in log:
            errors.append(f"INSTALL.md's skopeo copy does not push to docker://{want}: {log[:500]}")
        else:
            print(f"INSTALL.md: skopeo copy oci-archive: -> docker://{want} (a local OCI layout here): the archive's manifest")
        for what, path in (("helm install", "helm.yaml"), ("kubectl apply -k", "kustomize.yaml")):
            images = daemonset_images(os.path.join(t, path))
            if images != {want}:
                errors.append(f"INSTALL.md's {what} runs {images}, not {want}")
            else:
                print(f"INSTALL.md: {what} (rendered here): the DaemonSet runs {want}")
        # The mirror loop: every image of the list, under the same path below $REGISTRY.
        listed = [l.split()[0] for l in open(os.path.join(bundle, "images.txt")) if l.strip() and not l.startswith("#")]
        missing = [i for i in listed if f"docker://{i} docker://{registry}/{i.split('/', 1)[1]}" not in log]
        if not listed or missing:
            errors.append(f"INSTALL.md's mirror loop did not copy {missing or 'anything'}")
        else:
            print(f"INSTALL.md: the mirror loop copies the {len(listed)} images of gdrcheck k8s --images under $REGISTRY")
    os.remove(os.path.join(bundle, "images.txt"))
    # ctr images import: the name every manifest of the bundle uses.
    with private_containerd() as ctr:
        if not ctr:
            print("INSTALL.md: ctr images import skipped (needs root, containerd and ctr)")
            return
        with tempfile.TemporaryDirectory() as t:
            shim = os.path.join(t, "ctr")
            with open(shim, "w") as f:
                f.write(f'#!/bin/sh\nexec {" ".join(ctr)} "$@"\n')
            os.chmod(shim, 0o755)
            env = dict(os.environ, PATH=t + os.pathsep + os.environ["PATH"])
            p = subprocess.run(["sh", "-c", "set -e\n" + b["ctr-import"]], cwd=bundle, env=env,
                               capture_output=True, text=True, timeout=600)
        name = f"localhost/gdrcheck:{version}"
        if p.returncode != 0 or name not in p.stdout.split():
            errors.append(f"INSTALL.md's ctr import: {p.stdout}{p.stderr[-500:]} (want {name})")
        elif name not in daemonset_images(os.path.join(bundle, "manifests", "gdrcheck.yaml")):
            errors.append(f"the bundle's manifests do not run {name}")
        else:
            print(f"INSTALL.md: ctr images import in a private containerd stores {name}, the manifests' image")


SRC = FIXTURES = None


def main():
    global SRC, FIXTURES
    gdrcheck, SRC, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    FIXTURES = os.path.abspath(sys.argv[4])
    libs = k8slib.run(["ldd", gdrcheck]).stdout
    if "libasan" in libs or "libubsan" in libs:
        skip("a sanitizer build: the plain build's test covers the release")
    if not os.path.exists(os.path.join(SRC, ".git")):
        skip("not a git checkout: meson dist archives the checkout's HEAD")
    for tool in ("meson", "git", "rpmbuild", "rpmlint", "rpm2archive", "skopeo", "helm", "kubectl",
                 "mmdebstrap", "umoci", "sha256sum"):
        k8slib.need(tool)
    version = run([gdrcheck, "--version"]).split()[1]
    errors = []
    tarball = dist_tarball(SRC, build, version, errors)
    rpm, srpm = check_rpm(build, tarball, version, errors)
    image = os.path.join(build, "image")
    try:
        build_image(gdrcheck, SRC, image)
    except SystemExit as e:
        # No image here (no Debian archive): say what the RPM part found first.
        if e.code != 77 or errors:
            for err in errors:
                print(err)
            raise SystemExit(1) from e
        raise
    out = os.path.join(build, "release-bundle")
    print(run([os.path.join(SRC, "deploy", "bundle", "build"), out, "--binary", gdrcheck, "--tarball", tarball,
               "--rpm", rpm, "--srpm", srpm, "--image", os.path.join(image, f"gdrcheck-{version}.oci.tar")]).strip())
    bundle = os.path.join(out, f"gdrcheck-{version}")
    for part in (f"image/gdrcheck-{version}.oci.tar", f"helm/gdrcheck-{version}.tgz", "manifests/gdrcheck.yaml",
                 "manifests/gdrcheck-monitoring.yaml", f"rpm/{os.path.basename(rpm)}",
                 f"rpm/{os.path.basename(srpm)}", f"src/{os.path.basename(tarball)}", "INSTALL.md", "SHA256SUMS"):
        if not os.path.isfile(os.path.join(bundle, part)):
            errors.append(f"the bundle has no {part}")
    if not os.path.isfile(os.path.join(out, f"gdrcheck-bundle-{version}.tar")):
        errors.append("no bundle tar")
    if not errors:
        check_install_md(bundle, version, gdrcheck, errors)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
