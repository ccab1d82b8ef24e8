# Hosts from ssh_config on the lab: a host with no inventory entry is
# resolved by `ssh -G` (--ssh-config / $ORCH_SSH_CONFIG), deployed into its
# default workdir ~/.orch and runs a suite, its host key checked against
# ssh_config's UserKnownHostsFile (or $ORCH_KNOWN_HOSTS, which wins) under
# its HostKeyAlias when it has one; inventory keys override ssh_config's;
# every bad answer, a missing ssh client and an unknown name are refused
# with exit 2 and words naming the host.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-60} lab_up 1 || fail "lab did not come up"
lab_home h1 || fail "h1 did not restart with a home of its own"
unset ORCH_KNOWN_HOSTS ORCH_INVENTORY ORCH_SSH_CONFIG
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
: >"$T/empty.ini"
E="$T/empty.ini"
CFG="$LAB_SSH_CONFIG"
a1=$(lab_addr h1); p1=$(lab_port h1)

note "deploy to a host known only from ssh_config: its default workdir ~/.orch"
rc=0; run_orch "$T/deploy" deploy --inventory="$E" --ssh-config="$CFG" --hosts=h1 || rc=$?
cat "$T/deploy"
expect_eq "deploy exit" "$rc" 0
expect_grep '^h1: pushed prebuilt linux-x86_64 agent' "$T/deploy"
[ -x "$LAB/h1/home/.orch/bin/orch-agent" ] || fail "the agent is not in h1's ~/.orch"

note "a suite runs on it (\$ORCH_SSH_CONFIG), its key checked against ssh_config's UserKnownHostsFile"
rc=0; ORCH_SSH_CONFIG="$CFG" run_orch "$T/run1" run --inventory="$E" --hosts=h1,local --rounds=3 --max-load=0 --out="$T/r1" tests/suites/brisk.ini || rc=$?
cat "$T/run1"
expect_eq "run exit" "$rc" 0
expect_eq "hosts" "$(jq -r '[.hosts[] | .name + ":" + .status] | join(" ")' "$T/r1/summary.json")" "h1:ok local:ok"
expect_eq "results on h1 as on local" "$(jq '[.results[] | select(.host=="h1")] | length' "$T/r1/summary.json")" "$(jq '[.results[] | select(.host=="local")] | length' "$T/r1/summary.json")"

note "ssh_config's UserKnownHostsFile is the one checked; \$ORCH_KNOWN_HOSTS wins over it"
: >"$T/kh-empty"
sed "s|UserKnownHostsFile .*|UserKnownHostsFile $T/kh-empty|" "$CFG" >"$T/cfg-emptykh"
rc=0; run_orch "$T/kh1" check --inventory="$E" --ssh-config="$T/cfg-emptykh" --hosts=h1 || rc=$?
cat "$T/kh1"
expect_eq "unknown key exit" "$rc" 3
expect_grep "h1: not ready: unknown host key for .* not in $T/kh-empty\\)" "$T/kh1"
rc=0; ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS" run_orch "$T/kh2" check --inventory="$E" --ssh-config="$T/cfg-emptykh" --hosts=h1 || rc=$?
expect_eq "ORCH_KNOWN_HOSTS exit" "$rc" 0

note "HostKeyAlias: the key is looked up under the alias"
{
	printf 'Host aliased\n\tHostName %s\n\tPort %s\n\tHostKeyAlias h1.alias.test\n' "$a1" "$p1"
	sed "s|UserKnownHostsFile .*|UserKnownHostsFile $T/kh-alias|" "$CFG"
} >"$T/cfg-alias"
for k in ed25519 ecdsa; do echo "h1.alias.test $(cut -d' ' -f1,2 "$LAB/h1/ssh_host_${k}_key.pub")"; done >"$T/kh-alias"
rc=0; run_orch "$T/alias" check --inventory="$E" --ssh-config="$T/cfg-alias" --hosts=aliased || rc=$?
cat "$T/alias"
expect_eq "alias exit" "$rc" 0
grep -Eq "^aliased +yes +known +ok " "$T/alias" || fail "check row for aliased"

note "IdentitiesOnly yes: an ssh-agent key that is none of the IdentityFile keys is not offered"
eval "$(ssh-agent -s -a "$T/agent.sock")" >/dev/null
CLEANUPS+=("kill $SSH_AGENT_PID 2>/dev/null")
ssh-add -q "$LAB_KEY_OTHER" 2>/dev/null || fail "ssh-add failed"
other_fp=$(ssh-keygen -lf "$LAB_KEY_OTHER.pub" | cut -d' ' -f2)
log1="$LAB/h1/sshd.log"
grep -q "IdentitiesOnly yes" "$CFG" || fail "the lab's ssh_config lost IdentitiesOnly yes"
rc=0; run_orch "$T/io1" check --inventory="$E" --ssh-config="$CFG" --hosts=h1 || rc=$?
expect_eq "IdentitiesOnly check exit" "$rc" 0
grep -qF "$other_fp" "$log1" && fail "the agent's other key was offered despite IdentitiesOnly yes"
sed 's/IdentitiesOnly yes/IdentitiesOnly no/' "$CFG" >"$T/cfg-agent"
rc=0; run_orch "$T/io2" check --inventory="$E" --ssh-config="$T/cfg-agent" --hosts=h1 || rc=$?
expect_eq "IdentitiesOnly no check exit" "$rc" 0
wait_until 10 "sshd to log the agent's key" grep -qF "$other_fp" "$log1"
kill "$SSH_AGENT_PID" 2>/dev/null; unset SSH_AUTH_SOCK SSH_AGENT_PID

note "inventory keys override ssh_config's"
printf '[host.h1]\nssh_config = yes\nport = 2\n' >"$T/over.ini"
rc=0; run_orch "$T/over1" check --inventory="$T/over.ini" --ssh-config="$CFG" --hosts=h1 || rc=$?
cat "$T/over1"
expect_eq "port override exit" "$rc" 3
expect_grep "h1: not ready: cannot connect to $a1 port 2: " "$T/over1"
printf '[host.h1]\nssh_config = yes\nuser = nosuchuser\n' >"$T/over2.ini"
rc=0; run_orch "$T/over2" check --inventory="$T/over2.ini" --ssh-config="$CFG" --hosts=h1 || rc=$?
expect_eq "user override exit" "$rc" 3
expect_grep "h1: not ready: authentication failed for nosuchuser@$a1 " "$T/over2"
printf '[host.h1]\naddress = %s\nport = %s\n' "$a1" "$p1" >"$T/noconf.ini"
rc=0; run_orch "$T/over3" check --inventory="$T/noconf.ini" --ssh-config="$CFG" --hosts=h1 || rc=$?
expect_eq "ssh_config = no (default) exit" "$rc" 3
expect_grep "h1: not ready: unknown host key for " "$T/over3"

note "bad input: exit 2, nothing written, words naming the host"
bad() {
	local what=$1 want=$2; shift 2
	local rc=0
	run_orch "$T/bad-$what" "$@" --out="$T/out-$what" tests/suites/brisk.ini || rc=$?
	[ "$rc" = 2 ] || { cat "$T/bad-$what"; fail "$what: exit $rc, want 2"; }
	expect_grep "$want" "$T/bad-$what"
	[ ! -e "$T/out-$what" ] || fail "$what: $T/out-$what was written"
}
badcfg() {
	local what=$1 want=$2 body=$3
	printf 'Host evil\n\tHostName %s\n%b' "$a1" "$body" >"$T/cfg-$what"
	bad "$what" "$want" run --inventory="$E" --ssh-config="$T/cfg-$what" --hosts=evil
}
bad unknown "unknown host or group 'nosuchhost.invalid' \\(.*ssh_config $CFG has no HostName for it, and the name does not resolve" \
    run --inventory="$E" --ssh-config="$CFG" --hosts=nosuchhost.invalid
rc=0; PATH=/nonexistent run_orch "$T/bad-no-ssh" run --inventory="$E" --ssh-config="$CFG" --hosts=h1 --out="$T/out-no-ssh" tests/suites/brisk.ini || rc=$?
expect_eq "no ssh client exit" "$rc" 2
expect_grep "unknown host or group 'h1' \\(.*; no ssh client is installed to look it up in ssh_config" "$T/bad-no-ssh"
[ ! -e "$T/out-no-ssh" ] || fail "no-ssh: $T/out-no-ssh was written"
bad missing-file "ssh_config host h1: ssh -G -F $T/nonexistent failed \\(.*$T/nonexistent" \
    run --inventory="$E" --ssh-config="$T/nonexistent" --hosts=h1
bad empty-file "ssh_config host h1: --ssh-config= names no file" \
    run --inventory="$E" --ssh-config= --hosts=h1
badcfg user "ssh_config host evil: bad User '-oProxyCommand=x'" '\tUser -oProxyCommand=x\n'
badcfg token "ssh_config host evil: IdentityFile has %C, a token orch does not expand" '\tIdentityFile ~/.ssh/%C\n'
badcfg proxycommand "ssh_config host evil: ProxyCommand is not supported" '\tProxyCommand nc %%h %%p\n'
badcfg jumpspec "ssh_config host evil: ProxyJump: bad jump host 'h\\\$\\(id\\)'" '\tProxyJump h$(id)\n'
badcfg jumpuser "ssh_config host evil: ProxyJump: bad jump host '-oX@h'" '\tProxyJump -oX@h\n'
badcfg tilde "ssh_config host evil: IdentityFile '~root/k': only ~/ is expanded" '\tIdentityFile ~root/k\n'
printf '[host.h1]\nssh_config = maybe\n' >"$T/maybe.ini"
bad maybe "$T/maybe.ini:2: \\[host.h1\\] bad ssh_config 'maybe' \\(want yes or no\\)" \
    run --inventory="$T/maybe.ini" --ssh-config="$CFG" --hosts=h1
printf '[host.x]\naddress = 192.0.2.1\ntransport = direct\njump = h1\n' >"$T/direct.ini"
bad direct "x: transport = direct cannot go through a jump host" \
    run --inventory="$T/direct.ini" --ssh-config="$CFG" --hosts=x
printf '[host.x]\naddress = 192.0.2.1\njump = local\n' >"$T/jlocal.ini"
bad jump-local "x: 'local' cannot be a jump host" run --inventory="$T/jlocal.ini" --hosts=x
printf '[host.x]\naddress = 192.0.2.1\njump = a,,b\n' >"$T/jspec.ini"
bad jump-spec "$T/jspec.ini:3: \\[host.x\\] jump: bad jump host" run --inventory="$T/jspec.ini" --hosts=x
echo PASS
