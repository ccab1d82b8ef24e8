# A pushed program runs under its own name: argv[0] is its base name, and
# the path it runs from ends in that name (WORKDIR/cache/SHA.d/NAME), so a
# multi-call program behaves as on the host. checksum = stdout shows it:
# a pushed rbash (a link to bash) is the restricted shell, as the host's
# rbash (under a hash for a name it was bash), a pushed /bin/sh says its
# $0 is sh, and a pushed readlink reads /proc/self/exe ending in
# /readlink. The file's SHA-256 identity is unchanged.
. tests/e2e/lib.sh

# ckrun NAME: runs the suite $T/NAME.ini; it must exit 0 with every run
# ok. (Its verdict is not checked: programs this fast can be invalid on a
# busy machine, under the harness floor; nsum checks what they printed.)
ckrun() {
	local rc=0
	run_orch "$T/$1.log" run --out="$T/$1" "$T/$1.ini" || rc=$?
	cat "$T/$1.log"
	expect_eq "$1 run exit" "$rc" 0
	expect_eq "$1 runs not ok" "$(awk -F, 'NR > 1 && $10 != "ok"' "$T/$1/samples.csv" | wc -l)" 0
	if jq -r '.comparisons[0].reason // ""' "$T/$1/summary.json" | grep -q checksum; then
		fail "$1: $(jq -r '.comparisons[0].reason' "$T/$1/summary.json")"
	fi
}

# nsum NAME SHA N: the record of NAME holds N runs whose stdout had SHA.
nsum() {
	expect_eq "$1 runs with stdout sha256:$2" "$(grep -ao "sha256:$2" "$T/$1/samples.msgpack" | wc -l)" "$3"
}

note "a pushed rbash (a link to bash) is restricted, as the host's"
# bash reads its argv[0]: as rbash it is the restricted shell, as a hash
# it is bash (the old tree's answer).
cat > "$T/rb.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
retries  = 0
max_load = 0
[variant.A]
bin = /usr/bin/rbash
[variant.B]
bin = host:rbash
[bench.cd]
args     = -c 'cd / 2>/dev/null && echo unrestricted || echo restricted'
checksum = stdout
INI
ckrun rb
want=$(echo restricted | sha256sum | cut -d' ' -f1)
nsum rb "$want" 10
xsha=$(sha256sum /usr/bin/bash | cut -d' ' -f1)
# The identity is the file's SHA-256, as before; the name is beside it.
expect_grep "\| local \| A \| bin \| /usr/bin/rbash \| \`$xsha\` \|" "$T/rb/report.md"
[ -f "$ORCH_WORKDIR/cache/$xsha" ] || fail "cache/$xsha missing"
[ "$ORCH_WORKDIR/cache/$xsha.d/rbash" -ef "$ORCH_WORKDIR/cache/$xsha" ] \
	|| fail "cache/$xsha.d/rbash is not the cache file"

note "a pushed xzcat (a link to xz) decompresses, as the host's"
# Under a hash for a name xz compresses instead ("already has .xz suffix").
seq 1 2000 > "$T/lines.txt"
xz -c "$T/lines.txt" > "$T/lines.txt.xz"
cat > "$T/xz.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
retries  = 0
max_load = 0
[variant.A]
bin = /usr/bin/xzcat
[variant.B]
bin = host:xzcat
[bench.unxz]
args     = {file:xz}
files    = xz=$T/lines.txt.xz
checksum = stdout
INI
ckrun xz
nsum xz "$(sha256sum < "$T/lines.txt" | cut -d' ' -f1)" 10

note "argv[0] is the base name, /proc/self/exe ends in it"
cat > "$T/argv.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
retries  = 0
max_load = 0
[variant.A]
bin = /bin/sh
[variant.B]
bin = /bin/sh
env = B=1
[bench.zero]
args     = -c 'echo "\$0"'
checksum = stdout
INI
ckrun argv
nsum argv "$(echo sh | sha256sum | cut -d' ' -f1)" 10
R=$(command -v readlink)
case "$(readlink -f "$R")" in
*/readlink) ;;
*) fail "$R is not a readlink of its own (a multi-call binary)" ;;
esac
rsha=$(sha256sum "$R" | cut -d' ' -f1)
cat > "$T/exe.ini" <<INI
[suite]
rounds   = 5
warmup   = 0
retries  = 0
max_load = 0
[variant.A]
bin = $R
[variant.B]
bin = $R
env = B=1
[bench.exe]
args     = /proc/self/exe
checksum = stdout
INI
ckrun exe
nsum exe "$(echo "$ORCH_WORKDIR/cache/$rsha.d/readlink" | sha256sum | cut -d' ' -f1)" 10

note "a name the cache holds as something else is made again"
rm "$ORCH_WORKDIR/cache/$xsha.d/rbash"
ln -s "$ORCH_WORKDIR/cache/$rsha" "$ORCH_WORKDIR/cache/$xsha.d/rbash"
cp "$T/rb.ini" "$T/rb2.ini"
ckrun rb2
nsum rb2 "$want" 10
[ "$ORCH_WORKDIR/cache/$xsha.d/rbash" -ef "$ORCH_WORKDIR/cache/$xsha" ] && [ ! -L "$ORCH_WORKDIR/cache/$xsha.d/rbash" ] \
	|| fail "cache/$xsha.d/rbash was not made again"
no_leftovers
echo PASS
