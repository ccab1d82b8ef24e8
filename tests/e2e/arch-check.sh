#!/usr/bin/env bash
# arch-check.sh — a mixed-architecture run over real SSH: two x86_64 lab
# hosts (tests/lab/lab.sh) and one aarch64 host (tests/lab/arm64.sh: Debian
# arm64 under qemu-user, in its own network namespace). Deploys (prebuilt on
# x86_64, built from source on aarch64), runs suites/example.ini on all
# three, and checks the record: both architectures in summary.json, the
# aarch64 agent's hello, a report section per architecture, the verdicts,
# and the cross-architecture matrix when report.md has one. Also: a suite
# without an aarch64 binary fails before anything runs. Then the claims of
# tests/suites/claims.ini, CONFIRMED and REFUTED per architecture.
#
#   bash tests/e2e/arch-check.sh          (make check-arch)
#
# Not named t-*.sh: `make check-e2e` does not pick it up; `make check-arch`
# runs it. When this machine cannot (not root, no binfmt_misc, no network
# to Debian's archive for the packages) it says why on a line
# "arch-check: SKIPPED: <reason>" and exits 0; ARCH_CHECK_REQUIRE=1 makes
# that a failure. Timing: the first run on a machine builds the arm64 root
# filesystem (~7 min, cached in /var/cache/orch-lab); later runs ~2 min.
# The whole script is bounded by ARCH_CHECK_TIMEOUT (default 1800 s).
# ARCH_CHECK_ROUNDS (default 6) sets the rounds (then one rounds = auto
# run of tests/suites/triple.ini on h1 and a1); ARCH_CHECK_OUT=DIR keeps a
# copy of the run's directory (samples, summary.json, report.md) there;
# LAB_KEEP=1 keeps the lab's and the aarch64 host's directories.
set -uo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/../.." || exit 1

# Re-run under timeout; ^C or a TERM here reaches the test through it (its
# EXIT traps then tear the lab down).
if [ -z "${_ARCH_CHECK_BOUNDED:-}" ]; then
	export _ARCH_CHECK_BOUNDED=1
	timeout --kill-after=30 "${ARCH_CHECK_TIMEOUT:-1800}" bash "$self" "$@" &
	tpid=$!
	trap 'kill -TERM "$tpid" 2>/dev/null' INT TERM HUP
	while :; do
		wait "$tpid"
		rc=$?
		kill -0 "$tpid" 2>/dev/null || break
	done
	[ "$rc" -ne 124 ] || echo "arch-check: FAIL: timed out after ${ARCH_CHECK_TIMEOUT:-1800} s" >&2
	exit "$rc"
fi

t_start=$SECONDS
ROUNDS=${ARCH_CHECK_ROUNDS:-6}

skip() {
	if [ "${ARCH_CHECK_REQUIRE:-0}" = 1 ]; then
		echo "arch-check: FAIL: cannot run (ARCH_CHECK_REQUIRE=1): $*" >&2
		exit 1
	fi
	echo "arch-check: SKIPPED: $*"
	exit 0
}
phase() { echo "--- [$((SECONDS - t_start))s] $*"; }

. tests/lab/lab.sh
. tests/lab/arm64.sh

phase "preconditions"
[ "$(id -u)" -eq 0 ] || skip "not root (needs network namespaces, mounts and binfmt_misc)"
arm64_ready --install || skip "$ARM64_WHY"

# The cross compiler for the aarch64 benchmark programs.
if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
    ! dpkg-query -W -f='${Status}' libc6-dev-arm64-cross 2>/dev/null | grep -q ' installed'; then
	echo "arch-check: installing gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
	DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends \
	    gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null 2>&1 ||
	    skip "cannot install gcc-aarch64-linux-gnu (no network to Debian's archive?)"
fi

phase "build: native programs, aarch64 benchmark programs"
make --no-print-directory programs suites >/tmp/orch-arch-check-make.log 2>&1 || {
	tail -20 /tmp/orch-arch-check-make.log
	echo "arch-check: FAIL: make programs suites" >&2
	exit 1
}
make --no-print-directory -f suites/cross.mk cross-aarch64 >>/tmp/orch-arch-check-make.log 2>&1 || {
	tail -20 /tmp/orch-arch-check-make.log
	echo "arch-check: FAIL: make -f suites/cross.mk cross-aarch64" >&2
	exit 1
}
# binfmt_misc end to end: an aarch64 program runs here.
out=$(timeout 20 suites/example/bin/linux-aarch64/hashloop 10 suites/example/data.bin 2>&1) ||
    skip "an aarch64 program does not run here through binfmt_misc/qemu: $out"
want=$(suites/example/bin/linux-x86_64/hashloop 10 suites/example/data.bin | grep '^checksum=')
[ "$(grep '^checksum=' <<<"$out")" = "$want" ] || {
	echo "arch-check: FAIL: hashloop's checksum differs between x86_64 and aarch64: $out / $want" >&2
	exit 1
}

phase "arm64 root filesystem (cached in $ARM64_CACHE)"
arm64_rootfs || skip "$ARM64_WHY"
echo "rootfs: $ARM64_ROOTFS ($(cat "$(dirname "$ARM64_ROOTFS")/ok"))"

# From here on, every failure is a failure (lib.sh: set -euo pipefail,
# fail, expect_*; its EXIT trap removes $T after the lab's teardown).
. tests/e2e/lib.sh

# orch_t SECONDS OUTFILE ARGS...: runs orch, bounded, saving its output.
orch_t() {
	local secs=$1 out=$2 rc; shift 2
	timeout --kill-after=10 "$secs" "$ORCH" "$@" >"$out" 2>&1
	rc=$?
	[ "$rc" -ne 124 ] || echo "(orch $1 timed out after $secs s)" >>"$out"
	return "$rc"
}

phase "lab: h1 h2 (x86_64), a1 (aarch64)"
lab_up 2 --netns || fail "lab_up 2 --netns"
lab_arm64_up a1 || fail "lab_arm64_up a1"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"
expect_eq "a1: uname -sm" "$(timeout 30 ssh -F "$LAB_SSH_CONFIG" a1 uname -sm </dev/null)" "Linux aarch64"
expect_eq "h1: uname -m" "$(timeout 30 ssh -F "$LAB_SSH_CONFIG" h1 uname -m </dev/null)" "x86_64"
expect_grep '^hosts = h1, h2, a1$' "$INV"

phase "deploy: prebuilt on h1 h2, built from source on a1"
rc=0; orch_t 900 "$T/deploy" deploy --inventory="$INV" --hosts=lab || rc=$?
cat "$T/deploy"
expect_eq "deploy exit" "$rc" 0
expect_grep '^h1: pushed prebuilt linux-x86_64 agent' "$T/deploy"
expect_grep '^h2: pushed prebuilt linux-x86_64 agent' "$T/deploy"
expect_grep '^a1: built from source on the host \(linux-aarch64\)' "$T/deploy"
# ELF e_machine (bytes 18-19, little-endian): 0xb7 is aarch64.
agent_a1="$(lab_arm64_root a1)/root/.orch/bin/orch-agent"
expect_eq "a1's agent: ELF machine" "$(od -An -tx1 -j18 -N2 "$agent_a1" | tr -d ' \n')" b700

phase "check: every host ready, a1 says linux/aarch64"
rc=0; orch_t 120 "$T/check" check --inventory="$INV" --hosts=lab || rc=$?
cat "$T/check"
expect_eq "check exit" "$rc" 0
expect_grep '^a1 +yes .* linux/aarch64 ' "$T/check"
expect_grep '^h1 +yes .* linux/x86_64 ' "$T/check"

phase "a suite without an aarch64 program fails before anything runs"
mkdir -p "$T/prog/linux-x86_64"
cp suites/example/bin/linux-x86_64/hashloop "$T/prog/linux-x86_64/"
sed "s#suites/example/bin/#$T/prog/#" suites/example.ini >"$T/x86only.ini"
rc=0; orch_t 300 "$T/miss" run --inventory="$INV" --hosts=h1,a1 --rounds=5 --max-load=0 \
    --out="$T/rmiss" "$T/x86only.ini" || rc=$?
cat "$T/miss"
expect_eq "missing aarch64 binary exit" "$rc" 2
expect_grep "no program for host a1 \(linux/aarch64\): $T/prog/linux-aarch64/hashloop does not exist" "$T/miss"
expect_grep '^nothing ran\.' "$T/miss"
[ ! -e "$T/rmiss/samples.msgpack" ] || fail "samples were written although nothing may run"

phase "run suites/example.ini on h1 h2 a1 ($ROUNDS rounds)"
rc=0; orch_t 600 "$T/run" run --inventory="$INV" --hosts=lab --rounds="$ROUNDS" --seed=7 \
    --max-load=0 --machine-reference=h1 --out="$T/r1" suites/example.ini || rc=$?
cat "$T/run"
if [ -n "${ARCH_CHECK_OUT:-}" ] && [ -d "$T/r1" ]; then
	rm -rf "$ARCH_CHECK_OUT" && cp -r "$T/r1" "$ARCH_CHECK_OUT" &&
	    echo "the run's record and reports: $ARCH_CHECK_OUT"
fi
expect_eq "run exit" "$rc" 0
S="$T/r1/summary.json"
R="$T/r1/report.md"
expect_eq "host statuses" "$(jq -r '[.hosts[] | .name + ":" + .status] | sort | join(" ")' "$S")" \
    "a1:ok h1:ok h2:ok"
# hosts[].arch is what each agent said in its hello.
expect_eq "hosts' arch" "$(jq -r '[.hosts[] | .name + ":" + .os + "/" + .arch] | sort | join(" ")' "$S")" \
    "a1:linux/aarch64 h1:linux/x86_64 h2:linux/x86_64"
echo "a1: cpu_model '$(jq -r '.hosts[] | select(.name=="a1") | .cpu_model' "$S")'," \
    "cores $(jq -r '.hosts[] | select(.name=="a1") | .cores' "$S")"
expect_eq "architectures" "$(jq -r '[.hosts[].arch] | unique | join(" ")' "$S")" "aarch64 x86_64"
expect_eq "results on a1 carry aarch64" \
    "$(jq -r '[.results[] | select(.host=="a1") | .arch] | unique | join(" ")' "$S")" aarch64
expect_eq "a1 results with every round" \
    "$(jq --argjson n "$ROUNDS" '[.results[] | select(.host=="a1" and .n != $n)] | length' "$S")" 0
expect_eq "a1 results" "$(jq '[.results[] | select(.host=="a1")] | length' "$S")" \
    "$(jq '[.results[] | select(.host=="h1")] | length' "$S")"
awk -F, 'NR > 1 && $2 == "a1" && $3 != "aarch64" { bad = 1 } END { exit bad }' "$T/r1/samples.csv" ||
    fail "samples.csv has a1 rows whose arch is not aarch64"

# Verdicts: every host compares B with A on every benchmark's metrics.
for h in h1 h2 a1; do
	n=$(jq --arg h "$h" '[.comparisons[] | select(.host==$h and .variant=="B" and .reference=="A")] | length' "$S")
	[ "$n" -gt 0 ] || fail "no comparisons for $h"
	bad=$(jq -r --arg h "$h" '[.comparisons[] | select(.host==$h) |
	    select(.verdict | IN("better","worse","same","inconclusive","invalid") | not)] | length' "$S")
	expect_eq "$h: comparisons without a verdict" "$bad" 0
done
# Every run of a benchmark on a host printed the same checksum, on either
# architecture (the cross-built programs do the same work: checked against
# the native one above), and the primary metrics have their pairs. A
# secondary wall_ns may still lack pairs under emulation: the harness floor
# subtracted from it is large and noisy there.
expect_eq "comparisons refused for their checksums" \
    "$(jq '[.comparisons[] | select((.reason // "") | test("checksum|printed no"))] | length' "$S")" 0
bad=$(jq -r '[.comparisons[] | select(.primary and .verdict == "invalid") |
    .host + " " + .bench + " " + .metric + ": " + (.reason // "")] | join("; ")' "$S")
expect_eq "invalid primary comparisons" "$bad" ""
jq -r '.comparisons[] | select(.variant=="B") | [.host, .arch, .bench, .metric, .verdict, (.ratio|tostring)] | join(" ")' "$S" |
    sort | sed 's/^/  /'

echo "report.md's headings:"
grep '^##' "$R" | sed 's/^/  /'
expect_grep '^## aarch64' "$R"
expect_grep '^## x86_64' "$R"
# Each section names its hosts and holds verdicts.
for a in aarch64 x86_64; do
	sec=$(awk -v a="## $a" '$0 ~ "^## " { on = index($0, a) == 1 } on' "$R")
	grep -Eq 'better|worse|same|inconclusive' <<<"$sec" || fail "report.md's ## $a section has no verdict"
done
awk '$0 ~ "^## aarch64" { on = 1; next } /^## / { on = 0 } on' "$R" | grep -q 'a1' ||
    fail "report.md's ## aarch64 section does not name a1"

# The cross-architecture matrix, when this build's report has one.
if grep -Eq '^## (Across architectures|Cross-architecture)' "$R"; then
	mx=$(awk '/^## (Across architectures|Cross-architecture)/ { on = 1; print; next } /^## / { on = 0 } on' "$R")
	grep -q aarch64 <<<"$mx" && grep -q x86_64 <<<"$mx" ||
	    { echo "$mx"; fail "the cross-architecture matrix does not show both aarch64 and x86_64"; }
	grep -q 'a1' <<<"$mx" || { echo "$mx"; fail "the cross-architecture matrix does not show a1"; }
	echo "matrix: '## Across architectures' shows aarch64 and x86_64 and host a1"
else
	echo "matrix: report.md has no cross-architecture section in this build: not checked"
fi

# The Machines section: the hosts side by side against h1, in all three
# formats, and a1 named as emulated (qemu-user shows it the x86 cpuinfo).
H="$T/r1/report.html"
mach=$(awk '/^## Machines/ { on = 1; print; next } /^## / { on = 0 } on' "$R")
[ -n "$mach" ] || fail "report.md has no Machines section"
grep -q 'reference host `h1` (named by --machine-reference)' <<<"$mach" ||
    { echo "$mach"; fail "the Machines section does not compare with h1"; }
grep -q 'compared unpaired' <<<"$mach" || fail "the Machines section does not say it is unpaired"
grep -q '`a1` is emulated' <<<"$mach" || { echo "$mach"; fail "the Machines section does not say a1 is emulated"; }
grep -q '^| arch | x86_64 |' <<<"$mach" || { echo "$mach"; fail "the Machines section does not list arch as differing"; }
echo "$mach" | grep -E '^\|  \|  \| (h2|a1) ' | sed 's/^/  /'
expect_grep '<section id="machines">' "$H"
expect_eq "machine forest plots (h2, a1)" "$(grep -c '<svg class="machines"' "$H")" 2
expect_eq "summary.json machines.reference" "$(jq -r '.machines.reference' "$S")" h1
expect_eq "summary.json machines hosts" \
    "$(jq -r '[.machines.hosts[] | .host + ":" + (.emulated|tostring)] | sort | join(" ")' "$S")" \
    "a1:true h1:false h2:false"
expect_eq "summary.json machines.hosts[0]" "$(jq -r '.machines.hosts[0].host' "$S")" h1
expect_eq "machine ratios without a value" "$(jq '[.machines.ratios[] | select(.ratio == null)] | length' "$S")" 0
expect_grep '"differ": \[' "$S"
# orch report without the option takes the reference from the run's command line.
cp "$R" "$T/report-before.md"
rc=0; orch_t 120 "$T/rerender" report "$T/r1" || rc=$?
expect_eq "orch report exit" "$rc" 0
cmp -s "$R" "$T/report-before.md" || fail "orch report DIR does not render report.md again byte for byte"

phase "claims per architecture: tests/suites/claims.ini on h1 h2 a1"
# B does three times A's work on either architecture: "worse by >= 20%"
# is CONFIRMED and "better" REFUTED in each group and on each host. Twelve
# rounds (the suite's): a family of 4 tests (3 comparisons and the x86_64
# group's geometric mean) needs p <= 0.0125, which 6 rounds cannot reach.
rc=0; orch_t 600 "$T/claims" run --inventory="$INV" --hosts=lab --rounds=12 --seed=7 \
    --max-load=0 --fail-on=refuted --out="$T/rc" tests/suites/claims.ini || rc=$?
cat "$T/claims"
expect_eq "claims run --fail-on=refuted exit" "$rc" 1
C="$T/rc/summary.json"
expect_eq "claims per group" \
    "$(jq -r '[.claims[] | .name as $n | .groups[] | $n + " " + (.group | split(" ")[0]) + " " + .verdict] | sort | join("; ")' "$C")" \
    "faster aarch64 REFUTED; faster x86_64 REFUTED; slower aarch64 CONFIRMED; slower x86_64 CONFIRMED"
expect_eq "claims per host" \
    "$(jq -r '[.claims[] | .name as $n | .groups[].hosts[] | $n + " " + .host + " " + .verdict] | sort | join("; ")' "$C")" \
    "faster a1 REFUTED; faster h1 REFUTED; faster h2 REFUTED; slower a1 CONFIRMED; slower h1 CONFIRMED; slower h2 CONFIRMED"
expect_eq "refuting groups on the gate" "$(grep -c '^orch: --fail-on: claim faster' "$T/claims")" 2
expect_grep '^    aarch64 · .*: CONFIRMED  a1: hash  ' "$T/claims"

phase "rounds = auto on h1 and a1: each host decides on its own (triple)"
sed -e 's/^rounds .*/rounds = auto\nmax_rounds = 40/' tests/suites/triple.ini >"$T/triple-auto.ini"
rc=0; orch_t 900 "$T/auto" run --inventory="$INV" --hosts=h1,a1 --max-load=0 \
    --budget=10m --out="$T/ra" "$T/triple-auto.ini" || rc=$?
cat "$T/auto"
expect_eq "auto run exit" "$rc" 0
expect_eq "auto: how each host stopped" \
    "$(jq -r '[.hosts[] | .name + ":" + .stop] | sort | join(" ")' "$T/ra/summary.json")" \
    "a1:decided h1:decided"
jq -e '[.hosts[] | select(.rounds_used >= 40)] | length == 0' "$T/ra/summary.json" >/dev/null ||
    fail "a host of the adaptive run reached max_rounds"

phase "no agent left on a1"
ns=${_ARM64_NS[1]}
for _ in $(seq 1 50); do
	left=$(for p in $(ip netns pids "$ns"); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q 'orch-agent'; then
			echo "$p"
		fi
	done)
	[ -n "$left" ] || break
	sleep 0.2
done
[ -z "$left" ] || fail "agents left on a1: $left"

phase "done"
echo "arch-check: PASS ($((SECONDS - t_start)) s)"
echo "arch-check: 1 passed, 0 failed"
