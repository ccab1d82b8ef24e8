# Shared helpers for the end-to-end tests; sourced, never run.
set -euo pipefail

BIN=${ORCH_BIN_DIR:-bin}
ORCH="$PWD/$BIN/orch"
AGENT="$PWD/$BIN/orch-agent"
[ -x "$ORCH" ] && [ -x "$AGENT" ] || { echo "build first: $ORCH, $AGENT missing"; exit 1; }

T=$(mktemp -d /tmp/orch-test.XXXXXX)
export ORCH_WORKDIR="$T/workdir"	# the local agent's cache and run dirs
# The run key that binds a run to its user (run-bind.c): the test's own.
export XDG_STATE_HOME="$T/state"
# What orch and its agents make in $TMPDIR (relay sockets, deploy packs)
# goes with the test, even when a test kills them before they clean up.
export TMPDIR="$T"
# Names not in a test's inventory are looked up in ssh_config (ssh -G):
# never in the ssh_config of whoever runs the tests.
export ORCH_SSH_CONFIG=/dev/null
CLEANUPS=()

cleanup() {
	local c
	for c in "${CLEANUPS[@]}"; do eval "$c" || true; done
	# Nothing of ours may survive a test: agents or benchmark programs.
	pkill -9 -f "$T/" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "--- $*"; }

# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }

# expect_grep PATTERN FILE: the file holds the (extended) pattern.
expect_grep() { grep -Eq -- "$1" "$2" || { echo "--- $2:"; cat "$2"; fail "'$1' not in $2"; }; }

# wait_until SECONDS WHAT CMD...: polls CMD (every 0.1 s) until it
# succeeds; after SECONDS fails the test, saying what it waited for. Every
# wait of the end-to-end tests is one of these: bounded, and generous, since
# a busy machine is slow but must not fail a test.
wait_until() {
	local secs=$1 what=$2 end
	shift 2
	end=$((SECONDS + secs))
	while ! "$@"; do
		[ "$SECONDS" -lt "$end" ] || fail "gave up after $secs s waiting for $what"
		sleep 0.1
	done
}

# expect_ratios_inside SUMMARY: every comparison in summary.json has its
# ratio inside its interval. An interval the rounds cannot bound (too few
# rounds for the family's level) is [0, null]: docs/output.md; it holds
# every ratio.
expect_ratios_inside() {
	jq -e '[.comparisons[] | select((.ci_low <= .ratio and (.ci_high == null or .ratio <= .ci_high)) | not)] | length == 0' "$1" >/dev/null \
		|| fail "a ratio outside its interval: $(jq -c '[.comparisons[] | [.bench, .metric, .variant, .ratio, .ci_low, .ci_high]]' "$1")"
	jq -e '[.comparisons[] | select(.ci_high == null and .ci_low != 0)] | length == 0' "$1" >/dev/null \
		|| fail "an unbounded interval whose low end is not 0: $(jq -c '.comparisons' "$1")"
}

# no_leftovers: no process runs anything from this test's directory.
no_leftovers() {
	local end=$((SECONDS + 30))
	while pgrep -f "$T/" >/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			ps -ef | grep -F "$T/" | grep -v grep >&2 || true
			fail "processes left behind (waited 30 s for them to end)"
		fi
		sleep 0.1
	done
}

# run_orch OUTFILE ARGS...: runs orch, saving stdout+stderr, returns its code.
# wait_samples DIR BYTES: until the record holds that much, bounded.
_has_samples() { [ -s "$1/samples.msgpack" ] && [ "$(stat -c %s "$1/samples.msgpack")" -gt "$2" ]; }
wait_samples() {
	wait_until 120 "$2 bytes of samples in $1/samples.msgpack" _has_samples "$1" "$2"
}

run_orch() {
	local out=$1; shift
	set +e
	"$ORCH" "$@" >"$out" 2>&1
	local rc=$?
	set -e
	return $rc
}
