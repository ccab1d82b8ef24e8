# bench/lib.sh: helpers for bench/run.sh (sourced).
#
# Every section writes bench/out/SECTION.json:
#   { "section", "title", "machine": {...}, "started", "ended",
#     "load_start", "load_end", "commands": [...], "data": {...} }
# and keeps what it ran (orch run directories, hyperfine JSON) under
# bench/out/SECTION/. bench/render.sh turns the JSON files into
# docs/performance.md.

# Prints the current time in nanoseconds (CLOCK_REALTIME).
now_ns() { date +%s%N; }

# Prints the 1-minute load average.
load1() { cut -d' ' -f1 /proc/loadavg; }

# calm SECS LOAD: waits, at most SECS seconds, until the 1-minute load is
# under LOAD (what an earlier section started, such as 32 lab hosts being
# torn down, has settled).
calm() {
	local i
	for ((i = 0; i < $1; i++)); do
		awk -v l="$2" '{exit !($1 < l)}' /proc/loadavg && return 0
		sleep 1
	done
	return 0
}

# Prints this machine as a JSON object.
machine_json() {
	local cpu mem
	cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
	[ -n "$cpu" ] || cpu=$(uname -m)
	mem=$(awk '/^MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
	jq -n --arg host "$(hostname)" --arg cpu "$cpu" --arg kernel "$(uname -r)" \
	    --arg os "$(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-$(uname -s)}")" \
	    --argjson cores "$(nproc)" --argjson mem "$mem" \
	    --arg orch "$("$ORCH" --version 2>/dev/null | head -1)" \
	    --arg hyperfine "$(hyperfine --version 2>/dev/null)" \
	    --arg ssh "$(ssh -V 2>&1)" \
	    '{host: $host, cpu: $cpu, cores: $cores, mem_gib: $mem, kernel: $kernel,
	      os: $os, orch: $orch, hyperfine: $hyperfine, openssh: $ssh}'
}

# section_begin NAME TITLE: starts a section; commands are logged with cmd.
section_begin() {
	SECTION=$1
	SECTION_TITLE=$2
	SECTION_DIR=$OUT/$1
	SECTION_STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	SECTION_LOAD0=$(load1)
	SECTION_T0=$(now_ns)
	CMDS=()
	SHOWN=()
	rm -rf "$SECTION_DIR" "$OUT/$1.json"
	mkdir -p "$SECTION_DIR"
	printf '\n== %s: %s (load %s)\n' "$1" "$2" "$SECTION_LOAD0" >&2
}

# cmd DESCRIPTION...: notes a command line of this section (once per shape).
cmd() {
	local c="$*" x
	c=${c//$BINDIR\//bin/}
	c=${c//$LIBDIR\//build/default/lib/}
	c=${c//$ROOT\//}
	c=${c//$OUT\//bench/out/}
	for x in "${CMDS[@]+"${CMDS[@]}"}"; do
		[ "$x" = "$c" ] && return 0
	done
	CMDS+=("$c")
}

# show FILE: a file (a suite) whose text goes into the document with the
# commands that use it.
show() { SHOWN+=("$1"); }

# section_end DATA_JSON_FILE: writes bench/out/SECTION.json.
section_end() {
	local secs f files='{}'
	secs=$(( ($(now_ns) - SECTION_T0) / 1000000 ))
	for f in "${SHOWN[@]+"${SHOWN[@]}"}"; do
		[ -r "$f" ] || continue
		files=$(jq -c --arg k "bench/out/${f#$OUT/}" \
		    --arg v "$(sed -e "s#$BINDIR/#bin/#g" -e "s#$ROOT/##g" -e "s#$OUT/#bench/out/#g" "$f")" \
		    '. + {($k): $v}' <<< "$files")
	done
	jq -n --arg section "$SECTION" --arg title "$SECTION_TITLE" \
	    --argjson machine "$(machine_json)" \
	    --arg started "$SECTION_STARTED" \
	    --arg ended "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	    --argjson load_start "$SECTION_LOAD0" --argjson load_end "$(load1)" \
	    --argjson seconds "$(awk -v m="$secs" 'BEGIN {printf "%.1f", m / 1000}')" \
	    --slurpfile data "$1" --argjson files "$files" \
	    '{section: $section, title: $title, machine: $machine, files: $files,
	      started: $started, ended: $ended, seconds: $seconds,
	      load_start: $load_start, load_end: $load_end,
	      commands: $ARGS.positional, data: $data[0]}' \
	    --args "${CMDS[@]+"${CMDS[@]}"}" > "$OUT/$SECTION.json"
	printf '== %s done in %s s\n' "$SECTION" "$(jq .seconds "$OUT/$SECTION.json")" >&2
}

# section_fail REASON: writes a section file that says why it has no data.
section_fail() {
	printf '%s\n' "$1" >&2
	jq -n --arg reason "$1" '{error: $reason}' > "$SECTION_DIR/data.json"
	section_end "$SECTION_DIR/data.json"
}

# jq helpers shared by the sections.
JQ_LIB='
def median: map(select(. != null)) | sort |
  if length == 0 then null
  elif length % 2 == 1 then .[(length - 1) / 2]
  else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def mean: map(select(. != null)) | if length == 0 then null else add / length end;
def q(p): map(select(. != null)) | sort | if length == 0 then null else .[(p * (length - 1)) | floor] end;
def r(n): if . == null then null else (. * pow(10; n) | round) / pow(10; n) end;
'

# csv_values CSV BENCH METRIC [WARMUP]: the values of one metric of one
# bench's ok samples (warmup 0 unless given), one a line.
csv_values() {
	awk -F, -v b="$2" -v m="$3" -v w="${4:-0}" \
	    'NR > 1 && $4 == b && $11 == m && $9 == w && $10 == "ok" {print $12}' "$1"
}

# csv_samples CSV: the number of samples (rows of wall_ns) in a run.
csv_samples() {
	awk -F, 'NR > 1 && $11 == "wall_ns"' "$1" | wc -l
}

# json_array: reads numbers one a line, prints a JSON array.
json_array() { jq -s -c '.'; }

# agent_ticks FILE: the agent's utime+stime (clock ticks) and nvcsw from
# an agent-cpu output file (the last line) as "ticks nvcsw clk_tck".
agent_ticks() {
	tail -n 1 "$1" | awk '{print $1 + $2, $4, $3}'
}

# watch_rss PID OUTFILE INTERVAL: appends "ms_since_start vmrss_kb vmhwm_kb"
# lines while PID lives.
watch_rss() {
	local pid=$1 out=$2 iv=${3:-0.5} t0 rss hwm
	t0=$(now_ns)
	while [ -r "/proc/$pid/status" ]; do
		rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$rss" ] && echo "$(( ($(now_ns) - t0) / 1000000 )) $rss $hwm" >> "$out"
		sleep "$iv"
	done
}
