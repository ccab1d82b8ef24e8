# The host's own programs (bin = host:NAME / host:/ABS): looked up by the
# agent in its own PATH, nothing pushed, and the record and every report
# carry the path found, its SHA-256 and its --version line; two variants
# of one host program are seen as the same file. checksum = stdout: the
# SHA-256 of the whole standard output (binary is fine) gates the
# comparison: equal outputs compare, different ones are invalid, naming
# stdout. A name the host does not have fails that host, naming both.
. tests/e2e/lib.sh

# A program only this test's PATH has: the agent must search its own PATH.
mkdir -p "$T/pbin"
cp "$(command -v sort)" "$T/pbin/mysort"
want_sha=$(sha256sum "$T/pbin/mysort" | cut -d' ' -f1)
# Unique lines, so that sort and sort -s write the same bytes.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%d-%d\n", (i * 7919) % 100003, i }' > "$T/in.txt"

note "host:NAME from the agent's PATH and host:/ABS, stdout checksums that match"
cat > "$T/match.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
max_load = 0
[variant.A]
bin  = host:mysort
[variant.B]
bin  = host:$T/pbin/mysort
args = -s
[bench.sort]
args     = $T/in.txt
checksum = stdout
INI
rc=0; PATH="$T/pbin:$PATH" run_orch "$T/log1" run --out="$T/o1" "$T/match.ini" || rc=$?
cat "$T/log1"
expect_eq "match run exit" "$rc" 0
J="$T/o1/summary.json"
expect_eq "host programs recorded" "$(jq '.hosts[0].host_programs | length' "$J")" 2
expect_eq "A's path" "$(jq -r '.hosts[0].host_programs[] | select(.variant=="A") | .path' "$J")" "$T/pbin/mysort"
expect_eq "A's program" "$(jq -r '.hosts[0].host_programs[] | select(.variant=="A") | .program' "$J")" "mysort"
expect_eq "A's SHA-256" "$(jq -r '.hosts[0].host_programs[] | select(.variant=="A") | .sha256' "$J")" "$want_sha"
expect_eq "B's SHA-256" "$(jq -r '.hosts[0].host_programs[] | select(.variant=="B") | .sha256' "$J")" "$want_sha"
jq -r '.hosts[0].host_programs[0].version' "$J" | grep -q '^sort (GNU coreutils) ' \
	|| fail "no --version line in summary.json"
expect_grep "\| local \| A \| bin \| $T/pbin/mysort \(the host's own \`host:mysort\`; --version: sort \(GNU coreutils\) [0-9.]+\) \| \`$want_sha\` \|" "$T/o1/report.md"
expect_grep "host:mysort</code>; --version: sort \(GNU coreutils\)" "$T/o1/report.html"
# Hygiene's A/A detection works from the SHA-256 the agent found.
expect_grep "On \`local\`, B runs the same files as A \(equal SHA-256\)" "$T/o1/report.md"
expect_eq "nothing pushed" "$(jq '.hosts[0].pushed_files' "$J")" 0
expect_eq "match verdict is not invalid" "$(jq -r '.comparisons[0].verdict == "invalid"' "$J")" false
expect_grep 'checksum = stdout' "$T/o1/report.md"

note "stdout checksums that differ: invalid, naming stdout"
sed 's/^args = -s$/args = -r/' "$T/match.ini" > "$T/mismatch.ini"
rc=0; PATH="$T/pbin:$PATH" run_orch "$T/log2" run --out="$T/o2" "$T/mismatch.ini" || rc=$?
expect_eq "mismatch run exit" "$rc" 0
expect_eq "mismatch verdict" "$(jq -r '.comparisons[0].verdict' "$T/o2/summary.json")" invalid
jq -r '.comparisons[0].reason' "$T/o2/summary.json" | grep -Eq '^stdout checksums disagree: [AB] round [0-9]+ gave sha256:[0-9a-f]{33}, [AB] round [0-9]+ gave sha256:[0-9a-f]{33}$' \
	|| fail "mismatch reason: $(jq -r '.comparisons[0].reason' "$T/o2/summary.json")"

note "binary stdout (gzip -c): the same bytes compare"
head -c 300000 "$T/in.txt" > "$T/blob"
cat > "$T/gzip.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
max_load = 0
[variant.A]
bin  = host:gzip
args = -6
[variant.B]
bin  = host:gzip
[bench.gz]
args     = -c -n $T/blob
checksum = stdout
INI
rc=0; run_orch "$T/log3" run --out="$T/o3" "$T/gzip.ini" || rc=$?
cat "$T/log3"
expect_eq "gzip run exit" "$rc" 0
expect_eq "gzip verdict is not invalid" "$(jq -r '.comparisons[0].verdict == "invalid"' "$T/o3/summary.json")" false
gz_sha=$(gzip -c -n "$T/blob" | sha256sum | cut -d' ' -f1)
# Every run's checksum is the SHA-256 of what gzip wrote (samples.csv has
# no checksum column: the record has it, as orch report re-reads it).
expect_eq "gzip resolved in PATH" "$(jq -r '.hosts[0].host_programs[0].path' "$T/o3/summary.json")" "$(command -v gzip)"
grep -c "sha256:$gz_sha" "$T/o3/samples.msgpack" >/dev/null \
	|| fail "the record lacks the checksum sha256:$gz_sha"
expect_eq "runs with that checksum" "$(grep -ao "sha256:$gz_sha" "$T/o3/samples.msgpack" | wc -l)" 10

note "a program the host does not have: the host fails, both named"
sed 's/^bin  = host:gzip$/bin  = host:no-such-program-here/' "$T/gzip.ini" > "$T/missing.ini"
rc=0; run_orch "$T/log4" run --out="$T/o4" "$T/missing.ini" || rc=$?
expect_eq "missing program exit" "$rc" 3
expect_grep "local failed: agent: host program no-such-program-here: not found in the agent's PATH \(" "$T/log4"
# Nothing was measured: no report, and the run says why.
expect_grep "no sample was taken: the host failed; no report written" "$T/log4"
[ ! -e "$T/o4/summary.json" ] || fail "a run that measured nothing wrote a report"

note "orch report re-renders the host programs from the record alone"
cp "$T/o1/report.md" "$T/report1.md"
rc=0; run_orch "$T/log5" report "$T/o1" || rc=$?
expect_eq "report exit" "$rc" 0
cmp "$T/report1.md" "$T/o1/report.md" || fail "report.md differs when re-rendered"
note "a PATH directory with an escape in its name: orch run prints it sanitized"
esc=$(printf '\033]0;PWNED\007')
mkdir -p "$T/p${esc}bin"
cp "$(command -v sort)" "$T/p${esc}bin/escsort"
sed -e 's/^bin  = host:mysort$/bin  = host:escsort/' \
    -e "s|^bin  = host:$T/pbin/mysort\$|bin  = host:escsort|" \
    -e 's/^rounds   = 5$/rounds   = 2/' "$T/match.ini" > "$T/esc.ini"
rc=0; PATH="$T/p${esc}bin:$PATH" run_orch "$T/log6" run --out="$T/o6" "$T/esc.ini" || rc=$?
cat -v "$T/log6"
expect_grep "local: host program escsort is $T/p\?\]0;PWNED\?bin/escsort" "$T/log6"
! LC_ALL=C grep -q "$esc" "$T/log6" || fail "the escape reached the terminal"
# The agent's ERROR names its PATH: it reaches the terminal sanitized.
rc=0; PATH="$T/p${esc}bin:$PATH" run_orch "$T/log7" run --out="$T/o7" "$T/missing.ini" || rc=$?
cat -v "$T/log7"
expect_eq "missing program exit (escaped PATH)" "$rc" 3
expect_grep "local failed: agent: host program no-such-program-here: not found in the agent's PATH \($T/p\?\]0;PWNED\?bin:" "$T/log7"
! LC_ALL=C grep -q "$esc" "$T/log7" || fail "the agent's ERROR reached the terminal raw"
no_leftovers
echo "PASS"
