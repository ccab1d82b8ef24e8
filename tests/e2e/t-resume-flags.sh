# A resume never makes things worse. The options that shape a run's plan
# are in its record and `orch run --resume=DIR` takes them from there: a
# run started with --max-load=0 --env-pad=100 whose coordinator was killed
# resumes without the flags and completes, every sample exactly once and
# padded by at most 100 bytes. A flag that
# contradicts the record is refused (exit 2) before any agent is touched,
# naming the flag and the recorded value; one that agrees is accepted. An
# agent asked to resume with another plan than its journal's (here a
# program rebuilt since) refuses, keeps the journal and the agent
# measuring it, and the run stays resumable. A host's workdir comes from
# the user's inventory (or the default), never from the record: one the
# record says other than that is refused, naming the host and both paths
# (issue 27, finding 2).
. tests/e2e/lib.sh

# exactly_once DIR ROUNDS: each measured (bench, variant, round) once.
exactly_once() {
	local csv=$1/samples.csv rounds=$2 dup n
	dup=$(awk -F, '$11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$csv" | sort | uniq -d | head -3)
	[ -z "$dup" ] || fail "duplicated samples: $dup"
	n=$(awk -F, '$11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$csv" | sort -u | wc -l)
	expect_eq "distinct (bench, variant, round)" "$n" "$((2 * rounds))"
}
agent_pid() { pgrep -f "orch-agent serve --workdir=$T/workdir"; }
# The oldest such process: a benchmark's fork before its exec has the
# agent's command line for an instant.
agent_oldest() { pgrep -o -f "orch-agent serve --workdir=$T/workdir"; }

mkdir "$T/prog"
cp tests/progs/bin/linux-"$(uname -m)"/sleeper "$T/prog/sleeper"
# The suite's own load gate is far above any load (it never waits): what
# matters is that it is not the run's --max-load=0, so a plan rebuilt
# without the flag is another plan.
cat > "$T/gate.ini" <<EOT
[suite]
rounds   = 20
warmup   = 0
max_load = 100

[variant.A]
bin = $T/prog/sleeper

[variant.B]
bin = $T/prog/sleeper

[bench.nap]
args = 300
EOT

note "a run with --max-load=0; its coordinator killed (SIGKILL) mid-run"
"$ORCH" run --max-load=0 --env-pad=100 --out="$T/out" "$T/gate.ini" >"$T/log1" 2>&1 &
orch_pid=$!
wait_samples "$T/out" 3000
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
apid=$(agent_pid) || fail "the agent did not carry on"

note "a flag that contradicts the record: exit 2, naming it and the record's value"
rc=0; run_orch "$T/log2" run --resume="$T/out" --max-load=0.5 || rc=$?
cat "$T/log2"
expect_eq "exit with --max-load=0.5" "$rc" 2
expect_grep '^orch: --max-load=0\.5 contradicts the record of run .*: it was started with --max-load=0;' "$T/log2"
rc=0; run_orch "$T/log2b" run --resume="$T/out" --env-pad=4096 || rc=$?
expect_eq "exit with --env-pad=4096" "$rc" 2
expect_grep '^orch: --env-pad=4096 contradicts the record of run .*: it was started with --env-pad=100;' "$T/log2b"
rc=0; run_orch "$T/log3" run --resume="$T/out" --rounds=99 || rc=$?
cat "$T/log3"
expect_eq "exit with --rounds=99" "$rc" 2
expect_grep '^orch: --rounds=99 contradicts .*started with 20 rounds' "$T/log3"
rc=0; run_orch "$T/log3b" run --resume="$T/out" "$T/other.ini" || rc=$?
expect_eq "exit with another suite" "$rc" 2
expect_grep "other.ini contradicts .*started with the suite $T/gate.ini" "$T/log3b"
expect_eq "the agent measures on, untouched" "$(agent_oldest)" "$apid"

note "flags that agree are accepted; an agent asked for another plan keeps its journal"
printf 'rebuilt' >>"$T/prog/sleeper"
rc=0; run_orch "$T/log4" run --resume="$T/out" --max-load=0 --rounds=20 --hosts=local || rc=$?
cat "$T/log4"
expect_eq "exit when the agent refused" "$rc" 3
expect_grep 'journal holds another plan for run .*refused; the journal is kept' "$T/log4"
expect_grep 'orch run --resume='"$T/out" "$T/log4"
# The agent that refused is gone with its coordinator; the one measuring
# the journal is the same process as before.
only_first() { [ "$(agent_pid)" = "$apid" ]; }
wait_until 30 "the agent that refused to go, and $apid alone to measure" only_first
rc=0; run_orch "$T/log5" status "$T/out" || rc=$?
cat "$T/log5"
expect_grep '^local +[0-9]+ +unfinished +running pid '"$apid" "$T/log5"

note "the host's workdir now configured elsewhere: refused, naming both paths"
cp tests/progs/bin/linux-"$(uname -m)"/sleeper "$T/prog/sleeper"
rc=0; ORCH_WORKDIR="$T/elsewhere" run_orch "$T/log6" run --resume="$T/out" || rc=$?
cat "$T/log6"
expect_eq "resume exit, another workdir" "$rc" 2
expect_grep "host local: the record says the run started in the workdir $T/workdir, the inventory says $T/elsewhere: a resume runs only in the workdir your inventory names" "$T/log6"
[ ! -e "$T/elsewhere" ] || fail "the refused resume made the workdir configured now"
expect_eq "the agent measures on, untouched" "$(agent_oldest)" "$apid"

note "resumed without the flag (the program restored): complete, exactly once"
rc=0; run_orch "$T/log7" run --resume="$T/out" || rc=$?
cat "$T/log7"
expect_eq "resume exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out/summary.json")" true
exactly_once "$T/out" 20
expect_eq "padded, by at most 100 bytes" "$(awk -F, 'NR>1 && $9==0 && ($13=="" || $13>100)' "$T/out/samples.csv" | wc -l)" 0
no_leftovers
echo PASS
