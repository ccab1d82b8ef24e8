# One-line runs on lab hosts over SSH: `orch run --hosts=h1,h2 -- 'CMD A'
# 'CMD B'` pushes each command's program (one from this machine's PATH,
# one by its path) to both hosts, runs them interleaved on both, and the
# record, the report and the export name both hosts; a second run pushes
# nothing.
. tests/e2e/lib.sh
. tests/lab/lab.sh

lab_up 2 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
HL="suites/example/bin/linux-$(uname -m)/hashloop"

rc=0; run_orch "$T/deploy" deploy --inventory="$INV" --hosts=h1,h2 || rc=$?
cat "$T/deploy"
expect_eq "deploy exit" "$rc" 0

note "a one-line run on two lab hosts"
rc=0; run_orch "$T/run1" run --inventory="$INV" --hosts=h1,h2 --rounds=5 --seed=9 --max-load=0 \
	--out="$T/r1" --export-json="$T/r1.json" -- "$HL --sort 3000 7" "cksum /etc/passwd" || rc=$?
cat "$T/run1"
expect_eq "run exit" "$rc" 0
S="$T/r1.json"
cmp "$S" "$T/r1/summary.json" || fail "--export-json differs from summary.json"
expect_eq "hosts" "$(jq -r '[.hosts[] | .name + ":" + .status] | join(" ")' "$S")" "h1:ok h2:ok"
expect_eq "reference" "$(jq -r .reference "$S")" "hashloop_--sort_3000_7"
expect_eq "results per host" "$(jq '[.results[] | select(.host == "h2" and .n == 5)] | length' "$S")" 2
jq -e '[.hosts[] | select(.pushed_files < 2 or .pushed_bytes == 0)] | length == 0' "$S" >/dev/null \
	|| fail "the programs were not pushed: $(jq -c '[.hosts[] | {name, pushed_files, pushed_bytes}]' "$S")"
expect_grep '^bin = /usr/bin/cksum$' "$T/r1/suite.ini"
expect_grep "cksum_etc_passwd" "$T/r1/report.md"

note "again: nothing travels"
rc=0; run_orch "$T/run2" run --inventory="$INV" --hosts=h1,h2 --rounds=3 --max-load=0 \
	--out="$T/r2" -- "$HL --sort 3000 7" "cksum /etc/passwd" || rc=$?
expect_eq "second run exit" "$rc" 0
expect_eq "bytes pushed on the second run" "$(jq '[.hosts[].pushed_bytes] | add' "$T/r2/summary.json")" 0
