# Parameter sweeps on `local`: suites/sweep.ini's params = n=1000,10000,100000
# runs three benchmarks (sort.n-1000, ...) with {param:n} in their args;
# the report has a Sweeps table (Markdown) and plot (HTML) with every point
# per host; orch report renders it again byte for byte; a bad sweep is
# refused with FILE:LINE, exit 2 and nothing written.
. tests/e2e/lib.sh

OUT="$T/out"
rc=0; run_orch "$T/log" run --out="$OUT" --seed=11 --rounds=10 --max-load=0 suites/sweep.ini || rc=$?
cat "$T/log"
expect_eq "exit code" "$rc" 0
S="$OUT/summary.json"
expect_eq "benchmarks" "$(jq -r '[.comparisons[].bench] | unique | join(" ")' "$S")" "sort.n-1000 sort.n-10000 sort.n-100000"
# {param:n} reached the program: its keys_per_s and elapsed_ns differ by n,
# and each point's runs all printed the same checksum (no "invalid" by it).
expect_eq "results per point" "$(jq '[.results[] | select(.bench == "sort.n-10000" and .n == 10)] | length' "$S")" 4
expect_eq "summary.json sweeps" "$(jq -c '.sweeps' "$S")" '[{"bench":"sort","points":[{"bench":"sort.n-1000","params":{"n":"1000"}},{"bench":"sort.n-10000","params":{"n":"10000"}},{"bench":"sort.n-100000","params":{"n":"100000"}}]}]'
C="$OUT/samples.csv"
for b in sort.n-1000 sort.n-10000 sort.n-100000; do
	grep -q ",local,[^,]*,$b,A,1,1,[0-9]*,0,ok,elapsed_ns," "$C" || fail "no elapsed_ns rows for $b"
done
a1=$(awk -F, '$4=="sort.n-1000" && $5=="A" && $11=="elapsed_ns" && $9==0 {s+=$12; n++} END {print int(s/n)}' "$C")
a3=$(awk -F, '$4=="sort.n-100000" && $5=="A" && $11=="elapsed_ns" && $9==0 {s+=$12; n++} END {print int(s/n)}' "$C")
# 100 times the keys: far more than 10 times the time on any machine.
[ "$a3" -gt $((a1 * 10)) ] || fail "n did not reach the program: $a1 ns at 1000, $a3 ns at 100000"

M="$OUT/report.md"
expect_grep '^## Sweeps$' "$M"
expect_grep '^### `sort`: B / A \(elapsed_ns\)$' "$M"
expect_grep '^\| point \| `local` \|$' "$M"
for n in 1000 10000 100000; do
	expect_grep "^\\| n=$n \\| ([0-9.]+ \\[[0-9.]+, [0-9.]+\\] (better|worse|same|inconclusive)|invalid) \\|$" "$M"
done
H="$OUT/report.html"
expect_grep '<section id="sweeps">' "$H"
expect_grep '<svg class="sweep"' "$H"
expect_eq "points drawn for local" "$(grep -o '<title>local, n=[0-9]*: ' "$H" | sort -u | wc -l)" 3

note "orch report re-renders byte for byte"
mkdir "$T/before"; cp "$OUT"/summary.json "$OUT"/report.md "$OUT"/report.html "$T/before/"
"$ORCH" report "$OUT" >/dev/null
for f in summary.json report.md report.html; do
	cmp "$OUT/$f" "$T/before/$f" || fail "$f differs after orch report"
done

note "rendered elsewhere, without the suite or its programs: the sweeps come from the record"
# The loader checks the record; a report of the record alone needs no suite
# file: render a copy elsewhere, where suites/ does not exist.
mkdir "$T/copy" && cp "$OUT/samples.msgpack" "$T/copy/"
(cd "$T" && "$ORCH" report copy >/dev/null) || fail "orch report of a copy"
cmp "$T/copy/report.md" "$OUT/report.md" || fail "a copy rendered elsewhere differs"

note "a program gone since the run: the sweeps still come from the record"
cp "suites/example/bin/linux-$(uname -m)/hashloop" "$T/prog"
printf '[suite]\n[variant.A]\nbin = %s\n[variant.B]\nbin = %s\n[bench.s]\nparams = n=10,20\nargs = --sort {param:n} 1\n' "$T/prog" "$T/prog" > "$T/gone.ini"
rc=0; run_orch "$T/gone.log" run --out="$T/gone" --rounds=3 --max-load=0 "$T/gone.ini" || rc=$?
expect_eq "exit code" "$rc" 0
rm "$T/prog"
"$ORCH" report "$T/gone" >/dev/null || fail "orch report without the program"
expect_grep '^\| n=20 \|' "$T/gone/report.md"

note "bad sweeps: FILE:LINE, exit 2, nothing written"
bad() {	# bad PARAMS-LINE ARGS-LINE PATTERN
	printf '[suite]\n[variant.A]\nbin = /bin/true\n[variant.B]\nbin = /bin/true\n[bench.b]\n%s\n%s\n' "$1" "$2" > "$T/bad.ini"
	local rc=0
	run_orch "$T/bad.log" run --out="$T/none" --max-load=0 "$T/bad.ini" || rc=$?
	expect_eq "$1 / $2: exit" "$rc" 2
	expect_grep "$3" "$T/bad.log"
	[ ! -e "$T/none" ] || fail "$1: $T/none was written"
}
bad "params = n=1,2,1" "args = {param:n}" "bad.ini:7: \\[bench.b\\] params: duplicate value '1' for 'n'"
bad "params = n=1,2" "args = {param:m}" "bad.ini:8: \\[bench.b\\] args: unknown parameter 'm' in \\{param:m\\}"
bad "params = n" "args = x" "bad.ini:7: \\[bench.b\\] params: bad item 'n' \\(want NAME=v1,v2,...\\)"
bad "params = n=a/b" "args = x" "bad.ini:7: \\[bench.b\\] params: bad value 'a/b' for 'n'"
bad "params = a=0,1,2,3,4,5,6,7,8,9 b=0,1,2,3,4,5,6,7,8,9 c=0,1,2,3,4,5,6,7,8,9 d=1,2" "args = x" "bad.ini:7: \\[bench.b\\] params: over 1000 benchmarks"
