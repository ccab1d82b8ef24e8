# Over the SSH tunnel no endpoint of a run is open to another user: the
# agent listens on a Unix socket in its 0700 workdir (no TCP port), and the
# coordinator's end of the relay is a Unix socket in a 0700 directory (no
# loopback port). uid 65534 tries both while a run is going.
. tests/e2e/lib.sh
. tests/lab/lab.sh

[ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root (another user to try the endpoints)"; echo PASS; exit 0; }
LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 1 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
HOSTILE="$PWD/build/default/tools/hostile"
[ -n "${ORCH_BIN_DIR:-}" ] && [ -x "$PWD/build/san/tools/hostile" ] && HOSTILE="$PWD/build/san/tools/hostile"
[ -x "$HOSTILE" ] || fail "build the test tools first (make tools)"
# The tool must be reachable by uid 65534: a copy outside $T.
cp "$HOSTILE" "$T/../orch-hostile.$$"
HOSTILE="$T/../orch-hostile.$$"
chmod 755 "$HOSTILE"
CLEANUPS+=("rm -f '$HOSTILE'")
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

"$ORCH" run --inventory="$LAB_INVENTORY" --hosts=h1 --rounds=6 --max-load=0 --out="$T/out" tests/suites/slow.ini >"$T/log" 2>&1 &
orch_pid=$!
wait_samples "$T/out" 1000

note "the coordinator: no TCP listener; its relay socket is in a 0700 directory"
ss -ltnpH | grep -q "pid=$orch_pid," && { ss -ltnp; fail "orch listens on TCP"; }
relay=$(ss -xlpH | grep "pid=$orch_pid," | awk '{print $5}' | grep '/orch-relay\.' | head -1)
[ -n "$relay" ] || { ss -xlp; fail "no relay socket of orch"; }
expect_eq "relay directory mode" "$(stat -c %a "$(dirname "$relay")")" 700
as_nobody "$HOSTILE" --connect "ipc://$relay" 2>"$T/c1" && fail "uid 65534 connected to the coordinator's relay"
expect_grep 'Permission denied' "$T/c1"

note "the agent: no TCP listener; its socket is in its 0700 workdir"
apid=$(pgrep -f "$LAB/h1/wd/bin/orch-agent serve") || fail "no agent on h1"
nsenter --net=/proc/$apid/ns/net ss -ltnpH | grep -q "pid=$apid," && fail "the agent listens on TCP"
sock=$(ls "$LAB"/h1/wd/agent-*.sock | head -1)
[ -S "$sock" ] || fail "no agent socket in h1's workdir"
expect_eq "workdir mode" "$(stat -c %a "$LAB/h1/wd")" 700
as_nobody "$HOSTILE" --connect "ipc://$sock" 2>"$T/c2" && fail "uid 65534 connected to the agent"
expect_grep 'Permission denied' "$T/c2"

rc=0; wait "$orch_pid" || rc=$?
cat "$T/log"
expect_eq "run exit" "$rc" 0
[ -z "$(ls -d "$(dirname "$relay")" 2>/dev/null)" ] || fail "the relay directory was left behind"
echo PASS
