# Waiting for a busy host (issue 32): two `orch run` started at once on one
# host (local, one workdir) both exit 0, the second saying it waits for the
# first, naming its run; a host held by another run longer than load_wait
# fails with exit 3 once that bound has passed, saying so. And `make demo
# ORCH_FLAGS=...` hands its options to orch run.
. tests/e2e/lib.sh

P=$PWD/tests/progs/bin/linux-$(uname -m)
# suite WAIT MS: two variants of a nap of MS ms, 4 rounds, load_wait WAIT.
suite() {
	cat <<INI
[suite]
rounds    = 4
warmup    = 0
max_load  = 0
load_wait = $1
[variant.A]
bin = $P/sleeper
[variant.B]
bin = $P/sleeper
[bench.nap]
args = $2
INI
}
suite 60 300 > "$T/short.ini"
suite 2 1500 > "$T/wait2.ini"

note "two runs started at once on one host: both exit 0, the second waits for the first"
"$ORCH" run --out="$T/r1" "$T/short.ini" >"$T/log1" 2>&1 & p1=$!
"$ORCH" run --out="$T/r2" "$T/short.ini" >"$T/log2" 2>&1 & p2=$!
rc1=0; wait "$p1" || rc1=$?
rc2=0; wait "$p2" || rc2=$?
cat "$T/log1" "$T/log2"
expect_eq "first run exit" "$rc1" 0
expect_eq "second run exit" "$rc2" 0
# Which one waited is a matter of who took the lock first.
id1=$(sed -n 's/^orch: run \([^:]*\): .*/\1/p' "$T/log1")
id2=$(sed -n 's/^orch: run \([^:]*\): .*/\1/p' "$T/log2")
if grep -q 'waiting: host busy' "$T/log2"; then w=$T/log2 holder=$id1; else w=$T/log1 holder=$id2; fi
expect_grep "^orch: local: waiting: host busy: another orch run holds .*/run.lock \\(run $holder, agent pid [0-9]+, host local, .*\\); [0-9ms]+ left of load_wait 1m00s: it starts once that run lets go$" "$w"
for d in r1 r2; do
	expect_eq "$d complete" "$(jq .complete "$T/$d/summary.json")" true
	expect_eq "$d measured runs" "$(jq '[.results[] | .n] | add' "$T/$d/summary.json")" 8
done

note "held longer than load_wait: exit 3 once the bound has passed, saying so"
"$ORCH" run --out="$T/r3" "$T/wait2.ini" >"$T/log3" 2>&1 & p3=$!
wait_samples "$T/r3" 600
start=$SECONDS
rc=0; run_orch "$T/log4" run --out="$T/r4" "$T/wait2.ini" || rc=$?
cat "$T/log4"
expect_eq "busy host exit" "$rc" 3
[ $((SECONDS - start)) -ge 2 ] || fail "gave up before load_wait (2 s) passed"
expect_grep '^orch: local: waiting: host busy: another orch run holds .*; 2s left of load_wait 2s' "$T/log4"
expect_grep '^orch: local failed: agent: host busy: another orch run holds .*; waited [0-9]+ s \(load_wait\)$' "$T/log4"
rc=0; wait "$p3" || rc=$?
expect_eq "the holder's exit" "$rc" 0
note "make demo ORCH_FLAGS=... passes the options to orch run"
make -n --no-print-directory demo ORCH_FLAGS='--max-load=0 --rounds=5' >"$T/demo" 2>&1 || true
expect_grep '^\./bin/orch run --max-load=0 --rounds=5 suites/example\.ini$' "$T/demo"
no_leftovers
echo PASS
