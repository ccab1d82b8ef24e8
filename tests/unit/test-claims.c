/*
 * Claims ([claim.NAME], coordinator/input/suite-claims.c and claims.c) and
 * orch compare (coordinator/report/compare.c), on synthetic records with fixed
 * seeds written through the real record writer and loaded with
 * record_load, so that every ratio is known:
 *
 *   - every bad [claim.NAME] is refused with its file and line;
 *   - on two architectures where B is 10% faster on x86_64 and the same
 *     on aarch64, each claim gets the verdict its definition gives, per
 *     group and per host, in the analysis, in summary.json and through
 *     --fail-on=refuted;
 *   - compare of two records with a known shift of B (1.10) and none of
 *     A finds worse and same, and warns of the facts that differ; its
 *     three files are compared byte for byte with
 *     fixtures/compare/shift.*.golden.
 *
 * Regenerate the golden files, from the repository root, after a
 * deliberate change: ORCH_UPDATE_GOLDEN=1 build/default/tests/test-claims
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/analysis/claims.h"
#include "coordinator/analysis/gate.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/compare.h"
#include "coordinator/report/report.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define FX_DIR		"tests/unit/fixtures/compare"
#define ROUNDS		20
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- parsing ------------------------------------------------------------ */

static const char suite_head[] =
	"[suite]\n"					/* 1 */
	"name = c\n"					/* 2 */
	"reference = A\n"				/* 3 */
	"[variant.A]\n"					/* 4 */
	"bin = /bin/true\n"				/* 5 */
	"[variant.B]\n"					/* 6 */
	"bin = /bin/true\n"				/* 7 */
	"[bench.k1]\n"					/* 8 */
	"args = 1\n"					/* 9 */
	"[bench.k2]\n"					/* 10 */
	"args = 2\n";					/* 11 */

/* Parses suite_head followed by tail; returns the error, or NULL. */
static char *
parse(const char *tail, struct suite **out)
{
	char	*text, *cause = NULL;
	struct suite *s = NULL;
	size_t	 n = strlen(suite_head) + strlen(tail) + 1;

	assert_non_null(text = malloc(n));
	snprintf(text, n, "%s%s", suite_head, tail);
	if (suite_load_names("claims.ini", text, &s, &cause) != 0) {
		free(text);
		return (cause);
	}
	free(text);
	if (out != NULL)
		*out = s;
	else
		suite_free(s);
	return (NULL);
}

static void
test_parse_ok(void **state)
{
	struct suite	*s = NULL;
	char		 buf[64];

	(void)state;
	assert_null(parse("[claim.fast]\nvariant = B\nexpect = better by >= "
	    "2%\nbenchmarks = k1, k2\n[claim.slow]\nvariant = B\nreference "
	    "= A\nexpect = worse\nbenchmarks = all\n[claim.eq]\nvariant = B\n"
	    "expect = same\n[claim.w5]\nvariant = B\nexpect = worse by >= "
	    "2.5%\n", &s));
	assert_int_equal(s->nclaims, 4);
	assert_string_equal(s->claims[0].name, "fast");
	assert_int_equal(s->claims[0].expect, CLAIM_BETTER);
	assert_true(fabs(s->claims[0].by - 0.02) < 1e-12);
	assert_int_equal(s->claims[0].nbenches, 2);
	assert_string_equal(s->claims[0].benches[1], "k2");
	assert_int_equal(s->claims[1].expect, CLAIM_WORSE);
	assert_int_equal(s->claims[1].nbenches, 0);
	assert_true(s->claims[1].by == 0);
	assert_int_equal(s->claims[2].expect, CLAIM_SAME);
	claims_expect_text(&s->claims[3], buf, sizeof buf);
	assert_string_equal(buf, "worse by >= 2.5%");
	suite_free(s);

	/* A sweep's name, and one of its points, are benchmarks to claim. */
	s = NULL;
	assert_null(parse("[bench.sw]\nargs = {param:n}\nparams = n=1,2\n"
	    "[claim.s]\nvariant = B\nexpect = same\nbenchmarks = sw, k1\n",
	    &s));
	assert_int_equal(s->nclaims, 1);
	suite_free(s);
}

static void
test_parse_errors(void **state)
{
	static const struct {
		const char	*tail;
		const char	*want;
	} cases[] = {
		{ "[claim.x]\nvariant = B\nexpect = faster\n",
		  "claims.ini:14: [claim.x] expect: 'faster' is not one of" },
		{ "[claim.x]\nvariant = B\nexpect = better by 2%\n",
		  "claims.ini:14: [claim.x] expect: 'better by 2%' is not" },
		{ "[claim.x]\nvariant = B\nexpect = better by >= 0%\n",
		  "claims.ini:14: [claim.x] expect: '0' is not a percentage" },
		{ "[claim.x]\nvariant = B\nexpect = worse by >= 100%\n",
		  "claims.ini:14: [claim.x] expect: '100' is not a percentage" },
		{ "[claim.x]\nvariant = B\nexpect = better by >= -2%\n",
		  "claims.ini:14: [claim.x] expect: '-2' is not a percentage" },
		{ "[claim.x]\nvariant = B\nexpect = same by >= 2%\n",
		  "claims.ini:14: [claim.x] expect: 'same by >= 2%' is not" },
		{ "[claim.x]\nexpect = worse\n",
		  "claims.ini:12: [claim.x] missing variant" },
		{ "[claim.x]\nvariant = B\n",
		  "claims.ini:12: [claim.x] missing expect" },
		{ "[claim.x]\nvariant = C\nexpect = worse\n",
		  "claims.ini:13: [claim.x] variant 'C' is not a variant" },
		{ "[claim.x]\nvariant = A\nexpect = worse\n",
		  "claims.ini:13: [claim.x] variant 'A' is its reference" },
		{ "[claim.x]\nvariant = B\nreference = B\nexpect = worse\n",
		  "claims.ini:13: [claim.x] variant 'B' is its reference" },
		{ "[claim.x]\nvariant = B\nreference = Z\nexpect = worse\n",
		  "claims.ini:14: [claim.x] reference 'Z' is not a variant" },
		{ "[claim.x]\nvariant = B\nexpect = worse\nbenchmarks = k1, k9\n",
		  "claims.ini:15: [claim.x] benchmarks: 'k9' is not a "
		  "[bench.NAME]" },
		{ "[claim.x]\nvariant = B\nexpect = worse\nbenchmarks = k1, k1\n",
		  "claims.ini:15: [claim.x] benchmarks: 'k1' twice" },
		{ "[claim.x]\nvariant = B\nexpect = worse\nbenchmarks = k1,\n",
		  "claims.ini:15: [claim.x] benchmarks: bad name ''" },
		{ "[claim.x]\nvariant = B\nexpect = worse\nbench = k1\n",
		  "claims.ini:15: [claim.x] unknown key 'bench'" },
		{ "[claim.x]\nvariant = B\nexpect = worse\nexpect = same\n",
		  "claims.ini:15: [claim.x] duplicate key 'expect' (first on "
		  "line 14)" },
		{ "[claim.x]\nvariant = B\nexpect = worse\n[claim.x]\n",
		  "claims.ini:15: duplicate section [claim.x] (first on line "
		  "12)" },
		{ "[claim.-x]\nvariant = B\nexpect = worse\n",
		  "claims.ini:12: [claim.-x] bad name '-x'" },
		{ "[claim.x]\nvariant = ../B\nexpect = worse\n",
		  "claims.ini:13: [claim.x] variant: bad name '../B'" },
	};
	char	*cause;
	size_t	 i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		cause = parse(cases[i].tail, NULL);
		if (cause == NULL)
			fail_msg("case %zu: accepted:\n%s", i, cases[i].tail);
		if (strncmp(cause, cases[i].want, strlen(cases[i].want)) != 0)
			fail_msg("case %zu:\n got: %s\nwant: %s...", i, cause,
			    cases[i].want);
		free(cause);
	}
}

/* ---- synthetic records -------------------------------------------------- */

struct simhost {
	const char	*name, *arch, *cpu, *kernel, *governor, *agent;
};

/* B / A on (host, bench) of a simulated run. */
typedef double (*ratio_fn)(size_t host, size_t bench);

/*
 * Writes a simulated run into dir: the hosts, benches k1 and k2 (nbenches
 * of them), variants A and B interleaved, elapsed_ns with lognormal noise
 * sigma, B / A given by ratio, the suite's text text, B's bin of SHA bsha.
 */
static void
simulate_n(const char *dir, const char *text, const struct simhost *hs,
    size_t nh, size_t nbenches, size_t nvar, ratio_fn ratio, double sigma,
    uint64_t seed, const char *bsha)
{
	static const char	 asha[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				    "aaaaaaaaaaaaaaaaaaaaaaaa";
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h[4];
	struct rng		 r;
	char			*cause = NULL;
	uint32_t		 round, seq = 0;
	size_t			 i, b, k, v;

	assert_true(nh <= NELEM(h) && nbenches <= 2 && nvar >= 2 && nvar <= 3);
	assert_int_equal(synth_suite(&ss, "claims", nvar, nbenches, ROUNDS,
	    seed), 0);
	ss.s.text = (char *)(uintptr_t)text;
	snprintf(ss.s.name, sizeof ss.s.name, "c");
	for (b = 0; b < nbenches; b++)
		snprintf(ss.bs[b].name, sizeof ss.bs[b].name, "k%zu", b + 1);
	for (i = 0; i < nh; i++) {
		synth_host(&h[i], hs[i].name, hs[i].arch, hs[i].cpu, 4);
		snprintf(h[i].agent_version, sizeof h[i].agent_version, "%s",
		    hs[i].agent);
		snprintf(h[i].facts.kernel, sizeof h[i].facts.kernel, "%s",
		    hs[i].kernel);
		assert_int_equal(synth_fact(&h[i], "governor", hs[i].governor),
		    0);
	}
	rng_seed(&r, seed);
	if (synth_open(&rec, dir, "20260101-000000-cc", &ss.s,
	    "orch run claims.ini", h, nh, &cause) != 0)
		fail_msg("%s", cause);
	for (i = 0; i < nh; i++) {
		assert_int_equal(record_host(&rec, &h[i]), 0);
		assert_int_equal(record_file(&rec, h[i].name, "A", "bin",
		    "a", asha, 0), 0);
		assert_int_equal(record_file(&rec, h[i].name, "B", "bin",
		    "b", bsha, 0), 0);
	}
	for (i = 0; i < nh; i++) {
		for (round = 1; round <= ROUNDS; round++) {
			for (b = 0; b < nbenches; b++) {
				for (k = 0; k < nvar; k++) {
					/* C (when there) last: A, B balanced. */
					v = k == 2 ? 2 : (round % 2 == 1) ? k :
					    1 - k;
					synth_elapsed(&smp, seq++, round,
					    2000000, 1e6 *
					    (v == 1 ? ratio(i, b) : 1) *
					    exp(sigma * synth_gauss(&r)));
					assert_int_equal(record_sample(&rec,
					    h[i].name, ss.bs[b].name,
					    ss.vars[v].name, &smp), 0);
				}
			}
		}
		/* Each host ends after its own samples, as in a run. */
		assert_int_equal(record_hostend(&rec, &h[i]), 0);
	}
	assert_int_equal(synth_close(&rec, h, 0), 0);
}

/* Reads a whole file; returns its bytes (NUL-terminated) or NULL. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	char	*buf;
	long	 n;

	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return (buf);
}

/* Two variants, A and B. */
static void
simulate(const char *dir, const char *text, const struct simhost *hs,
    size_t nh, size_t nbenches, ratio_fn ratio, double sigma, uint64_t seed,
    const char *bsha)
{
	simulate_n(dir, text, hs, nh, nbenches, 2, ratio, sigma, seed, bsha);
}

/* ---- deciding ----------------------------------------------------------- */

static const struct simhost lab[] = {
	{ "x1", "x86_64", "Zen 4", "6.1.0", "performance", "0.1.0" },
	{ "x2", "x86_64", "Zen 4", "6.1.0", "performance", "0.1.0" },
	{ "m1", "aarch64", "Apple M2", "6.1.0", "performance", "0.1.0" },
};

/* B is 10% faster on x86_64 (hosts 0, 1), the same on aarch64 (host 2). */
static double
lab_ratio(size_t host, size_t bench)
{
	(void)bench;
	return (host < 2 ? 0.90 : 1.00);
}

static const char lab_suite[] =
	"[suite]\nname = c\nreference = A\n"
	"[variant.A]\nbin = /bin/true\n[variant.B]\nbin = /bin/true\n"
	"[bench.k1]\nargs = 1\n[bench.k2]\nargs = 2\n"
	"[claim.gain5]\nvariant = B\nexpect = better by >= 5%\n"
	"[claim.better]\nvariant = B\nexpect = better\nbenchmarks = k1\n"
	"[claim.same]\nvariant = B\nexpect = same\n"
	"[claim.gain10]\nvariant = B\nexpect = better by >= 10%\n"
	"[claim.worse]\nvariant = B\nexpect = worse\n";

/* Returns the verdict of claim ci in group gi (-1: the run's), host hi. */
static enum claim_verdict
verdict_of(const struct claims *cs, size_t ci, size_t gi, size_t hi)
{
	size_t	i;

	for (i = 0; i < cs->nsums; i++) {
		if (cs->sums[i].claim == ci && cs->sums[i].group == gi &&
		    cs->sums[i].host == hi)
			return (cs->sums[i].verdict);
	}
	fail_msg("no verdict for claim %zu group %zu host %zu", ci, gi, hi);
	return (CLAIM_UNDECIDED);
}

static void
test_decide(void **state)
{
	struct dataset		*ds;
	struct analysis		*a;
	const struct claims	*cs;
	char			*dir, *cause = NULL, *lines = NULL, path[4096];
	char			*json;
	size_t			 n, len, xg, mg;
	enum { GAIN5, BETTER, SAME, GAIN10, WORSE };
	const size_t		 ALL = (size_t)-1;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("claims"));
	simulate(dir, lab_suite, lab, NELEM(lab), 2, lab_ratio, 0.003, 7,
	    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	cs = a->claims;
	assert_non_null(cs);
	assert_null(cs->error);
	assert_int_equal(cs->suite->nclaims, 5);
	assert_int_equal(a->ngroups, 2);
	/* Groups sort by architecture: aarch64 first. */
	mg = strstr(a->groups[0].label, "aarch64") != NULL ? 0 : 1;
	xg = 1 - mg;
	/* 10% faster on x86_64: better by 5% holds; on aarch64 it fails. */
	assert_int_equal(verdict_of(cs, GAIN5, xg, ALL), CLAIM_CONFIRMED);
	assert_int_equal(verdict_of(cs, GAIN5, mg, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, GAIN5, ALL, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, BETTER, xg, ALL), CLAIM_CONFIRMED);
	assert_int_equal(verdict_of(cs, BETTER, mg, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, SAME, xg, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, SAME, mg, ALL), CLAIM_CONFIRMED);
	/* Exactly at the threshold: the interval straddles it. */
	assert_int_equal(verdict_of(cs, GAIN10, xg, ALL), CLAIM_UNDECIDED);
	assert_int_equal(verdict_of(cs, GAIN10, mg, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, WORSE, xg, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, WORSE, mg, ALL), CLAIM_REFUTED);
	/* Per host under its group: same as the group here. */
	assert_int_equal(verdict_of(cs, GAIN5, xg, a->groups[xg].from),
	    CLAIM_CONFIRMED);
	assert_int_equal(verdict_of(cs, SAME, mg, a->groups[mg].from),
	    CLAIM_CONFIRMED);
	/* better names k1 only: one row per host. */
	for (n = 0, len = 0; n < cs->nrows; n++)
		len += cs->rows[n].claim == BETTER;
	assert_int_equal(len, 3);

	/* --fail-on=refuted: one line per group refuting a claim. */
	assert_int_equal(gate_check(a, GATE_REFUTED, &n, &lines), 0);
	assert_int_equal(n, 6);
	assert_non_null(strstr(lines, "orch: --fail-on: claim gain5 (B better "
	    "by >= 5% vs A) REFUTED on aarch64 · Apple M2: m1: k"));
	free(lines);
	assert_int_equal(gate_check(a, GATE_WORSE, &n, &lines), 0);
	assert_int_equal(n, 0);
	free(lines);
	analysis_free(a);
	dataset_free(ds);

	/* The files: summary.json's claims, the table in report.md. */
	assert_int_equal(report_render(dir, 0, NULL, NULL, &cause), 0);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	assert_non_null(json = slurp(path, &len));
	assert_non_null(strstr(json, "\"claims\": [\n    {\"name\": \"gain5\", "
	    "\"variant\": \"B\", \"reference\": \"A\", \"expect\": \"better "
	    "by >= 5%\", \"benchmarks\": \"all\", \"verdict\": \"REFUTED\""));
	free(json);
	snprintf(path, sizeof path, "%s/report.md", dir);
	assert_non_null(json = slurp(path, &len));
	assert_non_null(strstr(json, "| same | B same vs A | every host | x1: k1 | **REFUTED** | "));
	/* Several benchmarks: a row each under its host. */
	assert_non_null(strstr(json, "|  |  | host m1, bench | k2 | **CONFIRMED** | "));
	free(json);
	synth_tmpdir_free(dir);
}

/*
 * A claim against another variant than the suite's reference: C does A's
 * work, so B against C is B against A; its comparisons join the family.
 */
static void
test_own_reference(void **state)
{
	static const char	 text3[] =
	    "[suite]\nname = c\nreference = A\n"
	    "[variant.A]\nbin = /bin/true\n[variant.B]\nbin = /bin/true\n"
	    "[variant.C]\nbin = /bin/true\n"
	    "[bench.k1]\nargs = 1\n[bench.k2]\nargs = 2\n";
	char			 text[1024];
	struct dataset		*ds;
	struct analysis		*a;
	const struct claims	*cs;
	char			*dir, *cause = NULL;
	size_t			 xg, mg, plain, i;
	const size_t		 ALL = (size_t)-1;

	(void)state;
	/* Without claims: 12 comparisons and 4 geometric means. */
	assert_non_null(dir = synth_tmpdir_new("claims"));
	simulate_n(dir, text3, lab, NELEM(lab), 2, 3, lab_ratio, 0.003, 9,
	    "bb");
	assert_int_equal(synth_load(dir, &ds, &a, &cause), 0);
	plain = a->family_size;
	assert_int_equal(plain, 16);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);

	snprintf(text, sizeof text, "%s[claim.vs-c]\nvariant = B\nreference "
	    "= C\nexpect = better by >= 5%%\n[claim.c-same]\nvariant = C\n"
	    "reference = B\nexpect = same\nbenchmarks = k2\n", text3);
	assert_non_null(dir = synth_tmpdir_new("claims"));
	simulate_n(dir, text, lab, NELEM(lab), 2, 3, lab_ratio, 0.003, 9,
	    "bb");
	assert_int_equal(synth_load(dir, &ds, &a, &cause), 0);
	/* 6 (3 hosts, 2 benches) and 3 (k2 only) more tests. */
	assert_int_equal(a->family_size, plain + 9);
	cs = a->claims;
	assert_non_null(cs);
	assert_int_equal(cs->nextra, 9);
	for (i = 0; i < cs->nextra; i++) {
		assert_true(cs->extra[i].family);
		assert_true(fabs(cs->extra[i].level - (1 - 0.05 / 25)) < 1e-9);
	}
	mg = strstr(a->groups[0].label, "aarch64") != NULL ? 0 : 1;
	xg = 1 - mg;
	assert_int_equal(verdict_of(cs, 0, xg, ALL), CLAIM_CONFIRMED);
	assert_int_equal(verdict_of(cs, 0, mg, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, 1, xg, ALL), CLAIM_REFUTED);
	assert_int_equal(verdict_of(cs, 1, mg, ALL), CLAIM_CONFIRMED);
	/* C / B on x86_64: about 1 / 0.9. */
	for (i = 0; i < cs->nrows; i++) {
		if (cs->rows[i].claim == 1 && cs->rows[i].host != a->groups[mg].from)
			assert_true(fabs(cs->rows[i].cmp->ratio - 1 / 0.9) < 0.01);
	}
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/* A suite without claims: nothing about them anywhere. */
static void
test_no_claims(void **state)
{
	struct dataset	*ds;
	struct analysis	*a;
	char		*dir, *cause = NULL;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("claims"));
	simulate(dir, suite_head, lab, 1, 1, lab_ratio, 0.003, 8, "bb");
	assert_int_equal(synth_load(dir, &ds, &a, &cause), 0);
	assert_null(a->claims);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/* ---- compare ------------------------------------------------------------ */

static double
same_ratio(size_t host, size_t bench)
{
	(void)host;
	(void)bench;
	return (1.0);
}

/* The new run: B 10% slower than in the old one; A unchanged. */
static double
slower_ratio(size_t host, size_t bench)
{
	(void)host;
	(void)bench;
	return (1.10);
}

/* Compares out/name with FX_DIR/shift.name.golden, or rewrites it. */
static void
check_golden(const char *root, const char *out, const char *name)
{
	char	 got_path[PATH_MAX], want_path[PATH_MAX], *got, *want;
	char	*e = getenv("ORCH_UPDATE_GOLDEN");
	size_t	 got_len = 0, want_len = 0;
	FILE	*f;

	snprintf(got_path, sizeof got_path, "%s/%s", out, name);
	snprintf(want_path, sizeof want_path, "%s/" FX_DIR "/shift.%s.golden",
	    root, name);
	assert_non_null(got = slurp(got_path, &got_len));
	if (e != NULL && strcmp(e, "1") == 0) {
		assert_non_null(f = fopen(want_path, "wb"));
		assert_int_equal(fwrite(got, 1, got_len, f), got_len);
		assert_int_equal(fclose(f), 0);
		free(got);
		return;
	}
	if ((want = slurp(want_path, &want_len)) == NULL)
		fail_msg("%s: %s (regenerate with ORCH_UPDATE_GOLDEN=1)",
		    want_path, strerror(errno));
	if (got_len != want_len || memcmp(got, want, got_len) != 0)
		fail_msg("%s differs from %s (if intended, regenerate with "
		    "ORCH_UPDATE_GOLDEN=1 and review the diff)", got_path,
		    want_path);
	free(got);
	free(want);
}

static void
test_compare(void **state)
{
	static const struct simhost	 then[] = {
		{ "x1", "x86_64", "Zen 4", "6.1.0", "performance", "0.1.0" },
	};
	static const struct simhost	 now[] = {
		{ "x1", "x86_64", "Zen 4", "6.9.2", "powersave", "0.2.0" },
	};
	char	 root[PATH_MAX], *top, old[PATH_MAX], new[PATH_MAX];
	char	*cause = NULL, *tripped = NULL, *json;
	size_t	 len;

	(void)state;
	assert_non_null(getcwd(root, sizeof root));
	assert_non_null(top = synth_tmpdir_new("claims"));
	snprintf(old, sizeof old, "%s/old", top);
	snprintf(new, sizeof new, "%s/new", top);
	assert_int_equal(mkdir(old, 0700), 0);
	assert_int_equal(mkdir(new, 0700), 0);
	simulate(old, suite_head, then, 1, 1, same_ratio, 0.003, 11,
	    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	simulate(new, suite_head, now, 1, 1, slower_ratio, 0.003, 12,
	    "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc");
	/* Relative names: the files name the runs as given. */
	assert_int_equal(chdir(top), 0);
	if (compare_render("old", "new", "new", NULL, GATE_WORSE, &tripped,
	    &cause) != 0)
		fail_msg("%s", cause);
	assert_non_null(tripped);
	assert_non_null(strstr(tripped, "orch: --fail-on: x1 k1 elapsed_ns B: "
	    "new vs old worse: ratio 1.1"));
	assert_null(strstr(tripped, " A: "));
	free(tripped);
	assert_non_null(json = slurp("new/compare.json", &len));
	assert_non_null(strstr(json, "\"variant\": \"A\", \"old_runs\": 20, "
	    "\"new_runs\": 20, \"ratio\": 0.99"));
	assert_non_null(strstr(json, "\"verdict\": \"same\""));
	assert_non_null(strstr(json, "host x1: kernel differs: 6.1.0 then, "
	    "6.9.2 now"));
	assert_non_null(strstr(json, "host x1: governor differs: performance "
	    "then, powersave now"));
	assert_non_null(strstr(json, "host x1: agent version differs"));
	assert_non_null(strstr(json, "host x1: B bin's SHA-256 differs: "
	    "bbbbbbbbbbbb then, cccccccccccc now"));
	free(json);
	check_golden(root, "new", "compare.md");
	check_golden(root, "new", "compare.json");
	check_golden(root, "new", "compare.html");

	/* Against itself: no warning, every ratio the same. */
	assert_int_equal(compare_render("old", "old", "old", NULL, GATE_ANY,
	    &tripped, &cause), 0);
	assert_null(tripped);
	assert_non_null(json = slurp("old/compare.json", &len));
	assert_non_null(strstr(json, "\"warnings\": [],"));
	free(json);

	/* Hosts and benchmarks of one run only: listed, not fatal. */
	{
		static const struct simhost	 more[] = {
			{ "x1", "x86_64", "Zen 4", "6.1.0", "performance",
			  "0.1.0" },
			{ "x9", "x86_64", "Zen 4", "6.1.0", "performance",
			  "0.1.0" },
		};

		assert_int_equal(mkdir("more", 0700), 0);
		simulate("more", suite_head, more, 2,
		    2, same_ratio, 0.003, 13, "bb");
		assert_int_equal(compare_render("old", "more", "more", NULL, 0,
		    &tripped, &cause), 0);
		assert_non_null(json = slurp("more/compare.json", &len));
		assert_non_null(strstr(json, "\"not_compared\": [\n    \"bench "
		    "k2: only in the new run\",\n    \"host x9: only in the new "
		    "run\"\n  ]"));
		free(json);
		synth_tmpdir_free(strdup("more"));
	}

	/* A record that cannot load: the error names it, nothing written. */
	assert_int_equal(compare_render("old", "nowhere", "old", NULL, 0,
	    &tripped, &cause), -1);
	assert_non_null(strstr(cause, "new run nowhere: "));
	free(cause);
	assert_int_equal(chdir(root), 0);
	synth_tmpdir_free(strdup(old));
	synth_tmpdir_free(strdup(new));
	rmdir(top);
	free(top);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_own_reference),
		cmocka_unit_test(test_no_claims),
		cmocka_unit_test(test_compare),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
