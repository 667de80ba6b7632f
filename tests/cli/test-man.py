#!/usr/bin/env python3
"""The manual pages say what --help says, and man reads them without a warning.

tools/gen-man.py writes gdrcheck(8) and gdrcheck-COMMAND(8) from the
program's --help at build time. Here, for the main help and every command
of its list: the page exists, `man --warnings` (groff -ww, what rpmlint's
manual-page-warning runs) prints nothing, and every word of the help text is
in the rendered page, as often as in the help (nothing dropped on the way).

Usage: test-man.py GDRCHECK MANDIR
"""
import collections
import os
import shutil
import subprocess
import sys

# groff's typographic characters back to what --help prints.
NORMALISE = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u2018": "'", "\u2019": "'",
                           "\u201c": '"', "\u201d": '"', "\u00a0": " "})


def help_words(gdrcheck, args):
    text = subprocess.run([gdrcheck] + args + ["--help"], capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C", NO_COLOR="1"), check=True).stdout
    words = text.split()
    # Layout the page has in its own form: "Usage:", section titles, "Exit status:".
    drop = {"Usage:", "Options:", "Commands:", "Exit", "status:", "Input", "(one", "of):", "Both", "ends:",
            "Server:", "Client:", "mix):", "Output:"}
    return collections.Counter(w for w in words if w not in drop)


def page_words(path):
    env = dict(os.environ, LC_ALL="C.UTF-8")
    p = subprocess.run(["groff", "-man", "-Tutf8", "-P-cbou", "-rLL=3000n", path],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"groff {path}: {p.stderr}")
    return collections.Counter(p.stdout.translate(NORMALISE).split())


def main():
    gdrcheck, mandir = sys.argv[1], sys.argv[2]
    for tool in ("man", "groff"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (tools/install-deps.sh installs man-db)")
            return 77
    main_help = subprocess.run([gdrcheck, "--help"], capture_output=True, text=True, check=True).stdout
    commands = []
    in_list = False
    for line in main_help.splitlines():
        if line == "Commands:":
            in_list = True
        elif in_list and line.startswith("  ") and not line.lstrip().startswith("-"):
            commands.append(line.split()[0])
        elif in_list and not line.startswith("  "):
            in_list = False
    errors = []
    pages = [("gdrcheck.8", [])] + [(f"gdrcheck-{c}.8", [c]) for c in commands]
    for name, args in pages:
        path = os.path.join(mandir, name)
        if not os.path.exists(path):
            errors.append(f"{name}: no page for '{' '.join(['gdrcheck'] + args)}'")
            continue
        warn = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", path],
                              capture_output=True, text=True, env=dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80"))
        if warn.returncode != 0 or warn.stderr.strip():
            errors.append(f"{name}: man --warnings: {warn.stderr.strip() or warn.returncode}")
        missing = help_words(gdrcheck, args) - page_words(path)
        if missing:
            errors.append(f"{name}: words of --help missing from the page: {sorted(missing.elements())[:20]}")
        else:
            print(f"{name}: every word of the help, no warning")
    if len(commands) < 5:
        errors.append(f"the main help lists only {commands}")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
