#!/bin/sh
# Run every libFuzzer target of a fuzz build for a while, one at a time.
#   tests/fuzz/run.sh BUILD SECONDS [NAME...]
# Seeds: tests/fuzz/corpus/<name> and tests/fuzz/regressions/<name> (read);
# what a run finds goes to BUILD/fuzz-corpus/<name> (kept between runs).
# A crash, a hang (-timeout) or memory past -rss_limit_mb fails the run and
# leaves the input in BUILD/fuzz-artifacts/: add it to
# tests/fuzz/regressions/<name>/ with the fix, and the normal suite replays it.
# Each target runs with -max_len of the largest input its parser meets
# (the table in meson.build). Prints one line per target: executions,
# executions/s, coverage (edges).
set -u
build=${1:?usage: run.sh BUILD SECONDS [NAME...]}
secs=${2:?usage: run.sh BUILD SECONDS [NAME...]}
shift 2
src=$(cd "$(dirname "$0")" && pwd)
. "$src/stats.sh"
list="$build/tests/fuzz/fuzz-targets.txt"
[ -f "$list" ] || { echo "run.sh: no $list (meson setup $build -Dfuzz=true)" >&2; exit 2; }
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"
export LSAN_OPTIONS="suppressions=$src/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
status=0
total=0
printf '%-12s %12s %10s %8s %8s  %s\n' target executions exec/s cov ft result
while read -r name dict maxlen; do
	[ -n "$name" ] || continue
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	exe="$build/tests/fuzz/fuzz-$name"
	work="$build/fuzz-corpus/$name"
	log="$build/fuzz-logs/$name.log"
	mkdir -p "$work"
	seeds=""
	for d in "$src/corpus/$name" "$src/regressions/$name"; do
		[ -d "$d" ] && seeds="$seeds $d"
	done
	dictarg=""
	[ "$dict" != "-" ] && dictarg="-dict=$src/$dict"
	# shellcheck disable=SC2086 # word splitting of the seed list is meant
	"$exe" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
		-max_len="${maxlen:-4096}" \
		-rss_limit_mb=2048 -malloc_limit_mb=1024 \
		-artifact_prefix="$build/fuzz-artifacts/$name-" $dictarg \
		"$work" $seeds >"$log" 2>&1
	rc=$?
	fuzz_stats "$log"
	if [ "$rc" -eq 0 ]; then
		res=ok
	else
		res="FAILED (rc $rc, see $log)"
		status=1
		grep -E '^==[0-9]+==ERROR|SUMMARY|Test unit written' "$log" | head -5 >&2
	fi
	total=$((total + ${execs:-0}))
	printf '%-12s %12s %10s %8s %8s  %s\n' "$name" "${execs:-?}" "${rate:-?}" \
		"${cov:-?}" "${ft:-?}" "$res"
done <"$list"
echo "total executions: $total"
exit $status
