#!/usr/bin/env bash
# check-selftest.sh [layers] [style] — proves that tests/check-layers.pl
# and tests/check-style.pl can fail: each runs on a copy of the tree's
# sources (coordinator/ agent/ proto/) with findings put in on purpose,
# and must exit 1 naming each at its FILE:LINE. From the repository root;
# with no argument, both.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/orch-selftest.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0

# copy NAME: a fresh copy of the sources in $tmp/NAME; prints its path.
copy() {
	rm -rf "${tmp:?}/$1"
	mkdir -p "$tmp/$1" && cp -R coordinator agent proto "$tmp/$1"/ &&
	    echo "$tmp/$1"
}

# expect OUTPUT PATTERN WHAT: fails the self-test unless a line of OUTPUT
# matches the extended regular expression PATTERN.
expect() {
	if ! grep -Eq -- "$2" <<< "$1"; then
		echo "check-selftest: $3: no line matches '$2' in:" >&2
		sed 's/^/    /' <<< "$1" >&2
		fail=1
	fi
}

# after FILE N TEXT: puts the line TEXT after line N of FILE.
after() {
	TEXT=$3 N=$2 perl -i -ne 'print; print "$ENV{TEXT}\n" if $. == $ENV{N}' "$1"
}

# lines FILE: how many lines FILE has.
lines() {
	wc -l < "$1" | tr -d ' '
}

selftest_layers() {
	local d out rc n f=coordinator/analysis/stats.c

	d=$(copy layers) || return 1
	# An upward include (analysis includes cli), after the file's last
	# #include.
	n=$(grep -n '^#include' "$d/$f" | tail -1 | cut -d: -f1)
	after "$d/$f" "$n" '#include "coordinator/cli/usage.h"'
	n=$((n + 1))
	# A circle: rng.h includes stats.h, which stats.c's rng.h include
	# closes (stats -> rng -> stats).
	printf '#include "coordinator/analysis/stats.h"\n' \
	    >> "$d/coordinator/analysis/rng.h"
	out=$(perl tests/check-layers.pl --root "$d"); rc=$?
	if [ "$rc" -ne 1 ]; then
		echo "check-selftest: check-layers exited $rc, not 1" >&2
		fail=1
	fi
	expect "$out" "^$f:$n: includes \"coordinator/cli/usage.h\", upward" \
	    "check-layers: the upward include"
	expect "$out" "^circle of [0-9]+ files: .*coordinator/analysis/rng .*coordinator/analysis/stats( |$)" \
	    "check-layers: the circle"
	expect "$out" "^  coordinator/analysis/rng.h:[0-9]+: coordinator/analysis/rng -> coordinator/analysis/stats$" \
	    "check-layers: the circle's include"
}

selftest_style() {
	local d out rc n f=coordinator/analysis/stats.c

	d=$(copy style) || return 1
	out=$(perl tests/check-style.pl --root "$d"); rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "check-selftest: check-style fails on the tree as it is" \
		    "(exit $rc):" >&2
		sed 's/^/    /' <<< "$out" >&2
		fail=1
	fi
	# An include out of order, after the file's last #include.
	n=$(grep -n '^#include' "$d/$f" | tail -1 | cut -d: -f1)
	after "$d/$f" "$n" '#include "coordinator/analysis/seq.h"'
	local inc=$((n + 1))
	n=$(lines "$d/$f")
	{
		printf '/* %s */\n' "$(printf '%074d' 0)"	# 80 columns
		printf '/* %s */\n' "$(printf '%075d' 0)"	# 81 columns
		printf '/* a blank ends this line */ \n'
		printf 'static int\nstats_selftest_a(void)\n{\n \treturn (0);\n}\n'
		printf 'static int stats_selftest_b(void)\n{\n\treturn (0);\n}\n'
		printf '/* b */\nstats_selftest_c(void)\n{\n\treturn (0);\n}\n'
		printf 'static int\nstats_selftest_d(void)\n{\n\treturn 0;\n}\n'
		printf 'static int\nstats_selftest_e(void) {\n\treturn (0);\n}\n'
		printf '/* return 0 in a comment, "return 0" in a string: */\n'
		printf 'static const char *stats_selftest_f = "return 0";\n'
	} >> "$d/$f"
	out=$(perl tests/check-style.pl --root "$d"); rc=$?
	if [ "$rc" -ne 1 ]; then
		echo "check-selftest: check-style exited $rc, not 1" >&2
		fail=1
	fi
	expect "$out" "^$f:$inc: #include \"coordinator/analysis/seq.h\" after \"coordinator/analysis/stats.h\"" \
	    "check-style: the include out of order"
	expect "$out" "^$f:$((n + 2)): 81 columns, over 80" \
	    "check-style: the long line"
	expect "$out" "^$f:$((n + 3)): a blank ends the line" \
	    "check-style: the blank at the end"
	expect "$out" "^$f:$((n + 7)): a space before a tab" \
	    "check-style: the space before a tab"
	expect "$out" "^$f:$((n + 9)): a function's name starts its line" \
	    "check-style: the name after its type"
	expect "$out" "^$f:$((n + 14)): a function's return type is the line before" \
	    "check-style: no return type"
	expect "$out" "^$f:$((n + 21)): return's value in parentheses" \
	    "check-style: return 0"
	expect "$out" "^$f:$((n + 24)): a function's \{ is alone" \
	    "check-style: the { after the name"
	# Nothing else: not the 80 columns, not the comment nor the string.
	local want=8 got
	got=$(grep -c "^$f:" <<< "$out")
	if [ "$got" -ne "$want" ]; then
		echo "check-selftest: check-style: $got findings in $f, not" \
		    "$want:" >&2
		sed 's/^/    /' <<< "$out" >&2
		fail=1
	fi
}

[ $# -eq 0 ] && set -- layers style
for w in "$@"; do
	case $w in
	layers) selftest_layers || fail=1 ;;
	style) selftest_style || fail=1 ;;
	*) echo "usage: check-selftest.sh [layers] [style]" >&2; exit 2 ;;
	esac
	[ "$fail" -eq 0 ] && echo "check-selftest: $w: the checker fails as it must"
done
[ "$fail" -eq 0 ]
