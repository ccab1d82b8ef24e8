# Hooks of a bench: prepare before every run of it (warmups too, never
# timed, never a sample), setup and cleanup once per host around its runs
# (cleanup even when runs failed); each an argv, the host's own program or
# a pushed one. A failing hook is reported as such: prepare fails that run,
# setup fails every run of its bench, cleanup fails the host.
. tests/e2e/lib.sh
P="$PWD/tests/progs/bin/linux-$(uname -m)"

# suite FILE PREPARE_EXIT SETUP_EXIT CLEANUP_EXIT: two benches, hooks on h.
suite() {
	cat > "$1" <<INI
[suite]
rounds   = 3
warmup   = 1
max_load = 0
[variant.A]
bin = $P/noop
[variant.B]
bin = $P/noop
[bench.h]
setup   = host:sh -c "echo setup >> $T/count; exit $3"
prepare = host:sh -c 'echo prepare >> "\$0"; exit $2' $T/count
cleanup = host:sh -c "echo cleanup >> $T/count; exit $4"
[bench.plain]
INI
}

note "each hook the right number of times, in order; no sample from them"
suite "$T/ok.ini" 0 0 0
rc=0; run_orch "$T/log1" run --out="$T/o1" "$T/ok.ini" || rc=$?
cat "$T/log1"
expect_eq "run exit" "$rc" 0
# (rounds + warmup) x variants runs of h, each after its prepare.
expect_eq "prepare runs" "$(grep -c '^prepare$' "$T/count")" 8
expect_eq "setup runs" "$(grep -c '^setup$' "$T/count")" 1
expect_eq "cleanup runs" "$(grep -c '^cleanup$' "$T/count")" 1
expect_eq "setup first" "$(head -1 "$T/count")" setup
expect_eq "cleanup last" "$(tail -1 "$T/count")" cleanup
C="$T/o1/samples.csv"
expect_eq "measured runs of h" "$(awk -F, '$4=="h" && $11=="wall_ns" && $9==0' "$C" | wc -l)" 6
expect_eq "measured runs of plain" "$(awk -F, '$4=="plain" && $11=="wall_ns" && $9==0' "$C" | wc -l)" 6
expect_eq "every run ok" "$(awk -F, '$11=="wall_ns" && $10!="ok"' "$C" | wc -l)" 0
expect_grep "\| local \|  \| prepare \| /(usr/)?bin/sh \(the host's own \`host:sh\`" "$T/o1/report.md"

note "the order of the runs is the seed's, with hooks or without"
grep -Ev '^(setup|prepare|cleanup) ' "$T/ok.ini" > "$T/nohooks.ini"
rc=0; run_orch "$T/log1n" run --seed=7 --out="$T/o1s" "$T/ok.ini" || rc=$?
expect_eq "seeded run with hooks" "$rc" 0
rc=0; run_orch "$T/log1m" run --seed=7 --out="$T/o1n" "$T/nohooks.ini" || rc=$?
expect_eq "seeded run without hooks" "$rc" 0
_order() { awk -F, '$11=="wall_ns" {print $8, $4, $5, $6, $9}' "$1/samples.csv" | sort -n; }
[ "$(_order "$T/o1s")" = "$(_order "$T/o1n")" ] || fail "hooks changed the order of the runs"
expect_eq "runs in that order (16 and 3 floors)" "$(_order "$T/o1s" | wc -l)" 19

note "a pushed hook: the suite machine's file, in the cache, recorded"
sed "s|^setup   = .*|setup   = $P/noop|" "$T/ok.ini" > "$T/pushed.ini"
rm -f "$T/count"
rc=0; run_orch "$T/log2" run --out="$T/o2" "$T/pushed.ini" || rc=$?
expect_eq "pushed hook run exit" "$rc" 0
expect_grep "\| local \|  \| setup \| $P/noop \| \`$(sha256sum "$P/noop" | cut -d' ' -f1)\` \|" "$T/o2/report.md"
expect_eq "prepare runs, pushed setup" "$(grep -c '^prepare$' "$T/count")" 8

note "a failing prepare: that run fails, named; cleanup still runs"
suite "$T/prep.ini" 3 0 0
rm -f "$T/count"
rc=0; run_orch "$T/log3" run --out="$T/o3" "$T/prep.ini" || rc=$?
cat "$T/log3"
expect_eq "failing prepare exit" "$rc" 3
# Every run of round 1 failed the same way: h stops after it (2 warmups
# and 2 runs of round 1 failed, not 8).
expect_eq "failed runs of h" "$(awk -F, '$4=="h" && $11=="wall_ns" && $10=="failed"' "$T/o3/samples.csv" | wc -l)" 4
expect_grep '^orch: local: h: stopped after round 1: every attempt of [AB] failed the same way: failed: prepare failed: exit 3$' "$T/log3"
expect_eq "plain still ran" "$(awk -F, '$4=="plain" && $11=="wall_ns" && $10=="ok"' "$T/o3/samples.csv" | wc -l)" 8
# The failure table: one row per kind of failure, with its count.
expect_grep '\| h \| A \| failed \(no exit code\) \| 2 \| 0, 0 \(warmup\) \| prepare failed: exit 3 \|' "$T/o3/report.md"
expect_eq "cleanup after failed runs" "$(tail -1 "$T/count")" cleanup

note "a failing setup: no run of its bench, no prepare, cleanup runs"
suite "$T/setup.ini" 0 4 0
rm -f "$T/count"
rc=0; run_orch "$T/log4" run --out="$T/o4" "$T/setup.ini" || rc=$?
expect_eq "failing setup exit" "$rc" 3
expect_eq "prepare never ran" "$(grep -c '^prepare$' "$T/count" || true)" 0
expect_eq "setup once" "$(grep -c '^setup$' "$T/count")" 1
expect_eq "cleanup once" "$(grep -c '^cleanup$' "$T/count")" 1
expect_eq "runs failed by setup" "$(awk -F' [|] ' '/[|] setup failed: exit 4 [|]/ { n += $4 } END { print n + 0 }' "$T/o4/report.md")" 4

note "a failing cleanup: the host fails, saying so, its samples kept"
suite "$T/clean.ini" 0 0 5
rm -f "$T/count"
rc=0; run_orch "$T/log5" run --out="$T/o5" "$T/clean.ini" || rc=$?
cat "$T/log5"
expect_eq "failing cleanup exit" "$rc" 3
expect_grep 'local: benchmark h: cleanup failed: exit 5' "$T/log5"
expect_grep 'local failed: benchmark h: cleanup failed: exit 5' "$T/log5"
expect_eq "host error" "$(jq -r '.hosts[0].error' "$T/o5/summary.json")" "benchmark h: cleanup failed: exit 5"
expect_eq "samples kept" "$(jq '.hosts[0].samples' "$T/o5/summary.json")" 12
grep -q "cleanup failed: exit 5" "$T/o5/report.md" || fail "report.md does not say the cleanup failed"

note "resume: an agent killed mid-run is started again; setup runs again, cleanup once"
rm -f "$T/count"
cat > "$T/resume.ini" <<INI
[suite]
rounds   = 8
warmup   = 0
max_load = 0
[variant.A]
bin = $P/sleeper
[variant.B]
bin = $P/sleeper
[bench.nap]
args    = 200
setup   = host:sh -c "echo setup >> $T/count"
prepare = host:sh -c "echo prepare >> $T/count"
cleanup = host:sh -c "echo cleanup >> $T/count"
INI
"$ORCH" run --out="$T/o6" "$T/resume.ini" >"$T/log6" 2>&1 &
orch_pid=$!
_prepared() { [ "$(grep -c '^prepare$' "$T/count" 2>/dev/null)" -ge 4 ]; }
wait_until 120 "four prepare runs" _prepared
pkill -9 -f "orch-agent serve --workdir=$T/workdir" || fail "no agent to kill"
rc=0; wait "$orch_pid" || rc=$?
cat "$T/log6"
expect_eq "resumed run exit" "$rc" 0
expect_grep 'local: the agent exited .*starting its agent again \(1 of 3\)' "$T/log6"
expect_eq "complete" "$(jq .complete "$T/o6/summary.json")" true
expect_eq "each run once" "$(awk -F, '$4=="nap" && $11=="wall_ns" && $10=="ok" {print $5,$6}' "$T/o6/samples.csv" | sort -u | wc -l)" 16
expect_eq "setup once per agent" "$(grep -c '^setup$' "$T/count")" 2
expect_eq "cleanup once" "$(grep -c '^cleanup$' "$T/count")" 1
expect_eq "cleanup last" "$(tail -1 "$T/count")" cleanup
# Every run had its prepare; the attempt the kill cut short had one too.
n=$(grep -c '^prepare$' "$T/count")
[ "$n" -ge 16 ] && [ "$n" -le 18 ] || fail "prepare ran $n times for 16 runs and one cut short"
no_leftovers
echo "PASS"
