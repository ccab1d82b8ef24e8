# What a run says while it goes and after: progress from round 1, counting
# measured runs only (not warmups, not floor runs), with an ETA; a timeout
# failure states its limit even when the program wrote to stderr; a crash
# that repeats identically is one row of the failure table with its count,
# and a variant that failed every attempt of its first run is not retried
# again; -v timestamps are ISO 8601 UTC to the millisecond.
. tests/e2e/lib.sh

cat > "$T/p.ini" <<'INI'
[suite]
rounds   = 5
warmup   = 1
retries  = 3
max_load = 0

[variant.A]
bin = /bin/sh
env = V=A

[variant.B]
bin = /bin/sh
env = V=B

[bench.ok]
args    = -c "echo elapsed_ns=1000"
metrics = elapsed_ns

[bench.crash]
args = -c "kill -SEGV $$"

[bench.slow]
args    = -c "echo working >&2; sleep 30"
timeout = 0.3
INI

note "a run with warmups, crashes and timeouts"
rc=0; run_orch "$T/log" run --out="$T/out" --seed=1 "$T/p.ini" || rc=$?
cat "$T/log"
expect_eq "exit (runs failed)" "$rc" 3
# 5 rounds x 3 benches x 2 variants = 30 measured runs; 1 warmup round and
# 5 floor runs are not among them.
expect_eq "first progress line" "$(grep -m1 'local: round' "$T/log")" "orch: local: round 1/5 (0/30 measured runs)"
expect_grep '^orch: local: round 5/5 \([0-9]+/30 measured runs, ETA [0-9]+s\)$' "$T/log"
! grep -q 'round 6/\|/[0-9]* runs)' "$T/log" || fail "progress counts beyond the measured runs"

note "a crash that repeats is one row with its count, retried only in its first run"
C="$T/out/samples.csv" M="$T/out/report.md"
# crash/A: 6 steps (1 warmup, 5 rounds); the first tried 1 + 3 times,
# round 1 once, and then its bench stopped (round 1 failed the same way):
# 5 samples (not 24).
expect_eq "crash/A samples" "$(awk -F, '$4=="crash" && $5=="A" && $11=="wall_ns"' "$C" | wc -l)" 5
expect_eq "lines on crash/A's failures" "$(grep -c 'local: crash/A round' "$T/log")" 1
expect_grep '^orch: local: crash/A round 0: signal: killed by signal 11 \(Segmentation fault\)$' "$T/log"
expect_eq "crash/A rows in the failure table" "$(grep -c '^| crash | A | signal 11 |' "$M")" 1
expect_grep '^\| crash \| A \| signal 11 \| 5 \| [0-9]+, 0 \(warmup\) \|' "$M"

note "a timeout states its limit, after the program's own stderr"
expect_grep '^\| slow \| A \| timeout \| 6 \| .* \| timed out after 300 ms \|$' "$M"

note "-v: ISO 8601 UTC timestamps to the millisecond"
rc=0; run_orch "$T/logv" run -v --out="$T/outv" --rounds=1 --seed=1 "$T/p.ini" || rc=$?
expect_grep '^20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{3}Z orch: ' "$T/logv"
! grep -Eq '^[0-9]{10}\.[0-9]{6} ' "$T/logv" || fail "raw epoch timestamps"
expect_grep '^20[0-9]{2}-.*Z orch-agent: ' "$T/outv/logs/local.log"

note "on a terminal: a redrawn line per host, with its round, measured runs, failures and ETA"
if ! command -v script >/dev/null; then
	echo "SKIP: no script(1) (util-linux) to run orch under a terminal"
else
	# ttyrun OUT ENV...: orch run under a pseudo-terminal, its bytes in OUT.
	ttyrun() {
		local out=$1; shift
		env "$@" script -qfec "'$ORCH' run --out='$out.d' --seed=1 '$T/p.ini'" /dev/null >"$out" 2>&1 || true
	}
	( ttyrun "$T/tty" TERM=xterm NO_COLOR= ) &
	tty_pid=$!
	# The agent lost once mid-run: orch's line on it must not land in the bar.
	agent_up() { pgrep -f "orch-agent serve --workdir=$T/workdir" >/dev/null && [ -s "$T/tty.d/samples.msgpack" ]; }
	wait_until 60 "the terminal run's agent and first samples" agent_up
	pkill -9 -f "orch-agent serve --workdir=$T/workdir" || true
	wait "$tty_pid"
	cat -v "$T/tty" | grep -B2 -A2 "starting its agent"
	expect_grep $'\033\\[1A\r\033\\[K  local +round [1-5]/5  [0-9]+/30 measured runs, [0-9]+ failed, ETA [0-9]+s' "$T/tty"
	# Done when the host ended, though its crash bench stopped after round
	# 1 (every attempt failed the same way): fewer than the 30 planned.
	expect_grep $'\033\\[K  local +done: [1-9][0-9]* measured runs, [1-9][0-9]* failed\r?$' "$T/tty"
	expect_grep 'starting its agent again' "$T/tty"
	# Each line of orch's log starts on a cleared line, below the bar.
	perl -ne 'if (/orch: local: .*starting its agent again/) { $n++;
		exit 1 unless /^(\e\[[0-9]+A\r\e\[J)?orch: local: /; } END { exit 1 unless $n }' "$T/tty" ||
		fail "a log line was written into the progress lines"
	note "TERM=dumb or NO_COLOR on a terminal, and no terminal: plain lines, no escape bytes"
	ttyrun "$T/dumb" TERM=dumb
	ttyrun "$T/nocolor" TERM=xterm NO_COLOR=1
	for f in "$T/dumb" "$T/nocolor" "$T/log"; do
		expect_grep '^orch: local: round 1/5 \(0/30 measured runs\)' "$f"
		! grep -q $'\033' "$f" || fail "escape bytes in $f"
	done
fi
no_leftovers
echo PASS
