#!/usr/bin/env bash
# run-e2e.sh [TEST...] — runs the end-to-end tests (tests/e2e/*.sh), each
# under a time bound (E2E_TIMEOUT, default 900 s: generous, for a busy
# machine and the sanitized programs), from the repository root.
# ORCH_BIN_DIR selects the programs (default bin/; the sanitized tree uses
# build/san/bin). Each test's output goes to a log of this run's own
# (E2E_LOGS, default a new /tmp/orch-e2e.XXXXXX), shown when it fails.
set -u
cd "$(dirname "$0")/.."
tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=(tests/e2e/t-*.sh)
logs=${E2E_LOGS:-$(mktemp -d /tmp/orch-e2e.XXXXXX)}
mkdir -p "$logs"
bound=${E2E_TIMEOUT:-900}
pass=0; fail=0; failed=()
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	start=$(date +%s)
	rc=0
	timeout --kill-after=10 "$bound" bash "$t" > "$logs/$name.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok   $name ($(( $(date +%s) - start ))s)"
	else
		fail=$((fail + 1)); failed+=("$name")
		[ "$rc" -eq 124 ] && echo "FAIL $name: timed out after $bound s"
		echo "FAIL $name ($(( $(date +%s) - start ))s); its output ($logs/$name.log):"
		sed 's/^/    /' "$logs/$name.log" | tail -40
	fi
done
echo "e2e: $pass passed, $fail failed"
# The logs of a run that passed are not kept, unless E2E_LOGS asked.
[ "$fail" -ne 0 ] || [ -n "${E2E_LOGS:-}" ] || rm -rf "$logs"
[ "$fail" -eq 0 ]
