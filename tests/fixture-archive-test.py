#!/usr/bin/env python3
"""A fixture tree captured from a machine is kept as root.tar.xz and unpacked
by the suite (tools/fixture_tree.py): packing is deterministic, unpacking gives
back the same tree (its digest), and an archive whose names leave the tree is
refused.

  fixture-archive-test.py TREE WORKDIR
"""
import io
import os
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import fixture_tree  # noqa: E402


def main():
    tree, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    fx = os.path.join(work, "src", "captured-archive-test")
    os.makedirs(fx)
    with open(os.path.join(fx, "fixture.ini"), "w") as f:
        f.write("source = captured\n")
    archive = os.path.join(fx, "root.tar.xz")
    fixture_tree.pack(tree, archive)
    fixture_tree.pack(tree, archive + ".again")
    with open(archive, "rb") as a, open(archive + ".again", "rb") as b:
        if a.read() != b.read():
            print("two packs of one tree differ")
            return 1
    os.unlink(archive + ".again")
    if fixture_tree.recipe("captured-archive-test", fx)[0] != "archive":
        print("root.tar.xz is not what the tree is built from")
        return 1
    out = os.path.join(work, "out")
    fixture_tree.generate("captured-archive-test", fx, out)
    want, got = fixture_tree.digest(tree), fixture_tree.digest(out)
    if want != got:
        print("unpacked tree differs:\n%s\n%s" % (want, got))
        return 1

    evil = os.path.join(work, "evil.tar.xz")
    with tarfile.open(evil, "w:xz") as t:
        ti = tarfile.TarInfo("../outside")
        ti.size = 1
        t.addfile(ti, io.BytesIO(b"x"))
    try:
        fixture_tree.unpack(evil, os.path.join(work, "evil"))
    except SystemExit as e:
        print("refused: %s" % e)
    else:
        print("an archive member outside the tree was unpacked")
        return 1
    if os.path.exists(os.path.join(work, "outside")):
        print("wrote outside the tree")
        return 1
    print("archive of %s: %s" % (tree, got.split("\n")[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
