# suites/aa.ini: the same program twice, run for real. How often an A/A
# comparison is falsely better or worse is the statistics' business, tested
# on synthetic records with fixed seeds (tests/unit/test-aa.c); a real run
# on a busy machine can only show it by luck. Here: what holds however busy
# the machine is.
. tests/e2e/lib.sh

rc=0; run_orch "$T/log" run --out="$T/out" --max-load=0 suites/aa.ini || rc=$?
cat "$T/log"
expect_eq "exit code" "$rc" 0
S="$T/out/summary.json"
jq -r '.comparisons[] | .metric + " " + .verdict + " " + (.ratio|tostring)' "$S"
expect_eq "comparisons" "$(jq '.comparisons | length' "$S")" 2
# Identical files and checksums: never invalid; a ratio inside its interval.
jq -e '[.comparisons[] | select(.verdict == "invalid" or .ratio == null)] | length == 0' "$S" >/dev/null \
	|| fail "an A/A comparison is invalid: $(jq -c .comparisons "$S")"
expect_ratios_inside "$S"
expect_eq "measured runs (2 variants x 2 metrics x 20 rounds)" "$(jq "[.results[] | .n] | add" "$S")" 80
# The report knows it is an A/A comparison of the very same files.
expect_grep 'A/A' "$T/out/report.md"
no_leftovers
echo PASS
