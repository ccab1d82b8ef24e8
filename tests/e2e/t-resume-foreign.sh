# A run directory is evidence, never instructions (issue 27, finding 1).
# A run whose suite came inside its own directory (its record's suite_path
# the relative reports/R/suite.ini) is sent to another user, here another
# run key ($XDG_STATE_HOME): their `orch run --resume=DIR` is refused, as
# it is with --resume-foreign while the suite is the directory's own, and
# nothing of that suite runs (its benchmark would touch a marker). Naming
# a suite of one's own with other text is refused byte for byte. The user
# who started it resumes it with nothing more (DIR/run.mac is theirs).
. tests/e2e/lib.sh

mark="$T/pwned"
mkdir -p "$T/reports/R"
cat > "$T/reports/R/suite.ini" <<EOT
[suite]
rounds   = 40
warmup   = 0
max_load = 0
[variant.A]
bin = /bin/sh
[variant.B]
bin = /bin/sh
[bench.nap]
args = -c "touch $mark; sleep 0.2"
EOT

note "the sender's run, from reports/R/suite.ini, killed mid-run, its agent stopped"
(cd "$T" && exec "$ORCH" run --out=reports/R reports/R/suite.ini) >"$T/log1" 2>&1 &
orch_pid=$!
wait_samples "$T/reports/R" 2000
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
(cd "$T" && "$ORCH" stop reports/R) >"$T/log2" 2>&1 || { cat "$T/log2"; fail "orch stop"; }
no_leftovers
rm -f "$mark"
grep -aq 'reports/R/suite.ini' "$T/reports/R/samples.msgpack" || fail "the record's suite path is not reports/R/suite.ini"

note "another user: refused, nothing runs"
mkdir -p "$T/state"
cp -r "$T/state" "$T/state-sender"
rm -rf "$T/state"
rc=0; (cd "$T" && run_orch "$T/log3a" run --resume=reports/R) || rc=$?
expect_eq "exit of a foreign resume, no key" "$rc" 2
expect_grep 'was not started by you here \(.*run.key does not exist' "$T/log3a"
mkdir -p -m 0700 "$T/state/orch"
head -c 32 /dev/urandom >"$T/state/orch/run.key"
chmod 600 "$T/state/orch/run.key"
rc=0; (cd "$T" && run_orch "$T/log3" run --resume=reports/R) || rc=$?
cat "$T/log3"
expect_eq "exit of a foreign resume" "$rc" 2
expect_grep 'reports/R: run .* was not started by you here \(.*run.mac was not made with your run key .*\); .*evidence, never instructions.*--resume-foreign' "$T/log3"
rc=0; (cd "$T" && run_orch "$T/log4" run --resume=reports/R --resume-foreign) || rc=$?
cat "$T/log4"
expect_eq "exit of --resume-foreign with the directory's own suite" "$rc" 2
expect_grep 'the record names the suite reports/R/suite.ini, which is a relative path.*name the suite to run' "$T/log4"
sed 's/sleep 0.2/sleep 0.1/' "$T/reports/R/suite.ini" >"$T/mine.ini"
rc=0; (cd "$T" && run_orch "$T/log5" run --resume=reports/R --resume-foreign "$T/mine.ini") || rc=$?
cat "$T/log5"
expect_eq "exit with a suite of other text" "$rc" 2
expect_grep "mine.ini changed since run .* started \\(SHA-256 now" "$T/log5"
[ ! -e "$mark" ] || fail "a foreign resume ran the suite the run directory carried"

note "the user who started it: resumed as it is, to the end"
rm -rf "$T/state"
mv "$T/state-sender" "$T/state"
rc=0; (cd "$T" && run_orch "$T/log6" run --resume=reports/R) || rc=$?
tail -3 "$T/log6"
expect_eq "exit of the sender's own resume" "$rc" 0
[ -e "$mark" ] || fail "the sender's resume did not run its suite"
no_leftovers
echo PASS
