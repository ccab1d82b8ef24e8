#!/usr/bin/env bash
# selftest.sh [--netns|--loopback|--all] — proves tests/lab/lab.sh: brings up
# three sshd hosts, logs in to each under strict host key checking, cuts and
# restores a link, stops and restarts an sshd, and checks that lab_down (and
# the EXIT trap, and the reaper) leave nothing behind. No argument: the
# default mode (netns as root, else loopback); --all: every mode available.
# Prints PASS; exits non-zero on the first failure. Takes ~15-30 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = --all ]; then
	modes=(--loopback)
	if [ "$(id -u)" -eq 0 ] && ip netns list >/dev/null 2>&1; then
		modes=(--netns --loopback)
	fi
	for m in "${modes[@]}"; do
		bash "$0" "$m" || exit 1
	done
	exit 0
fi
mode=${1:-}

fail() { echo "FAIL: $*" >&2; exit 1; }
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR
note() { echo "--- $* (at $(( ($(ms) - t_start) / 100 ))ds)"; }
ms() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }
t_start=$(ms)
# s ARGS...: ssh through the lab's config, bounded, stdin closed.
s() { timeout 15 ssh -F "$LAB/ssh_config" "$@" </dev/null; }
# probe [OPTS] HOST: logs in and opens the sftp subsystem, which runs no
# login shell: as strict as `ssh HOST true`, without the shell's rc files.
probe() { timeout 15 ssh -F "$LAB/ssh_config" "$@" -s sftp </dev/null >/dev/null; }
# waitfor STEPS CMD...: runs CMD every 0.1 s until it succeeds, STEPS times.
waitfor() {
	local n=$1 i; shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^[^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

T=$(mktemp -d /tmp/orch-labself.XXXXXX)
trap 'rm -rf "$T"' EXIT		# set before lab_up: lab.sh must keep it running

. "$here/lab.sh"
opts_before="$- $(set -o | grep pipefail)"

note "lab_up 3 $mode"
t0=$(ms)
lab_up 3 $mode || fail "lab_up 3 $mode"
up_ms=$(( $(ms) - t0 ))
echo "mode $LAB_MODE, up in $up_ms ms, LAB=$LAB"
[ "$opts_before" = "$- $(set -o | grep pipefail)" ] || fail "lab_up changed shell options"
case $mode in --netns) [ "$LAB_MODE" = netns ] ;; --loopback) [ "$LAB_MODE" = loopback ] ;; esac ||
    fail "asked for $mode, got $LAB_MODE"
case $(trap -p EXIT) in *_lab_on_exit*'rm -rf'*) ;; *) fail "EXIT trap not composed: $(trap -p EXIT)" ;; esac
lab=$LAB id=${LAB##*.}

note "files"
for f in id_ed25519 id_ed25519.pub id_ecdsa id_ecdsa.pub id_other authorized_keys \
    known_hosts known_hosts.hashed ssh_config inventory.ini; do
	[ -s "$LAB/$f" ] || fail "$LAB/$f missing"
done
[ "$(wc -l <"$LAB/known_hosts")" -eq 6 ] || fail "known_hosts: want 6 lines"
for h in h1 h2 h3; do
	grep -qx "\[host.$h\]" "$LAB_INVENTORY" || fail "inventory: no [host.$h]"
	grep -qx "workdir  = $LAB/$h/wd" "$LAB_INVENTORY" || fail "inventory: $h workdir"
	[ -d "$LAB/$h/wd" ] || fail "$LAB/$h/wd missing"
	for k in ssh_host_ed25519_key ssh_host_ecdsa_key; do
		[ -s "$LAB/$h/$k" ] || fail "$h: no $k"
	done
done
grep -qx 'hosts = h1, h2, h3' "$LAB_INVENTORY" || fail "inventory: group line"
grep -qx "user     = $(id -un)" "$LAB_INVENTORY" || fail "inventory: user"
cp "$LAB_INVENTORY" "$T/inventory.ini"
lab_inventory_set h2 transport direct
lab_inventory_set h2 transport tunnel
[ "$(diff "$T/inventory.ini" "$LAB_INVENTORY" | grep -c '^>')" = 1 ] &&
    awk '/^\[host.h2\]/ { s = 1; next } /^\[/ { s = 0 } s && /^transport *= tunnel$/ { f = 1 } END { exit !f }' \
    "$LAB_INVENTORY" || fail "lab_inventory_set: $(cat "$LAB_INVENTORY")"
cp "$T/inventory.ini" "$LAB_INVENTORY"

note "each host answers, as itself"
endpoints=
for h in h1 h2 h3; do
	addr=$(lab_addr $h) port=$(lab_port $h)
	# One login shell per host (each costs the user's rc files).
	out=$(s $h 'echo "$SSH_CONNECTION"; hostname; ip netns identify 2>/dev/null; true') ||
	    fail "ssh $h"
	set -- $out
	[ "$3 $4" = "$addr $port" ] || fail "$h: reached $3:$4, want $addr:$port"
	[ -n "${5:-}" ] || fail "ssh $h hostname"
	if [ "$LAB_MODE" = netns ]; then
		[ "$port" = 22 ] || fail "$h: port $port in netns mode"
		case $addr in 169.254.213.*) ;; *) fail "$h: address $addr" ;; esac
		grep -qx "$addr ssh-ed25519 .*" "$LAB/known_hosts" || fail "known_hosts: $addr"
		[ "${6:-}" = "$(lab_ns $h)" ] || fail "$h: in namespace '${6:-}', not $(lab_ns $h)"
	else
		[ "$addr" = 127.0.0.1 ] || fail "$h: address $addr in loopback mode"
		[ "$port" -ge 20000 ] && [ "$port" -le 60000 ] || fail "$h: port $port"
		grep -qx "\[127.0.0.1\]:$port ecdsa-sha2-nistp256 .*" "$LAB/known_hosts" ||
		    fail "known_hosts: [127.0.0.1]:$port"
	fi
	endpoints="$endpoints$addr:$port
"
done
[ "$(printf '%s' "$endpoints" | sort -u | wc -l)" -eq 3 ] || fail "endpoints not distinct: $endpoints"

note "both host keys, hashed known_hosts, strict checking"
probe -o HostKeyAlgorithms=ssh-ed25519 h1 || fail "ed25519 host key"
probe -o HostKeyAlgorithms=ecdsa-sha2-nistp256 h1 || fail "ecdsa host key"
! grep -q "$(lab_addr h2)" "$LAB/known_hosts.hashed" || fail "known_hosts.hashed names an address"
[ "$(grep -c '^|1|' "$LAB/known_hosts.hashed")" -eq 6 ] || fail "known_hosts.hashed: want 6 hashed lines"
probe -o UserKnownHostsFile="$LAB/known_hosts.hashed" h2 || fail "hashed known_hosts"
! probe -o UserKnownHostsFile=/dev/null h1 2>/dev/null || fail "unknown host key accepted"
# h1's name with h2's keys: a changed host key must be refused.
awk -v h1="$(sed -n 1p "$LAB/known_hosts" | cut -d' ' -f1)" \
    -v h2="$(sed -n 3p "$LAB/known_hosts" | cut -d' ' -f1)" \
    '$1 == h2 { $1 = h1; print }' "$LAB/known_hosts" >"$T/wrong_known_hosts"
[ "$(wc -l <"$T/wrong_known_hosts")" -eq 2 ] || fail "could not make a wrong known_hosts"
! probe -o UserKnownHostsFile="$T/wrong_known_hosts" h1 2>/dev/null || fail "changed host key accepted"

note "client keys"
raw=(-F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes
    -o UserKnownHostsFile="$LAB/known_hosts" -o ConnectTimeout=5 -p "$(lab_port h1)"
    -l "$LAB_USER")
for k in "$LAB_KEY" "$LAB_KEY_ECDSA"; do
	timeout 15 ssh "${raw[@]}" -i "$k" -s "$(lab_addr h1)" sftp </dev/null >/dev/null ||
	    fail "user key $k refused"
done
! timeout 15 ssh "${raw[@]}" -i "$LAB_KEY_OTHER" -s "$(lab_addr h1)" sftp </dev/null >/dev/null 2>&1 ||
    fail "unauthorized key accepted"

note "sftp and direct-tcpip"
echo hello >"$T/up.txt"
printf 'put %s %s\n' "$T/up.txt" "$LAB/h1/wd/up.txt" |
    timeout 15 sftp -q -F "$LAB/ssh_config" -b - h1 >/dev/null || fail "sftp put"
[ "$(cat "$LAB/h1/wd/up.txt")" = hello ] || fail "sftp: file not written"
# To h1's own sshd, seen from h1 (in netns mode hosts cannot reach each
# other, and 127.0.0.1 is each namespace's own).
banner=$(timeout 15 ssh -F "$LAB/ssh_config" -W "$(lab_addr h1):$(lab_port h1)" h1 </dev/null 2>/dev/null || true)
case $banner in SSH-2.0-*) ;; *) fail "direct-tcpip through h1: got '$banner'" ;; esac

if [ "$LAB_MODE" = netns ]; then
	note "lab_link_down h2 / lab_link_up h2"
	lab_link_down h2 || fail "lab_link_down h2"
	t0=$(ms)
	if out=$(probe -o ConnectTimeout=2 h2 2>&1); then
		fail "h2 reachable with its link down"
	fi
	[ $(( $(ms) - t0 )) -ge 1500 ] || fail "h2 refused rather than dropped: $out"
	probe h1 || fail "h1 lost with h2's link down"
	lab_link_up h2 || fail "lab_link_up h2"
	waitfor 30 probe -o ConnectTimeout=2 h2 2>/dev/null || fail "h2 unreachable after lab_link_up"
else
	note "no links in loopback mode"
	! lab_link_down h2 2>/dev/null || fail "lab_link_down worked in loopback mode"
	! lab_ns h2 2>/dev/null || fail "lab_ns worked in loopback mode"
fi

note "lab_stop_sshd h3 / lab_start_sshd h3"
pid3=$(lab_pid h3) || fail "lab_pid h3"
lab_stop_sshd h3
gone "$pid3" || fail "sshd $pid3 still runs"
! lab_pid h3 >/dev/null 2>&1 || fail "lab_pid h3 after stop"
! probe -o ConnectTimeout=2 h3 2>/dev/null || fail "h3 answers with sshd stopped"
lab_start_sshd h3 || fail "lab_start_sshd h3"
probe h3 || fail "h3 after restart (same host keys)"

note "sessions: --all ends them; a plain stop leaves them to lab_down"
# session: starts `sleep 30` on h3 in the background; sets bg and remote.
session() {
	rm -f "$LAB/h3/wd/sleep.pid"
	s h3 'echo $$ >'"$LAB/h3/wd/sleep.pid"'; exec sleep 30' 2>/dev/null &
	bg=$!
	waitfor 100 test -s "$LAB/h3/wd/sleep.pid" || fail "no session on h3"
	remote=$(cat "$LAB/h3/wd/sleep.pid")
}
session
lab_stop_sshd h3 --all
waitfor 50 gone "$remote" || fail "remote command survived lab_stop_sshd --all"
waitfor 50 gone "$bg" || fail "client survived lab_stop_sshd --all"
wait "$bg" 2>/dev/null || true
lab_start_sshd h3 || fail "lab_start_sshd h3 (2)"
session
lab_stop_sshd h3
sleep 0.3
kill -0 "$bg" 2>/dev/null || fail "session ended by a plain lab_stop_sshd"
kill -0 "$remote" 2>/dev/null || fail "remote command ended by a plain lab_stop_sshd"

note "lab_down"
sshds=$(pgrep -f "$LAB/" || true)
[ -n "$sshds" ] || fail "no lab processes before lab_down?"
lab_down
for p in $sshds $remote; do gone "$p" || fail "process $p survived lab_down"; done
waitfor 50 gone "$bg" || fail "client of the orphaned session still runs"
wait "$bg" 2>/dev/null || true
[ ! -e "$lab" ] || fail "$lab still exists"
[ -z "$(pgrep -f "$lab" || true)" ] || fail "processes left: $(pgrep -af "$lab")"
! ip netns list 2>/dev/null | grep -q "orchlab-$id-" || fail "namespaces left: $(ip netns list)"
! ip link 2>/dev/null | grep -q "orch$id" || fail "veths left"
lab_down || fail "second lab_down"

note "teardown without lab_down: exit status, EXIT trap, SIGTERM, SIGKILL"
cat >"$T/t.sh" <<EOF
set -euo pipefail
trap 'echo "own trap: \$?" >"$T/trap.out"' EXIT
. "$here/lab.sh"
lab_up 1 $mode
echo "\$LAB" >"$T/lab.path"
case \$1 in
exit) exit 3 ;;
false) false ;;
sleep) sleep 30 & echo \$! >"$T/sleep.pid"; wait \$! ;;
esac
EOF
# check_gone: the lab named in lab.path is gone within ~5 s.
check_gone() {
	local l; l=$(cat "$T/lab.path")
	waitfor 50 test ! -e "$l" || fail "$1: $l not removed"
	[ -z "$(pgrep -f "$l" || true)" ] || fail "$1: processes left: $(pgrep -af "$l")"
	! ip netns list 2>/dev/null | grep -q "orchlab-${l##*.}-" || fail "$1: namespace left"
}
rc=0; bash "$T/t.sh" exit 2>/dev/null || rc=$?
[ "$rc" = 3 ] || fail "exit 3 became $rc"
[ "$(cat "$T/trap.out")" = "own trap: 3" ] || fail "caller's trap: $(cat "$T/trap.out")"
check_gone "exit 3"
rc=0; bash "$T/t.sh" false 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "set -e exit became $rc"
check_gone "set -e"
# Signalled, coreutils timeout sends SIGTERM to the test and then to its
# process group: the shell gets two, and may die inside its EXIT trap.
for sig in TERM KILL; do
	rm -f "$T/lab.path" "$T/sleep.pid"
	if [ $sig = TERM ]; then
		timeout 60 bash "$T/t.sh" sleep 2>/dev/null &
	else
		bash "$T/t.sh" sleep 2>/dev/null &
	fi
	bg=$!
	waitfor 100 test -s "$T/sleep.pid" || fail "SIG$sig case: lab_up"
	kill -$sig "$bg"
	wait "$bg" 2>/dev/null || true
	check_gone "SIG$sig"
	kill "$(cat "$T/sleep.pid")" 2>/dev/null || true
done

echo "PASS ($LAB_MODE mode; bring-up of 3 hosts $up_ms ms; total $(( ($(ms) - t_start) / 1000 )) s)"
