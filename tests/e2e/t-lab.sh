# Lab hosts over SSH: three real sshd hosts (network namespaces when root),
# deploy (prebuilt and from source), content-addressed push, tunnel and
# direct transports, orch check, and every refusal with its clear message.
. tests/e2e/lib.sh
. tests/lab/lab.sh

lab_up 3 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")

note "check before deploy: no agent, which orch run would install"
rc=0; run_orch "$T/check0" check --inventory="$INV" --hosts=lab || rc=$?
cat "$T/check0"
expect_eq "check exit" "$rc" 0
expect_grep '^h1: no agent installed: orch run installs it by itself' "$T/check0"

note "deploy: prebuilt on h1,h2; built from source on h3"
rc=0; run_orch "$T/deploy1" deploy --inventory="$INV" --hosts=h1,h2 || rc=$?
cat "$T/deploy1"
expect_eq "deploy exit" "$rc" 0
expect_grep '^h1: pushed prebuilt linux-x86_64 agent' "$T/deploy1"
rc=0; run_orch "$T/deploy2" deploy --inventory="$INV" --hosts=h3 --from-source || rc=$?
cat "$T/deploy2"
expect_eq "deploy from source exit" "$rc" 0
expect_grep '^h3: built from source on the host' "$T/deploy2"
"$LAB/h3/wd/bin/orch-agent" --version | grep -q "protocol" || fail "h3's agent does not run"
rc=0; run_orch "$T/deploy3" deploy --inventory="$INV" --hosts=lab || rc=$?
expect_grep '^h2: up to date' "$T/deploy3"

note "check: every host ready"
rc=0; run_orch "$T/check1" check --inventory="$INV" --hosts=lab || rc=$?
cat "$T/check1"
expect_eq "check exit" "$rc" 0
for h in h1 h2 h3; do
	grep -Eq "^$h +yes +known +ok +0\.[0-9.]+ +linux/x86_64 .*  (yes|would wait)$" "$T/check1" || fail "check row for $h"
done

note "run on three hosts at once, over the tunnel"
rc=0; run_orch "$T/run1" run --inventory="$INV" --hosts=lab --rounds=5 --seed=3 --max-load=0 --out="$T/r1" suites/example.ini || rc=$?
cat "$T/run1"
expect_eq "run exit" "$rc" 0
S="$T/r1/summary.json"
expect_eq "hosts" "$(jq -r '[.hosts[] | .name + ":" + .status] | join(" ")' "$S")" "h1:ok h2:ok h3:ok"
expect_eq "results per host" "$(jq '[.results[] | select(.host=="h2")] | length' "$S")" 12
jq -e '[.hosts[] | select(.pushed_files < 2 or .pushed_bytes == 0)] | length == 0' "$S" >/dev/null || fail "first run pushed nothing"
expect_grep '^## x86_64' "$T/r1/report.md"

note "second run: nothing travels"
rc=0; run_orch "$T/run2" run --inventory="$INV" --hosts=lab --rounds=5 --max-load=0 --out="$T/r2" suites/example.ini || rc=$?
expect_eq "run exit" "$rc" 0
expect_eq "bytes pushed on the second run" "$(jq '[.hosts[].pushed_bytes] | add' "$T/r2/summary.json")" 0

note "transport=direct"
sed 's/^\[host.h2\]/[host.h2]\ntransport = direct/' "$INV" > "$T/direct.ini"
rc=0; run_orch "$T/run3" run --inventory="$T/direct.ini" --hosts=h2 --rounds=5 --max-load=0 --out="$T/r3" suites/example.ini || rc=$?
cat "$T/run3"
expect_eq "direct run exit" "$rc" 0
expect_eq "direct host" "$(jq -r '.hosts[0].status' "$T/r3/summary.json")" ok

note "hashed known_hosts, and one holding only ECDSA keys"
lab_known_hosts_hashed
ORCH_KNOWN_HOSTS="$LAB/known_hosts.hashed" run_orch "$T/run4" check --inventory="$INV" --hosts=h1 || fail "hashed known_hosts: $(cat "$T/run4")"
grep ecdsa "$LAB_KNOWN_HOSTS" > "$T/kh-ecdsa"
ORCH_KNOWN_HOSTS="$T/kh-ecdsa" run_orch "$T/run5" check --inventory="$INV" --hosts=h1 || fail "ECDSA-only known_hosts: $(cat "$T/run5")"

note "unknown host key: refused with its fingerprint"
: > "$T/kh-empty"
rc=0; ORCH_KNOWN_HOSTS="$T/kh-empty" run_orch "$T/run6" run --inventory="$INV" --hosts=h1 --max-load=0 --out="$T/r6" suites/example.ini || rc=$?
cat "$T/run6"
expect_eq "unknown key exit" "$rc" 3
expect_grep 'h1: unknown host key for .*\(ED25519 key SHA256:[A-Za-z0-9+/]{43}, not in' "$T/run6"
expect_grep '--accept-new-host-keys' "$T/run6"
[ ! -s "$T/kh-empty" ] || fail "the refused key was written to known_hosts"

note "--accept-new-host-keys adds it, like StrictHostKeyChecking=accept-new"
rc=0; ORCH_KNOWN_HOSTS="$T/kh-empty" run_orch "$T/run7" check --inventory="$INV" --hosts=h1 --accept-new-host-keys || rc=$?
expect_eq "accept-new exit" "$rc" 0
[ "$(wc -l < "$T/kh-empty")" = 1 ] || fail "accept-new did not add exactly one key"
ORCH_KNOWN_HOSTS="$T/kh-empty" run_orch "$T/run8" check --inventory="$INV" --hosts=h1 || fail "the added key is not accepted"

note "changed host key: refused, even with --accept-new-host-keys"
a1=$(lab_addr h1); a2=$(lab_addr h2)
p1=$(lab_port h1); p2=$(lab_port h2)
if [ "$p1" = 22 ]; then n1=$a1; else n1="[$a1]:$p1"; fi
if [ "$p2" = 22 ]; then n2=$a2; else n2="[$a2]:$p2"; fi
grep -F "$n2 " "$LAB_KNOWN_HOSTS" | sed "s/^[^ ]*/$n1/" > "$T/kh-changed"
rc=0; ORCH_KNOWN_HOSTS="$T/kh-changed" run_orch "$T/run9" run --accept-new-host-keys --inventory="$INV" --hosts=h1 --max-load=0 --out="$T/r9" suites/example.ini || rc=$?
cat "$T/run9"
expect_eq "changed key exit" "$rc" 3
expect_grep 'HOST KEY CHANGED for .* SHA256:' "$T/run9"
expect_grep 'ssh-keygen -f .* -R' "$T/run9"

note "wrong user key: authentication fails, saying what was tried"
sed "s#^identity *=.*#identity = $LAB_KEY_OTHER#" "$INV" > "$T/badkey.ini"
rc=0; SSH_AUTH_SOCK= run_orch "$T/run10" check --inventory="$T/badkey.ini" --hosts=h2 || rc=$?
cat "$T/run10"
expect_eq "bad key exit" "$rc" 3
expect_grep "authentication failed for $LAB_USER@.*tried .*$(basename "$LAB_KEY_OTHER")" "$T/run10"

note "one run per host: a second coordinator waits, saying who holds it, for load_wait, then fails"
"$ORCH" run --inventory="$INV" --hosts=h1 --out="$T/r11" --max-load=0 tests/suites/slow.ini >"$T/run11" 2>&1 &
slow=$!
locked() { [ -s "$T/r11/samples.msgpack" ] && grep -q "run " "$LAB/h1/wd/run.lock" 2>/dev/null; }
wait_until 120 "the first run to hold h1's run lock" locked
sed '/^\[suite\]/a load_wait = 3' suites/example.ini > "$T/example-wait3.ini"
rc=0; run_orch "$T/run12" run --inventory="$INV" --hosts=h1 --max-load=0 --out="$T/r12" "$T/example-wait3.ini" || rc=$?
cat "$T/run12"
expect_eq "busy host exit" "$rc" 3
expect_grep '^orch: h1: waiting: host busy: another orch run holds .*run.lock \(run [0-9]{8}-[0-9]{6}-[0-9a-f]{4}, agent pid [0-9]+, host h1, user .*since 20.*\); [0-9]+s left of load_wait 3s' "$T/run12"
expect_grep 'h1.*host busy: another orch run holds .*run.lock \(run [0-9]{8}-[0-9]{6}-[0-9a-f]{4}, agent pid [0-9]+, host h1, user .*since 20.*waited [0-9]+ s \(load_wait\)' "$T/run12"
# Ctrl-C leaves the agent measuring (t-interrupt.sh): orch stop ends it.
kill -INT "$slow"; wait "$slow" || true
rc=0; run_orch "$T/stop11" stop --inventory="$INV" "$T/r11" || rc=$?
cat "$T/stop11"
expect_grep '^h1 .* stopped pid [0-9]+' "$T/stop11"

note "one host down: the others finish, exit 3, the report names it"
lab_stop_sshd h3
rc=0; run_orch "$T/run13" run --inventory="$INV" --hosts=lab --rounds=5 --max-load=0 --out="$T/r13" suites/example.ini || rc=$?
cat "$T/run13"
expect_eq "one host down exit" "$rc" 3
expect_eq "statuses" "$(jq -r '[.hosts[] | .name + ":" + .status] | join(" ")' "$T/r13/summary.json")" "h1:ok h2:ok h3:failed"
expect_grep 'h3.*cannot connect' "$T/r13/report.md"
expect_eq "h1 results" "$(jq '[.results[] | select(.host=="h1" and .n == 5)] | length' "$T/r13/summary.json")" 12

note "an agent of another version: check refuses it, run replaces it"
cat > "$LAB/h1/wd/bin/orch-agent" <<'EOF2'
#!/bin/sh
case "$1" in
--version) echo "orch-agent 0.0.9 protocol 3" ;;
serve) read -r key; echo "ORCH-AGENT 3 tcp://127.0.0.1:9 0.0.9" ;;
esac
EOF2
chmod 755 "$LAB/h1/wd/bin/orch-agent"
rc=0; run_orch "$T/check2" check --inventory="$INV" --hosts=h1 || rc=$?
cat "$T/check2"
expect_eq "check of an old agent exit" "$rc" 0
expect_grep '^h1: agent is outdated: orch run replaces it by itself \(orch deploy --hosts=h1 does it ahead of time\)' "$T/check2"
grep -Eq '^h1 +yes +known +ok +outdated ' "$T/check2" || fail "check's AGENT column does not say outdated"
rc=0; run_orch "$T/run14" run --inventory="$INV" --hosts=h1 --rounds=5 --max-load=0 --out="$T/r14" suites/example.ini || rc=$?
cat "$T/run14"
expect_eq "run over an old agent exit" "$rc" 0
expect_eq "h1 after the redeploy" "$(jq -r '.hosts[0].status' "$T/r14/summary.json")" ok
"$LAB/h1/wd/bin/orch-agent" --version | grep -q "^orch-agent $("$ORCH" --version | awk '{print $2}') " || fail "the old agent was not replaced: $("$LAB/h1/wd/bin/orch-agent" --version)"

note "no agent at all: run deploys it first"
rm -f "$LAB/h2/wd/bin/orch-agent"
rc=0; run_orch "$T/run15" run --inventory="$INV" --hosts=h2 --rounds=5 --max-load=0 --out="$T/r15" suites/example.ini || rc=$?
cat "$T/run15"
expect_eq "run with no agent exit" "$rc" 0
[ -x "$LAB/h2/wd/bin/orch-agent" ] || fail "run did not deploy the agent"

note "no agent left on any host"
no_agent() { ! pgrep -f "$LAB/h[0-9]/wd/bin/orch-agent" >/dev/null; }
wait_until 60 "the lab hosts' agents to end" no_agent
echo PASS
