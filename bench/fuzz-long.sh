#!/bin/sh
# SPDX-License-Identifier: MIT
# The long fuzzing run: every libFuzzer target of a fuzz build (make fuzz
# sets one up in build-fuzz) until it has run RUNS inputs or SECONDS have
# passed, whichever comes first, starting from the corpus kept in the
# repository (tests/fuzz/corpus/<name>, minimised) and the regression inputs.
# CI's short run (tests/fuzz/run.sh, 15 s a target) stays as it is; this is
# the net that catches what needs millions of executions or large inputs.
#
#   bench/fuzz-long.sh [-j JOBS] [-r RUNS] [-u] BUILD SECONDS [NAME...]
#
#   -j JOBS  targets run side by side (default 1)
#   -r RUNS  executions per target (default 10000000)
#   -u       afterwards, replace tests/fuzz/corpus/<name> with the run's
#            corpus minimised (libFuzzer -merge=1), so the next run starts
#            where this one stopped; commit it with the results
#
# Each target gets its -max_len and dictionary from the target table
# (tests/fuzz/meson.build), -timeout=10 s, 2 GiB of RSS. Prints one row per
# target (seconds, executions, exec/s, coverage, features, corpus, result)
# as a Markdown table for tests/fuzz/README.md. A crash, hang or memory
# blow-up leaves its input in BUILD/fuzz-long/artifacts/ and fails the run.
set -u
jobs=1 runs=10000000 update=0
while getopts j:r:u opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	r) runs=$OPTARG ;;
	u) update=1 ;;
	*) echo "usage: fuzz-long.sh [-j JOBS] [-r RUNS] [-u] BUILD SECONDS [NAME...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=${1:?usage: fuzz-long.sh [-j JOBS] [-r RUNS] [-u] BUILD SECONDS [NAME...]}
secs=${2:?usage: fuzz-long.sh [-j JOBS] [-r RUNS] [-u] BUILD SECONDS [NAME...]}
shift 2
fz=$(cd "$(dirname "$0")/../tests/fuzz" && pwd)
. "$fz/stats.sh"
list="$build/tests/fuzz/fuzz-targets.txt"
[ -f "$list" ] || { echo "fuzz-long.sh: no $list (make fuzz sets up build-fuzz)" >&2; exit 2; }
out="$build/fuzz-long"
mkdir -p "$out/artifacts" "$out/logs" "$out/rows"
export LSAN_OPTIONS="suppressions=$fz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# One target: run, then minimise its corpus. Writes rows/<name>.
one() {
	name=$1 dict=$2 maxlen=$3
	exe="$build/tests/fuzz/fuzz-$name"
	work="$out/corpus/$name"
	log="$out/logs/$name.log"
	rm -rf "$work"
	mkdir -p "$work"
	[ -d "$fz/corpus/$name" ] && cp "$fz/corpus/$name"/* "$work/" 2>/dev/null
	seeds=""
	[ -d "$fz/regressions/$name" ] && seeds="$fz/regressions/$name"
	dictarg=""
	[ "$dict" != "-" ] && dictarg="-dict=$fz/$dict"
	t0=$(date +%s)
	# shellcheck disable=SC2086 # word splitting of the optional arguments is meant
	"$exe" -runs="$runs" -max_total_time="$secs" -max_len="$maxlen" \
		-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" \
		$dictarg "$work" $seeds >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	fuzz_stats "$log"
	if [ "$rc" -eq 0 ]; then
		res=none
	else
		res="$(grep -o 'ERROR: libFuzzer: [a-z-]*\|ERROR: AddressSanitizer: [a-z-]*\|runtime error' "$log" | head -1) (rc $rc, $log)"
	fi
	min="$out/min/$name"
	rm -rf "$min"
	mkdir -p "$min"
	# shellcheck disable=SC2086
	"$exe" -merge=1 -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
		"$min" "$work" >"$out/logs/$name.merge.log" 2>&1
	kept=$(find "$min" -type f | wc -l)
	if [ "$update" = 1 ] && [ "$rc" -eq 0 ] && [ "$kept" -gt 0 ]; then
		rm -rf "$fz/corpus/$name"
		mkdir -p "$fz/corpus/$name"
		cp "$min"/* "$fz/corpus/$name/"
	fi
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$((t1 - t0))" \
		"${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$kept" "$res" >"$out/rows/$name"
	[ "$rc" -eq 0 ]
}

status=0
running=0
names=""
while read -r name dict maxlen; do
	[ -n "$name" ] || continue
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	names="$names $name"
	rm -f "$out/rows/$name"
	one "$name" "$dict" "${maxlen:-4096}" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done <"$list"
wait

echo "| target | seconds | executions | exec/s | coverage (edges) | features | corpus (minimised) | findings |"
echo "|---|---|---|---|---|---|---|---|"
for n in $names; do
	if [ -f "$out/rows/$n" ]; then
		cat "$out/rows/$n"
		case $(cat "$out/rows/$n") in *"| none |") ;; *) status=1 ;; esac
	else
		echo "| $n | ? | ? | ? | ? | ? | ? | did not finish |"
		status=1
	fi
done
exit $status
