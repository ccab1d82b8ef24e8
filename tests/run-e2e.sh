#!/usr/bin/env bash
# run-e2e.sh [TEST...] — runs the end-to-end tests (tests/e2e/*.sh), each
# under a time bound, from the repository root. ORCH_BIN_DIR selects the
# programs (default bin/; the sanitized tree uses build/san/bin).
set -u
cd "$(dirname "$0")/.."
tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=(tests/e2e/t-*.sh)
pass=0; fail=0; failed=()
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	start=$(date +%s)
	if timeout --kill-after=10 "${E2E_TIMEOUT:-300}" bash "$t" > "/tmp/orch-e2e-$name.log" 2>&1; then
		pass=$((pass + 1))
		echo "ok   $name ($(( $(date +%s) - start ))s)"
	else
		fail=$((fail + 1)); failed+=("$name")
		echo "FAIL $name ($(( $(date +%s) - start ))s); its output:"
		sed 's/^/    /' "/tmp/orch-e2e-$name.log" | tail -40
	fi
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
