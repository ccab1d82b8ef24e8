#!/usr/bin/env bash
# run-fuzz.sh SECONDS FUZZER... — runs each libFuzzer target for SECONDS
# over its committed seed corpus (tests/fuzz/corpus-NAME, read only) and a
# scratch corpus, and fails on the first crash, leak or timeout.
# FUZZ_JOBS targets run at once (default 2 where the machine has 2 cores
# or more, else 1): each is one process on one core, for its SECONDS.
set -u
secs=$1; shift
. "$(dirname "$0")/pool.sh"
pool_init FUZZ_JOBS || exit 2
fail=0; pass=0

# one FUZZER SCRATCH: runs one target; its exit code goes beside its log.
one() {
	local rc=0
	mkdir -p "$2/corpus"
	timeout --kill-after=10 $((secs + 60)) "$1" -max_total_time="$secs" \
	    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$2/" \
	    "$2/corpus" "tests/fuzz/corpus-$(cat "$2/name")" > "$2/log" 2>&1 || rc=$?
	echo "$rc" > "$2/rc"
}

# pool_done SCRATCH: says how the target run in SCRATCH went.
pool_done() {
	local scratch=$1 name rc
	name=$(cat "$scratch/name")
	read -r rc < "$scratch/rc" || rc=1
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "fuzz $name: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$scratch/log" | head -1), no crash"
		rm -rf "$scratch"
	else
		fail=$((fail + 1))
		echo "FAIL fuzz $name:"; tail -40 "$scratch/log"
		ls "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* 2>/dev/null
	fi
}

for f in "$@"; do
	scratch=$(mktemp -d /tmp/orch-fuzz.XXXXXX)
	name=$(basename "$f"); echo "${name#fuzz-}" > "$scratch/name"
	pool_start "$scratch" one "$f" "$scratch"
done
pool_wait
echo "fuzz: $pass passed, $fail failed ($POOL_JOBS at a time)"
[ "$fail" -eq 0 ]
