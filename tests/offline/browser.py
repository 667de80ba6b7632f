#!/usr/bin/env python3
"""Render the `topo --format html` page of seed-2 and HGX in headless Chromium.

  browser.py GDRCHECK TESTS_DIR OUT_DIR

For each fixture: OUT_DIR/<name>.html is the page; a copy with a small
script that measures the browser's own layout (bounding boxes) is loaded
with --dump-dom, and the page is screenshot to OUT_DIR/<name>.png. Checks:
no element outside a horizontal scroll block overflows the page, every text
line of a box fits inside the box, the PNG is not blank and shows the
verdict colours. Skips (exit 77) when Chromium is not installed.
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

FIXTURES = ["seed2-b300-e810", "hgx-h100-bcm-gen5"]
WIDTH, HEIGHT = 1280, 1400

PROBE = """<script>
(function () {
  var W = document.documentElement.clientWidth, lines = [];
  function scrolled(e) {
    for (var p = e.parentElement; p; p = p.parentElement)
      if (p.classList && p.classList.contains('scroll')) return true;
    return false;
  }
  var all = document.body.getElementsByTagName('*');
  for (var i = 0; i < all.length; i++) {
    var e = all[i], r = e.getBoundingClientRect();
    if (scrolled(e) || (r.width === 0 && r.height === 0)) continue;
    if (r.left < -0.5 || r.right > W + 0.5)
      lines.push('overflow ' + e.tagName + ' ' + Math.round(r.left) + '..' + Math.round(r.right) + ' > ' + W);
  }
  var boxes = document.querySelectorAll('g.box');
  for (var b = 0; b < boxes.length; b++) {
    var rect = boxes[b].querySelector('rect').getBBox();
    var texts = boxes[b].querySelectorAll('text');
    for (var t = 0; t < texts.length; t++) {
      var tb = texts[t].getBBox();
      if (tb.x < rect.x || tb.x + tb.width > rect.x + rect.width + 0.5 ||
          tb.y < rect.y || tb.y + tb.height > rect.y + rect.height + 0.5)
        lines.push('text-overflow "' + texts[t].textContent + '" ' +
                   Math.round(tb.x + tb.width) + ' > ' + Math.round(rect.x + rect.width));
    }
  }
  lines.push('boxes ' + boxes.length);
  lines.push('viewport ' + W);
  var out = document.createElement('pre');
  out.id = 'layout-probe';
  out.textContent = lines.join('\\n');
  document.body.appendChild(out);
})();
</script>
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def browser(exe, args, timeout=120):
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu",
            "--hide-scrollbars", "--no-first-run", "--disable-extensions",
            f"--window-size={WIDTH},{HEIGHT}"]
    return subprocess.run(base + args, capture_output=True, text=True,
                          timeout=timeout)


def png_pixels(path):
    """(width, height, channels, rows of bytes) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"PNG type {ctype}/{depth}"
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * ch, [], bytearray(w * ch)
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, ch, rows


def pixel_stats(path):
    w, h, ch, rows = png_pixels(path)
    ink = colour = 0
    for line in rows:
        for x in range(0, w * ch, ch):
            r, g, b = line[x], line[x + 1], line[x + 2]
            if min(r, g, b) < 230:
                ink += 1
            if max(r, g, b) - min(r, g, b) > 90:
                colour += 1
    return w * h, ink, colour


def main():
    exe, tests, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    chrome = chromium()
    if not chrome:
        print("SKIP: Chromium is not installed (Debian package chromium); the HTML page is not rendered")
        sys.exit(77)
    os.makedirs(out, exist_ok=True)
    bad = 0
    for name in FIXTURES:
        fx = os.path.join(tests, "fixtures", name)
        p = subprocess.run([exe, "topo", "--format", "html", "--root", "root"], cwd=fx,
                           capture_output=True, text=True, timeout=60,
                           env={"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        assert p.returncode == 0, p.stderr
        page = os.path.join(out, name + ".html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(p.stdout)
        probe = os.path.join(out, name + "-probe.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(p.stdout.replace("</body>", PROBE + "</body>"))
        d = browser(chrome, ["--dump-dom", "file://" + probe])
        start = d.stdout.find('<pre id="layout-probe">')
        if start < 0:
            print(f"FAIL {name}: the layout probe did not run (rc {d.returncode}): {d.stderr[-400:]}")
            bad += 1
            continue
        report = d.stdout[start:d.stdout.find("</pre>", start)].split(">", 1)[1]
        problems = [l for l in report.splitlines() if l.startswith(("overflow", "text-overflow"))]
        for l in problems:
            print(f"FAIL {name}: {l}")
        bad += bool(problems)
        png = os.path.join(out, name + ".png")
        s = browser(chrome, ["--screenshot=" + png, "file://" + page])
        if not os.path.exists(png):
            print(f"FAIL {name}: no screenshot (rc {s.returncode}): {s.stderr[-400:]}")
            bad += 1
            continue
        total, ink, colour = pixel_stats(png)
        print(f"{name}: {report.splitlines()[-2]}, {ink} of {total} pixels not white, {colour} coloured; {png}")
        if ink < total // 100 or colour < 500:
            print(f"FAIL {name}: the screenshot is blank or shows no verdict colour")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
