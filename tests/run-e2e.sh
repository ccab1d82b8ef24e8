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
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
jobs=${E2E_JOBS:-$([ "$cores" -ge 2 ] && echo 2 || echo 1)}
case "$jobs" in
''|*[!0-9]*|0) echo "run-e2e: E2E_JOBS must be a number above 0, not '$jobs'" >&2; exit 2 ;;
esac
pass=0; fail=0
declare -A name_of=()

# one NAME FILE: runs one test; its exit code and time go beside its log.
one() {
	local start=$SECONDS rc=0
	timeout --kill-after=10 "$bound" bash "$2" > "$logs/$1.log" 2>&1 || rc=$?
	echo "$rc $((SECONDS - start))" > "$logs/$1.rc"
}

# reap: waits for one running test to end and says how it went.
reap() {
	local pid name rc secs
	wait -n -p pid || true
	[ -n "${pid:-}" ] || return 0
	name=${name_of[$pid]:-}
	[ -n "$name" ] || return 0
	unset "name_of[$pid]"
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
	while [ ${#name_of[@]} -ge "$jobs" ]; do reap; done
	name=$(basename "$t" .sh)
	one "$name" "$t" &
	name_of[$!]=$name
done
while [ ${#name_of[@]} -gt 0 ]; do reap; done
echo "e2e: $pass passed, $fail failed ($jobs at a time)"
# The logs of a run that passed are not kept, unless E2E_LOGS asked.
[ "$fail" -ne 0 ] || [ -n "${E2E_LOGS:-}" ] || rm -rf "$logs"
[ "$fail" -eq 0 ]
