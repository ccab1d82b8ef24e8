# Claims ([claim.NAME], docs/suites.md): a real run of tests/suites/claims.ini
# (B does three times A's work, an effect no noise can flip) confirms
# "worse by >= 20%" and refutes "better", per architecture and host, in
# the terminal's answer (first), report.md, report.html and summary.json;
# --fail-on=refuted exits 1 with one line per refuting group, on run and
# on report; bad claims exit 2 naming the file and line, nothing written.
. tests/e2e/lib.sh

note "a run with claims: worse CONFIRMED, better REFUTED, --fail-on=refuted trips"
rc=0; "$ORCH" run --out="$T/out" --seed=3 --fail-on=refuted tests/suites/claims.ini \
	>"$T/stdout" 2>"$T/stderr" || rc=$?
cat "$T/stdout" "$T/stderr"
expect_eq "run --fail-on=refuted exit" "$rc" 1
expect_eq "first line of the answer" "$(head -1 "$T/stdout")" \
	"claims (each from its comparisons' intervals at the run's family level, 5% family-wise):"
expect_grep '^  slower: B worse by >= 20% vs A: CONFIRMED$' "$T/stdout"
expect_grep '^  faster: B better vs A: REFUTED$' "$T/stdout"
expect_grep '^    x86_64 · .*: REFUTED  local: hash  [0-9.]+ \[[0-9.]+, [0-9.]+\] at [0-9.]+%$' "$T/stdout"
expect_grep '^orch: --fail-on: claim faster \(B better vs A\) REFUTED on x86_64 · .*: local: hash ratio [0-9.]+ \[' "$T/stderr"
expect_eq "tripped lines" "$(grep -c '^orch: --fail-on:' "$T/stderr")" 1
S="$T/out/summary.json"
expect_eq "claims" "$(jq -r '[.claims[] | .name + "=" + .verdict] | join(",")' "$S")" \
	"slower=CONFIRMED,faster=REFUTED"
expect_eq "per group" "$(jq -r '[.claims[].groups[] | .verdict] | join(",")' "$S")" "CONFIRMED,REFUTED"
expect_eq "per host" "$(jq -r '[.claims[].groups[].hosts[] | .host + "=" + .verdict] | join(",")' "$S")" \
	"local=CONFIRMED,local=REFUTED"
jq -e '.claims[0].decided_by | .bench == "hash" and .metric == "elapsed_ns" and .ratio > 1.2 and .lo >= 1.2' "$S" >/dev/null \
	|| fail "decided_by: $(jq -c '.claims[0].decided_by' "$S")"
expect_grep '^\| slower \| B worse by >= 20% vs A \| every host \| local: hash \| \*\*CONFIRMED\*\* \|' "$T/out/report.md"
expect_grep '^\| faster \| B better vs A \| every host \| local: hash \| \*\*REFUTED\*\* \|' "$T/out/report.md"
# The claims open the report: before the answer.
[ "$(grep -n '^\*\*Claims\*\*' "$T/out/report.md" | cut -d: -f1)" -lt \
  "$(grep -n '^## Answer' "$T/out/report.md" | cut -d: -f1)" ] || fail "claims are not before the answer"
expect_grep 'REFUTED' "$T/out/report.html"
expect_grep '^\*\*Claim `faster`\*\* \(B better vs A\): \*\*REFUTED\*\*$' "$T/out/answer.md"
expect_grep '^- x86_64 · .*: CONFIRMED \(`local: hash`, [0-9.]+ ' "$T/out/answer.md"

note "orch report: the same claims, byte for byte; --fail-on=any includes refuted"
cp "$T/out/report.md" "$T/report.md.run"
rc=0; "$ORCH" report --fail-on=worse "$T/out" >"$T/r1" 2>&1 || rc=$?
expect_eq "report --fail-on=worse exit (B is worse)" "$rc" 1
grep -q '^orch: --fail-on: claim' "$T/r1" && fail "--fail-on=worse tripped on a claim"
cmp "$T/out/report.md" "$T/report.md.run" || fail "report.md differs when re-rendered"
rc=0; "$ORCH" report --fail-on=any "$T/out" >"$T/r2" 2>&1 || rc=$?
expect_eq "report --fail-on=any exit" "$rc" 1
expect_grep '^orch: --fail-on: claim faster' "$T/r2"
expect_grep '^orch: --fail-on: local hash elapsed_ns: B vs A worse' "$T/r2"

note "bad claims: exit 2 with FILE:LINE, nothing written"
bad() {	# bad NAME 'SED SCRIPT' 'WANT'
	sed -e "s#suites/example#$PWD/suites/example#" -e "$2" tests/suites/claims.ini >"$T/$1.ini"
	rc=0; "$ORCH" run --out="$T/bad-$1" "$T/$1.ini" >"$T/$1.log" 2>&1 || rc=$?
	expect_eq "$1 exit" "$rc" 2
	expect_grep "$3" "$T/$1.log"
	[ ! -e "$T/bad-$1" ] || fail "$1: a refused suite wrote $T/bad-$1"
}
bad expect 's/^expect     = better$/expect = faster/' "$T/expect.ini:34: \[claim.faster\] expect: 'faster' is not one of"
bad percent 's/worse by >= 20%/worse by >= 150%/' "$T/percent.ini:28: \[claim.slower\] expect: '150' is not a percentage"
bad variant 's/^variant    = B$/variant = C/' "$T/variant.ini:27: \[claim.slower\] variant 'C' is not a variant"
bad bench 's/^benchmarks = hash$/benchmarks = hash, nohash/' "$T/bench.ini:33: \[claim.faster\] benchmarks: 'nohash' is not a \[bench.NAME\]"
bad ref '32s/.*/reference = B/' "$T/ref.ini:31: \[claim.faster\] variant 'B' is its reference"
bad refz '32s/.*/reference = Z/' "$T/refz.ini:32: \[claim.faster\] reference 'Z' is not a variant"
bad key 's/^expect     = better$/expected = better/' "$T/key.ini:34: \[claim.faster\] unknown key 'expected'"
bad section 's/^\[claim.faster\]$/[claims.faster]/' "$T/section.ini:30: unknown section \[claims.faster\]"
rc=0; "$ORCH" report --fail-on=refuted,better "$T/out" >"$T/badgate" 2>&1 || rc=$?
expect_eq "bad --fail-on exit" "$rc" 2
expect_grep "'better' is not one of worse, invalid, inconclusive, refuted, any" "$T/badgate"
no_leftovers
echo PASS
