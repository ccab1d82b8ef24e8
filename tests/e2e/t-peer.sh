# A hostile agent (tests/tools/hostile.c --agent MODE, started by a real
# orch as its local agent) against the coordinator: a sample outside the
# plan (round + 1000, step 2^32-1) fails the host naming the field, nothing
# of it is stored and the record still reports; its STATUS and a failed
# sample's stderr reach the terminal without their escapes; a flood of
# waiting-grant is looked at once and fails the host past its bound;
# STATUS, PROGS and re-sent samples past their bounds fail the host with
# the limit named. Each run is bounded by timeout.
. tests/e2e/lib.sh

HOSTILE="$PWD/${ORCH_BIN_DIR:-bin}/../build/default/tools/hostile"
[ -x "$HOSTILE" ] || HOSTILE="$PWD/build/default/tools/hostile"
[ -n "${ORCH_BIN_DIR:-}" ] && [ -x "$PWD/build/san/tools/hostile" ] && HOSTILE="$PWD/build/san/tools/hostile"
[ -x "$HOSTILE" ] || fail "build the test tools first (make tools)"
printf '#!/bin/sh\nexec "%s" --agent "$HOSTILE_MODE" "$@"\n' "$HOSTILE" >"$T/evil"
chmod +x "$T/evil"

SLEEPER="$PWD/tests/progs/bin/{os}-{arch}/sleeper"
cat >"$T/fixed.ini" <<EOF
[suite]
rounds   = 4
warmup   = 0
max_load = 0

[variant.A]
bin = $SLEEPER

[variant.B]
bin = $SLEEPER

[bench.nap]
args = 1
EOF
sed -e 's/^rounds .*/rounds = auto\nmin_rounds = 2\nmax_rounds = 6/' "$T/fixed.ini" >"$T/auto.ini"
sed -e '/^\[variant.B\]$/{n;s|.*|bin = host:true|}' "$T/fixed.ini" >"$T/hostprog.ini"

# evil MODE OUT SUITE [ORCH ARGS]: orch run against the hostile agent.
evil() {
	local mode=$1 out=$2 suite=$3; shift 3
	rc=0
	HOSTILE_MODE=$mode ORCH_AGENT="$T/evil" timeout 60 "$ORCH" run "$@" \
	    --out="$T/$out" "$suite" >"$T/$out.log" 2>&1 || rc=$?
	[ "$rc" -ne 124 ] || fail "$mode: orch did not end within 60 s"
}

note "a forged sample (round + 1000, step 2^32-1): the host fails naming the round; nothing of it stored"
evil forged f1 "$T/fixed.ini"
cat "$T/f1.log"
expect_eq "exit" "$rc" 3
expect_grep "^orch: local failed: host local sent a sample for round 1001, its plan has 4$" "$T/f1.log"
expect_eq "samples stored" "$(awk -F, '$11=="wall_ns"' "$T/f1/samples.csv" | wc -l)" 2
[ -z "$(awk -F, 'NR > 1 && $6 > 4' "$T/f1/samples.csv")" ] || fail "a sample beyond round 4 was stored"
rc=0; run_orch "$T/f1r.log" report "$T/f1" || rc=$?
cat "$T/f1r.log"
expect_eq "orch report of the record" "$rc" 0
expect_eq "the host's error" "$(jq -r '.hosts[0].error' "$T/f1/summary.json")" \
    "host local sent a sample for round 1001, its plan has 4"

note "ESC/OSC in a STATUS and in a failed sample's stderr: shown made safe"
evil esc e1 "$T/fixed.ini"
cat -v "$T/e1.log"
expect_eq "exit" "$rc" 3
expect_grep "^orch: local: pinned \?\]0;PWNED\?\?\[31mred\?\[0m \?2J$" "$T/e1.log"
expect_grep "^orch: local: nap/[AB] round 1: failed: boom \?\]0;PWNED\?\?\[2J$" "$T/e1.log"
! LC_ALL=C grep -q $'[\x1b\x07]\|\xc2\x9b' "$T/e1.log" || fail "an escape reached the terminal"

note "a flood of waiting-grant: one look, the host fails past 64 repeats"
evil grant=200 g1 "$T/auto.ini" -v
expect_eq "exit" "$rc" 3
expect_eq "looks" "$(grep -c ': look at ' "$T/g1.log")" 1
expect_grep "^orch: local failed: host local sent more than 64 waiting-grant messages without a sample in between$" "$T/g1.log"

note "a few waiting-grants repeated at each block's end: answered from the last look, the run completes"
evil grant=5 g2 "$T/auto.ini" -v
expect_eq "exit" "$rc" 0
# One look per block (min_rounds 2: the first looks, of fewer than 5
# rounds, decide nothing), each block's five waiting-grants answered by it.
looks=$(grep -c ': look at ' "$T/g2.log")
[ "$looks" -ge 1 ] || fail "no look"
expect_eq "looks at distinct rounds" \
    "$(grep -o ': look at [0-9]* ' "$T/g2.log" | sort -u | wc -l)" "$looks"
expect_eq "grants sent" "$(grep -c ': grant ' "$T/g2.log")" "$((5 * looks))"

note "a flood of STATUS: the host fails past 20000"
evil status=20001 s1 "$T/fixed.ini"
expect_eq "exit" "$rc" 3
expect_grep "^orch: local failed: host local sent more than 20000 STATUS messages$" "$T/s1.log"

note "PROGS: one per plan, of the plan's host programs"
evil progs=3 p1 "$T/hostprog.ini"
expect_eq "exit" "$rc" 3
expect_grep "^orch: local failed: host local sent PROGS more than 1 time for one plan$" "$T/p1.log"
evil progs=1 p2 "$T/fixed.ini"
expect_eq "exit" "$rc" 3
expect_grep "^orch: local failed: host local sent PROGS with host program 'sh' that its plan does not name$" "$T/p2.log"
note "a stored sample re-sent: stored once; past what a journal holds (steps x 31) the host fails"
evil dup=3 d1 "$T/fixed.ini"
expect_eq "exit" "$rc" 0
expect_eq "samples stored" "$(awk -F, '$11=="wall_ns"' "$T/d1/samples.csv" | wc -l)" 8
evil dup=1000 d2 "$T/fixed.ini"
expect_eq "exit" "$rc" 3
expect_grep "^orch: local failed: host local sent more than 248 samples already stored$" "$T/d2.log"
echo "t-peer: ok"
