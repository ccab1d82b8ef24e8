# Slurm hosts for real: the test cluster (tests/lab/slurm.sh) comes up,
# hands out an exclusive node and takes it back, shows that a FORCE:2
# partition puts two --exclusive jobs on one node; orch run allocates a
# node per Slurm host (e on epyc, a on arm), measures there over SSH,
# names the nodes in summary.json and report.md and gives them back; where
# the cluster refuses heterogeneous jobs (the lab's job_submit.lua) each
# host gets a job of its own, with salloc's reason; a
# host on the forced partition is refused before anything is measured; a
# SIGKILLed coordinator's run resumes on its job; orch stop of a detached
# run leaves no agent and no job; with login = L (a login host's sshd,
# orch without SLURM_CONF) orch check, orch run (also one whose session
# there is killed mid-run) and orch stop of a detached run work through
# it, a refused login host fails naming the cluster and the host, and Ctrl-C
# while queued leaves no job; test-slurm (slurm.c) passes against the
# cluster and the login host (a command killed there by a signal is a
# failure, not exit 0), and the teardown leaves no daemon. orch deploy
# refuses a Slurm host (its node exists only for a run). orch check
# allocates nothing unless --allocate; with it a node is held, probed as
# any host and released: allowed on epyc (here and through L), not probed
# on a busy partition, refused by Slurm (a bad constraint), and on n1
# whose sshd lets in only a user with a job there (pam_slurm_adopt's
# rule: plain SSH refused, the check and orch run get in), or no one
# (refused, exit 3); Ctrl-C while it holds n1 releases it (exit 130), and
# a release that cannot reach the login host says scancel by hand.
. tests/e2e/lib.sh
. tests/lab/lab.sh
. tests/lab/slurm.sh

note "orch deploy refuses a Slurm host (no node until a run), deploying none"
printf '[slurm.lab]\nlogin = local\n\n[host.e]\nslurm = lab\npartition = epyc\n' \
    >"$T/dinv.ini"
rc=0; "$ORCH" deploy --inventory="$T/dinv.ini" --hosts=e >"$T/deploy" 2>&1 ||
    rc=$?
expect_eq "exit of orch deploy on a Slurm host" "$rc" 2
expect_grep "^orch: $T/dinv.ini:4: \[host.e\] slurm = lab: a Slurm host has no node until a run is given one" \
    "$T/deploy"

if why=$(slurm_skip_reason); then
	echo "SKIPPED: $why"
	echo PASS
	exit 0
fi

note "bring-up: munged, slurmctld, three slurmd in namespaces"
slurm_up 3 || fail "the Slurm lab did not come up"
echo "bring-up: sshd ${SLURM_SSH_MS} ms, Slurm ${SLURM_UP_MS} ms"
[ -n "$(slurm_daemons)" ] || fail "no daemon of the cluster found"

note "salloc --exclusive on epyc gets n1"
timeout 30 salloc --no-shell -p epyc -N1 --exclusive -J orch-t \
    >"$T/salloc" 2>&1 || { cat "$T/salloc"; fail "salloc failed"; }
job=$(sed -n 's/.*Granted job allocation \([0-9][0-9]*\)$/\1/p' "$T/salloc")
[ -n "$job" ] || { cat "$T/salloc"; fail "no job id in salloc's output"; }
timeout 10 squeue -h -j "$job" -o '%i %P %N %T' >"$T/squeue"
expect_eq "squeue" "$(cat "$T/squeue")" "$job epyc n1 RUNNING"
timeout 10 scontrol show job -o "$job" >"$T/job"
expect_grep "^JobId=$job .* JobState=RUNNING " "$T/job"
expect_grep " NodeList=n1 " "$T/job"
expect_grep " OverSubscribe=NO " "$T/job"
expect_eq "n1's state" "$(slurm_node_state n1)" ALLOCATED

note "scancel frees it"
timeout 10 scancel "$job" || fail "scancel failed"
running() { timeout 5 squeue -h -t pending,running -o %i 2>/dev/null; }
wait_until 15 "job $job to end" eval '[ -z "$(running)" ]'
wait_until 15 "n1 idle again" eval '[ "$(slurm_node_state n1)" = IDLE ]'

note "forced (OverSubscribe=FORCE:2): two --exclusive jobs share n3"
for k in 1 2; do
	timeout 30 salloc --no-shell -p forced -N1 --exclusive -J orch-f$k \
	    >"$T/forced$k" 2>&1 || { cat "$T/forced$k"; fail "salloc $k failed"; }
done
timeout 10 squeue -h -p forced -t running -o '%N %h' >"$T/fsq"
expect_eq "forced jobs" "$(sort -u "$T/fsq")" "n3 YES"
expect_eq "forced job count" "$(wc -l <"$T/fsq")" 2
timeout 10 scancel -p forced || fail "scancel -p forced failed"

export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV=$T/inv.ini
{
	printf '[slurm.lab]\nlogin = local\ntime = 10m\nwait = 20s\ntimeout = 10s\n'
	for hp in e:epyc a:arm f:forced; do
		printf '\n[host.%s]\nslurm = lab\npartition = %s\nuser = %s\n' \
		    "${hp%%:*}" "${hp#*:}" "$LAB_USER"
		printf 'identity = %s\nworkdir = %s\n' "$LAB_KEY" "$T/wd-${hp%%:*}"
	done
} >"$INV"
# Our cluster's jobs (SLURM_CONF is ours): none of orch's may be left.
orch_jobs() { timeout 10 squeue -h -o '%i %j' | grep ' orch-' || true; }
no_agent() { ! pgrep -f "$T/wd-[ea]/bin/orch-agent" >/dev/null; }

note "orch check tells each Slurm host's partition and nodes, allocates none"
rc=0; run_orch "$T/check" check --inventory="$INV" --hosts=e,a || rc=$?
[ "$rc" = 0 ] || { cat "$T/check"; fail "orch check exit $rc"; }
expect_grep '^e +slurm .* slurm$' "$T/check"
expect_grep '^e: a Slurm host, allocated by orch run: partition epyc of cluster lab: State=UP OverSubscribe=EXCLUSIVE; nodes: n1 idle$' "$T/check"
expect_grep '^a: a Slurm host, allocated by orch run: partition arm of cluster lab: State=UP OverSubscribe=EXCLUSIVE; nodes: n2 idle$' "$T/check"
rc=0; run_orch "$T/check2" check --inventory="$INV" --hosts=f || rc=$?
expect_eq "exit of orch check on a forced partition" "$rc" 3
expect_grep '^f: not ready: partition forced of cluster lab: State=UP OverSubscribe=FORCE:2; nodes: n3 idle: orch run would refuse its nodes: not exclusive$' "$T/check2"
expect_eq "orch jobs after orch check" "$(orch_jobs)" ""
# Without --allocate: the probe is offered, and no job was ever made (squeue
# -t all lists the jobs that ended too, for MinJobAge: 300 s).
expect_grep '^e: ssh to an allocated node: not probed \(orch check --allocate holds a node for seconds to try\)$' "$T/check"
checkjobs() { timeout 10 squeue -h -t all -o '%j' | grep -c '^orch-check-' || true; }
expect_eq "orch check jobs after a plain orch check" "$(checkjobs)" 0

note "orch run on e (epyc) and a (arm): a node each, named, given back"
rc=0; run_orch "$T/run1" run --inventory="$INV" --hosts=e,a --rounds=6 \
    --seed=1 --out="$T/r1" tests/suites/brisk.ini || rc=$?
[ "$rc" = 0 ] || { cat "$T/run1"; slurm_logs; fail "orch run exit $rc"; }
# One heterogeneous job, a component a host: LEADER+0 and LEADER+1.
expect_grep '^orch: e: Slurm job [0-9]+\+0 on node n1 \(.*\), partition epyc, exclusive$' "$T/run1"
expect_grep '^orch: a: Slurm job [0-9]+\+1 on node n2 \(.*\), partition arm, exclusive$' "$T/run1"
expect_eq "e's node" "$(jq -r '.hosts[] | select(.name == "e") | .slurm.node' "$T/r1/summary.json")" n1
expect_eq "a's node" "$(jq -r '.hosts[] | select(.name == "a") | .slurm.node' "$T/r1/summary.json")" n2
jq -e '[.hosts[] | .slurm | (.job_id | type == "string" and test("^[0-9]+$")) and .cluster == "lab"] | all and length == 2' \
    "$T/r1/summary.json" >/dev/null &&
    jq -e '([.hosts[].slurm.job_id] | unique | length == 1) and ([.hosts[] | [.name, .slurm.component]] | sort == [["a", 1], ["e", 0]])' \
    "$T/r1/summary.json" >/dev/null || fail "hosts[].slurm: $(jq -c '[.hosts[].slurm]' "$T/r1/summary.json")"
expect_grep '^- Slurm: host `e` ran on node `n1` \(job [0-9]+, component 0, partition `epyc`, cluster `lab`, released\)$' "$T/r1/report.md"
# The node's facts as Slurm knows them, in the alloc records.
grep -aq 'node_cpus' "$T/r1/samples.msgpack" || fail "no node_cpus in the record"
grep -aq 'node_arch' "$T/r1/samples.msgpack" || fail "no node_arch in the record"
expect_eq "orch jobs after the run" "$(orch_jobs)" ""
no_agent || fail "an agent outlived the run"

note "a cluster that takes no heterogeneous job: a job per host instead"
touch "$SLURM_DIR/refuse-het"
rc=0; run_orch "$T/run1h" run --inventory="$INV" --hosts=e,a --rounds=3 \
    --seed=1 --out="$T/r1h" tests/suites/brisk.ini || rc=$?
rm -f "$SLURM_DIR/refuse-het"
[ "$rc" = 0 ] || { cat "$T/run1h"; slurm_logs; fail "orch run exit $rc"; }
# salloc's words for it, not its last line ("Unspecified error").
expect_grep '^orch: e: salloc of 2 components \(-p epyc \.\.\.\): salloc: error: ([0-9]+: )?Heterogeneous jobs are disabled on this cluster; a job per host instead$' "$T/run1h"
expect_grep '^orch: e: Slurm job [0-9]+ on node n1 \(.*\), partition epyc, exclusive$' "$T/run1h"
expect_grep '^orch: a: Slurm job [0-9]+ on node n2 \(.*\), partition arm, exclusive$' "$T/run1h"
jq -e '([.hosts[].slurm.job_id] | unique | length == 2) and ([.hosts[].slurm.component] == [0, 0])' \
    "$T/r1h/summary.json" >/dev/null ||
	fail "hosts[].slurm: $(jq -c '[.hosts[].slurm]' "$T/r1h/summary.json")"
expect_eq "orch jobs after the run of two jobs" "$(orch_jobs)" ""
no_agent || fail "an agent outlived the run of two jobs"

note "orch check --allocate: a node held, probed over SSH with its agent, released"
# The run above put e's agent in its workdir (one filesystem for all nodes).
ver=$("$ORCH" version | awk '{print $2}')
rc=0; run_orch "$T/acheck" check --allocate --inventory="$INV" --hosts=e,f || rc=$?
expect_eq "exit of orch check --allocate (f refused: forced)" "$rc" 3
# Ready: yes, or would wait (the load gate; this machine is busy or not).
expect_grep "^e +yes +[a-z]+ +ok +$ver +linux/[^ ]+ .* (yes|would wait)\$" "$T/acheck"
expect_grep '^e: ssh to an allocated node: allowed: node n1 held for this check \(Slurm job [0-9]+, partition epyc, released\)$' "$T/acheck"
expect_grep '^e: facts: governor=' "$T/acheck"
# A partition orch run would refuse is not allocated at all.
expect_grep '^f: not ready: partition forced .*: orch run would refuse its nodes: not exclusive$' "$T/acheck"
expect_eq "orch jobs after orch check --allocate" "$(orch_jobs)" ""
expect_eq "orch check jobs made by --allocate (ended)" "$(checkjobs)" 1
# Beside it, nothing free now on arm: not probed, nothing queued, exit 0.
# salloc waits the cluster's timeout for a node (--immediate): 3 s here,
# not the 10 s of $INV.
timeout 30 salloc --no-shell -p arm -N1 --exclusive -J blocker \
    >"$T/ablocker" 2>&1 || { cat "$T/ablocker"; fail "the blocker's salloc failed"; }
sed 's/^timeout = 10s$/timeout = 3s/' "$INV" >"$T/inv3.ini"
t0=$SECONDS
rc=0; run_orch "$T/acheck2" check --allocate --inventory="$T/inv3.ini" \
    --hosts=e,a || rc=$?
[ $((SECONDS - t0)) -lt 20 ] || fail "a busy partition held orch check $((SECONDS - t0)) s"
[ "$rc" = 0 ] || { cat "$T/acheck2"; fail "orch check --allocate (e, a busy) exit $rc"; }
expect_grep '^e: ssh to an allocated node: allowed: node n1 held for this check \(Slurm job [0-9]+, partition epyc, released\)$' "$T/acheck2"
expect_grep '^a: ssh to an allocated node: no node of partition arm free now: not probed$' "$T/acheck2"
expect_eq "orch jobs after a busy partition" "$(orch_jobs)" ""
timeout 10 scancel -n blocker || fail "scancel of the blocker failed"
# An allocation Slurm refuses: not ready, its words, exit 3, no job.
printf '\n[host.x]\nslurm = lab\npartition = epyc\nconstraint = nosuch\n' \
    >>"$T/inv3.ini"
rc=0; run_orch "$T/acheck6" check --allocate --inventory="$T/inv3.ini" --hosts=x ||
    rc=$?
expect_eq "exit of orch check --allocate, salloc refused" "$rc" 3
expect_grep '^x: not ready: salloc -p epyc: .*Invalid feature specification$' "$T/acheck6"
expect_eq "orch jobs after a refused allocation" "$(orch_jobs)" ""

note "n1's sshd as pam_slurm_adopt: SSH only with a job there; --allocate gets in"
slurm_adopt 1 adopt || fail "n1's sshd (adopt) did not come up"
n1ssh() { timeout 20 ssh -F "$LAB_SSH_CONFIG" -o BatchMode=yes h1 true </dev/null; }
! n1ssh 2>"$T/n1ssh" || fail "SSH to n1 without a job there was let in"
expect_grep 'Permission denied' "$T/n1ssh"
rc=0; run_orch "$T/acheck3" check --allocate --inventory="$INV" --hosts=e || rc=$?
[ "$rc" = 0 ] || { cat "$T/acheck3"; fail "orch check --allocate (adopt) exit $rc"; }
expect_grep "^e +yes +[a-z]+ +ok +$ver " "$T/acheck3"
expect_grep '^e: ssh to an allocated node: allowed: node n1 held for this check \(Slurm job [0-9]+, partition epyc, released\)$' "$T/acheck3"
expect_eq "orch jobs after orch check --allocate (adopt)" "$(orch_jobs)" ""
! n1ssh 2>/dev/null || fail "SSH to n1 let in after the check's job ended"
rc=0; run_orch "$T/arun" run --inventory="$INV" --hosts=e --rounds=2 \
    --out="$T/ra" tests/suites/brisk.ini || rc=$?
[ "$rc" = 0 ] || { cat "$T/arun"; fail "orch run on n1 (adopt) exit $rc"; }
expect_eq "orch jobs after a run on n1 (adopt)" "$(orch_jobs)" ""

note "n1's sshd lets no one in: --allocate says refused, exit 3, no job left"
slurm_adopt 1 never || fail "n1's sshd (never) did not come up"
rc=0; run_orch "$T/acheck4" check --allocate --inventory="$INV" --hosts=e || rc=$?
expect_eq "exit of orch check --allocate, SSH refused" "$rc" 3
expect_grep '^e +yes +[a-z]+ +FAILED ' "$T/acheck4"
expect_grep '^e: not ready: node n1 held for this check \(Slurm job [0-9]+, partition epyc, released\): ssh to an allocated node refused: .*authentication' "$T/acheck4"
expect_eq "orch jobs after a refused check" "$(orch_jobs)" ""

note "orch check --allocate interrupted (Ctrl-C) while it holds n1: released, exit 130"
slurm_adopt 1 never hold || fail "n1's sshd (never, hold) did not come up"
setsid "$ORCH" check --allocate --inventory="$INV" --hosts=e \
    >"$T/acheck5" 2>&1 &
pid=$!
wait_until 30 "the check's SSH to n1 to reach its keys command" \
    test -s "$SLURM_ADOPT_HELD"
[ -n "$(orch_jobs)" ] || fail "no job held while the check probes n1"
kill -INT -- "-$pid"
kill "$(cat "$SLURM_ADOPT_HELD")" || fail "no keys command to end"
rc=0; wait "$pid" || rc=$?
expect_eq "exit of an interrupted orch check --allocate" "$rc" 130
expect_grep '^e: not ready: node n1 held for this check \(Slurm job [0-9]+, partition epyc, released\): interrupted$' "$T/acheck5"
expect_eq "orch jobs after an interrupted check" "$(orch_jobs)" ""
slurm_adopt 1 off || fail "n1's sshd did not come back"

note "a host on the forced partition (OverSubscribe=FORCE:2) is refused"
# Alone (a plain job), then beside e (a component of e's job).
rc=0; run_orch "$T/run2a" run --inventory="$INV" --hosts=f --rounds=2 \
    --out="$T/r2" tests/suites/brisk.ini || rc=$?
expect_eq "exit of a run on a forced node" "$rc" 3
expect_grep '^orch: f: job [0-9]+ on node n3 is not exclusive \(OverSubscribe=[A-Z]+, .*partition forced has OverSubscribe=FORCE:2\)$' "$T/run2a"
[ ! -e "$T/r2" ] || fail "a refused run left its directory"
wait_until 15 "the refused run's job to go" eval '[ -z "$(orch_jobs)" ]'
rc=0; run_orch "$T/run2" run --inventory="$INV" --hosts=e,f --rounds=2 \
    --out="$T/r2" tests/suites/brisk.ini || rc=$?
expect_eq "exit of a run beside a forced node" "$rc" 3
expect_grep '^orch: f: job [0-9]+\+1 on node n3 is not exclusive \(OverSubscribe=[A-Z]+, .*partition forced has OverSubscribe=FORCE:2\)$' "$T/run2"
expect_grep '^nothing ran\.$' "$T/run2"
[ ! -e "$T/r2" ] || fail "a refused run left its directory"
wait_until 15 "the refused run's jobs to go" eval '[ -z "$(orch_jobs)" ]'

note "Ctrl-C while queued revokes the request: exit 130, no job left"
timeout 30 salloc --no-shell -p epyc -N1 --exclusive -J blocker \
    >"$T/blocker" 2>&1 || { cat "$T/blocker"; fail "the blocker's salloc failed"; }
setsid "$ORCH" run --inventory="$INV" --hosts=e --rounds=2 --out="$T/rq" \
    tests/suites/brisk.ini >"$T/runq" 2>&1 &
pid=$!
queued() { timeout 5 squeue -h -t pending -o '%j' | grep -q '^orch-'; }
wait_until 30 "orch's request to queue behind the blocker" queued
kill -INT -- "-$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit of a run interrupted in the queue" "$rc" 130
expect_grep '^orch: e: interrupted while waiting in the queue: the request is revoked' "$T/runq"
[ ! -e "$T/rq" ] || fail "an interrupted allocation left its run directory"
wait_until 15 "the revoked request to go" eval '[ -z "$(orch_jobs)" ]'
timeout 10 scancel -n blocker || fail "scancel of the blocker failed"
wait_until 15 "n1 idle again" eval '[ "$(slurm_node_state n1)" = IDLE ]'

note "a SIGKILLed coordinator's run resumes on its job, every sample once"
"$ORCH" run --inventory="$INV" --hosts=e,a --seed=2 --out="$T/r3" \
    tests/suites/brisk.ini >"$T/run3" 2>&1 &
pid=$!
wait_samples "$T/r3" 6000
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
[ -n "$(orch_jobs)" ] || fail "the job went with the coordinator"
rc=0; run_orch "$T/run3b" run --inventory="$INV" --resume="$T/r3" || rc=$?
[ "$rc" = 0 ] || { cat "$T/run3" "$T/run3b"; fail "resume exit $rc"; }
expect_grep '^orch: e: Slurm job [0-9]+\+0 still holds node n1$' "$T/run3b"
expect_grep '^orch: a: Slurm job [0-9]+\+1 still holds node n2$' "$T/run3b"
jq -e '[.hosts[] | .samples == 120 and .slurm.node != null] | all and length == 2' \
    "$T/r3/summary.json" >/dev/null || fail "samples after the resume: $(jq -c '[.hosts[] | [.name, .samples]]' "$T/r3/summary.json")"
expect_eq "orch jobs after the resume" "$(orch_jobs)" ""
rc=0; run_orch "$T/run3c" run --inventory="$INV" --resume="$T/r3" || rc=$?
[ "$rc" != 0 ] || fail "a finished run resumed again"

note "orch stop of a detached run: no agent, no job"
"$ORCH" run --inventory="$INV" --hosts=e,a --seed=3 --out="$T/r4" \
    tests/suites/brisk.ini >"$T/run4" 2>&1 &
pid=$!
wait_samples "$T/r4" 3000
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit of a terminated run" "$rc" 143
expect_grep '^  Slurm job [0-9]+\+0 \(host e, node n1\) stays allocated until 20[0-9-]+T[0-9:]+Z' "$T/run4"
[ -n "$(orch_jobs)" ] || fail "the detached run's job is gone"
rc=0; run_orch "$T/stop4" stop --inventory="$INV" "$T/r4" || rc=$?
[ "$rc" = 0 ] || { cat "$T/stop4"; fail "orch stop exit $rc"; }
expect_grep '^e: Slurm job [0-9]+\+0 \(node n1\) cancelled$' "$T/stop4"
expect_grep '^a: Slurm job [0-9]+\+1 \(node n2\) cancelled$' "$T/stop4"
wait_until 15 "the stopped run's agents to end" no_agent
expect_eq "orch jobs after orch stop" "$(orch_jobs)" ""
rc=0; run_orch "$T/run4b" run --inventory="$INV" --resume="$T/r4" || rc=$?
[ "$rc" != 0 ] || fail "a stopped run resumed on a cancelled job"
expect_grep 'allocation ended' "$T/run4b"

note "login = L: every Slurm command runs on the login host over SSH"
# orch runs without SLURM_CONF (and this machine has no slurm.conf): the
# commands can only have reached the cluster from the login host, whose
# sshd sets SLURM_CONF (tests/lab/slurm.sh, slurm_login_up).
slurm_login_up || fail "the login host did not come up"
LINV=$T/linv.ini
{
	printf '[slurm.lab]\nlogin = L\ntime = 10m\nwait = 20s\ntimeout = 10s\n'
	printf '\n[host.L]\naddress = %s\nport = %s\nuser = %s\nidentity = %s\n' \
	    "$SLURM_LOGIN_ADDR" "$SLURM_LOGIN_PORT" "$LAB_USER" "$LAB_KEY"
	for hp in e:epyc a:arm; do
		printf '\n[host.%s]\nslurm = lab\npartition = %s\nuser = %s\n' \
		    "${hp%%:*}" "${hp#*:}" "$LAB_USER"
		printf 'identity = %s\nworkdir = %s\n' "$LAB_KEY" "$T/wd-${hp%%:*}"
	done
} >"$LINV"
nocf() { env -u SLURM_CONF "$@"; }
# The control: here, without SLURM_CONF, Slurm's commands find no cluster.
sed 's/^login = L$/login = local/' "$LINV" >"$T/linv-local.ini"
rc=0; nocf timeout 60 "$ORCH" check --inventory="$T/linv-local.ini" --hosts=e \
    >"$T/lcheck0" 2>&1 || rc=$?
expect_eq "exit of orch check, login = local, no SLURM_CONF" "$rc" 3
expect_grep '^e: not ready: scontrol show partition epyc: ' "$T/lcheck0"
# Each SSH session to the login host is one line of its sshd's log.
sessions() { grep -c 'Accepted publickey' "$SLURM_DIR/login/sshd.log"; }
s0=$(sessions)
rc=0; nocf timeout 60 "$ORCH" check --inventory="$LINV" --hosts=e,a \
    >"$T/lcheck" 2>&1 || rc=$?
expect_eq "sessions to the login host for one orch check" $(($(sessions) - s0)) 1
s0=$(sessions)
[ "$rc" = 0 ] || { cat "$T/lcheck"; fail "orch check (login = L) exit $rc"; }
lh="login host L \\($LAB_USER@127\\.0\\.0\\.1 port $SLURM_LOGIN_PORT\\)"
expect_grep "^e: a Slurm host, allocated by orch run: partition epyc of cluster lab, $lh: State=UP OverSubscribe=EXCLUSIVE; nodes: n1 idle\$" "$T/lcheck"
expect_grep "^a: a Slurm host, allocated by orch run: partition arm of cluster lab, $lh: State=UP OverSubscribe=EXCLUSIVE; nodes: n2 idle\$" "$T/lcheck"
# --allocate through the login host: salloc, scontrol, squeue and scancel
# there, SSH to the node from here.
rc=0; nocf timeout 60 "$ORCH" check --allocate --inventory="$LINV" --hosts=e \
    >"$T/lcheck2" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/lcheck2"; fail "orch check --allocate (login = L) exit $rc"; }
expect_grep '^e: ssh to an allocated node: allowed: node n1 held for this check \(Slurm job [0-9]+, partition epyc, released\)$' "$T/lcheck2"
expect_eq "orch jobs after orch check --allocate (login = L)" "$(orch_jobs)" ""
expect_eq "sessions to the login host for orch check --allocate" \
    $(($(sessions) - s0)) 1
s0=$(sessions)
rc=0; nocf timeout 120 "$ORCH" run --inventory="$LINV" --hosts=e,a --rounds=6 \
    --seed=1 --out="$T/rl" tests/suites/brisk.ini >"$T/runl" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/runl"; slurm_logs; fail "orch run (login = L) exit $rc"; }
expect_grep '^orch: e: Slurm job [0-9]+\+0 on node n1 \(.*\), partition epyc, exclusive$' "$T/runl"
expect_grep '^orch: a: Slurm job [0-9]+\+1 on node n2 \(.*\), partition arm, exclusive$' "$T/runl"
expect_eq "e's node (login = L)" "$(jq -r '.hosts[] | select(.name == "e") | .slurm.node' "$T/rl/summary.json")" n1
expect_eq "a's node (login = L)" "$(jq -r '.hosts[] | select(.name == "a") | .slurm.node' "$T/rl/summary.json")" n2
# The alloc records name the login host (msgpack: "login", then "L").
LC_ALL=C grep -aqP '\xa5login\xa1L' "$T/rl/samples.msgpack" ||
    fail "no login L in the run's alloc records"
expect_eq "orch jobs after the run (login = L)" "$(orch_jobs)" ""
expect_eq "sessions to the login host for one orch run" $(($(sessions) - s0)) 1

note "login = L: a session to the login host lost mid-run is opened again"
# The session made for the allocation is killed while the node measures:
# the release must reach the login host through a new one.
s0=$(sessions)
env -u SLURM_CONF "$ORCH" run --inventory="$LINV" --hosts=e --seed=4 \
    --rounds=6 --out="$T/rlk" tests/suites/brisk.ini >"$T/runlk" 2>&1 &
pid=$!
wait_samples "$T/rlk" 1000
kill -KILL $(pgrep -P "$(cat "$SLURM_DIR/login/sshd.pid")") 2>/dev/null ||
    fail "no session to the login host to kill"
rc=0; wait "$pid" || rc=$?
[ "$rc" = 0 ] || { cat "$T/runlk"; fail "a run that lost its login session exit $rc"; }
expect_eq "sessions to the login host for a run that lost one" $(($(sessions) - s0)) 2
expect_eq "orch jobs after a lost login session" "$(orch_jobs)" ""

note "login = L: orch stop of a detached run cancels its job there"
env -u SLURM_CONF "$ORCH" run --inventory="$LINV" --hosts=e --seed=3 \
    --out="$T/rls" tests/suites/brisk.ini >"$T/runls" 2>&1 &
pid=$!
wait_samples "$T/rls" 3000
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit of a terminated run (login = L)" "$rc" 143
[ -n "$(orch_jobs)" ] || fail "the detached run's job (login = L) is gone"
rc=0; nocf timeout 60 "$ORCH" stop --inventory="$LINV" "$T/rls" \
    >"$T/stopls" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/stopls"; fail "orch stop (login = L) exit $rc"; }
expect_grep '^e: Slurm job [0-9]+ \(node n1\) cancelled$' "$T/stopls"
wait_until 15 "the stopped run's agent (login = L) to end" no_agent
expect_eq "orch jobs after orch stop (login = L)" "$(orch_jobs)" ""

note "login = L refused (an unknown host key): exit 3, cluster and host named, no job"
: >"$T/empty_kh"
rc=0; ORCH_KNOWN_HOSTS=$T/empty_kh nocf timeout 60 "$ORCH" run \
    --inventory="$LINV" --hosts=e --rounds=2 --out="$T/rlb" \
    tests/suites/brisk.ini >"$T/runlb" 2>&1 || rc=$?
expect_eq "exit of a run whose login host is refused" "$rc" 3
expect_grep "^orch: cluster lab: login host L: salloc: unknown host key for \\[127\\.0\\.0\\.1\\]:$SLURM_LOGIN_PORT " "$T/runlb"
[ ! -e "$T/rlb" ] || fail "a refused run left its directory"
expect_eq "orch jobs after a refused login host" "$(orch_jobs)" ""

note "login = L: Ctrl-C while queued closes the channel, cancels there, exit 130"
timeout 30 salloc --no-shell -p epyc -N1 --exclusive -J blocker \
    >"$T/lblocker" 2>&1 || { cat "$T/lblocker"; fail "the blocker's salloc failed"; }
env -u SLURM_CONF setsid "$ORCH" run --inventory="$LINV" --hosts=e --rounds=2 \
    --out="$T/rlq" tests/suites/brisk.ini >"$T/runlq" 2>&1 &
pid=$!
wait_until 30 "orch's request (login = L) to queue behind the blocker" queued
kill -INT -- "-$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit of a run (login = L) interrupted in the queue" "$rc" 130
expect_grep '^orch: e: interrupted while waiting in the queue: the request is revoked' "$T/runlq"
wait_until 15 "the revoked request (login = L) to go" eval '[ -z "$(orch_jobs)" ]'
timeout 10 scancel -n blocker || fail "scancel of the blocker failed"
wait_until 15 "n1 idle again" eval '[ "$(slurm_node_state n1)" = IDLE ]'

note "coordinator/hosts/slurm.c against the cluster (test-slurm)"
# The unit test of the build whose programs this runs (bin: the default).
case $BIN in
bin) units=build/default/tests ;;
*) units=$(dirname "$BIN")/tests ;;
esac
[ -x "$units/test-slurm" ] || fail "$units/test-slurm not built (make check-unit)"
# With the login host: a command killed there must not read as success.
ORCH_SLURM_LAB=1 ORCH_SLURM_LOGIN_INV=$LINV timeout 120 "$units/test-slurm" \
    >"$T/unit" 2>&1 ||
	{ cat "$T/unit"; fail "test-slurm failed against the cluster"; }
grep -q SKIPPED "$T/unit" && { cat "$T/unit"; fail "test-slurm skipped a test"; }
expect_grep '^\[  PASSED  \] 12 test\(s\)\.$' "$T/unit"
[ -z "$(timeout 10 squeue -h -o %i)" ] || fail "test-slurm left a job"

note "orch check --allocate whose release fails (the login host lost): not ready, scancel by hand"
# n1 holds the check in its SSH authentication while the login host (its
# sshd and every session) goes: the release cannot reach Slurm.
slurm_adopt 1 never hold || fail "n1's sshd (never, hold) did not come up"
nocf "$ORCH" check --allocate --inventory="$LINV" --hosts=e >"$T/ucheck" 2>&1 &
pid=$!
wait_until 30 "the check's SSH to n1 to reach its keys command" \
    test -s "$SLURM_ADOPT_HELD"
job=$(orch_jobs | awk '{print $1}')
[ -n "$job" ] || fail "no job held while the check probes n1"
lp=$(cat "$SLURM_DIR/login/sshd.pid")
kill -KILL $(pgrep -P "$lp") "$lp" || fail "no login sshd to kill"
kill "$(cat "$SLURM_ADOPT_HELD")" || fail "no keys command to end"
rc=0; wait "$pid" || rc=$?
expect_eq "exit of orch check --allocate whose release failed" "$rc" 3
expect_grep "^e: not ready: node n1 held for this check \(Slurm job $job, partition epyc\): ssh to an allocated node refused: .*; not released: cluster lab: login host L: scancel: cannot connect to 127\.0\.0\.1 port $SLURM_LOGIN_PORT: Connection refused \(scancel $job by hand\)\$" "$T/ucheck"
[ -n "$(orch_jobs)" ] || fail "the job is gone though its release failed"
timeout 10 scancel "$job" || fail "scancel $job by hand failed"
wait_until 15 "job $job to go" eval '[ -z "$(orch_jobs)" ]'
slurm_adopt 1 off || fail "n1's sshd did not come back"

note "teardown leaves no daemon"
daemons=$(slurm_daemons | paste -sd' ' -)
slurm_down
lab_down
for p in $daemons; do
	! _lab_alive "$p" || fail "daemon $p still runs after the teardown"
done
[ -z "$(pgrep -f "$SLURM_DIR/")" ] || fail "a cluster process outlived it"
echo PASS
