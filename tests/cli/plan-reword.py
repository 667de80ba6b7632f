#!/usr/bin/env python3
"""The plan reads no word of a fix: gdrcheck-reworded (reword-fixes.c: every
fix a check makes is reworded, and starts with the words the plan once
matched: "on the switch", "reboot", "slot", "cable", "run as root") gives
the same plan as gdrcheck on every fixture: the same steps in the same
order, with the same gates, statuses, disruptive marks, checks, spec
patches and node marks, and the same report around them (needs_root, the
gates); only the fix texts differ, and every one of them does.

Runs: every `check` and `pod` run of every fixture.ini, as JSON, and a plain
`check --json` of every fixture (with its netlink replies).

  plan-reword.py GDRCHECK GDRCHECK_REWORDED FIXTURES_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pod"))
from podlib import ini as read_ini, run as podlib_run  # noqa: E402


def runs_of(d, ini):
    """The JSON check/pod argument lists of fixture @d."""
    out = []
    base = "check --json" + (" --netlink-replay netlink" if os.path.isdir(os.path.join(d, "netlink")) else "")
    for k, v in [("run.", base)] + sorted(ini.items()):
        args = v.split()
        if not k.startswith("run.") or not args or args[0] not in ("check", "pod"):
            continue
        args = [a for a in args if a != "-v"]
        if "--json" not in args:
            args.insert(1, "--json")
        if "--root" not in args and "--facts" not in args:
            args[1:1] = ["--root", "root"]
        if args not in out:
            out.append(args)
    return out


def run(exe, d, args, env_line):
    p = podlib_run(exe, args, d, env_line)
    return p.returncode, p.stdout, p.stderr


def without_fixes(doc, fixes):
    """@doc with every "fix" value taken out (collected into @fixes)."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k == "fix":
                if v is not None:
                    fixes.append(v)
                continue
            out[k] = without_fixes(v, fixes)
        return out
    if isinstance(doc, list):
        return [without_fixes(v, fixes) for v in doc]
    return doc


def steps(doc):
    """(plan, step, gate, status, disruptive, checks) of every step, in order."""
    return [(key, s.get("step"), s.get("gate"), s.get("status"), s.get("disruptive"), s.get("checks"))
            for key in ("plan", "node_plan") for s in doc.get(key) or []]


def main():
    plain, reworded, fixtures = (os.path.abspath(a) for a in sys.argv[1:4])
    failures, n_runs, n_steps, n_refused = [], 0, 0, 0
    names = sorted(n for n in os.listdir(fixtures)
                   if os.path.isfile(os.path.join(fixtures, n, "fixture.ini")))
    if not names:
        print("no fixtures under %s" % fixtures)
        return 1
    for name in names:
        d = os.path.join(fixtures, name)
        ini = read_ini(os.path.join(d, "fixture.ini"))
        for args in runs_of(d, ini):
            what = "%s: %s" % (name, " ".join(args))
            rc_a, out_a, err_a = run(plain, d, args, ini.get("env", ""))
            rc_b, out_b, err_b = run(reworded, d, args, ini.get("env", ""))
            if rc_a != rc_b:
                failures.append("%s: exit %d, reworded %d %s" % (what, rc_a, rc_b, err_b.strip()))
                continue
            if rc_a not in (0, 1):
                # A tree that is no node (pod-no-sys) is refused before any
                # check runs: no plan to compare, but refused alike.
                if rc_a == 3 and err_a == err_b and not out_a and not out_b:
                    n_refused += 1
                    continue
                failures.append("%s: exit %d: %s" % (what, rc_a, err_a.strip()))
                continue
            fixes_a, fixes_b = [], []
            a = without_fixes(json.loads(out_a), fixes_a)
            b = without_fixes(json.loads(out_b), fixes_b)
            n_runs += 1
            n_steps += len(steps(a))
            if steps(a) != steps(b):
                failures.append("%s: the plan differs:\n  %s\n  %s" % (what, steps(a), steps(b)))
            elif a != b:
                failures.append("%s: the report differs beyond the fix texts" % what)
            if len(fixes_a) != len(fixes_b) or any(x == y for x, y in zip(fixes_a, fixes_b)):
                failures.append("%s: a fix was not reworded" % what)
    for f in failures:
        print("FAIL " + f)
    print("plan-reword: %d fixtures, %d runs, %d plan steps, %d runs refused alike; %d failures"
          % (len(names), n_runs, n_steps, n_refused, len(failures)))
    return 1 if failures or not n_steps else 0


if __name__ == "__main__":
    sys.exit(main())
