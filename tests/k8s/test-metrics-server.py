#!/usr/bin/env python3
"""'gdrcheck labels --listen': the /metrics server answers GET and HEAD with
promtool-clean text, refuses everything else, and survives hostile clients:
bodies, every other method, huge headers and URLs, garbage, binary bytes, a
slow client trickling its request, more connections than it allows, clients
that never send. Loopback only (127.0.0.1 serves, 127.0.0.2/3 attack), every
loop bounded in count and time. When the loop stops (SIGTERM) it exits 0 and
removes the files it wrote.

Usage: test-metrics-server.py GDRCHECK FIXTURES
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import k8slib

HOST = "127.0.0.1"


def request(port, raw, src=None, timeout=5.0):
    """Send @raw, return what the server answers until it closes (or the timeout)."""
    s = socket.socket()
    s.settimeout(timeout)
    if src:
        s.bind((src, 0))
    s.connect((HOST, port))
    s.sendall(raw)
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
            if b"\r\n\r\n" in data and b"Content-Length" in data:
                head, _, body = data.partition(b"\r\n\r\n")
                m = re.search(rb"Content-Length: (\d+)", head)
                if m and len(body) >= int(m.group(1)):
                    break
                if raw.startswith(b"HEAD"):
                    break
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return data


def status(resp):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", resp)
    return int(m.group(1)) if m else None


def get(port, path="/metrics", method="GET", extra=b"", src=None):
    return request(port, f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n".encode() + extra + b"\r\n",
                   src=src)


def main():
    gdrcheck, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2]
    name, d, args = k8slib.fixtures(fixtures, ["hgx-h100-healthy"])[0]
    errors = []

    def expect(what, cond):
        if not cond:
            errors.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        nfd, prom = os.path.join(tmp, "gdrcheck"), os.path.join(tmp, "gdrcheck.prom")
        log = open(os.path.join(tmp, "stderr"), "w+")
        proc = subprocess.Popen([gdrcheck, "labels", "--listen", f"{HOST}:0", "--interval", "2s", "--nfd", nfd,
                                 "--prom", prom] + args, cwd=d, stderr=log, stdout=subprocess.DEVNULL)
        port = None
        for _ in range(100):
            log.seek(0)
            m = re.search(r"port (\d+)", log.read())
            if m and os.path.exists(prom):
                port = int(m.group(1))
                break
            time.sleep(0.1)
        if not port:
            proc.kill()
            log.seek(0)
            print(f"the server did not start: {log.read()}")
            return 1

        # What it is for.
        r = get(port)
        head, _, body = r.partition(b"\r\n\r\n")
        expect(f"GET /metrics: {head[:80]!r}", status(r) == 200)
        expect("GET /metrics: not the Prometheus text format 0.0.4",
               b"Content-Type: text/plain; version=0.0.4" in head)
        expect("GET /metrics: no gdrcheck_gate_status", b"gdrcheck_gate_status{" in body)
        promtool = shutil.which("promtool")
        if promtool:
            p = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True)
            expect(f"promtool check metrics: {p.stdout.decode()} {p.stderr.decode()}", p.returncode == 0)
        with open(prom, "rb") as f:
            names = lambda t: sorted(set(re.findall(rb"^(gdrcheck_\w+)", t, re.M)))
            expect("/metrics and the textfile hold other metric names", names(body) == names(f.read()))
        r = get(port, method="HEAD")
        expect(f"HEAD /metrics: {r[:40]!r}", status(r) == 200 and r.endswith(b"\r\n\r\n"))
        expect("GET /healthz", status(get(port, "/healthz")) == 200)

        # Nothing else.
        for m in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "BREW"]:
            st = status(get(port, method=m))
            expect(f"{m} /metrics answered {st}", st in (405, 400, 501))
        st = status(get(port, method="POST", extra=b"Content-Length: 5\r\n") + b"")
        r = request(port, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        expect(f"POST with a body answered {status(r)}", status(r) == 413)
        r = request(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        expect(f"GET with a chunked body answered {status(r)}", status(r) == 413)
        for path in ["/", "/metrics/../../etc/passwd", "/..%2f..%2fetc/passwd", "/healthz/x", "/metricsx"]:
            st = status(get(port, path))
            expect(f"GET {path} answered {st}", st in (404, 400))
        r = get(port, "/" + "a" * 60000)
        expect(f"a 60 KB URL answered {status(r)}", status(r) in (414, 431, 400, None))
        r = get(port, extra=b"X-Big: " + b"b" * 100000 + b"\r\n")
        expect(f"a 100 KB header answered {status(r)}", status(r) in (431, 413, 400, None))
        r = get(port, extra=b"".join(b"X-%d: v\r\n" % i for i in range(5000)))
        expect(f"5000 headers answered {status(r)}", status(r) in (431, 413, 400, None))
        for garbage in [b"GARBAGE\r\n\r\n", bytes(range(256)) * 4, b"GET\r\n\r\n", b"\r\n" * 1000,
                        b"GET /metrics HTTP/9.9\r\n\r\n"]:
            r = request(port, garbage, timeout=12)
            expect(f"garbage {garbage[:16]!r} answered {status(r)}", status(r) in (400, 404, 505, None))
        # libmicrohttpd ends the path at a NUL: /metrics, read-only like any other answer.
        r = request(port, b"GET /metrics\x00/x HTTP/1.1\r\nConnection: close\r\n\r\n", timeout=12)
        expect(f"a NUL in the path answered {status(r)}", status(r) in (200, 400, 404, None))

        # Hostile clients: a trickle, more connections than allowed, silent ones.
        socks = []
        for i in range(40):
            s = socket.socket()
            s.settimeout(2)
            s.bind((f"127.0.0.{2 + i % 2}", 0))
            try:
                s.connect((HOST, port))
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                socks.append(s)
            except OSError:
                s.close()
        t0 = time.monotonic()
        while time.monotonic() - t0 < 3:
            for s in socks:
                try:
                    s.sendall(b"X: y\r\n")
                except OSError:
                    pass
            r = get(port, "/healthz")
            expect(f"with 40 trickling clients on other addresses, /healthz answered {status(r)}",
                   status(r) == 200)
            time.sleep(0.5)
        # Silent connections are closed after the 10 s connection timeout.
        quiet = socket.socket()
        quiet.settimeout(15)
        quiet.connect((HOST, port))
        t0 = time.monotonic()
        try:
            closed = quiet.recv(1) == b""
        except (socket.timeout, ConnectionResetError):
            closed = False
        expect(f"a silent connection was not closed within 15 s ({time.monotonic() - t0:.1f} s)", closed)
        quiet.close()
        for s in socks:
            s.close()
        r = get(port)
        expect(f"after the flood, GET /metrics answered {status(r)}", status(r) == 200)
        expect(f"the server died: {proc.poll()}", proc.poll() is None)

        # Stop: exit 0, the files it wrote are gone.
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        expect(f"SIGTERM: exit {rc}", rc == 0)
        expect("SIGTERM: the NFD file and the textfile are still there",
               not os.path.exists(nfd) and not os.path.exists(prom))
        log.seek(0)
        lines = [l for l in log.read().splitlines() if l.startswith("gdrcheck labels: run ")]
        expect(f"one log line per run: {lines[:2]}", lines and all(" gate 1 " in l for l in lines))

        # Usage: an address that does not parse.
        p = k8slib.run([gdrcheck, "labels", "--listen", "nonsense"] + args, cwd=d)
        expect(f"--listen nonsense exited {p.returncode}", p.returncode == 2)
    for e in errors:
        print(e)
    print(f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
