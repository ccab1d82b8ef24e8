# orch compare OLD NEW and orch baseline (docs/evidence.md): two real runs
# of tests/suites/triple.ini's programs, the old with A doing B's
# three-fold work, the new with A's program another file (the same program,
# another SHA-256) doing its plain work, B the same in both: B relative to
# A is worse by about 3 (an effect no load can hide or flip), A's files
# changed (its absolute row inconclusive), B's unchanged (its absolute row
# never better or worse, whatever the load did to the machine); the files
# go into NEW's directory or --out; baselines name a run for compare; bad
# input exits 2 naming the problem, writing nothing.
. tests/e2e/lib.sh

note "two runs: A three times slower in the old, A's program changed in the new"
bindir="$PWD/suites/example/bin/$(uname -s | tr A-Z a-z)-$(uname -m)"
cp "$bindir/hashloop" "$T/hashloop"
printf 'x' >>"$T/hashloop"	# the same program, another SHA-256
sed -e "s#suites/example/data.bin#$PWD/suites/example/data.bin#" \
    -e "s#suites/example/bin/{os}-{arch}#$bindir#" \
    -e "/^\[variant.A\]/,/^\[variant.B\]/s#^bin .*#&\nenv  = HASHLOOP_EXTRA=200#" \
    tests/suites/triple.ini >"$T/triple1.ini"
sed -e "s#suites/example/data.bin#$PWD/suites/example/data.bin#" \
    -e "s#suites/example/bin/{os}-{arch}#$bindir#" \
    -e "/^\[variant.A\]/,/^\[variant.B\]/s#^bin .*#bin  = $T/hashloop#" \
    tests/suites/triple.ini >"$T/triple2.ini"
run_orch "$T/log1" run -q --rounds=12 --out="$T/old" --seed=5 "$T/triple1.ini"
run_orch "$T/log2" run -q --rounds=12 --out="$T/new" --seed=5 "$T/triple2.ini"

note "compare OLD NEW: B / A worse, A's files changed, B's unchanged"
rc=0; "$ORCH" compare --fail-on=worse "$T/old" "$T/new" >"$T/cmp" 2>"$T/cmp.err" || rc=$?
cat "$T/cmp" "$T/cmp.err"
expect_eq "compare --fail-on=worse exit" "$rc" 1
expect_grep "^compare: new run [0-9a-f-]+ against old run [0-9a-f-]+: ratio new / old on each primary metric, with its interval at 95.00% \(1 comparison that can be called, 5% family-wise\)$" "$T/cmp"
expect_grep "^WARNING: host local: A bin's SHA-256 differs: [0-9a-f]{12} then, [0-9a-f]{12} now$" "$T/cmp"
expect_grep "^    local  hash  elapsed_ns  B / A  [0-9.]+ \[[0-9.]+, [0-9.]+\]  worse  \(B's files unchanged, the reference's changed: a move is the reference's\)$" "$T/cmp"
expect_grep '^    local  hash  elapsed_ns  A  [0-9.]+ \[[0-9.]+, [0-9.]+\]  inconclusive  files changed: between-run spread unknown: index >= 3 runs of these files, or compare the relative rows$' "$T/cmp"
expect_grep '^    local  hash  elapsed_ns  B  [0-9.]+ \[[0-9.]+, [0-9.]+\]  (same|inconclusive)  files unchanged: the machine moved by [-+][0-9.]+% \(the reference A: [-+][0-9.]+%, its files changed\)$' "$T/cmp"
expect_grep "^orch: --fail-on: local hash elapsed_ns B: new vs old worse: ratio [0-9.]+ \[[0-9.]+, [0-9.]+\] relative to A at 95.00% \(family of 1\)$" "$T/cmp.err"
expect_eq "one gate line" "$(wc -l <"$T/cmp.err")" 1
for f in compare.md compare.html compare.json; do
	[ -s "$T/new/$f" ] || fail "$f not in NEW's directory"
done
J="$T/new/compare.json"
expect_eq "comparisons" "$(jq -r '[.comparisons[] | .variant + ":" + .files] | join(",")' "$J")" "A:changed,B:same"
expect_eq "relative" "$(jq -r '[.relative[] | .variant + "/" + .reference + ":" + .verdict] | join(",")' "$J")" "B/A:worse"
jq -e '.relative[0] | .ratio > 2 and .ci_low > 1.5 and .old_rounds == 12 and .new_rounds == 12' "$J" >/dev/null \
	|| fail "B / A: $(jq -c '.relative[0]' "$J")"
jq -e '[.comparisons[] | .verdict] | all(. != "better" and . != "worse")' "$J" >/dev/null \
	|| fail "an absolute row called: $(jq -c '[.comparisons[] | .verdict]' "$J")"
jq -e '.comparisons[0] | .old_runs == 12 and .new_runs == 12' "$J" >/dev/null \
	|| fail "A: $(jq -c '.comparisons[0]' "$J")"
jq -e '.family_size == 1 and .level == 0.95 and (.warnings | length) >= 1' "$J" >/dev/null \
	|| fail "family or warnings: $(jq -c '{family_size, level, warnings}' "$J")"
expect_grep '^- \*\*warning:\*\* host local: A bin.s SHA-256 differs' "$T/new/compare.md"
expect_grep '^## Relative: each variant against its own run.s reference$' "$T/new/compare.md"
expect_grep '^\| `local` \| `hash` \| `elapsed_ns` \| `B` \| 12 \| 12 \| .* \| files unchanged: the machine moved by ' "$T/new/compare.md"
expect_grep '^## Matrix$' "$T/new/compare.md"
expect_grep 'class="warn"' "$T/new/compare.html"
expect_grep '<h2>Relative: ' "$T/new/compare.html"

note "--out=DIR, --quiet; a run against itself trips nothing"
mkdir "$T/cmpout"
rc=0; "$ORCH" compare -q --out="$T/cmpout" --fail-on=worse,invalid "$T/old" "$T/old" >"$T/self" 2>&1 || rc=$?
expect_eq "self compare exit" "$rc" 0
[ -s "$T/cmpout/compare.json" ] || fail "--out: nothing in $T/cmpout"
expect_eq "self: quiet" "$(grep -c 'elapsed_ns' "$T/self" || true)" 0
jq -e '.warnings == [] and ([.comparisons[] | .ratio] == [1, 1]) and ([.comparisons[] | .files] == ["same", "same"]) and ([.relative[] | .ratio] == [1])' "$T/cmpout/compare.json" >/dev/null \
	|| fail "self: $(jq -c '{warnings, r: [.comparisons[].ratio], rel: [.relative[].ratio]}' "$T/cmpout/compare.json")"

note "baselines: set, list, compare NAME DIR, rm"
cd "$T"
"$ORCH" baseline set rel-1.0 "$T/old" >"$T/set"
expect_grep "^baseline rel-1.0 -> $T/old$" "$T/set"
[ -L "$T/reports/baselines/rel-1.0" ] || fail "no link reports/baselines/rel-1.0"
expect_eq "list" "$("$ORCH" baseline list)" "rel-1.0	$T/old"
rc=0; "$ORCH" compare -q --out="$T/cmpout" rel-1.0 "$T/new" >"$T/bl" 2>&1 || rc=$?
expect_eq "compare NAME DIR exit" "$rc" 0
expect_eq "baseline's run" "$(jq -r .old.dir "$T/cmpout/compare.json")" "$T/old"
"$ORCH" baseline set rel-1.0 "$T/new" >/dev/null	# replaces it
expect_eq "list after replace" "$("$ORCH" baseline list)" "rel-1.0	$T/new"
"$ORCH" baseline rm rel-1.0
expect_eq "list after rm" "$("$ORCH" baseline list)" ""
"$ORCH" baseline list >/dev/null || fail "orch baseline list of no baselines exits $?"

note "bad input: exit 2, naming the problem, nothing written"
bad() {	# bad NAME WANT orch-args...
	local name=$1 want=$2; shift 2
	rc=0; "$ORCH" "$@" >"$T/$name.log" 2>&1 || rc=$?
	expect_eq "$name exit" "$rc" 2
	expect_grep "$want" "$T/$name.log"
}
bad name "bad name '../x'" baseline set ../x "$T/old"
bad nodir "$T/nowhere: " baseline set rel "$T/nowhere"
bad norm "no baseline 'rel'" baseline rm rel
bad verb "want 'set NAME DIR', 'list' or 'rm NAME'" baseline show
bad nobase "rel: neither a run directory \(no samples.msgpack in it\) nor a baseline" compare rel "$T/new"
bad args "compare takes OLD and NEW, got 1 argument" compare "$T/new"
bad gate "refuted is for a run's claims" compare --fail-on=refuted "$T/old" "$T/new"
bad word "'better' is not one of" compare --fail-on=better "$T/old" "$T/new"
mkdir "$T/junk"; printf 'not a record' >"$T/junk/samples.msgpack"
bad junk "old run $T/junk: " compare "$T/junk" "$T/new"
[ ! -e "$T/junk/compare.md" ] && [ ! -e "$T/new/compare.json.tmp" ] || fail "a refused compare wrote files"
cd - >/dev/null
run_orch "$T/log3" run -q --max-load=0 --rounds=2 --out="$T/other" -n X -n Y -- true true
bad nothing "nothing to compare" compare --out="$T/junk" "$T/old" "$T/other"
[ ! -e "$T/junk/compare.md" ] || fail "nothing in common, yet compare.md was written"

note "an --out that cannot take the files: the cause named, nothing half-written"
printf 'a file, not a folder' >"$T/afile"
rc=0; "$ORCH" compare -q --out="$T/afile" "$T/old" "$T/new" >"$T/nodir.log" 2>&1 || rc=$?
cat "$T/nodir.log"
expect_eq "compare into a file: exit" "$rc" 2
expect_grep "cannot create a file in $T/afile: Not a directory" "$T/nodir.log"
expect_eq "the file is untouched" "$(cat "$T/afile")" "a file, not a folder"
[ -z "$(find "$T/new" -name '.compare.*')" ] || fail "a temporary was left in NEW's directory"
no_leftovers
echo PASS
