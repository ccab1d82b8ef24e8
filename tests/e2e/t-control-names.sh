# orch status and orch stop contact only the hosts the user's inventory
# names by the record's very names (issue 27, finding 11): a record whose
# host is called like a group of the inventory is not taken for that
# group's hosts; that host is said to be unknown and nobody is contacted.
. tests/e2e/lib.sh

note "a finished run on local, its record's host renamed grp01"
rc=0; run_orch "$T/log1" run --rounds=1 --max-load=0 --out="$T/r" tests/suites/brisk.ini || rc=$?
expect_eq "run exit" "$rc" 0
mkdir "$T/g"
# The record's strings are msgpack fixstr: the same length, renamed.
perl -pe 's/\xa5local/\xa5grp01/g' "$T/r/samples.msgpack" >"$T/g/samples.msgpack"
grep -aq grp01 "$T/g/samples.msgpack" || fail "no host renamed in the record"
cat >"$T/inv.ini" <<EOT
[host.far]
address = 127.0.0.1
port    = 1
[group.grp01]
hosts = far
EOT

for verb in status stop; do
	note "orch $verb: grp01 is unknown, far is not contacted"
	rc=0; run_orch "$T/$verb" "$verb" --inventory="$T/inv.ini" "$T/g" || rc=$?
	cat "$T/$verb"
	expect_grep "^orch: host 'grp01' of the record is unknown, not contacted: it is a group of the inventory" "$T/$verb"
	grep -q '^far ' "$T/$verb" && fail "orch $verb contacted far, a host of the group the record's name matches"
done
echo PASS
