# rounds = auto on the lab: two real sshd hosts, each an agent of its own
# that waits for its grant at every block's end over SSH (the tunnel on h1,
# transport = direct on h2); each host decides on its own (triple: a verdict
# no noise can flip), well before max_rounds, and the report says how each
# stopped. Every sample once. No time bound beyond wait_until's.
. tests/e2e/lib.sh
. tests/lab/lab.sh

lab_up 2 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
sed 's/^\[host.h2\]/[host.h2]\ntransport = direct/' "$LAB_INVENTORY" > "$T/inv.ini"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")

sed -e 's/^rounds .*/rounds = auto\nmax_rounds = 60/' tests/suites/triple.ini >"$T/triple.ini"
rc=0; run_orch "$T/log" run --inventory="$T/inv.ini" --hosts=lab --max-load=0 \
    --budget=30m --out="$T/r" "$T/triple.ini" || rc=$?
cat "$T/log"
expect_eq "exit" "$rc" 0
S="$T/r/summary.json"
expect_eq "hosts" "$(jq -r '[.hosts[] | .name + ":" + .status + ":" + .stop] | join(" ")' "$S")" \
    "h1:ok:decided h2:ok:decided"
expect_eq "auto" "$(jq -c .auto "$S")" '{"min_rounds":5,"max_rounds":60,"budget_s":1800}'
for h in h1 h2; do
	used=$(jq --arg h "$h" '.hosts[] | select(.name == $h) | .rounds_used' "$S")
	[ "$used" -ge 5 ] && [ "$used" -lt 60 ] && [ "$((used % 5))" -eq 0 ] || fail "$h: rounds used $used"
	expect_grep "^- \`$h\`: $used of at most 60 rounds, stopped: every primary comparison decided" "$T/r/report.md"
	m() { awk -F, -v h="$h" '$2==h && $11=="wall_ns" && $9==0 && $4!="(floor)" {print $4,$5,$6}' "$T/r/samples.csv" | sort; }
	expect_eq "$h: duplicated samples" "$(m | uniq -d | wc -l)" 0
	expect_eq "$h: measured runs" "$(m | wc -l)" "$((2 * used))"
done
expect_grep "B vs A: worse" "$T/log"
no_leftovers
echo PASS
