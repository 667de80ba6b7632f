# SPDX-License-Identifier: MIT
# Sourced by tests/fuzz/run.sh and bench/fuzz-long.sh: fuzz_stats LOG sets
# execs, rate, cov and ft from a libFuzzer log (-print_final_stats=1).
fuzz_stats() {
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$1" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$1" | tail -1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$1" | tail -1 | cut -d' ' -f2)
}
