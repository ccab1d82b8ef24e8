# A workdir is checked before anything in it runs (issue 27, findings 2
# and 3): a fixed remote script makes it 0700 when missing and refuses one
# that others may write (a planted bin/orch-agent would touch a marker:
# orch check, orch run and orch deploy refuse, naming host, path and
# what is wrong, and the marker never appears), a symbolic link, or the
# home directory itself. Deploy removes only a src directory it made.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 1 || fail "lab did not come up"
INV="$LAB_INVENTORY"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
export ORCH_KNOWN_HOSTS="$T/kh"
: >"$ORCH_KNOWN_HOSTS"
mark="$T/planted-ran"
wd="$LAB/h1/wd"

note "a group-writable workdir with a planted agent: check, run and deploy refuse; it never runs"
mkdir -p "$wd/bin"
printf '#!/bin/sh\ntouch %s\necho ORCH-AGENT 0 tcp://0.0.0.0:1\n' "$mark" >"$wd/bin/orch-agent"
chmod 755 "$wd/bin/orch-agent"
chmod 0770 "$wd"
rc=0; run_orch "$T/c1" check --inventory="$INV" --hosts=h1 --accept-new-host-keys || rc=$?
cat "$T/c1"
[ "$rc" -ne 0 ] || fail "check accepted a group-writable workdir"
expect_grep "^h1: not ready: workdir $wd refused: $wd may be written by group or others \\(mode drwxrwx---" "$T/c1"
rc=0; run_orch "$T/r1" run --inventory="$INV" --hosts=h1 --rounds=2 --max-load=0 --out="$T/o1" tests/suites/brisk.ini || rc=$?
cat "$T/r1"
[ "$rc" -ne 0 ] || fail "run accepted a group-writable workdir"
expect_grep "h1: workdir $wd refused: .*may be written by group or others" "$T/r1"
rc=0; run_orch "$T/d1" deploy --inventory="$INV" --hosts=h1 --force || rc=$?
cat "$T/d1"
[ "$rc" -ne 0 ] || fail "deploy accepted a group-writable workdir"
expect_grep "h1: FAILED: h1: workdir $wd refused: .*may be written by group or others" "$T/d1"
[ ! -e "$mark" ] || fail "the planted bin/orch-agent ran"

note "a symbolic link for a workdir, and the home directory itself: refused"
mkdir -m 0700 "$LAB/h1/real"
ln -s "$LAB/h1/real" "$LAB/h1/link"
lab_inventory_set h1 workdir "$LAB/h1/link"
rc=0; run_orch "$T/c2" check --inventory="$INV" --hosts=h1 || rc=$?
[ "$rc" -ne 0 ] || fail "check accepted a workdir that is a link"
expect_grep "workdir $LAB/h1/link refused: $LAB/h1/link is a symbolic link" "$T/c2"
lab_inventory_set h1 workdir "~"
rc=0; run_orch "$T/c3" check --inventory="$INV" --hosts=h1 || rc=$?
[ "$rc" -ne 0 ] || fail "check accepted the home directory as a workdir"
expect_grep "workdir ~ refused: .* is the home directory itself" "$T/c3"

note "a new workdir is made 0700, its missing parents too"
lab_inventory_set h1 workdir "$LAB/h1/new/wd"
rc=0; run_orch "$T/c4" check --inventory="$INV" --hosts=h1 || rc=$?
cat "$T/c4"
expect_eq "mode of the new workdir" "$(stat -c %a "$LAB/h1/new/wd")" 700
expect_eq "mode of its new parent" "$(stat -c %a "$LAB/h1/new")" 700

note "deploy from source leaves a src it did not make alone"
mkdir -p "$LAB/h1/new/wd/src"
echo mine >"$LAB/h1/new/wd/src/keep"
rc=0; run_orch "$T/d2" deploy --inventory="$INV" --hosts=h1 --from-source || rc=$?
cat "$T/d2"
[ "$rc" -ne 0 ] || fail "deploy replaced a src it did not make"
expect_grep "src is not a directory orch deploy made: move it away" "$T/d2"
expect_eq "the user's file in src" "$(cat "$LAB/h1/new/wd/src/keep")" mine
[ ! -e "$mark" ] || fail "the planted bin/orch-agent ran"
echo PASS
