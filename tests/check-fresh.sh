#!/usr/bin/env bash
# check-fresh.sh — proves README.md's two commands on a clean Debian 12
# amd64 root that has nothing of ours (make check-fresh; .ci/run runs it
# after make check).
#
#   bash tests/check-fresh.sh
#
# 1. A plain Debian 12 root (mmdebstrap --variant=minbase: the Essential
#    and required packages, and apt; plus make, without which no README
#    command starts) from the Debian archive apt uses here, cached as a
#    tarball in $FRESH_CACHE (default /var/cache/orch-fresh), keyed by
#    suite, variant, packages and sources. Nothing of ours is ever in it.
# 2. A new copy of that root under /var/tmp, and in it /root/orch: a clean
#    export of HEAD (git archive: committed files only, no build outputs).
# 3. In a private mount and PID namespace, with /proc, /sys, /dev (and
#    /dev/pts) and a /run of its own, chrooted into the copy with an empty
#    environment: exactly `make demo`, then `make check`, as the README
#    says. Each command's time is printed; either failing fails this.
#
# Shared with this machine, as caches of things not ours: apt's download
# cache (/var/cache/apt/archives: Debian's .deb files; every package is
# still installed in the root by our own Makefile) and the aarch64 lab
# host's Debian arm64 root filesystem (/var/cache/orch-lab, see
# tests/lab/arm64.sh), which is built inside on a cold machine, and the
# macOS cross toolchain and cross-built libraries (/var/cache/orch-darwin,
# see darwin.mk), likewise keyed by version. Network
# namespaces and sshd work inside as outside (the test lab).
#
# FRESH_KEEP=1 keeps the root (its path is printed); FRESH_TIMEOUT bounds
# the whole (default 3000 s).
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/.."

SUITE=bookworm
CACHE=${FRESH_CACHE:-/var/cache/orch-fresh}
BOUND=${FRESH_TIMEOUT:-3000}
t_start=$SECONDS
say() { echo "check-fresh: $*"; }
die() { echo "check-fresh: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (a chroot, mounts, network namespaces); run as root: make check-fresh"
for c in mmdebstrap git unshare chroot; do
	command -v "$c" >/dev/null 2>&1 ||
	    die "$c not found: make deps-test installs it (apt-get install mmdebstrap git util-linux coreutils)"
done
git rev-parse --verify -q HEAD >/dev/null || die "not a git checkout with a commit: nothing to export"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
    say "note: uncommitted changes are not part of the export (HEAD $(git rev-parse --short HEAD) is)"

. tests/lab/debian.sh
src=$(debian_sources "$SUITE") || die "apt here knows no Debian $SUITE archive"
EXTRA=make
key=$(printf '%s\n' "v1 $SUITE amd64 minbase $EXTRA" "$src" | sha256sum | cut -c1-12)
base=$CACHE/debian-$SUITE-amd64-minbase-$key.tar
mkdir -p "$CACHE"
if [ -f "$base" ]; then
	say "plain Debian root: cached ($base)"
else
	say "plain Debian root: building $base with mmdebstrap (cold machine)"
	t0=$SECONDS
	mapfile -t mirrors <<<"$src"
	rm -f "$base.tmp"
	if ! timeout 1200 unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
	    mmdebstrap --arch=amd64 --variant=minbase --mode=root --format=tar --include="$EXTRA" \
	    "$SUITE" "$base.tmp" "${mirrors[@]}" >"$CACHE/build.log" 2>&1 </dev/null; then
		tail -20 "$CACHE/build.log" >&2
		die "mmdebstrap failed (log: $CACHE/build.log)"
	fi
	mv "$base.tmp" "$base"
	say "plain Debian root: built in $((SECONDS - t0)) s"
fi

W=$(mktemp -d /var/tmp/orch-fresh.XXXXXX)
R=$W/root
cpid=
cleanup() {
	local rc=$? i
	if [ -n "$cpid" ]; then
		kill -TERM "$cpid" 2>/dev/null
		for i in $(seq 1 60); do kill -0 "$cpid" 2>/dev/null || break; sleep 1; done
	fi
	# The mounts lived in the namespace of the unshare below, which is gone:
	# nothing of this machine is mounted under $W.
	if grep -qF " $W/" /proc/self/mounts; then
		echo "check-fresh: something is still mounted under $W; left as it is" >&2
	elif [ "${FRESH_KEEP:-0}" = 1 ]; then
		echo "check-fresh: kept $R" >&2
	else
		rm -rf "$W"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$R"
tar -xf "$base" -C "$R"
git archive --format=tar --prefix=orch/ HEAD | tar -x -C "$R/root"
say "HEAD $(git rev-parse --short HEAD) exported to $R/root/orch ($(find "$R/root/orch" -type f | wc -l) files)"

# What runs in the root: the README's commands, nothing else.
cat >"$R/root/fresh.sh" <<'EOF'
set -u
cd /root/orch
rc=0
for cmd in "make demo" "make check"; do
	echo "check-fresh: --- $cmd"
	t0=$(date +%s)
	if $cmd; then
		echo "check-fresh: $cmd: passed in $(( $(date +%s) - t0 )) s"
	else
		echo "check-fresh: $cmd: FAILED after $(( $(date +%s) - t0 )) s"
		rc=1
		break
	fi
done
exit $rc
EOF

mkdir -p /var/cache/orch-lab /var/cache/orch-darwin /var/cache/apt/archives
export R
t0=$SECONDS
rc=0
timeout --kill-after=30 "$BOUND" unshare --mount --propagation private --pid --fork --kill-child bash -c '
	set -e
	# The root a mount point of its own, as on a machine: ip netns exec
	# (and so the test lab) remounts / and fails where it is a directory.
	mount --bind "$R" "$R"
	mount -t proc proc "$R/proc"
	mount --rbind /sys "$R/sys"
	mount --rbind /dev "$R/dev"
	mount -t tmpfs -o mode=0755 tmpfs "$R/run"
	mkdir -p "$R/run/lock"
	if [ -d "$R/proc/sys/fs/binfmt_misc" ]; then
		mount -t binfmt_misc binfmt_misc "$R/proc/sys/fs/binfmt_misc" 2>/dev/null || true
	fi
	mkdir -p "$R/var/cache/orch-lab"
	mount --bind /var/cache/orch-lab "$R/var/cache/orch-lab"
	mkdir -p "$R/var/cache/orch-darwin"
	mount --bind /var/cache/orch-darwin "$R/var/cache/orch-darwin"
	mount --bind /var/cache/apt/archives "$R/var/cache/apt/archives"
	cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
	chmod 1777 "$R/tmp"
	exec chroot "$R" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
	    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    /bin/bash /root/fresh.sh
' </dev/null &
cpid=$!
# ^C or TERM here reaches the root through timeout (--kill-child ends
# everything in it); cleanup waits for it before removing anything.
trap 'kill -TERM "$cpid" 2>/dev/null' INT TERM HUP
while :; do
	wait "$cpid" && rc=0 || rc=$?
	kill -0 "$cpid" 2>/dev/null || break
done
cpid=
[ "$rc" -ne 124 ] || say "timed out after $BOUND s"
if [ "$rc" -eq 0 ]; then
	say "PASS: make demo and make check on a clean Debian 12 root, $((SECONDS - t0)) s in the root, $((SECONDS - t_start)) s in all"
else
	die "exit $rc after $((SECONDS - t0)) s in the root ($((SECONDS - t_start)) s in all)"
fi
