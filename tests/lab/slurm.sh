# slurm.sh — a private Slurm cluster on this machine for end-to-end tests:
# a munged of its own, a slurmctld here (SlurmctldHost = this machine's
# hostname) and N slurmd, each in the network namespace of a lab host of
# tests/lab/lab.sh (which also gives every node its sshd). Sourced by a
# test (bash), after tests/lab/lab.sh:
#
#   . tests/lab/lab.sh
#   . tests/lab/slurm.sh
#   slurm_up 3 || ...            # nodes n1..n3 = lab hosts h1..h3
#   salloc --no-shell -p epyc -N1 --exclusive   # SLURM_CONF is exported
#
# Needs root and network namespaces (lab.sh's netns mode). Partitions:
#   epyc    n1, n4, n5, ... (OverSubscribe=EXCLUSIVE; the default)
#   arm     n2 (OverSubscribe=EXCLUSIVE)
#   forced  n3 (OverSubscribe=FORCE:2: --exclusive is not honoured)
# While $SLURM_DIR/refuse-het exists, the cluster refuses heterogeneous
# jobs (a job_submit.lua beside slurm.conf), as some sites' do.
# Every node's slurmd is started with `nsenter --net=` into its host's
# namespace and `unshare -u` for its hostname nK (`ip netns exec` would
# remount /sys, and slurmd then fails on /sys/fs/cgroup);
# ProctrackType=proctrack/linuxproc and TaskPlugin=task/none: no cgroups.
# The node's address is its lab host's (lab_addr hK); each namespace gets
# a default route out of its veth so that its slurmd reaches slurmctld.
#
# Shell options and errors as lab.sh: functions, no `set` change, "slurm:
# ..." on stderr and non-zero on failure, never an exit.
#
# Teardown: slurm_up puts slurm_down before lab_down in the EXIT trap;
# slurm_down stops every daemon it started (TERM, then KILL) and is
# idempotent. Every daemon's command line names a path under $LAB/, so
# lab_down (and lab.sh's reaper, when the test's shell is SIGKILLed) kill
# whatever is left.
#
# A login host (slurm_login_up): one more sshd, on 127.0.0.1 in this
# namespace, whose sessions get SLURM_CONF from its sshd_config (SetEnv),
# its host key appended to $LAB_KNOWN_HOSTS, lab.sh's keys authorized; a
# [slurm.NAME] with login = that host runs Slurm's commands there even
# when orch's own environment has no SLURM_CONF.
#
# Set by slurm_up (exported): SLURM_CONF SLURM_DIR SLURM_N, and
#   SLURM_UP_MS (milliseconds from the first daemon started to every node
#   idle) and SLURM_SSH_MS (the lab's sshd bring-up, in milliseconds).
# Set by slurm_login_up (exported): SLURM_LOGIN_ADDR SLURM_LOGIN_PORT.
# Functions: slurm_up slurm_down slurm_skip_reason slurm_node_state
#   slurm_daemons slurm_logs slurm_login_up slurm_adopt.
# Knobs: SLURM_READY_SECS (default 30: the bound on each wait).

# slurm_skip_reason: prints why this machine cannot run the cluster (not
# root, no network or UTS namespaces) and returns 0, or returns 1 (prints
# nothing) when it can. A missing package is no reason: slurm_up fails.
slurm_skip_reason() {
	local c
	if [ "$(id -u)" -ne 0 ]; then
		echo "needs root (network namespaces, slurmd)"
		return 0
	fi
	if ! ip netns list >/dev/null 2>&1; then
		echo "network namespaces do not work here ('ip netns list' fails)"
		return 0
	fi
	if ! unshare -u true 2>/dev/null; then
		echo "no UTS namespace here ('unshare -u' fails)"
		return 0
	fi
	return 1
}

# slurm_up N: brings up the lab (N >= 3 hosts) and the cluster on it;
# returns 0 when every node is idle, else tears down and returns 1.
slurm_up() {
	local -; set +e
	local n=${1:-} i t0 t1 ctl c
	case $n in
	''|*[!0-9]*) echo "slurm: usage: slurm_up N (N >= 3)" >&2; return 1 ;;
	esac
	if [ "$n" -lt 3 ] || [ "$n" -gt 20 ]; then
		echo "slurm: slurm_up: N must be 3..20" >&2
		return 1
	fi
	for c in munged slurmctld slurmd salloc squeue sinfo scontrol scancel \
	    nsenter unshare ip ss; do
		if ! command -v "$c" >/dev/null 2>&1; then
			echo "slurm: $c not found (packages munge, slurmctld," \
			    "slurmd, slurm-client, util-linux, iproute2:" \
			    "make deps-test)" >&2
			return 1
		fi
	done
	if ! declare -F lab_up >/dev/null; then
		echo "slurm: source tests/lab/lab.sh first" >&2
		return 1
	fi
	t0=$(_slurm_ms)
	lab_up "$n" --netns || return 1
	t1=$(_slurm_ms)
	SLURM_SSH_MS=$((t1 - t0))
	SLURM_N=$n
	SLURM_DIR=$LAB/slurm
	SLURM_CONF=$SLURM_DIR/slurm.conf
	export SLURM_CONF SLURM_DIR SLURM_N SLURM_SSH_MS
	_SLURM_UP=1
	_slurm_install_trap
	mkdir -p "$SLURM_DIR/munge" "$SLURM_DIR/state" || { slurm_down; return 1; }
	chmod 0700 "$SLURM_DIR/munge"
	for ((i = 1; i <= n; i++)); do
		mkdir -p "$SLURM_DIR/n$i" || { slurm_down; return 1; }
		# Out of the veth: slurmctld listens on this machine's side.
		ip -n "$(lab_ns "h$i")" route add default dev "${_LAB_VN[i]}" \
		    2>/dev/null
	done
	ctl=${_LAB_PEER[1]}
	_slurm_write_conf "$n" "$ctl" || { slurm_down; return 1; }
	t0=$(_slurm_ms)
	_slurm_start_munged || { slurm_down; return 1; }
	_slurm_start_ctld || { slurm_down; return 1; }
	for ((i = 1; i <= n; i++)); do
		_slurm_start_slurmd "$i" || { slurm_down; return 1; }
	done
	_slurm_wait_idle || { slurm_down; return 1; }
	SLURM_UP_MS=$(($(_slurm_ms) - t0))
	export SLURM_UP_MS
	return 0
}

# slurm_login_up: starts the login host's sshd (after slurm_up); returns 0
# once a session there reaches the cluster, else 1. Its command line names
# $SLURM_DIR/, so slurm_down stops it with the daemons.
slurm_login_up() {
	local -; set +e
	local d=$SLURM_DIR/login port try end
	[ -n "${_SLURM_UP:-}" ] || { echo "slurm: slurm_up first" >&2; return 1; }
	mkdir -p "$d" || return 1
	if ! ssh-keygen -q -t ed25519 -N '' -C login -f "$d/ssh_host_ed25519_key" \
	    </dev/null >/dev/null 2>&1; then
		echo "slurm: ssh-keygen for the login host failed" >&2
		return 1
	fi
	for ((try = 0; try < 10; try++)); do
		port=$(_slurm_free_port) || return 1
		cat >"$d/sshd_config" <<EOF
# orch lab Slurm login host, written by tests/lab/slurm.sh
ListenAddress 127.0.0.1
Port $port
HostKey $d/ssh_host_ed25519_key
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
MaxStartups 100
PrintMotd no
SetEnv SLURM_CONF=$SLURM_CONF
Subsystem sftp internal-sftp
EOF
		"$LAB_SSHD" -f "$d/sshd_config" -E "$d/sshd.log" && break
		port=
	done
	if [ -z "$port" ]; then
		echo "slurm: the login host's sshd did not start" >&2
		cat "$d/sshd.log" >&2
		return 1
	fi
	set -- $(cat "$d/ssh_host_ed25519_key.pub")
	echo "[127.0.0.1]:$port $1 $2" >>"$LAB_KNOWN_HOSTS" || return 1
	SLURM_LOGIN_ADDR=127.0.0.1
	SLURM_LOGIN_PORT=$port
	export SLURM_LOGIN_ADDR SLURM_LOGIN_PORT
	end=$(( $(_slurm_ms) + ${SLURM_READY_SECS:-30} * 1000 ))
	# Ready when a session there, without our SLURM_CONF, sees the cluster.
	while ! env -u SLURM_CONF timeout 10 ssh -F "$LAB_SSH_CONFIG" \
	    -p "$port" 127.0.0.1 'timeout 5 scontrol ping' \
	    </dev/null >/dev/null 2>&1; do
		if [ "$(_slurm_ms)" -ge "$end" ]; then
			echo "slurm: the login host never reached the cluster" >&2
			cat "$d/sshd.log" >&2
			return 1
		fi
		sleep 0.1
	done
	return 0
}

# slurm_adopt K MODE [hold]: node nK's sshd (lab host hK's) as a site
# sets it: MODE adopt lets the lab's keys in only for a user who holds a
# running job on nK (pam_slurm_adopt's rule), through an
# AuthorizedKeysCommand that asks squeue; never lets no one in (a site
# that forbids SSH to compute nodes); off is the lab's sshd again. With
# hold, the command, once asked, writes its pid to $SLURM_ADOPT_HELD and
# waits (at most 60 s) until that pid is killed, holding the client in
# its authentication. The command is a script in a directory of its own
# under /run (sshd wants it and every directory above it root-owned and
# not group or world writable, which rules out $LAB under /tmp);
# slurm_down removes it. Returns 0 once the new sshd answers, else 1.
slurm_adopt() {
	local -; set +e
	local k=${1:-} mode=${2:-} hold=${3:-} d cmd end out
	case $k in ''|*[!0-9]*) k= ;; esac
	case $mode:$hold in adopt:|never:|off:|adopt:hold|never:hold) ;; *) k= ;; esac
	if [ -z "$k" ] || [ "$k" -lt 1 ] || [ "$k" -gt "${SLURM_N:-0}" ]; then
		echo "slurm: usage: slurm_adopt K adopt|never|off [hold]" >&2
		return 1
	fi
	d=$LAB/h$k
	_lab_kill_sshd "$k" listener
	if [ "$mode" = off ]; then
		rm -f "$d/sshd_config.extra"
		lab_start_sshd "h$k"
		return
	fi
	if [ -z "${_SLURM_AKC:-}" ]; then
		_SLURM_AKC=$(mktemp -d /run/orch-akc.XXXXXX) || return 1
	fi
	cmd=$_SLURM_AKC/n$k
	SLURM_ADOPT_HELD=$_SLURM_AKC/n$k.held
	rm -f "$SLURM_ADOPT_HELD"
	{
		echo '#!/bin/sh'
		echo "# AuthorizedKeysCommand of n$k (tests/lab/slurm.sh): $mode $hold"
		echo 'PATH=/usr/sbin:/usr/bin:/sbin:/bin'
		printf "export SLURM_CONF='%s'\n" "$SLURM_CONF"
		# exec: the pid told is the one holding sshd's pipe.
		[ -z "$hold" ] ||
		    printf "echo \$\$ >'%s.tmp' && mv '%s.tmp' '%s' && exec sleep 60\n" \
		    "$SLURM_ADOPT_HELD" "$SLURM_ADOPT_HELD" "$SLURM_ADOPT_HELD"
		if [ "$mode" = adopt ]; then
			printf 'timeout 5 squeue -h -w n%s -u "$1" -t running ' "$k"
			printf -- "-o %%i 2>/dev/null | grep -q . && cat '%s'\n" \
			    "$LAB/authorized_keys"
		fi
		echo 'exit 0'
	} >"$cmd" || return 1
	chmod 0755 "$cmd" || return 1
	printf 'Match all\n\tAuthorizedKeysFile none\n\tAuthorizedKeysCommand %s %%u\n\tAuthorizedKeysCommandUser root\n' \
	    "$cmd" >"$d/sshd_config.extra" || return 1
	_lab_spawn_sshd "$k" || return 1
	end=$(( $(_slurm_ms) + ${SLURM_READY_SECS:-30} * 1000 ))
	# Up when it answers; a method it does not offer asks it no key.
	while :; do
		out=$(timeout 20 ssh -F "$LAB_SSH_CONFIG" -o BatchMode=yes \
		    -o PreferredAuthentications=keyboard-interactive \
		    -o ConnectTimeout=10 "h$k" true </dev/null 2>&1)
		case $out in *'Permission denied'*) return 0 ;; esac
		if [ "$(_slurm_ms)" -ge "$end" ]; then
			echo "slurm: n$k's sshd ($mode) never answered: $out" >&2
			lab_logs "h$k" >&2
			return 1
		fi
		sleep 0.1
	done
}

# slurm_down: stops the slurmds, slurmctld and munged (TERM, at most ~2 s,
# then KILL); the lab itself goes with lab_down. Safe to call again.
slurm_down() {
	local -; set +e
	# slurm_adopt's commands (lab_down does not know of them).
	if [ -n "${_SLURM_AKC:-}" ]; then
		rm -rf "$_SLURM_AKC"
		_SLURM_AKC=
	fi
	[ -n "${_SLURM_UP:-}" ] || return 0
	local pids
	pids=$(slurm_daemons)
	if [ -n "$pids" ]; then
		kill -TERM $pids 2>/dev/null
		_lab_wait_gone 20 $pids || {
			kill -KILL $pids 2>/dev/null
			_lab_wait_gone 20 $pids
		}
	fi
	_SLURM_UP=
	return 0
}

# slurm_daemons: prints the pids of the cluster's live daemons (munged,
# slurmctld, every slurmd and what they forked), one a line.
slurm_daemons() {
	[ -n "${SLURM_DIR:-}" ] || return 0
	pgrep -f "$SLURM_DIR/" | grep -vx -e "$$" -e "$BASHPID"
	return 0
}

# slurm_node_state nK: prints the node's state as scontrol says it
# (IDLE, ALLOCATED, MIXED, ...; flags after a '+').
slurm_node_state() {
	timeout 10 scontrol show node -o "$1" 2>/dev/null |
	    grep -o 'State=[^ ]*' | cut -d= -f2
}

# slurm_logs: prints the controller's and every node's log.
slurm_logs() {
	local f
	for f in "$SLURM_DIR"/munged.log "$SLURM_DIR"/slurmctld.log \
	    "$SLURM_DIR"/n*/slurmd.log; do
		echo "--- $f"
		tail -n 30 "$f" 2>/dev/null
	done
}

# --- internals ----------------------------------------------------------

# Milliseconds of the wall clock.
_slurm_ms() {
	echo $(( ${EPOCHREALTIME/./} / 1000 ))
}

# Puts slurm_down first in the EXIT trap (lab_up's stays after it).
_slurm_install_trap() {
	local cur
	cur=$(trap -p EXIT)
	case $cur in *slurm_down*) return 0 ;; esac
	cur=${cur#trap -- }
	cur=${cur% EXIT}
	eval "cur=$cur"
	trap -- "slurm_down && :
$cur" EXIT
}

# A TCP port in 20000-60000 that nothing listens on here.
_slurm_free_port() {
	local try p
	for ((try = 0; try < 100; try++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40001))
		if [ -z "$(ss -ltnH "sport = :$p" 2>/dev/null)" ]; then
			echo "$p"
			return 0
		fi
	done
	echo "slurm: no free port found in 20000-60000" >&2
	return 1
}

# slurm.conf for N nodes, the controller at address CTL.
_slurm_write_conf() {
	local n=$1 ctl=$2 d=$SLURM_DIR i port epyc=n1
	port=$(_slurm_free_port) || return 1
	for ((i = 4; i <= n; i++)); do epyc=$epyc,n$i; done
	cat >"$SLURM_CONF" <<EOF
# orch lab cluster, written by tests/lab/slurm.sh
ClusterName=orchlab
SlurmctldHost=$(hostname)($ctl)
SlurmctldPort=$port
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
ReturnToService=2
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/%n/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/%n/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
JobCompType=jobcomp/none
JobSubmitPlugins=lua
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
EOF
	for ((i = 1; i <= n; i++)); do
		echo "NodeName=n$i NodeAddr=$(lab_addr "h$i") NodeHostname=n$i" \
		    "CPUs=1 RealMemory=100 State=UNKNOWN" >>"$SLURM_CONF"
	done
	cat >>"$SLURM_CONF" <<EOF
PartitionName=epyc Nodes=$epyc OverSubscribe=EXCLUSIVE Default=YES MaxTime=INFINITE State=UP
PartitionName=arm Nodes=n2 OverSubscribe=EXCLUSIVE MaxTime=INFINITE State=UP
PartitionName=forced Nodes=n3 OverSubscribe=FORCE:2 MaxTime=INFINITE State=UP
EOF
	# Beside slurm.conf, where slurmctld looks for it: while the file
	# $d/refuse-het is there, a heterogeneous job (each of its components
	# comes through here) is refused as a cluster that takes none does.
	cat >"$d/job_submit.lua" <<EOF
-- orch lab cluster, written by tests/lab/slurm.sh
function slurm_job_submit(job_desc, part_list, submit_uid)
	local f = io.open("$d/refuse-het", "r")
	if f == nil then
		return slurm.SUCCESS
	end
	f:close()
	if job_desc.het_job_offset ~= nil and
	    job_desc.het_job_offset ~= slurm.NO_VAL then
		slurm.log_user("Heterogeneous jobs are disabled on this cluster")
		return slurm.ERROR
	end
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end

return slurm.SUCCESS
EOF
}

# Polls (0.05 s steps, at most SLURM_READY_SECS) until CMD... succeeds.
_slurm_wait() {
	local what=$1 end secs=${SLURM_READY_SECS:-30}
	shift
	end=$(( $(_slurm_ms) + secs * 1000 ))
	while ! "$@" >/dev/null 2>&1; do
		if [ "$(_slurm_ms)" -ge "$end" ]; then
			echo "slurm: gave up after $secs s waiting for $what" >&2
			slurm_logs >&2
			return 1
		fi
		sleep 0.05
	done
}

# The private munged: its own key, socket, pid, log and seed under $SLURM_DIR.
_slurm_start_munged() {
	local m=$SLURM_DIR/munge
	if ! dd if=/dev/urandom of="$m/munge.key" bs=1024 count=1 \
	    status=none 2>/dev/null; then
		echo "slurm: writing the munge key failed" >&2
		return 1
	fi
	chmod 0400 "$m/munge.key"
	if ! timeout 10 munged --force --key-file="$m/munge.key" \
	    --socket="$m/munge.socket" --pid-file="$m/munged.pid" \
	    --log-file="$SLURM_DIR/munged.log" --seed-file="$m/munged.seed" \
	    </dev/null >/dev/null 2>&1; then
		echo "slurm: munged did not start" >&2
		slurm_logs >&2
		return 1
	fi
	_slurm_wait "munged's socket" test -S "$m/munge.socket"
}

# slurmctld in the foreground (-D), in a session of its own.
_slurm_start_ctld() {
	setsid slurmctld -D -i -f "$SLURM_CONF" </dev/null \
	    >"$SLURM_DIR/slurmctld.out" 2>&1 &
	_slurm_wait "slurmctld" timeout 5 scontrol ping
}

# Node K's slurmd: hostname nK (unshare -u), in h K's network namespace.
_slurm_start_slurmd() {
	local i=$1 ns
	ns=$(lab_ns "h$i") || return 1
	setsid nsenter --net="/run/netns/$ns" unshare -u \
	    sh -c 'hostname "$1" && exec slurmd -D -N "$1" -f "$2"' \
	    slurmd "n$i" "$SLURM_CONF" </dev/null \
	    >"$SLURM_DIR/n$i/slurmd.out" 2>&1 &
}

# True when every node is idle.
_slurm_all_idle() {
	local out
	out=$(timeout 5 sinfo -h -N -o '%N %t' 2>/dev/null) || return 1
	[ "$(printf '%s\n' "$out" | awk '$2 == "idle"' | sort -u | wc -l)" \
	    -eq "$SLURM_N" ]
}

_slurm_wait_idle() {
	_slurm_wait "every node idle" _slurm_all_idle
}
