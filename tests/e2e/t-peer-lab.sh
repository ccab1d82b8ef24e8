# A hostile agent on one host, an honest one on another: the lab's h1 (a
# real sshd, a real agent) measures while `local` is a hostile agent
# (tests/tools/hostile.c --agent, ORCH_AGENT). The forged sample fails
# `local` alone; h1's evidence is whole and the report renders for it. A
# waiting-grant flood on `local` (rounds = auto) does not keep h1 from
# its looks and its end. Each run is bounded by timeout.
. tests/e2e/lib.sh
. tests/lab/lab.sh

lab_up 1 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
HOSTILE="$PWD/${ORCH_BIN_DIR:-bin}/../build/default/tools/hostile"
[ -x "$HOSTILE" ] || HOSTILE="$PWD/build/default/tools/hostile"
[ -n "${ORCH_BIN_DIR:-}" ] && [ -x "$PWD/build/san/tools/hostile" ] && HOSTILE="$PWD/build/san/tools/hostile"
[ -x "$HOSTILE" ] || fail "build the test tools first (make tools)"
printf '#!/bin/sh\nexec "%s" --agent "$HOSTILE_MODE" "$@"\n' "$HOSTILE" >"$T/evil"
chmod +x "$T/evil"
cat >"$T/fixed.ini" <<EOF2
[suite]
rounds   = 4
warmup   = 0
max_load = 0

[variant.A]
bin = $PWD/tests/progs/bin/{os}-{arch}/sleeper

[variant.B]
bin = $PWD/tests/progs/bin/{os}-{arch}/sleeper

[bench.nap]
args = 1
EOF2
sed -e 's/^rounds .*/rounds = auto\nmin_rounds = 2\nmax_rounds = 6/' "$T/fixed.ini" >"$T/auto.ini"

evil() {
	local mode=$1 out=$2 suite=$3; shift 3
	rc=0
	HOSTILE_MODE=$mode ORCH_AGENT="$T/evil" timeout 120 "$ORCH" run \
	    --inventory="$LAB_INVENTORY" --hosts=local,h1 "$@" \
	    --out="$T/$out" "$suite" >"$T/$out.log" 2>&1 || rc=$?
	cat "$T/$out.log"
	[ "$rc" -ne 124 ] || fail "$mode: orch did not end within 120 s"
}
# measured DIR HOST: h's measured wall_ns samples.
measured() { awk -F, -v h="$2" '$2==h && $11=="wall_ns" && $4!="(floor)"' "$1/samples.csv" | wc -l; }

note "a forged sample on local: local fails, h1's 8 samples and its report stand"
evil forged f1 "$T/fixed.ini"
expect_eq "exit" "$rc" 3
expect_grep "^orch: local failed: host local sent a sample for round 1001, its plan has 4$" "$T/f1.log"
S="$T/f1/summary.json"
expect_eq "hosts" "$(jq -r '[.hosts[] | .name + ":" + .status] | sort | join(" ")' "$S")" "h1:ok local:failed"
expect_eq "h1 measured" "$(measured "$T/f1" h1)" 8
expect_eq "local measured" "$(measured "$T/f1" local)" 2
rc=0; run_orch "$T/f1r.log" report "$T/f1" || rc=$?
cat "$T/f1r.log"
expect_eq "orch report" "$rc" 0
expect_grep "h1 +nap +wall_ns" "$T/f1r.log"

note "a waiting-grant flood on local: h1 looks and ends on its own"
evil grant=200 g1 "$T/auto.ini" -v
expect_eq "exit" "$rc" 3
expect_grep "^orch: local failed: host local sent more than 64 waiting-grant messages without a sample in between$" "$T/g1.log"
expect_eq "local's looks" "$(grep -c 'local: look at ' "$T/g1.log")" 1
expect_eq "h1" "$(jq -r '.hosts[] | select(.name == "h1") | .status' "$T/g1/summary.json")" ok
no_leftovers
echo PASS
