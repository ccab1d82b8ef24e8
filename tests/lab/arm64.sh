# arm64.sh — an aarch64 host for the test lab (tests/lab/lab.sh): a real
# OpenSSH server whose every program — sshd, the shell, cc, make, the agent
# and the benchmarks — is an aarch64 binary of Debian 12, run by qemu-user
# through binfmt_misc, chrooted into a Debian arm64 root filesystem, in a
# network namespace of its own. `uname -m` there says aarch64, so
# `orch deploy` builds the agent from source on it: the path an M2 takes.
# Sourced by a test (bash) after lab.sh; see docs/architectures.md.
#
#   . tests/lab/lab.sh
#   . tests/lab/arm64.sh
#   arm64_ready --install || skip "$ARM64_WHY"    # root, packages, binfmt
#   lab_up 2 --netns                              # h1 h2: x86_64
#   lab_arm64_up a1                               # a1: aarch64
#   ssh -F "$LAB_SSH_CONFIG" a1 uname -m          # aarch64
#   orch deploy --inventory="$LAB_INVENTORY" --hosts=lab
#
#   bash tests/lab/arm64.sh rootfs      builds the cached root filesystem only
#   bash tests/lab/arm64.sh down DIR    tears down a leaked /tmp/orch-arm64.XXXXXX
#
# The root filesystem is built once per machine with mmdebstrap from the
# Debian archive apt uses here and cached in $ARM64_CACHE/arm64-<key>/root
# (key: a hash of the package list, suite and sources), ~550 MB, ~7 minutes
# cold. Each host runs on an overlay of it (writes go to its own upper
# directory), so the cache stays pristine and a warm start takes a second.
#
# lab_arm64_up adds the host to the lab's files: a `Host NAME` block in
# $LAB_SSH_CONFIG, its keys in $LAB_KNOWN_HOSTS, `[host.NAME]` in
# $LAB_INVENTORY, NAME appended to group `lab`, and group `arm64`. Login is
# root, with the lab's key; the agent's workdir is the default, ~/.orch
# (/root/.orch in the host's root filesystem).
#
# Isolation and teardown: the overlay, /proc, /sys and the fake
# /proc/cpuinfo are mounted in a private mount namespace (unshare) that
# only the host's processes share; the machine's own mount table never sees
# them, so nothing can be left mounted, and removing the state directory
# cannot reach into /proc or /dev. lab_arm64_down kills every process of
# the host's network namespace (sshd, sessions, agents, benchmarks — the
# mount namespace dies with the last of them), deletes the namespace and
# its veth and removes the state directory (kept with LAB_KEEP=1). It runs
# from the EXIT trap (installed like lab.sh's, ahead of it), and a reaper
# runs it if the shell dies by SIGKILL. Like lab.sh, the functions change
# no `set` option of the caller and return non-zero with "arm64: ..." on
# stderr; they never exit the caller's shell.
#
# Global changes to this machine, made by arm64_ready and kept: the Debian
# packages below are installed; binfmt_misc is mounted and qemu-aarch64
# enabled (update-binfmts), as qemu-user-static's own unit does at boot.

ARM64_SUITE=${ARM64_SUITE:-bookworm}
ARM64_CACHE=${ARM64_CACHE:-/var/cache/orch-lab}
ARM64_BUILD_TIMEOUT=${ARM64_BUILD_TIMEOUT:-1800}	# s for a cold rootfs build
ARM64_READY_TIMEOUT=${ARM64_READY_TIMEOUT:-60}	# s for an emulated sshd to serve
# In the host's root filesystem: an SSH server, a compiler and make, and
# the libraries the agent links (the Makefile's AGENT_PKGS).
ARM64_PKGS="openssh-server build-essential pkg-config libnanomsg-dev libmsgpack-dev libssl-dev"
# On this machine.
ARM64_HOST_DEBS="qemu-user-static binfmt-support mmdebstrap arch-test iproute2 openssh-client procps util-linux"

_ARM64_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$_ARM64_LIB/debian.sh"
if ! declare -F _lab_ident >/dev/null; then
	. "$_ARM64_LIB/lab.sh"
fi

# arm64_ready [--install]: checks (and with --install, as root, makes) what
# an aarch64 host needs: root, network namespaces, the packages, binfmt_misc
# with qemu-aarch64. Returns 0, or 1 with the reason in ARM64_WHY (also on
# stderr): the caller decides whether that is a skip.
arm64_ready() {
	local -; set +e
	local install=${1:-} p st missing=() flags
	ARM64_WHY=
	if [ "$(id -u)" -ne 0 ]; then
		ARM64_WHY="not root (an aarch64 lab host needs network namespaces, mounts and binfmt_misc)"
	elif ! command -v ip >/dev/null 2>&1 || ! ip netns list >/dev/null 2>&1; then
		ARM64_WHY="'ip netns' does not work here (package iproute2; a container without CAP_SYS_ADMIN?)"
	fi
	if [ -z "$ARM64_WHY" ]; then
		for p in $ARM64_HOST_DEBS; do
			st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
			case $st in *" installed") ;; *) missing+=("$p") ;; esac
		done
		if [ ${#missing[@]} -gt 0 ]; then
			if [ "$install" = --install ] && command -v apt-get >/dev/null 2>&1; then
				echo "arm64: installing ${missing[*]}" >&2
				if ! { DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -qq &&
				    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq \
				    --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1; then
					ARM64_WHY="cannot install ${missing[*]} (no network to Debian's archive?)"
				fi
			else
				ARM64_WHY="missing packages: ${missing[*]} (apt-get install ${missing[*]})"
			fi
		fi
	fi
	if [ -z "$ARM64_WHY" ] && [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
		if ! mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null; then
			ARM64_WHY="no binfmt_misc (cannot mount it: a kernel without CONFIG_BINFMT_MISC, or a container)"
		fi
	fi
	if [ -z "$ARM64_WHY" ] && ! grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
		# Registered but switched off (echo 0 > ...): switch it on;
		# not registered: have binfmt-support register it.
		if [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
			echo 1 >/proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null
		else
			update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 ||
			    update-binfmts --import qemu-aarch64 >/dev/null 2>&1
		fi
		if ! grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
			ARM64_WHY="binfmt_misc has no enabled qemu-aarch64 entry (update-binfmts --enable qemu-aarch64 failed: package qemu-user-static)"
		fi
	fi
	if [ -z "$ARM64_WHY" ]; then
		flags=$(sed -n 's/^flags: //p' /proc/sys/fs/binfmt_misc/qemu-aarch64)
		case $flags in
		*F*) ;;
		*) # Without F the kernel looks the interpreter up inside the
		   # chroot: lab_arm64_up copies it there.
		   echo "arm64: note: qemu-aarch64 is registered without the F flag" >&2 ;;
		esac
	fi
	if [ -n "$ARM64_WHY" ]; then
		echo "arm64: $ARM64_WHY" >&2
		return 1
	fi
	return 0
}

# arm64_rootfs: makes sure the cached root filesystem exists, building it
# when needed (under a lock: concurrent callers wait for one build). Sets
# ARM64_ROOTFS. Returns 0, or 1 with the reason on stderr (and ARM64_WHY).
arm64_rootfs() {
	local -; set +e
	local key dir fd lock r=1 t0 src old
	ARM64_WHY=
	src=$(debian_sources "$ARM64_SUITE") || {
		ARM64_WHY="cannot find the Debian archive in apt's sources (apt-get indextargets)"
		echo "arm64: $ARM64_WHY" >&2
		return 1
	}
	key=$(printf '%s\n' "v1 $ARM64_SUITE arm64 essential" "$ARM64_PKGS" "$src" |
	    sha256sum | cut -c1-12)
	dir=${ARM64_CACHE:?}/arm64-$key
	ARM64_ROOTFS=$dir/root
	[ -f "$dir/ok" ] && return 0
	mkdir -p "$ARM64_CACHE" || return 1
	lock=$ARM64_CACHE/arm64.lock
	exec {fd}>>"$lock" || return 1
	if ! flock -w "$ARM64_BUILD_TIMEOUT" "$fd"; then
		ARM64_WHY="another build of the arm64 root filesystem holds $lock"
		echo "arm64: $ARM64_WHY" >&2
		exec {fd}>&-
		return 1
	fi
	if [ -f "$dir/ok" ]; then
		exec {fd}>&-
		return 0
	fi
	t0=$SECONDS
	echo "arm64: building the Debian $ARM64_SUITE arm64 root filesystem in $dir" \
	    "(once per machine; a few minutes; log: $dir.log)" >&2
	rm -rf --one-file-system "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp" || { exec {fd}>&-; return 1; }
	# In a private mount and PID namespace: whatever mmdebstrap mounts in
	# the chroot dies with it, and the timeout ends every process of it.
	local -a mirrors=()
	mapfile -t mirrors <<<"$src"
	if timeout --kill-after=30 "$ARM64_BUILD_TIMEOUT" \
	    unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
	    mmdebstrap --arch=arm64 --variant=essential --mode=root \
	    --include="${ARM64_PKGS// /,}" \
	    --dpkgopt='path-exclude=/usr/share/man/*' \
	    --dpkgopt='path-exclude=/usr/share/doc/*' \
	    --dpkgopt='path-exclude=/usr/share/locale/*' \
	    --dpkgopt='path-exclude=/usr/share/info/*' \
	    "$ARM64_SUITE" "$dir.tmp/root" "${mirrors[@]}" >"$dir.log" 2>&1 </dev/null; then
		# Each lab host gets its own host keys; these would be shared.
		rm -f "$dir.tmp/root"/etc/ssh/ssh_host_*
		if [ "$(chroot "$dir.tmp/root" /bin/uname -m 2>/dev/null)" = aarch64 ]; then
			dpkg-query --admindir="$dir.tmp/root/var/lib/dpkg" -W \
			    >"$dir.tmp/packages.txt" 2>/dev/null
			cp "$dir.log" "$dir.tmp/build.log"
			echo "built in $((SECONDS - t0)) s on $(date -u +%FT%TZ)" >"$dir.tmp/ok" &&
			    mv "$dir.tmp" "$dir" && r=0
		else
			ARM64_WHY="the new root filesystem's /bin/uname does not run as aarch64 (binfmt_misc?)"
		fi
	else
		ARM64_WHY="mmdebstrap failed or timed out after $((SECONDS - t0)) s (no network to Debian's archive?); see $dir.log"
		tail -n 5 "$dir.log" >&2
	fi
	if [ "$r" -eq 0 ]; then
		echo "arm64: root filesystem ready in $((SECONDS - t0)) s" >&2
		# Caches of other package lists are stale now.
		for old in "$ARM64_CACHE"/arm64-*; do
			[ -d "$old" ] && [ "$old" != "$dir" ] || continue
			case $old in *.tmp) continue ;; esac
			rm -rf --one-file-system "$old" "$old.log"
		done
	else
		echo "arm64: $ARM64_WHY" >&2
		rm -rf --one-file-system "$dir.tmp"
	fi
	exec {fd}>&-
	return $r
}

# lab_arm64_up NAME: adds an aarch64 host NAME to the lab that is up (netns
# mode). Returns 0 once its sshd lets the lab's key in, else tears down
# that host and returns 1.
lab_arm64_up() {
	local -; set +e
	local name=${1:-} i n d
	case $name in
	[a-z]*) ;;
	*) echo "lab: usage: lab_arm64_up NAME (a host name such as a1)" >&2; return 1 ;;
	esac
	case $name in *[!a-z0-9-]*)
		echo "lab: lab_arm64_up: '$name': use letters, digits and '-'" >&2; return 1 ;;
	esac
	if [ -z "${_LAB_UP:-}" ] || [ "${LAB_MODE:-}" != netns ]; then
		echo "arm64: lab_arm64_up needs a lab up in netns mode (lab_up N --netns)" >&2
		return 1
	fi
	if grep -q "^\[host\.$name\]" "$LAB_INVENTORY" 2>/dev/null; then
		echo "arm64: host '$name' is already in $LAB_INVENTORY" >&2
		return 1
	fi
	arm64_rootfs || return 1
	if [ -z "${ARM64_DIR:-}" ]; then
		ARM64_DIR=$(mktemp -d /tmp/orch-arm64.XXXXXX) || return 1
		_ARM64_ID=${ARM64_DIR##*.}
		_ARM64_NAME=() _ARM64_NS=() _ARM64_VH=() _ARM64_ADDR=() _ARM64_REAPER=
		export ARM64_DIR
		_arm64_install_trap
		_arm64_save
		_arm64_start_reaper
	fi
	i=1
	for n in "${!_ARM64_NAME[@]}"; do i=$((n + 1)); done
	_ARM64_NAME[i]=$name
	d=$ARM64_DIR/$name
	mkdir -p "$d/upper" "$d/ovl" "$d/root" "$d/keys" || { _arm64_fail "$i"; return 1; }
	_arm64_save
	if ! _arm64_prepare "$i" || ! _arm64_netns "$i" || ! _arm64_spawn "$i" ||
	    ! _arm64_client_files "$i" || ! _arm64_wait_ready "$i"; then
		_arm64_fail "$i"
		return 1
	fi
	return 0
}

# lab_arm64_down: stops every aarch64 host, deletes their namespaces and
# veths, removes $ARM64_DIR (kept when LAB_KEEP=1). Idempotent.
lab_arm64_down() {
	local -; set +e
	[ -n "${ARM64_DIR:-}" ] || return 0
	local i
	for i in "${!_ARM64_NAME[@]}"; do
		_arm64_stop "$i"
	done
	_arm64_unmount_leftovers
	if [ "${LAB_KEEP:-0}" = 1 ]; then
		mv -f "$ARM64_DIR/arm64.env" "$ARM64_DIR/arm64.env.down" 2>/dev/null
		echo "arm64: LAB_KEEP=1: kept $ARM64_DIR" >&2
	elif [ -d "$ARM64_DIR" ]; then
		# --one-file-system: never into a mount, should one be left.
		rm -rf --one-file-system "${ARM64_DIR:?}"
	fi
	if [ -z "${_ARM64_REAPING:-}" ] && [ -n "${_ARM64_REAPER:-}" ]; then
		_lab_kill_if_same "$_ARM64_REAPER"
	fi
	ARM64_DIR= _ARM64_REAPER=
	_ARM64_NAME=() _ARM64_NS=() _ARM64_VH=() _ARM64_ADDR=()
	return 0
}

# lab_arm64_logs [NAME...]: prints the sshd logs of the aarch64 hosts.
lab_arm64_logs() {
	local n
	[ $# -gt 0 ] || set -- "${_ARM64_NAME[@]}"
	for n in "$@"; do
		echo "--- $n: $ARM64_DIR/$n/upper/var/log/orch-lab-sshd.log"
		cat "$ARM64_DIR/$n/upper/var/log/orch-lab-sshd.log" 2>/dev/null
	done
}

# lab_arm64_root NAME: prints the directory holding what NAME wrote to its
# root filesystem (the overlay's upper directory): /root/.orch is there.
lab_arm64_root() {
	echo "$ARM64_DIR/${1:-}/upper"
}

# --- internals ----------------------------------------------------------

# Writes host I's host keys, sshd_config, authorized_keys and /proc/cpuinfo.
_arm64_prepare() {
	local i=$1 name=${_ARM64_NAME[$1]} d=$ARM64_DIR/${_ARM64_NAME[$1]} k cpus c
	local etc=$d/upper/etc/ssh/orch-lab interp
	mkdir -p "$etc" "$d/upper/run/sshd" "$d/upper/var/log" || return 1
	chmod 0755 "$d/upper/run/sshd"
	for k in ed25519 ecdsa; do
		if ! ssh-keygen -q -t "$k" -N '' -C "$name" -f "$d/keys/ssh_host_${k}_key" \
		    </dev/null >/dev/null 2>&1; then
			echo "arm64: ssh-keygen -t $k for $name failed" >&2
			return 1
		fi
		cp "$d/keys/ssh_host_${k}_key" "$d/keys/ssh_host_${k}_key.pub" "$etc/" || return 1
	done
	cp "$LAB/authorized_keys" "$etc/authorized_keys" || return 1
	# The host's /proc/cpuinfo: what an arm64 kernel shows for QEMU's
	# "max" CPU (MIDR implementer 0x00, part 0x051), one entry per CPU;
	# else the agent would read this machine's x86 CPU through /proc.
	cpus=$(nproc)
	for ((c = 0; c < cpus; c++)); do
		printf 'processor\t: %d\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 asimddp sha512 asimdfhm dit uscat ilrcpc flagm sb\nCPU implementer\t: 0x00\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x051\nCPU revision\t: 0\n\n' "$c"
	done >"$d/cpuinfo" || return 1
	# A qemu-aarch64 entry without the F flag makes the kernel open the
	# interpreter by its path inside the chroot: put it there.
	if ! sed -n 's/^flags: //p' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null | grep -q F; then
		interp=$(sed -n 's/^interpreter //p' /proc/sys/fs/binfmt_misc/qemu-aarch64)
		if [ -n "$interp" ]; then
			mkdir -p "$d/upper$(dirname "$interp")" &&
			    cp -L "$interp" "$d/upper$interp" || return 1
		fi
	fi
	cat >"$etc/sshd_config" <<EOF
# orch lab host $name (aarch64, qemu-user), written by tests/lab/arm64.sh
ListenAddress @ADDR@
Port 22
HostKey /etc/ssh/orch-lab/ssh_host_ed25519_key
HostKey /etc/ssh/orch-lab/ssh_host_ecdsa_key
PidFile /run/orch-lab-sshd.pid
LogLevel VERBOSE
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile /etc/ssh/orch-lab/authorized_keys
StrictModes no
PermitRootLogin yes
PermitUserEnvironment no
AllowTcpForwarding yes
MaxStartups 100
PrintMotd no
Subsystem sftp internal-sftp
EOF
}

# Host I's namespace and veth pair, from lab.sh's address plan
# (169.254.213.0/24, pair k = .(2k-1) here, .(2k) inside), under its lock.
_arm64_netns() {
	local i=$1 k used fd lock r=1 ns vh vn ha na
	lock=/run/lock/orch-lab.lock
	[ -d /run/lock ] || lock=/tmp/orch-lab.lock
	exec {fd}>>"$lock" || return 1
	if ! flock -w 10 "$fd"; then
		echo "arm64: could not lock $lock within 10 s" >&2
		exec {fd}>&-
		return 1
	fi
	used=$(ip -o -4 addr show 2>/dev/null | grep -o "$_LAB_ADDR_PREFIX\\.[0-9]*" | sort -u)
	# After the lab's own hosts, skipping pairs that anyone holds.
	k=$((LAB_N + i - 1))
	while :; do
		k=$((k + 1))
		if [ "$k" -gt 127 ]; then
			echo "arm64: no free address pair left in $_LAB_ADDR_PREFIX.0/24" >&2
			exec {fd}>&-
			return 1
		fi
		printf '%s\n' "$used" | grep -qx -e "$_LAB_ADDR_PREFIX\\.$((2 * k - 1))" \
		    -e "$_LAB_ADDR_PREFIX\\.$((2 * k))" || break
	done
	ha=$_LAB_ADDR_PREFIX.$((2 * k - 1))
	na=$_LAB_ADDR_PREFIX.$((2 * k))
	ns=orcharm-$_ARM64_ID-$i
	vh=oa${_ARM64_ID}h$i
	vn=oa${_ARM64_ID}n$i
	_ARM64_NS[i]=$ns _ARM64_VH[i]=$vh _ARM64_ADDR[i]=$na
	_arm64_save
	if ip netns add "$ns" &&
	    ip link add "$vh" type veth peer name "$vn" &&
	    ip link set "$vn" netns "$ns" &&
	    ip addr add "$ha/32" peer "$na/32" dev "$vh" &&
	    ip link set "$vh" up &&
	    ip -n "$ns" link set lo up &&
	    ip -n "$ns" addr add "$na/32" peer "$ha/32" dev "$vn" &&
	    ip -n "$ns" link set "$vn" up; then
		r=0
	else
		echo "arm64: setting up namespace $ns for ${_ARM64_NAME[i]} failed" >&2
	fi
	exec {fd}>&-
	[ "$r" -eq 0 ] || return 1
	# A SYN sent before the carrier is up is lost and costs a 1 s retransmit.
	local try a b
	for ((try = 0; try < 50; try++)); do
		read -r a 2>/dev/null <"/sys/class/net/$vh/operstate"
		b=$(ip -n "$ns" -o link show "$vn" 2>/dev/null)
		if [ "$a" = up ] && [[ $b == *"state UP"* ]]; then
			return 0
		fi
		sleep 0.1
	done
	echo "arm64: ${_ARM64_NAME[i]}'s link did not come up within 5 s" >&2
	return 1
}

# Starts host I's sshd: in its network namespace, in a private mount
# namespace holding the overlay, /proc (with the aarch64 cpuinfo over it)
# and a read-only /sys, chrooted; it daemonizes once it listens.
_arm64_spawn() {
	local i=$1 d=$ARM64_DIR/${_ARM64_NAME[$1]} out
	sed -i "s/@ADDR@/${_ARM64_ADDR[i]}/" "$d/upper/etc/ssh/orch-lab/sshd_config" || return 1
	# The paths are ours (mktemp, the cache): no quoting surprises, but
	# they travel as arguments all the same, never inside the script.
	if ! out=$(timeout 60 ip netns exec "${_ARM64_NS[i]}" \
	    unshare --mount --propagation private -- /bin/sh -ec '
		lower=$1 d=$2 r=$2/root
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$d/upper,workdir=$d/ovl" "$r"
		mount -t proc proc "$r/proc"
		mount --bind "$d/cpuinfo" "$r/proc/cpuinfo"
		mount --bind /sys "$r/sys"
		mount -o remount,bind,ro "$r/sys"
		mount -t tmpfs -o mode=1777,size=256m tmpfs "$r/dev/shm"
		exec chroot "$r" /usr/sbin/sshd -f /etc/ssh/orch-lab/sshd_config \
		    -E /var/log/orch-lab-sshd.log
	    ' arm64-spawn "$ARM64_ROOTFS" "$d" 2>&1); then
		echo "arm64: starting ${_ARM64_NAME[i]}'s sshd failed: $out" >&2
		lab_arm64_logs "${_ARM64_NAME[i]}" >&2
		return 1
	fi
	return 0
}

# Adds host I to the lab's known_hosts, ssh_config and inventory.
_arm64_client_files() {
	local i=$1 name=${_ARM64_NAME[$1]} d=$ARM64_DIR/${_ARM64_NAME[$1]} k tmp
	for k in ed25519 ecdsa; do
		set -- $(cat "$d/keys/ssh_host_${k}_key.pub")
		echo "${_ARM64_ADDR[i]} $1 $2" >>"$LAB_KNOWN_HOSTS" || return 1
	done
	lab_known_hosts_hashed || return 1
	# First match wins in ssh_config: before the lab's `Host *`.
	tmp=$LAB_SSH_CONFIG.tmp
	{
		printf 'Host %s\n\tHostName %s\n\tPort 22\n\tConnectTimeout 15\n' \
		    "$name" "${_ARM64_ADDR[i]}"
		cat "$LAB_SSH_CONFIG"
	} >"$tmp" && mv -f "$tmp" "$LAB_SSH_CONFIG" || return 1
	tmp=$LAB_INVENTORY.tmp
	{
		# Append NAME to group lab; add it to group arm64.
		awk -v n="$name" '
			/^\[/ { sec = $0 }
			sec == "[group.lab]" && /^hosts *=/ { $0 = $0 ", " n }
			sec == "[group.arm64]" && /^hosts *=/ { $0 = $0 ", " n; seen = 1 }
			{ print }
			END { if (!seen) { print "[group.arm64]"; print "hosts = " n } }
		' "$LAB_INVENTORY"
		cat <<EOF
; $name: aarch64 under qemu-user (tests/lab/arm64.sh); workdir: the default
[host.$name]
address  = ${_ARM64_ADDR[i]}
port     = 22
user     = $LAB_USER
identity = $LAB_KEY
EOF
	} >"$tmp" && mv -f "$tmp" "$LAB_INVENTORY"
}

# Polls until host I's sshd lets the lab's key in (each login runs the
# emulated sshd: ~1 s).
_arm64_wait_ready() {
	local i=$1 name=${_ARM64_NAME[$1]} end
	end=$((SECONDS + ARM64_READY_TIMEOUT))
	while [ "$SECONDS" -lt "$end" ]; do
		if timeout 20 ssh -F "$LAB_SSH_CONFIG" -o ConnectTimeout=10 -s "$name" sftp \
		    </dev/null >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.5
	done
	lab_arm64_logs "$name" >&2
	echo "arm64: no sshd serving for $name within ${ARM64_READY_TIMEOUT} s" >&2
	return 1
}

# Stops host I: every process in its network namespace, then the
# namespace (and so its veth pair).
_arm64_stop() {
	local i=$1 ns=${_ARM64_NS[$1]:-} vh=${_ARM64_VH[$1]:-} pids
	if [ -n "$ns" ] && ip netns list 2>/dev/null | grep -q "^$ns\\b"; then
		pids=$(ip netns pids "$ns" 2>/dev/null)
		if [ -n "$pids" ]; then
			kill -KILL $pids 2>/dev/null
			_lab_wait_gone 50 $pids
		fi
		ip netns del "$ns" 2>/dev/null
	fi
	[ -z "$vh" ] || ip link del "$vh" 2>/dev/null
	_ARM64_NS[i]= _ARM64_VH[i]=
}

# Backstop: unmounts anything under $ARM64_DIR that reached this mount
# namespace (nothing should).
_arm64_unmount_leftovers() {
	local m
	[ -n "${ARM64_DIR:-}" ] || return 0
	for m in $(awk -v p="$ARM64_DIR/" 'index($5, p) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		echo "arm64: unmounting leftover $m" >&2
		umount -l "$m" 2>/dev/null
	done
}

# Tears down host I after a failed lab_arm64_up, keeping the others (and,
# with LAB_KEEP=1, its directory).
_arm64_fail() {
	local i=$1 name=${_ARM64_NAME[$1]}
	_arm64_stop "$i"
	unset "_ARM64_NAME[$i]"
	_arm64_save
	[ "${LAB_KEEP:-0}" = 1 ] || rm -rf --one-file-system "${ARM64_DIR:?}/${name:?}"
}

# Records the hosts' resources in $ARM64_DIR/arm64.env, for the reaper and
# `arm64.sh down DIR`.
_arm64_save() {
	{
		declare -p ARM64_DIR _ARM64_ID _ARM64_NAME _ARM64_NS _ARM64_VH \
		    _ARM64_ADDR _ARM64_REAPER ARM64_ROOTFS
	} >"$ARM64_DIR/arm64.env.tmp" 2>/dev/null &&
	    mv -f "$ARM64_DIR/arm64.env.tmp" "$ARM64_DIR/arm64.env"
}

# Makes lab_arm64_down run at exit, before the EXIT trap as it stands (so
# before lab.sh's lab_down when lab_up ran first).
_arm64_install_trap() {
	local cur
	cur=$(trap -p EXIT)
	case $cur in *_arm64_on_exit*) return 0 ;; esac
	if [ -z "$cur" ]; then
		trap -- '_arm64_on_exit' EXIT
		return 0
	fi
	cur=${cur#trap -- }
	cur=${cur% EXIT}
	eval "cur=$cur"
	trap -- "_arm64_on_exit && :
$cur" EXIT
}

# The EXIT trap: tears down, then hands on the exit status.
_arm64_on_exit() {
	local rc=$?
	if [ "$rc" -ne 0 ] && [ -n "${ARM64_DIR:-}" ] && [ "${LAB_KEEP:-0}" != 1 ]; then
		echo "arm64: exit status $rc; rerun with LAB_KEEP=1 to keep $ARM64_DIR (sshd logs, /root/.orch)" >&2
	fi
	lab_arm64_down
	return "$rc"
}

# Starts the reaper: a detached process that runs lab_arm64_down once the
# shell that called lab_arm64_up is gone (see lab.sh's).
_arm64_start_reaper() {
	local shell=$BASHPID me
	me=$(_lab_ident "$shell") || return 0
	_ARM64_REAPER=$( (setsid bash "$_ARM64_LIB/arm64.sh" reap "$me" "$ARM64_DIR" \
	    </dev/null >/dev/null 2>&1 & echo $!) )
	[ -z "$_ARM64_REAPER" ] || _ARM64_REAPER=$(_lab_ident "$_ARM64_REAPER")
	_arm64_save
}

# The reaper's body.
_arm64_reap() {
	local who=$1 dir=$2
	trap '' INT TERM HUP
	while [ -f "$dir/arm64.env" ] && [ "$(_lab_ident "${who%%:*}")" = "$who" ]; do
		sleep 0.25
	done
	[ -f "$dir/arm64.env" ] || return 0
	. "$dir/arm64.env"
	_ARM64_REAPING=1
	lab_arm64_down
}

# Run directly: `bash arm64.sh rootfs|down DIR|reap ...`.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-}:${2:-} in
	rootfs:*)
		arm64_ready --install && arm64_rootfs && echo "$ARM64_ROOTFS"
		;;
	down:?*)
		if [ ! -f "$2/arm64.env" ]; then
			echo "arm64: $2/arm64.env not found" >&2
			exit 1
		fi
		. "$2/arm64.env"
		lab_arm64_down
		;;
	reap:*)
		_arm64_reap "$2" "$3"
		;;
	*)
		echo "usage: bash arm64.sh rootfs | down /tmp/orch-arm64.XXXXXX (or source it after lab.sh)" >&2
		exit 2
		;;
	esac
fi
