#!/bin/sh
# make run says what it does, one line per step on stderr, before the report
# (it was about 40 s of silence on a fresh clone), and ends with the report.
#   test-make-run.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1
build=$2
. "${0%/*}/lib.sh"
command -v make >/dev/null 2>&1 || { echo "SKIP: no make"; exit 77; }
make -s -C "$src" run BUILD="$build" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "make run: exit $rc: $(cat "$tmp/err")"
grep '^make run: ' "$tmp/err" >"$tmp/steps"
[ "$(wc -l <"$tmp/steps")" -eq 4 ] || fail "make run: not one line per step: $(cat "$tmp/err")"
i=1
while read -r line; do
	case "$line" in "make run: $i/4 "*) ;; *) fail "step $i: '$line'" ;; esac
	i=$((i + 1))
done <"$tmp/steps"
grep -q "^gdrcheck check: " "$tmp/out" || fail "make run: no report on stdout"
grep -q '^Summary' "$tmp/out" || fail "make run: the report has no summary"
echo ok
