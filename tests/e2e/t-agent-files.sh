# The agent's files: a workdir that is not the user's own is refused, pushed
# files never go through a planted link, a link in the cache is not
# followed, a cached program changed after it was verified does not run,
# and logs and journals are the user's alone.
. tests/e2e/lib.sh

key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')

# serve_once WORKDIR OUT ERR: starts the agent with a key and no coordinator.
serve_once() {
	local rc=0
	echo "ORCH-KEY 1 $key run-f" | timeout 20 "$AGENT" serve --workdir="$1" >"$2" 2>"$3" || rc=$?
	return $rc
}

note "a workdir others may write to is refused"
mkdir -m 777 "$T/w-open"
rc=0; serve_once "$T/w-open" "$T/out1" "$T/err1" || rc=$?
[ "$rc" != 0 ] || fail "the agent used a world-writable workdir"
expect_grep "w-open is writable by its group or others \(mode 0777\): refusing" "$T/err1"
[ ! -s "$T/out1" ] || fail "the agent announced an endpoint in a world-writable workdir"

if [ "$(id -u)" = 0 ]; then
	note "a workdir of another user is refused"
	mkdir -m 700 "$T/w-other"
	chown 65534 "$T/w-other"
	rc=0; serve_once "$T/w-other" "$T/out2" "$T/err2" || rc=$?
	[ "$rc" != 0 ] || fail "the agent used another user's workdir"
	expect_grep "w-other belongs to uid 65534, not to this user" "$T/err2"
fi

note "a readable workdir of ours is made private"
mkdir -m 755 "$T/w-ours"
serve_once "$T/w-ours" "$T/out3" "$T/err3" || true
expect_grep '^ORCH-AGENT ' "$T/out3"
expect_eq "workdir mode" "$(stat -c %a "$T/w-ours")" 700
expect_eq "cache mode" "$(stat -c %a "$T/w-ours/cache")" 700

# A suite of one program, sleeper.
PROG=tests/progs/bin/linux-$(uname -m | sed -e 's/arm64/aarch64/' -e 's/amd64/x86_64/')/sleeper
[ -x "$PROG" ] || fail "build the test programs first (make suites)"
SHA=$(sha256sum "$PROG" | awk '{print $1}')
cat > "$T/one.ini" <<EOF2
[suite]
rounds   = 2
warmup   = 0
max_load = 0
[variant.A]
bin = $PWD/$PROG
[variant.B]
bin = $PWD/$PROG
[bench.nap]
args = 1
EOF2

note "a push never writes through a link planted at its temporary name"
echo precious > "$T/victim"
export ORCH_WORKDIR="$T/wd-push"
mkdir -m 700 -p "$ORCH_WORKDIR/cache"
# exec keeps the shell's pid: orch's temporary name is .tmp-SHA-PID.
rc=0; bash -c 'ln -s "$1" "$2/cache/.tmp-$3-$$"; exec "$4" run --out="$5" "$6"' _ \
	"$T/victim" "$ORCH_WORKDIR" "$SHA" "$ORCH" "$T/r-push" "$T/one.ini" >"$T/log-push" 2>&1 || rc=$?
cat "$T/log-push"
expect_eq "run exit" "$rc" 0
expect_eq "the link's target" "$(cat "$T/victim")" precious
[ -f "$ORCH_WORKDIR/cache/$SHA" ] && [ ! -L "$ORCH_WORKDIR/cache/$SHA" ] || fail "the cache entry is not a plain file"

note "logs and journals are the user's alone"
for f in "$T"/r-push/logs/*.log "$ORCH_WORKDIR"/runs/*/journal; do
	[ -e "$f" ] || fail "no $f"
	expect_eq "mode of $f" "$(stat -c %a "$f")" 600
done

note "a link in the cache is not followed: the file is pushed"
export ORCH_WORKDIR="$T/wd-link"
mkdir -m 700 -p "$ORCH_WORKDIR/cache"
cp "$PROG" "$T/elsewhere"
ln -s "$T/elsewhere" "$ORCH_WORKDIR/cache/$SHA"
rc=0; run_orch "$T/log-link" run --out="$T/r-link" "$T/one.ini" || rc=$?
cat "$T/log-link"
expect_eq "run exit" "$rc" 0
[ ! -L "$ORCH_WORKDIR/cache/$SHA" ] || fail "the agent took a link in its cache for the program"

note "a cached program changed after it was verified does not run"
export ORCH_WORKDIR="$T/wd-tamper"
cat > "$T/target.sh" <<'EOF2'
#!/bin/sh
echo elapsed_ns=1000
EOF2
TSHA=$(sha256sum "$T/target.sh" | awk '{print $1}')
# The tamperer appends to the target's cache file in place (same inode).
cat > "$T/tamper.sh" <<'EOF2'
#!/bin/sh
echo 'echo tampered=1' >> "$ORCH_WORKDIR/cache/$TARGET_SHA"
echo elapsed_ns=1000
EOF2
chmod 755 "$T/target.sh" "$T/tamper.sh"
cat > "$T/tamper.ini" <<EOF2
[suite]
rounds   = 3
warmup   = 0
max_load = 0
seed     = 1
[variant.A]
bin = $T/tamper.sh
env = TARGET_SHA=$TSHA
[variant.B]
bin = $T/target.sh
[bench.t]
metrics = elapsed_ns
EOF2
rc=0; run_orch "$T/log-tamper" run --out="$T/r-tamper" "$T/tamper.ini" || rc=$?
cat "$T/log-tamper"
grep -q 'tampered' "$T/r-tamper/samples.csv" && fail "a program changed after verification ran"
expect_grep 'changed in the cache since it was verified' "$T/r-tamper/report.md"
echo PASS
