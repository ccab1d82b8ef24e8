# The Machines section through the command line: `orch report` on a stored
# record of four hosts writes it in report.md, report.html and summary.json
# against the run's first host, or the host --machine-reference names; a
# reference that is no host (or no name) is refused with exit 2 and nothing
# written, by `orch report` and by `orch run` before any host is reached;
# a record of one host has no section.
. tests/e2e/lib.sh

R="$T/arch"
mkdir "$R"
cp tests/unit/fixtures/report/arch.msgpack "$R/samples.msgpack"

note "default reference: the run's first host"
rc=0; run_orch "$T/log1" report "$R" || rc=$?
cat "$T/log1"
expect_eq "orch report exit" "$rc" 0
expect_grep '^## Machines$' "$R/report.md"
expect_grep 'reference host `m2` \(the run.s first host' "$R/report.md"
expect_grep 'compared unpaired' "$R/report.md"
expect_grep '^\| cpu_model \| Apple M2 \| AMD EPYC' "$R/report.md"
expect_grep '<section id="machines">' "$R/report.html"
expect_eq "machine forest plots (one per other host)" \
	"$(grep -c '<svg class="machines"' "$R/report.html")" 3
expect_eq "summary.json reference" "$(jq -r '.machines.reference' "$R/summary.json")" m2
expect_eq "summary.json paired" "$(jq -r '.machines.paired' "$R/summary.json")" false
expect_eq "summary.json ratios" "$(jq '.machines.ratios | length' "$R/summary.json")" 27
expect_eq "summary.json geomeans" "$(jq '.machines.geomeans | length' "$R/summary.json")" 9

note "--machine-reference=epyc1"
rc=0; run_orch "$T/log2" report --machine-reference=epyc1 "$R" || rc=$?
cat "$T/log2"
expect_eq "orch report exit" "$rc" 0
expect_grep 'reference host `epyc1` \(named by --machine-reference\)' "$R/report.md"
expect_eq "summary.json reference" "$(jq -r '.machines.reference' "$R/summary.json")" epyc1
expect_eq "reference_given" "$(jq -r '.machines.reference_given' "$R/summary.json")" true
expect_eq "m2 against epyc1" \
	"$(jq -r '[.machines.ratios[] | select(.host == "m2" and .bench == "hash" and .variant == "A")][0].ratio < 1' "$R/summary.json")" true

note "a reference that is not a host of the record: exit 2, nothing written"
B="$T/bad"
mkdir "$B"
cp tests/unit/fixtures/report/arch.msgpack "$B/samples.msgpack"
rc=0; run_orch "$T/log3" report --machine-reference=nohost "$B" || rc=$?
cat "$T/log3"
expect_eq "orch report exit" "$rc" 2
expect_grep "machine-reference: host 'nohost' is not in the record \(its hosts: m2," "$T/log3"
expect_eq "files in $B" "$(ls -A "$B")" samples.msgpack

rc=0; run_orch "$T/log4" report --machine-reference=-x "$B" || rc=$?
expect_eq "orch report exit (not a name)" "$rc" 2
expect_grep "machine-reference: '-x' is not a host name" "$T/log4"
expect_eq "files in $B" "$(ls -A "$B")" samples.msgpack

note "orch run: refused before anything starts"
rc=0; run_orch "$T/log5" run --hosts=local --machine-reference=nohost \
	--out="$T/run" suites/example.ini || rc=$?
cat "$T/log5"
expect_eq "orch run exit" "$rc" 2
expect_grep "machine-reference: host 'nohost' is not one of the run's hosts" "$T/log5"
[ ! -e "$T/run" ] || fail "orch run wrote $T/run"

note "one host: no section"
O="$T/one"
mkdir "$O"
cp tests/unit/fixtures/report/example.msgpack "$O/samples.msgpack"
rc=0; run_orch "$T/log6" report "$O" || rc=$?
expect_eq "orch report exit" "$rc" 0
grep -q '^## Machines' "$O/report.md" && fail "a one-host report has a Machines section"
expect_eq "summary.json machines" "$(jq -r '.machines' "$O/summary.json")" null
echo "PASS"
