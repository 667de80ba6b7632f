#!/bin/sh
# libxml2 and libhwloc are loaded with dlopen by --nccl-xml and --hwloc-xml
# only (src/lib/sys/libxml2.c, libhwloc.c). Marker libraries named
# libxml2.so.2 and libhwloc.so.15 come first on LD_LIBRARY_PATH: they leave a
# file when mapped and define no symbol. No other command may map them, and
# an importer that finds one stops with exit 3 and names the packages.
# usage: on-demand-loads.sh GDRCHECK MARKER_LIB_DIR FIXTURES REALWORLD
set -u
gdrcheck=$1 libdir=$2 fixtures=$3 realworld=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One directory per marker: the libhwloc case needs the real libxml2.
mkdir -p "$tmp/xml2" "$tmp/hwloc" "$tmp/markers"
ln -s "$libdir/libxml2.so.2" "$tmp/xml2/libxml2.so.2"
ln -s "$libdir/libhwloc.so.15" "$tmp/hwloc/libhwloc.so.15"
export GDRCHECK_TEST_MARKER_DIR="$tmp/markers"
root=$fixtures/hgx-h100-bcm-gen5/root
nccl=$realworld/A-aws-ofi-nccl-p4d-24xl/p4d-24xl-topo.xml
hwloc=$realworld/C-llnl-mpibind-coral-lassen/coral-lassen.xml
fail=0
# The inherited path without the marker directory (meson test puts it there).
inherited=""
oldifs=$IFS
IFS=:
for d in ${LD_LIBRARY_PATH:-}; do
	[ -n "$d" ] && [ "$d" != "$libdir" ] && inherited="$inherited:$d"
done
IFS=$oldifs

# run RC_PATTERN WANT_XML2 WANT_HWLOC LIBDIRS ARGS...
run() {
	want_rc=$1 want_xml=$2 want_hwloc=$3 dirs=$4
	shift 4
	rm -f "$tmp/markers/"*
	LD_LIBRARY_PATH="$dirs$inherited" \
		"$gdrcheck" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got_xml=no got_hwloc=no
	[ -e "$tmp/markers/libxml2.loaded" ] && got_xml=yes
	[ -e "$tmp/markers/libhwloc.loaded" ] && got_hwloc=yes
	# shellcheck disable=SC2254 # the pattern is meant
	case $rc in $want_rc) rc_ok=yes ;; *) rc_ok=no ;; esac
	if [ "$rc_ok" = no ] || [ "$got_xml" != "$want_xml" ] || [ "$got_hwloc" != "$want_hwloc" ]; then
		echo "FAIL: gdrcheck $*: exit $rc (want $want_rc), libxml2 loaded=$got_xml (want $want_xml), libhwloc loaded=$got_hwloc (want $want_hwloc)"
		cat "$tmp/err"
		fail=1
	else
		echo "ok: gdrcheck $*: exit $rc, libxml2 loaded=$got_xml, libhwloc loaded=$got_hwloc"
	fi
}

# expect_err TEXT: the last run's stderr says TEXT
expect_err() {
	grep -qF "$1" "$tmp/err" || {
		echo "FAIL: stderr lacks '$1':"
		cat "$tmp/err"
		fail=1
	}
}

both="$tmp/xml2:$tmp/hwloc"
run 0 no no "$both" --help
run '[01]' no no "$both" check --root "$root"
run 0 no no "$both" topo --root "$root"
run 0 no no "$both" topo --root "$root" --json
run 0 no no "$both" labels --root "$root"
# The controls: each importer maps its libraries, so the markers work.
run 3 yes no "$both" topo --nccl-xml "$nccl"
expect_err "reading an NCCL topology XML needs libxml2, which cannot be loaded (libxml2.so.2 lacks "
expect_err "install the libxml2 package (Debian, Ubuntu) or libxml2 (RHEL, Fedora)"
run 3 no yes "$tmp/hwloc" topo --hwloc-xml "$hwloc"
expect_err "reading an hwloc XML needs libhwloc, which cannot be loaded (libhwloc.so.15 lacks "
expect_err "install the libhwloc15 package (Debian, Ubuntu) or hwloc-libs (RHEL, Fedora)"
# An NCCL XML needs libxml2 alone.
run 0 no no "$tmp/hwloc" topo --nccl-xml "$nccl"
exit $fail
