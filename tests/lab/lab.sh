# lab.sh — N real OpenSSH hosts on this machine for end-to-end tests.
# Sourced by a test (bash); `bash tests/lab/lab.sh down DIR` cleans up a lab
# whose test was killed with SIGKILL.
#
#   . tests/lab/lab.sh
#   lab_up 3                      # or: lab_up 3 --netns | --loopback
#   ssh -F "$LAB/ssh_config" h1 true
#   orch check --inventory="$LAB/inventory.ini" --hosts=lab
#
# Shell options: sourcing defines functions and nothing else; the functions
# change no `set` option of the caller (each one scopes its own with `local -`)
# and work with or without `set -euo pipefail`. They return non-zero and print
# "lab: ..." on stderr on failure; they never exit the caller's shell.
#
# Teardown: lab_up appends lab_down to the caller's EXIT trap as it stands at
# the time of the call (your earlier `trap cleanup EXIT` keeps running, after
# lab_down, and still sees the test's exit status in $?). A trap you set AFTER
# lab_up replaces ours: then call lab_down from it. lab_down is idempotent.
# bash runs the EXIT trap on SIGTERM and SIGINT too, but a second signal can
# kill it halfway (coreutils `timeout` signals the shell twice), and SIGKILL
# skips it: so lab_up also starts a reaper, a detached process that runs
# lab_down once the shell that called lab_up is gone, and exits as soon as
# lab_down has run. By hand: `bash tests/lab/lab.sh down /tmp/orch-lab.XXXXXX`.
# LAB_KEEP=1 keeps the directory (logs, keys) for debugging.
#
# Modes (see README.md for the address plan):
#   netns     (default when root and `ip netns` works): host hN is network
#             namespace orchlab-<id>-hN joined to this one by a veth pair,
#             169.254.213.(2k-1) here and 169.254.213.(2k) inside (k = N
#             unless another lab holds those addresses); sshd on port 22.
#   loopback  (otherwise): every sshd on 127.0.0.1, on a random free port in
#             20000-60000.
#
# Set by lab_up (exported):
#   LAB LAB_MODE (netns|loopback) LAB_N LAB_USER LAB_INVENTORY LAB_SSH_CONFIG
#   LAB_KNOWN_HOSTS LAB_KEY (ed25519, authorized) LAB_KEY_ECDSA (authorized)
#   LAB_KEY_OTHER (ed25519, NOT authorized: for refusal tests)
# Functions: lab_up lab_down lab_hosts lab_addr lab_port lab_ns lab_pid
#   lab_ssh lab_link_down lab_link_up lab_stop_sshd lab_start_sshd
#   lab_known_hosts_hashed lab_inventory_set lab_logs lab_add_behind lab_home
#   (each documented below).
# Knobs: LAB_KEEP=1, LAB_READY_SECS (default 60), LAB_SSHD (default
#   /usr/sbin/sshd).

LAB_SSHD=${LAB_SSHD:-/usr/sbin/sshd}
_LAB_ADDR_PREFIX=169.254.213

# lab_up N [--netns|--loopback]: brings up hosts h1..hN; returns 0 when every
# sshd accepts our key, else tears down what it made and returns 1.
lab_up() {
	local -; set +e
	local n=${1:-} mode=${2:-} i
	if [ -n "${_LAB_UP:-}" ]; then
		echo "lab: lab_up: a lab is already up ($LAB); call lab_down first" >&2
		return 1
	fi
	case $n in
	''|*[!0-9]*) echo "lab: usage: lab_up N [--netns|--loopback]" >&2; return 1 ;;
	esac
	if [ "$n" -lt 1 ] || [ "$n" -gt 100 ]; then
		echo "lab: lab_up: N must be 1..100" >&2
		return 1
	fi
	case $mode in
	'') if _lab_netns_works; then mode=netns; else mode=loopback; fi ;;
	--netns) mode=netns
		if ! _lab_netns_works; then
			echo "lab: --netns needs root and a working 'ip netns' (package iproute2)" >&2
			return 1
		fi ;;
	--loopback) mode=loopback ;;
	*) echo "lab: usage: lab_up N [--netns|--loopback]" >&2; return 1 ;;
	esac
	if [ ! -x "$LAB_SSHD" ]; then
		echo "lab: $LAB_SSHD not found: install the openssh-server package" >&2
		return 1
	fi
	local tool
	for tool in ssh ssh-keygen ss pgrep setsid timeout flock; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "lab: '$tool' not found (packages openssh-client, iproute2," \
			    "procps, util-linux, coreutils)" >&2
			return 1
		fi
	done
	if [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ]; then
		# sshd's privilege separation directory; Debian's unit makes it.
		mkdir -m 0755 /run/sshd || return 1
	fi

	LAB=$(mktemp -d /tmp/orch-lab.XXXXXX) || return 1
	_LAB_UP=1
	_LAB_ID=${LAB##*.}
	LAB_MODE=$mode
	LAB_N=$n
	LAB_USER=$(id -un)
	LAB_INVENTORY=$LAB/inventory.ini
	LAB_SSH_CONFIG=$LAB/ssh_config
	LAB_KNOWN_HOSTS=$LAB/known_hosts
	LAB_KEY=$LAB/id_ed25519
	LAB_KEY_ECDSA=$LAB/id_ecdsa
	LAB_KEY_OTHER=$LAB/id_other
	export LAB LAB_MODE LAB_N LAB_USER LAB_INVENTORY LAB_SSH_CONFIG \
	    LAB_KNOWN_HOSTS LAB_KEY LAB_KEY_ECDSA LAB_KEY_OTHER
	_LAB_ADDR=() _LAB_PORT=() _LAB_NS=() _LAB_VH=() _LAB_VN=() _LAB_PEER=()
	_LAB_ORPHANS=() _LAB_REAPER=
	_lab_install_trap
	_lab_save
	_lab_start_reaper

	if ! _lab_make_keys "$n"; then
		_lab_fail_up
		return 1
	fi
	if [ "$mode" = netns ]; then
		if ! _lab_make_netns "$n"; then
			_lab_fail_up
			return 1
		fi
	fi
	for ((i = 1; i <= n; i++)); do
		mkdir -p "$LAB/h$i/wd" || { _lab_fail_up; return 1; }
		if ! _lab_spawn_sshd "$i"; then
			_lab_fail_up
			return 1
		fi
	done
	_lab_write_client_files || { _lab_fail_up; return 1; }
	for ((i = 1; i <= n; i++)); do
		if ! _lab_wait_ready "$i"; then
			_lab_fail_up
			return 1
		fi
	done
	return 0
}

# lab_down: stops every process of the lab — each sshd with its sessions and
# what they run, every process in its namespaces, and any process whose
# command line names a path under $LAB/ (agents, benchmarks, and clients
# such as `orch --inventory=$LAB/inventory.ini` too) — deletes its namespaces
# and veths and removes $LAB (kept when LAB_KEEP=1). $LAB stays set. Safe to
# call any number of times.
lab_down() {
	local -; set +e
	[ -n "${_LAB_UP:-}" ] || return 0
	local i pids p ns
	for ((i = 1; i <= ${LAB_N:-0}; i++)); do
		_lab_kill_sshd "$i" all
	done
	for p in "${_LAB_ORPHANS[@]}"; do
		_lab_kill_if_same "$p"
	done
	for ((i = 1; i <= ${LAB_N:-0}; i++)); do
		ns=${_LAB_NS[i]:-}
		[ -n "$ns" ] || continue
		if ip netns list 2>/dev/null | grep -q "^$ns\\b"; then
			pids=$(ip netns pids "$ns" 2>/dev/null)
			[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
			_lab_wait_gone 20 $pids
			ip netns del "$ns" 2>/dev/null
		fi
		# Deleting the namespace deletes its veth end and so the pair;
		# this catches a pair whose end never moved into the namespace.
		[ -z "${_LAB_VH[i]:-}" ] || ip link del "${_LAB_VH[i]}" 2>/dev/null
		[ -z "${_LAB_VN[i]:-}" ] || ip link del "${_LAB_VN[i]}" 2>/dev/null
	done
	# Backstop for programs started from the lab (agents, benchmarks) that
	# left their session: anything whose command line names a lab path.
	if [ -n "${LAB:-}" ]; then
		pids=$(pgrep -f "$LAB/" | grep -vx -e "$$" -e "$BASHPID")
		if [ -n "$pids" ]; then
			kill -KILL $pids 2>/dev/null
			_lab_wait_gone 20 $pids
		fi
		if [ "${LAB_KEEP:-0}" = 1 ]; then
			# Without lab.env, no reaper or `lab.sh down` acts again.
			mv -f "$LAB/lab.env" "$LAB/lab.env.down" 2>/dev/null
			echo "lab: LAB_KEEP=1: kept $LAB" >&2
		else
			rm -rf "$LAB"
		fi
	fi
	# The reaper goes last, so that it can finish a teardown that a second
	# signal cut short; it runs this itself when the shell died, so it must
	# not kill itself then.
	if [ -z "${_LAB_REAPING:-}" ] && [ -n "${_LAB_REAPER:-}" ]; then
		_lab_kill_if_same "$_LAB_REAPER"
	fi
	_LAB_UP='' _LAB_REAPER=''
	_LAB_NS=() _LAB_VH=() _LAB_VN=() _LAB_ORPHANS=()
	return 0
}

# lab_hosts: prints h1 .. hN, one a line.
lab_hosts() {
	local i
	for ((i = 1; i <= ${LAB_N:-0}; i++)); do echo "h$i"; done
}

# lab_addr hN: prints the address hN's sshd listens on.
lab_addr() {
	local i; i=$(_lab_index "${1:-}") || return 1
	echo "${_LAB_ADDR[i]}"
}

# lab_port hN: prints hN's sshd port (22 in netns mode).
lab_port() {
	local i; i=$(_lab_index "${1:-}") || return 1
	echo "${_LAB_PORT[i]}"
}

# lab_ns hN: prints hN's network namespace name (netns mode only).
lab_ns() {
	local i; i=$(_lab_index "${1:-}") || return 1
	if [ "$LAB_MODE" != netns ]; then
		echo "lab: lab_ns: $1 has no namespace in $LAB_MODE mode" >&2
		return 1
	fi
	echo "${_LAB_NS[i]}"
}

# lab_pid hN: prints the pid of hN's listening sshd; returns 1 when none runs.
lab_pid() {
	local -; set +e
	local i pid; i=$(_lab_index "${1:-}") || return 1
	pid=$(_lab_listener_pid "$i") || return 1
	echo "$pid"
}

# lab_ssh hN [ssh args / command...]: ssh to hN through $LAB/ssh_config.
lab_ssh() {
	ssh -F "$LAB_SSH_CONFIG" "$@"
}

# lab_link_down hN: sets hN's veth end down (netns mode): packets to and from
# hN are dropped silently, as when a cable is cut; connections stall.
lab_link_down() {
	_lab_link "${1:-}" down
}

# lab_link_up hN: sets hN's veth end up again and waits (at most ~5 s) for
# the carrier.
lab_link_up() {
	_lab_link "${1:-}" up
}

# lab_stop_sshd hN [--all]: stops hN's listening sshd, as `systemctl stop ssh`
# does: open sessions live on. With --all, its sessions (and what they run)
# are killed too.
lab_stop_sshd() {
	local -; set +e
	local i; i=$(_lab_index "${1:-}") || return 1
	case ${2:-} in
	'') _lab_kill_sshd "$i" listener ;;
	--all) _lab_kill_sshd "$i" all ;;
	*) echo "lab: usage: lab_stop_sshd hN [--all]" >&2; return 1 ;;
	esac
}

# lab_start_sshd hN: starts hN's sshd again (same address, port and host
# keys) and waits until it serves.
lab_start_sshd() {
	local -; set +e
	local i; i=$(_lab_index "${1:-}") || return 1
	if _lab_listener_pid "$i" >/dev/null; then
		echo "lab: lab_start_sshd: h$i's sshd is already running" >&2
		return 1
	fi
	_lab_spawn_sshd "$i" && _lab_wait_ready "$i"
}

# lab_known_hosts_hashed: writes $LAB/known_hosts.hashed, $LAB/known_hosts
# with every host name hashed (ssh-keygen -H).
lab_known_hosts_hashed() {
	local -; set +e
	[ -n "${_LAB_UP:-}" ] || { echo "lab: no lab is up" >&2; return 1; }
	cp "$LAB/known_hosts" "$LAB/known_hosts.hashed" &&
	    ssh-keygen -q -H -f "$LAB/known_hosts.hashed" >/dev/null 2>&1 &&
	    rm -f "$LAB/known_hosts.hashed.old" || {
		echo "lab: ssh-keygen -H failed" >&2
		return 1
	}
}

# lab_inventory_set hN KEY VALUE: sets KEY = VALUE in [host.hN] of
# $LAB/inventory.ini (e.g. transport direct, max_load 0.9, pin 0).
lab_inventory_set() {
	local -; set +e
	local i; i=$(_lab_index "${1:-}") || return 1
	if [ $# -ne 3 ]; then
		echo "lab: usage: lab_inventory_set hN KEY VALUE" >&2
		return 1
	fi
	awk -v sec="[host.h$i]" -v key="$2" -v val="$3" '
	function put() { printf "%-8s = %s\n", key, val; done = 1 }
	/^\[/ { if (in_sec && !done) put(); in_sec = ($0 == sec) }
	in_sec { split($0, kv, "="); k = kv[1]; gsub(/[ \t]/, "", k)
		if (k == key) { if (!done) put(); next } }
	{ print }
	END { if (in_sec && !done) put() }' "$LAB_INVENTORY" >"$LAB_INVENTORY.tmp" &&
	    mv -f "$LAB_INVENTORY.tmp" "$LAB_INVENTORY"
}

# lab_logs [hN...]: prints the sshd logs of the given hosts (default: all).
lab_logs() {
	local h
	[ $# -gt 0 ] || set -- $(lab_hosts)
	for h in "$@"; do
		echo "--- $h: $LAB/$h/sshd.log"
		cat "$LAB/$h/sshd.log" 2>/dev/null
	done
}

# lab_home hN: gives hN's sessions a home of their own, $LAB/hN/home ($HOME
# of its shells, and where its SFTP starts), so that `~/` paths on hN (the
# default workdir ~/.orch) stay inside the lab; restarts hN's sshd.
lab_home() {
	local -; set +e
	local i; i=$(_lab_index "${1:-}") || return 1
	mkdir -p "$LAB/h$i/home" || return 1
	echo "$LAB/h$i/home" >"$LAB/h$i/home.path" || return 1
	_lab_kill_sshd "$i" listener
	_lab_spawn_sshd "$i" && _lab_wait_ready "$i"
}

# lab_add_behind hK (netns mode): adds host h(N+1) (N becomes N+1), whose
# sshd listens on 169.254.214.(2i) in a namespace of its own joined by a
# veth pair to hK's namespace only: from here it is reachable only through
# hK (its sshd's direct-tcpip), never directly. Appends its host keys to
# known_hosts (and the hashed twin), `Host h(N+1)` with ProxyJump hK to
# ssh_config, and [host.h(N+1)] with jump = hK to the inventory; the group
# lab stays as it was. lab_link_down/up do not apply to it. Call it in the
# test's shell, not in $(...): the new host is h$LAB_N.
lab_add_behind() {
	local -; set +e
	local k i ns vh vn ha na t a b
	k=$(_lab_index "${1:-}") || return 1
	if [ "$LAB_MODE" != netns ]; then
		echo "lab: lab_add_behind needs netns mode (this lab is $LAB_MODE)" >&2
		return 1
	fi
	i=$((LAB_N + 1))
	if [ "$i" -gt 100 ]; then
		echo "lab: lab_add_behind: at most 100 hosts" >&2
		return 1
	fi
	# The pair lives in two namespaces of this lab: no other lab sees it.
	ha=169.254.214.$((2 * i - 1)) na=169.254.214.$((2 * i))
	ns=orchlab-$_LAB_ID-h$i vh=orch${_LAB_ID}h$i vn=orch${_LAB_ID}n$i
	LAB_N=$i
	_LAB_NS[i]=$ns _LAB_VH[i]=$vh _LAB_VN[i]=$vn
	_LAB_PEER[i]=$ha _LAB_ADDR[i]=$na _LAB_PORT[i]=22
	_lab_save
	mkdir -p "$LAB/h$i/wd" || return 1
	for t in ed25519 ecdsa; do
		if ! ssh-keygen -q -t "$t" -N '' -C "h$i" -f "$LAB/h$i/ssh_host_${t}_key" \
		    </dev/null >/dev/null 2>&1; then
			echo "lab: ssh-keygen -t $t for h$i failed" >&2
			return 1
		fi
	done
	if ! { ip netns add "$ns" &&
	    ip link add "$vh" type veth peer name "$vn" &&
	    ip link set "$vh" netns "${_LAB_NS[k]}" &&
	    ip link set "$vn" netns "$ns" &&
	    ip -n "${_LAB_NS[k]}" addr add "$ha/32" peer "$na/32" dev "$vh" &&
	    ip -n "${_LAB_NS[k]}" link set "$vh" up &&
	    ip -n "$ns" link set lo up &&
	    ip -n "$ns" addr add "$na/32" peer "$ha/32" dev "$vn" &&
	    ip -n "$ns" link set "$vn" up; }; then
		echo "lab: setting up namespace $ns for h$i behind h$k failed" >&2
		return 1
	fi
	for ((t = 0; t < 300; t++)); do
		a=$(ip -n "${_LAB_NS[k]}" -o link show "$vh" 2>/dev/null)
		b=$(ip -n "$ns" -o link show "$vn" 2>/dev/null)
		[[ $a == *"state UP"* && $b == *"state UP"* ]] && break
		sleep 0.1
	done
	_lab_spawn_sshd "$i" || return 1
	for t in ed25519 ecdsa; do
		set -- $(cat "$LAB/h$i/ssh_host_${t}_key.pub")
		echo "$na $1 $2" >>"$LAB/known_hosts"
	done
	lab_known_hosts_hashed || return 1
	printf 'Host h%s\n\tHostName %s\n\tPort 22\n\tProxyJump h%s\n' "$i" "$na" "$k" \
	    >>"$LAB/ssh_config" || return 1
	printf '[host.h%s]\naddress  = %s\nport     = 22\nuser     = %s\nidentity = %s\nworkdir  = %s\njump     = h%s\n' \
	    "$i" "$na" "$LAB_USER" "$LAB_KEY" "$LAB/h$i/wd" "$k" >>"$LAB/inventory.ini" || return 1
	_lab_wait_ready "$i"
}

# --- internals ----------------------------------------------------------

# True when we may create network namespaces and veths.
_lab_netns_works() {
	[ "$(id -u)" -eq 0 ] || return 1
	command -v ip >/dev/null 2>&1 || return 1
	ip netns list >/dev/null 2>&1
}

# Prints the index N of host name hN; fails on anything else.
_lab_index() {
	local h=$1 i
	if [ -z "${_LAB_UP:-}" ]; then
		echo "lab: no lab is up" >&2
		return 1
	fi
	i=${h#h}
	case $h:$i in
	h*:[1-9]|h*:[1-9][0-9]|h*:100) ;;
	*) echo "lab: '$h' is not a lab host (h1..h$LAB_N)" >&2; return 1 ;;
	esac
	if [ "$i" -gt "$LAB_N" ]; then
		echo "lab: '$h' is not a lab host (h1..h$LAB_N)" >&2
		return 1
	fi
	echo "$i"
}

# Makes lab_down run at exit, before whatever EXIT trap the caller had.
_lab_install_trap() {
	local cur
	cur=$(trap -p EXIT)
	case $cur in *_lab_on_exit*) return 0 ;; esac
	if [ -z "$cur" ]; then
		trap -- '_lab_on_exit' EXIT
		return 0
	fi
	# `trap -p` prints: trap -- 'CMD' EXIT, CMD quoted for reuse.
	cur=${cur#trap -- }
	cur=${cur% EXIT}
	eval "cur=$cur"
	# `&& :` keeps errexit from firing on the status we hand on in $?.
	trap -- "_lab_on_exit && :
$cur" EXIT
}

# The EXIT trap: tears down, then returns the status the shell exits with.
_lab_on_exit() {
	local rc=$?
	if [ "$rc" -ne 0 ] && [ -n "${_LAB_UP:-}" ] && [ "${LAB_KEEP:-0}" != 1 ]; then
		echo "lab: exit status $rc; rerun with LAB_KEEP=1 to keep $LAB (sshd logs)" >&2
	fi
	lab_down
	return "$rc"
}

# Records the lab's resources in $LAB/lab.env, for `lab.sh down DIR`.
_lab_save() {
	{
		declare -p LAB LAB_MODE LAB_N LAB_USER LAB_INVENTORY LAB_SSH_CONFIG \
		    LAB_KNOWN_HOSTS LAB_KEY LAB_KEY_ECDSA LAB_KEY_OTHER _LAB_ID \
		    _LAB_ADDR _LAB_PORT _LAB_NS _LAB_VH _LAB_VN _LAB_PEER _LAB_ORPHANS \
		    _LAB_REAPER
		echo "_LAB_UP=1"
	} >"$LAB/lab.env.tmp" 2>/dev/null && mv -f "$LAB/lab.env.tmp" "$LAB/lab.env"
}

# Tears down a half-made lab from lab_up.
_lab_fail_up() {
	lab_down
}

# Client keys, authorized_keys and every host's two host keys.
_lab_make_keys() {
	local n=$1 i k
	for k in "ed25519 $LAB_KEY" "ecdsa $LAB_KEY_ECDSA" "ed25519 $LAB_KEY_OTHER"; do
		set -- $k
		if ! ssh-keygen -q -t "$1" -N '' -C "orch-lab" -f "$2" </dev/null >/dev/null 2>&1; then
			echo "lab: ssh-keygen -t $1 -f $2 failed" >&2
			return 1
		fi
	done
	cat "$LAB_KEY.pub" "$LAB_KEY_ECDSA.pub" >"$LAB/authorized_keys" || return 1
	for ((i = 1; i <= n; i++)); do
		mkdir -p "$LAB/h$i" || return 1
		for k in ed25519 ecdsa; do
			if ! ssh-keygen -q -t "$k" -N '' -C "h$i" \
			    -f "$LAB/h$i/ssh_host_${k}_key" </dev/null >/dev/null 2>&1; then
				echo "lab: ssh-keygen -t $k for h$i failed" >&2
				return 1
			fi
		done
	done
}

# One namespace and veth pair per host, addresses from 169.254.213.0/24.
_lab_make_netns() {
	local n=$1 i k used fd lock r=1
	local ns vh vn ha na
	lock=/run/lock/orch-lab.lock
	[ -d /run/lock ] || lock=/tmp/orch-lab.lock
	# Concurrent labs must not pick the same pairs: choose and add under a lock.
	exec {fd}>>"$lock" || return 1
	if ! flock -w 10 "$fd"; then
		echo "lab: could not lock $lock within 10 s" >&2
		exec {fd}>&-
		return 1
	fi
	used=$(ip -o -4 addr show 2>/dev/null | grep -o "$_LAB_ADDR_PREFIX\\.[0-9]*" | sort -u)
	k=0
	for ((i = 1; i <= n; i++)); do
		# Prefer pair i (h1 gets .1/.2); skip pairs another lab holds.
		if [ "$k" -lt "$i" ]; then k=$((i - 1)); fi
		while :; do
			k=$((k + 1))
			if [ "$k" -gt 127 ]; then
				echo "lab: no free address pair left in $_LAB_ADDR_PREFIX.0/24" >&2
				break
			fi
			printf '%s\n' "$used" | grep -qx -e "$_LAB_ADDR_PREFIX\\.$((2 * k - 1))" \
			    -e "$_LAB_ADDR_PREFIX\\.$((2 * k))" || break
		done
		[ "$k" -le 127 ] || break
		ha=$_LAB_ADDR_PREFIX.$((2 * k - 1))
		na=$_LAB_ADDR_PREFIX.$((2 * k))
		ns=orchlab-$_LAB_ID-h$i
		vh=orch${_LAB_ID}h$i
		vn=orch${_LAB_ID}n$i
		_LAB_NS[i]=$ns _LAB_VH[i]=$vh _LAB_VN[i]=$vn
		_LAB_PEER[i]=$ha _LAB_ADDR[i]=$na _LAB_PORT[i]=22
		_lab_save
		if ! { ip netns add "$ns" &&
		    ip link add "$vh" type veth peer name "$vn" &&
		    ip link set "$vn" netns "$ns" &&
		    ip addr add "$ha/32" peer "$na/32" dev "$vh" &&
		    ip link set "$vh" up &&
		    ip -n "$ns" link set lo up &&
		    ip -n "$ns" addr add "$na/32" peer "$ha/32" dev "$vn" &&
		    ip -n "$ns" link set "$vn" up; }; then
			echo "lab: setting up namespace $ns for h$i failed" >&2
			break
		fi
		# A SYN sent before the carrier is up is lost and costs a 1 s
		# retransmit: wait for it here.
		_lab_wait_carrier "$i" || break
		[ "$i" -lt "$n" ] || r=0
	done
	exec {fd}>&-
	return $r
}

# Writes hN's sshd_config for its address and port.
_lab_write_sshd_config() {
	local i=$1 d=$LAB/h$1
	cat >"$d/sshd_config" <<EOF
# orch lab host h$i
ListenAddress ${_LAB_ADDR[i]}
Port ${_LAB_PORT[i]}
HostKey $d/ssh_host_ed25519_key
HostKey $d/ssh_host_ecdsa_key
PidFile $d/sshd.pid
LogLevel VERBOSE
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile $LAB/authorized_keys
StrictModes no
PermitRootLogin yes
PermitUserEnvironment no
AllowTcpForwarding yes
MaxStartups 100
PrintMotd no
EOF
	# A home of its own (lab_home): sessions and SFTP both start there.
	if [ -f "$d/home.path" ]; then
		printf 'SetEnv HOME=%s\nSubsystem sftp internal-sftp -d %s\n' \
		    "$(cat "$d/home.path")" "$(cat "$d/home.path")" >>"$d/sshd_config" || return 1
	else
		echo "Subsystem sftp internal-sftp" >>"$d/sshd_config" || return 1
	fi
	# Options a test adds (e.g. HostKeyAlgorithms), kept across restarts.
	if [ -f "$d/sshd_config.extra" ]; then
		cat "$d/sshd_config.extra" >>"$d/sshd_config" || return 1
	fi
}

# Starts hN's sshd (it daemonizes once it listens). In loopback mode a port
# is picked at random, and another one when the bind fails.
_lab_spawn_sshd() {
	local i=$1 d=$LAB/h$1 try p
	rm -f "$d/sshd.pid"
	if [ "$LAB_MODE" = netns ]; then
		_lab_write_sshd_config "$i" || return 1
		if ! ip netns exec "${_LAB_NS[i]}" "$LAB_SSHD" -f "$d/sshd_config" -E "$d/sshd.log"; then
			_lab_no_sshd "$i"
			return 1
		fi
		return 0
	fi
	_LAB_ADDR[i]=127.0.0.1
	for ((try = 0; try < 10; try++)); do
		p=${_LAB_PORT[i]:-}
		if [ -z "$p" ]; then
			p=$(_lab_free_port) || return 1
		fi
		_LAB_PORT[i]=$p
		_lab_save
		_lab_write_sshd_config "$i" || return 1
		if "$LAB_SSHD" -f "$d/sshd_config" -E "$d/sshd.log"; then
			return 0
		fi
		# Taken since we looked: try another port (only at first start,
		# since known_hosts and the inventory name the port).
		if [ -e "$d/sshd.pid" ] || [ -e "$LAB/ssh_config" ] ||
		    ! tail -n 5 "$d/sshd.log" 2>/dev/null | grep -q 'Cannot bind\|Address already in use'; then
			break
		fi
		_LAB_PORT[i]=
	done
	_lab_no_sshd "$i"
	return 1
}

# Prints a random TCP port in 20000-60000 that nothing listens on.
_lab_free_port() {
	local try p j taken
	for ((try = 0; try < 100; try++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40001))
		taken=
		for ((j = 1; j <= LAB_N; j++)); do
			[ "${_LAB_PORT[j]:-}" != "$p" ] || taken=1
		done
		[ -z "$taken" ] || continue
		if [ -z "$(ss -ltnH "sport = :$p" 2>/dev/null)" ]; then
			echo "$p"
			return 0
		fi
	done
	echo "lab: no free port found in 20000-60000" >&2
	return 1
}

# known_hosts, its hashed twin, ssh_config and inventory.ini.
_lab_write_client_files() {
	local i k spec
	: >"$LAB/known_hosts" || return 1
	for ((i = 1; i <= LAB_N; i++)); do
		spec=${_LAB_ADDR[i]}
		[ "${_LAB_PORT[i]}" = 22 ] || spec="[${_LAB_ADDR[i]}]:${_LAB_PORT[i]}"
		for k in ed25519 ecdsa; do
			set -- $(cat "$LAB/h$i/ssh_host_${k}_key.pub")
			echo "$spec $1 $2" >>"$LAB/known_hosts"
		done
	done
	lab_known_hosts_hashed || return 1

	{
		for ((i = 1; i <= LAB_N; i++)); do
			printf 'Host h%s\n\tHostName %s\n\tPort %s\n' \
			    "$i" "${_LAB_ADDR[i]}" "${_LAB_PORT[i]}"
		done
		cat <<EOF
Host *
	User $LAB_USER
	IdentityFile $LAB_KEY
	IdentitiesOnly yes
	UserKnownHostsFile $LAB/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	UpdateHostKeys no
	BatchMode yes
	ConnectTimeout 5
	ControlMaster no
	ControlPath none
	LogLevel ERROR
EOF
	} >"$LAB/ssh_config" || return 1

	{
		echo "; orch lab inventory ($LAB_MODE mode), written by tests/lab/lab.sh"
		for ((i = 1; i <= LAB_N; i++)); do
			cat <<EOF
[host.h$i]
address  = ${_LAB_ADDR[i]}
port     = ${_LAB_PORT[i]}
user     = $LAB_USER
identity = $LAB_KEY
workdir  = $LAB/h$i/wd
EOF
		done
		echo "[group.lab]"
		echo "hosts = $(lab_hosts | paste -sd, - | sed 's/,/, /g')"
	} >"$LAB/inventory.ini"
}

# Polls (for LAB_READY_SECS, default 60 s: generous, a busy machine is
# slow to start sshd, in 0.1 s steps) until hN's sshd
# lets our key in. The probe opens the sftp subsystem: it proves the
# listener, the host key and pubkey auth, and starts no login shell (whose
# rc files may be slow).
_lab_wait_ready() {
	local i=$1 end pid secs=${LAB_READY_SECS:-60}
	case $secs in ''|*[!0-9]*) secs=60 ;; esac
	end=$(( ${EPOCHREALTIME/./} / 1000 + secs * 1000 ))
	while :; do
		if pid=$(_lab_listener_pid "$i") &&
		    timeout 20 ssh -F "$LAB/ssh_config" -o ConnectTimeout=10 -s "h$i" sftp \
		    </dev/null >/dev/null 2>&1; then
			return 0
		fi
		[ $(( ${EPOCHREALTIME/./} / 1000 )) -lt "$end" ] || break
		sleep 0.1
	done
	_lab_no_sshd "$i"
	return 1
}

# Prints hN's sshd log and the verdict.
_lab_no_sshd() {
	lab_logs "h$1" >&2
	echo "lab: no sshd running for h$1" >&2
}

# Prints the pid of hN's listener when it runs, from its pidfile.
_lab_listener_pid() {
	local pid
	pid=$(cat "$LAB/h$1/sshd.pid" 2>/dev/null) || return 1
	case $pid in ''|*[!0-9]*) return 1 ;; esac
	# A stale pidfile may name a recycled pid: it must be our sshd.
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$LAB/h$1/sshd_config" || return 1
	echo "$pid"
}

# Prints every descendant of a pid.
_lab_descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		_lab_descendants "$c"
	done
}

# "pid:starttime", identifying a process across pid reuse.
_lab_ident() {
	local stat pid=$1
	read -r stat 2>/dev/null <"/proc/$pid/stat" || return 1
	stat=${stat##*) }
	set -- $stat
	echo "$pid:${20}"
}

# True while the pid names a live process (a zombie counts as gone: PID 1
# in a container may never reap it).
_lab_alive() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# Starts the reaper (see the top of this file), detached from the caller's
# jobs (a caller's bare `wait` must not wait for it) and from its process
# group and session (signals sent to the test's group must not reach it).
_lab_start_reaper() {
	local shell=$BASHPID me self
	# (Not $(_lab_ident "$BASHPID"): that would name the subshell.)
	me=$(_lab_ident "$shell") || return 0
	self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
	_LAB_REAPER=$( (setsid bash "$self" reap "$me" "$LAB" </dev/null >/dev/null 2>&1 &
	    echo $!) )
	# Recorded as pid:starttime; lab_down kills it only if it is still it.
	[ -z "$_LAB_REAPER" ] || _LAB_REAPER=$(_lab_ident "$_LAB_REAPER")
	_lab_save
}

# The reaper's body: waits while the shell WHO (pid:starttime) lives and the
# lab is up, then tears the lab down if it still is.
_lab_reap() {
	local who=$1 dir=$2
	trap '' INT TERM HUP
	while [ -f "$dir/lab.env" ] && [ "$(_lab_ident "${who%%:*}")" = "$who" ]; do
		sleep 0.25
	done
	[ -f "$dir/lab.env" ] || return 0
	. "$dir/lab.env"
	_LAB_REAPING=1
	lab_down
}

# Kills a process recorded by _lab_ident if it is still that process.
_lab_kill_if_same() {
	local pid=${1%%:*}
	[ "$(_lab_ident "$pid")" = "$1" ] || return 0
	kill -KILL "$pid" 2>/dev/null
	_lab_wait_gone 20 "$pid"
}

# Waits (at most ~STEPS/10 s) until none of the pids exists.
_lab_wait_gone() {
	local steps=$1 try p alive; shift
	for ((try = 0; try < steps; try++)); do
		alive=
		for p in "$@"; do
			_lab_alive "$p" && alive=1
		done
		[ -n "$alive" ] || return 0
		sleep 0.1
	done
	return 1
}

# Stops hN's listener ("listener") or it and all its sessions ("all").
_lab_kill_sshd() {
	local i=$1 what=$2 pid kids p
	pid=$(_lab_listener_pid "$i") || return 0
	kids=$(_lab_descendants "$pid")
	if [ "$what" = listener ]; then
		# Its sessions outlive it; remember them for lab_down.
		for p in $kids; do
			p=$(_lab_ident "$p") && _LAB_ORPHANS+=("$p")
		done
		kids=
		_lab_save
	fi
	kill -TERM "$pid" $kids 2>/dev/null
	if ! _lab_wait_gone 20 "$pid" $kids; then
		kill -KILL "$pid" $kids 2>/dev/null
		_lab_wait_gone 20 "$pid" $kids
	fi
	rm -f "$LAB/h$i/sshd.pid"
	return 0
}

# Sets hN's veth end in its namespace down or up.
_lab_link() {
	local -; set +e
	local i try; i=$(_lab_index "$1") || return 1
	if [ "$LAB_MODE" != netns ]; then
		echo "lab: lab_link_$2 needs netns mode (this lab is $LAB_MODE)" >&2
		return 1
	fi
	ip -n "${_LAB_NS[i]}" link set "${_LAB_VN[i]}" "$2" || return 1
	[ "$2" = up ] || return 0
	# Forget neighbours that failed to resolve while the link was down;
	# until they expire, connecting gives "No route to host".
	ip neigh flush dev "${_LAB_VH[i]}" 2>/dev/null
	ip -n "${_LAB_NS[i]}" neigh flush dev "${_LAB_VN[i]}" 2>/dev/null
	_lab_wait_carrier "$i"
}

# Waits (at most ~5 s) until both ends of hN's veth are operationally up.
_lab_wait_carrier() {
	local i=$1 try a b
	for ((try = 0; try < 300; try++)); do
		read -r a 2>/dev/null <"/sys/class/net/${_LAB_VH[i]}/operstate"
		b=$(ip -n "${_LAB_NS[i]}" -o link show "${_LAB_VN[i]}" 2>/dev/null)
		if [ "$a" = up ] && [[ $b == *"state UP"* ]]; then
			return 0
		fi
		sleep 0.1
	done
	echo "lab: h$i's link did not come up within 30 s" >&2
	return 1
}

# Run directly: `bash lab.sh down DIR` tears down a leaked lab.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-}:${2:-} in
	down:?*)
		if [ ! -f "$2/lab.env" ]; then
			echo "lab: $2/lab.env not found" >&2
			exit 1
		fi
		. "$2/lab.env"
		lab_down
		;;
	reap:*)
		_lab_reap "$2" "$3"
		;;
	*)
		echo "usage: bash lab.sh down /tmp/orch-lab.XXXXXX (or source it from a test)" >&2
		exit 2
		;;
	esac
fi
