#!/usr/bin/env python3
"""Fixture trees, built by the suite from what git keeps.

A fixture is tests/fixtures/<name>/ with a fixture.ini. Git keeps its spec,
goldens, recorded netlink replies, facts files and root.digest; its tree
(root/) is built into the build directory, from the first of:

  tools/specs/<name>.json              a hand-made spec (mkfixture.py)
  tests/fixtures/<name>/spec.json      a spec derived from a real matrix (matrix2spec.py)
  tests/fixtures/<name>/root.tar.xz    a tree captured from a machine (or root.tar.gz)
  fixture.ini's `tree = SCRIPT`        a tree no spec describes, written by SCRIPT OUT

Commands (tools/README-fixtures.md):
  list SRC                                  the fixtures under SRC (tests/fixtures)
  build NAME SRC OUT --stamp F --depfile D  OUT/NAME/ = root/ built + every other entry
                                            of SRC/NAME linked (one meson target each);
                                            F records what verify found (the test reports it)
  index SRC OUT LIST NAME...                fail when SRC no longer holds NAME...; drop
                                            every OUT/<dir> but NAME...; write LIST
  tree NAME SRC OUT                         only the tree of SRC/NAME, into OUT
  digest ROOT                               ROOT's digest, as root.digest holds it
  verify FIXTURE_DIR                        its tree is the one its goldens were made from
  pack ROOT OUT.tar.xz                      a deterministic archive of ROOT

Python 3 standard library only.
"""

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SPECS = os.path.join(HERE, "specs")
# The committed files verify compares the tree with.
CHECKED = ("root.digest", "spec.json", "fixture.ini", "nvidia-smi-topo.txt")
ARCHIVES = ("root.tar.xz", "root.tar.gz")
sys.path.insert(0, HERE)


def read_ini(path):
    keys = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(("#", ";", "[")) and "=" in line:
                k, v = line.split("=", 1)
                keys[k.strip()] = v.strip()
    return keys


def list_fixtures(src):
    return sorted(n for n in os.listdir(src) if os.path.isfile(os.path.join(src, n, "fixture.ini")))


def recipe(name, src):
    """(kind, path) of what fixture @name's tree is built from; @src is its
    directory under tests/fixtures. kind: spec (hand-made), matrix-spec,
    archive or script."""
    if os.path.isfile(os.path.join(SPECS, name + ".json")):
        return "spec", os.path.join(SPECS, name + ".json")
    if os.path.isfile(os.path.join(src, "spec.json")):
        return "matrix-spec", os.path.join(src, "spec.json")
    for a in ARCHIVES:
        if os.path.isfile(os.path.join(src, a)):
            return "archive", os.path.join(src, a)
    script = read_ini(os.path.join(src, "fixture.ini")).get("tree")
    if script:
        return "script", os.path.join(REPO, script)
    raise SystemExit("fixture_tree: %s: no tools/specs/%s.json, spec.json, %s or `tree` in fixture.ini"
                     % (name, name, " or ".join(ARCHIVES)))


def unpack(archive, out):
    """Extract a tree archive; only relative names below @out, no devices."""
    import tarfile
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            parts = m.name.split("/")
            if m.name.startswith("/") or ".." in parts:
                raise SystemExit("fixture_tree: %s: %s leaves the tree" % (archive, m.name))
            if not (m.isfile() or m.isdir() or m.issym()):
                raise SystemExit("fixture_tree: %s: %s is not a file, directory or symlink" % (archive, m.name))
        kw = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
        t.extractall(out, **kw)


def pack(root, out):
    """A tree archive that depends only on the tree (names sorted, no times or owners)."""
    import tarfile

    def norm(ti):
        ti.mtime = 0
        ti.uid = ti.gid = 0
        ti.uname = ti.gname = ""
        ti.mode = 0o755 if ti.isdir() or ti.mode & 0o111 else 0o644
        return ti
    with tarfile.open(out, "w:xz", format=tarfile.GNU_FORMAT) as t:
        for rel, _ in entries(root):
            t.add(os.path.join(root, rel), arcname=rel, recursive=False, filter=norm)


def generate(name, src, out):
    """Write fixture @name's tree to @out; return the files it was made from."""
    kind, path = recipe(name, src)
    if kind in ("spec", "matrix-spec"):
        import mkfixture
        mkfixture.generate(mkfixture.load_spec(path), out)
        return mkfixture.spec_files(path) + [os.path.join(HERE, f) for f in ("mkfixture.py", "pci_uevent.py")]
    if os.path.lexists(out):
        shutil.rmtree(out)
    if kind == "archive":
        os.makedirs(out)
        unpack(path, out)
    else:
        subprocess.run([sys.executable, path, out], check=True)
    return [path]


def link_committed(src, dst):
    """Every entry of the fixture's directory but its tree, linked into @dst."""
    want = {e for e in os.listdir(src) if e != "root" and e not in ARCHIVES}
    for e in os.listdir(dst):
        p = os.path.join(dst, e)
        if e != "root" and os.path.islink(p) and (e not in want or os.readlink(p) != os.path.join(src, e)):
            os.unlink(p)
    for e in sorted(want):
        p = os.path.join(dst, e)
        if not os.path.lexists(p):
            os.symlink(os.path.join(src, e), p)


def build(name, src_dir, out_dir, stamp, depfile):
    src = os.path.join(os.path.abspath(src_dir), name)
    dst = os.path.join(os.path.abspath(out_dir), name)
    if not os.path.isfile(os.path.join(src, "fixture.ini")):
        print("fixture_tree: %s is gone since the build was configured: run `meson setup --reconfigure %s`"
              % (src, os.getcwd()), file=sys.stderr)
        return 1
    os.makedirs(dst, exist_ok=True)
    new = dst + ".root-new"
    inputs = generate(name, src, new)
    if os.path.lexists(os.path.join(dst, "root")):
        shutil.rmtree(os.path.join(dst, "root"))
    os.rename(new, os.path.join(dst, "root"))
    link_committed(src, dst)
    # Checked once per build of the tree; the fixture's test reports it.
    errors = verify(dst)
    # A new entry in the fixture's directory changes its mtime: link it too;
    # the committed files verify reads, and the code that reads them.
    deps = inputs + [os.path.abspath(__file__), src]
    deps += [p for p in (os.path.join(src, f) for f in CHECKED) if os.path.exists(p)]
    deps += [os.path.join(HERE, f) for f in ("ref_classify.py", "smi_matrix.py", "mkfixture.py")]
    with open(depfile, "w") as f:
        f.write("%s: %s\n" % (stamp.replace(" ", "\\ "), " ".join(d.replace(" ", "\\ ") for d in deps)))
    with open(stamp, "w") as f:
        json.dump({"fixture": name, "recipe": recipe(name, src)[0], "errors": errors}, f, indent=1)
        f.write("\n")
    return 0


def recorded_errors(fixture):
    """What verify found when the suite built the fixture at @fixture (its stamp)."""
    try:
        with open(fixture.rstrip("/") + ".stamp", encoding="utf-8") as f:
            return json.load(f)["errors"]
    except (OSError, ValueError, KeyError) as e:
        return ["no record of the tree's check (%s): the suite builds it (ninja -C build fixtures)" % e]


def index(src, out, listfile, names):
    have = list_fixtures(src)
    if have != sorted(names):
        added = sorted(set(have) - set(names))
        gone = sorted(set(names) - set(have))
        print("fixture_tree: %s changed since the build was configured (added: %s; removed: %s): "
              "run `meson setup --reconfigure %s`" % (src, " ".join(added) or "none", " ".join(gone) or "none",
                                                      os.getcwd()), file=sys.stderr)
        return 1
    # Every directory here is a fixture this script built (or a failed build's).
    for e in sorted(os.listdir(out)):
        d = os.path.join(out, e)
        if e not in names and os.path.isdir(d) and not os.path.islink(d):
            shutil.rmtree(d)
    with open(listfile, "w") as f:
        f.write("".join(n + "\n" for n in sorted(names)))
    return 0


def entries(root):
    """(relative path, lstat) of everything below @root, sorted by path."""
    out = []

    def walk(rel):
        for e in os.scandir(os.path.join(root, rel) if rel else root):
            r = os.path.join(rel, e.name) if rel else e.name
            st = e.stat(follow_symlinks=False)
            out.append((r, st))
            if stat.S_ISDIR(st.st_mode):
                walk(r)
    walk("")
    return sorted(out, key=lambda t: t[0])


def digest(root):
    """root.digest's text for the tree at @root: the sha256 of one line per
    directory, symlink (its target) and file (executable or not, its sha256)."""
    h = hashlib.sha256()
    n = {"files": 0, "links": 0, "dirs": 0}
    for rel, st in entries(root):
        p = os.path.join(root, rel).encode()
        if stat.S_ISDIR(st.st_mode):
            line = b"d\0" + rel.encode()
            n["dirs"] += 1
        elif stat.S_ISLNK(st.st_mode):
            line = b"l\0" + rel.encode() + b"\0" + os.readlink(p)
            n["links"] += 1
        elif stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                content = hashlib.sha256(f.read()).hexdigest().encode()
            line = b"f\0" + rel.encode() + (b"\0x\0" if st.st_mode & 0o111 else b"\0-\0") + content
            n["files"] += 1
        else:
            raise SystemExit("fixture_tree: %s: not a file, directory or symlink" % p.decode())
        h.update(line + b"\n")
    return "sha256 %s\nfiles %d\nlinks %d\ndirs %d\n" % (h.hexdigest(), n["files"], n["links"], n["dirs"])


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def verify(fixture):
    """Lines saying how the built fixture at @fixture differs from what its
    goldens were made from: its tree (root.digest), the spec.json and
    fixture.ini its spec gives, and the nvidia-smi rule (ref_classify.py)
    over the tree against its matrix or hand-checked cells."""
    import mkfixture
    import ref_classify
    root = os.path.join(fixture, "root")
    src = os.path.dirname(os.path.realpath(os.path.join(fixture, "fixture.ini")))
    name = os.path.basename(src)
    errs = []
    want_path = os.path.join(fixture, "root.digest")
    got = digest(root)
    if not os.path.exists(want_path):
        errs.append("no root.digest: tools/regen-fixtures.sh writes it")
    elif read(want_path) != got:
        errs.append("root/ is not the tree the goldens were made from (root.digest):\n  recorded %s\n  built    %s"
                    % (read(want_path).replace("\n", " "), got.replace("\n", " ")))
    kind, path = recipe(name, src)
    if kind not in ("spec", "matrix-spec"):
        return errs
    spec = mkfixture.load_spec(path)
    if kind == "spec" and read(os.path.join(fixture, "spec.json")) != mkfixture.resolved_text(spec):
        errs.append("spec.json is not tools/specs/%s.json resolved: tools/regen-fixtures.sh writes it" % name)
    if read(os.path.join(fixture, "fixture.ini")) != mkfixture.ini_text(spec):
        errs.append("fixture.ini is not what the spec gives: tools/regen-fixtures.sh writes it")
    if kind == "matrix-spec":
        _, _, bad = ref_classify.matrix_mismatches(root, os.path.join(fixture, "nvidia-smi-topo.txt"),
                                                   spec.get("expect_mismatches", []))
        errs += bad
    else:
        errs += ref_classify.cell_mismatches(root, spec.get("expect_cells", {}))
        smi = os.path.join(fixture, "nvidia-smi-topo.txt")
        if spec.get("golden") and read(smi) != ref_classify.emit_smi(root):
            errs.append("nvidia-smi-topo.txt is not ref_classify.py --emit-smi of the tree")
    return errs


def main(argv):
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "list" and len(args) == 1:
        print("\n".join(list_fixtures(args[0])))
        return 0
    if cmd == "build" and len(args) == 7 and args[3] == "--stamp" and args[5] == "--depfile":
        return build(args[0], args[1], args[2], args[4], args[6])
    if cmd == "tree" and len(args) == 3:
        generate(args[0], os.path.join(args[1], args[0]), args[2])
        return 0
    if cmd == "index" and len(args) >= 3:
        return index(args[0], args[1], args[2], args[3:])
    if cmd == "digest" and len(args) == 1:
        sys.stdout.write(digest(args[0]))
        return 0
    if cmd == "verify" and len(args) == 1:
        errs = verify(args[0])
        for e in errs:
            print(e)
        return 1 if errs else 0
    if cmd == "pack" and len(args) == 2:
        pack(args[0], args[1])
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
