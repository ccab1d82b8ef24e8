# One machine, one host (issue 32): two inventory names for one account
# on one machine's sshd, with one workdir, are refused with exit 2 before
# anything is measured, naming both as the same machine and workdir, and
# leave no run directory; two hosts of one machine with workdirs of their
# own (the lab's h1 and local) run, and the report says they share a
# machine; two runs started at once on h1 both finish.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 1 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
INV="$T/inv.ini"
# h1b: h1 once more, the same address, account and workdir.
{ cat "$LAB_INVENTORY"; sed -n '/^\[host.h1\]/,/^workdir/p' "$LAB_INVENTORY" |
	sed 's/^\[host.h1\]/[host.h1b]/'; } > "$INV"
mkdir "$T/cwd"
P=$PWD/tests/progs/bin/linux-$(uname -m)
SUITE="$T/nap.ini"
printf '[suite]\nrounds = 3\nwarmup = 0\nmax_load = 0\n[variant.A]\nbin = %s\n[variant.B]\nbin = %s\n[bench.nap]\nargs = 20\n' \
	"$P/sleeper" "$P/sleeper" > "$SUITE"

note "two names, one machine and workdir: exit 2 before measuring, naming both"
rc=0; (cd "$T/cwd" && run_orch "$T/log1" run --inventory="$INV" --hosts=h1,h1b \
	"$SUITE") || rc=$?
cat "$T/log1"
expect_eq "exit" "$rc" 2
expect_grep '^orch: hosts h1 and h1b are the same machine and workdir \(' "$T/log1"
! grep -q 'measured run' "$T/log1" || fail "something was measured"
[ ! -e "$LAB/h1/wd/runs" ] || [ -z "$(ls -A "$LAB/h1/wd/runs")" ] ||
	fail "an agent journaled a run: $(ls "$LAB/h1/wd/runs")"
note "a refused run leaves no run directory"
[ ! -e "$T/cwd/reports" ] || [ -z "$(ls -A "$T/cwd/reports")" ] ||
	fail "a refused run left $(ls "$T/cwd/reports")"

note "one machine, two workdirs (local and h1): run, and the report says they share a machine"
rc=0; run_orch "$T/log2" run --inventory="$INV" --hosts=local,h1 \
	--out="$T/r2" "$SUITE" || rc=$?
cat "$T/log2"
expect_eq "exit" "$rc" 0
expect_grep '^orch: hosts local and h1 share a machine \(workdirs ' "$T/log2"
expect_grep '^Hosts that share a machine: local and h1 share a machine' "$T/log2"
expect_grep '^> \*\*Hosts that share a machine:\*\* `local` and `h1` share a machine' "$T/r2/report.md"
expect_grep 'share a machine' "$T/r2/answer.md"
expect_grep '<div class="note"><b>Hosts that share a machine:</b> <code>local</code> and <code>h1</code> share a machine' "$T/r2/report.html"
# The record keeps a hash, never the machine's id itself.
id=$(cat /etc/machine-id 2>/dev/null || cat /proc/sys/kernel/random/boot_id)
! grep -rqF "$id" "$T/r2" || fail "the machine id itself is in the record"

note "two runs started at once on one lab host (SSH, an empty cache): both exit 0"
rm -rf "$LAB/h1/wd/cache"
"$ORCH" run --inventory="$INV" --hosts=h1 --out="$T/r3" "$SUITE" >"$T/log3" 2>&1 & p3=$!
"$ORCH" run --inventory="$INV" --hosts=h1 --out="$T/r4" "$SUITE" >"$T/log4" 2>&1 & p4=$!
rc3=0; wait "$p3" || rc3=$?
rc4=0; wait "$p4" || rc4=$?
cat "$T/log3" "$T/log4"
expect_eq "first exit" "$rc3" 0
expect_eq "second exit" "$rc4" 0
no_leftovers
echo PASS
