# A Slurm host (slurm = NAME) is refused by orch run until the allocation
# is built. The Slurm test cluster (tests/lab/slurm.sh) comes up, hands out
# an exclusive node and takes it back, shows that a FORCE:2 partition puts
# two --exclusive jobs on one node, test-slurm (slurm.c's alloc, verify,
# release) passes against it, and its teardown leaves no daemon.
. tests/e2e/lib.sh
. tests/lab/lab.sh
. tests/lab/slurm.sh

note "orch run refuses a Slurm host, before anything starts"
printf '[slurm.lab]\nlogin = local\n\n[host.e]\nslurm = lab\npartition = epyc\n' \
    >"$T/inv.ini"
rc=0; "$ORCH" run --inventory="$T/inv.ini" --hosts=e --out="$T/out" \
    tests/suites/brisk.ini >"$T/refused" 2>&1 || rc=$?
expect_eq "exit of a run on a Slurm host" "$rc" 2
expect_grep "^orch: $T/inv.ini:4: \[host.e\] slurm = lab: Slurm allocation is not built yet" \
    "$T/refused"
[ ! -e "$T/out" ] || fail "a refused run made its directory"

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

note "coordinator/hosts/slurm.c against the cluster (test-slurm)"
# The unit test of the build whose programs this runs (bin: the default).
case $BIN in
bin) units=build/default/tests ;;
*) units=$(dirname "$BIN")/tests ;;
esac
[ -x "$units/test-slurm" ] || fail "$units/test-slurm not built (make check-unit)"
ORCH_SLURM_LAB=1 timeout 120 "$units/test-slurm" >"$T/unit" 2>&1 ||
	{ cat "$T/unit"; fail "test-slurm failed against the cluster"; }
grep -q SKIPPED "$T/unit" && { cat "$T/unit"; fail "test-slurm skipped a test"; }
expect_grep '^\[  PASSED  \] 6 test\(s\)\.$' "$T/unit"
[ -z "$(timeout 10 squeue -h -o %i)" ] || fail "test-slurm left a job"

note "teardown leaves no daemon"
daemons=$(slurm_daemons | paste -sd' ' -)
slurm_down
lab_down
for p in $daemons; do
	! _lab_alive "$p" || fail "daemon $p still runs after the teardown"
done
[ -z "$(pgrep -f "$SLURM_DIR/")" ] || fail "a cluster process outlived it"
echo PASS
