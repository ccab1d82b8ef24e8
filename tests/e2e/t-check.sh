# orch check on a real sshd host: the HOST KEY column is never cut, no
# message repeats the host's name, and a host without an agent is one
# `orch run` deploys to, not a NOT READY telling the user to deploy.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 1 || fail "lab did not come up"
INV="$LAB_INVENTORY"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
: > "$T/kh"

note "no agent yet, a new host key accepted"
rc=0; ORCH_KNOWN_HOSTS="$T/kh" run_orch "$T/c1" check --inventory="$INV" --hosts=h1 --accept-new-host-keys || rc=$?
cat "$T/c1"
expect_eq "check exit (orch run would deploy)" "$rc" 0
grep -Eq '^h1 +yes +added \(new\) +ok +missing .* run deploys$' "$T/c1" || fail "check row for h1 (uncut HOST KEY, READY run deploys)"
expect_grep '^h1: no agent installed: orch run installs it by itself \(orch deploy --hosts=h1 does it ahead of time\)$' "$T/c1"
grep -q 'run: orch deploy' "$T/c1" && fail "check tells the user to deploy what run deploys"
grep -Eq '^h1: .*h1: ' "$T/c1" && fail "a message repeats the host name"
grep -q 'not ready' "$T/c1" && fail "a host orch run deploys to is called not ready"

note "after deploy: ready (or would wait, on a busy machine)"
ORCH_KNOWN_HOSTS="$T/kh" run_orch "$T/d1" deploy --inventory="$INV" --hosts=h1 || fail "deploy failed"
rc=0; ORCH_KNOWN_HOSTS="$T/kh" run_orch "$T/c2" check --inventory="$INV" --hosts=h1 || rc=$?
cat "$T/c2"
expect_eq "check exit" "$rc" 0
grep -Eq '^h1 +yes +known +ok +[0-9.]+ .*  (yes|would wait)$' "$T/c2" || fail "check row for h1 after deploy"

note "unreachable: NOT READY, the reason once, the name once"
lab_stop_sshd h1
rc=0; ORCH_KNOWN_HOSTS="$T/kh" run_orch "$T/c3" check --inventory="$INV" --hosts=h1 || rc=$?
cat "$T/c3"
expect_eq "unreachable exit" "$rc" 3
expect_grep '^h1: not ready: ' "$T/c3"
grep -Eq '^h1: not ready: h1: ' "$T/c3" && fail "the not-ready message repeats the host name"
echo PASS
