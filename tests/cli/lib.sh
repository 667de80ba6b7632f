# Sourced by tests/cli/test-*-cli.sh: a scratch directory removed on exit,
# and the helpers the tests share. The tests stop at the first failure.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

fail() { echo "FAIL: $*" >&2; exit 1; }

expect() { # expect RC DESCRIPTION -- command...: output in $tmp/out and $tmp/err
	want=$1 what=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "$what: exit $rc, want $want ($(cat "$tmp/err"))"
	n=$((n + 1))
}

json() { # json EXPR: evaluate a Python expression over the JSON in $tmp/out as d
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$tmp/out" ||
		fail "JSON check failed: $1"
}
