#!/usr/bin/env bash
# bench/render.sh [OUTDIR [DOC]]: renders docs/performance.md from the
# files bench/run.sh wrote (bench/out/SECTION.json), or for a section not
# run here, from the copy bench/run.sh kept of its last run
# (bench/records/sections/SECTION.json). Every number in the document comes
# from those files; sections measured nowhere say so.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-bench/out}
DOC=${2:-docs/performance.md}
mkdir -p "$(dirname "$DOC")"
trap 'rm -f "$DOC.tmp"' EXIT

# Shared jq definitions: number formats and the section header.
JQ_DEFS='
def r(n): if . == null then null else (. * pow(10; n) | round) / pow(10; n) end;
def f(n): if . == null then "n/a" else r(n) | tostring end;
def ms: if . == null then "n/a" else (. / 1e6 | f(3)) + " ms" end;
def us: if . == null then "n/a" else (. / 1e3 | f(0)) + " µs" end;
def sec: if . == null then "n/a" else (. / 1e9 | f(2)) + " s" end;
def x: if . == null then "n/a" else (. * 100 | round) as $c | "\($c / 100 | floor).\($c % 100 | tostring | if length < 2 then "0" + . else . end)x" end;
def pct: if . == null then "n/a" else (. * 100 | f(1)) + "%" end;
def mib: if . == null then "n/a" else (. / 1024 | f(1)) + " MiB" end;
def met(c): if c == null then "—" elif c then "**met**" else "**missed**" end;
def header:
  "Measured on `\(.machine.host)`: \(.machine.cpu), \(.machine.cores) cores, \(.machine.mem_gib) GiB, " +
  "Linux \(.machine.kernel) (\(.machine.os)); \(.machine.orch), \(.machine.hyperfine), \(.machine.openssh). " +
  "From \(.started) to \(.ended) (\(.seconds) s); 1-minute load \(.load_start) at the start, \(.load_end) at the end.\n\n" +
  "Run by `make bench` → `bench/run.sh \(.section)`:\n\n```\n" + (.commands | join("\n")) + "\n```\n" +
  ((.files // {}) | to_entries | map("\n`\(.key)`:\n\n```\(if (.key | endswith(".ini")) then "ini" else "sh" end)\n\(.value)\n```\n") | join(""));
'

# sec SECTION: the file of a section's figures: bench/out/SECTION.json when
# it was measured here, else the one the document was last rendered from
# (bench/records/sections/, committed), so that a run of some sections
# keeps the others' figures as they were.
KEPT=bench/records/sections
sec() {
	if [ ! -s "$OUT/$1.json" ] && [ -s "$KEPT/$1.json" ]; then
		echo "$KEPT/$1.json"
	else
		echo "$OUT/$1.json"
	fi
}

# j SECTION FILTER: runs FILTER on the section's figures (raw output).
j() {
	local f
	f=$(sec "$1")
	shift
	if [ ! -s "$f" ]; then
		echo "_Not measured: \`$f\` is missing (run \`make bench\`)._"
		echo
		return 0
	fi
	if ! jq -e '.data | type == "object"' "$f" >/dev/null 2>&1; then
		echo "_Not measured: the section wrote no data (see \`$f\`)._"
		echo
		return 0
	fi
	if jq -e '.data.error' "$f" >/dev/null 2>&1; then
		jq -r '"_Not measured: " + .data.error + "._\n"' "$f"
		return 0
	fi
	jq -r "$JQ_DEFS $*" "$f"
}

# s SECTION FILTER: like j, but prints nothing when the section is missing.
s() {
	local f
	f=$(sec "$1")
	shift
	[ -s "$f" ] && jq -e '.data | type == "object" and (has("error") | not)' "$f" >/dev/null 2>&1 || return 0
	jq -r "$JQ_DEFS $*" "$f"
}

# note SECTION: bench/notes/SECTION.md (the analysis of a section's
# figures: causes and profiles, in words) when the section was measured.
note() {
	if [ -s "$(sec "$1")" ] && [ -s "bench/notes/$1.md" ]; then
		echo
		cat "bench/notes/$1.md"
	fi
	return 0
}

{
cat <<'EOF'
# orch's own performance

Rendered by `bench/render.sh` from the files that `make bench`
(`bench/run.sh`) writes under `bench/out/`; never edited by hand. To
reproduce every table: `make bench` (about 15 minutes; it brings up 32 sshd
lab hosts in network namespaces, so run it as root). Each figure is measured
side by side with a peer *in the same run*, interleaved where the peer
allows, and reported as medians and ratios: the machine these numbers come
from is a shared 2-core VM whose load swings while it runs (the load is
given with each table).

## Summary

| # | target | measured | |
|---|---|---|---|
EOF
s floor '.data as $d |
  "| 1 | harness floor: orch per-sample wall within 1.05x of a bare posix_spawn+wait4 loop | \($d.ratio_orch_bare | x) (blocks'\'' quartiles \($d.iqr_orch_bare[0] | f(2))–\($d.iqr_orch_bare[1] | f(2))); no-op: orch \($d.orch_median_ns | us), bare loop \($d.bare_median_ns | us) | \(met($d.ratio_orch_bare <= 1.05)) |",
  "| 1 | harness floor: within 1.05x of `hyperfine -N` (issue 30'\''s done-when) | \($d.ratio_orch_hf | x) of hyperfine (median of \($d.K) blocks) | \(met($d.ratio_orch_hf <= 1.05)) |",
  "| 1 | harness floor: no worse than `hyperfine -N` | \($d.ratio_orch_hf | x) of hyperfine (quartiles \($d.iqr_orch_hf[0] | f(2))–\($d.iqr_orch_hf[1] | f(2)); orch at or under hyperfine in \($d.blocks_orch_le_hf) of \($d.K) blocks); hyperfine \($d.hf_median_ns | us) | \(met($d.ratio_orch_hf <= 1.0)) |",
  (if $d.pin_ratio_orch_bare then "| 1 | … the same, everything on one CPU (`taskset -c 1`) | \($d.pin_ratio_orch_bare | x) of the bare loop, \($d.pin_ratio_orch_hf | x) of hyperfine | \(met($d.pin_ratio_orch_bare <= 1.05 and $d.pin_ratio_orch_hf <= 1.0)) |" else empty end),
  "| 1 | the floor program (`orch-null`, the `(floor)` rows) within 1.2x of the bare loop on it | \($d.ratio_floor_barenull | x) (\($d.floor_median_ns | us) vs \($d.barenull_median_ns | us)) | \(met($d.ratio_floor_barenull <= 1.2)) |",
  "| 1 | the agent blocks while a benchmark runs (no polling) | agent CPU \($d.agent_cpu_per_sample_ns | us) per sample (bare loop \($d.bare_cpu_ns | us)); 10-round runs, per sample: no-op \(if $d.samples_short then ($d.agent_cpu_short_ns / $d.samples_short | us) else "n/a" end) and \(if $d.samples_short then ($d.agent_nvcsw_short / $d.samples_short | f(1)) else "n/a" end) wake-ups, 20 ms sleeper \(if $d.samples_sleep then ($d.agent_cpu_sleep_ns / $d.samples_sleep | us) else "n/a" end) and \(if $d.samples_sleep then ($d.agent_nvcsw_sleep / $d.samples_sleep | f(1)) else "n/a" end) | \(met(if $d.samples_short and $d.samples_sleep then ($d.agent_nvcsw_sleep / $d.samples_sleep) <= 1.5 * ($d.agent_nvcsw_short / $d.samples_short) + 1 else null end)) |"'
s whole '.data as $d |
  "| 1b | a one-line run of two short commands (`true`, `true`; \($d.rounds) rounds), start to exit, within 1.5x of `hyperfine -N --runs \($d.rounds)` | \($d.ratio | x) (median of \($d.K) interleaved blocks, blocks \($d.ratio_range[0] | f(2))–\($d.ratio_range[1] | f(2))); orch \($d.orch_ns | ms), hyperfine \($d.hf_ns | ms) | \(met($d.ratio <= 1.5)) |",
  "| 1b | `true` vs `/bin/echo x` as a one-line run: decided (`worse`), never `invalid` or `better` | `worse` in \($d.short_decided) of \($d.short | length) runs (\($d.short | map(.verdict) | join(", "))); hyperfine'\''s ratio of medians beside each: \($d.short | map(.hf_ratio | f(2)) | join(", ")) | \(met($d.short_decided == ($d.short | length) and $d.short_bad == 0)) |",
  (if $d.auto then "| 1b | … as a user types it (no `--rounds`: rounds = auto, blocks of 10, budget 30 s): decided | `worse` in \($d.auto_decided) of \($d.auto | length) runs, after \($d.auto | map(.rounds | tostring) | join(", ")) rounds; \($d.auto | map(.wall_ns | ms) | join(", ")) start to exit (hyperfine'\''s default: \($d.auto | map(.hf_wall_ns | ms) | join(", "))) | \(met($d.auto_decided == ($d.auto | length))) |" else empty end)'
s agree '.data as $d | ($d.pairs | map("<!-- orch bench/records/agree-\(.k)" as $m | "\($m) field=ratio -->\(.orch_ratio | f(3))<!-- /orch --> [\($m) field=ci_low -->\(.orch_lo | f(3))<!-- /orch -->, \($m) field=ci_high -->\(.orch_hi | f(3))<!-- /orch -->] vs \(.hf_ratio_mean | f(3)) ± \(.hf_sigma | f(3))") | join("; ")) as $t |
  "| 2 | ratio agrees with hyperfine within the two intervals (gzip -9 / gzip -1) | \($t) | \(met($d.agree)) |"'
s fanout '.data as $d |
  "| 3 | fan-out: 32 hosts within 2x of 1 host | \($d.ratio_32_1 | x) (\($d.table[0].wall_ns | sec) → \($d.table[3].wall_ns | sec)); peer `ssh` to each host: \($d.ssh_ratio_32_1 | x); coordinator \(($d.cpu_per_host_s * 1e3) | f(1)) ms CPU and \($d.rss_per_host_kb | f(0)) KiB RSS per extra host | \(met($d.ratio_32_1 <= 2 and ($d.table | map(.ok) | all))) |"'
s push '.data as $d |
  "| 4 | push: first push of 100 MiB to 4 hosts at >= 80% of scp throughput | \($d.ratio_net | pct) (orch \($d.orch_net_mbs | f(0)) MB/s net of a no-push run, \($d.orch_gross_mbs | f(0)) MB/s gross; scp \($d.scp_mbs | f(0)) MB/s) | \(met($d.ratio_net >= 0.8)) |",
  "| 4 | second push sends 0 bytes | \($d.second_pushed) bytes | \(met($d.second_pushed == 0)) |",
  "| 4 | second push within 2x of a no-push run | \($d.second_vs_nopush | x) (\($d.second_ns | sec) vs \($d.nopush_ns | sec)) | \(met($d.second_vs_nopush <= 2)) |"'
s power '.data as $d | ($d.aa[0]) as $a | ($d.drift_table | map({(.method): .}) | add) as $t |
  "| 5 | A/A false verdicts (better/worse) <= 5% | \($a.rate | pct) of \($a.comparisons) comparisons (95% CI \($a.rate_ci[0] | pct)–\($a.rate_ci[1] | pct)); wall_ns: \($d.aa[1].rate | pct) | \(met($a.rate <= 0.05)) |",
  "| 5 | rounds to see an injected 3% slowdown as `worse` | \(if $d.rounds_to_worse then "\($d.rounds_to_worse) rounds (>= 80% of trials)" else "not within \($d.slow3 | map(.rounds) | max) rounds" end) | — |",
  "| 5 | drift: interleaved rounds recover the true ratio (1.03) within 1% | interleaved \($t.interleaved.drift | f(4)), off by \($t.interleaved.error_true | pct); sequential A-then-B \($t.sequential.drift | f(4)), off by \($t.sequential.error_true | pct); hyperfine (sequential, wall time) off its own no-drift ratio by \($t.hyperfine.error | pct) | \(met(if $t.interleaved.error_true == null then null else ($t.interleaved.error_true | fabs) <= 0.01 end)) |"'
s scale '.data as $d | ($d.report | map(select(.rounds == 50000)) | .[0]) as $m |
  "| 6 | `orch report` on 1M samples under 5 s | \(if $m.finished then ($m.wall_s | f(1)) + " s" + (if $m.runs_s then " (median of \($m.runs_s | map(f(1)) | join(", ")) s)" else "" end) else "not done after \($m.limit_s) s (killed); \($d.million_projection_s | f(0)) s projected from the smaller records" end) | \(met($m.finished and $m.wall_s < 5)) |",
  "| 6 | … and under 500 MiB | peak \($m.maxrss_kb | mib)\(if $m.finished then "" else " (until killed)" end) | \(met($m.maxrss_kb < 512000)) |",
  "| 6 | coordinator memory flat over a long run | \($d.long.rss_start_kb | mib) → \($d.long.rss_end_kb | mib) over \($d.long.samples) samples (\($d.long.growth_kb_per_1000 | f(1)) KiB per 1000 samples) | \(met(if $d.long.growth_kb_per_1000 == null then null else ($d.long.growth_kb_per_1000 | fabs) < 64 end)) |"'
s auto '.data as $d | ($d.sim | map(select(.effect == 0.03))) as $t3 | (($t3 | map(.fixed_rounds) | max) * ($t3 | length)) as $fx | ($t3 | map(.auto_mean_rounds) | add) as $au | ($d.machine | map(select(.kind == "aa")) | .[0]) as $aa |
  "| 7 | `rounds = auto`: at least 2x less machine time than fixed rounds of the same power (simulated lab: a σ 2% and a σ 5% host, B 3% slower) | \(if $au > 0 then ($fx / $au | x) else "n/a" end) (\($au | f(1)) host-rounds against \($fx)); one host alone, at auto'\''s power: \($d.sim | map("σ \(.sigma | pct) \(.effect | pct) \(.fixed_rounds / .auto_mean_rounds | x)") | join(", ")); against fixed rounds of 80% power: \($d.sim | map("σ \(.sigma | pct) \(.effect | pct) \(if .fixed80_rounds > 0 then (.fixed80_rounds / .auto_mean_rounds | x) else "n/a" end)") | join(", ")) | \(met(if $au > 0 then $fx / $au >= 2 else null end)) |",
  "| 7 | … with no effect: stopped at `same` or the budget, never past it | A/A on this machine: \($aa.rounds) rounds, stop \($aa.stop), \($aa.seconds | f(2)) s of a \($aa.budget) s budget; simulated A/A: median rounds \($t3 | map("σ \(.sigma | pct) \(.aa_median_rounds)") | join(", ")) (max_rounds 200) | \(met($aa.seconds <= $aa.budget)) |"'
echo

# ---------------------------------------------------------------------
echo "## 1. Harness floor"
echo
j floor 'header, .data as $d |
"A no-op program (`tests/progs/noop`, dynamically linked) run four ways, in \($d.K) interleaved blocks (the order rotates every block): through orch on the host `local` (the `wall_ns` orch records; \($d.blocks[0].orch_n) samples a block), with a bare C loop of `posix_spawn` + blocking `wait4` (`bench/bare-spawn.c`, \($d.blocks[0].bare_n) spawns), with `hyperfine -N` (the same count), and with `bench/spawn-like.c`, a loop that starts and collects each run exactly as the agent does (`agent/exec.c`: pipes read to EOF (their write ends held until the reap), own process group, default signals, closed descriptors, the run directory as cwd, SIGCHLD self-pipe and `poll`) but without the protocol, the journal and the coordinator. Also the floor program orch runs once per round (`orch-null`, static), against the bare loop running it. Medians over blocks of each block'\''s median; ratios are per block, then their median.\n",
"| harness | no-op wall per sample (median) | vs bare loop |",
"|---|---:|---:|",
"| bare posix_spawn + wait4 | \($d.bare_median_ns | us) | 1.00x |",
"| hyperfine -N | \($d.hf_median_ns | us) (mean \($d.hf_mean_ns | us)) | \($d.ratio_hf_bare | x) |",
"| `spawn-like`: the agent'\''s way of spawning and collecting, alone | \($d.like_median_ns | us) | \($d.ratio_like_bare | x) |",
"| **orch (`local`)** | **\($d.orch_median_ns | us)** | **\($d.ratio_orch_bare | x)** |",
"| bare loop, `orch-null` | \($d.barenull_median_ns | us) | |",
"| orch `(floor)` rows, `orch-null` | \($d.floor_median_ns | us) | \($d.ratio_floor_barenull | x) of the bare loop on `orch-null` |",
"",
"Per block (µs; load = 1-minute load after the block):\n",
"| block | orch | bare | hyperfine | orch/bare | orch/hyperfine | load |",
"|---:|---:|---:|---:|---:|---:|---:|",
($d.blocks[] | "| \(.k) | \(.orch_median_ns / 1e3 | f(0)) | \(.bare_median_ns / 1e3 | f(0)) | \(.hf_median_ns / 1e3 | f(0)) | \(.orch_median_ns / .bare_median_ns | f(2)) | \(.orch_median_ns / .hf_median_ns | f(2)) | \(.load) |"),
"",
"Orch over `spawn-like`: \($d.ratio_orch_like | x) — what the rest of orch (protocol, journal, coordinator, all between samples) adds inside the measured interval.\n",
(if ($d.settle // []) | length > 0 then
"**A run'\''s first rounds** (the suite'\''s `settle`, docs/suites.md): the no-op'\''s median wall in the first third of a \($d.settle_rounds)-round run against the last third, \($d.settle | length) runs alternating between `floor.ini` (the default settle, 50 ms) and the same with `settle = 0`:\n",
"| settle | rounds 1–\($d.settle_rounds / 3 | floor) | rounds \($d.settle_rounds * 2 / 3 | floor + 1)–\($d.settle_rounds) | first / last |",
"|---|---:|---:|---:|",
"| 50 ms (default) | \($d.settle_early_ns | us) | \($d.settle_late_ns | us) | \($d.settle_ratio | x) |",
"| 0 | \($d.nosettle_early_ns | us) | \($d.nosettle_late_ns | us) | \($d.nosettle_ratio | x) |",
"" else empty end),
(if $d.pin_ratio_orch_bare then "**On one CPU.** The same three with everything under `taskset -c 1`, \($d.pinned | length) blocks: orch \($d.pin_orch_median_ns | us), bare loop \($d.pin_bare_median_ns | us), hyperfine \($d.pin_hf_median_ns | us) — orch at **\($d.pin_ratio_orch_bare | x) of the bare loop and \($d.pin_ratio_orch_hf | x) of hyperfine**. (What is known of the rest: below.)\n" else empty end),
"End to end, orch spends \($d.per_sample_run_ns | us) of wall time per sample (the whole `orch run`, start-up and the 50 ms settle included, over every sample and floor run) where the bare loop spends \($d.per_spawn_bare_loop_ns | us) per spawn. Between two samples the agent journals the sample and the next attempt'\''s start (writes); at the end of a round in which the oldest sample it holds is 20 ms old (every few rounds of a no-op) it seals and sends the samples, syncs their journal records with one `fsync` (one synchronous 193-byte append takes \($d.fsync_ns | us) on this disk, by `dd oflag=dsync`), and waits for the coordinator to record and acknowledge them before the next round.\n",
"**The agent'\''s own cost.** In runs of their own (not the blocks above, whose orch runs as users run it), `bench/agent-cpu.c` stands in for `orch-agent` (via `ORCH_AGENT`) and reads the CPU time and voluntary context switches of the agent with its children from `wait4`; the children'\''s share (every sample'\''s `user_ns + sys_ns` and `nvcsw`, which orch records from the same accounting) is subtracted.\n",
"| run | samples | agent CPU | per sample | agent wake-ups (nvcsw) | per sample |",
"|---|---:|---:|---:|---:|---:|",
"| noop, 10 rounds | \($d.samples_short) | \($d.agent_cpu_short_ns | ms) | \(if $d.samples_short then ($d.agent_cpu_short_ns / $d.samples_short | us) else "n/a" end) | \($d.agent_nvcsw_short) | \(if $d.samples_short then ($d.agent_nvcsw_short / $d.samples_short | f(1)) else "n/a" end) |",
"| 20 ms sleeper, 10 rounds | \($d.samples_sleep) | \($d.agent_cpu_sleep_ns | ms) | \(if $d.samples_sleep then ($d.agent_cpu_sleep_ns / $d.samples_sleep | us) else "n/a" end) | \($d.agent_nvcsw_sleep) | \(if $d.samples_sleep then ($d.agent_nvcsw_sleep / $d.samples_sleep | f(1)) else "n/a" end) |",
"",
"Per additional sample (runs of `floor.ini` minus the 10-round runs, so start-up cancels): **\($d.agent_cpu_per_sample_ns | us) of agent CPU and \($d.agent_nvcsw_per_sample | f(1)) wake-ups**; the bare loop spends \($d.bare_cpu_ns | us) of its own CPU per spawn, `spawn-like` \($d.like_cpu_ns | us). The sleeper samples last \(if $d.samples_sleep then ($d.sleep_children_wall_ns / $d.samples_sleep | ms) else "n/a" end) on average, yet cost the agent about what a no-op does: the agent sleeps in `poll()` until the child exits (SIGCHLD self-pipe) — it does not poll on a timer.\n"'
note floor
echo

# ---------------------------------------------------------------------
echo "## 1b. A one-line run's cost"
echo
j whole 'header, .data as $d |
"The whole `orch run` of a one-line run of `true` and `true` (\($d.rounds) rounds: \($d.rounds) measured runs of each, start to exit, the reports included), against `hyperfine -N --runs \($d.rounds) true true` (the same count of measured runs), in \($d.K) interleaved blocks (the order alternates every block); wall time of each from the shell. A one-line run does not subtract the harness floor, so it runs the floor program in rounds 1–3 and every 25th round after (\($d.floor_runs) floor runs here), not every round.\n",
"| block | orch run | hyperfine | orch/hyperfine | floor runs | load |",
"|---:|---:|---:|---:|---:|---:|",
($d.blocks[] | "| \(.k) | \(.orch_ns | ms) | \(.hf_ns | ms) | \(.orch_ns / .hf_ns | f(2)) | \(.floor_runs) | \(.load) |"),
"| **median** | **\($d.orch_ns | ms)** | **\($d.hf_ns | ms)** | **\($d.ratio | x)** | | |",
"",
"**Short commands decided.** `orch run --rounds=\($d.rounds) -- true '\''/bin/echo x'\''`, three runs, each beside `hyperfine -N --runs \($d.rounds)` of the same two commands:\n",
"| run | compared quantity (orch'\''s words) | orch ratio [95% CI] | verdict | hyperfine ratio of medians | load |",
"|---:|---|---|---|---:|---:|",
($d.short | to_entries[] | "| \(.key) | \(.value.quantity) | \(.value.ratio | f(3)) [\(.value.ci[0] | f(3)), \(.value.ci[1] | f(3))] | \(.value.verdict) | \(.value.hf_ratio | f(3)) | \(.value.load) |"),
"",
(if $d.auto then
"**As a user types it.** `orch run -- true '\''/bin/echo x'\''`, no `--rounds`: a one-line run is `rounds = auto` in blocks of 10 with a 30 s budget (docs/suites.md), so it stops once decided. Three runs, each beside `hyperfine -N` at its own default count (at least 10 runs and 3 s), both timed start to exit:\n",
"| run | orch ratio [95% CI] | verdict | rounds, stop | orch start to exit | hyperfine runs | hyperfine ratio of medians | hyperfine start to exit | load |",
"|---:|---|---|---|---:|---:|---:|---:|---:|",
($d.auto | to_entries[] | "| \(.key) | \(.value.ratio | f(3)) [\(.value.ci[0] | f(3)), \(.value.ci[1] | f(3))] | \(.value.verdict) | \(.value.rounds), \(.value.stop) | \(.value.wall_ns | ms) | \(.value.hf_runs | map(tostring) | join(", ")) | \(.value.hf_ratio | f(3)) | \(.value.hf_wall_ns | ms) | \(.value.load) |"),
""
else empty end)'
note whole
echo

# ---------------------------------------------------------------------
echo "## 2. Agreement with hyperfine"
echo
j agree 'header, .data as $d |
"The same two commands through both harnesses: `gzip -c -1 INPUT` (reference) and `gzip -c -9 INPUT`, stdout into a pipe the harness reads (orch'\''s agent parses it for metrics; `hyperfine --output=pipe`). orch: the Hodges–Lehmann estimate of the per-round paired ratios of `wall_ns` with its Wilcoxon signed-rank interval (a family of one: 95%; `subtract_floor = no`, as hyperfine -N subtracts nothing). hyperfine: the ratio of its means with the uncertainty it prints (σ of each mean propagated), and the ratio of its medians.\n",
"| pair | orch gzip -1 | orch gzip -9 | orch ratio [95% CI] | hyperfine -1 | hyperfine -9 | hyperfine ratio ± σ | hyperfine median ratio | intervals overlap |",
"|---:|---:|---:|---|---:|---:|---|---:|---|",
($d.pairs[] | "<!-- orch bench/records/agree-\(.k)" as $m |
  "| \(.k) | \($m) variant=L1 field=median -->\(.orch_l1_ms | f(3)) ms<!-- /orch --> | \($m) variant=L9 field=median -->\(.orch_l9_ms | f(3)) ms<!-- /orch --> | \($m) field=ratio -->\(.orch_ratio | f(3))<!-- /orch --> [\($m) field=ci_low -->\(.orch_lo | f(3))<!-- /orch -->, \($m) field=ci_high -->\(.orch_hi | f(3))<!-- /orch -->] (\($m) field=verdict -->\(.orch_verdict)<!-- /orch -->) | \(.hf_l1_ms | f(1)) ms | \(.hf_l9_ms | f(1)) ms | \(.hf_ratio_mean | f(3)) ± \(.hf_sigma | f(3)) | \(.hf_ratio_median | f(3)) | \(if .agree then "yes" else "**no**" end) |"),
"",
"The orch columns are marks (docs/evidence.md, \"Numbers in documents\") on the records `bench/run.sh agree` keeps: `bench/records/agree-K/samples.msgpack`, the whole record `orch report` and `orch doc` need (about 16 KiB a run). A mark'\''s run path is relative to the directory orch runs in: `make check` runs `bin/orch doc check docs/performance.md` from the top of the tree, so a figure here that is not its record'\''s fails the build.\n"'
echo

# ---------------------------------------------------------------------
echo "## 3. Fan-out"
echo
j fanout 'header, .data as $d |
"Lab hosts from `tests/lab/lab.sh` (\($d.lab_mode) mode: each host an sshd in its own network namespace on this machine, so all of them share its 2 cores). Bring-up of 32 hosts took \($d.lab_up_ns | sec), `orch deploy` to all 32 \($d.deploy_ns | sec). The suite is one round of a no-op as two variants (2 samples and 1 floor run per host); a first run on all hosts filled their caches, so nothing is pushed. Median of \($d.table[0].reps) runs per size, sizes interleaved (1, 4, 16, 32, then 32 … 1).\n",
"| hosts | orch run wall (median) | vs 1 host | coordinator CPU | coordinator max RSS | hosts'\'' CPU (sshd, agent, …) | all ok | peer: ssh to each at once | vs 1 host | hosts'\'' CPU |",
"|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
(range(0; 4) as $i | $d.table[$i] as $t | $d.ssh[$i] as $p |
  "| \($t.hosts) | \($t.wall_ns | sec) | \($t.wall_ns / $d.table[0].wall_ns | x) | \($t.cpu_s | f(2)) s | \($t.maxrss_kb | mib) | \($t.remote_cpu_s | f(2)) s | \(if $t.ok then "yes" else "**no**" end) | \($p.wall_ns | sec) | \($p.wall_ns / $d.ssh[0].wall_ns | x) | \($p.remote_cpu_s | f(2)) s |"),
"",
"The hosts'\'' CPU is what every process serving the sessions used — sshd (key exchange, privilege separation), the shells, the agents and the samples — read from the lab'\''s listening sshd processes (`cutime + cstime`, after they reaped their sessions). All of it runs on the same \($d.cores) cores as the coordinator: at 32 hosts the hosts need \($d.table[3].remote_cpu_s | f(1)) CPU-seconds, at least \($d.table[3].remote_cpu_s / $d.cores | f(1)) s of wall time on \($d.cores) idle cores, against \($d.table[0].wall_ns | sec) for one host. The peer (OpenSSH running `orch-agent --version` on every host at once — one connection and one command per host, the least orch can do) scales \($d.ssh_ratio_32_1 | x) from 1 to 32 hosts here.\n",
"Per extra host the coordinator spends \(($d.cpu_per_host_s * 1e3) | f(1)) ms of CPU and \($d.rss_per_host_kb | f(0)) KiB of memory (32 hosts minus 1 host, over 31); the host side spends \(($d.remote_cpu_per_host_s * 1e3) | f(0)) ms per host.\n",
(if $d.bashrc_cpu_ns then "The lab'\''s sshd (`bench/out/bin/lab-sshd`, via `LAB_SSHD`) gives sessions an empty `HOME`: on this VM the user'\''s `~/.bashrc` runs `pyenv init`, which costs \($d.bashrc_cpu_ns | ms) of CPU in every remote command'\''s shell — orch starts one per host and run (the agent), so 32 hosts would spend about \(($d.bashrc_cpu_ns * 32 / 1e9) | f(0)) CPU-seconds there, on 2 cores, measuring the VM'\''s dotfiles rather than orch.\n" else empty end),
(if $d.profile then "Where the CPU of a 32-host run went, by process (`perf record -a`, every process on the machine):\n\n| process | share of all samples |\n|---|---:|\n" + ($d.profile | map("| \(.what) | \(.pct | f(1))% |") | join("\n")) + "\n" else empty end)'
note fanout
echo

# ---------------------------------------------------------------------
echo "## 4. Push"
echo
j push 'header, .data as $d |
"A fresh 100 MiB file (random bytes) to hosts h1–h4 at once, the same sshd for both: orch pushes it into each host'\''s content-addressed cache over SFTP (libssh2) during a run of a one-round suite that names it in `files`; `scp` (OpenSSH, SFTP protocol) copies it to the same hosts, four in parallel. orch'\''s *net* time is its run minus a run of the same suite without the file (sessions, agent start, the samples). Medians of \($d.runs | map(select(.label == "scp")) | length) repetitions; the pushed copy is deleted from the caches between repetitions.\n",
"| | wall (median) | throughput (4 × 100 MiB) | vs scp |",
"|---|---:|---:|---:|",
"| scp, 4 in parallel | \($d.scp_ns | sec) | \($d.scp_mbs | f(0)) MB/s | 1.00x |",
"| orch run, no file to push | \($d.nopush_ns | sec) | | |",
"| orch run, first push | \($d.first_ns | sec) | \($d.orch_gross_mbs | f(0)) MB/s gross, **\($d.orch_net_mbs | f(0)) MB/s net** | \($d.ratio_gross | f(2))x gross, **\($d.ratio_net | f(2))x net** |",
"| orch run, second push | \($d.second_ns | sec) | pushed \($d.second_pushed) bytes | \($d.second_vs_nopush | x) of the no-push run |",
"",
"Every run:\n",
"| run | wall | pushed bytes | local CPU (orch, or the scp clients) | hosts'\'' CPU (sshd, sftp-server, agents) | load |",
"|---|---:|---:|---:|---:|---:|",
($d.runs[] | "| \(.label) | \(.wall_ns | sec) | \(.pushed_bytes // "—") | \(if .cpu_s then (.cpu_s | f(2)) + " s" else "—" end) | \(if .remote_cpu_s then (.remote_cpu_s | f(2)) + " s" else "—" end) | \(.load // "") |"),
""'
note push
echo

# ---------------------------------------------------------------------
echo "## 5. Statistical power"
echo
j power 'header, .data as $d |
"`bench/slowdown.c`: a dependent xorshift chain of ITER = \($d.iter) steps (about 5 ms here), plus `--pct=P` percent more steps (an injected slowdown) and `--drift=D` percent more per second since `--t0` (a machine that slows down steadily); the extra steps do not change its checksum. Verdicts are on the program'\''s own `elapsed_ns` (the primary metric), `min_effect = 0.01`.\n",
"**A/A.** Both variants the same file and arguments, 10 rounds, 6 benchmarks a run; `elapsed_ns` (primary) and `wall_ns` from the same runs. The *synthetic* row is the statistics alone: records from `bench/gen-record.c` with no difference and independent 5% log-normal noise, 10 rounds, through `orch report`:\n",
"| metric | comparisons | better or worse | rate [95% CI] | verdicts |",
"|---|---:|---:|---|---|",
($d.aa[] | "| \(.metric) | \(.comparisons) | \(.false_verdicts) | \(.rate | pct) [\(.rate_ci[0] | pct), \(.rate_ci[1] | pct)] | \(.verdicts | to_entries | map("\(.key) \(.value)") | join(", ")) |"),
"",
"**An injected 3% slowdown** (variant B: `--pct=3`), 2 benchmarks a run:\n",
"| rounds | trials | worse | better | median ratio |",
"|---:|---:|---:|---:|---:|",
($d.slow3[] | "| \(.rounds) | \(.trials) | \(.worse) (\(.worse / .trials | pct)) | \(.better) | \(.ratio | f(4)) |"),
"",
"Rounds needed for `worse` in at least 80% of trials: **\($d.rounds_to_worse // "more than the largest tried")**.\n",
"**Drift.** Both variants do \($d.drift_pct_per_s | f(2))% more work per second since the run began (about 10% over one interleaved run of \($d.interleaved_run_ns | sec)); B does 3% more than A. *Interleaved*: one orch run, A and B alternating in balanced order. *Sequential*: all of A (an orch run of A against itself), then all of B, the same number of samples — the ratio of the two medians. *hyperfine* runs its commands one after the other, so it is sequential too. The orch rows are ratios of the program'\''s own `elapsed_ns`, in which B does exactly 3% more steps than A, so 1.03 is the true ratio; hyperfine measures wall time, whose fixed start-up cost pulls its ratio toward 1, so it is compared with its own run without drift. Medians of the repetitions.\n",
"| method | ratio, no drift | ratio, with drift | with drift vs 1.03 (true) | with drift vs no drift |",
"|---|---:|---:|---:|---:|",
($d.drift_table[] | "| \(.method) | \(.no_drift | f(4)) | \(.drift | f(4)) | \(.error_true | pct) | \(.error | pct) |"),
"",
"Each repetition:\n",
"| method | drift %/s | repetition | ratio |",
"|---|---:|---:|---:|",
($d.drift | sort_by(.method, .drift, .rep)[] | "| \(.method) | \(.drift) | \(.rep) | \(.ratio | f(4)) |"),
""'
note power
echo

# ---------------------------------------------------------------------
echo "## 6. Scale of the record"
echo
j scale 'header, .data as $d |
"Synthetic records written by `bench/gen-record.c` through the coordinator'\''s own writer (`coordinator/store/record.c`): 2 hosts × 5 benchmarks × 2 variants × R rounds, each sample with its built-in metrics, a program metric and a checksum, plus one floor run per host and round. Then `orch report DIR` re-renders everything (csv, json, md, html).\n",
"| rounds | samples (+ floor runs) | samples.msgpack | orch report wall | max RSS |",
"|---:|---:|---:|---:|---:|",
($d.report[] | "| \(.rounds) | \(.samples) (+\(.floor_runs)) | \(.bytes / 1048576 | f(1)) MiB | \(if .finished then (.wall_s | f(2)) + " s" else "> \(.limit_s) s (killed)" end) | \(.maxrss_kb | mib)\(if .finished then "" else " (peak until killed)" end) |"),
"",
(($d.report | map(select(.rounds == 50000)) | .[0].finished) as $fin |
  if $fin then "Memory grows by about \($d.per_sample_bytes | f(0)) bytes per sample (the finished small records).\n"
  else "From the finished records: \(($d.seconds_per_sample // 0) * 1e3 | f(2)) ms per sample, so about **\($d.million_projection_s | f(0)) s for a million**; about \($d.per_sample_bytes | f(0)) bytes of memory per sample.\n" end),
"Where the time goes (callgrind, instructions inclusive, `orch report` on 2 hosts × 2 benchmarks × 100 rounds):\n",
"```", ($d.profile[]), "```", "",
(if ($d.million_stacks | length) > 0 then
  "Where the million-sample report was, every 2 s of a second run (innermost function first; gdb stops it briefly each time, so that run is not the one timed):\n", "```", ($d.million_stacks[]), "```", "" else empty end),
"**Coordinator memory over a long run**: a local run of \($d.long.samples) samples (a no-op, \($d.long.duration_ms / 1000 | f(0)) s); orch'\''s VmRSS every 0.5 s:\n",
"| | VmRSS |",
"|---|---:|",
"| at 10% of the run | \($d.long.rss_start_kb | mib) |",
"| at 90% of the run | \($d.long.rss_end_kb | mib) |",
"| highest in between | \($d.long.rss_mid_max_kb | mib) |",
"| highest overall (the report rendered at the end) | \($d.long.rss_max_kb | mib) |",
"",
"Growth: \($d.long.growth_kb_per_1000 | f(1)) KiB per 1000 samples.\n"'
note scale
echo
# ---------------------------------------------------------------------
echo "## 7. Adaptive rounds: time to a decided answer"
echo
j auto 'header, .data as $d |
"**In simulation, through the real code** (`tests/stats/calib.c --payoff`: records written by `coordinator/store/record.c`, loaded by `record_load`, analysed by `analysis_build`, looked at block by block as `orch run` does, each look at its exact group-sequential level): one host, one benchmark, B slower by the effect shown, log-normal noise σ per run, `rounds = auto` (blocks of 5, max_rounds 200) against the fewest fixed rounds (a multiple of 5, at most 400) whose power is at least auto'\''s, and the fewest whose power is at least 80%. Machine time is rounds run; *time saved* is those fixed rounds over auto'\''s mean rounds. Against 80% power, auto is at its own power (at least 80% where it reaches it): the saving at equal power is at least that. *A/A* is the same host with no effect: the rounds it ran (no budget: it stops at `same` or at max_rounds).\n",
"| σ | effect | runs | auto: power | auto: median (mean) rounds | fixed rounds, same power | fixed: power | time saved, same power | fixed rounds, 80% power | time saved against 80% power | false verdicts, auto / fixed | A/A: median rounds, stopped at `same` |",
"|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
($d.sim[] | "| \(.sigma | pct) | \(.effect | pct) | \(.runs) | \(.auto_power | pct) | \(.auto_median_rounds) (\(.auto_mean_rounds | f(1))) | \(if .fixed_rounds > 0 then .fixed_rounds else "over 400" end) | \(.fixed_power | pct) | \(if .auto_mean_rounds > 0 and .fixed_rounds > 0 then (.fixed_rounds / .auto_mean_rounds | x) else "n/a" end) | \(if .fixed80_rounds > 0 then .fixed80_rounds else "over 400" end) | \(if .auto_mean_rounds > 0 and .fixed80_rounds > 0 then (.fixed80_rounds / .auto_mean_rounds | x) + (if .auto_power < 0.8 then " (auto at \(.auto_power | pct))" else "" end) else "n/a" end) | \(.auto_false | pct) / \(.fixed_false | pct) | \(.aa_median_rounds), \(.aa_same) of \(.runs) |"),
"",
(($d.sim | map(select(.effect == 0.03))) as $t3 | ($t3 | map(.fixed_rounds) | max) as $fx | ($t3 | map(.auto_mean_rounds) | add) as $au |
"**A lab of one quiet host (σ 2%) and one noisy host (σ 5%), B 3% slower**: fixed rounds must be the noisy host'\''s for both (\($fx) rounds each, \($fx * ($t3 | length)) host-rounds); with `rounds = auto` each host stops on its own (\($au | f(1)) host-rounds on average): **\(if $au > 0 then ($fx * ($t3 | length) / $au | x) else "n/a" end) less machine time** for the same power.\n"),
"**On this machine**: `bench/slowdown.c`, ITER = \($d.iter) (about 5 ms), B with `--pct=3`; `rounds = auto` against \($d.fixed_rounds) fixed rounds (the simulation'\''s at σ 2%); machine time is the benchmark runs'\'' own wall time (both variants). The A/A run has no effect and a budget:\n",
"| run | rounds | stop | machine time | verdict |",
"|---|---:|---|---:|---|",
($d.machine[] | "| \(.kind) | \(.rounds) | \(.stop) | \(.seconds | f(2)) s\(if .budget then " (budget \(.budget) s)" else "" end) | \(.verdict) |"),
""'
note auto
echo
if [ -s "$OUT/stale-agents.log" ]; then
	echo "## Observed while measuring"
	echo
	echo "A local agent was still running (and holding its host's run lock) after its run had ended, $(wc -l < "$OUT/stale-agents.log") time(s); \`bench/run.sh\` stopped it by the pid in the lock so that the next run was not refused as \"host busy\":"
	echo
	echo '```'
	cat "$OUT/stale-agents.log"
	echo '```'
fi
} > "$DOC.tmp"
mv "$DOC.tmp" "$DOC"
echo "bench: wrote $DOC" >&2
