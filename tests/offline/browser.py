#!/usr/bin/env python3
"""Render the node pictures in headless Chromium.

  browser.py GDRCHECK FIXTURES_DIR OUT_DIR

For each input (seed-2, HGX, a node with no GPU and no NIC) and each window
width (1280 and 1920 px): OUT_DIR/<name>.html is the `topo --format html`
page; a copy with a small script that measures the browser's own layout
(bounding boxes) is loaded with --dump-dom, and the page is screenshot to
OUT_DIR/<name>-<width>.png. Checks: no element outside a horizontal scroll
block overflows the page; every node's box lies inside the visible area
(the window, the picture and its scroll box: the picture is fitted to the
page by default); every text line of a box fits inside the box; the title
is shown once; without a GPU the title and the "No NVIDIA GPU" sentence
are inside the standalone SVG; the PNG is not blank and, where there are
GPUs, shows the verdict colours. Skips (exit 77) when Chromium is not
installed.
"""
import html as html_lib
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

FIXTURES = ["seed2-b300-e810", "hgx-h100-bcm-gen5", "no-gpu-no-nic"]
WIDTHS = (1280, 1920)
HEIGHT = 1400

PROBE = r"""<script>
/* Lines on the layout of one page (DOC in window WIN) as the browser made it. */
function probe(doc, win, page) {
  var W = page ? doc.documentElement.clientWidth : Infinity, lines = [];
  function scrolled(e) {
    for (var p = e.parentElement; p; p = p.parentElement)
      if (p.classList && p.classList.contains('scroll')) return true;
    return false;
  }
  var all = doc.body.getElementsByTagName('*');
  for (var i = 0; page && i < all.length; i++) {
    var e = all[i], r = e.getBoundingClientRect();
    if (scrolled(e) || (r.width === 0 && r.height === 0)) continue;
    if (r.left < -0.5 || r.right > W + 0.5)
      lines.push('overflow ' + e.tagName + ' ' + Math.round(r.left) + '..' + Math.round(r.right) + ' > ' + W);
  }
  /* The visible area: the window (a page), the picture's scroll box, the SVG itself. */
  function clip(e) {
    var c = {left: 0, top: 0, right: W, bottom: Infinity};
    for (var p = e; p && p !== doc.body; p = p.parentElement) {
      var st = p.tagName.toLowerCase() === 'svg' ? 'hidden' : win.getComputedStyle(p).overflowX;
      if (st !== 'visible') {
        var r = p.getBoundingClientRect();
        c.left = Math.max(c.left, r.left); c.right = Math.min(c.right, r.right);
        c.top = Math.max(c.top, r.top); c.bottom = Math.min(c.bottom, r.bottom);
      }
    }
    return c;
  }
  function inside(e, what) {
    var r = e.getBoundingClientRect(), c = clip(e);
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5 ||
        r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5)
      lines.push('outside ' + what + ' ' + Math.round(r.left) + ',' + Math.round(r.top) + '..' +
                 Math.round(r.right) + ',' + Math.round(r.bottom) + ' visible ' + Math.round(c.left) + ',' +
                 Math.round(c.top) + '..' + Math.round(c.right) + ',' + Math.round(c.bottom));
  }
  var boxes = doc.querySelectorAll('g.box');
  for (var b = 0; b < boxes.length; b++)
    inside(boxes[b].querySelector('rect'), 'box "' + boxes[b].querySelector('text').textContent + '"');
  var texts = doc.querySelectorAll('svg text.note, svg text.title');
  for (var n = 0; n < texts.length; n++)
    if (/No NVIDIA GPU|gdrcheck topo/.test(texts[n].textContent))
      inside(texts[n], 'text "' + texts[n].textContent + '"');
  var h1 = doc.querySelector('h1'), heads = doc.querySelectorAll('h1, svg text.title'), titles = 0;
  for (var t = 0; t < heads.length; t++)
    if (h1 && heads[t].textContent === h1.textContent) titles++;
  lines.push('titles ' + titles);
  for (var b = 0; b < boxes.length; b++) {
    var rect = boxes[b].querySelector('rect').getBBox();
    var bt = boxes[b].querySelectorAll('text');
    for (var k = 0; k < bt.length; k++) {
      var tb = bt[k].getBBox();
      if (tb.x < rect.x || tb.x + tb.width > rect.x + rect.width + 0.5 ||
          tb.y < rect.y || tb.y + tb.height > rect.y + rect.height + 0.5)
        lines.push('text-overflow "' + bt[k].textContent + '" ' +
                   Math.round(tb.x + tb.width) + ' > ' + Math.round(rect.x + rect.width));
    }
  }
  lines.push('boxes ' + boxes.length);
  lines.push('viewport ' + W);
  return lines;
}
window.addEventListener('load', function () {
  var out = [], frames = document.querySelectorAll('iframe');
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i];
    out.push('== ' + f.getAttribute('data-name'));
    try {
      out = out.concat(probe(f.contentDocument, f.contentWindow, f.getAttribute('data-kind') === 'html'));
    } catch (e) {
      out.push('error ' + e);
    }
  }
  var pre = document.createElement('pre');
  pre.id = 'layout-probe';
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
});
</script>
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def browser(exe, args, width, timeout=240):
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu",
            "--hide-scrollbars", "--no-first-run", "--disable-extensions",
            "--allow-file-access-from-files", f"--window-size={width},{HEIGHT}"]
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


def render(exe, fixtures, out, name, fmt):
    """(cwd, argv) of `topo --format FMT` for NAME; the GPU-less node is a facts file."""
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if name == "no-gpu-no-nic":
        # The no-gpu fixture without its RDMA NICs: no box at all to draw.
        facts = os.path.join(out, name + "-facts.json")
        p = subprocess.run([exe, "collect", "--root", "root"], capture_output=True, text=True,
                           cwd=os.path.join(fixtures, "no-gpu"), env=env, timeout=60)
        assert p.returncode == 0, p.stderr
        d = json.loads(p.stdout)
        d["gpus"], d["nics"] = [], []
        with open(facts, "w", encoding="utf-8") as f:
            json.dump(d, f)
        cwd, argv = out, ["--facts", facts]
    else:
        cwd, argv = os.path.join(fixtures, name), ["--root", "root"]
    p = subprocess.run([exe, "topo", "--format", fmt] + argv, cwd=cwd,
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def main():
    exe, fixtures, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    chrome = chromium()
    if not chrome:
        print("SKIP: Chromium is not installed (Debian package chromium); the HTML page is not rendered")
        sys.exit(77)
    os.makedirs(out, exist_ok=True)
    bad = 0
    # One browser run measures every page: each in a frame of the width under test.
    frames = []
    for name in FIXTURES:
        html = render(exe, fixtures, out, name, "html")
        with open(os.path.join(out, name + ".html"), "w", encoding="utf-8") as f:
            f.write(html)
        # The standalone SVG, inline in a bare page: its own size must show it all.
        svg = render(exe, fixtures, out, name, "svg")
        if name == "no-gpu-no-nic" and "No NVIDIA GPU" not in svg:
            print(f"FAIL {name}: no \"No NVIDIA GPU\" sentence in the SVG")
            bad += 1
        with open(os.path.join(out, name + "-svg.html"), "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html><html><head><meta charset='utf-8'/><title>svg</title></head>"
                    "<body style='margin:0'>" + svg.split("?>", 1)[-1] + "</body></html>")
        for width in WIDTHS:
            frames.append((name, "html", width, name + ".html"))
        frames.append((name, "svg", WIDTHS[0], name + "-svg.html"))
    master = os.path.join(out, "probe.html")
    with open(master, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><head><meta charset='utf-8'/><title>probe</title></head><body>\n")
        for name, kind, width, page in frames:
            f.write("<iframe data-name='%s %s %d' data-kind='%s' width='%d' height='%d' src='%s'></iframe>\n"
                    % (name, kind, width, kind, width, HEIGHT, page))
        f.write(PROBE + "</body></html>\n")
    d = browser(chrome, ["--dump-dom", "file://" + master], WIDTHS[-1])
    start = d.stdout.find('<pre id="layout-probe">')
    if start < 0:
        print(f"FAIL: the layout probe did not run (rc {d.returncode}): {d.stderr[-400:]}")
        sys.exit(1)
    report = html_lib.unescape(d.stdout[start:d.stdout.find("</pre>", start)].split(">", 1)[1])
    page = None
    seen = set()
    for line in report.splitlines():
        if line.startswith("== "):
            page = line[3:]
            seen.add(page)
            continue
        problem = line.startswith(("overflow", "text-overflow", "outside", "error"))
        if page.split()[1] == "html" and line.startswith("titles") and line != "titles 1":
            problem = True
            line = "the title is not shown exactly once (%s)" % line
        if problem:
            print(f"FAIL {page} px: {line}")
            bad += 1
        elif line.startswith("boxes"):
            print(f"{page} px: {line}")
    if len(seen) != len(frames):
        print(f"FAIL: {len(seen)} of {len(frames)} pages measured")
        bad += 1
    for name in FIXTURES:
        png = os.path.join(out, name + ".png")
        s = browser(chrome, ["--screenshot=" + png, "file://" + os.path.join(out, name + ".html")], WIDTHS[0])
        if not os.path.exists(png):
            print(f"FAIL {name}: no screenshot (rc {s.returncode}): {s.stderr[-400:]}")
            bad += 1
            continue
        total, ink, colour = pixel_stats(png)
        print(f"{name}: {ink} of {total} pixels not white, {colour} coloured; {png}")
        if ink < total // 100 or (name != "no-gpu-no-nic" and colour < 500):
            print(f"FAIL {name}: the screenshot is blank or shows no verdict colour")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
