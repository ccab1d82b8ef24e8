# --fail-on=LIST on orch run and orch report: worse, invalid, inconclusive,
# any, as a comma list; exit 1 with one line per tripped primary
# comparison saying why; a benchmark that never prints its primary metric
# is invalid with the key named (docs/statistics.md), its runs failed.
. tests/e2e/lib.sh

note "a primary metric never printed: invalid, and --fail-on=invalid trips"
rc=0; run_orch "$T/log" run --out="$T/out" --seed=1 --fail-on=invalid tests/suites/gate.ini || rc=$?
cat "$T/log"
# Each run that printed no elapsed_ns failed, naming the key (t-metrics):
# failed measured runs make the exit 3, which outranks the gate's 1; the
# gate's line is printed all the same, with the runs' reason.
expect_eq "run --fail-on=invalid exit" "$rc" 3
expect_grep '^orch: --fail-on: local quiet elapsed_ns: B vs A invalid: 0 good pairs; at least 5 are needed \(runs failed: (A|B) round [0-9]+: the program printed no elapsed_ns=NUMBER line \(bench quiet.s metric elapsed_ns\)\)$' "$T/log"
expect_eq "tripped lines" "$(grep -c '^orch: --fail-on:' "$T/log")" 1
S="$T/out/summary.json"
expect_eq "quiet verdict" "$(jq -r '.comparisons[] | select(.bench=="quiet") | .verdict' "$S")" invalid
jq -r '.comparisons[] | select(.bench=="quiet") | .reason' "$S" | grep -q 'printed no elapsed_ns' \
	|| fail "the reason does not name the key"
jq -e '.family.control == "FWER" and .family.size == 3' "$S" >/dev/null || fail "family: $(jq -c .family "$S")"

note "orch report takes the same list"
rc=0; "$ORCH" report --fail-on=worse "$T/out" >"$T/r1" 2>&1 || rc=$?
expect_eq "report --fail-on=worse exit" "$rc" 0
rc=0; "$ORCH" report --fail-on=worse,invalid "$T/out" >"$T/r2" 2>&1 || rc=$?
expect_eq "report --fail-on=worse,invalid exit" "$rc" 1
expect_grep 'quiet elapsed_ns: B vs A invalid' "$T/r2"
# steady and still: 6 rounds of a ratio of exactly 1 in a family of 3
# (the two and their geometric mean: p must reach 0.05/3; 6 rounds reach
# 1/32 at best): inconclusive, and the line says why.
rc=0; "$ORCH" report --fail-on=inconclusive "$T/out" >"$T/r3" 2>&1 || rc=$?
expect_eq "report --fail-on=inconclusive exit" "$rc" 1
expect_grep '^orch: --fail-on: local steady elapsed_ns: B vs A inconclusive: ratio 1.000, interval unbounded: 6 rounds cannot reach p <= 0.017 \(family of 3\)$' "$T/r3"
expect_eq "inconclusive: tripped lines" "$(grep -c '^orch: --fail-on:' "$T/r3")" 2
rc=0; "$ORCH" report --fail-on=any "$T/out" >"$T/r4" 2>&1 || rc=$?
expect_eq "report --fail-on=any exit" "$rc" 1
expect_eq "any: tripped lines" "$(grep -c '^orch: --fail-on:' "$T/r4")" 3
expect_grep 'cannot prove an effect at 6 rounds' "$T/out/report.md"

note "a word it does not know: exit 2, nothing run"
rc=0; run_orch "$T/bad" run --out="$T/bad-out" --fail-on=worse,better tests/suites/gate.ini || rc=$?
expect_eq "bad list exit" "$rc" 2
expect_grep "^orch: --fail-on: 'better' is not one of worse, invalid, inconclusive, refuted, any" "$T/bad"
[ ! -e "$T/bad-out" ] || fail "a refused --fail-on wrote $T/bad-out"
rc=0; "$ORCH" report --fail-on= "$T/out" >"$T/bad2" 2>&1 || rc=$?
expect_eq "empty list exit" "$rc" 2
no_leftovers
echo PASS
