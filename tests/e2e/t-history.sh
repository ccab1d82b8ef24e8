# The history: 30 synthetic runs (written through the real record writer
# by tests/tools/gen-history, labelled, the ratio B/A stepping from 1.00 to
# 1.15 at run 20) indexed by two orch index processes at once; orch history
# finds the shift at run 20 and nothing else, and writes history.html with
# its plot; 30 flat runs give no change point; a re-index keeps one entry a
# run; bad input is refused with nothing written; and real labelled runs on
# `local` index themselves.
. tests/e2e/lib.sh

GEN="$PWD/build/default/tools/gen-history"
[ -n "${ORCH_BIN_DIR:-}" ] && [ -x "$PWD/build/san/tools/gen-history" ] && GEN="$PWD/build/san/tools/gen-history"
[ -x "$GEN" ] || fail "$GEN missing: make tools"

# gen DIR N EFFECT: the synthetic run N into DIR/run-NN, labelled.
gen() {
	local n; n=$(printf %02d "$2")
	mkdir -p "$1/run-$n"
	"$GEN" "$1/run-$n" "20260101-0000$n-ab$n" "2026-01-${n}T00:00:00Z" "$3" "$2" \
		"release=v$2" "commit=c$2" >/dev/null || fail "gen-history $1 $2"
}

S="$T/shift"; F="$T/flat"
for i in $(seq 1 30); do
	if [ "$i" -ge 20 ]; then gen "$S" "$i" 1.15; else gen "$S" "$i" 1.00; fi
	gen "$F" "$i" 1.00
done

note "two orch index processes at once: both succeed, one entry a run"
"$ORCH" index "$S"/run-* >"$T/i1" 2>&1 & p1=$!
"$ORCH" index "$S"/run-* >"$T/i2" 2>&1 & p2=$!
rc1=0; rc2=0
# Bounded: the store's busy wait is 30 s; a stuck writer fails the test.
wait_until 120 "both orch index processes" sh -c "! kill -0 $p1 2>/dev/null && ! kill -0 $p2 2>/dev/null"
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
cat "$T/i1" "$T/i2"
expect_eq "first index exit" "$rc1" 0
expect_eq "second index exit" "$rc2" 0
expect_grep "^index: $S/history.sqlite: 30 runs indexed" "$T/i1"

note "orch history finds the shift at run 20, and no other"
rc=0; run_orch "$T/h" history --reports="$S" || rc=$?
cat "$T/h"
expect_eq "history exit" "$rc" 0
expect_grep "history: $S/history.sqlite: 30 runs, 2026-01-01T00:00:00Z to 2026-01-30T00:00:00Z" "$T/h"
expect_grep "run  20  2026-01-20T00:00:00Z  release=v20 commit=c20 .* B/A 1\.1[0-9]+ \[[0-9.]+, [0-9.]+\] worse  B " "$T/h"
expect_grep "change at run 20: ratio B/A x1\.1[0-9]+ \[1\.1[0-9]+, 1\.1[0-9]+\] \(p 0\.0[0-5][0-9]*\); before: run 19 release=v19 commit=c19; after: run 20 release=v20 commit=c20" "$T/h"
expect_grep "change at run 20: B typical elapsed_ns x1\.1" "$T/h"
expect_eq "change points" "$(grep -c 'change at run' "$T/h")" 2
expect_grep "^2 change points$" "$T/h"
H="$S/history.html"
[ -s "$H" ] || fail "history.html not written"
expect_grep "^history: $H$" "$T/h"
expect_eq "trend plots (one host, one benchmark)" "$(grep -c '<svg class="trend"' "$H")" 1
expect_eq "change lines drawn" "$(grep -c '<line class="change"' "$H")" 1
expect_eq "points drawn" "$(grep -c '<circle' "$H")" 30
expect_grep 'change at run 20: B x1\.1' "$H"
expect_grep '<td>run 19 release=v19 commit=c19</td><td>run 20 release=v20 commit=c20</td>' "$H"
if grep -Eqi '<script|<link|<img|(src|href)=' "$H"; then fail "history.html refers outside itself"; fi

note "Chromium: the page parses, the plot and its change line are in the DOM"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "$CHROMIUM not found: install Debian's chromium package"
timeout --kill-after=5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	--no-first-run --disable-background-networking --disable-component-update \
	--disable-sync --disable-extensions --user-data-dir="$T/profile" \
	--dump-dom "file://$H" >"$T/dom.html" 2>"$T/chrome.log" || { tail -20 "$T/chrome.log"; fail "chromium --dump-dom failed"; }
expect_eq "trend svgs in the DOM" "$(grep -o '<svg class="trend"' "$T/dom.html" | wc -l)" 1
expect_eq "change lines in the DOM" "$(grep -o '<line class="change"' "$T/dom.html" | wc -l)" 1
expect_eq "points in the DOM" "$(grep -o '<circle' "$T/dom.html" | wc -l)" 30

note "the same store, the same bytes; --out and the filters"
cp "$H" "$T/h1.html"
"$ORCH" history -q --reports="$S" >/dev/null
cmp "$H" "$T/h1.html" || fail "history.html differs when written again"
rc=0; run_orch "$T/h2" history -q --reports="$S" --host=h1 --bench=b0 --variant=B --since=2026-01-10 --out="$T/sel.html" || rc=$?
cat "$T/h2"
expect_eq "filtered history exit" "$rc" 0
expect_grep "<td>21</td><td>20260101-000030-ab30</td>" "$T/sel.html"
expect_grep "<tr><td>11</td><td>ratio B/A</td>" "$T/sel.html"

note "indexing again keeps one entry a run"
"$ORCH" index "$S"/run-05 "$S"/run-06 >/dev/null
"$ORCH" index --rebuild --reports="$S" >"$T/rb" 2>&1 || { cat "$T/rb"; fail "index --rebuild failed"; }
expect_grep "30 runs indexed" "$T/rb"
"$ORCH" history --reports="$S" >"$T/h3"
expect_grep "30 runs" "$T/h3"
expect_eq "rows of run 5" "$(grep -c '^  run   5 ' "$T/h3")" 1

note "30 flat runs: no change point"
"$ORCH" index "$F"/run-* >/dev/null
rc=0; run_orch "$T/f" history --reports="$F" || rc=$?
expect_eq "flat history exit" "$rc" 0
expect_grep "no change point" "$T/f"
expect_grep "^0 change points$" "$T/f"

note "bad input: exit 2, said, nothing written"
mkdir "$S/junk"; echo nonsense > "$S/junk/samples.msgpack"
gen "$S" 31 1.15
rc=0; run_orch "$T/e1" index "$S/run-31" "$S/junk" || rc=$?
expect_eq "index of a bad run" "$rc" 2
expect_grep "$S/junk/samples.msgpack" "$T/e1"
"$ORCH" history --reports="$S" >"$T/h4"
expect_grep "30 runs" "$T/h4"
rm -rf "$S/junk" "$S/run-31"
rc=0; run_orch "$T/e2" index "$S/run-01" "$F/run-01" || rc=$?
expect_eq "index across reports dirs" "$rc" 2
expect_grep "different reports directories: give --reports=DIR" "$T/e2"
rc=0; run_orch "$T/e3" history --reports="$T/nowhere" || rc=$?
expect_eq "history without a store" "$rc" 2
expect_grep "nowhere/history.sqlite: no history there" "$T/e3"
rc=0; run_orch "$T/e4" history --reports="$S" --since="2026-01-01' OR 1=1 --" || rc=$?
expect_eq "history --since garbage" "$rc" 2
expect_grep "not a date" "$T/e4"
rc=0; run_orch "$T/e5" history --reports="$S" --host=nosuch || rc=$?
expect_eq "history of no host" "$rc" 2
expect_grep "no run matches" "$T/e5"
mkdir "$T/bad"; head -c 5000 /dev/urandom > "$T/bad/history.sqlite"
rc=0; run_orch "$T/e6" history --reports="$T/bad" || rc=$?
expect_eq "history of a corrupt store" "$rc" 2
expect_grep "$T/bad/history.sqlite: not an orch history database" "$T/e6"
rc=0; run_orch "$T/e7" index --reports="$T/bad" "$S/run-01" || rc=$?
expect_eq "index into a corrupt store" "$rc" 2
rc=0; run_orch "$T/e8" index || rc=$?
expect_eq "index of nothing" "$rc" 2
rc=0; run_orch "$T/e9" history --reports="$S" stray || rc=$?
expect_eq "history with an argument" "$rc" 2

note "orch run --label: refused when bad, nothing run"
for bad in "nokey" "-k=v" "k=" "k=a$(printf '\t')b"; do
	rc=0; run_orch "$T/l" run --label "$bad" --out="$T/real/x" tests/suites/brisk.ini || rc=$?
	expect_eq "--label '$bad'" "$rc" 2
	expect_grep "^orch: --label" "$T/l"
done
rc=0; run_orch "$T/l" run --label k=1 --label k=2 --out="$T/real/x" tests/suites/brisk.ini || rc=$?
expect_eq "--label twice" "$rc" 2
expect_grep "label k: given twice" "$T/l"
[ ! -e "$T/real" ] || fail "a refused run wrote $T/real"

note "real labelled runs on local index themselves"
for v in v1 v2; do
	rc=0; run_orch "$T/r-$v" run --rounds=10 --label release=$v --label commit=abc123 \
		--out="$T/real/$v" tests/suites/brisk.ini || rc=$?
	cat "$T/r-$v"
	expect_eq "run $v exit" "$rc" 0
	expect_grep "^        history: $T/real/history.sqlite \(orch history\)$" "$T/r-$v"
	expect_grep '^- labels: release=`'$v'`, commit=`abc123`$' "$T/real/$v/report.md"
	expect_eq "summary.json labels" "$(jq -c .labels "$T/real/$v/summary.json")" "{\"release\":\"$v\",\"commit\":\"abc123\"}"
done
rc=0; run_orch "$T/hr" history --reports="$T/real" || rc=$?
cat "$T/hr"
expect_eq "history of the real runs" "$rc" 0
expect_grep "2 runs" "$T/hr"
# Runs started in the same second: their order is by end, then id.
expect_grep "run   [12] .* release=v1 commit=abc123 .* B/A [0-9.]+ \[" "$T/hr"
expect_grep "run   [12] .* release=v2 commit=abc123 .* B/A [0-9.]+ \[" "$T/hr"
note "index --rebuild leaves a run that is still going to index itself"
"$ORCH" run -q --rounds=150 --label release=v3 --out="$T/real/going" tests/suites/brisk.ini >"$T/going.log" 2>&1 & pg=$!
wait_samples "$T/real/going" 2000
rc=0; run_orch "$T/rb2" index --rebuild --reports="$T/real" || rc=$?
cat "$T/rb2"
expect_eq "rebuild during a run" "$rc" 0
expect_grep "skipped $T/real/going: its run is still going" "$T/rb2"
expect_grep "2 runs indexed" "$T/rb2"
wait_until 300 "the run to end" sh -c "! kill -0 $pg 2>/dev/null"
rc=0; wait "$pg" || rc=$?
cat "$T/going.log"
expect_eq "the run's exit" "$rc" 0
"$ORCH" history --reports="$T/real" >"$T/hr2"
expect_grep "3 runs" "$T/hr2"
expect_grep "run   [123] .* release=v3 " "$T/hr2"
no_leftovers
echo "PASS"
