#!/bin/sh
# Output files by what the name already is (docs/hardening.md): every option
# that writes a file (collect -o, labels --nfd, --prom, --node-feature)
# replaces a regular file atomically, follows a symlink (the link stays),
# writes a FIFO or /dev/null in place (it stays a FIFO or a device), refuses
# a directory with a message, and takes '-' for standard output.
set -u
bin=$1
fixtures=$2
. "${0%/*}/lib.sh"

facts="$fixtures/phb-only/probed-facts.json"

write() { # write RC DESCRIPTION OPTION NAME
	case $3 in
	-o) set -- "$1" "$2" collect -o "$4" ;;
	*) set -- "$1" "$2" labels "$3" "$4" ;;
	esac
	expect "$1" "$2" -- timeout 60 "$bin" "$3" --facts "$facts" "$4" "$5"
}

# The same document, but for the time of the run (the textfile has it).
same() { # same FILE FILE, but for the run's time (and the NFD file's expiry, a day after it)
	grep -v -e timestamp -e duration -e expiry-time "$1" >"$tmp/a"
	grep -v -e timestamp -e duration -e expiry-time "$2" >"$tmp/b"
	[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"
}

for opt in -o --nfd --prom --node-feature; do
	d="$tmp/${opt#-}"
	mkdir "$d"

	# A regular file: replaced.
	echo old >"$d/file"
	write 0 "$opt regular" "$opt" "$d/file"
	! grep -q '^old$' "$d/file" || fail "$opt regular: not replaced"

	# A symlink: the file it names is replaced, the link stays.
	echo old >"$d/target"
	ln -s target "$d/link"
	write 0 "$opt symlink" "$opt" "$d/link"
	[ -L "$d/link" ] || fail "$opt symlink: the link was replaced by a $(stat -c %F "$d/link")"
	same "$d/file" "$d/target" || fail "$opt symlink: target not written"

	# A FIFO with a reader: the reader gets the bytes, the FIFO stays.
	mkfifo "$d/fifo"
	timeout 60 cat "$d/fifo" >"$d/from-fifo" &
	reader=$!
	write 0 "$opt fifo" "$opt" "$d/fifo"
	wait "$reader" || fail "$opt fifo: the reader failed"
	[ -p "$d/fifo" ] || fail "$opt fifo: now a $(stat -c %F "$d/fifo")"
	same "$d/file" "$d/from-fifo" || fail "$opt fifo: the reader got other bytes"

	# /dev/null: written to, still the character device.
	write 0 "$opt /dev/null" "$opt" /dev/null
	[ -c /dev/null ] || fail "$opt /dev/null: now a $(stat -c %F /dev/null)"

	# A directory: exit 3 and a message naming it; nothing written in it.
	mkdir "$d/features.d"
	write 3 "$opt directory" "$opt" "$d/features.d"
	grep -q "cannot write '$d/features.d': it is a directory" "$tmp/err" ||
		fail "$opt directory: message: $(cat "$tmp/err")"
	[ -z "$(ls -A "$d/features.d")" ] || fail "$opt directory: written into"

	# '-': standard output, the same document.
	write 0 "$opt -" "$opt" -
	same "$d/file" "$tmp/out" || fail "$opt -: stdout is not the file's document"
	[ ! -e ./- ] || fail "$opt -: a file named '-' was written"
done
echo "ok $n"
