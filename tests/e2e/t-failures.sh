# Benchmarks that crash, time out, exit non-zero or disagree on checksums:
# each is a failed sample with its status and reason; the run goes on. A
# bench whose first round failed the same way on every attempt (crash,
# exit3) stops after that round on the host, with why.
. tests/e2e/lib.sh

start=$(date +%s)
rc=0; run_orch "$T/log" run --out="$T/out" --seed=1 tests/suites/failures.ini || rc=$?
cat "$T/log"
expect_eq "exit code (runs failed)" "$rc" 3
# Uncut, the ten 30 s sleeps alone would take 300 s; cut, the run takes
# seconds (more on a busy machine, never 200).
[ $(( $(date +%s) - start )) -lt 200 ] || fail "timeouts did not cut the sleeps short"
S="$T/out/summary.json" C="$T/out/samples.csv" M="$T/out/report.md"
expect_grep '^orch: 14 measured runs failed' "$T/log"
# Statuses as recorded, one per run (the wall_ns row).
for want in "crash signal 2" "slow timeout 10" "exit3 failed 2" "ok ok 10" "checksum ok 10"; do
	set -- $want
	got=$(awk -F, -v b=$1 -v s=$2 '$4==b && $10==s && $11=="wall_ns"' "$C" | wc -l)
	expect_eq "$1 runs with status $2" "$got" "$3"
done
# A timed-out run was cut at its 0.5 s deadline: never before it, and
# long before the program's own 30 s (a busy machine may be late to kill).
awk -F, '$4=="slow" && $11=="wall_ns" && ($12 < 400000000 || $12 > 20000000000) {bad=1} END {exit bad}' "$C" \
	|| fail "a timed-out run's wall time is not between 0.4 and 20 s"
# Results count the failures; the good benchmark gives a ratio of 1.
expect_eq "crash failed count" "$(jq '[.results[] | select(.bench=="crash" and .variant=="A")][0].failed' "$S")" 1
# (Five rounds cannot prove even "same": the signed-rank test's smallest
# p-value at five rounds is 1/16, docs/statistics.md.)
expect_eq "ok verdict" "$(jq -r '.comparisons[] | select(.bench=="ok") | .verdict' "$S")" inconclusive
expect_eq "ok ratio" "$(jq -r '.comparisons[] | select(.bench=="ok") | .ratio' "$S")" 1
# Disagreeing checksums: invalid, no ratio, and the reason names the runs.
expect_eq "checksum verdict" "$(jq -r '.comparisons[] | select(.bench=="checksum") | .verdict' "$S")" invalid
expect_eq "checksum ratio" "$(jq -r '.comparisons[] | select(.bench=="checksum") | .ratio' "$S")" null
jq -r '.comparisons[] | select(.bench=="checksum") | .reason' "$S" | grep -q "checksums disagree" || fail "no reason for invalid"
# The report shows why each failed.
expect_grep 'signal 11' "$M"
expect_grep 'timed out after 500 ms' "$M"
expect_grep 'disk on fire' "$M"
expect_grep 'No ratio for B vs A:.*checksums disagree' "$M"
# So does the terminal, as report.md: the first failure of each command as
# it happens, and each kind of failure at the end, with its reason.
expect_grep '^orch: local: exit3/A round [0-9]+: failed: disk on fire$' "$T/log"
expect_grep '^orch: local: slow/B round [0-9]+: timeout: timed out after 500 ms$' "$T/log"
expect_grep '^failed runs, by kind:$' "$T/log"
expect_grep '^  local  exit3/A: 1 run failed \(exit 3\): disk on fire$' "$T/log"
expect_grep '^  local  crash/B: 1 run signal 11: killed by signal 11 \(Segmentation fault\)$' "$T/log"
expect_grep '^  local  slow/A: 5 runs timeout: timed out after 500 ms$' "$T/log"
expect_eq "kinds of failure on the terminal" "$(grep -cE '^  local  [a-z0-9]*/[AB]: [15] runs? ' "$T/log")" 6
expect_grep '^orch: local: crash: stopped after round 1: every attempt of [AB] failed the same way: signal 11: killed by signal 11 \(Segmentation fault\)$' "$T/log"
expect_grep '^orch: local: exit3: stopped after round 1: every attempt of [AB] failed the same way: exit 3: disk on fire$' "$T/log"
# A timeout is not a way of failing that stops a bench.
expect_grep 'slow +wall_ns +— +invalid: 0 good pairs$' "$T/log"

note "cat of a missing file, 20 rounds: stopped after round 1, No such file"
cat > "$T/missing.ini" <<INI
[suite]
rounds   = 20
warmup   = 0
retries  = 0
max_load = 0
[variant.A]
bin = /bin/cat
[variant.B]
bin = /bin/cat
args = -u
[bench.missing]
args = $T/no-such-file
[bench.fine]
args = /dev/null
INI
nsf="cat: $T/no-such-file: No such file or directory"
rc=0; run_orch "$T/mlog" run --out="$T/mout" "$T/missing.ini" || rc=$?
cat "$T/mlog"
expect_eq "missing file exit" "$rc" 3
expect_grep "^orch: local: missing/A round 1: failed: $nsf$" "$T/mlog"
# Its first round failed the same way: the bench stops on the host, with
# why; the other bench runs its 20 rounds.
expect_grep "^orch: local: missing: stopped after round 1: every attempt of [AB] failed the same way: exit 1: $nsf$" "$T/mlog"
expect_grep "^  local  missing/A: 1 run failed \(exit 1\): $nsf$" "$T/mlog"
expect_grep "^  local  missing/B: 1 run failed \(exit 1\): $nsf$" "$T/mlog"
expect_grep "missing +wall_ns +— +invalid: stopped after round 1$" "$T/mlog"
expect_eq "missing runs" "$(awk -F, '$4=="missing" && $11=="wall_ns"' "$T/mout/samples.csv" | wc -l)" 2
expect_eq "fine runs" "$(awk -F, '$4=="fine" && $10=="ok" && $11=="wall_ns"' "$T/mout/samples.csv" | wc -l)" 40
expect_grep "No ratio for B vs A:\*\* stopped after round 1: every attempt of [AB] failed the same way: exit 1: $nsf" "$T/mout/report.md"
# rounds = auto: the stopped bench counts as decided (invalid), not run to
# its 200 rounds.
sed -e 's/^rounds .*/rounds = auto/' -e '/^\[bench.fine\]/,$d' "$T/missing.ini" >"$T/auto.ini"
rc=0; run_orch "$T/alog" run --out="$T/aout" "$T/auto.ini" || rc=$?
cat "$T/alog"
expect_eq "missing file exit, rounds = auto" "$rc" 3
expect_grep 'rounds = auto: local 1 round, decided' "$T/alog"
note "the agent killed after a stop: the one started again skips the same rounds"
cat > "$T/kill.ini" <<INI
[suite]
rounds   = 12
warmup   = 0
retries  = 0
max_load = 0
[variant.A]
bin = /bin/sh
[variant.B]
bin = /bin/sh
env = B=1
[bench.missing]
args = -c "cat $T/no-such-file"
[bench.nap]
args = -c "sleep 0.2"
INI
"$ORCH" run --out="$T/kout" "$T/kill.ini" >"$T/klog" 2>&1 &
orch_pid=$!
_stopped() { grep -q 'local: missing: stopped after round 1' "$T/klog"; }
wait_until 60 "the stop" _stopped
apid=$(pgrep -f "orch-agent serve --workdir=$T/workdir" | head -1)
[ -n "$apid" ] || fail "no agent to kill"
kill -9 "$apid"
rc=0; wait "$orch_pid" || rc=$?
cat "$T/klog"
expect_eq "killed agent run exit" "$rc" 3
expect_grep 'local: the agent exited .*starting its agent again' "$T/klog"
expect_eq "missing runs, across the restart" "$(awk -F, '$4=="missing" && $11=="wall_ns"' "$T/kout/samples.csv" | wc -l)" 2
expect_eq "nap runs" "$(awk -F, '$4=="nap" && $10=="ok" && $11=="wall_ns"' "$T/kout/samples.csv" | wc -l)" 24

note "a B that crashes in every 3rd of its runs, good on its retry: flagged"
cat > "$T/flaky.sh" <<'SH'
# B's 3rd, 6th, ... run (a counter file) is killed by SIGSEGV.
[ "$V" = B ] || exit 0
n=$(($(cat "$0.count" 2>/dev/null || echo 0) + 1))
echo $n > "$0.count"
[ $((n % 3)) -ne 0 ] || kill -SEGV $$
SH
cat > "$T/flaky.ini" <<INI
[suite]
rounds   = 9
warmup   = 0
retries  = 1
max_load = 0
[variant.A]
bin = /bin/sh
env = V=A
[variant.B]
bin = /bin/sh
env = V=B
[bench.flaky]
args = $T/flaky.sh
INI
# B's rounds 3, 5, 7 and 9 needed a retry (its runs 3, 6, 9 and 12).
rc=0; run_orch "$T/flog" run --out="$T/fout" --fail-on=invalid "$T/flaky.ini" || rc=$?
cat "$T/flog"
expect_eq "flaky exit (--fail-on=invalid)" "$rc" 1
expect_grep '^retried in more than 10% of its runs \(a crash rate the ratio hides\):$' "$T/flog"
expect_grep '^  local  flaky/B: 4 of 9 runs retried \(44%\)$' "$T/flog"
expect_grep '^orch: --fail-on: local flaky: B retried in 4 of 9 runs \(44%, over 10%\)' "$T/flog"
expect_eq "flaky retry_flag" "$(jq '[.results[] | select(.bench=="flaky" and .variant=="B")][0].retry_flag' "$T/fout/summary.json")" true
expect_grep 'Retried in more than 10% of its runs:\*\* B, 4 of 9 runs' "$T/fout/report.md"
no_leftovers
echo PASS
