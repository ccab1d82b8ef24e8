# rounds = auto on `local`: a host stops once its primary comparisons are
# decided (triple: B does three times A's work, a verdict no noise can
# flip), at max_rounds, or when another block would pass its budget (an
# A/A run with min_effect 0, which can never be decided: `same` needs an
# interval inside 1 ± 0). The report says how each host stopped. A run
# whose coordinator is killed resumes and completes with every sample
# exactly once. Bad adaptive keys and flags exit 2 naming the file and
# line or the flag, with nothing written. Only generous time bounds.
. tests/e2e/lib.sh

# measured DIR: distinct (bench, variant, round) of measured runs, and
# duplicates (one line each).
measured() {
	awk -F, '$11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$1/samples.csv" | sort
}
exactly_once() {
	local dup n
	dup=$(measured "$1" | uniq -d | head -3)
	[ -z "$dup" ] || fail "duplicated samples: $dup"
	n=$(measured "$1" | uniq | wc -l)
	expect_eq "distinct (bench, variant, round)" "$n" "$((2 * $2))"
}

note "triple, rounds = auto: decided well before max_rounds"
sed -e 's/^rounds .*/rounds = auto\nmax_rounds = 60/' \
    -e "s|suites/|$PWD/suites/|" tests/suites/triple.ini >"$T/triple.ini"
rc=0; run_orch "$T/log1" run --out="$T/t" "$T/triple.ini" || rc=$?
cat "$T/log1"
expect_eq "exit" "$rc" 0
S="$T/t/summary.json"
expect_eq "stop" "$(jq -r '.hosts[0].stop' "$S")" decided
used=$(jq '.hosts[0].rounds_used' "$S")
[ "$used" -lt 60 ] || fail "rounds used $used, not below max_rounds 60"
[ $((used % 5)) -eq 0 ] || fail "rounds used $used: not a whole block of 5"
expect_eq "verdict" "$(jq -r '.comparisons[] | select(.metric == "elapsed_ns") | .verdict' "$S")" worse
expect_eq "auto settings" "$(jq -c .auto "$S")" '{"min_rounds":5,"max_rounds":60,"budget_s":0}'
expect_grep "^- \`local\`: $used of at most 60 rounds, stopped: every primary comparison decided \\(1 of 1\\)" "$T/t/report.md"
expect_grep "local $used rounds, decided" "$T/log1"
# The start line gives the bound, not a count of rounds it will run.
expect_grep "^orch: run [0-9a-f-]+: triple on 1 host, auto \(at most 60 rounds\), seed [0-9]+$" "$T/log1"
expect_grep "^orch: local: round $used/60: 1 of 1 primary comparisons decided: stop, decided" "$T/log1"
expect_grep "stopped: every primary comparison decided" "$T/t/report.html"
exactly_once "$T/t" "$used"
# Re-rendered from the record alone, the same.
cp "$T/t/report.md" "$T/report1.md"
"$ORCH" report --quiet "$T/t"
cmp "$T/report1.md" "$T/t/report.md" || fail "report.md differs when re-rendered"

mkdir "$T/prog"
cp tests/progs/bin/linux-"$(uname -m)"/sleeper "$T/prog/sleeper"
aa() {	# aa FILE MAX_ROUNDS BUDGET-LINE
	cat >"$1" <<EOT
[suite]
rounds     = auto
min_rounds = 5
max_rounds = $2
$3
warmup     = 0
max_load   = 0
min_effect = 0

[variant.A]
bin = $T/prog/sleeper

[variant.B]
bin = $T/prog/sleeper

[bench.nap]
args = 50
EOT
}

# A budget of 1 s ends it after its first block of 5 rounds (about 0.6 s;
# another would pass the budget). Its one look spends 5/200 of alpha
# (t^1 spending, seq.h): a chance decision in about 1 run of 800. With 4 s
# (some 40 rounds, 8 looks, 40/200 of alpha: about 1 in 100) an A/A with
# min_effect = 0 was decided by chance in one CI run.
note "A/A that cannot be decided, budget 1s: stops at the budget"
aa "$T/aa.ini" 200 "budget = 1s"
rc=0; run_orch "$T/log2" run --out="$T/b" "$T/aa.ini" || rc=$?
cat "$T/log2"
expect_eq "exit" "$rc" 0
S="$T/b/summary.json"
expect_eq "stop" "$(jq -r '.hosts[0].stop' "$S")" budget
used=$(jq '.hosts[0].rounds_used' "$S")
[ "$used" -ge 5 ] && [ "$used" -lt 200 ] || fail "rounds used $used"
# A block of 5 rounds is about 0.5 s: generous, never a measure of speed.
jq -e '.hosts[0].seconds < 8' "$S" >/dev/null || fail "ran $(jq .hosts[0].seconds "$S") s on a budget of 1 s"
expect_grep "^- \`local\`: $used of at most 200 rounds, stopped: another block would pass the budget of 1s" "$T/b/report.md"
expect_grep "undecided nap B vs A: " "$T/b/report.md"
exactly_once "$T/b" "$used"

note "the coordinator killed mid-run: the agent ends its granted block, the resume completes exactly once"
aa "$T/aa2.ini" 20 ""
"$ORCH" run --out="$T/k" "$T/aa2.ini" >"$T/log3" 2>&1 &
orch_pid=$!
wait_samples "$T/k" 3000
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
rc=0; run_orch "$T/log4" run --resume="$T/k" --rounds=7 || rc=$?
expect_eq "exit with --rounds=7" "$rc" 2
expect_grep 'contradicts .*with rounds = auto' "$T/log4"
rc=0; run_orch "$T/log5" run --resume="$T/k" || rc=$?
cat "$T/log5"
expect_eq "resume exit" "$rc" 0
S="$T/k/summary.json"
expect_eq "complete" "$(jq .complete "$S")" true
# An A/A of real sleeps goes to max_rounds, unless a look finds a false
# difference (allowed at the family's 5%: measured noise, not a fixed
# seed); either way every round it used is stored exactly once.
used=$(jq '.hosts[0].rounds_used' "$S")
case $(jq -r '.hosts[0].stop' "$S") in
max_rounds)	expect_eq "rounds used" "$used" 20 ;;
decided)	[ "$used" -lt 20 ] || fail "decided at $used of at most 20 rounds" ;;
*)		fail "stop: got '$(jq -r '.hosts[0].stop' "$S")', want max_rounds (or, by chance, decided)" ;;
esac
exactly_once "$T/k" "$used"
no_leftovers

note "bad adaptive keys and flags: exit 2, naming the line or the flag, nothing written"
bad() {	# bad WHAT PATTERN ARGS...
	local what=$1 pat=$2 rc=0
	shift 2
	run_orch "$T/bad.log" run --out="$T/none" "$@" || rc=$?
	expect_eq "$what: exit" "$rc" 2
	expect_grep "$pat" "$T/bad.log"
	[ ! -e "$T/none" ] || fail "$what: $T/none written"
}
aa "$T/b1.ini" 200 "budget = 5x"
bad "budget 5x" "b1.ini:5: \\[suite\\] budget: '5x' is not a duration" "$T/b1.ini"
aa "$T/b2.ini" 3 ""
bad "min_rounds above max_rounds" "b2.ini:3: \\[suite\\] min_rounds 5 is above max_rounds 3" "$T/b2.ini"
sed 's/^rounds .*/rounds = 10/' "$T/aa.ini" >"$T/b3.ini"
bad "min_rounds without auto" "b3.ini:3: \\[suite\\] min_rounds needs rounds = auto \\(rounds is 10\\)" "$T/b3.ini"
sed 's/^rounds .*/rounds = 10/; /_rounds/d' "$T/aa.ini" >"$T/b3.ini"
bad "budget without auto" "b3.ini:3: \\[suite\\] budget needs rounds = auto" "$T/b3.ini"
sed 's/^rounds .*/rounds = 10/; /^budget/d; /_rounds/d' "$T/aa.ini" >"$T/b4.ini"
bad "--budget without auto" "--budget=60s needs rounds = auto" --budget=1m "$T/b4.ini"
bad "--budget=soon" "--budget: 'soon' is not a duration" --budget=soon "$T/b4.ini"
echo PASS
