# Faults on the test lab: an agent killed mid-run, the coordinator killed
# mid-run then resumed, a host's network cut for 20 s, a host's sshd gone
# for good, and the output directory on a full filesystem. After each, the
# samples are complete and each (bench, variant, round) is there once, or
# the error is clear and nothing is corrupted; no orch process is left.
. tests/e2e/lib.sh
. tests/lab/lab.sh

lab_up 2 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
"$ORCH" deploy --inventory="$INV" --hosts=lab >/dev/null || fail "deploy"

# exactly_once DIR HOST ROUNDS
exactly_once() {
	local csv=$1/samples.csv h=$2 rounds=$3 dup n
	dup=$(awk -F, -v h=$h '$2==h && $11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$csv" | sort | uniq -d | head -3)
	[ -z "$dup" ] || fail "$h: duplicated samples: $dup"
	n=$(awk -F, -v h=$h '$2==h && $11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$csv" | sort -u | wc -l)
	expect_eq "$h: distinct (bench, variant, round)" "$n" "$((2 * rounds))"
}
no_agents() {
	local end=$((SECONDS + 60))
	while pgrep -f "$LAB/h[0-9]/wd/bin/orch-agent" >/dev/null; do
		[ "$SECONDS" -lt "$end" ] || { pgrep -af "$LAB/h[0-9]/wd/bin/orch-agent"; fail "agents left on the lab hosts (waited 60 s)"; }
		sleep 0.1
	done
}

note "an agent killed with SIGKILL on h1: started again, complete"
"$ORCH" run --inventory="$INV" --hosts=lab --rounds=12 --out="$T/f1" tests/suites/slow.ini >"$T/f1.log" 2>&1 &
p=$!; wait_samples "$T/f1" 4000
pkill -9 -f "$LAB/h1/wd/bin/orch-agent serve" || fail "no agent on h1"
rc=0; wait $p || rc=$?
cat "$T/f1.log"
expect_eq "exit" "$rc" 0
expect_grep 'h1: .*starting its agent again' "$T/f1.log"
exactly_once "$T/f1" h1 12; exactly_once "$T/f1" h2 12
no_agents

note "the coordinator killed with SIGKILL, then orch run --resume"
"$ORCH" run --inventory="$INV" --hosts=lab --rounds=15 --out="$T/f2" tests/suites/slow.ini >"$T/f2.log" 2>&1 &
p=$!; wait_samples "$T/f2" 4000
kill -9 $p; wait $p 2>/dev/null || true
"$ORCH" status --inventory="$INV" "$T/f2" > "$T/f2.status" 2>&1 || true
cat "$T/f2.status"
expect_grep '^h1 .* running pid [0-9]+' "$T/f2.status"
rc=0; run_orch "$T/f2r.log" run --inventory="$INV" --resume="$T/f2" || rc=$?
cat "$T/f2r.log"
expect_eq "resume exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/f2/summary.json")" true
exactly_once "$T/f2" h1 15; exactly_once "$T/f2" h2 15
no_agents

if [ "$LAB_MODE" = netns ]; then
	note "h2's network cut for 20 s, then restored"
	"$ORCH" run --inventory="$INV" --hosts=lab --rounds=40 --out="$T/f3" tests/suites/slow.ini >"$T/f3.log" 2>&1 &
	p=$!; wait_samples "$T/f3" 4000
	lab_link_down h2; sleep 20; lab_link_up h2
	rc=0; wait $p || rc=$?
	cat "$T/f3.log"
	expect_eq "exit after the cut" "$rc" 0
	exactly_once "$T/f3" h1 40; exactly_once "$T/f3" h2 40
	no_agents
fi

note "h2's sshd gone for the rest of the run: h1 completes, exit 3"
"$ORCH" run --inventory="$INV" --hosts=lab --rounds=12 --out="$T/f4" tests/suites/slow.ini >"$T/f4.log" 2>&1 &
p=$!; wait_samples "$T/f4" 4000
lab_stop_sshd h2 --all
rc=0; wait $p || rc=$?
cat "$T/f4.log"
expect_eq "exit with a host gone" "$rc" 3
expect_eq "statuses" "$(jq -r '[.hosts[] | .name + ":" + .status] | join(" ")' "$T/f4/summary.json")" "h1:ok h2:failed"
expect_grep 'h2.*cannot connect' "$T/f4/report.md"
exactly_once "$T/f4" h1 12
no_agents

if [ "$(id -u)" = 0 ]; then
	note "the output directory on a full filesystem: a clear error, nothing corrupted"
	mkdir "$T/full"
	mount -t tmpfs -o size=96k orch-full "$T/full" || fail "cannot mount a tmpfs"
	CLEANUPS+=("umount '$T/full' 2>/dev/null")
	rc=0; run_orch "$T/f5.log" run --rounds=200 --max-load=0 --out="$T/full/out" tests/suites/slow-fast.ini || rc=$?
	cat "$T/f5.log"
	expect_eq "exit on a full disk" "$rc" 3
	expect_grep 'No space left on device' "$T/f5.log"
	ls -la "$T/full/out"
	ls "$T/full/out"/.*.tmp 2>/dev/null && fail "a half-written report was left"
	mkdir "$T/rescue" && cp "$T/full/out/samples.msgpack" "$T/rescue/"
	rc=0; run_orch "$T/f5r.log" report "$T/rescue" || rc=$?
	cat "$T/f5r.log"
	expect_eq "the record still loads" "$rc" 0
	expect_eq "marked incomplete" "$(jq .complete "$T/rescue/summary.json")" false

	note "orch report on a full filesystem: the previous reports stay whole"
	mkdir "$T/full2"
	mount -t tmpfs -o size=2m orch-full2 "$T/full2" || fail "cannot mount a tmpfs"
	CLEANUPS+=("umount '$T/full2' 2>/dev/null")
	cp "$T/rescue/samples.msgpack" "$T/full2/"
	run_orch "$T/f6a.log" report "$T/full2" || fail "first render: $(cat "$T/f6a.log")"
	mkdir "$T/before"
	cp "$T/full2"/samples.csv "$T/full2"/summary.json "$T/full2"/report.md "$T/full2"/report.html "$T/before/"
	dd if=/dev/zero of="$T/full2/filler" bs=4k 2>/dev/null || true
	rc=0; run_orch "$T/f6.log" report "$T/full2" || rc=$?
	cat "$T/f6.log"
	[ "$rc" != 0 ] || fail "a report written to a full filesystem succeeded"
	expect_grep 'No space left on device' "$T/f6.log"
	for f in samples.csv summary.json report.md report.html; do
		cmp -s "$T/before/$f" "$T/full2/$f" || fail "$f changed although the render failed"
	done
	ls "$T/full2"/.*.tmp 2>/dev/null && fail "a half-written report was left"
	no_leftovers
fi
echo PASS
