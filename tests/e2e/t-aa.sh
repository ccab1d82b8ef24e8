# suites/aa.ini: the same program twice is never better or worse.
. tests/e2e/lib.sh

rc=0; run_orch "$T/log" run --out="$T/out" --max-load=0 suites/aa.ini || rc=$?
cat "$T/log"
expect_eq "exit code" "$rc" 0
S="$T/out/summary.json"
jq -r '.comparisons[] | .metric + " " + .verdict' "$S"
bad=$(jq -r '[.comparisons[] | select(.verdict != "same" and .verdict != "inconclusive")] | length' "$S")
expect_eq "better/worse verdicts in an A/A run" "$bad" 0
expect_eq "comparisons" "$(jq '.comparisons | length' "$S")" 2
no_leftovers
echo PASS
