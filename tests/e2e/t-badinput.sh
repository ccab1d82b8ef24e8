# Bad input: exit 2, a message naming the file and line or the field, and
# nothing runs or is written.
. tests/e2e/lib.sh

bad() {	# bad NAME EXPECTED-MESSAGE-REGEX ORCH-ARGS...
	local name=$1 want=$2; shift 2
	local rc=0
	run_orch "$T/$name.log" "$@" || rc=$?
	[ "$rc" = 2 ] || { cat "$T/$name.log"; fail "$name: exit $rc, want 2"; }
	grep -Eq -- "$want" "$T/$name.log" || { cat "$T/$name.log"; fail "$name: message does not match '$want'"; }
	[ ! -e "$T/out-$name" ] || fail "$name: wrote $T/out-$name"
}

cat > "$T/unknown-key.ini" <<'INI'
[suite]
rounds = 3
[variant.A]
bin = /bin/true
[variant.B]
bin = /bin/true
[bench.x]
argz = 1
INI
bad unknown-key "unknown-key.ini:8: .*argz" run --out="$T/out-unknown-key" "$T/unknown-key.ini"

sed 's/^rounds = 3/rounds = 0/' "$T/unknown-key.ini" | sed 's/^argz/args/' > "$T/rounds.ini"
bad rounds "rounds.ini:2: .*rounds" run --out="$T/out-rounds" "$T/rounds.ini"

sed 's/^rounds = 3/rounds = 3x/' "$T/unknown-key.ini" | sed 's/^argz/args/' > "$T/number.ini"
bad number "number.ini:2: .*3x" run --out="$T/out-number" "$T/number.ini"

sed 's/^argz/args/; s#^bin = /bin/true#bin = /nonexistent/prog#' "$T/unknown-key.ini" > "$T/missing.ini"
bad missing "missing.ini:4: .*/nonexistent/prog" run --out="$T/out-missing" "$T/missing.ini"

# A program that exists for no host's arch: refused before anything runs.
cat > "$T/arch.ini" <<'INI'
[suite]
rounds = 3
[variant.A]
bin = suites/example/bin/{os}-{arch}-nope/hashloop
[variant.B]
bin = suites/example/bin/{os}-{arch}/hashloop
[bench.x]
args = 1 suites/example/data.bin
INI
bad arch "arch.ini:3: .*no program for host local \(linux|darwin" run --out="$T/out-arch" "$T/arch.ini"
expect_grep "^nothing ran" "$T/arch.log"
[ -z "$(ls -A "$ORCH_WORKDIR/runs" 2>/dev/null)" ] || fail "something ran for arch.ini"

bad nofile "no-such-suite.ini" run --out="$T/out-nofile" "$T/no-such-suite.ini"
bad rounds-flag "--rounds" run --rounds=0 --out="$T/out-rounds-flag" suites/example.ini
bad seed-flag "--seed: 'abc'" run --seed=abc --out="$T/out-seed-flag" suites/example.ini
bad hosts-flag "unknown host or group 'nope'" run --hosts=nope --out="$T/out-hosts-flag" suites/example.ini
bad fail-on "--fail-on" run --fail-on=better --out="$T/out-fail-on" suites/example.ini
bad usage "run takes one suite file, got none" run
# orch alone: the list of commands, exit 2 (each command's own usage: t-cli).
rc=0; "$ORCH" >"$T/usage" 2>&1 || rc=$?
expect_eq "usage exit" "$rc" 2
expect_grep '^usage: orch COMMAND' "$T/usage"
echo PASS
