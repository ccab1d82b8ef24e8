#!/usr/bin/env bash
# run-fuzz.sh SECONDS FUZZER... — runs each libFuzzer target for SECONDS
# over its committed seed corpus (tests/fuzz/corpus-NAME, read only) and a
# scratch corpus, and fails on the first crash, leak or timeout.
set -u
secs=$1; shift
fail=0; pass=0
for f in "$@"; do
	name=$(basename "$f"); name=${name#fuzz-}
	scratch=$(mktemp -d /tmp/orch-fuzz.XXXXXX)
	if timeout --kill-after=10 $((secs + 60)) "$f" -max_total_time="$secs" \
	    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$scratch/" \
	    "$scratch" "tests/fuzz/corpus-$name" > "$scratch/log" 2>&1; then
		pass=$((pass + 1))
		echo "fuzz $name: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$scratch/log" | head -1), no crash"
	else
		fail=$((fail + 1))
		echo "FAIL fuzz $name:"; tail -40 "$scratch/log"
		ls "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* 2>/dev/null
		continue
	fi
	rm -rf "$scratch"
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
