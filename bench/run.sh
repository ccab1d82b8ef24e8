#!/usr/bin/env bash
# bench/run.sh [SECTION...]: orch's own performance, each figure measured
# side by side with a peer in the same run, then docs/performance.md.
#
#   floor   harness floor: orch vs a bare posix_spawn+wait4 loop vs hyperfine -N;
#           the agent's CPU per sample, noop vs a 20 ms sleeper
#   whole   a one-line run of true and true, start to exit, vs hyperfine -N
#           (the same count of runs); true vs /bin/echo x: orch's verdict in
#           three runs, hyperfine's ratio beside each
#   agree   gzip -1 vs gzip -9: orch's ratio and interval vs hyperfine's;
#           keeps orch's records in bench/records/agree-K (committed: the
#           document's marks quote them, make check-docs checks them)
#   fanout  a one-round suite on 1, 4, 16, 32 lab hosts (sshd in netns)
#   push    first push of 100 MiB to 4 lab hosts vs scp; the second push
#   power   A/A false verdicts; rounds to see a 3% slowdown; a slow drift,
#           interleaved vs sequential
#   scale   orch report on up to a million samples; coordinator memory over
#           a long run
#   auto    rounds = auto against fixed rounds of the same power and of 80%
#           power: simulated through the real code (tests/stats/calib.c
#           --payoff), and on this machine with an injected 3% slowdown
#
# With no SECTION, all of them. Output: bench/out/SECTION.json (+ the raw
# runs under bench/out/SECTION/), then bench/render.sh writes
# docs/performance.md. Knobs (environment): BENCH_QUICK=1 shrinks every
# repetition count (a smoke test, not for the document: it writes
# $BENCH_OUT/performance.md and keeps no figures); BENCH_OUT;
# BENCH_BIN and BENCH_LIB (another build of orch than bin/ and
# build/default/lib/).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OUT=${BENCH_OUT:-$ROOT/bench/out}
BINDIR=${BENCH_BIN:-$ROOT/bin}		# where orch, orch-agent, orch-null are
LIBDIR=${BENCH_LIB:-$ROOT/build/default/lib}	# libcoord.a, libproto.a
ORCH=$BINDIR/orch
AGENT=$BINDIR/orch-agent
BB=$OUT/bin
ARCHDIR=linux-$(uname -m | sed -e 's/arm64/aarch64/' -e 's/amd64/x86_64/')
NOOP=$ROOT/tests/progs/bin/$ARCHDIR/noop
SLEEPER=$ROOT/tests/progs/bin/$ARCHDIR/sleeper
NULLPROG=$BINDIR/orch-null
QUICK=${BENCH_QUICK:-0}
export ORCH_WORKDIR=$OUT/workdir	# the local host's agent workdir

. "$ROOT/bench/lib.sh"

# q FULL QUICK: FULL, or QUICK under BENCH_QUICK=1.
q() { if [ "$QUICK" = 1 ]; then echo "$2"; else echo "$1"; fi; }

die() { echo "bench: $*" >&2; exit 2; }

for t in jq hyperfine scp ssh gzip /usr/bin/time valgrind callgrind_annotate; do
	command -v "$t" >/dev/null 2>&1 || die "'$t' not found (make deps installs it)"
done
for f in "$ORCH" "$AGENT" "$NOOP" "$SLEEPER" "$NULLPROG" "$LIBDIR/libcoord.a"; do
	[ -e "$f" ] || die "$f missing: run make all first"
done
mkdir -p "$OUT" "$BB" "$ORCH_WORKDIR"

# ---- the bench's own programs ------------------------------------------
PROG_CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
for p in bare-spawn spawn-like agent-cpu slowdown; do
	cc $PROG_CFLAGS -o "$BB/$p" "bench/$p.c" || die "cannot build bench/$p.c"
done
# gen-record links the coordinator's own record writer.
cc $PROG_CFLAGS -I. -o "$BB/gen-record" bench/gen-record.c \
    "$LIBDIR/libcoord.a" "$LIBDIR/libproto.a" \
    $(pkg-config --cflags --libs libssh2 nanomsg msgpack libcrypto inih) \
    -lpthread -lm || die "cannot build bench/gen-record.c"
# A stand-in sshd for the lab: sessions get an empty HOME (see fanout).
cat > "$BB/lab-sshd" <<'EOF'
#!/bin/sh
# sshd for the bench's lab: as tests/lab starts it, plus an empty HOME for
# sessions, so the user's ~/.bashrc (on this VM: pyenv init) is not run by
# every remote command.
cfg=
prev=
for a in "$@"; do [ "$prev" = -f ] && cfg=$a; prev=$a; done
home=$(dirname "$(dirname "$cfg")")/bench-home
mkdir -p "$home"
exec /usr/sbin/sshd "$@" -o "SetEnv=HOME=$home"
EOF
chmod +x "$BB/lab-sshd"

# clear_stale_agent: a local agent still running after its run (it holds
# WORKDIR/run.lock, so the next run would be refused as "host busy") is
# stopped by the pid the lock names, and noted in bench/out/stale-agents.log.
clear_stale_agent() {
	local lock=$ORCH_WORKDIR/run.lock pid
	[ -e "$lock" ] || return 0
	flock -n "$lock" true 2>/dev/null && return 0
	pid=$(sed -n 's/.*agent pid \([0-9]*\).*/\1/p' "$lock")
	[ -n "$pid" ] || return 0
	echo "bench: a local agent (pid $pid) still holds $lock after its run: stopping it" >&2
	echo "$(date -u +%FT%TZ) $(cat "$lock")" >> "$OUT/stale-agents.log"
	kill "$pid" 2>/dev/null
	sleep 0.3
}

# orch_run DIR ARGS...: bin/orch run --max-load=0 --out=DIR ARGS, quietly.
orch_run() {
	local dir=$1
	shift
	clear_stale_agent
	rm -rf "$dir"
	"$ORCH" run --max-load=0 --out="$dir" "$@" > "$dir.log" 2>&1
}

# ======================================================================
# 1. Harness floor
# ======================================================================
sec_floor() {
	local K R N k i o rnd ag f d cs
	section_begin floor "Harness floor: a no-op program through orch vs a bare spawn loop vs hyperfine"
	K=$(q 20 3)		# interleaved blocks
	R=$(q 30 10)		# rounds per orch block: 2R noop samples + R floor runs
	N=$((2 * R))		# spawns per bare / hyperfine block
	d=$SECTION_DIR
	cat > "$d/floor.ini" <<EOF
[suite]
name = floor
rounds = $R
warmup = 1
[variant.A]
bin = $NOOP
[variant.B]
bin = $NOOP
[bench.noop]
metrics = wall_ns
timeout = 10
EOF
	sed -e "s/^rounds = .*/rounds = 10/" -e "s#^bin = .*#bin = $SLEEPER#" \
	    -e "s/^\[bench.noop\]/[bench.sleep]\nargs = 20/" "$d/floor.ini" > "$d/sleep.ini"
	sed -e "s/^rounds = .*/rounds = 10/" "$d/floor.ini" > "$d/floor10.ini"
	sed -e "s/^warmup = 1/warmup = 1\nsettle = 0/" "$d/floor.ini" > "$d/floor0.ini"
	show "$d/floor.ini"
	cmd "$ORCH run --max-load=0 --out=DIR $d/floor.ini"
	cmd "bench/out/bin/bare-spawn $N $NOOP"
	cmd "bench/out/bin/spawn-like $N bench/out/floor $NOOP  # the agent's way of starting and collecting a program (agent/exec.c), without the rest of orch"
	cmd "bench/out/bin/bare-spawn $N $NULLPROG"
	cmd "hyperfine -N --warmup 3 --runs $N --export-json FILE $NOOP"
	: > "$d/blocks.jsonl"
	# Warm the cache (the first run pushes noop into the agent's cache).
	orch_run "$d/warm" "$d/floor10.ini"
	for ((k = 0; k < K; k++)); do
		o=$(( k % 3 ))
		for ((i = 0; i < 3; i++)); do
			case $(( (o + i) % 3 )) in
			0)	t0=$(now_ns)
				orch_run "$d/orch.$k" "$d/floor.ini" || echo "orch block $k failed" >&2
				echo $(( $(now_ns) - t0 )) > "$d/orch.$k.ns" ;;
			1)	"$BB/bare-spawn" "$N" "$NOOP" > "$d/bare.$k.json"
				"$BB/spawn-like" "$N" "$d" "$NOOP" > "$d/like.$k.json"
				"$BB/bare-spawn" "$N" "$NULLPROG" > "$d/barenull.$k.json" ;;
			2)	hyperfine -N --style none --warmup 3 --runs "$N" \
				    --export-json "$d/hf.$k.json" "$NOOP" > /dev/null 2>&1 ;;
			esac
		done
		cs=$d/orch.$k/samples.csv
		jq -n -c --argjson k "$k" \
		    --argjson orch "$(csv_values "$cs" noop wall_ns | json_array)" \
		    --argjson floor "$(csv_values "$cs" '(floor)' wall_ns | json_array)" \
		    --argjson run_ns "$(cat "$d/orch.$k.ns")" \
		    --argjson samples "$(csv_samples "$cs")" \
		    --slurpfile bare "$d/bare.$k.json" --slurpfile barenull "$d/barenull.$k.json" \
		    --slurpfile like "$d/like.$k.json" \
		    --slurpfile hf "$d/hf.$k.json" --argjson load "$(load1)" "$JQ_LIB"'
		    {k: $k, load: $load,
		     orch_median_ns: ($orch | median), orch_n: ($orch | length),
		     floor_median_ns: ($floor | median), floor_n: ($floor | length),
		     orch_run_ns: $run_ns, orch_samples: $samples,
		     bare_median_ns: $bare[0].median_ns, bare_cpu_ns: $bare[0].self_cpu_ns,
		     bare_total_ns: $bare[0].total_ns, bare_n: $bare[0].n,
		     barenull_median_ns: $barenull[0].median_ns,
		     like_median_ns: $like[0].median_ns, like_cpu_ns: $like[0].self_cpu_ns,
		     hf_median_ns: ($hf[0].results[0].median * 1e9),
		     hf_mean_ns: ($hf[0].results[0].mean * 1e9)}' >> "$d/blocks.jsonl"
		printf '  block %d: orch %s bare %s hyperfine %s (us)\n' "$k" \
		    "$(tail -1 "$d/blocks.jsonl" | jq '.orch_median_ns/1e3|round')" \
		    "$(tail -1 "$d/blocks.jsonl" | jq '.bare_median_ns/1e3|round')" \
		    "$(tail -1 "$d/blocks.jsonl" | jq '.hf_median_ns/1e3|round')" >&2
	done

	# The agent's own CPU: total (agent + children) minus the children's
	# user+sys that orch recorded; per sample from two run lengths, so the
	# start-up (hashing the cache, facts) cancels out.
	: > "$d/agent.jsonl"
	agent_own() {	# RUNDIR CPUFILE KIND
		local tot
		tot=$(tail -n 1 "$2")
		awk -F, -v tot="$tot" -v kind="$3" '
		    NR > 1 && ($11 == "user_ns" || $11 == "sys_ns") {c += $12}
		    NR > 1 && $11 == "nvcsw" {v += $12}
		    NR > 1 && $11 == "wall_ns" {n++; w += $12}
		    END {split(tot, t, " ");
		         printf "{\"kind\":\"%s\",\"samples\":%d,\"own_cpu_ns\":%.0f,\"own_nvcsw\":%d,\"children_cpu_ns\":%.0f,\"children_wall_ns\":%.0f}\n",
		             kind, n, t[1] - c, t[2] - v, c, w}' "$1/samples.csv"
	}
	# The stand-in is not in the blocks above: a process more at the start
	# slowed a 30-round run's samples by 5% (bench/notes/floor.md).
	for ((k = 0; k < $(q 4 2); k++)); do
		rm -f "$d/cpu.$k"
		ORCH_AGENT=$BB/agent-cpu BENCH_AGENT=$AGENT BENCH_AGENT_CPU=$d/cpu.$k \
		    orch_run "$d/long.$k" "$d/floor.ini" &&
		    agent_own "$d/long.$k" "$d/cpu.$k" long >> "$d/agent.jsonl"
		ORCH_AGENT=$BB/agent-cpu BENCH_AGENT=$AGENT BENCH_AGENT_CPU=$d/cpu10.$k \
		    orch_run "$d/orch10.$k" "$d/floor10.ini" &&
		    agent_own "$d/orch10.$k" "$d/cpu10.$k" short >> "$d/agent.jsonl"
		ORCH_AGENT=$BB/agent-cpu BENCH_AGENT=$AGENT BENCH_AGENT_CPU=$d/cpusl.$k \
		    orch_run "$d/sleep.$k" "$d/sleep.ini" &&
		    agent_own "$d/sleep.$k" "$d/cpusl.$k" sleep >> "$d/agent.jsonl"
	done
	cmd "ORCH_AGENT=bench/out/bin/agent-cpu BENCH_AGENT=$AGENT $ORCH run --max-load=0 --out=DIR $d/floor.ini  # the agent's own cost, apart from the blocks"
	cmd "the same with $d/floor10.ini (10 rounds) and $d/sleep.ini (10 rounds of tests/progs/sleeper 20: 20 ms asleep)"

	# The settle (docs/suites.md): a run's first rounds against its last,
	# with the default settle and with none, runs alternating.
	: > "$d/settle.jsonl"
	cmd "$ORCH run --max-load=0 --out=DIR $d/floor0.ini  # settle = 0, alternating with floor.ini (settle 50 ms by default)"
	for ((k = 0; k < $(q 8 3); k++)); do
		for f in floor floor0; do
			[ $((k % 2)) = 1 ] && f=$([ "$f" = floor ] && echo floor0 || echo floor)
			orch_run "$d/settle.$k.$f" "$d/$f.ini" || continue
			awk -F, -v R="$R" -v f="$f" '
			    NR > 1 && $4 == "noop" && $9 == 0 && $10 == "ok" && $11 == "wall_ns" {
				if ($6 <= R / 3) e[++ne] = $12; else if ($6 > R * 2 / 3) l[++nl] = $12 }
			    function med(a, n,   i, j, t) {
				for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			    END { printf "{\"settle_ms\":%d,\"early_ns\":%.0f,\"late_ns\":%.0f,\"n_early\":%d,\"n_late\":%d}\n",
				f == "floor0" ? 0 : 50, med(e, ne), med(l, nl), ne, nl }' \
			    "$d/settle.$k.$f/samples.csv" >> "$d/settle.jsonl"
		done
	done

	# The same three with everything on one CPU (taskset): the scheduler
	# can then not start the program on the other, colder CPU, which it
	# does when the agent's and the coordinator's threads were busy on the
	# parent's CPU just before (see bench/notes/floor.md).
	: > "$d/pinned.jsonl"
	if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
		cmd "the same three, $(q 6 2) blocks, each under taskset -c 1 (orch, its agent and the programs; the bare loop; hyperfine)"
		for ((k = 0; k < $(q 6 2); k++)); do
			clear_stale_agent
			rm -rf "$d/pin.$k"
			taskset -c 1 "$ORCH" run --max-load=0 --out="$d/pin.$k" "$d/floor.ini" > "$d/pin.$k.log" 2>&1
			taskset -c 1 "$BB/bare-spawn" "$N" "$NOOP" > "$d/pinbare.$k.json"
			taskset -c 1 hyperfine -N --style none --warmup 3 --runs "$N" \
			    --export-json "$d/pinhf.$k.json" "$NOOP" > /dev/null 2>&1
			jq -n -c --argjson orch "$(csv_values "$d/pin.$k/samples.csv" noop wall_ns | json_array)" \
			    --slurpfile bare "$d/pinbare.$k.json" --slurpfile hf "$d/pinhf.$k.json" "$JQ_LIB"'
			    {orch_median_ns: ($orch | median), bare_median_ns: $bare[0].median_ns,
			     hf_median_ns: ($hf[0].results[0].median * 1e9)}' >> "$d/pinned.jsonl"
		done
	fi

	# What one synchronous journal write costs on this disk (the agent
	# writes its journal records as it goes and syncs them once a round).
	local fs
	fs=$(dd if=/dev/zero of="$ORCH_WORKDIR/fsync-probe" bs=193 count=200 oflag=dsync 2>&1 |
	    awk '/copied/ {for (i = 1; i <= NF; i++) if ($i ~ /^s,?$/) {print $(i-1) * 1e9 / 200; exit}}')
	rm -f "$ORCH_WORKDIR/fsync-probe"
	cmd "dd if=/dev/zero of=WORKDIR/fsync-probe bs=193 count=200 oflag=dsync  # one synchronous 193-byte append, as the agent's journal does once a round"
	jq -s --slurpfile agent <(jq -s . "$d/agent.jsonl") --slurpfile pinned <(jq -s . "$d/pinned.jsonl") \
	    --slurpfile settle <(jq -s . "$d/settle.jsonl") \
	    --argjson fsync "${fs:-null}" --argjson R "$R" "$JQ_LIB"'
	  . as $b | ($agent[0]) as $a |
	  ($a | map(select(.kind == "long"))) as $long |
	  ($a | map(select(.kind == "short"))) as $short |
	  ($a | map(select(.kind == "sleep"))) as $sleep |
	  ($pinned[0]) as $p | ($settle[0]) as $st |
	  { blocks: $b,
	    settle: $st,
	    settle_rounds: $R,
	    settle_early_ns: ($st | map(select(.settle_ms > 0) | .early_ns) | median),
	    settle_late_ns: ($st | map(select(.settle_ms > 0) | .late_ns) | median),
	    nosettle_early_ns: ($st | map(select(.settle_ms == 0) | .early_ns) | median),
	    nosettle_late_ns: ($st | map(select(.settle_ms == 0) | .late_ns) | median),
	    settle_ratio: ($st | map(select(.settle_ms > 0) | .early_ns / .late_ns) | median),
	    nosettle_ratio: ($st | map(select(.settle_ms == 0) | .early_ns / .late_ns) | median),
	    pinned: $p,
	    pin_ratio_orch_bare: (if ($p | length) > 0 then ($p | map(.orch_median_ns / .bare_median_ns) | median) else null end),
	    pin_ratio_orch_hf: (if ($p | length) > 0 then ($p | map(.orch_median_ns / .hf_median_ns) | median) else null end),
	    pin_orch_median_ns: (if ($p | length) > 0 then ($p | map(.orch_median_ns) | median) else null end),
	    pin_bare_median_ns: (if ($p | length) > 0 then ($p | map(.bare_median_ns) | median) else null end),
	    pin_hf_median_ns: (if ($p | length) > 0 then ($p | map(.hf_median_ns) | median) else null end),
	    orch_median_ns: ($b | map(.orch_median_ns) | median),
	    floor_median_ns: ($b | map(.floor_median_ns) | median),
	    bare_median_ns: ($b | map(.bare_median_ns) | median),
	    barenull_median_ns: ($b | map(.barenull_median_ns) | median),
	    hf_median_ns: ($b | map(.hf_median_ns) | median),
	    hf_mean_ns: ($b | map(.hf_mean_ns) | median),
	    ratio_orch_bare: ($b | map(.orch_median_ns / .bare_median_ns) | median),
	    ratio_orch_hf: ($b | map(.orch_median_ns / .hf_median_ns) | median),
	    iqr_orch_bare: ($b | map(.orch_median_ns / .bare_median_ns) | [q(0.25), q(0.75)]),
	    iqr_orch_hf: ($b | map(.orch_median_ns / .hf_median_ns) | [q(0.25), q(0.75)]),
	    blocks_orch_le_hf: ($b | map(select(.orch_median_ns <= .hf_median_ns)) | length),
	    ratio_hf_bare: ($b | map(.hf_median_ns / .bare_median_ns) | median),
	    like_median_ns: ($b | map(.like_median_ns) | median),
	    like_cpu_ns: ($b | map(.like_cpu_ns) | median),
	    ratio_like_bare: ($b | map(.like_median_ns / .bare_median_ns) | median),
	    ratio_orch_like: ($b | map(.orch_median_ns / .like_median_ns) | median),
	    fsync_ns: $fsync,
	    ratio_floor_barenull: ($b | map(.floor_median_ns / .barenull_median_ns) | median),
	    per_sample_run_ns: ($b | map(.orch_run_ns / .orch_samples) | median),
	    per_spawn_bare_loop_ns: ($b | map(.bare_total_ns / .bare_n) | median),
	    bare_cpu_ns: ($b | map(.bare_cpu_ns) | median),
	    agent: $a,
	    agent_cpu_per_sample_ns: (if ($long | length) > 0 and ($short | length) > 0 and
	        ($long | map(.samples) | median) > ($short | map(.samples) | median) then
	      ((($long | map(.own_cpu_ns) | median) - ($short | map(.own_cpu_ns) | median)) /
	       (($long | map(.samples) | median) - ($short | map(.samples) | median))) else null end),
	    agent_nvcsw_per_sample: (if ($long | length) > 0 and ($short | length) > 0 and
	        ($long | map(.samples) | median) > ($short | map(.samples) | median) then
	      ((($long | map(.own_nvcsw) | median) - ($short | map(.own_nvcsw) | median)) /
	       (($long | map(.samples) | median) - ($short | map(.samples) | median))) else null end),
	    agent_cpu_short_ns: ($short | map(.own_cpu_ns) | median),
	    agent_cpu_sleep_ns: ($sleep | map(.own_cpu_ns) | median),
	    agent_nvcsw_short: ($short | map(.own_nvcsw) | median),
	    agent_nvcsw_sleep: ($sleep | map(.own_nvcsw) | median),
	    samples_short: ($short | map(.samples) | median),
	    samples_sleep: ($sleep | map(.samples) | median),
	    sleep_children_wall_ns: ($sleep | map(.children_wall_ns) | median),
	    K: ($b | length) }' "$d/blocks.jsonl" > "$d/data.json"
	section_end "$d/data.json"
}

# ======================================================================
# 1b. A one-line run's cost: the whole run against hyperfine's, and a
# short command decided
# ======================================================================
sec_whole() {
	local K R k i t0 t d ECHO
	section_begin whole "A one-line run's cost: the whole run of two short commands vs hyperfine -N, and true vs /bin/echo x decided"
	K=$(q 5 3)		# interleaved blocks
	R=$(q 100 30)		# rounds of orch = runs per command of hyperfine
	d=$SECTION_DIR
	ECHO=/bin/echo
	cmd "bin/orch run --max-load=0 --out=DIR --rounds=$R -- true true  # start to exit, reports included"
	cmd "hyperfine -N --style none --runs $R true true"
	cmd "bin/orch run --max-load=0 --out=DIR --rounds=$R -- true '$ECHO x'  # 3 runs: the verdict of each"
	cmd "hyperfine -N --style none --runs $R --export-json FILE true '$ECHO x'"
	cmd "bin/orch run --max-load=0 --out=DIR -- true '$ECHO x'  # 3 runs as a user types it: rounds = auto, blocks of 10, budget 30 s"
	cmd "hyperfine -N --style none --export-json FILE true '$ECHO x'  # hyperfine's own default count beside each"
	: > "$d/blocks.jsonl"
	# Warm the cache: the first run hashes true into the agent's cache.
	orch_run "$d/warm" --rounds=2 -- true true
	for ((k = 0; k < K; k++)); do
		for ((i = 0; i < 2; i++)); do
			case $(( (k + i) % 2 )) in
			0)	t0=$(now_ns)
				orch_run "$d/orch.$k" --rounds="$R" -- true true ||
				    echo "orch block $k failed" >&2
				echo $(( $(now_ns) - t0 )) > "$d/orch.$k.ns" ;;
			1)	t0=$(now_ns)
				hyperfine -N --style none --runs "$R" true true \
				    > /dev/null 2>&1
				echo $(( $(now_ns) - t0 )) > "$d/hf.$k.ns" ;;
			esac
		done
		jq -n -c --argjson k "$k" --argjson load "$(load1)" \
		    --argjson orch "$(cat "$d/orch.$k.ns")" \
		    --argjson hf "$(cat "$d/hf.$k.ns")" \
		    --argjson floors "$(csv_values "$d/orch.$k/samples.csv" '(floor)' wall_ns | wc -l)" \
		    '{k: $k, load: $load, orch_ns: $orch, hf_ns: $hf, floor_runs: $floors}' >> "$d/blocks.jsonl"
		printf '  block %d: orch %s ms, hyperfine %s ms\n' "$k" \
		    "$(( $(cat "$d/orch.$k.ns") / 1000000 ))" "$(( $(cat "$d/hf.$k.ns") / 1000000 ))" >&2
	done
	# true vs /bin/echo x: orch's verdict, three runs, each beside a
	# hyperfine run of the same two commands.
	: > "$d/short.jsonl"
	for ((k = 0; k < 3; k++)); do
		orch_run "$d/short.$k" --rounds="$R" -- true "$ECHO x" ||
		    echo "orch short run $k failed" >&2
		hyperfine -N --style none --runs "$R" --export-json "$d/shorthf.$k.json" \
		    true "$ECHO x" > /dev/null 2>&1
		jq -n -c --argjson load "$(load1)" --slurpfile o "$d/short.$k/summary.json" \
		    --slurpfile h "$d/shorthf.$k.json" \
		    --arg quantity "$(sed -n 's/^  compared on local: //p' "$d/short.$k.log" | head -1)" \
		    '([$o[0].comparisons[] | select(.primary)][0]) as $c |
		    {load: $load, quantity: $quantity,
		      verdict: $c.verdict, ratio: $c.ratio, ci: [$c.ci_low, $c.ci_high],
		      hf_ratio: ($h[0].results[1].median / $h[0].results[0].median)}' >> "$d/short.jsonl"
	done
	# The same as a user types it: no --rounds (rounds = auto, blocks of
	# 10, a 30 s budget), each beside hyperfine's own default count of runs.
	: > "$d/auto.jsonl"
	for ((k = 0; k < 3; k++)); do
		t0=$(now_ns)
		orch_run "$d/auto.$k" -- true "$ECHO x" ||
		    echo "orch default run $k failed" >&2
		t=$(( $(now_ns) - t0 ))
		t0=$(now_ns)
		hyperfine -N --style none --export-json "$d/autohf.$k.json" \
		    true "$ECHO x" > /dev/null 2>&1
		jq -n -c --argjson load "$(load1)" --slurpfile o "$d/auto.$k/summary.json" \
		    --slurpfile h "$d/autohf.$k.json" --argjson wall "$t" \
		    --argjson hfwall "$(( $(now_ns) - t0 ))" \
		    '([$o[0].comparisons[] | select(.primary)][0]) as $c |
		    {load: $load, verdict: $c.verdict, ratio: $c.ratio,
		      ci: [$c.ci_low, $c.ci_high], rounds: $o[0].hosts[0].rounds_used,
		      stop: $o[0].hosts[0].stop, wall_ns: $wall,
		      hf_runs: ($h[0].results | map(.times | length)),
		      hf_ratio: ($h[0].results[1].median / $h[0].results[0].median),
		      hf_wall_ns: $hfwall}' >> "$d/auto.jsonl"
	done
	jq -s --slurpfile short <(jq -s . "$d/short.jsonl") \
	    --slurpfile auto <(jq -s . "$d/auto.jsonl") "$JQ_LIB"'
	  . as $b | {blocks: $b, rounds: '"$R"', K: ($b | length),
	    orch_ns: ($b | map(.orch_ns) | median), hf_ns: ($b | map(.hf_ns) | median),
	    ratio: ($b | map(.orch_ns / .hf_ns) | median),
	    ratio_range: ($b | map(.orch_ns / .hf_ns) | [min, max]),
	    floor_runs: ($b | map(.floor_runs) | median),
	    short: $short[0],
	    short_decided: ($short[0] | map(select(.verdict == "worse")) | length),
	    short_bad: ($short[0] | map(select(.verdict == "invalid" or .verdict == "better")) | length),
	    auto: $auto[0],
	    auto_decided: ($auto[0] | map(select(.verdict == "worse")) | length)}' \
	    "$d/blocks.jsonl" > "$d/data.json"
	section_end "$d/data.json"
}

# ======================================================================
# 2. Agreement with hyperfine: gzip -1 vs gzip -9
# ======================================================================
# agree_run K: orch run K of the agree section, from the top of the tree
# with the paths relative to it where they are under it, and the agent in
# a fresh /tmp/orch-agree.XXXXXX (the agent records its workdir resolved),
# so the record names no path of this machine; then its record
# (samples.msgpack, all that orch report and orch doc need: 16 KiB) kept
# as bench/records/agree-K, which docs/performance.md's marks quote.
agree_run() {
	local k=$1 rd=${SECTION_DIR#"$ROOT"/} rec=$ROOT/bench/records/agree-$1 wd
	wd=$(mktemp -d /tmp/orch-agree.XXXXXX) || die "mktemp failed"
	rm -rf "$rd/orch.$k"
	ORCH_WORKDIR=$wd "${ORCH#"$ROOT"/}" run \
	    --max-load=0 --out="$rd/orch.$k" "$rd/gzip.ini" > "$rd/orch.$k.log" 2>&1
	ORCH_WORKDIR=$wd clear_stale_agent
	rm -rf "$wd" "$rec"
	mkdir -p "$rec"
	cp "$rd/orch.$k/samples.msgpack" "$rec/"
}

sec_agree() {
	local d R GZ IN k
	section_begin agree "Agreement with hyperfine: gzip -1 vs gzip -9 on the same input"
	d=$SECTION_DIR
	R=$(q 20 6)
	GZ=$(command -v gzip)
	IN=${d#"$ROOT"/}/input.txt	# relative: the record names it
	seq 1 400000 > "$IN"		# 2.7 MB of text, the same every time
	cat > "$d/gzip.ini" <<EOF
[suite]
name = gzip
rounds = $R
warmup = 2
subtract_floor = no   ; hyperfine -N subtracts nothing either
reference = L1
[variant.L1]
bin = $GZ
args = -c -1
[variant.L9]
bin = $GZ
args = -c -9
[bench.gzip]
args = {file:input}
files = input=$IN
metrics = wall_ns
timeout = 60
EOF
	show "$d/gzip.ini"
	cmd "$ORCH run --max-load=0 --out=DIR $d/gzip.ini"
	cmd "hyperfine -N --output=pipe --warmup 2 --runs $R --export-json FILE '$GZ -c -1 INPUT' '$GZ -c -9 INPUT'"
	cmd "INPUT: seq 1 400000 (2.7 MB); stdout goes to a pipe the harness reads in both (orch's agent parses it; hyperfine --output=pipe)"
	: > "$d/pairs.jsonl"
	for ((k = 0; k < $(q 2 1); k++)); do
		# ABBA: orch, hyperfine, hyperfine, orch over two pairs.
		if (( k % 2 == 0 )); then
			agree_run "$k"
			hyperfine -N --style none --output=pipe --warmup 2 --runs "$R" \
			    --export-json "$d/hf.$k.json" "$GZ -c -1 $IN" "$GZ -c -9 $IN" >/dev/null 2>&1
		else
			hyperfine -N --style none --output=pipe --warmup 2 --runs "$R" \
			    --export-json "$d/hf.$k.json" "$GZ -c -1 $IN" "$GZ -c -9 $IN" >/dev/null 2>&1
			agree_run "$k"
		fi
		jq -n -c --argjson k "$k" --slurpfile s "$d/orch.$k/summary.json" \
		    --slurpfile h "$d/hf.$k.json" "$JQ_LIB"'
		  ($s[0].comparisons[] | select(.metric == "wall_ns")) as $c |
		  ($s[0].results | map(select(.metric == "wall_ns"))) as $res |
		  $h[0].results as $hr |
		  ($hr[1].mean / $hr[0].mean) as $hratio |
		  ($hratio * ((($hr[0].stddev / $hr[0].mean) | . * .) +
		              (($hr[1].stddev / $hr[1].mean) | . * .) | sqrt)) as $hsig |
		  {k: $k,
		   orch_ratio: $c.ratio, orch_lo: $c.ci_low, orch_hi: $c.ci_high,
		   orch_verdict: $c.verdict, orch_n: $c.n,
		   orch_l1_ms: (($res[] | select(.variant == "L1") | .median) / 1e6),
		   orch_l9_ms: (($res[] | select(.variant == "L9") | .median) / 1e6),
		   hf_ratio_mean: $hratio, hf_sigma: $hsig,
		   hf_lo: ($hratio - $hsig), hf_hi: ($hratio + $hsig),
		   hf_ratio_median: ($hr[1].median / $hr[0].median),
		   hf_l1_ms: ($hr[0].median * 1e3), hf_l9_ms: ($hr[1].median * 1e3),
		   agree: (($c.ci_low <= $hratio + $hsig) and ($hratio - $hsig <= $c.ci_high))}' \
		    >> "$d/pairs.jsonl"
		tail -1 "$d/pairs.jsonl" >&2
	done
	jq -s '{pairs: ., agree: (map(.agree) | all)}' "$d/pairs.jsonl" > "$d/data.json"
	section_end "$d/data.json"
}

# ======================================================================
# 3 + 4. The lab: fan-out and push
# ======================================================================
LAB_IS_UP=0
lab_start() {
	local n=$1 t0 i
	[ "$LAB_IS_UP" = 1 ] && return 0
	export LAB_SSHD=$BB/lab-sshd LAB_READY_SECS=60
	. "$ROOT/tests/lab/lab.sh"
	t0=$(now_ns)
	lab_up "$n" || return 1
	LAB_UP_NS=$(( $(now_ns) - t0 ))
	export ORCH_KNOWN_HOSTS=$LAB_KNOWN_HOSTS
	LAB_PIDS=()
	for ((i = 1; i <= n; i++)); do
		LAB_PIDS[i]=$(lab_pid "h$i")
	done
	LAB_IS_UP=1
	t0=$(now_ns)
	"$ORCH" deploy --inventory="$LAB_INVENTORY" --hosts=lab > "$OUT/lab-deploy.log" 2>&1 ||
	    { cat "$OUT/lab-deploy.log" >&2; return 1; }
	LAB_DEPLOY_NS=$(( $(now_ns) - t0 ))
}

# hosts_list N: h1,h2,...,hN
hosts_list() { seq -s, -f 'h%g' 1 "$1"; }

# remote_cpu_ns N: the CPU time of every process that served h1..hN's
# sessions -- sshd, the shells, the agents and what they ran -- as the
# hosts' listening sshd have reaped it (their cutime + cstime).
CLK_TCK=$(getconf CLK_TCK)
remote_cpu_ns() {
	local n=$1 i t=0 v
	for ((i = 1; i <= n; i++)); do
		v=$(awk '{print $16 + $17}' "/proc/${LAB_PIDS[i]}/stat" 2>/dev/null)
		t=$(( t + ${v:-0} ))
	done
	echo $(( t * 1000000000 / CLK_TCK ))
}

# timed_orch DIR JSONL LABEL ARGS...: runs orch under /usr/bin/time -v and
# appends one line of wall, CPU, max RSS and the hosts' outcome.
# With REMOTE_N set, also the remote side's CPU (remote_cpu_ns REMOTE_N).
timed_orch() {
	local dir=$1 jl=$2 label=$3 rc=0 t0 t1 r0=0 r1=0 rn=${REMOTE_N:-0}
	shift 3
	rm -rf "$dir"
	[ "$rn" -gt 0 ] && r0=$(remote_cpu_ns "$rn")
	t0=$(now_ns)
	/usr/bin/time -v -o "$dir.time" "$ORCH" run --max-load=0 --out="$dir" "$@" > "$dir.log" 2>&1 || rc=$?
	t1=$(now_ns)
	if [ "$rn" -gt 0 ]; then
		sleep 0.5	# the sessions end just after orch does
		r1=$(remote_cpu_ns "$rn")
	fi
	jq -n -c --arg lbl "$label" --argjson rc "$rc" --argjson wall_ns $((t1 - t0)) \
	    --argjson remote_ns $((r1 - r0)) \
	    --argjson user "$(awk -F': ' '/User time/ {print $2}' "$dir.time")" \
	    --argjson sys "$(awk -F': ' '/System time/ {print $2}' "$dir.time")" \
	    --argjson maxrss "$(awk -F': ' '/Maximum resident/ {print $2}' "$dir.time")" \
	    --argjson load "$(load1)" \
	    --slurpfile s "$dir/summary.json" \
	    '{"label": $lbl, rc: $rc, wall_ns: $wall_ns, cpu_s: ($user + $sys), maxrss_kb: $maxrss,
	      remote_cpu_s: ($remote_ns / 1e9),
	      load: $load, hosts: ($s[0].hosts | length),
	      hosts_ok: ([$s[0].hosts[] | select(.status == "ok")] | length),
	      pushed_bytes: ([$s[0].hosts[].pushed_bytes // 0] | add),
	      pushed_files: ([$s[0].hosts[].pushed_files // 0] | add)}' >> "$jl"
}

sec_fanout() {
	local d reps r n order
	section_begin fanout "Fan-out: one round of a trivial suite on 1, 4, 16 and 32 lab hosts"
	d=$SECTION_DIR
	if ! lab_start 32; then
		section_fail "the lab did not come up (tests/lab/lab.sh, 32 hosts)"
		return
	fi
	cat > "$d/fan.ini" <<EOF
[suite]
name = fanout
rounds = 1
warmup = 0
[variant.A]
bin = $NOOP
[variant.B]
bin = $NOOP
[bench.noop]
metrics = wall_ns
timeout = 30
EOF
	show "$BB/lab-sshd"
	cmd ". tests/lab/lab.sh; LAB_SSHD=bench/out/bin/lab-sshd lab_up 32  # netns when root; sessions get an empty HOME"
	cmd "$ORCH deploy --inventory=\$LAB_INVENTORY --hosts=lab"
	show "$d/fan.ini"
	cmd "/usr/bin/time -v $ORCH run --inventory=\$LAB_INVENTORY --hosts=h1,...,hN --max-load=0 --out=DIR $d/fan.ini"
	cmd "peer: for h in h1 ... hN; do ssh -F \$LAB_SSH_CONFIG \$h \$LAB/\$h/wd/bin/orch-agent --version & done; wait  # one OpenSSH connection and command per host, as orch needs at least"
	# ssh_fan N REP: the peer, OpenSSH running one command on N hosts at
	# once; prints its line.
	ssh_fan() {
		local n=$1 r0 r1 t0 t1
		r0=$(remote_cpu_ns "$n")
		t0=$(now_ns)
		N=$n /usr/bin/time -f '%U %S' -o "$d/ssh.time" bash -c '
		    for ((i = 1; i <= N; i++)); do
			ssh -F "$LAB_SSH_CONFIG" "h$i" "$LAB/h$i/wd/bin/orch-agent" --version > /dev/null &
		    done
		    wait'
		t1=$(now_ns)
		sleep 0.5
		r1=$(remote_cpu_ns "$n")
		jq -n -c --arg n "$n" --argjson r "$2" --argjson w $((t1 - t0)) \
		    --argjson cpu "$(awk '{print $1 + $2}' "$d/ssh.time")" \
		    --argjson remote_ns $((r1 - r0)) --argjson load "$(load1)" \
		    '{"label": $n, rep: $r, wall_ns: $w, cpu_s: $cpu, remote_cpu_s: ($remote_ns / 1e9), load: $load}'
	}
	: > "$d/ssh.jsonl"
	# The first run on every host pushes noop into its cache.
	timed_orch "$d/warm" "$d/warm.jsonl" warm --inventory="$LAB_INVENTORY" --hosts=lab "$d/fan.ini"
	: > "$d/runs.jsonl"
	reps=$(q 3 1)
	for ((r = 0; r < reps; r++)); do
		if (( r % 2 == 0 )); then order="1 4 16 32"; else order="32 16 4 1"; fi
		for n in $order; do
			REMOTE_N=$n timed_orch "$d/run.$n.$r" "$d/runs.jsonl" "$n" \
			    --inventory="$LAB_INVENTORY" --hosts="$(hosts_list "$n")" "$d/fan.ini"
			tail -1 "$d/runs.jsonl" >&2
			ssh_fan "$n" "$r" >> "$d/ssh.jsonl"
			tail -1 "$d/ssh.jsonl" >&2
		done
	done
	# Where the CPU of a 32-host run goes, by process (perf, system-wide):
	# the hosts' sshd, shells and agents, the coordinator, the samples.
	local prof=null
	if command -v perf >/dev/null 2>&1; then
		cmd "perf record -a -F 499 -o FILE -- $ORCH run ... --hosts=h1,...,h32 $d/fan.ini; perf report --sort comm -g none  # CPU by process over the run"
		rm -rf "$d/prof"
		if perf record -q -a -F 499 -o "$d/perf.data" -- "$ORCH" run --max-load=0 \
		    --inventory="$LAB_INVENTORY" --hosts="$(hosts_list 32)" --out="$d/prof" \
		    "$d/fan.ini" > "$d/prof.log" 2>&1; then
			perf report -q -i "$d/perf.data" --sort comm -g none --stdio 2>/dev/null |
			    awk '$1 ~ /%$/ {sub(/%/, "", $1); c = $2
				if (c == "sshd") k = "sshd (connections, key exchange, privilege separation, sessions)"
				else if (c == "orch-agent") k = "orch-agent (the agents, and each program until its exec replaces the name)"
				else if (c == "orch") k = "orch (the coordinator)"
				else if (c == "bash" || c == "sh" || c == "dash") k = "login shells (one per remote command)"
				else if (c == "swapper") k = "idle"
				else if (c == "orch-null" || c ~ /^[0-9a-f]+$/) k = "the benchmarks (no-op samples, floor runs)"
				else k = "other (kernel threads, perf, ...)"
				t[k] += $1 }
			    END {for (k in t) printf "%s\t%.2f\n", k, t[k]}' |
			    jq -R -s -c 'split("\n") | map(select(length > 0) | split("\t") |
				{what: .[0], pct: (.[1] | tonumber)}) | sort_by(-.pct)' > "$d/prof.json"
			prof=$(cat "$d/prof.json")
		fi
		rm -f "$d/perf.data"
	fi
	# What a remote command costs here with the user's real rc files (the
	# reason the bench's lab gives sessions an empty HOME).
	local rc_ns=null
	if [ -r "$HOME/.bashrc" ]; then
		/usr/bin/time -f '%e %U %S' -o "$d/bashrc.time" bash -c ". $HOME/.bashrc" >/dev/null 2>&1
		rc_ns=$(awk '{printf "%.0f", ($2 + $3) * 1e9}' "$d/bashrc.time")
		cmd "/usr/bin/time bash -c '. ~/.bashrc'  # the CPU a remote command's shell spends on rc files here"
	fi
	jq -s --argjson up "$LAB_UP_NS" --argjson deploy "$LAB_DEPLOY_NS" \
	    --slurpfile ssh <(jq -s . "$d/ssh.jsonl") \
	    --arg mode "$LAB_MODE" --argjson rc "$rc_ns" --argjson prof "$prof" "$JQ_LIB"'
	  . as $runs |
	  [1, 4, 16, 32] | map(. as $n | ($runs | map(select(.label == ($n | tostring)))) as $x |
	    {hosts: $n, reps: ($x | length),
	     ok: ($x | map(.hosts_ok == $n and .rc == 0) | all),
	     wall_ns: ($x | map(.wall_ns) | median),
	     wall_min_ns: ($x | map(.wall_ns) | min),
	     cpu_s: ($x | map(.cpu_s) | median),
	     remote_cpu_s: ($x | map(.remote_cpu_s) | median),
	     maxrss_kb: ($x | map(.maxrss_kb) | median)}) as $t |
	  [1, 4, 16, 32] | map(. as $n | ($ssh[0] | map(select(.label == ($n | tostring)))) as $x |
	    {hosts: $n, wall_ns: ($x | map(.wall_ns) | median), cpu_s: ($x | map(.cpu_s) | median),
	     remote_cpu_s: ($x | map(.remote_cpu_s) | median)}) as $p |
	  {runs: $runs, table: $t, ssh: $p, ssh_runs: $ssh[0], ssh_ratio_32_1: ($p[3].wall_ns / $p[0].wall_ns),
	   lab_mode: $mode, lab_up_ns: $up, deploy_ns: $deploy,
	   bashrc_cpu_ns: $rc, profile: $prof,
	   ratio_32_1: ($t[3].wall_ns / $t[0].wall_ns),
	   cpu_per_host_s: (($t[3].cpu_s - $t[0].cpu_s) / 31),
	   remote_cpu_per_host_s: ($t[3].remote_cpu_s / 32),
	   cores: '"$(nproc)"',
	   rss_per_host_kb: (($t[3].maxrss_kb - $t[0].maxrss_kb) / 31)}' \
	    "$d/runs.jsonl" > "$d/data.json"
	section_end "$d/data.json"
}

sec_push() {
	local d big sha reps r h t0 t1 r0 r1 MiB=100 order step hosts
	section_begin push "Push: 100 MiB to 4 lab hosts, orch vs scp; the second push"
	d=$SECTION_DIR
	if ! lab_start 32; then
		section_fail "the lab did not come up (tests/lab/lab.sh)"
		return
	fi
	big=$d/big.bin
	head -c $((MiB * 1048576)) /dev/urandom > "$big"
	sha=$(sha256sum "$big" | cut -d' ' -f1)
	hosts=$(hosts_list 4)
	for s in push nopush; do
		cat > "$d/$s.ini" <<EOF
[suite]
name = $s
rounds = 1
warmup = 0
[variant.A]
bin = $NOOP
[variant.B]
bin = $NOOP
[bench.noop]
metrics = wall_ns
timeout = 30
EOF
	done
	printf 'args = {file:big}\nfiles = big=%s\n' "$big" >> "$d/push.ini"
	cmd "head -c 100M /dev/urandom > BIG"
	show "$d/push.ini"
	cmd "$ORCH run --inventory=\$LAB_INVENTORY --hosts=h1,h2,h3,h4 --max-load=0 --out=DIR $d/push.ini  # and $d/nopush.ini: the same without args and files"
	cmd "for h in h1 h2 h3 h4; do scp -q -F \$LAB_SSH_CONFIG BIG \$h:\$LAB/\$h/wd/scp.bin & done; wait"
	cmd "between repetitions: rm \$LAB/hN/wd/cache/SHA256-OF-BIG (the first push is a first push again)"
	# Warm: noop in every cache, so the no-push run pushes nothing.
	timed_orch "$d/warm" "$d/warm.jsonl" warm --inventory="$LAB_INVENTORY" --hosts="$hosts" "$d/nopush.ini"
	: > "$d/runs.jsonl"
	reps=$(q 3 1)
	for ((r = 0; r < reps; r++)); do
		for h in 1 2 3 4; do rm -f "$LAB/h$h/wd/cache/$sha" "$LAB/h$h/wd/scp.bin"; done
		if (( r % 2 == 0 )); then order="scp nopush first second"
		else order="nopush first second scp"; fi
		for step in $order; do
			case $step in
			scp)	r0=$(remote_cpu_ns 4)
				t0=$(now_ns)
				BIG=$big /usr/bin/time -f '%U %S' -o "$d/scp.$r.time" bash -c '
				    for h in 1 2 3 4; do
					scp -q -F "$LAB_SSH_CONFIG" "$BIG" "h$h:$LAB/h$h/wd/scp.bin" &
				    done
				    wait'
				t1=$(now_ns)
				sleep 0.5
				r1=$(remote_cpu_ns 4)
				jq -n -c --argjson w $((t1 - t0)) --argjson r "$r" \
				    --argjson cpu "$(awk '{print $1 + $2}' "$d/scp.$r.time")" \
				    --argjson remote_ns $((r1 - r0)) --argjson load "$(load1)" \
				    --argjson ok "$(for h in 1 2 3 4; do cmp -s "$big" "$LAB/h$h/wd/scp.bin" && echo 1; done | wc -l)" \
				    '{"label": "scp", rep: $r, wall_ns: $w, hosts_ok: $ok, pushed_bytes: null,
				      cpu_s: $cpu, remote_cpu_s: ($remote_ns / 1e9), load: $load}' >> "$d/runs.jsonl"
				rm -f "$LAB"/h[1-4]/wd/scp.bin ;;
			nopush)	REMOTE_N=4 timed_orch "$d/nopush.$r" "$d/runs.jsonl" nopush \
				    --inventory="$LAB_INVENTORY" --hosts="$hosts" "$d/nopush.ini" ;;
			first|second)
				REMOTE_N=4 timed_orch "$d/$step.$r" "$d/runs.jsonl" "$step" \
				    --inventory="$LAB_INVENTORY" --hosts="$hosts" "$d/push.ini" ;;
			esac
			tail -1 "$d/runs.jsonl" >&2
		done
	done
	jq -s --argjson mib "$MiB" "$JQ_LIB"'
	  . as $runs | ($mib * 1048576 * 4) as $bytes |
	  def w(l): $runs | map(select(.label == l) | .wall_ns) | median;
	  def c(l; k): $runs | map(select(.label == l) | .[k]) | median;
	  {runs: $runs, bytes: $bytes,
	   scp_cpu_s: c("scp"; "cpu_s"), scp_remote_cpu_s: c("scp"; "remote_cpu_s"),
	   first_cpu_s: c("first"; "cpu_s"), first_remote_cpu_s: c("first"; "remote_cpu_s"),
	   nopush_cpu_s: c("nopush"; "cpu_s"), nopush_remote_cpu_s: c("nopush"; "remote_cpu_s"),
	   second_cpu_s: c("second"; "cpu_s"), second_remote_cpu_s: c("second"; "remote_cpu_s"),
	   scp_ns: w("scp"), nopush_ns: w("nopush"), first_ns: w("first"), second_ns: w("second"),
	   first_pushed: ($runs | map(select(.label == "first") | .pushed_bytes) | min),
	   second_pushed: ($runs | map(select(.label == "second") | .pushed_bytes) | max),
	   scp_ok: ($runs | map(select(.label == "scp") | .hosts_ok == 4) | all)} |
	  .scp_mbs = (.bytes / .scp_ns * 1e3) |
	  .orch_gross_mbs = (.bytes / .first_ns * 1e3) |
	  .orch_net_mbs = (.bytes / (.first_ns - .nopush_ns) * 1e3) |
	  .ratio_net = (.orch_net_mbs / .scp_mbs) |
	  .ratio_gross = (.orch_gross_mbs / .scp_mbs) |
	  .second_vs_nopush = (.second_ns / .nopush_ns)' "$d/runs.jsonl" > "$d/data.json"
	rm -f "$big"
	section_end "$d/data.json"
}

# ======================================================================
# 5. Statistical power
# ======================================================================
sec_power() {
	local d ITER IT10 AA_RUNS i n rep reps NS T D t0 b
	section_begin power "Statistical power on this machine: A/A, a 3% slowdown, a slow drift"
	d=$SECTION_DIR
	ITER=$("$BB/slowdown" --calibrate=5000)
	IT10=$("$BB/slowdown" --calibrate=10000)
	cmd "bench/out/bin/slowdown --calibrate=5000  # ITER for ~5 ms of work: $ITER"

	# (a) A/A: the same program as both variants, 6 benchmarks a run.
	AA_RUNS=$(q 80 4)
	{
		printf '[suite]\nname = aa-power\nrounds = 10\nwarmup = 1\nmin_effect = 0.01\n'
		printf '[variant.A]\nbin = %s\n[variant.A2]\nbin = %s\n' "$BB/slowdown" "$BB/slowdown"
		for b in 1 2 3 4 5 6; do
			printf '[bench.aa%d]\nargs = %s\nmetrics = elapsed_ns, wall_ns\nchecksum = checksum\ntimeout = 30\n' "$b" "$ITER"
		done
	} > "$d/aa.ini"
	show "$d/aa.ini"
	cmd "A/A: $AA_RUNS x $ORCH run --max-load=0 --out=DIR $d/aa.ini"
	: > "$d/aa.jsonl"
	for ((i = 0; i < AA_RUNS; i++)); do
		orch_run "$d/aa.$i" "$d/aa.ini"
		jq -c '.comparisons[] | {metric, verdict, ratio, ci_low, ci_high}' "$d/aa.$i/summary.json" >> "$d/aa.jsonl"
		rm -f "$d/aa.$i/samples.csv" "$d/aa.$i/report.html"
	done

	# (a') the statistics alone: synthetic A/A records (independent
	# log-normal noise, 5%), 10 rounds, rendered by orch report.
	cmd "synthetic A/A: bench/out/bin/gen-record DIR 2 64 10 $NOOP 1 0.05 SEED; $ORCH report DIR  # SEED 1..4: 512 comparisons, no machine involved"
	: > "$d/synth.jsonl"
	for i in 1 2 3 4; do
		rm -rf "$d/synth.$i"; mkdir -p "$d/synth.$i"
		"$BB/gen-record" "$d/synth.$i" 2 64 10 "$NOOP" 1 0.05 "$i" &&
		    "$ORCH" report "$d/synth.$i" > "$d/synth.$i.log" 2>&1 &&
		    jq -c '.comparisons[] | select(.metric == "elapsed_ns") | {metric: "synthetic", verdict, ratio, ci_low, ci_high}' \
		    "$d/synth.$i/summary.json" >> "$d/synth.jsonl"
		rm -rf "$d/synth.$i"
	done

	# (b) an injected 3% slowdown: rounds needed to see `worse`.
	{
		printf '[suite]\nname = slow3\nrounds = 10\nwarmup = 1\nmin_effect = 0.01\n'
		printf '[variant.A]\nbin = %s\n[variant.B]\nbin = %s\nargs = --pct=3\n' "$BB/slowdown" "$BB/slowdown"
		for b in 1 2; do
			printf '[bench.s%d]\nargs = %s\nmetrics = elapsed_ns, wall_ns\nchecksum = checksum\ntimeout = 30\n' "$b" "$ITER"
		done
	} > "$d/slow3.ini"
	NS=$(q "5 10 20 40 80 160" "5 20")
	reps=$(q 5 1)
	show "$d/slow3.ini"
	cmd "3% slowdown: for N in $NS: $reps x $ORCH run --max-load=0 --rounds=N --out=DIR $d/slow3.ini"
	: > "$d/slow3.jsonl"
	for ((rep = 0; rep < reps; rep++)); do
		for n in $NS; do
			orch_run "$d/slow3.$n.$rep" --rounds="$n" "$d/slow3.ini"
			jq -c --argjson n "$n" '.comparisons[] | select(.metric == "elapsed_ns") |
			    {rounds: $n, verdict, ratio, ci_low, ci_high}' "$d/slow3.$n.$rep/summary.json" >> "$d/slow3.jsonl"
			rm -f "$d/slow3.$n.$rep/samples.csv" "$d/slow3.$n.$rep/report.html"
		done
	done

	# (c) drift: the work grows D% per second of wall clock since t0, for
	# both variants (B does 3% more). Interleaved = one orch run of A and
	# B; sequential = all A (an orch run of A vs A), then all B (B vs B);
	# hyperfine runs its commands one after the other, so it is sequential.
	drift_suite() {	# NAME ROUNDS T0 D VARIANT_ARGS_A VARIANT_ARGS_B: prints a suite
		printf '[suite]\nname = %s\nrounds = %s\nwarmup = 1\nmin_effect = 0.01\n' "$1" "$2"
		printf '[variant.A]\nbin = %s\nargs = %s --t0=%s --drift=%s\n' "$BB/slowdown" "$5" "$3" "$4"
		printf '[variant.B]\nbin = %s\nargs = %s --t0=%s --drift=%s\n' "$BB/slowdown" "$6" "$3" "$4"
		printf '[bench.work]\nargs = %s\nmetrics = elapsed_ns, wall_ns\nchecksum = checksum\ntimeout = 30\n' "$IT10"
	}
	local RR
	RR=$(q 30 10)
	# Calibrate the drift to the interleaved run's length: ~10% over it.
	drift_suite cal "$RR" 0 0 "--pct=0" "--pct=3" > "$d/cal.ini"
	show "$d/cal.ini"	# the shape of every drift suite (--t0 and --drift set per run)
	t0=$(now_ns)
	orch_run "$d/cal" "$d/cal.ini"
	T=$(( $(now_ns) - t0 ))
	D=$(awk -v t="$T" 'BEGIN {printf "%.3f", 10 / (t / 1e9)}')
	cmd "drift: bench/out/bin/slowdown ITER10 [--pct=3] --t0=START --drift=$D  # $D% more work per second since START (~10% over one interleaved run)"
	cmd "interleaved: bin/orch run SUITE(A: --pct=0, B: --pct=3, $RR rounds)"
	cmd "sequential: bin/orch run SUITE(A vs A, $((RR / 2)) rounds); bin/orch run SUITE(B vs B, $((RR / 2)) rounds)  # the same $((2 * RR)) samples, A first then B"
	cmd "hyperfine -N --warmup 1 --runs $RR 'slowdown ITER10 --pct=0 ...' 'slowdown ITER10 --pct=3 ...'"
	: > "$d/drift.jsonl"
	reps=$(q 5 1)
	for ((rep = 0; rep < reps; rep++)); do
		for dr in 0 "$D"; do
			# interleaved
			t0=$(date +%s.%N)
			drift_suite int "$RR" "$t0" "$dr" "--pct=0" "--pct=3" > "$d/int.$dr.$rep.ini"
			orch_run "$d/int.$dr.$rep" "$d/int.$dr.$rep.ini"
			jq -c --arg dr "$dr" --argjson rep "$rep" '.comparisons[] | select(.metric == "elapsed_ns") |
			    {method: "interleaved", drift: ($dr | tonumber), rep: $rep, ratio, ci_low, ci_high}' \
			    "$d/int.$dr.$rep/summary.json" >> "$d/drift.jsonl"
			# sequential: A vs A, then B vs B, one t0 for both
			t0=$(date +%s.%N)
			drift_suite seqa "$((RR / 2))" "$t0" "$dr" "--pct=0" "--pct=0" > "$d/seqa.$dr.$rep.ini"
			drift_suite seqb "$((RR / 2))" "$t0" "$dr" "--pct=3" "--pct=3" > "$d/seqb.$dr.$rep.ini"
			orch_run "$d/seqa.$dr.$rep" "$d/seqa.$dr.$rep.ini"
			orch_run "$d/seqb.$dr.$rep" "$d/seqb.$dr.$rep.ini"
			jq -n -c --arg dr "$dr" --argjson rep "$rep" \
			    --argjson a "$(csv_values "$d/seqa.$dr.$rep/samples.csv" work elapsed_ns | json_array)" \
			    --argjson b "$(csv_values "$d/seqb.$dr.$rep/samples.csv" work elapsed_ns | json_array)" \
			    "$JQ_LIB"'{method: "sequential", drift: ($dr | tonumber), rep: $rep,
			      ratio: (($b | median) / ($a | median))}' >> "$d/drift.jsonl"
			# hyperfine (sequential by design)
			t0=$(date +%s.%N)
			hyperfine -N --style none --warmup 1 --runs "$RR" --export-json "$d/hf.$dr.$rep.json" \
			    "$BB/slowdown $IT10 --pct=0 --t0=$t0 --drift=$dr" \
			    "$BB/slowdown $IT10 --pct=3 --t0=$t0 --drift=$dr" >/dev/null 2>&1
			jq -c --arg dr "$dr" --argjson rep "$rep" '{method: "hyperfine", drift: ($dr | tonumber), rep: $rep,
			    ratio: (.results[1].median / .results[0].median)}' "$d/hf.$dr.$rep.json" >> "$d/drift.jsonl"
		done
	done

	jq -n --slurpfile aa <(cat "$d/aa.jsonl" "$d/synth.jsonl" | jq -s .) --slurpfile s3 <(jq -s . "$d/slow3.jsonl") \
	    --slurpfile dr <(jq -s . "$d/drift.jsonl") --argjson D "$D" --argjson T "$T" \
	    --argjson iter "$ITER" "$JQ_LIB"'
	  # Wilson 95% interval of a proportion k/n.
	  def wilson(k; n): if n == 0 then null else
	    (k / n) as $p | 1.96 as $z | ($z * $z) as $z2 |
	    (($p + $z2 / (2 * n)) / (1 + $z2 / n)) as $c |
	    (($z / (1 + $z2 / n)) * ((($p * (1 - $p) / n) + ($z2 / (4 * n * n))) | sqrt)) as $h |
	    [([$c - $h, 0] | max), ([$c + $h, 1] | min)] end;
	  def aa(m): ($aa[0] | map(select(.metric == m))) as $x |
	    ($x | map(select(.verdict == "better" or .verdict == "worse")) | length) as $f |
	    {metric: m, comparisons: ($x | length), false_verdicts: $f,
	     rate: (if ($x | length) > 0 then $f / ($x | length) else null end),
	     rate_ci: wilson($f; ($x | length)),
	     verdicts: ($x | group_by(.verdict) | map({(.[0].verdict): length}) | add)};
	  ($dr[0]) as $d |
	  def dm(m; x): ($d | map(select(.method == m and ((.drift > 0) == x)) | .ratio) | median);
	  { iter: $iter,
	    aa: [aa("elapsed_ns"), aa("wall_ns"), aa("synthetic")],
	    slow3: ($s3[0] | group_by(.rounds) | map({rounds: .[0].rounds, trials: length,
	      worse: (map(select(.verdict == "worse")) | length),
	      better: (map(select(.verdict == "better")) | length),
	      ratio: (map(.ratio) | median)})),
	    drift_pct_per_s: $D, interleaved_run_ns: $T,
	    drift: $d,
	    drift_table: (["interleaved", "sequential", "hyperfine"] | map(. as $m |
	      {method: $m, no_drift: dm($m; false), drift: dm($m; true)} |
	      .error = (if .no_drift and .drift then .drift / .no_drift - 1 else null end) |
	      # orch ratios are of the program'"'"'s own elapsed_ns, where B does
	      # exactly 3% more steps: 1.03 is the true ratio.
	      .error_true = (if $m != "hyperfine" and .drift then .drift / 1.03 - 1 else null end))) }
	  | .rounds_to_worse = ((.slow3 | map(select(.worse >= 0.8 * .trials and .better == 0)) | .[0].rounds) // null)
	' > "$d/data.json"
	section_end "$d/data.json"
}

# ======================================================================
# 6. Scale of the record
# ======================================================================
sec_scale() {
	local d r dir pid LONG
	section_begin scale "Scale of the record: orch report on up to a million samples; coordinator memory over a long run"
	d=$SECTION_DIR
	: > "$d/report.jsonl"
	cmd "bench/out/bin/gen-record DIR 2 5 ROUNDS $NOOP  # 2 hosts x 5 benches x 2 variants x ROUNDS samples (+ 1 floor run per host and round), through coordinator/store/record.c"
	cmd "/usr/bin/time -v bin/orch report DIR"
	for r in $(q "100 200 400" "50 100") 50000; do
		dir=$d/rec.$r
		rm -rf "$dir"; mkdir -p "$dir"
		"$BB/gen-record" "$dir" 2 5 "$r" "$NOOP" || { echo "gen-record failed" >&2; continue; }
		if [ "$r" -lt 50000 ]; then
			/usr/bin/time -v -o "$dir.time" "$ORCH" report "$dir" > "$dir.log" 2>&1
			jq -n -c --argjson r "$r" --argjson bytes "$(stat -c %s "$dir/samples.msgpack")" \
			    --argjson wall "$(awk -F': ' '/Elapsed/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$dir.time")" \
			    --argjson maxrss "$(awk -F': ' '/Maximum resident/ {print $2}' "$dir.time")" \
			    '{rounds: $r, samples: ($r * 20), floor_runs: ($r * 2), bytes: $bytes,
			      wall_s: $wall, maxrss_kb: $maxrss, finished: true}' >> "$d/report.jsonl"
		else
			# A million samples: bounded, so the bench stays within its
			# budget; peak memory from VmHWM while it runs. Then, when
			# it took more than 5 s, once more to see where the time
			# goes: its stack every 2 s (gdb, when installed; attaching
			# stops it briefly, so that run is not timed).
			local limit el w fin
			limit=$(q 60 20)
			cmd "$ORCH report DIR  # 1M samples, under timeout $limit and /usr/bin/time (wall time, peak RSS)"
			# Every run renders from nothing: the reports of the run
			# before (and deleting 600 MB of CSV) do not count.
			million_fresh() {
				rm -f "$dir/samples.csv" "$dir/summary.json" "$dir/report.md" "$dir/report.html"
				sync
			}
			million_timed() {	# LIMIT: sets fin, el, rss_kb
				million_fresh
				fin=false
				t0=$(now_ns)
				timeout "$1" /usr/bin/time -f '%M' -o "$dir.time" "$ORCH" report "$dir" > "$dir.log" 2>&1 && fin=true
				el=$(( $(now_ns) - t0 ))
				rss_kb=$(tail -1 "$dir.time" 2>/dev/null)
				case $rss_kb in ''|*[!0-9]*) rss_kb=0 ;; esac
			}
			million_run() {	# STACKS_FILE LIMIT: its stack every 2 s; sets fin, el
				local i
				: > "$dir.rss"
				million_fresh
				t0=$(now_ns)
				"$ORCH" report "$dir" > "$dir.log" 2>&1 &
				pid=$!
				watch_rss "$pid" "$dir.rss" 0.2 &
				w=$!
				fin=false
				for ((i = 0; i < $2 * 10; i++)); do
					kill -0 "$pid" 2>/dev/null || { fin=true; break; }
					if [ -n "$1" ] && (( i % 20 == 10 )); then
						printf '%d s: ' $(( (i + 5) / 10 )) >> "$1"
						gdb -p "$pid" -batch -ex 'bt 10' 2>/dev/null |
						    sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([A-Za-z_][A-Za-z0-9_]*\) .*/\2/p' |
						    grep -v -e '^__' -e '^_IO' -e '^main$' | head -5 | paste -sd '<' >> "$1"
					fi
					sleep 0.1
				done
				[ "$fin" = true ] || kill -KILL "$pid" 2>/dev/null
				wait "$pid" 2>/dev/null
				el=$(( $(now_ns) - t0 ))
				wait "$w" 2>/dev/null
			}
			# Three runs once the machine is calm; their median.
			calm 90 1.5
			cmd "$ORCH report DIR  # 3 times, once the 1-minute load is under 1.5 (at most 90 s of waiting): the median"
			local walls="" rep rss_kb maxrss=0
			for rep in 1 2 3; do
				million_timed "$limit"
				walls="$walls $el"
				[ "$rss_kb" -gt "$maxrss" ] && maxrss=$rss_kb
				[ "$fin" = true ] || break
			done
			el=$(printf '%s\n' $walls | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
			jq -n -c --argjson r "$r" --argjson bytes "$(stat -c %s "$dir/samples.msgpack")" \
			    --argjson wall "$(awk -v n="$el" 'BEGIN {printf "%.2f", n / 1e9}')" \
			    --argjson runs "[$(printf '%s\n' $walls | awk '{printf "%s%.2f", (NR > 1 ? "," : ""), $1 / 1e9}')]" \
			    --argjson maxrss "$maxrss" \
			    --argjson fin "$fin" --argjson limit "$limit" \
			    '{rounds: $r, samples: ($r * 20), floor_runs: ($r * 2), bytes: $bytes,
			      wall_s: $wall, runs_s: $runs, maxrss_kb: $maxrss, finished: $fin, limit_s: $limit}' >> "$d/report.jsonl"
			: > "$d/million.stacks"
			if [ "$el" -gt 5000000000 ] && command -v gdb >/dev/null 2>&1; then
				cmd "when over 5 s: $ORCH report DIR again, its stack (gdb -p PID -batch -ex 'bt 10') every 2 s"
				million_run "$d/million.stacks" "$(( el / 1000000000 + 2 < limit ? el / 1000000000 + 2 : limit ))"
			fi
			rm -f "$dir/samples.msgpack" "$dir/samples.csv"
		fi
		tail -1 "$d/report.jsonl" >&2
	done

	# Where the report's time goes, on a small record (callgrind counts
	# instructions; the shape holds at any size).
	dir=$d/rec.cg
	rm -rf "$dir"; mkdir -p "$dir"
	"$BB/gen-record" "$dir" 2 2 100 "$NOOP"
	valgrind --tool=callgrind --callgrind-out-file="$d/report.callgrind" "$ORCH" report "$dir" > /dev/null 2>&1
	# One line per function (callgrind names some twice, by two paths).
	callgrind_annotate --inclusive=yes "$d/report.callgrind" 2>/dev/null |
	    awk '/^ *[0-9,]+ +\([ 0-9.]+%\) +[^ ]/ && !/PROGRAM TOTALS/' |
	    grep -v -e '???:0x' -e 'below main' -e 'libc-start' -e 'libc_start' |
	    sed -e 's/ \[.*\]$//' -e "s#$ROOT/##" -e 's#\./[^ ]*/##' |
	    awk '{fn = $NF; sub(/.*:/, "", fn); if (!(fn in seen) && fn != "main") {seen[fn] = 1; print}}' |
	    head -12 > "$d/report.profile"
	cmd "valgrind --tool=callgrind bin/orch report DIR  # DIR: gen-record DIR 2 2 100 (800 samples)"

	# Coordinator memory over a long local run.
	LONG=$(q 1500 200)
	cat > "$d/long.ini" <<EOF
[suite]
name = long
rounds = $LONG
warmup = 1
[variant.A]
bin = $NOOP
[variant.B]
bin = $NOOP
[bench.noop]
metrics = wall_ns
timeout = 10
EOF
	show "$d/long.ini"
	cmd "$ORCH run --max-load=0 --out=DIR $d/long.ini  # VmRSS of orch read every 0.1 s"
	: > "$d/long.rss"
	rm -rf "$d/long"
	"$ORCH" run --max-load=0 --out="$d/long" "$d/long.ini" > "$d/long.log" 2>&1 &
	pid=$!
	watch_rss "$pid" "$d/long.rss" 0.1
	wait "$pid"
	local ns
	ns=$(csv_samples "$d/long/samples.csv")
	rm -f "$d/long/samples.csv" "$d/long/report.html"
	jq -n --slurpfile rep <(jq -s . "$d/report.jsonl") \
	    --rawfile prof "$d/report.profile" \
	    --rawfile stacks <(cat "$d/million.stacks" 2>/dev/null) \
	    --argjson series "$(awk '{printf "%s[%d,%d]", (NR > 1 ? "," : "["), $1, $2} END {print (NR ? "]" : "[]")}' "$d/long.rss")" \
	    --argjson samples "$ns" "$JQ_LIB"'
	  ($series | length) as $n |
	  # The run proper: leave out the first and last 10% (start-up, and the
	  # report rendered at the end), and always the first reading, taken
	  # before the coordinator has loaded its libraries and started its
	  # threads (a short run has few readings).
	  ($series | .[([1, ($n / 10 | floor)] | max):($n * 9 / 10 | floor)]) as $mid |
	  {report: $rep[0], profile: ($prof | split("\n") | map(select(length > 0))),
	   million_stacks: ($stacks | split("\n") | map(select(length > 0))),
	   long: {samples: $samples, duration_ms: ($series | last | .[0]),
	          rss_start_kb: ($mid | first | .[1]), rss_end_kb: ($mid | last | .[1]),
	          rss_max_kb: ($series | map(.[1]) | max),
	          rss_mid_max_kb: ($mid | map(.[1]) | max),
	          points: $n, series: $series}}
	  | .long.growth_kb_per_1000 = (if .long.samples > 0 then
	      (.long.rss_end_kb - .long.rss_start_kb) / (.long.samples * 0.8 / 1000) else null end)
	  | .per_sample_bytes = ((.report | map(select(.finished and .rounds >= 100)) | sort_by(.samples)) as $f |
	      if ($f | length) >= 2 then (($f | last).maxrss_kb - ($f | first).maxrss_kb) * 1024 /
	        ((($f | last).samples + ($f | last).floor_runs) - (($f | first).samples + ($f | first).floor_runs)) else null end)
	  | .seconds_per_sample = ((.report | map(select(.finished)) | sort_by(.samples)) as $f |
	      if ($f | length) >= 2 then (($f | last).wall_s - ($f | first).wall_s) /
	        (($f | last).samples - ($f | first).samples) else null end)
	  | .million_projection_s = (if .seconds_per_sample then .seconds_per_sample * 1e6 else null end)' \
	    > "$d/data.json"
	section_end "$d/data.json"
}

# ======================================================================
# 7. Adaptive rounds
# ======================================================================
sec_auto() {
	local d ITER runs reps rep nfix budget
	section_begin auto "Adaptive rounds: machine time to a decided answer, rounds = auto against fixed rounds"
	d=$SECTION_DIR
	# (a) simulation through the real record writer, loader and analysis.
	cc $PROG_CFLAGS -I. -o "$BB/calib" tests/stats/calib.c tests/unit/synth.c \
	    "$LIBDIR/libcoord.a" "$LIBDIR/libagent.a" "$LIBDIR/libproto.a" \
	    $(pkg-config --cflags --libs libssh2 nanomsg msgpack libcrypto inih sqlite3) \
	    -lpthread -lm || die "cannot build tests/stats/calib.c"
	runs=$(q 1000 20)
	cmd "bench/out/bin/calib --payoff $runs  # tests/stats/calib.c: 1 host, 1 benchmark, 3% slower at sigma 2% and 5%, 2% and 1.5% at sigma 5%, max_rounds 200"
	"$BB/calib" --payoff "$runs" > "$d/sim.jsonl" || die "calib --payoff failed"

	# (b) this machine: an injected 3% slowdown, auto against the fixed
	# rounds the simulation at sigma 2% needs for the same power.
	ITER=$("$BB/slowdown" --calibrate=5000)
	nfix=$(jq -s '.[0].fixed_rounds' "$d/sim.jsonl")
	[ "$nfix" -gt 0 ] 2>/dev/null || nfix=40
	budget=$(q 600 60)
	for v in auto fixed aa; do
		{
			printf '[suite]\nname = %s\nwarmup = 1\nmin_effect = 0.01\n' "$v"
			case $v in
			auto) printf 'rounds = auto\nbudget = %ss\n' "$budget" ;;
			fixed) printf 'rounds = %s\n' "$nfix" ;;
			aa) printf 'rounds = auto\nbudget = 3s\n' ;;
			esac
			printf '[variant.A]\nbin = %s\n[variant.B]\nbin = %s\n' "$BB/slowdown" "$BB/slowdown"
			[ "$v" = aa ] || printf 'args = --pct=3\n'
			printf '[bench.s]\nargs = %s\nmetrics = elapsed_ns, wall_ns\nchecksum = checksum\ntimeout = 30\n' "$ITER"
		} > "$d/$v.ini"
		show "$d/$v.ini"
	done
	reps=$(q 5 1)
	cmd "$reps x $ORCH run --max-load=0 --out=DIR $d/auto.ini; $reps x $ORCH run --max-load=0 --out=DIR $d/fixed.ini; $ORCH run --max-load=0 --out=DIR $d/aa.ini"
	: > "$d/machine.jsonl"
	for ((rep = 0; rep < reps; rep++)); do
		for v in auto fixed; do
			orch_run "$d/$v.$rep" "$d/$v.ini"
			jq -c --arg v "$v" '{kind: $v, rounds: (.hosts[0].rounds_used // .rounds),
			    stop: (.hosts[0].stop // "fixed"),
			    seconds: ([.results[] | select(.metric == "wall_ns") | .median * .n] | add / 1e9),
			    verdict: ([.comparisons[] | select(.metric == "elapsed_ns") | .verdict][0])}' \
			    "$d/$v.$rep/summary.json" >> "$d/machine.jsonl"
		done
	done
	orch_run "$d/aa.0" "$d/aa.ini"
	jq -c '{kind: "aa", rounds: .hosts[0].rounds_used, stop: .hosts[0].stop,
	    seconds: .hosts[0].seconds, budget: .auto.budget_s,
	    verdict: ([.comparisons[] | select(.metric == "elapsed_ns") | .verdict][0])}' \
	    "$d/aa.0/summary.json" >> "$d/machine.jsonl"
	jq -n --slurpfile sim "$d/sim.jsonl" --slurpfile m "$d/machine.jsonl" \
	    --argjson nfix "$nfix" --argjson iter "$ITER" \
	    '{sim: $sim, machine: $m, fixed_rounds: $nfix, iter: $iter}' > "$d/data.json"
	section_end "$d/data.json"
}

# ======================================================================
ALL="floor whole agree fanout push power scale auto"
SECTIONS=${*:-$ALL}
for s in $SECTIONS; do
	case " $ALL " in *" $s "*) ;; *) die "unknown section '$s' (one of: $ALL)" ;; esac
done
T0=$(now_ns)
rm -f "$OUT/stale-agents.log"
for s in $SECTIONS; do
	"sec_$s"
done
if [ "$LAB_IS_UP" = 1 ]; then
	lab_down
fi
echo "bench: all sections in $(( ($(now_ns) - T0) / 1000000000 )) s" >&2
# The figures of the sections run now, kept (committed) for a later run of
# other sections: bench/render.sh reads them where bench/out has none.
# A smoke run (BENCH_QUICK=1) keeps nothing and renders beside its runs.
if [ "$QUICK" = 1 ]; then
	"$ROOT/bench/render.sh" "$OUT" "$OUT/performance.md"
	echo "bench: BENCH_QUICK: $OUT/performance.md (docs/performance.md and bench/records/sections untouched)" >&2
	exit 0
fi
mkdir -p "$ROOT/bench/records/sections"
for s in $SECTIONS; do
	[ -s "$OUT/$s.json" ] && cp "$OUT/$s.json" "$ROOT/bench/records/sections/$s.json"
done
"$ROOT/bench/render.sh" "$OUT" "$ROOT/docs/performance.md"
# The figures marked from bench/records/ (section 2), from the records.
"$ORCH" doc render docs/performance.md
