# report.html: rendered from a stored record by `orch report`, byte for byte
# the same when rendered again, self-contained, and drawn by a real browser
# (headless Chromium): the SVG plots are in the DOM, the screenshot is not
# blank, and the console says nothing. Also: `orch run` writes it.
. tests/e2e/lib.sh

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "$CHROMIUM not found: install Debian's chromium package (apt-get install --no-install-recommends chromium)"
command -v python3 >/dev/null || fail "python3 not found"

# chrome ARGS...: headless Chromium with nothing of its own going on.
chrome() {
	timeout --kill-after=5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions \
		--user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@"
}

R="$T/arch"
mkdir "$R"
cp tests/unit/fixtures/report/arch.msgpack "$R/samples.msgpack"

note "orch report renders every file from the record alone"
rc=0; run_orch "$T/log1" report "$R" || rc=$?
cat "$T/log1"
expect_eq "orch report exit" "$rc" 0
for f in samples.csv summary.json report.md report.html; do
	[ -s "$R/$f" ] || fail "$f missing"
done
H="$R/report.html"

note "rendering again gives the same bytes"
mkdir "$T/before"; cp "$R"/samples.csv "$R"/summary.json "$R"/report.md "$H" "$T/before/"
"$ORCH" report "$R" >/dev/null
for f in samples.csv summary.json report.md report.html; do
	cmp "$R/$f" "$T/before/$f" || fail "$f differs when rendered again"
done

note "self-contained: no scripts, no external resources; text escaped"
if grep -Eqi '<script|<link|<img|<iframe|(src|href)=|url\(|@import' "$H"; then
	grep -Eoi '.{0,40}(<script|<link|<img|<iframe|(src|href)=|url\(|@import).{0,40}' "$H" | head
	fail "report.html refers to something outside itself"
fi
expect_grep 'lost: &lt;EOF&gt; &amp; &quot;gone&quot;' "$H"
grep -q '<EOF>' "$H" && fail "an error message reached the page unescaped"
expect_eq "forest plots (one per architecture)" "$(grep -c '<svg class="forest"' "$H")" 3
expect_eq "rounds plots (benchmarks x hosts)" "$(grep -c '<svg class="rounds"' "$H")" 12

note "Chromium: the DOM holds the plots and the labels"
chrome --dump-dom "file://$H" >"$T/dom.html" 2>"$T/chrome-dom.log" || {
	tail -20 "$T/chrome-dom.log"; fail "chromium --dump-dom failed"; }
expect_eq "forest svgs in the DOM" "$(grep -o '<svg class="forest"' "$T/dom.html" | wc -l)" 3
expect_eq "rounds svgs in the DOM" "$(grep -o '<svg class="rounds"' "$T/dom.html" | wc -l)" 12
[ "$(grep -o '<circle' "$T/dom.html" | wc -l)" -gt 200 ] || fail "too few points drawn"
expect_grep 'A/A comparison \(identical files\)' "$T/dom.html"
expect_grep '⚠ differs:' "$T/dom.html"

note "Chromium: a screenshot that is not blank"
chrome --hide-scrollbars --window-size=1280,2000 --screenshot="$T/shot.png" \
	"file://$H" >"$T/chrome-shot.log" 2>&1 || {
	tail -20 "$T/chrome-shot.log"; fail "chromium --screenshot failed"; }
[ -s "$T/shot.png" ] || fail "no screenshot"
size=$(wc -c <"$T/shot.png")
[ "$size" -gt 40000 ] || fail "screenshot only $size bytes: blank?"
# Decode the PNG (zlib + unfiltering, no libraries) and count what is not
# the background: a rendered report has text, tables and colour.
python3 - "$T/shot.png" <<'PY' || fail "the screenshot looks blank"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, t = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
        bpp = 3 if ctype == 2 else 4
    elif t == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours = {}
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        for x in range(0, w, 2):
            px = bytes(line[x * bpp:x * bpp + 3])
            colours[px] = colours.get(px, 0) + 1
total = sum(colours.values())
bg = max(colours.values())
other = total - bg
print(f"screenshot {w}x{h}: {len(colours)} colours, {100 * other / total:.1f}% not background")
sys.exit(0 if len(colours) >= 20 and other > total * 0.03 else 1)
PY

note "Chromium: no console errors, nothing fetched"
cat "$T/chrome-dom.log" "$T/chrome-shot.log" >"$T/chrome.log"
if grep -Ei 'CONSOLE|Uncaught|net::ERR_|Refused to' "$T/chrome.log"; then
	fail "the browser complained about the page"
fi

note "orch run writes report.html too, and orch report reproduces it"
rc=0; run_orch "$T/log2" run --out="$T/run" --seed=3 --rounds=5 --max-load=0 suites/example.ini || rc=$?
cat "$T/log2"
expect_eq "orch run exit" "$rc" 0
[ -s "$T/run/report.html" ] || fail "orch run wrote no report.html"
cp "$T/run/report.html" "$T/run-report.html"
"$ORCH" report "$T/run" >/dev/null
cmp "$T/run/report.html" "$T/run-report.html" || fail "report.html differs after orch report"
expect_grep '<svg class="forest"' "$T/run/report.html"

note "a run directory is private: it holds the suite's settings"
expect_eq "run directory mode" "$(stat -c %a "$T/run")" 700
expect_eq "logs mode" "$(stat -c %a "$T/run/logs")" 700
for f in samples.msgpack samples.csv summary.json report.md report.html logs/local.log; do
	expect_eq "$f mode" "$(stat -c %a "$T/run/$f")" 600
done

note "a hostile record (2^32-1 rounds): exit 2 naming the file and field, the previous reports whole"
X="$T/hostile"
mkdir "$X"
cp tests/unit/fixtures/report/arch.msgpack "$X/samples.msgpack"
"$ORCH" report "$X" >/dev/null || fail "the stored record does not render"
mkdir "$T/hostile-before"
cp "$X"/samples.csv "$X"/summary.json "$X"/report.md "$X"/report.html "$T/hostile-before/"
python3 - "$X/samples.msgpack" <<'PY'
import sys
p = sys.argv[1]
data = open(p, "rb").read()
old = b"\xa6rounds\x10"	# the fixture's 16 rounds
assert data.count(old) == 1, "rounds not found"
open(p, "wb").write(data.replace(old, b"\xa6rounds\xce\xff\xff\xff\xff"))
PY
rc=0; run_orch "$T/log3" report "$X" || rc=$?
cat "$T/log3"
expect_eq "orch report of a hostile record" "$rc" 2
expect_grep "^orch: $X/samples.msgpack: record 0: field 'rounds' 4294967295 is out of range" "$T/log3"
for f in samples.csv summary.json report.md report.html; do
	cmp -s "$X/$f" "$T/hostile-before/$f" || fail "$f changed although the record was refused"
done
ls "$X"/.*.tmp 2>/dev/null && fail "a half-written report was left"

note "links planted in a run directory are replaced, never written through"
cp tests/unit/fixtures/report/arch.msgpack "$X/samples.msgpack"
echo victim >"$T/victim"
ln -s "$T/victim" "$X/.report.md.tmp"
rm "$X/report.html" && ln -s "$T/victim" "$X/report.html"
"$ORCH" report "$X" >/dev/null || fail "orch report with planted links failed"
expect_eq "the link's target" "$(cat "$T/victim")" victim
[ -f "$X/report.html" ] && [ ! -L "$X/report.html" ] || fail "report.html is not a regular file"
cmp -s "$X/report.html" "$T/hostile-before/report.html" || fail "report.html differs"
no_leftovers
echo PASS
