# No report from nothing: a run in which no sample was taken (its one host
# unreachable: an inventory entry pointing at a closed loopback port)
# writes no report, leaves reports/latest where it was, says why, and
# exits 3. orch status calls it failed.
. tests/e2e/lib.sh

REPO=$PWD
cat > "$T/inv.ini" <<EOT
[host.dead]
address = 127.0.0.1
port    = 1
EOT
# A previous run's reports, which reports/latest points at.
mkdir -p "$T/cwd/reports/20000101-000000-beef"
ln -s 20000101-000000-beef "$T/cwd/reports/latest"

note "a run whose one host is unreachable"
rc=0
(cd "$T/cwd" && "$ORCH" run --inventory="$T/inv.ini" --hosts=dead \
    "$REPO/tests/suites/slow.ini") >"$T/log1" 2>&1 || rc=$?
cat "$T/log1"
expect_eq "exit code" "$rc" 3
expect_grep '^orch: dead: ' "$T/log1"
expect_grep '^orch: no sample was taken: the host failed; no report written \(the record is reports/[0-9]+-[0-9]+-[0-9a-f]+/samples.msgpack\)' "$T/log1"
! grep -q '^report:' "$T/log1" || fail "a report was announced"
expect_eq "reports/latest" "$(readlink "$T/cwd/reports/latest")" 20000101-000000-beef
dir=$(ls -d "$T"/cwd/reports/2*-* | grep -v beef)
for f in report.md report.html summary.json samples.csv; do
	[ ! -e "$dir/$f" ] || fail "$f written for a run without a sample"
done

note "orch status calls it failed"
rc=0; run_orch "$T/st" status "$dir" --inventory="$T/inv.ini" || rc=$?
cat "$T/st"
expect_grep '^run .*, failed: 1 of 1 host failed' "$T/st"
# Its host's row: the whole reason in the STATE column, and the AGENT
# column where the header puts it, two blanks after the widest state.
hdr=$(grep '^HOST ' "$T/st") row=$(grep '^dead ' "$T/st")
col=$(awk -v h="$hdr" 'BEGIN { print index(h, "STATE") - 1 }')
agent_at=$(awk -v h="$hdr" 'BEGIN { print index(h, "AGENT") - 1 }')
expect_eq "the state's end" "${row:$((agent_at - 2)):2}" "  "
state=${row:$((col)):$((agent_at - col))}
case "$state" in
"failed: "*) ;;
*) fail "state column '$state'" ;;
esac
reason=$(grep '^orch: dead failed: ' "$T/log1" | sed 's/^orch: dead failed: //')
[ -n "$reason" ] || fail "no reason in the run's log"
expect_eq "the state, whole" "$(echo "$state" | sed 's/  *$//')" "failed: $reason"

note "a record's host error reaches status sanitized (ESC, BEL, C1 CSI)"
# A hostend record (msgpack, by hand): its error is an OSC title, a CSI in
# one UTF-8 character (U+009B) and text; the last hostend of a host wins.
printf '\204\241t\247hostend\244host\244dead\246status\246failed\245error\264\033]0;PWNED\007 \302\23331m red' >>"$dir/samples.msgpack"
rc=0; run_orch "$T/st2" status "$dir" --inventory="$T/inv.ini" || rc=$?
cat -v "$T/st2"
expect_grep '^dead .*failed: \?\]0;PWNED\? \?31m red' "$T/st2"
! LC_ALL=C grep -q "$(printf '\033')" "$T/st2" || fail "an escape reached the terminal"
! LC_ALL=C grep -q "$(printf '\302\233')" "$T/st2" || fail "a C1 CSI reached the terminal"
echo PASS
