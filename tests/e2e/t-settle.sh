# settle: each agent waits the suite's settle (default 50 ms) before the
# first step it runs, so that orch's own start-up is not in the first
# samples (docs/suites.md); settle = 0 and one-line runs start at once; a
# stop during the settle is not held up by it.
. tests/e2e/lib.sh

# suite FILE SETTLE-LINE: two variants of sh that print the time (ns) and
# touch a marker, so that when the first program ran can be told.
suite() {
	cat > "$1" <<INI
[suite]
rounds   = 2
warmup   = 1
retries  = 0
max_load = 0
$2
[variant.A]
bin = host:sh
args = -c 'touch $T/ran; echo t=\$(date +%s%N)'
[variant.B]
bin = host:sh
args = -c 'touch $T/ran; echo t=\$(date +%s%N)'
[bench.t]
metrics = t
INI
}

note "settle = 1500ms: no program runs until 1.5 s after orch started"
suite "$T/s1500.ini" "settle = 1500ms"
t0=$(date +%s%N)
rc=0; run_orch "$T/log1" run -v --out="$T/o1" "$T/s1500.ini" || rc=$?
expect_eq "run exit" "$rc" 0
first=$(awk -F, '$11 == "t" {print $12}' "$T/o1/samples.csv" | sort -g | head -1)
[ -n "$first" ] || fail "no program printed its time"
# t0 and the programs' times are from one clock; the record keeps %.17g.
awk -v f="$first" -v t0="$t0" 'BEGIN { exit !(f - t0 >= 1.5e9) }' ||
	fail "the first program ran $(awk -v f="$first" -v t0="$t0" 'BEGIN { printf "%.3f", (f - t0) / 1e9 }') s after orch started, before the 1.5 s settle ended"
expect_eq "settled once" "$(grep -c 'settling 1500 ms before the first run' "$T/o1/logs/local.log")" 1

note "the default settle is 50 ms; settle = 0 starts at once"
suite "$T/default.ini" ""
rc=0; run_orch "$T/log2" run -v --out="$T/o2" "$T/default.ini" || rc=$?
expect_eq "default run exit" "$rc" 0
expect_eq "default: settled once" "$(grep -c 'settling 50 ms before the first run' "$T/o2/logs/local.log")" 1
suite "$T/zero.ini" "settle = 0"
rc=0; run_orch "$T/log3" run -v --out="$T/o3" "$T/zero.ini" || rc=$?
expect_eq "settle = 0 run exit" "$rc" 0
expect_eq "settle = 0: no settle" "$(grep -c 'settling' "$T/o3/logs/local.log" || true)" 0

note "a one-line run starts at once, as hyperfine does"
rc=0; run_orch "$T/log4" run -v --out="$T/o4" --rounds=2 --max-load=0 -- true true || rc=$?
expect_eq "one-line run exit" "$rc" 0
expect_eq "one-line: no settle" "$(grep -c 'settling' "$T/o4/logs/local.log" || true)" 0

note "a bad settle is refused with the file and line"
suite "$T/bad.ini" "settle = 50"
rc=0; run_orch "$T/log5" run --out="$T/o5" "$T/bad.ini" || rc=$?
expect_eq "bad settle exit" "$rc" 2
expect_grep "bad\.ini:6: \[suite\] settle: '50' is not a pause \(want e\.g\. 50ms or 2s, at most 10s; 0: none\)" "$T/log5"
[ ! -e "$T/o5" ] || fail "a refused suite left $T/o5"

note "orch stop during a 10 s settle: the agent stops at once, nothing ran"
rm -f "$T/ran"
suite "$T/s10.ini" "settle = 10s"
"$ORCH" run -v --out="$T/o6" "$T/s10.ini" >"$T/log6" 2>&1 &
orch_pid=$!
settling() { grep -q 'settling 10000 ms' "$T/o6/logs/local.log" 2>/dev/null; }
wait_until 120 "the agent to settle" settling
seen=$SECONDS
kill -9 "$orch_pid"; wait "$orch_pid" 2>/dev/null || true
rc=0; run_orch "$T/log7" stop "$T/o6" || rc=$?
cat "$T/log7"
expect_eq "stop exit" "$rc" 0
expect_grep '^local .* stopped pid [0-9]+ journal [0-9]+' "$T/log7"
# Held to its end the settle would keep the agent until 10 s after it
# began; stopped, it lets go at once.
[ $((SECONDS - seen)) -lt 8 ] || fail "the stop took $((SECONDS - seen)) s: it waited for the settle"
no_leftovers
[ ! -e "$T/ran" ] || fail "a program ran after the stop"
echo PASS
