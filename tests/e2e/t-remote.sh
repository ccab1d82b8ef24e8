# Remote commands on real sshd hosts (tests/lab): a record whose run id is
# a shell command runs nothing on the hosts (orch status, orch stop) nor
# here (orch run --resume, on the local host); a
# workdir full of shell syntax is a plain directory name on the host; two
# hosts deploy from source at once, each from its own private tarball, and
# nothing goes through the old shared /tmp/orch-src-PID.tar.gz; a push
# into a cache keeps a file of the same size there (test-ssh, ssh_put).
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 2 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"

note "two hosts build from source at once, past a symlink planted at the old shared path"
mkdir "$T/tmp"
echo untouched > "$T/victim"
rc=0
(
	# orch will have this pid: plant the old path's name before it runs.
	ln -s "$T/victim" "/tmp/orch-src-$BASHPID.tar.gz"
	echo "$BASHPID" > "$T/pid"
	TMPDIR="$T/tmp" exec "$ORCH" deploy --inventory="$INV" --hosts=h1,h2 --from-source
) > "$T/deploy" 2>&1 || rc=$?
rm -f "/tmp/orch-src-$(cat "$T/pid").tar.gz"
cat "$T/deploy"
expect_eq "deploy exit" "$rc" 0
expect_grep '^h1: built from source on the host' "$T/deploy"
expect_grep '^h2: built from source on the host' "$T/deploy"
for h in h1 h2; do
	"$LAB/$h/wd/bin/orch-agent" --version | grep -q "protocol" || fail "$h's agent does not run"
	cmp -s "$LAB/$h/wd/src/agent/main.c" agent/main.c || fail "$h built from other sources"
done
[ "$(cat "$T/victim")" = untouched ] || fail "orch wrote through the symlink planted at /tmp/orch-src-PID.tar.gz"
expect_eq "private temporary directories left" "$(ls -A "$T/tmp")" ""

note "a workdir of shell syntax is just a directory name on the host"
odd="$LAB/h2/w d'\"\$(touch $T/pw-wd)\`touch $T/pw-wd2\`"
lab_inventory_set h2 workdir "$odd"
rc=0; run_orch "$T/deploy2" deploy --inventory="$INV" --hosts=h2 || rc=$?
cat "$T/deploy2"
expect_eq "odd workdir deploy exit" "$rc" 0
[ -x "$odd/bin/orch-agent" ] || fail "no agent in the odd workdir"
[ ! -e "$T/pw-wd" ] && [ ! -e "$T/pw-wd2" ] || fail "the workdir ran a command on the host"
rc=0; run_orch "$T/run0" run --inventory="$INV" --hosts=h2 --rounds=2 --max-load=0 --out="$T/r0" tests/suites/brisk.ini || rc=$?
cat "$T/run0"
[ "$rc" = 0 ] || cat "$T/r0/logs/h2.log"
expect_eq "odd workdir run exit" "$rc" 0
[ -d "$odd/runs" ] || fail "the run did not use the odd workdir"

note "a record whose run id is a shell command: orch status and orch stop run nothing"
rc=0; run_orch "$T/run1" run --inventory="$INV" --hosts=h1 --rounds=2 --max-load=0 --out="$T/r1" tests/suites/brisk.ini || rc=$?
expect_eq "run exit" "$rc" 0
id=$(jq -r .run_id "$T/r1/summary.json")
[ ${#id} -eq 20 ] || fail "run id '$id' is not 20 bytes"
pw=$(mktemp -u /tmp/oXXXXXX)	# ";touch " + 12 + ";" = 20 bytes
evil=";touch $pw;"
[ ${#evil} -eq 20 ] || fail "evil run id is not 20 bytes"
ID="$id" EVIL="$evil" perl -0777 -pi -e 's/\Q$ENV{ID}\E/$ENV{EVIL}/g' "$T/r1/samples.msgpack"
grep -qF "$evil" "$T/r1/samples.msgpack" || fail "the run id was not replaced"
for cmd in status stop; do
	rc=0; run_orch "$T/$cmd" "$cmd" --inventory="$INV" "$T/r1" || rc=$?
	cat "$T/$cmd"
	expect_eq "$cmd exit" "$rc" 2
	[ ! -e "$pw" ] || { rm -f "$pw"; fail "orch $cmd ran the record's run id as a command"; }
done

note "orch run --resume of an unfinished record whose run id is a shell command: refused"
"$ORCH" run --out="$T/r2" --rounds=30 --max-load=0 tests/suites/slow.ini >"$T/run2" 2>&1 &
orch_pid=$!
wait_samples "$T/r2" 3000
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
cp "$T/r2/samples.msgpack" "$T/r2.orig"
id=$(grep -aoE '[0-9]{8}-[0-9]{6}-[0-9a-f]{4}' "$T/r2/samples.msgpack" | head -1)
[ ${#id} -eq 20 ] || fail "no run id in the record"
ID="$id" EVIL="$evil" perl -0777 -pi -e 's/\Q$ENV{ID}\E/$ENV{EVIL}/g' "$T/r2/samples.msgpack"
rc=0; run_orch "$T/resume" run --resume="$T/r2" || rc=$?
cat "$T/resume"
expect_eq "resume exit" "$rc" 2
expect_grep "run.?id.* is not a valid (identifier|name)" "$T/resume"
[ ! -e "$pw" ] || { rm -f "$pw"; fail "orch run --resume ran the record's run id as a command"; }
cp "$T/r2.orig" "$T/r2/samples.msgpack"
rc=0; run_orch "$T/stop2" stop "$T/r2" || rc=$?
expect_eq "stop of the original run" "$rc" 0

note "ssh_put into a cache (test-ssh): a file of the same size there is kept"
case $BIN in
bin) units=build/default/tests ;;
*) units=$(dirname "$BIN")/tests ;;
esac
[ -x "$units/test-ssh" ] || fail "$units/test-ssh not built (make check-unit)"
mkdir "$T/put"
ORCH_SSH_LAB_INV="$INV" ORCH_SSH_LAB_DIR="$T/put" timeout 60 \
    "$units/test-ssh" >"$T/unit" 2>&1 ||
	{ cat "$T/unit"; fail "test-ssh failed against h1"; }
grep -q SKIPPED "$T/unit" && { cat "$T/unit"; fail "test-ssh skipped its test"; }
expect_grep '^\[  PASSED  \] 1 test\(s\)\.$' "$T/unit"
no_leftovers
echo "t-remote: ok"
