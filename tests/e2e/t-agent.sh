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

note "a stranger's frames are dropped, never parsed or acted on"
key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
mkfifo "$T/stdin"
"$AGENT" serve --workdir="$T/w2" <"$T/stdin" >"$T/ep" 2>"$T/err3" &
apid=$!
exec 7>"$T/stdin"
echo "ORCH-KEY 1 $key run-x" >&7
wait_until 60 "the agent's endpoint line in $T/ep" test -s "$T/ep"
ep=$(awk '{print $3}' "$T/ep")
case "$ep" in tcp://127.0.0.1:*) ;; *) fail "no endpoint: $(cat "$T/ep")";; esac
head -c 300 /dev/urandom > "$T/junk"
timeout 20 nanocat --pair --connect "$ep" --file "$T/junk" --delay 0.2 >/dev/null 2>&1 || true
wait_until 60 "the agent to log the dropped frame" grep -q 'dropped' "$T/err3"
expect_grep 'dropped a [0-9]+-byte frame' "$T/err3"
kill -0 "$apid" || fail "the agent died of random bytes"
[ -z "$(ls -A "$T/w2/runs" 2>/dev/null)" ] || fail "the agent ran something"
exec 7>&-	# the lifeline closes: the agent must go
gone() { ! kill -0 "$1" 2>/dev/null; }
wait_until 60 "the agent to exit after its stdin closed" gone "$apid"
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
echo PASS
