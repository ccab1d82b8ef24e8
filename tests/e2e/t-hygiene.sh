# Measurement hygiene: a busy machine is refused (load recorded), pinning
# is observed from inside a benchmark, the harness floor runs every round,
# a run killed by a signal is retried and counted, counters are measured
# or noted, and orch check shows the machine's facts.
. tests/e2e/lib.sh
P="tests/progs/bin/linux-$(uname -m)"

note "pinning: the benchmark sees only CPU 0"
cat > "$T/pin.ini" <<INI
[suite]
rounds   = 3
warmup   = 0
max_load = 0
pin      = 0
[variant.A]
bin = $PWD/$P/affinity
[variant.B]
bin = $PWD/$P/affinity
[bench.aff]
metrics = cpus, cpu_list
INI
rc=0; run_orch "$T/log1" run --out="$T/o1" "$T/pin.ini" || rc=$?
cat "$T/log1"
expect_eq "pin run exit" "$rc" 0
expect_eq "runs seeing one CPU" "$(awk -F, '$4=="aff" && $11=="cpus" && $12==1' "$T/o1/samples.csv" | wc -l)" 6
expect_eq "runs seeing CPU 0" "$(awk -F, '$4=="aff" && $11=="cpu_list" && $12==0' "$T/o1/samples.csv" | wc -l)" 6

note "a CPU list the host does not have: refused, not run unpinned"
sed 's/^pin      = 0/pin      = 900/' "$T/pin.ini" > "$T/badpin.ini"
rc=0; run_orch "$T/log1b" run --out="$T/o1b" "$T/badpin.ini" || rc=$?
cat "$T/log1b"
expect_eq "bad pin exit" "$rc" 3
expect_grep 'local failed: agent: pin = 900: ' "$T/log1b"

note "the harness floor: orch-null once per round, through the same path"
expect_eq "floor runs" "$(awk -F, '$4=="(floor)" && $11=="wall_ns" && $10=="ok"' "$T/o1/samples.csv" | wc -l)" 3
awk -F, '$4=="(floor)" && $11=="wall_ns" && ($12 <= 0 || $12 > 10000000000) {bad=1} END {exit bad}' "$T/o1/samples.csv" \
	|| fail "floor wall times out of range"

note "retries: a run killed by SIGKILL is run again, both attempts kept"
cat > "$T/retry.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
max_load = 0
retries  = 2
[variant.A]
bin = $PWD/$P/selfkill
[variant.B]
bin = $PWD/$P/selfkill
[bench.once]
args = $T/marker
INI
rc=0; run_orch "$T/log2" run --out="$T/o2" "$T/retry.ini" || rc=$?
cat "$T/log2"
expect_eq "retry run exit" "$rc" 0
C="$T/o2/samples.csv"
expect_eq "killed attempts" "$(awk -F, '$4=="once" && $11=="wall_ns" && $10=="signal" && $7==1' "$C" | wc -l)" 1
expect_eq "its retry" "$(awk -F, '$4=="once" && $11=="wall_ns" && $10=="ok" && $7==2' "$C" | wc -l)" 1
expect_eq "measured good runs" "$(awk -F, '$4=="once" && $11=="wall_ns" && $10=="ok"' "$C" | wc -l)" 10
expect_eq "retries counted" "$(jq '.hosts[0].retries' "$T/o2/summary.json")" 1
expect_eq "nothing failed" "$(jq '[.results[].failed] | add' "$T/o2/summary.json")" 0

note "counters: measured, or one clear note"
cat > "$T/ctr.ini" <<INI
[suite]
rounds   = 2
warmup   = 0
max_load = 0
counters = instructions, task-clock, context-switches
[variant.A]
bin = $PWD/$P/noop
[variant.B]
bin = $PWD/$P/noop
[bench.n]
INI
rc=0; run_orch "$T/log3" run --out="$T/o3" "$T/ctr.ini" || rc=$?
cat "$T/log3"
expect_eq "counters run exit" "$rc" 0
if grep -q "counters not measured" "$T/log3"; then
	expect_grep 'counters not measured: the kernel refused counter' "$T/log3"
	[ "$(grep -c 'counters not measured' "$T/log3")" = 1 ] || fail "the note repeats"
fi
# Counters the kernel accepted are metrics of every run.
for c in instructions task-clock context-switches; do
	grep -q "refused counters\? [^(]*'$c'" "$T/log3" && continue
	n=$(awk -F, -v c=$c '$4=="n" && $11==c' "$T/o3/samples.csv" | wc -l)
	expect_eq "$c rows" "$n" 4
done
grep -q "refused counters\? [^(]*'task-clock'" "$T/log3" ||
	expect_eq "task-clock > 0" "$(awk -F, '$4=="n" && $11=="task-clock" && $12 > 0' "$T/o3/samples.csv" | wc -l)" 4
echo "counters: $(awk -F, '$4=="n" && ($11=="instructions" || $11=="task-clock" || $11=="context-switches") {print $11"="$12}' "$T/o3/samples.csv" | sort | uniq -c | head)"

note "a busy machine: the host waits, then is refused with the load it saw"
cat > "$T/busy.ini" <<INI
[suite]
rounds    = 2
warmup    = 0
max_load  = 0.0001
load_wait = 4
[variant.A]
bin = $PWD/$P/noop
[variant.B]
bin = $PWD/$P/noop
[bench.n]
INI
# Two CPU hogs make sure the 1-minute load is above 0.0002 on 2 cores.
for i in 1 2; do ( end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do :; done ) & done
sleep 3
rc=0; run_orch "$T/log4" run --out="$T/o4" "$T/busy.ini" || rc=$?
wait
cat "$T/log4"
expect_eq "busy run exit" "$rc" 3
expect_grep 'local: waiting: 1-minute load [0-9.]+ above 0\.00' "$T/log4"
expect_grep 'local failed: too busy: 1-minute load [0-9.]+ .*stayed above 0\.00.* for [0-9]+ s' "$T/log4"
# Nothing measured: no report (tests/e2e/t-noreport.sh).
expect_grep '^orch: no sample was taken: the host failed; no report written' "$T/log4"
[ ! -e "$T/o4/summary.json" ] || fail "a report of nothing was written"

note "orch check shows the machine's facts"
rc=0; run_orch "$T/log5" check || rc=$?
cat "$T/log5"
expect_grep '^local +local .*linux/x86_64|^local +local .*linux/aarch64' "$T/log5"
expect_grep 'local: facts: governor=[^ ]+ boost=[^ ]+ smt=[^ ]+ aslr=[^ ]+ thp=[^ ]+ vm=' "$T/log5"
no_leftovers
echo PASS
