# orch doc check and render (docs/evidence.md, "Numbers in documents"):
# on a stored record of the example suite, a document with a wrong ratio
# and a wrong verdict fails check (exit 1, FILE:LINE of each); render
# writes the record's values as report.md prints them and changes no byte
# outside the marks; check then passes; a baseline's name works as RUN; a
# mark naming a bench, host or run that does not exist, or malformed,
# exits 2 with FILE:LINE; a document that is a link is never written;
# docs/performance.md passes against its records (bench/records/, what
# make check-docs runs) and fails, naming FILE:LINE, with a figure altered;
# bench/render.sh with no figures measured here makes docs/performance.md
# again from the kept ones (bench/records/sections), byte for byte, and a
# section measured here takes the place of its kept figures, only its own.
. tests/e2e/lib.sh

mkdir "$T/run"
cp tests/unit/fixtures/report/example.msgpack "$T/run/samples.msgpack"
"$ORCH" report "$T/run" >/dev/null || fail "orch report failed"
# The figures as report.md prints them (its sort table's keys_per_s row).
expect_grep '^\| keys_per_s \| B \| 6 \| .* \| 0\.767 \[0\.604, 0\.895\] \| 0\.031 \| \*\*worse\*\* \(-23\.3%\)' \
	"$T/run/report.md"
top=$PWD	# the tree, for the docs/performance.md case at the end
cd "$T"
"$ORCH" baseline set base run >/dev/null || fail "orch baseline set failed"

cat >doc.md <<'DOC'
# Sorting

Keys per second: <!-- orch run bench=sort metric=keys_per_s field=ratio -->0.700<!-- /orch --> of A's,
over <!-- orch base bench=sort field=rounds -->6<!-- /orch --> rounds;
the verdict: <!-- orch run bench=sort metric=keys_per_s field=verdict -->better<!-- /orch -->.
A's median: <!-- orch run bench=hash variant=A field=median -->48.897 ms<!-- /orch -->.

```
<!-- orch run field=ratio --> an example, not a mark
```

<!-- orch base table=matrix -->
| stale |
<!-- /orch -->
The end.
DOC
cp doc.md doc.orig

note "check: a wrong ratio and a wrong verdict, exit 1 naming each FILE:LINE"
rc=0; "$ORCH" doc check doc.md >out 2>err || rc=$?
cat out err
expect_eq "doc check exit" "$rc" 1
expect_grep '^doc\.md:3: 0\.700 in the document, 0\.767 from run$' out
expect_grep '^doc\.md:5: better in the document, \*\*worse\*\* \(-23\.3%\) from run$' out
expect_grep '^doc\.md:12: the table=matrix in the document, another from base$' out
expect_eq "differing marks" "$(wc -l <out)" 3
rc=0; "$ORCH" doc render --check doc.md >out2 || rc=$?
expect_eq "doc render --check exit" "$rc" 1
cmp out out2 || fail "render --check says other than check"
cmp doc.md doc.orig || fail "render --check wrote the document"

note "render: the record's values, nothing outside the marks changed"
chmod 644 doc.md
rc=0; "$ORCH" doc render doc.md >out 2>err || rc=$?
cat out err
expect_eq "doc render exit" "$rc" 0
expect_eq "the document's mode" "$(stat -c %a doc.md)" 644
expect_grep 'of A.s,$' doc.md
expect_grep 'field=ratio -->0\.767<!-- /orch -->' doc.md
expect_grep 'field=verdict -->\*\*worse\*\* \(-23\.3%\)<!-- /orch -->' doc.md
expect_grep 'field=median -->48\.897 ms<!-- /orch -->' doc.md
expect_grep '^\| sort \| elapsed_ns \| B \| inconclusive<br>1\.304 ' doc.md
grep -q stale doc.md && fail "the table was not rendered"
# Everything but the marks' values, of both: the same bytes.
strip() { perl -0pe 's/(<!-- orch [^\n]*?-->).*?(<!-- \/orch -->)/$1$2/gs' "$1"; }
strip doc.orig >outside.orig; strip doc.md >outside.new
cmp outside.orig outside.new || { diff outside.orig outside.new; fail "render changed text outside the marks"; }
ls -a | grep -q '\.tmp$' && fail "a temporary file was left behind"
rc=0; "$ORCH" doc check doc.md >out || rc=$?
expect_eq "doc check after render exit" "$rc" 0
expect_eq "check after render prints" "$(cat out)" ""
cp doc.md doc.rendered
"$ORCH" doc render doc.md >out || fail "render of a rendered document failed"
cmp doc.md doc.rendered || fail "rendering again changed the document"

note "a mark naming what the run lacks, or malformed: exit 2 with FILE:LINE"
bad() { # bad NAME TEXT PATTERN: doc check of TEXT exits 2 with PATTERN
	printf 'x\n%s\n' "$2" >"$1.md"
	rc=0; "$ORCH" doc check "$1.md" >out 2>err || rc=$?
	expect_eq "$1 exit" "$rc" 2
	expect_grep "$3" err
}
bad nobench '<!-- orch run bench=nope field=ratio -->1<!-- /orch -->' \
	"^orch: nobench\.md:2: no bench 'nope' in run \(it has: hash, sort\)$"
bad nohost '<!-- orch base host=far bench=sort field=p -->1<!-- /orch -->' \
	"^orch: nohost\.md:2: no host 'far' in base \(it has: local\)$"
bad nometric '<!-- orch run bench=hash metric=joules field=ratio -->1<!-- /orch -->' \
	"^orch: nometric\.md:2: no metric 'joules' in run \(it has: elapsed_ns, wall_ns, maxrss_kb\)$"
bad ref '<!-- orch run bench=hash variant=A field=ratio -->1<!-- /orch -->' \
	"^orch: ref\.md:2: variant 'A' is run's reference: it has no ratio$"
bad norun '<!-- orch gone bench=hash field=ratio -->1<!-- /orch -->' \
	"^orch: norun\.md:2: no run 'gone': neither a run directory"
bad unclosed '<!-- orch run bench=hash field=ratio -->1' \
	'^orch: unclosed\.md:2: the mark is never closed'
bad field '<!-- orch run bench=hash field=speed -->1<!-- /orch -->' \
	"^orch: field\.md:2: unknown field 'speed'"
cmp doc.md doc.rendered || fail "an error elsewhere touched doc.md"

note "several hosts and groups: arch=, group=\"...\", table=matrix host=, table=claims"
mkdir arch claims
cp "$OLDPWD/tests/unit/fixtures/report/arch.msgpack" arch/samples.msgpack
cp "$OLDPWD/tests/fuzz/corpus-record/claims.msgpack" claims/samples.msgpack
"$ORCH" report arch >/dev/null && "$ORCH" report claims >/dev/null || fail "orch report failed"
cat >multi.md <<'DOC'
<!-- orch arch variant=B field=geomean arch=aarch64 -->1<!-- /orch --> <!-- orch arch variant=B field=verdict arch=aarch64 -->x<!-- /orch -->
<!-- orch arch variant=B field=geomean group="x86_64 · AMD EPYC 9654 96-Core Processor" -->1<!-- /orch -->
<!-- orch claims table=claims -->
<!-- /orch -->
<!-- orch arch table=matrix host=m2 -->
<!-- /orch -->
DOC
"$ORCH" doc render multi.md >/dev/null || fail "render of multi.md failed"
expect_grep '^\| aarch64 · Apple M2 \| m2 \| B \| 3 \| 0\.925 \[0\.925, 0\.925\] \| \*\*better\*\* \(-7\.5%\) \|' arch/report.md
expect_grep '^<!-- orch arch variant=B field=geomean arch=aarch64 -->0\.925<!-- /orch --> .*-->\*\*better\*\* \(-7\.5%\)<!-- /orch -->$' multi.md
expect_grep '^\| x86_64 · AMD EPYC 9654 96-Core Processor \| epyc1, epyc2 \| B \| 5 \| 0\.932 ' arch/report.md
expect_grep 'Processor" -->0\.932<!-- /orch -->$' multi.md
# The claims table and the m2 column: report.md's very lines.
grep '^| slower \| B worse by >= 50% vs A \| every host' claims/report.md >want
grep -Fxf want multi.md >/dev/null || fail "the claims table is not report.md's"
expect_grep '^\| sort \| keys_per_s \| B \| \*\*better\*\* \(\+25\.0%\)<br>1\.250 \[1\.250, 1\.250\] \|$' multi.md
"$ORCH" doc check multi.md || fail "check after render of multi.md"
bad several '<!-- orch arch bench=hash field=ratio -->1<!-- /orch -->' \
	"^orch: several\.md:2: host= needed: arch has several \(m2, epyc1, epyc2, twocore, ghost\)$"
bad twogroups '<!-- orch arch variant=B field=geomean arch=x86_64 -->1<!-- /orch -->' \
	"^orch: twogroups\.md:2: arch 'x86_64' is 2 groups in arch: name one with group="
bad noarch '<!-- orch arch variant=B field=geomean arch=sparc -->1<!-- /orch -->' \
	"^orch: noarch\.md:2: no arch 'sparc' in arch \(it has: aarch64 · Apple M2, "

note "a document that is a link is never rendered through"
cp doc.orig victim.md
ln -s victim.md link.md
rc=0; "$ORCH" doc render link.md >out 2>err || rc=$?
expect_eq "render of a link exit" "$rc" 2
expect_grep '^orch: link\.md: not a regular file \(a link\?\)' err
cmp victim.md doc.orig || fail "render wrote through the link"
[ -L link.md ] || fail "the link was replaced"
ls -a | grep -q '\.tmp$' && fail "a temporary file was left behind"

note "docs/performance.md against its records, then with a figure altered"
mkdir -p perf/docs perf/bench
cp "$top/docs/performance.md" perf/docs/
cp -r "$top/bench/records" perf/bench/
cd perf
"$ORCH" doc check docs/performance.md >out ||
	fail "docs/performance.md is not its records' (make check-docs)"
line=$(grep -n -m1 'agree-0 field=ratio -->' docs/performance.md | cut -d: -f1)
[ -n "$line" ] || fail "no marked ratio of bench/records/agree-0"
sed -i -E "${line}s#(agree-0 field=ratio -->)[0-9.]+<#\\19.999<#" \
	docs/performance.md
rc=0; "$ORCH" doc check docs/performance.md >out 2>err || rc=$?
expect_eq "doc check of an altered figure exit" "$rc" 1
expect_grep "^docs/performance\.md:$line: 9\.999 in the document, [0-9]+\.[0-9]{3} from bench/records/agree-0\$" out
expect_eq "lines of the altered check" "$(wc -l <out)" 1

note "bench/render.sh: the kept figures, then one section measured anew"
cd "$T"
mkdir -p rend/bench rend/docs none fresh
cp "$top/bench/render.sh" rend/bench/
cp -r "$top/bench/notes" "$top/bench/records" rend/bench/
bash rend/bench/render.sh "$T/none" "$T/rend/docs/performance.md" 2>err ||
	fail "render.sh failed: $(cat err)"
(cd rend && "$ORCH" doc render docs/performance.md >/dev/null) ||
	fail "doc render of the rendered document failed"
cmp rend/docs/performance.md "$top/docs/performance.md" ||
	fail "docs/performance.md is not what its kept figures render to"
jq '.data.ratio_orch_bare = 9.87' rend/bench/records/sections/floor.json \
	>fresh/floor.json
bash rend/bench/render.sh "$T/fresh" "$T/rend/docs/performance.md" 2>err ||
	fail "render.sh failed: $(cat err)"
(cd rend && "$ORCH" doc render docs/performance.md >/dev/null) ||
	fail "doc render of the rendered document failed"
expect_grep '^\| 1 \| harness floor: orch per-sample wall within 1\.05x .* \| 9\.87x ' \
	rend/docs/performance.md
# The summary's row and section 1's table: nothing else.
expect_eq "lines changed by one section measured anew" \
	"$(diff rend/docs/performance.md "$top/docs/performance.md" | grep -c '^<')" 2
exit 0
