# Metric lines written wrong fail the run with the reason, never silently:
# text where a named metric's number should be, NaN, 1e999, a key twice.
# Only the metrics a suite names are read: a program's own key=value
# output (wall_ns=1, version=1.2.3, a file full of name=0x10 lines) is
# output, never an error.
. tests/e2e/lib.sh

rc=0; run_orch "$T/log" run --out="$T/out" --seed=1 tests/suites/metrics.ini || rc=$?
cat "$T/log"
expect_eq "exit code (runs failed)" "$rc" 3
C="$T/out/samples.csv" M="$T/out/report.md"
# A metric written wrong fails every attempt the same way: its bench stops
# after round 1 (one run of each variant), saying why.
for want in "good ok 6" "text failed 2" "nan failed 2" "huge failed 2" \
    "twice failed 2" "builtin ok 6"; do
	set -- $want
	got=$(awk -F, -v b=$1 -v s=$2 '$4==b && $10==s && $11=="wall_ns"' "$C" | wc -l)
	expect_eq "$1 runs with status $2" "$got" "$3"
done
for b in text nan huge twice; do
	expect_grep "^orch: local: $b: stopped after round 1: every attempt of [AB] failed the same way: failed: metric elapsed_ns" "$T/log"
done
# Text such as version=1.2.3 is no metric and no error.
expect_eq "version metric" "$(awk -F, '$11=="version"' "$C" | wc -l)" 0
# Each reason names the key and the value.
expect_grep 'metric elapsed_ns=abc is not a number' "$M"
expect_grep 'metric elapsed_ns=NaN is not a finite decimal number' "$M"
expect_grep 'metric elapsed_ns=1e999 is out of range' "$M"
expect_grep 'metric elapsed_ns printed twice \(1000, then 2000\)' "$M"
# wall_ns=1 of the program is output: the built-in is orch's measure.
expect_eq "builtin bench's wall_ns values" "$(awk -F, '$4=="builtin" && $11=="wall_ns" && $12==1' "$C" | wc -l)" 0

note "cat of a file full of name=0x10 lines runs clean"
for i in $(seq 1 200); do echo "name$i=0x10"; echo "__flags_unknown_mask=0x10"; echo "wall_ns=fast"; done > "$T/conf.txt"
cat > "$T/cat.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
retries  = 0
max_load = 0
[variant.A]
bin = /bin/cat
[variant.B]
bin = /bin/cat
args = -u
[bench.conf]
args = {file:conf}
files = conf=$T/conf.txt
INI
rc=0; run_orch "$T/cat.log" run --out="$T/cat" "$T/cat.ini" || rc=$?
cat "$T/cat.log"
expect_eq "cat run exit" "$rc" 0
expect_eq "cat runs not ok" "$(awk -F, 'NR > 1 && $10 != "ok"' "$T/cat/samples.csv" | wc -l)" 0
expect_eq "cat metrics other than the built-ins" "$(awk -F, 'NR > 1 && $11 !~ /^(wall_ns|user_ns|sys_ns|maxrss_kb|nvcsw|nivcsw|load1)$/' "$T/cat/samples.csv" | wc -l)" 0
if grep -q "not a finite decimal" "$T/cat.log" "$T/cat/report.md"; then fail "a line of cat's output taken for a metric"; fi
no_leftovers
echo PASS
