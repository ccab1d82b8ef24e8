# Metric lines written wrong fail the run with the reason, never silently:
# text where a named metric's number should be, NaN, 1e999, a key twice,
# and a program's own wall_ns colliding with the built-in.
. tests/e2e/lib.sh

rc=0; run_orch "$T/log" run --out="$T/out" --seed=1 tests/suites/metrics.ini || rc=$?
cat "$T/log"
expect_eq "exit code (runs failed)" "$rc" 3
C="$T/out/samples.csv" M="$T/out/report.md"
for want in "good ok 6" "text failed 6" "nan failed 6" "huge failed 6" \
    "twice failed 6" "builtin failed 6"; do
	set -- $want
	got=$(awk -F, -v b=$1 -v s=$2 '$4==b && $10==s && $11=="wall_ns"' "$C" | wc -l)
	expect_eq "$1 runs with status $2" "$got" "$3"
done
# Text such as version=1.2.3 is no metric and no error.
expect_eq "version metric" "$(awk -F, '$11=="version"' "$C" | wc -l)" 0
# Each reason names the key and the value.
expect_grep 'printed no elapsed_ns=NUMBER line \(bench text.s metric elapsed_ns\)' "$M"
expect_grep 'metric elapsed_ns=NaN is not a finite decimal number' "$M"
expect_grep 'metric elapsed_ns=1e999 is out of range' "$M"
expect_grep 'metric elapsed_ns printed twice \(1000, then 2000\)' "$M"
expect_grep "printed wall_ns=1, which collides with orch's built-in metric wall_ns" "$M"
no_leftovers
echo PASS
