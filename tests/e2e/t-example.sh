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
# B does 10% more work: worse on its self-timed elapsed time, by 3..25%.
v=$(jq -r '.comparisons[] | select(.bench=="hash" and .metric=="elapsed_ns" and .variant=="B") | .verdict' "$S")
expect_eq "hash elapsed_ns verdict" "$v" worse
jq -e '.comparisons[] | select(.bench=="hash" and .metric=="elapsed_ns") | .ratio > 1.03 and .ratio < 1.25 and .ci_low > 1 and .ci_low <= .ratio and .ratio <= .ci_high' "$S" >/dev/null \
	|| fail "hash ratio out of range: $(jq -c '.comparisons[0]' "$S")"
# Sorting more keys: keys_per_s is higher-is-better, so B is worse there too.
v=$(jq -r '.comparisons[] | select(.bench=="sort" and .metric=="keys_per_s") | .verdict' "$S")
[ "$v" = worse ] || [ "$v" = inconclusive ] || fail "sort keys_per_s verdict $v"
jq -e '[.comparisons[] | select(.verdict=="better")] | length == 0' "$S" >/dev/null || fail "a better verdict for a slower B"
# maxrss is the same program, same data: never a difference worth a verdict.
v=$(jq -r '.comparisons[] | select(.metric=="maxrss_kb") | .verdict' "$S")
[ "$v" = same ] || [ "$v" = inconclusive ] || fail "maxrss verdict $v"
# Results: 30 good runs per variant, none failed.
jq -e '[.results[] | select(.n != 30 or .failed != 0)] | length == 0' "$S" >/dev/null || fail "n != 30 somewhere"

C="$OUT/samples.csv"
expect_eq "csv header" "$(head -1 "$C")" "run_id,host,arch,bench,variant,round,attempt,seq,warmup,status,metric,value"
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
expect_grep '\*\*worse\*\* \(\+[0-9.]+%\)' "$M"
expect_grep 'seed: 7' "$M"

note "orch report re-renders byte for byte"
mkdir "$T/before"; cp "$OUT"/samples.csv "$OUT"/summary.json "$OUT"/report.md "$T/before/"
"$ORCH" report "$OUT" >/dev/null
for f in samples.csv summary.json report.md; do
	cmp "$OUT/$f" "$T/before/$f" || fail "$f differs after orch report"
done
note "--fail-on=worse trips on B's worse verdict"
rc=0; "$ORCH" report --fail-on=worse "$OUT" >/dev/null 2>&1 || rc=$?
expect_eq "report --fail-on=worse" "$rc" 1
no_leftovers
echo PASS
