# suites/example.ini on `local`: B is ~10% slower than A; the report says so.
. tests/e2e/lib.sh

OUT="$T/out"
rc=0; run_orch "$T/log" run --out="$OUT" --seed=7 --rounds=30 --max-load=0 suites/example.ini || rc=$?
cat "$T/log"
expect_eq "exit code" "$rc" 0
for f in samples.msgpack samples.csv summary.json report.md; do
	[ -s "$OUT/$f" ] || fail "$f missing"
done

S="$OUT/summary.json"
jq -r '.comparisons[] | [.bench, .metric, .variant, .ratio, .ci_low, .ci_high, .verdict] | @tsv' "$S"
expect_eq "seed recorded" "$(jq .seed "$S")" 7
expect_eq "reference" "$(jq -r .reference "$S")" A
expect_eq "host" "$(jq -r '.hosts[0].name + " " + .hosts[0].status' "$S")" "local ok"
# The verdicts of a 10% difference are the statistics' business, tested on
# synthetic records (tests/unit/test-aa.c): here, on a real and maybe busy
# machine, only what noise cannot change. Every comparison has a verdict,
# and a ratio inside its interval unless it is invalid.
jq -e '[.comparisons[] | select(.verdict | IN("better","worse","same","inconclusive") | not)] | length == 0' "$S" >/dev/null \
	|| fail "a comparison without a verdict, or invalid: $(jq -c '.comparisons' "$S")"
expect_ratios_inside "$S"
expect_eq "comparisons (hash: 3 metrics, sort: 3)" "$(jq '.comparisons | length' "$S")" 6
# Results: 30 good runs per variant, none failed.
jq -e '[.results[] | select(.n != 30 or .failed != 0)] | length == 0' "$S" >/dev/null || fail "n != 30 somewhere"

C="$OUT/samples.csv"
expect_eq "csv header" "$(head -1 "$C")" "run_id,host,arch,bench,variant,round,attempt,seq,warmup,status,metric,value,env_pad"
# Interleaved: per bench, each round has A and B; half the rounds run A first.
for b in hash sort; do
	first=$(awk -F, -v b=$b '$4==b && $9==0 && $11=="wall_ns" { if (!($6 in f)) f[$6]=$5 } END { for (r in f) print f[r] }' "$C" | sort | uniq -c | awk '{print $2"="$1}' | tr '\n' ' ')
	expect_eq "$b first-variant balance" "$first" "A=15 B=15 "
	rounds=$(awk -F, -v b=$b '$4==b && $9==0 && $11=="wall_ns" {print $6}' "$C" | sort -n | uniq -c | awk '$1==2' | wc -l)
	expect_eq "$b rounds with both variants" "$rounds" 30
done
# Never all A then all B: execution order alternates within the first rounds.
seqs=$(awk -F, '$4=="hash" && $9==0 && $11=="wall_ns" {print $8" "$5}' "$C" | sort -n | awk '{print $2}' | head -20 | tr -d '\n')
case "$seqs" in AAAAAAAAAA*|BBBBBBBBBB*) fail "not interleaved: $seqs";; esac
# Warmups first, marked, and not counted.
expect_eq "warmups" "$(awk -F, '$9==1 && $11=="wall_ns"' "$C" | wc -l)" 4
maxw=$(awk -F, '$9==1 && $11=="wall_ns" {print $8}' "$C" | sort -n | tail -1)
minm=$(awk -F, '$9==0 && $11=="wall_ns" {print $8}' "$C" | sort -n | head -1)
[ "$maxw" -lt "$minm" ] || fail "a warmup ran after a measured run"
# Program metrics and the load are rows too.
grep -q ',hash,A,1,1,[0-9]*,0,ok,elapsed_ns,' "$C" || fail "no elapsed_ns rows"
grep -q ',load1,' "$C" || fail "no load1 rows"

M="$OUT/report.md"
expect_grep '^## x86_64|^## aarch64' "$M"
expect_grep 'seed: 7' "$M"

note "orch report re-renders byte for byte"
mkdir "$T/before"; cp "$OUT"/samples.csv "$OUT"/summary.json "$OUT"/report.md "$T/before/"
"$ORCH" report "$OUT" >/dev/null
for f in samples.csv summary.json report.md; do
	cmp "$OUT/$f" "$T/before/$f" || fail "$f differs after orch report"
done
note "B three times slower: worse, whatever the machine's load; --fail-on=worse trips"
rc=0; run_orch "$T/log3" run --out="$T/triple" --seed=3 tests/suites/triple.ini || rc=$?
cat "$T/log3"
expect_eq "exit code" "$rc" 0
S3="$T/triple/summary.json"
for m in elapsed_ns wall_ns; do
	v=$(jq -r --arg m $m '.comparisons[] | select(.metric==$m) | .verdict' "$S3")
	expect_eq "triple $m verdict" "$v" worse
	jq -e --arg m $m '.comparisons[] | select(.metric==$m) | .ratio > 1.5 and .ci_low > 1' "$S3" >/dev/null \
		|| fail "triple $m ratio: $(jq -c --arg m $m '.comparisons[] | select(.metric==$m)' "$S3")"
done
expect_grep '\*\*worse\*\* \(\+[0-9.]+%\)' "$T/triple/report.md"
rc=0; "$ORCH" report --fail-on=worse "$T/triple" >/dev/null 2>&1 || rc=$?
expect_eq "report --fail-on=worse" "$rc" 1
rc=0; "$ORCH" report --fail-on=worse "$OUT" >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "report --fail-on=worse on the example: exit $rc"
no_leftovers
echo PASS
