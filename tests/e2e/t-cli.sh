# The command line: help in every conventional spelling, each command's
# usage with only its own options, usage errors that name the problem (exit
# 2, nothing written), the manual page generated from the same table, and
# the answer on the terminal at the end of a run and of `orch report`.
. tests/e2e/lib.sh

note "help: --help, -h, help, help COMMAND, COMMAND --help, --version"
for a in --help -h help; do
	rc=0; "$ORCH" $a > "$T/h" 2>&1 || rc=$?
	expect_eq "orch $a exit" "$rc" 0
	expect_grep '^usage: orch COMMAND' "$T/h"
	for c in run check deploy status stop report help version; do
		expect_grep "^  $c " "$T/h"
	done
done
for c in run check deploy status stop report; do
	rc=0; "$ORCH" help $c > "$T/hc" 2>&1 || rc=$?
	expect_eq "orch help $c exit" "$rc" 0
	rc=0; "$ORCH" $c --help > "$T/hc2" 2>&1 || rc=$?
	expect_eq "orch $c --help exit" "$rc" 0
	cmp -s "$T/hc" "$T/hc2" || fail "orch help $c and orch $c --help differ"
	rc=0; "$ORCH" $c -h > "$T/hc3" 2>&1 || rc=$?
	expect_eq "orch $c -h exit" "$rc" 0
	cmp -s "$T/hc" "$T/hc3" || fail "orch help $c and orch $c -h differ"
	expect_grep "^usage: orch $c" "$T/hc"
done
# Each command's usage lists only its own options.
"$ORCH" help run > "$T/run"
expect_grep '--rounds=N' "$T/run"
expect_grep '--quiet' "$T/run"
grep -q -- '--force' "$T/run" && fail "run's usage lists deploy's --force"
"$ORCH" help status > "$T/status"
expect_grep '--inventory=FILE' "$T/status"
grep -Eq -- '--rounds|--hosts|--fail-on' "$T/status" && fail "status's usage lists run's options"
"$ORCH" help deploy > "$T/deploy"
expect_grep '--from-source' "$T/deploy"
grep -q -- '--rounds' "$T/deploy" && fail "deploy's usage lists run's --rounds"
# No line of any usage is wider than a terminal.
cat "$T"/h "$T"/run "$T"/status "$T"/deploy | awk 'length($0) > 79 { print; bad=1 } END { exit bad }' \
	|| fail "a usage line is over 79 columns"
expect_eq "--version" "$("$ORCH" --version | cut -d' ' -f1)" orch
expect_eq "version" "$("$ORCH" version)" "$("$ORCH" --version)"

note "usage errors name the problem; exit 2; nothing written"
cd "$T"
usage_err() {	# usage_err WANT ARGS...: exit 2 and WANT on stderr
	local want=$1 rc=0
	shift
	"$ORCH" "$@" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "orch $* exit" "$rc" 2
	expect_grep "$want" "$T/err"
	[ ! -s "$T/out" ] || fail "orch $*: wrote to stdout"
}
usage_err "^orch run: run takes one suite file, got 2 \(a.ini, b.ini\)" run a.ini b.ini
usage_err "^usage: orch run \[options\] SUITE.ini" run a.ini b.ini
usage_err "^orch run: run takes one suite file, got none" run
usage_err "^orch run: --bogus: unknown option" run --bogus x.ini
usage_err "^orch run: --rounds needs a value" run x.ini --rounds
usage_err "^orch run: -x: unknown option" run -x x.ini
usage_err "^orch check: --force is an option of deploy" check --force
usage_err "^orch deploy: --allocate is an option of check" deploy --allocate
usage_err "^orch report: --hosts is an option of run, check, deploy" report --hosts=x d
usage_err "^orch deploy: --force=1 takes no value|^orch deploy: --force takes no value" deploy --force=1
usage_err "^orch check: check takes no arguments, got 'web1'" check web1
usage_err "^orch status: status takes one run directory, got 0" status
usage_err "^orch report: report takes one run directory, got 2" report a b
usage_err "^orch: unknown command 'frobnicate'" frobnicate
usage_err "^orch help: unknown command 'frobnicate'" help frobnicate
[ -z "$(ls "$T" | grep -v -e '^out$' -e '^err$' -e '^h' -e '^run$' -e '^status$' -e '^deploy$' -e '^workdir$')" ] \
	|| { ls "$T"; fail "a usage error wrote files"; }
[ ! -e "$T/reports" ] || fail "a usage error made reports/"
cd - > /dev/null

note "--out that cannot be a run directory: the option and the path given"
echo text > "$T/file.md"
rc=0; "$ORCH" run --out="$T/file.md" tests/suites/triple.ini > "$T/o1" 2>&1 || rc=$?
expect_eq "--out=FILE exit" "$rc" 2
expect_grep "^orch: --out=$T/file.md: $T/file.md exists and is not a directory$" "$T/o1"
expect_eq "the file is untouched" "$(cat "$T/file.md")" text
rc=0; "$ORCH" run --out=/proc/x tests/suites/triple.ini > "$T/o2" 2>&1 || rc=$?
expect_eq "--out=/proc/x exit" "$rc" 2
expect_grep "^orch: --out=/proc/x: cannot create the directory /proc/x: " "$T/o2"

note "the manual page is the same table: docs/orch.1 is what orch help --man writes"
"$ORCH" help --man > "$T/orch.1"
diff -u docs/orch.1 "$T/orch.1" || fail "docs/orch.1 is stale: run make man"
for c in run check deploy status stop report; do
	"$ORCH" help $c | sed -n 's/^  \(-[a-z-]*[, ]*-*[a-z-]*\).*/\1/p' | sed 's/[=, ].*//' | while read -r o; do
		grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$T/orch.1" || fail "$c's $o is not in the manual page"
	done
done

note "the answer on the terminal, and answer.md, after a run"
rc=0; "$ORCH" run --out="$T/r" --seed=3 tests/suites/triple.ini > "$T/stdout" 2> "$T/stderr" || rc=$?
cat "$T/stdout"
expect_eq "run exit" "$rc" 0
expect_grep '^triple: ratio of each variant to A on its primary metric' "$T/stdout"
expect_grep '^B vs A: worse on ' "$T/stdout"
expect_grep '^  .*: geomean [0-9.]+ \[[0-9.]+, [0-9.]+\] over 1 benchmark, worse \(\+[0-9.]+%\)$' "$T/stdout"
expect_grep '^    local  hash  elapsed_ns  [0-9.]+ \[[0-9.]+, [0-9.]+\]  worse \(\+[0-9.]+%\)$' "$T/stdout"
expect_grep '^report: ' "$T/stdout"
[ -s "$T/r/answer.md" ] || fail "no answer.md"
expect_grep '^\*\*B vs A: worse on ' "$T/r/answer.md"
expect_grep '^\|  \| local \| hash \| elapsed_ns \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| worse' "$T/r/answer.md"
# orch report reproduces answer.md byte for byte, and prints the same answer.
cp "$T/r/answer.md" "$T/answer.run"
rc=0; "$ORCH" report "$T/r" > "$T/stdout2" 2>&1 || rc=$?
expect_eq "report exit" "$rc" 0
cmp "$T/answer.run" "$T/r/answer.md" || fail "orch report changed answer.md"
diff <(grep -v '^report:\|^        ' "$T/stdout") <(grep -v '^report:' "$T/stdout2") \
	|| fail "orch report's answer differs from the run's"

note "--quiet: no answer on stdout, the files all the same"
rc=0; "$ORCH" report --quiet "$T/r" > "$T/stdout3" 2>&1 || rc=$?
expect_eq "report --quiet exit" "$rc" 0
grep -q 'vs A' "$T/stdout3" && fail "--quiet printed the answer"
rc=0; "$ORCH" run -q --out="$T/r2" --seed=3 --rounds=2 tests/suites/triple.ini > "$T/stdout4" 2> "$T/stderr4" || rc=$?
expect_eq "run -q exit" "$rc" 0
grep -q 'vs A' "$T/stdout4" && fail "run -q printed the answer"
[ -s "$T/r2/answer.md" ] || fail "run -q wrote no answer.md"
no_leftovers
echo PASS
