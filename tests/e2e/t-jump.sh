# Jump hosts on the lab: a host whose sshd is reachable only from h1's
# network namespace (tests/lab/lab.sh lab_add_behind) is deployed, checked,
# run, watched (orch status), resumed and stopped through h1, by the
# inventory's `jump = h1` and by ssh_config's ProxyJump; the host keys of
# both hops are checked (a wrong key at either hop is refused, naming it);
# the jump host's network cut mid-run does not lose the run; a jump host
# that cannot reach the target, loops and self-jumps are
# refused with clear words.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-60} lab_up 1 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
if [ "$LAB_MODE" = netns ]; then
	lab_add_behind h1 || fail "the host behind h1 did not come up"
	B=h$LAB_N
	BA=$(lab_addr "$B")
	note "$B ($BA) is routed only inside h1's namespace"
	ip -o addr show | grep -qF " $BA/" && fail "$BA is an address of this namespace"
	ip route get "$BA" | grep -q "orch" && fail "this namespace routes $BA to the lab"
	ip -n "$(lab_ns h1)" route get "$BA" | grep -q "dev orch" ||
	    fail "h1's namespace has no route to $BA"
else
	# Loopback mode (not root): every sshd is reachable from here, so
	# this proves the relaying, not the isolation.
	lab_down
	lab_up 2 || fail "lab did not come up"
	B=h2
	lab_inventory_set h2 jump h1
	printf 'Host h2\n\tProxyJump h1\n' >>"$LAB_SSH_CONFIG"
	note "loopback lab: $B through h1 (reachable directly too)"
fi

note "deploy and check through the jump (inventory: jump = h1)"
rc=0; run_orch "$T/deploy" deploy --inventory="$INV" --hosts="$B" || rc=$?
cat "$T/deploy"
expect_eq "deploy exit" "$rc" 0
expect_grep "^$B: pushed prebuilt linux-x86_64 agent" "$T/deploy"
rc=0; run_orch "$T/check" check --inventory="$INV" --hosts="$B" || rc=$?
cat "$T/check"
expect_eq "check exit" "$rc" 0
grep -Eq "^$B +yes +known +ok +0\.[0-9.]+ +linux/x86_64 .*  (yes|would wait)$" "$T/check" || fail "check row for $B"
expect_grep "^$B: reached through h1 \\($LAB_USER@$(lab_addr h1) port $(lab_port h1)\\)$" "$T/check"

note "a suite runs through the jump, over the agent's tunnel"
rc=0; run_orch "$T/run1" run --inventory="$INV" --hosts=h1,"$B" --rounds=3 --max-load=0 --out="$T/r1" tests/suites/brisk.ini || rc=$?
cat "$T/run1"
expect_eq "run exit" "$rc" 0
expect_eq "hosts" "$(jq -r '[.hosts[] | .name + ":" + .status] | join(" ")' "$T/r1/summary.json")" "h1:ok $B:ok"
expect_eq "results for $B" "$(jq --arg h "$B" '[.results[] | select(.host==$h)] | length' "$T/r1/summary.json")" \
    "$(jq '[.results[] | select(.host=="h1")] | length' "$T/r1/summary.json")"

note "ssh_config's ProxyJump: an inventory entry with ssh_config = yes and only a workdir"
printf '[host.%s]\nssh_config = yes\nworkdir = %s\n' "$B" "$LAB/$B/wd" >"$T/sc.ini"
rc=0; run_orch "$T/run2" run --inventory="$T/sc.ini" --ssh-config="$LAB_SSH_CONFIG" --hosts="$B" --rounds=2 --max-load=0 --out="$T/r2" tests/suites/brisk.ini || rc=$?
cat "$T/run2"
expect_eq "ProxyJump run exit" "$rc" 0
expect_eq "ProxyJump host" "$(jq -r '.hosts[0].status' "$T/r2/summary.json")" ok

if [ "$LAB_MODE" = netns ]; then
	note "two hops: a host behind $B, itself behind h1 (inventory and ProxyJump chains)"
	lab_add_behind "$B" || fail "the host behind $B did not come up"
	C=h$LAB_N
	rc=0; run_orch "$T/deploy-c" deploy --inventory="$INV" --hosts="$C" || rc=$?
	cat "$T/deploy-c"
	expect_eq "two-hop deploy exit" "$rc" 0
	printf '[host.%s]\nssh_config = yes\nworkdir = %s\n' "$C" "$LAB/$C/wd" >"$T/sc2.ini"
	rc=0; run_orch "$T/check-c" check --inventory="$T/sc2.ini" --ssh-config="$LAB_SSH_CONFIG" --hosts="$C" || rc=$?
	cat "$T/check-c"
	expect_eq "two-hop check exit" "$rc" 0
	grep -Eq "^$C +yes +known +ok +0\.[0-9.]+ +linux/x86_64 .*  (yes|would wait)$" "$T/check-c" || fail "check row for $C"
	expect_grep "^$C: reached through h1 \\(.*\\), $B \\($LAB_USER@$(lab_addr "$B") port 22\\)$" "$T/check-c"
fi

note "coordinator killed mid-run: orch status and orch run --resume reach the agent through the jump"
"$ORCH" run --inventory="$INV" --hosts="$B" --rounds=30 --out="$T/r3" tests/suites/slow.ini >"$T/run3" 2>&1 &
orch_pid=$!
wait_samples "$T/r3" 3000
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
rc=0; run_orch "$T/status3" status --inventory="$INV" "$T/r3" || rc=$?
cat "$T/status3"
expect_eq "status exit" "$rc" 0
expect_grep "^$B +[0-9]+ +unfinished +running pid [0-9]+ journal [0-9]+" "$T/status3"
rc=0; run_orch "$T/resume3" run --inventory="$INV" --resume="$T/r3" || rc=$?
cat "$T/resume3"
expect_eq "resume exit" "$rc" 0
expect_eq "complete after resume" "$(jq .complete "$T/r3/summary.json")" true

note "orch stop through the jump"
"$ORCH" run --inventory="$INV" --hosts="$B" --rounds=30 --out="$T/r4" tests/suites/slow.ini >"$T/run4" 2>&1 &
orch_pid=$!
wait_samples "$T/r4" 3000
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
rc=0; run_orch "$T/stop4" stop --inventory="$INV" "$T/r4" || rc=$?
cat "$T/stop4"
expect_eq "stop exit" "$rc" 0
expect_grep "^$B .* stopped pid [0-9]+ journal [0-9]+" "$T/stop4"
agent_gone() { ! pgrep -f "$LAB/$B/wd/bin/orch-agent serve" >/dev/null; }
wait_until 30 "$B's agent to end after orch stop" agent_gone

if [ "$LAB_MODE" = netns ]; then
	note "the jump host's network cut for 20 s mid-run, then restored: the run completes"
	"$ORCH" run --inventory="$INV" --hosts="$B" --rounds=30 --out="$T/r5" tests/suites/slow.ini >"$T/run5" 2>&1 &
	orch_pid=$!
	wait_samples "$T/r5" 3000
	lab_link_down h1; sleep 20; lab_link_up h1
	rc=0; wait "$orch_pid" || rc=$?
	cat "$T/run5"
	expect_eq "exit after the cut" "$rc" 0
	expect_eq "complete after the cut" "$(jq .complete "$T/r5/summary.json")" true
	rows() { awk -F, -v h="$B" '$2==h && $11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$T/r5/samples.csv" | sort; }
	[ -z "$(rows | uniq -d)" ] || fail "duplicated samples after the cut"
	expect_eq "distinct (bench, variant, round) after the cut" "$(rows | uniq | wc -l)" 60
fi

note "a wrong host key at the jump hop is refused, naming the hop"
ssh-keygen -q -t ed25519 -N '' -C fake -f "$T/fake" </dev/null >/dev/null
a1=$(lab_addr h1); p1=$(lab_port h1)
if [ "$p1" = 22 ]; then n1=$a1; else n1="[$a1]:$p1"; fi
{ grep -vF "$n1 " "$LAB_KNOWN_HOSTS"; echo "$n1 $(cut -d' ' -f1,2 "$T/fake.pub")"; } >"$T/kh-jump"
rc=0; ORCH_KNOWN_HOSTS="$T/kh-jump" run_orch "$T/bad1" check --inventory="$INV" --hosts="$B" || rc=$?
cat "$T/bad1"
expect_eq "wrong jump key exit" "$rc" 3
expect_grep "$B: not ready: through jump host h1: h1: HOST KEY CHANGED for " "$T/bad1"

note "a wrong host key at the target, behind a good jump hop, is refused too"
ab=$(lab_addr "$B"); pb=$(lab_port "$B")
if [ "$pb" = 22 ]; then nb=$ab; else nb="[$ab]:$pb"; fi
{ grep -vF "$nb " "$LAB_KNOWN_HOSTS"; echo "$nb $(cut -d' ' -f1,2 "$T/fake.pub")"; } >"$T/kh-target"
rc=0; ORCH_KNOWN_HOSTS="$T/kh-target" run_orch "$T/bad2" check --inventory="$INV" --hosts="$B" || rc=$?
cat "$T/bad2"
expect_eq "wrong target key exit" "$rc" 3
expect_grep "$B: not ready: HOST KEY CHANGED for " "$T/bad2"
grep -q "through jump host" "$T/bad2" && fail "the target's refusal blames the jump host"

note "a jump host that cannot reach the target's port"
sed "s/^\\[host.$B\\]/[host.$B]\\nport = 2/" "$INV" >"$T/port.ini"
grep -q "^port *= *22$" "$T/port.ini" && sed -i "/^\\[host.$B\\]/,\$ {/^port *= *22$/d}" "$T/port.ini"
rc=0; run_orch "$T/bad3" check --inventory="$T/port.ini" --hosts="$B" || rc=$?
cat "$T/bad3"
expect_eq "unreachable through jump exit" "$rc" 3
expect_grep "$B: not ready: jump host h1 cannot reach $ab port 2: " "$T/bad3"

note "loops and self-jumps are refused before anything runs"
cat >"$T/loop.ini" <<EOF
[host.a]
address = 192.0.2.10
jump = b
[host.b]
address = 192.0.2.11
jump = a
[host.c]
address = 192.0.2.12
jump = c
EOF
rc=0; run_orch "$T/loop1" check --inventory="$T/loop.ini" --hosts=a || rc=$?
expect_eq "loop exit" "$rc" 2
expect_grep "^orch: --hosts: a: jump loop: a -> b -> a$" "$T/loop1"
rc=0; run_orch "$T/loop2" check --inventory="$T/loop.ini" --hosts=c || rc=$?
expect_eq "self-jump exit" "$rc" 2
expect_grep "^orch: --hosts: c: jumps through itself$" "$T/loop2"
printf 'Host x\n\tHostName 192.0.2.20\n\tProxyJump y\nHost y\n\tHostName 192.0.2.21\n\tProxyJump x\n' >"$T/loop.cfg"
rc=0; run_orch "$T/loop3" check --inventory="$T/loop.ini" --ssh-config="$T/loop.cfg" --hosts=x || rc=$?
expect_eq "ssh_config loop exit" "$rc" 2
expect_grep "^orch: --hosts: x: jump loop: x -> y -> x$" "$T/loop3"
echo PASS
