# Ctrl-C detaches, it does not destroy. The first SIGINT (sent to orch's
# whole process group, as a terminal does) stops the coordinator and
# leaves the agent measuring, as a lost coordinator does; orch says how to
# resume and how to stop, and exits 130. orch status tells running,
# interrupted, resumable and finished apart, and --resume completes the
# run with every sample exactly once. The printed lines carry the local
# workdir the run used ($ORCH_WORKDIR): followed as printed from a shell
# without it, the resume finishes the run.
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

# interrupt OUT ROUNDS: a run on local, Ctrl-C'd (SIGINT to its process
# group) once it has stored some samples; checks what it said.
interrupt() {
	setsid "$ORCH" run --out="$1" --rounds="$2" tests/suites/slow.ini >"$1.log" 2>&1 &
	local orch_pid=$! rc=0
	wait_samples "$1" 3000
	rc=0; run_orch "$1.status" status "$1" || rc=$?
	cat "$1.status"
	expect_eq "status exit while running" "$rc" 0
	expect_grep '^run .*, running: its coordinator \(orch run\) is at work' "$1.status"
	kill -INT -- "-$orch_pid"
	wait "$orch_pid" || rc=$?
	cat "$1.log"
	expect_eq "exit after Ctrl-C" "$rc" 130
	expect_grep '^orch: interrupted: run .* left to its agents, which carry on measuring \([0-9]+ of '"$((2 * $2))"' measured runs stored\)' "$1.log"
	expect_grep "collect it and finish it: ORCH_WORKDIR=$T/workdir orch run --resume=$1\$" "$1.log"
	expect_grep "or stop its agents: +ORCH_WORKDIR=$T/workdir orch stop $1\$" "$1.log"
	[ ! -e "$1/report.md" ] || fail "an interrupted run wrote a report"
	agent_pid >/dev/null || fail "the agent did not carry on after Ctrl-C"
}

note "Ctrl-C mid-run: the agent carries on; status says interrupted"
interrupt "$T/out1" 20
rc=0; run_orch "$T/st1" status "$T/out1" || rc=$?
cat "$T/st1"
expect_eq "status exit" "$rc" 0
expect_grep '^run .*, interrupted: its coordinator is gone since [0-9T:-]+Z and 1 agent carries the run on \(measuring, or holding what it measured\); ORCH_WORKDIR='"$T/workdir"' orch run --resume='"$T/out1"' collects and finishes it, ORCH_WORKDIR='"$T/workdir"' orch stop '"$T/out1"' ends it' "$T/st1"
expect_grep '^local +[0-9]+ +unfinished +running pid [0-9]+' "$T/st1"
! grep -q 'complete\|finished$' "$T/st1" || fail "status calls an unfinished run complete"

note "--resume after Ctrl-C, as printed, without ORCH_WORKDIR: complete, every sample exactly once"
line=$(sed -n 's/^  collect it and finish it: //p' "$T/out1.log")
orch() { "$ORCH" "$@"; }
rc=0; (unset ORCH_WORKDIR; eval "$line") >"$T/log2" 2>&1 || rc=$?
cat "$T/log2"
expect_eq "resume exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out1/summary.json")" true
exactly_once "$T/out1" 20
rc=0; run_orch "$T/st2" status "$T/out1" || rc=$?
cat "$T/st2"
expect_grep '^run .*, finished$' "$T/st2"
no_leftovers

note "Ctrl-C, then orch stop: status says resumable, and --resume completes it"
interrupt "$T/out3" 10
rc=0; run_orch "$T/st3" stop "$T/out3" || rc=$?
cat "$T/st3"
expect_eq "stop exit" "$rc" 0
expect_grep '^run .*, resumable: its coordinator is gone and no agent measures; ORCH_WORKDIR='"$T/workdir"' orch run --resume='"$T/out3"' finishes it' "$T/st3"
no_leftovers
rc=0; run_orch "$T/log4" run --resume="$T/out3" || rc=$?
cat "$T/log4"
expect_eq "resume exit after stop" "$rc" 0
exactly_once "$T/out3" 10
no_leftovers

# journal_n RUN: the samples the agent of RUN has journaled so far.
journal_n() {
	"$AGENT" status --workdir="$T/workdir" --run="$1" |
	    sed -n 's/.*journal \([0-9]*\).*/\1/p'
}
grown() { [ "$(journal_n "$1")" -ge "$2" ]; }
newest_run() { ls -t "$T/workdir/runs" | head -1; }
# grown_newest: a run newer than $before has journaled its first round's
# floor and first variant.
grown_newest() {
	local r
	r=$(newest_run)
	[ -n "$r" ] && [ "$r" != "$before" ] && grown "$r" 2
}

note "Ctrl-C mid-measurement: the agent measures on into its journal, and a resume takes it up at once"
# Runs of 2 s: the Ctrl-C lands while one measures, and orch has closed
# its end (it looks at its stop flag every second) before the sample that
# follows is sent, which once waited 30 s for a peer that was gone, then
# ended the agent's plan.
cat >"$T/nap.ini" <<EOF
[suite]
warmup   = 0
max_load = 0
[variant.A]
bin = $PWD/tests/progs/bin/{os}-{arch}/sleeper
[variant.B]
bin = $PWD/tests/progs/bin/{os}-{arch}/sleeper
[bench.nap]
args = 2000
EOF
before=$(newest_run)
setsid "$ORCH" run --out="$T/out5" --rounds=2 "$T/nap.ini" >"$T/out5.log" 2>&1 &
orch_pid=$!
wait_until 60 "the run's first two samples in its journal" grown_newest
sleep 0.3
kill -INT -- "-$orch_pid"
rc=0; wait "$orch_pid" || rc=$?
expect_eq "exit after Ctrl-C" "$rc" 130
run5=$(newest_run)
n0=$(journal_n "$run5")
[ -n "$n0" ] || fail "no agent carried run $run5 on"
wait_until 15 "the journal of $run5 to grow past $n0 samples after Ctrl-C" grown "$run5" "$((n0 + 2))"
t0=$(date +%s%N)
rc=0; run_orch "$T/log5" run --resume="$T/out5" || rc=$?
note "resume took $((($(date +%s%N) - t0) / 1000000)) ms (the journal had $n0 of 6 samples at Ctrl-C)"
cat "$T/log5"
expect_eq "resume exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out5/summary.json")" true
exactly_once "$T/out5" 2
! grep -h 'not reachable\|killing it\|Interrupted system call' "$T/log5" "$T/out5"/logs/* "$T/workdir/runs/$run5"/*.log 2>/dev/null ||
	fail "the resume waited on a lost peer or killed an agent"
no_leftovers
echo PASS
