#!/usr/bin/env bash
# run-e2e.sh [TEST...] — runs the end-to-end tests (tests/e2e/*.sh), each
# under a time bound (E2E_TIMEOUT, default 900 s: generous, for a busy
# machine and the sanitized programs), from the repository root.
# ORCH_BIN_DIR selects the programs (default bin/; the sanitized tree uses
# build/san/bin). Each test's output goes to a log of this run's own
# (E2E_LOGS, default a new /tmp/orch-e2e.XXXXXX), shown when it fails.
#
# E2E_JOBS tests run at once (default 2 where the machine has 2 cores or
# more, else 1). They may: each test has its own directory ($T: workdir,
# TMPDIR, run directories), looks for and kills only its own processes,
# and each lab takes its addresses under a lock (tests/lab/lab.sh); most
# of a test's time is waiting (timeouts, cut links, sshd), not CPU. A
# test's own load gate is either off or its subject (t-loadgate), which
# more load only confirms.
set -u
cd "$(dirname "$0")/.."
tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=(tests/e2e/t-*.sh)
logs=${E2E_LOGS:-$(mktemp -d /tmp/orch-e2e.XXXXXX)}
mkdir -p "$logs"
bound=${E2E_TIMEOUT:-900}
. tests/pool.sh
pool_init E2E_JOBS || exit 2
pass=0; fail=0

# one NAME FILE: runs one test; its exit code and time go beside its log.
one() {
	local start=$SECONDS rc=0
	timeout --kill-after=10 "$bound" bash "$2" > "$logs/$1.log" 2>&1 || rc=$?
	echo "$rc $((SECONDS - start))" > "$logs/$1.rc"
}

# pool_done NAME: says how test NAME went.
pool_done() {
	local name=$1 rc secs
	read -r rc secs < "$logs/$name.rc" || { rc=1; secs=?; }
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok   $name (${secs}s)"
	else
		fail=$((fail + 1))
		[ "$rc" -eq 124 ] && echo "FAIL $name: timed out after $bound s"
		echo "FAIL $name (${secs}s); its output ($logs/$name.log):"
		sed 's/^/    /' "$logs/$name.log" | tail -40
	fi
}

for t in "${tests[@]}"; do
	pool_start "$(basename "$t" .sh)" one "$(basename "$t" .sh)" "$t"
done
pool_wait
echo "e2e: $pass passed, $fail failed ($POOL_JOBS at a time)"
# The logs of a run that passed are not kept, unless E2E_LOGS asked.
[ "$fail" -ne 0 ] || [ -n "${E2E_LOGS:-}" ] || rm -rf "$logs"
[ "$fail" -eq 0 ]
