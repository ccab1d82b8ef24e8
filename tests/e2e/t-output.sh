# The contract in the repository: docs/output.md describes every field a
# real summary.json holds, every column of samples.csv and every file a run
# writes; and no file of the repository points at a file outside it.
. tests/e2e/lib.sh
DOC=docs/output.md

rc=0; run_orch "$T/log" run -q --out="$T/r" --seed=3 --rounds=5 tests/suites/triple.ini || rc=$?
cat "$T/log"
expect_eq "run exit" "$rc" 0

# summary.json: every key path (X[].f; an array X itself as X or X[]), of the run and of the stored
# record with failed hosts, A/A variants and three architectures.
paths() {
	jq -r '[paths] | map(map(if type == "number" then "[]" else . end) | join(".")) | .[]' "$1" |
	    sed 's/\.\[\]\./[]./g; s/\.\[\]$//' | sort -u
}
{ paths "$T/r/summary.json"; paths tests/unit/fixtures/report/arch.summary.json.golden; } | sort -u > "$T/paths"
[ "$(wc -l < "$T/paths")" -gt 60 ] || fail "too few summary.json fields found: $(wc -l < "$T/paths")"
missing=0
while read -r p; do
	# Documented as `p`, or, for p = X[].f, inside a `X[].a`, `.f` row.
	leaf=${p##*.}; parent=${p%.*}
	grep -qF -e "\`$p\`" -e "\`$p[]\`" "$DOC" && continue
	case $p in *'[]'.*) grep -F "\`$parent." "$DOC" | grep -qF "\`.$leaf\`" && continue ;; esac
	echo "summary.json field $p is not in $DOC"; missing=1
done < "$T/paths"
[ "$missing" = 0 ] || fail "$DOC lacks summary.json fields"

# samples.csv: every column of the header.
for c in $(head -1 "$T/r/samples.csv" | tr , ' '); do
	grep -qF "| \`$c\` |" "$DOC" || fail "samples.csv column $c is not in $DOC"
done

# Every file a run writes.
(cd "$T/r" && find . -type f | sed 's#^\./##; s#^logs/.*#logs/HOST.log#' | sort -u) > "$T/files"
while read -r f; do
	grep -qF "| \`$f\` |" "$DOC" || fail "run file $f is not in $DOC"
done < "$T/files"

# The exit codes orch's own help names.
for code in 0 1 2 3; do
	grep -Eq "^\| $code \| " "$DOC" || fail "exit code $code is not in $DOC"
done

# No file of the repository points at a file outside it (check-fresh tests
# a git archive, not a clone: then every file but what the build made).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z > "$T/repo-files"
else
	find . \( -path ./build -o -path ./bin -o -path ./reports -o -path '*/bin/*-*' \) -prune -o \
	    -type f -print0 | sed -z 's#^\./##' > "$T/repo-files"
fi
[ "$(tr -cd '\0' < "$T/repo-files" | wc -c)" -gt 100 ] || fail "too few repository files found"
# Outside: the founding design document and the shared folder that sat
# beside the first checkout, or the checkout's own absolute path (whatever
# it is on this machine). The first two names are put together here, so
# that this file does not name them itself and is checked like any other.
design=DESIGN; shared=shared
hits=$(xargs -0 grep -lF -e "$design.md" -e "../$shared/" -e "$PWD/" -- \
    < "$T/repo-files" 2>/dev/null || true)
[ -z "$hits" ] || fail "files pointing outside the repository: $hits"
echo PASS
