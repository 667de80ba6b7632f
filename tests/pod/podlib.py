# SPDX-License-Identifier: MIT
"""Helpers the pod tests share: a fixture's fixture.ini and running gdrcheck
the way tests/run-fixture.py does (C locale, no HOME, the fixture's env)."""
import os
import subprocess


def ini(path):
    keys = {}
    with open(path) as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, _, v = line.partition("=")
                keys[k.strip()] = v.strip()
    return keys


def run(gdr, args, cwd, env_extra=""):
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    for kv in env_extra.split():
        k, _, v = kv.partition("=")
        env[k] = v
    return subprocess.run([gdr] + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
