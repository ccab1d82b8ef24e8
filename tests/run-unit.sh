#!/usr/bin/env bash
# run-unit.sh TEST... — runs cmocka unit tests; with VALGRIND=1 under valgrind.
# Each test gets a time bound so none can hang.
set -u
fail=0; passed=0
for t in "$@"; do
	name=$(basename "$t")
	if [ "${VALGRIND:-0}" = 1 ]; then
		cmd=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
		     --show-leak-kinds=definite,indirect --track-fds=no "$t")
		label="valgrind $name"; bound=600
	else
		cmd=("$t"); label="$name"; bound=300
	fi
	if timeout --kill-after=10 "$bound" "${cmd[@]}"; then
		passed=$((passed + 1))
	else
		echo "FAILED: $label" >&2
		fail=$((fail + 1))
	fi
done
echo "unit: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
