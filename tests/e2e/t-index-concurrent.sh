# The history store under concurrency: 20 times, four orch index processes
# of four different runs start at once on a new store; every one exits 0
# and the store holds the four runs, one entry each.
. tests/e2e/lib.sh

GEN="$PWD/build/default/tools/gen-history"
[ -n "${ORCH_BIN_DIR:-}" ] && [ -x "$PWD/build/san/tools/gen-history" ] && GEN="$PWD/build/san/tools/gen-history"
[ -x "$GEN" ] || fail "$GEN missing: make tools"

note "20 times four orch index at once on a new store: no failure"
failures=0
for round in $(seq 1 20); do
	D="$T/r$round"
	for i in 1 2 3 4; do
		mkdir -p "$D/run-$i"
		"$GEN" "$D/run-$i" "20260101-00000$i-ab0$i" "2026-01-0${i}T00:00:00Z" 1.00 "$i" \
			>/dev/null || fail "gen-history $D $i"
	done
	pids=()
	for i in 1 2 3 4; do
		"$ORCH" index "$D/run-$i" >"$D/i$i" 2>&1 & pids+=($!)
	done
	# Bounded: the store's busy wait is 30 s; a stuck writer fails the test.
	wait_until 120 "four orch index processes" sh -c \
	    "! kill -0 ${pids[0]} ${pids[1]} ${pids[2]} ${pids[3]} 2>/dev/null"
	for i in 1 2 3 4; do
		rc=0; wait "${pids[$((i - 1))]}" || rc=$?
		if [ "$rc" != 0 ]; then
			echo "round $round, index $i: exit $rc"; cat "$D/i$i"
			failures=$((failures + 1))
		fi
	done
	"$ORCH" history --reports="$D" >"$D/h" 2>&1 || { cat "$D/h"; fail "history of round $round"; }
	expect_grep "history: $D/history.sqlite: 4 runs," "$D/h"
done
expect_eq "failed orch index calls of 80" "$failures" 0
no_leftovers
echo "PASS"
