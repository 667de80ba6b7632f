#!/bin/sh
# topo --format and check --format end to end: every input kind draws a
# well-formed picture, the formats that mean the same agree, and the
# combinations that ask for two outputs are usage errors.
set -u
bin=$1
tests=$2
fixtures=$3
. "${0%/*}/lib.sh"
wellformed() { # wellformed WHAT: $tmp/out parses as XML
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/out" ||
		fail "$1: not well-formed XML"
}
seed2=$fixtures/seed2-b300-e810

expect 2 "topo --json --format svg" -- "$bin" topo --json --format svg --root "$seed2/root"
grep -q -- "--json and --format svg" "$tmp/err" || fail "json+svg: message: $(cat "$tmp/err")"
expect 2 "topo --format png" -- "$bin" topo --format png --root "$seed2/root"
grep -q "text, json, svg, dot or html" "$tmp/err" || fail "format png: message"
expect 2 "check --format svg" -- "$bin" check --format svg --root "$seed2/root"
expect 2 "check --json --format html" -- "$bin" check --json --format html --root "$seed2/root"

# Same meaning, same bytes.
"$bin" topo --json --root "$seed2/root" >"$tmp/a"
"$bin" topo --format json --root "$seed2/root" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "--format json differs from --json"
"$bin" topo --root "$seed2/root" >"$tmp/a"
"$bin" topo --format text --root "$seed2/root" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "--format text differs from the default"

# Every input kind.
expect 0 "--root svg" -- "$bin" topo --format svg --root "$seed2/root"
wellformed "--root svg"
"$bin" collect --root "$seed2/root" >"$tmp/facts.json" 2>/dev/null || fail "collect"
expect 0 "--facts svg" -- "$bin" topo --format svg --facts "$tmp/facts.json"
wellformed "--facts svg"
grep -q 'id="path-gpu7"' "$tmp/out" || fail "--facts svg: no path for GPU7"
expect 0 "--nccl-xml svg" -- "$bin" topo --format svg \
	--nccl-xml "$tests/data/realworld/A-aws-ofi-nccl-p4d-24xl/p4d-24xl-topo.xml"
wellformed "--nccl-xml svg"
expect 0 "--nccl-xml NVLink svg" -- "$bin" topo --format svg \
	--nccl-xml "$tests/data/pictures/nvlink-2gpu-topo.xml"
wellformed "--nccl-xml NVLink svg"
grep -q '<g class="nvlinks">' "$tmp/out" || fail "--nccl-xml svg: NVLink of the XML not drawn"
expect 0 "--hwloc-xml svg" -- "$bin" topo --format svg \
	--hwloc-xml "$tests/data/realworld/C-llnl-mpibind-coral-lassen/coral-lassen.xml"
wellformed "--hwloc-xml svg"
# This machine as it is: whatever it has, the picture parses.
expect 0 "live svg" -- "$bin" topo --format svg
wellformed "live svg"
expect 0 "live html" -- "$bin" topo --format html
wellformed "live html"

# Names are data: markup characters and control bytes in them are escaped.
python3 - "$tmp/facts.json" "$tmp/hostile.json" <<'PY' || fail "hostile facts"
import json, sys
d = json.load(open(sys.argv[1]))
# The NIC's netdev: the interface on its PCI function (device/net).
nd = next(n for n in d["netdevs"] if n.get("bdf") == d["nics"][0]["bdf"])
nd["name"] = "<b>&\"x'\u0001"
d["gpus"][0]["name"] = "]]></text><script>alert(1)</script>"
json.dump(d, open(sys.argv[2], "w"))
PY
for fmt in svg html; do
	expect 0 "hostile names $fmt" -- "$bin" topo --format $fmt --facts "$tmp/hostile.json"
	wellformed "hostile names $fmt"
	grep -q "<script" "$tmp/out" && fail "hostile names $fmt: markup not escaped"
	grep -q "&lt;b&gt;&amp;&quot;x&#39;?" "$tmp/out" || fail "hostile names $fmt: escaping"
done
expect 0 "hostile names dot" -- "$bin" topo --format dot --facts "$tmp/hostile.json"
if command -v dot >/dev/null 2>&1; then
	dot -Tsvg "$tmp/out" >/dev/null 2>"$tmp/doterr" || fail "hostile names: dot rejects the DOT output"
fi

# Characters outside XML 1.0's Char (C0 but tab/LF/CR, U+FFFE, U+FFFF),
# other noncharacters, C1 and DEL, and raw bytes that are not UTF-8, in the
# hostname, a GPU name and a netdev name: every picture stays well-formed
# UTF-8 (issue 25 item 2; U+FFFF once passed into the SVG as it was).
python3 - "$tmp/hostile.json" "$tmp/xmlchar.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = "\ufffe\uffff\ufdd0\U0001fffe\u0001\u001b[2J\u0007\u000b\u000c\r\u007f\u0085\u009b"
d["host"]["hostname"] = "node-" + bad + "-01"
d["gpus"][0]["name"] = "NVIDIA L40S " + bad
next(n for n in d["netdevs"] if n.get("bdf") == d["nics"][0]["bdf"])["name"] = "eth" + bad + "0"
doc = json.dumps(d, ensure_ascii=False).encode("utf-8")
# Raw bytes json-c takes as they are: a lone \xff, a cut sequence, a surrogate.
doc = doc.replace(b"-01", b"-\xff\xe2\x82\xed\xa0\x80-01", 1)
open(sys.argv[2], "wb").write(doc)
PY
xmlok() { # xmlok WHAT: $tmp/out is UTF-8 and well-formed for Python and libxml2
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$tmp/out" ||
		fail "$1: not UTF-8"
	wellformed "$1"
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$tmp/out" 2>"$tmp/xmlerr" || fail "$1: xmllint: $(head -3 "$tmp/xmlerr")"
	fi
	grep -q "node\(-\|&#45;\)" "$tmp/out" && grep -q "NVIDIA L40S" "$tmp/out" ||
		fail "$1: the names are gone"
}
for fmt in svg html; do
	expect 0 "XML Char $fmt" -- "$bin" topo --format $fmt --facts "$tmp/xmlchar.json"
	xmlok "XML Char $fmt"
done
expect 0 "XML Char check html" -- "$bin" check --format html --facts "$tmp/xmlchar.json"
xmlok "XML Char check html"
expect 0 "XML Char dot" -- "$bin" topo --format dot --facts "$tmp/xmlchar.json"
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$tmp/out" ||
	fail "XML Char dot: not UTF-8"
if command -v dot >/dev/null 2>&1; then
	dot -Tsvg "$tmp/out" >"$tmp/dot.svg" 2>"$tmp/doterr" || fail "XML Char: dot rejects the DOT output"
	mv "$tmp/dot.svg" "$tmp/out"
	xmlok "XML Char dot -Tsvg"
fi

# check --format html: what decides first (the gates' summary lines and the
# top blockers, as the text report), then the picture above the gates and the
# fix plan.
m=$fixtures/e810-ets-noncontiguous
expect 1 "check html" -- "$bin" check --format html --root "$m/root" --netlink-replay "$m/netlink"
wellformed "check html"
python3 - "$tmp/out" <<'PY' || fail "check html: layout of the page"
import sys
t = open(sys.argv[1], encoding="utf-8").read()
svg, gates, plan = t.find("<svg"), t.find("<h2>Gates</h2>"), t.find("<h2>Fix plan</h2>")
summary, blockers = t.find("<h2>Summary</h2>"), t.find("<h2>Top blockers</h2>")
assert 0 < summary < blockers < svg < gates < plan, (summary, blockers, svg, gates, plan)
assert "<b>Gate 2 RDMA:</b>" in t[summary:blockers], "no gate summary line"
assert "roce.ets" in t[blockers:svg], "the top blockers lack roce.ets"
assert "http://" not in t.replace('xmlns="http://www.w3.org/2000/svg"', ""), "external reference"
assert "<script" not in t and "src=" not in t and "href=" not in t
PY
echo "ok"
