#!/bin/sh
# Rewrites the table of docs/statistics.md between its markers with the
# output of the calibration (make docs-stats): the table is never edited
# by hand, and make check-stats fails when it is not this output.
# usage: render-doc.sh CALIB DOC
set -eu
calib=$1
doc=$2
out=$(mktemp)
tab=$(mktemp)
seq=$(mktemp)
trap 'rm -f "$out" "$tab" "$seq"' EXIT
rc=0
"$calib" >"$out" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$out"; exit 1; }
# The table: the output up to its first blank line.
awk 'NF == 0 { exit } { print }' "$out" >"$tab"
grep -q '^| scenario' "$tab" || { echo "render-doc: no table in the output" >&2; exit 1; }
# The adaptive table (rounds = auto): the block after the first blank line.
awk 'NF == 0 { n++; next } n == 1 { print }' "$out" >"$seq"
grep -q '^| adaptive scenario' "$seq" || { echo "render-doc: no adaptive table in the output" >&2; exit 1; }
awk -v tab="$tab" -v seq="$seq" '
/<!-- check-stats table: begin -->/ {
	print; while ((getline l < tab) > 0) print l; skip = 1; next
}
/<!-- check-stats adaptive table: begin -->/ {
	print; while ((getline l < seq) > 0) print l; skip = 1; next
}
/<!-- check-stats (adaptive )?table: end -->/ { skip = 0 }
!skip { print }
' "$doc" >"$doc.new"
grep -q 'check-stats adaptive table: end' "$doc.new" || { rm -f "$doc.new"; echo "render-doc: $doc has no markers" >&2; exit 1; }
mv "$doc.new" "$doc"
cat "$out"
[ "$rc" = 0 ] || echo "render-doc: the table is written, but a target failed (above)" >&2
exit "$rc"
