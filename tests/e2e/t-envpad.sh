# Randomized layout: each measured run of a program gets ORCH_ENV_PAD of a
# length drawn from the run's seed (0..env_pad bytes, default 4096), so a
# bench that prints its environment's size sees a different size on
# (almost) every run; the length of each is in samples.csv's env_pad
# column, and the report says the metric is layout-sensitive; env_pad = 0
# (or --env-pad=0) restores one size; a seed gives the same lengths again.
. tests/e2e/lib.sh

cat > "$T/env.ini" <<INI
[suite]
rounds   = 20
warmup   = 1
retries  = 0
max_load = 0
seed     = 5
[variant.A]
bin = host:sh
args = -c 'echo envsize=\$(env | wc -c)'
[variant.B]
bin = host:sh
args = -c 'echo envsize=\$(env | wc -c)'
[bench.env]
metrics = envsize
INI

# sizes DIR: the distinct envsize values of the measured runs
sizes() { awk -F, '$11=="envsize" && $9==0 {print $12}' "$1/samples.csv" | sort -u | wc -l; }

note "padded by default: a different size on (almost) every one of 40 runs"
rc=0; run_orch "$T/log1" run --out="$T/o1" "$T/env.ini" || rc=$?
cat "$T/log1"
expect_eq "run exit" "$rc" 0
C="$T/o1/samples.csv"
expect_eq "csv header" "$(head -1 "$C")" "run_id,host,arch,bench,variant,round,attempt,seq,warmup,status,metric,value,env_pad"
expect_eq "measured runs" "$(awk -F, '$11=="envsize" && $9==0' "$C" | wc -l)" 40
n=$(sizes "$T/o1")
[ "$n" -ge 32 ] || fail "only $n distinct environment sizes in 40 runs"
# The size moves with the recorded padding, byte for byte.
d=$(awk -F, '$11=="envsize" && $9==0 {print $12 - $13}' "$C" | sort -u | wc -l)
expect_eq "size minus padding: one value" "$d" 1
expect_eq "padding at most 4096" "$(awk -F, '$4=="env" && $9==0 && ($13 == "" || $13 < 0 || $13 > 4096)' "$C" | wc -l)" 0
# envsize is the padding plus a constant: layout-sensitive, both variants.
for v in A B; do
	expect_grep "^local env $v: layout-sensitive: envsize moves with the environment's size \(rho 1.00, p < 0.0001, 20 runs\)$" "$T/log1"
	expect_grep "^- local env $v: layout-sensitive: envsize moves with the environment's size \(rho 1.00" "$T/o1/report.md"
	expect_grep "^<li>local env $v: layout-sensitive: envsize moves with the environment's size \(rho 1.00, p < 0.0001, 20 runs\)</li>$" "$T/o1/report.html"
done
jq -e '.layout | .tests == 2 and .alpha == 0.025 and ([.sensitive[] | .host + " " + .bench + " " + .variant + " " + .metric] == ["local env A envsize", "local env B envsize"]) and ([.sensitive[] | .rho > 0.99 and .p_value < 0.0001 and .n == 20] | all)' \
    "$T/o1/summary.json" >/dev/null || fail "summary.json layout: $(jq -c .layout "$T/o1/summary.json")"
expect_eq "warmups unpadded" "$(awk -F, '$4=="env" && $9==1 && $13!=""' "$C" | wc -l)" 0

note "the same seed pads the same again; report renders the column"
rc=0; run_orch "$T/log2" run --out="$T/o2" "$T/env.ini" || rc=$?
expect_eq "second run exit" "$rc" 0
_pads() { awk -F, '$11=="envsize" {print $6, $5, $7, $13}' "$1/samples.csv" | sort; }
[ "$(_pads "$T/o1")" = "$(_pads "$T/o2")" ] || fail "one seed, two paddings"
cp "$C" "$T/before.csv"
rc=0; run_orch "$T/log3" report "$T/o1" || rc=$?
expect_eq "report exit" "$rc" 0
cmp -s "$C" "$T/before.csv" || fail "orch report wrote another samples.csv"

note "--env-pad=0 and env_pad = 0: one size"
rc=0; run_orch "$T/log4" run --env-pad=0 --out="$T/o4" "$T/env.ini" || rc=$?
expect_eq "--env-pad=0 exit" "$rc" 0
expect_eq "--env-pad=0 sizes" "$(sizes "$T/o4")" 1
! grep -q layout-sensitive "$T/log4" "$T/o4/report.md" "$T/o4/report.html" ||
	fail "--env-pad=0: a layout-sensitive line"
expect_eq "--env-pad=0: layout" "$(jq -c .layout "$T/o4/summary.json")" '{"alpha":0.05,"tests":0,"sensitive":[]}'
expect_eq "--env-pad=0: no padding recorded" "$(awk -F, 'NR>1 && $13!=""' "$T/o4/samples.csv" | wc -l)" 0
sed 's/^seed     = 5$/seed = 5\nenv_pad = 0/' "$T/env.ini" > "$T/off.ini"
rc=0; run_orch "$T/log5" run --out="$T/o5" "$T/off.ini" || rc=$?
expect_eq "env_pad = 0 exit" "$rc" 0
expect_eq "env_pad = 0 sizes" "$(sizes "$T/o5")" 1

note "a bad env_pad names the file and line; --env-pad past 65536 is refused"
sed 's/^seed     = 5$/env_pad = 70000/' "$T/env.ini" > "$T/bad.ini"
rc=0; run_orch "$T/log6" run --out="$T/o6" "$T/bad.ini" || rc=$?
expect_eq "bad env_pad exit" "$rc" 2
expect_grep "bad.ini:6: \[suite\] env_pad: 70000 is out of range 0..65536" "$T/log6"
rc=0; run_orch "$T/log7" run --env-pad=65537 --out="$T/o7" "$T/env.ini" || rc=$?
expect_eq "bad --env-pad exit" "$rc" 2
expect_grep "env-pad" "$T/log7"
