# The host's own programs on a lab host over SSH: the remote agent looks
# the name up in its own PATH (what sshd gives its command), not the
# coordinator's; the record carries what it found there. A name only the
# coordinator's PATH has fails that host, naming host and program.
. tests/e2e/lib.sh
. tests/lab/lab.sh

lab_up 1 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")

awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%d-%d\n", (i * 7919) % 100003, i }' > "$T/in.txt"
cat > "$T/lab.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
max_load = 0
[variant.A]
bin  = host:sort
[variant.B]
bin  = host:sort
args = -s
[bench.sort]
args     = {file:data}
files    = data=$T/in.txt
checksum = stdout
prepare  = host:true
INI

note "host:sort resolved on h1, by h1's agent"
rc=0; run_orch "$T/log1" run --inventory="$INV" --hosts=h1 --out="$T/o1" "$T/lab.ini" || rc=$?
cat "$T/log1"
expect_eq "lab run exit" "$rc" 0
J="$T/o1/summary.json"
expect_eq "host" "$(jq -r '.hosts[0].name + ":" + .hosts[0].status' "$J")" "h1:ok"
path=$(jq -r '.hosts[0].host_programs[] | select(.variant=="A") | .path' "$J")
case "$path" in
/usr/bin/sort|/bin/sort) ;;
*) fail "h1's sort resolved to '$path'" ;;
esac
expect_eq "its SHA-256" "$(jq -r '.hosts[0].host_programs[] | select(.variant=="A") | .sha256' "$J")" "$(sha256sum "$path" | cut -d' ' -f1)"
jq -r '.hosts[0].host_programs[0].version' "$J" | grep -q '^sort (GNU coreutils) ' || fail "no --version line"
expect_eq "the hook's program" "$(jq -r '.hosts[0].host_programs[] | select(.role=="prepare") | .program' "$J")" true
# Only the data file travelled: the programs are h1's own.
expect_eq "files pushed" "$(jq '.hosts[0].pushed_files' "$J")" 1
expect_eq "verdict is not invalid" "$(jq -r '.comparisons[0].verdict == "invalid"' "$J")" false
expect_grep "\| h1 \| A \| bin \| $path \(the host's own \`host:sort\`; --version: sort" "$T/o1/report.md"

note "a name only the coordinator's PATH has: h1 fails, naming it"
mkdir -p "$T/pbin"
cp "$(command -v sort)" "$T/pbin/coordsort"
sed 's/^bin  = host:sort$/bin  = host:coordsort/' "$T/lab.ini" > "$T/missing.ini"
rc=0; PATH="$T/pbin:$PATH" run_orch "$T/log2" run --inventory="$INV" --hosts=h1 --out="$T/o2" "$T/missing.ini" || rc=$?
cat "$T/log2"
expect_eq "missing exit" "$rc" 3
expect_grep "h1 failed: agent: host program coordsort: not found in the agent's PATH \(" "$T/log2"
grep -q "$T/pbin" "$T/log2" && fail "h1's agent searched the coordinator's PATH"
no_leftovers
echo "PASS"
