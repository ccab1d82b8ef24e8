# A resume kills the benchmark a lost agent left running only when its pid
# still names that very process: the journal records who it was (boot id
# and start time), and a process that merely reuses the pid is left alone.
# A journal that lost what the coordinator holds (the agent sends a
# round's samples before it syncs them: a crash of its machine in between)
# runs those steps again, and the coordinator stores each step once.
. tests/e2e/lib.sh

# last_record JOURNAL: prints the kind of the journal's last whole record.
last_record() {
	perl -e 'open(my $f, "<:raw", $ARGV[0]) or exit 1; local $/; my $j = <$f>;
		my ($o, $k) = (0, ""); while ($o + 5 <= length $j) {
			my ($t, $l) = unpack("a x3 C", substr($j, $o, 5));
			last if $o + 5 + $l > length $j; $k = $t; $o += 5 + $l; }
		print $k' "$1"
}

# set_last_pid JOURNAL PID [IDENT]: the last record (a C) names PID, and
# IDENT when given (else the identity stays the one journaled).
set_last_pid() {
	perl -e 'my ($p, $pid, $id) = @ARGV; open(my $f, "<:raw", $p) or die; local $/;
		my $j = <$f>; close $f; my ($o, $last) = (0, -1);
		while ($o + 5 <= length $j) { my $l = unpack("x4 C", substr($j, $o, 5));
			last if $o + 5 + $l > length $j; $last = $o; $o += 5 + $l; }
		die "no C record last" if $last < 0 || substr($j, $last, 1) ne "C";
		my $l = unpack("x4 C", substr($j, $last, 5));
		my $body = substr($j, $last + 5, $l);
		substr($body, 8, 4) = pack("N", $pid);
		$body = substr($body, 0, 12) . $id if defined $id;
		$j = substr($j, 0, $last) . "C\0\0\0" . pack("C", length $body) . $body;
		open($f, ">:raw", $p) or die; print $f $j; close $f;' "$@"
}

# cut_after_first_c JOURNAL: keeps the journal up to its first C record
# (the first benchmark started, never ended): what a crash of the agent's
# machine leaves when its last sync was before that run ended.
cut_after_first_c() {
	perl -e 'my $p = $ARGV[0]; open(my $f, "<:raw", $p) or die; local $/;
		my $j = <$f>; close $f; my $o = 0;
		while ($o + 5 <= length $j) { my ($t, $l) = unpack("a x3 C", substr($j, $o, 5));
			last if $o + 5 + $l > length $j; $o += 5 + $l;
			if ($t eq "C") { truncate($p, $o) or die; exit 0 } }
		die "no C record"' "$1"
}

# crash OUT: a run whose coordinator and agent both die while a benchmark
# runs (as in a reboot); leaves the journal's path in $J.
crash() {
	local i apid ok=0
	"$ORCH" run --out="$1" --rounds=12 tests/suites/slow.ini >"$1.log" 2>&1 &
	local orch_pid=$!
	wait_samples "$1" 3000
	kill -9 "$orch_pid"; wait "$orch_pid" 2>/dev/null || true
	apid=$(pgrep -f "orch-agent serve --workdir=$T/workdir") || fail "no agent carried on"
	J=$(ls -d "$T"/workdir/runs/*/journal | head -1)
	# Freeze it while a benchmark runs (the journal ends with its C), then kill.
	local end=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$end" ]; do
		kill -STOP "$apid"
		if [ "$(last_record "$J")" = C ]; then ok=1; break; fi
		kill -CONT "$apid"; sleep 0.02
	done
	[ "$ok" = 1 ] || fail "the agent was never caught running a benchmark in 60 s"
	kill -9 "$apid"
	wait_until 60 "the killed agent $apid to be gone" gone "$apid"
}

gone() { ! kill -0 "$1" 2>/dev/null; }

# decoy: an unrelated process leading its own group; prints its pid.
decoy() {
	setsid sleep 120 </dev/null >/dev/null 2>&1 &
	echo $!
}

note "a pid reused by another process: left alone"
crash "$T/out1"
d1=$(decoy)
CLEANUPS+=("kill -9 $d1 2>/dev/null")
set_last_pid "$J" "$d1"
rc=0; run_orch "$T/log1" run --resume="$T/out1" || rc=$?
cat "$T/log1"
expect_eq "resume exit" "$rc" 0
kill -0 "$d1" 2>/dev/null || fail "the resume killed process $d1, which only reused the benchmark's pid"
kill -9 "$d1"
rm -rf "$T/workdir/runs"

note "the very process the lost agent left: killed"
crash "$T/out2"
d2=$(decoy)
CLEANUPS+=("kill -9 $d2 2>/dev/null")
ident="linux $(cat /proc/sys/kernel/random/boot_id) $(awk '{print $22}' "/proc/$d2/stat")"
set_last_pid "$J" "$d2" "$ident"
rc=0; run_orch "$T/log2" run --resume="$T/out2" || rc=$?
cat "$T/log2"
expect_eq "resume exit" "$rc" 0
wait_until 30 "process $d2, journaled as the lost agent's benchmark, to be killed by the resume" gone "$d2"
rm -rf "$T/workdir/runs"

note "a journal that lost samples the coordinator stores: each step once"
crash "$T/out3"
cut_after_first_c "$J"
expect_eq "the journal's last record" "$(last_record "$J")" C
rc=0; run_orch "$T/log3" run --resume="$T/out3" || rc=$?
cat "$T/log3"
expect_eq "resume exit" "$rc" 0
C="$T/out3/samples.csv"
# The first step ran again as its attempt 2 and every later step of the
# journal's lost part as attempt 1: all already stored, so all dropped.
dup=$(awk -F, '$11 == "wall_ns" {print $4, $5, $6}' "$C" | sort | uniq -d | head -3)
[ -z "$dup" ] || fail "a step stored twice: $dup"
expect_eq "attempts past the first" "$(awk -F, '$11 == "wall_ns" && $7 != 1' "$C" | wc -l)" 0
expect_eq "measured runs" "$(awk -F, '$11 == "wall_ns" && $4 != "(floor)"' "$C" | wc -l)" 24
no_leftovers
echo PASS
