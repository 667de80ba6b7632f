#!/usr/bin/env python3
"""'gdrcheck labels --listen': the /metrics server answers GET and HEAD with
promtool-clean text, refuses everything else, and survives hostile clients:
bodies, every other method, huge headers and URLs, garbage, binary bytes, a
slow client trickling its request, more connections than it allows, clients
that never send. Loopback only (127.0.0.1 serves, 127.0.0.2/3 attack), every
loop bounded in count and time. When the loop stops (SIGTERM) it exits 0 and
removes the files it wrote. Both address families as the DaemonSet's
--listen=$(POD_IP):9402 makes them: "10.0.0.5:9402" and, on an IPv6 pod
network, "fd00::5:9402" without brackets (and "[fd00::5]:9402").

Usage: test-metrics-server.py GDRCHECK FIXTURES
"""
import gzip
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


def slow_clients(port, n, address):
    """@n connections from address(i), each having sent a request line and a header."""
    socks = []
    for i in range(n):
        s = socket.socket()
        s.settimeout(2)
        s.bind((address(i), 0))
        try:
            s.connect((HOST, port))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        except OSError:
            s.close()
    return socks


def serve_family(gdrcheck, d, args, listen, host, tmp):
    """Start --listen @listen (port 0), GET /metrics over @host; the status, or why not."""
    log = open(os.path.join(tmp, "stderr-family"), "w+")
    proc = subprocess.Popen([gdrcheck, "labels", "--listen", listen, "--interval", "1h"] + args, cwd=d,
                            stderr=log, stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            log.seek(0)
            m = re.search(r"port (\d+)", log.read())
            if m:
                break
            if proc.poll() is not None:
                log.seek(0)
                return f"exited {proc.returncode}: {log.read().strip()}"
            time.sleep(0.1)
        else:
            return "did not start"
        port = int(m.group(1))
        for _ in range(50):
            s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
            s.settimeout(5)
            try:
                s.connect((host, port))
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                data = b""
                while True:
                    b = s.recv(65536)
                    if not b:
                        break
                    data += b
            finally:
                s.close()
            # 503 "no run yet" until the first run publishes.
            if status(data) == 200 and b"gdrcheck_gate_status{" in data:
                return 200
            time.sleep(0.1)
        return status(data)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def ipv6_loopback():
    try:
        s = socket.socket(socket.AF_INET6)
        s.bind(("::1", 0))
        s.close()
        return True
    except OSError:
        return False


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
        # Ready when the first run's log line is out: it is written after the
        # run is published to the server, the textfile before it.
        for _ in range(300):
            log.seek(0)
            text = log.read()
            m = re.search(r"port (\d+)", text)
            if m and os.path.exists(prom) and "gdrcheck labels: run 1 " in text:
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
        # /facts: what 'collect' writes of the same node, byte for byte; gzip'd only when asked.
        r = get(port, "/facts")
        head, _, body = r.partition(b"\r\n\r\n")
        want = subprocess.run([gdrcheck, "collect"] + args, cwd=d, capture_output=True).stdout
        expect(f"GET /facts: {head[:80]!r}", status(r) == 200 and b"Content-Type: application/json" in head
               and b"Content-Encoding" not in head and b"Vary: Accept-Encoding" in head)
        expect("GET /facts is not the document collect writes", body == want)
        for accept, zipped in [(b"gzip", True), (b"gzip, deflate, br", True), (b"*", True),
                               (b"gzip;q=0", False), (b"identity", False), (b"br", False)]:
            r = get(port, "/facts", extra=b"Accept-Encoding: " + accept + b"\r\n")
            head, _, body = r.partition(b"\r\n\r\n")
            got = (b"Content-Encoding: gzip" in head)
            expect(f"GET /facts, Accept-Encoding {accept!r}: gzip {got}", got == zipped and status(r) == 200)
            expect(f"GET /facts, Accept-Encoding {accept!r}: another document",
                   (gzip.decompress(body) if got else body) == want)
        r = get(port, "/facts", method="HEAD")
        expect(f"HEAD /facts: {r[:40]!r}", status(r) == 200 and r.endswith(b"\r\n\r\n"))
        for m in ["POST", "PUT", "DELETE"]:
            st = status(get(port, "/facts", method=m))
            expect(f"{m} /facts answered {st}", st in (405, 400, 501))
        r = request(port, b"PUT /facts HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        expect(f"PUT /facts with a body answered {status(r)}", status(r) == 413)
        for path in ["/facts/", "/facts/../metrics", "/factsx", "/facts?x=1"]:
            st = status(get(port, path))
            expect(f"GET {path} answered {st}", st in (404, 400) or (path == "/facts?x=1" and st == 200))

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
        socks = slow_clients(port, 40, lambda i: f"127.0.0.{2 + i % 2}")
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
        for s in socks:
            s.close()
        socks = []
        time.sleep(1)  # the server closes its ends of those first

        # Starvation (outside fuzzing): four addresses, four connections each (every
        # slot), each sending a header line every 2 s. Before, they held every slot for
        # as long as 16 KiB of head lasted and Prometheus was never accepted. Now a new
        # client evicts the oldest connection still sending its head, and no head may
        # take longer than 5 s: a scrape gets in at once, every trickler is closed.
        tricklers = [(s, time.monotonic()) for s in slow_clients(port, 16, lambda i: f"127.0.0.{2 + i // 4}")]
        expect(f"only {len(tricklers)} of 16 slow clients connected", len(tricklers) == 16)
        time.sleep(0.5)

        def alive(s):
            try:
                s.settimeout(0.01)
                return s.recv(1) != b""
            except socket.timeout:
                return True
            except OSError:
                return False
        expect("the server refused some of the 16 slow clients (it takes 16)",
               all(alive(s) for s, _ in tricklers))
        closed_after = {}
        t0 = time.monotonic()
        scrapes = []
        while time.monotonic() - t0 < 8:
            t = time.monotonic()
            r = get(port)
            scrapes.append((status(r), time.monotonic() - t))
            for s, since in tricklers:
                if s in closed_after:
                    continue
                try:
                    s.sendall(b"X-Slow: y\r\n")
                    s.settimeout(0.01)
                    if s.recv(1) == b"":
                        closed_after[s] = time.monotonic() - since
                except socket.timeout:
                    pass
                except OSError:
                    closed_after[s] = time.monotonic() - since
            time.sleep(2)
        expect(f"with every slot held by slow clients, scrapes answered {scrapes}",
               scrapes and all(st == 200 and d < 2 for st, d in scrapes))
        expect(f"{16 - len(closed_after)} slow clients still open after 8 s (a head must come within 5 s)",
               len(closed_after) == 16)
        expect(f"a slow client was kept {max(closed_after.values(), default=0):.1f} s",
               max(closed_after.values(), default=0) < 7.5)
        for s, _ in tricklers:
            s.close()
        # A silent connection is closed when its head is late (5 s).
        quiet = socket.socket()
        quiet.settimeout(15)
        quiet.connect((HOST, port))
        t0 = time.monotonic()
        try:
            closed = quiet.recv(1) == b""
        except (socket.timeout, ConnectionResetError):
            closed = False
        expect(f"a silent connection was not closed within 7 s ({time.monotonic() - t0:.1f} s)",
               closed and time.monotonic() - t0 < 7)
        quiet.close()
        r = get(port)
        expect(f"after the flood, GET /metrics answered {status(r)}", status(r) == 200)
        expect("the answer does not close its connection", b"Connection: close" in r.partition(b"\r\n\r\n")[0])
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

        # Both families, as $(POD_IP):PORT gives them.
        families = [("127.0.0.1:0", "127.0.0.1")]
        if ipv6_loopback():
            families += [("::1:0", "::1"), ("[::1]:0", "::1")]
        else:
            print("IPv6: no ::1 on this machine, only IPv4 tested")
        for listen, host in families:
            got = serve_family(gdrcheck, d, args, listen, host, tmp)
            expect(f"--listen {listen}: GET /metrics over {host}: {got}", got == 200)

        # Usage: an address that does not parse, a port out of range (said so).
        for bad in ("nonsense", "fd00::5", "::1:65536", "[::1:0", "10.0.0.300:9402", "fd00::5]:9402"):
            p = k8slib.run([gdrcheck, "labels", "--listen", bad] + args, cwd=d)
            expect(f"--listen {bad} exited {p.returncode}", p.returncode == 2)
        p = k8slib.run([gdrcheck, "labels", "--listen", "127.0.0.1:99999"] + args, cwd=d)
        expect(f"--listen 127.0.0.1:99999: exit {p.returncode}, {p.stderr!r}",
               p.returncode == 2 and "port 99999 is out of range" in p.stderr)
    for e in errors:
        print(e)
    print(f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
