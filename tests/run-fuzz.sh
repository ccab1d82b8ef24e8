#!/usr/bin/env bash
# run-fuzz.sh SECONDS FUZZER... — runs each libFuzzer target for SECONDS
# over its committed seed corpus (tests/fuzz/corpus-NAME, read only) and a
# scratch corpus, and fails on the first crash, leak or timeout.
# FUZZ_JOBS targets run at once (default 2 where the machine has 2 cores
# or more, else 1): each is one process on one core, for its SECONDS.
set -u
secs=$1; shift
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
jobs=${FUZZ_JOBS:-$([ "$cores" -ge 2 ] && echo 2 || echo 1)}
case "$jobs" in
''|*[!0-9]*|0) echo "run-fuzz: FUZZ_JOBS must be a number above 0, not '$jobs'" >&2; exit 2 ;;
esac
fail=0; pass=0
declare -A name_of=() scratch_of=()

# one FUZZER SCRATCH: runs one target; its exit code goes beside its log.
one() {
	local name=$(basename "$1") rc=0
	name=${name#fuzz-}
	timeout --kill-after=10 $((secs + 60)) "$1" -max_total_time="$secs" \
	    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$2/" \
	    "$2" "tests/fuzz/corpus-$name" > "$2/log" 2>&1 || rc=$?
	echo "$rc" > "$2/rc"
}

# reap: waits for one running target to end and says how it went.
reap() {
	local pid name scratch rc
	wait -n -p pid || true
	[ -n "${pid:-}" ] || return 0
	name=${name_of[$pid]:-}
	[ -n "$name" ] || return 0
	scratch=${scratch_of[$pid]}
	unset "name_of[$pid]" "scratch_of[$pid]"
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
	while [ ${#name_of[@]} -ge "$jobs" ]; do reap; done
	name=$(basename "$f"); name=${name#fuzz-}
	scratch=$(mktemp -d /tmp/orch-fuzz.XXXXXX)
	one "$f" "$scratch" &
	name_of[$!]=$name scratch_of[$!]=$scratch
done
while [ ${#name_of[@]} -gt 0 ]; do reap; done
echo "fuzz: $pass passed, $fail failed ($jobs at a time)"
[ "$fail" -eq 0 ]
