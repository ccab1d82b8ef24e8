# The agent on its own: version, key handling, and frames from strangers.
. tests/e2e/lib.sh

"$AGENT" --version | grep -Eq '^orch-agent [0-9.]+ protocol [0-9]+$' || fail "--version"

note "a malformed key line: the agent refuses and exits"
rc=0; echo "not a key" | timeout 60 "$AGENT" serve --workdir="$T/w1" >"$T/out1" 2>"$T/err1" || rc=$?
[ "$rc" != 0 ] || fail "agent accepted a bad key line"
expect_grep 'malformed key line' "$T/err1"
[ ! -s "$T/out1" ] || fail "agent printed an endpoint without a key"

note "stdin closed before any key: the agent exits at once"
rc=0; timeout 60 "$AGENT" serve --workdir="$T/w1" </dev/null >/dev/null 2>"$T/err2" || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "agent did not exit on EOF (rc $rc)"

note "the endpoint: a Unix socket inside the agent's 0700 workdir"
key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
mkdir -m 700 "$T/w2"
: > "$T/w2/agent-999999999.sock"	# left by an agent that is gone
mkfifo "$T/stdin"
"$AGENT" serve --workdir="$T/w2" <"$T/stdin" >"$T/ep" 2>"$T/err3" &
apid=$!
exec 7>"$T/stdin"
echo "ORCH-KEY 1 $key run-x" >&7
wait_until 60 "the agent's endpoint line in $T/ep" test -s "$T/ep"
ep=$(awk '{print $3}' "$T/ep")
case "$ep" in "ipc://$T/w2/agent-$apid.sock") ;; *) fail "endpoint not in the workdir: $(cat "$T/ep")";; esac
[ -S "${ep#ipc://}" ] || fail "no socket at ${ep#ipc://}"
[ ! -e "$T/w2/agent-999999999.sock" ] || fail "a lost agent's socket was not removed"
expect_eq "workdir mode" "$(stat -c %a "$T/w2")" 700
exec 7>&-	# the lifeline closes: the agent must go
gone() { ! kill -0 "$1" 2>/dev/null; }
wait_until 60 "the agent to exit after its stdin closed" gone "$apid"
[ ! -e "${ep#ipc://}" ] || fail "the agent left its socket behind"

note "a workdir that cannot hold a socket (a blank): a private 0700 directory, removed at exit"
mkdir -m 700 "$T/w 4"
mkfifo "$T/stdin4"
TMPDIR="$T" "$AGENT" serve --workdir="$T/w 4" <"$T/stdin4" >"$T/ep4" 2>"$T/err4" &
apid=$!
exec 7>"$T/stdin4"
echo "ORCH-KEY 1 $key run-y" >&7
wait_until 60 "the agent's endpoint line in $T/ep4" test -s "$T/ep4"
ep=$(awk '{print $3}' "$T/ep4")
case "$ep" in "ipc://$T/orch-agent."??????"/agent.sock") ;; *) fail "endpoint not in a private directory: $(cat "$T/ep4" "$T/err4")";; esac
sd=${ep#ipc://}; sd=${sd%/agent.sock}
expect_eq "socket directory mode" "$(stat -c %a "$sd")" 700
exec 7>&-
wait_until 60 "the agent to exit after its stdin closed" gone "$apid"
[ ! -e "$sd" ] || fail "the agent left $sd behind"

note "hostile peers: random bytes, a foreign key, another run, a replay"
HOSTILE="$PWD/${ORCH_BIN_DIR:-bin}/../build/default/tools/hostile"
[ -x "$HOSTILE" ] || HOSTILE="$PWD/build/default/tools/hostile"
[ -n "${ORCH_BIN_DIR:-}" ] && [ -x "$PWD/build/san/tools/hostile" ] && HOSTILE="$PWD/build/san/tools/hostile"
[ -x "$HOSTILE" ] || fail "build the test tools first (make tools)"
rc=0; timeout 60 "$HOSTILE" "$AGENT" "$T/w3" >"$T/hostile.out" 2>"$T/hostile.err" || rc=$?
cat "$T/hostile.out"
expect_eq "hostile exit" "$rc" 0
for why in "not an orch frame" "frame failed authentication" "frame of another run" "frame replayed or out of order"; do
	expect_grep "dropped a [0-9]+-byte frame: $why" "$T/hostile.err"
done
[ -z "$(ls -A "$T/w3/runs" 2>/dev/null)" ] || fail "the agent ran something for a hostile peer"

note "a squatter (another local user) connects first: the coordinator is still served"
if [ "$(id -u)" = 0 ]; then
	rc=0; timeout 60 "$HOSTILE" --squatter "$AGENT" "$T/w4" >"$T/squat.out" 2>"$T/squat.err" || rc=$?
	cat "$T/squat.out"
	expect_eq "squatter exit" "$rc" 0
	expect_grep 'ok +the coordinator is served despite the squatter' "$T/squat.out"
else
	echo "SKIPPED: the squatter needs root to become another user"
fi
echo PASS
