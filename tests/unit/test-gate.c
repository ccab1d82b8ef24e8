/*
 * Honest invalids and the --fail-on gate (coordinator/analysis/gate.c), on records
 * written with the real record writer and analysed as `orch report` does:
 *
 *   - a primary metric a benchmark never prints: invalid, the key named,
 *     and --fail-on=invalid trips on it (--fail-on=worse does not);
 *   - a checksum key never printed: invalid, the key named;
 *   - a checksum mismatch in variant C invalidates C vs A only;
 *   - a value not above 0 once the harness floor is subtracted: invalid,
 *     saying to lengthen the benchmark or set subtract_floor = no;
 *   - a clear slowdown trips --fail-on=worse with a line that says why;
 *   - serially correlated rounds widen the intervals, and every report
 *     says so next to the comparison;
 *   - the list of --fail-on and its errors;
 *   - a variant retried in more than 10% of its runs is flagged, and
 *     --fail-on=invalid trips on it.
 */
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

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/gate.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/report.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define ROUNDS	12
#define NB	6

/* Benchmarks of the record: what each does. */
enum { B_OK, B_NOMETRIC, B_NOSUM, B_CMISMATCH, B_SHORT, B_HUGE };
static const char *const bnames[NB] = {
	"slow", "nometric", "nosum", "cmismatch", "short", "huge"
};

/*
 * Writes the record: variants A, B, C; wall_ns is every benchmark's
 * primary metric except nometric's (elapsed_ns, never printed); B is 2x
 * slower on "slow"; "short" runs 40 us on a 1 ms floor; C prints another
 * checksum on "cmismatch"; nobody prints nosum's checksum; "huge" prints
 * an elapsed_ns whose ratio overflows in one round of B.
 */
static void
gen(const char *dir)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL;
	uint32_t		 round, seq = 0;
	uint64_t		 wall;
	size_t			 b, v;
	double			 base;

	assert_int_equal(synth_suite(&ss, "gate", 3, NB, ROUNDS, 1), 0);
	ss.s.subtract_floor = 1;
	for (b = 0; b < NB; b++) {
		snprintf(ss.bs[b].name, sizeof ss.bs[b].name, "%s", bnames[b]);
		snprintf(ss.m[b].name, PROTO_NAME_MAX, "%s", b == B_NOMETRIC ||
		    b == B_HUGE ? "elapsed_ns" : "wall_ns");
		if (b == B_NOSUM || b == B_CMISMATCH)
			snprintf(ss.bs[b].checksum, sizeof ss.bs[b].checksum,
			    "checksum");
	}
	synth_host(&h, "h", "x86_64", "Synthetic", 2);

	rng_seed(&r, 3);
	if (synth_open(&rec, dir, "20260101-000000-gate", &ss.s,
	    "orch run gate.ini", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	for (round = 1; round <= ROUNDS; round++) {
		/* The harness floor: 1 ms. */
		synth_sample(&smp, seq++, round, 1000000 + (round % 3) * 1000);
		assert_int_equal(record_sample(&rec, "h", RECORD_FLOOR, "",
		    &smp), 0);
		for (b = 0; b < NB; b++) {
			for (v = 0; v < 3; v++) {
				base = b == B_SHORT ? 40000 : 5e7;
				if (b == B_OK && v == 1)
					base *= 2;
				/* Noise of a few percent; a short one's
				 * value sinks under the floor's. */
				wall = (uint64_t)(1000000 + base *
				    (1 + 0.03 * ((double)(rng_next(&r) %
				    1000) / 1000 - 0.5)));
				if (b == B_SHORT && round == 4 && v == 2)
					wall = 990000;
				synth_sample(&smp, seq++, round, wall);
				if (b == B_HUGE) {
					smp.nmetrics = 1;
					snprintf(smp.metrics[0].key,
					    PROTO_NAME_MAX, "elapsed_ns");
					smp.metrics[0].value = round == 2 ?
					    (v == 1 ? 1e300 : 1e-300) : 1e6;
				}
				if (b == B_CMISMATCH || b == B_NOMETRIC) {
					smp.has_checksum = 1;
					snprintf(smp.checksum,
					    sizeof smp.checksum, "%s",
					    b == B_CMISMATCH && v == 2 &&
					    round == 5 ? "cafe" : "beef");
				}
				assert_int_equal(record_sample(&rec, "h",
				    bnames[b], ss.vars[v].name, &smp), 0);
			}
		}
	}
	assert_int_equal(synth_close(&rec, &h, 1), 0);
}

/* Returns the primary comparison of bench b, variant v. */
static const struct rep_cmp *
cmp(const struct analysis *a, size_t b, size_t v)
{
	const struct rep_cmp	*c = analysis_cmp(a, 0, b, 0, v);

	assert_non_null(c);
	return (c);
}

static void
expect_in(const char *what, const char *text, const char *needle)
{
	if (text == NULL || strstr(text, needle) == NULL)
		fail_msg("%s: '%s' not in '%s'", what, needle,
		    text == NULL ? "(null)" : text);
}

/* The invalids, each with the reason that says what to do. */
static void
test_invalids(void **state)
{
	struct dataset		*ds;
	struct analysis		*a;
	const struct rep_cmp	*c;
	char			*dir, *cause = NULL;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("gate"));
	gen(dir);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);

	c = cmp(a, B_NOMETRIC, 1);
	assert_int_equal(c->verdict, VERDICT_INVALID);
	expect_in("nometric", c->reason, "printed no elapsed_ns (the primary "
	    "metric)");
	c = cmp(a, B_NOSUM, 1);
	assert_int_equal(c->verdict, VERDICT_INVALID);
	expect_in("nosum", c->reason, "printed no checksum (the checksum "
	    "key)");
	/* C's mismatch: C vs A invalid, B vs A not. */
	c = cmp(a, B_CMISMATCH, 2);
	assert_int_equal(c->verdict, VERDICT_INVALID);
	expect_in("cmismatch C", c->reason, "checksums disagree");
	expect_in("cmismatch C", c->reason, "cafe");
	assert_int_not_equal(cmp(a, B_CMISMATCH, 1)->verdict,
	    VERDICT_INVALID);
	/* Below the floor in one round of C: C invalid, B not. */
	c = cmp(a, B_SHORT, 2);
	assert_int_equal(c->verdict, VERDICT_INVALID);
	expect_in("short", c->reason, "round 4");
	expect_in("short", c->reason, "lengthen the benchmark, or set "
	    "subtract_floor = no");
	assert_int_not_equal(cmp(a, B_SHORT, 1)->verdict, VERDICT_INVALID);
	/* A ratio with no finite logarithm: B invalid, saying so; C's
	 * ratio in that round is 1. */
	c = cmp(a, B_HUGE, 1);
	assert_int_equal(c->verdict, VERDICT_INVALID);
	expect_in("huge", c->reason, "round 2: B's elapsed_ns over A's");
	expect_in("huge", c->reason, "no finite logarithm");
	assert_int_not_equal(cmp(a, B_HUGE, 2)->verdict, VERDICT_INVALID);
	/* The slowdown is proven at the family's level. */
	c = cmp(a, B_OK, 1);
	assert_int_equal(c->verdict, VERDICT_WORSE);
	assert_true(c->family);
	assert_true(c->p <= c->alpha);
	assert_true(c->lo > 1);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/* The gate: one line per tripped primary comparison, saying why. */
static void
test_gate_lines(void **state)
{
	struct dataset		*ds;
	struct analysis		*a;
	char			*dir, *cause = NULL, *lines;
	size_t			 n;
	int			 mask = 0;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("gate"));
	gen(dir);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);

	assert_int_equal(gate_check(a, GATE_WORSE, &n, &lines), 0);
	assert_int_equal(n, 1);
	expect_in("worse", lines, "orch: --fail-on: h slow wall_ns: B vs A "
	    "worse: ratio 2.");
	expect_in("worse", lines, "family of");
	free(lines);

	/* B and C invalid on nometric and nosum, C on cmismatch and short,
	 * B on huge. */
	assert_int_equal(gate_check(a, GATE_INVALID, &n, &lines), 0);
	assert_int_equal(n, 7);
	expect_in("invalid", lines, "h nometric elapsed_ns: B vs A invalid: "
	    "run seq");
	expect_in("invalid", lines, "printed no elapsed_ns");
	expect_in("invalid", lines, "h short wall_ns: C vs A invalid: round 4");
	free(lines);

	assert_int_equal(gate_parse("worse,invalid", &mask, &cause), 0);
	assert_int_equal(gate_check(a, mask, &n, &lines), 0);
	assert_int_equal(n, 8);
	free(lines);

	/* Nothing trips when the mask is empty. */
	assert_int_equal(gate_check(a, 0, &n, &lines), 0);
	assert_int_equal(n, 0);
	assert_null(lines);

	/* report_render hands the same lines to the caller. */
	assert_int_equal(report_render(dir, GATE_INVALID, &lines, NULL,
	    &cause), 0);
	expect_in("render", lines, "printed no elapsed_ns");
	free(lines);
	assert_int_equal(report_render(dir, 0, &lines, NULL, &cause), 0);
	assert_null(lines);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/*
 * Writes a record whose rounds are serially correlated: 3 benchmarks, 40
 * rounds, each variant's noise an AR(1) of phi 0.6 across rounds.
 */
static void
gen_serial(const char *dir)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL;
	double			 ar[3][2];
	uint32_t		 round, seq = 0;
	size_t			 b, v;

	assert_int_equal(synth_suite(&ss, "serial", 2, 3, 40, 1), 0);
	synth_host(&h, "h", "x86_64", "Synthetic", 2);
	rng_seed(&r, 11);
	memset(ar, 0, sizeof ar);
	if (synth_open(&rec, dir, "20260101-000000-serial", &ss.s,
	    "orch run serial.ini", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	for (round = 1; round <= 40; round++) {
		for (b = 0; b < 3; b++) {
			for (v = 0; v < 2; v++) {
				ar[b][v] = 0.6 * ar[b][v] + 0.02 *
				    synth_gauss(&r);
				synth_elapsed(&smp, seq++, round, 2000000,
				    1e6 * exp(ar[b][v]));
				assert_int_equal(record_sample(&rec, "h",
				    ss.bs[b].name, ss.vars[v].name, &smp), 0);
			}
		}
	}
	assert_int_equal(synth_close(&rec, &h, 1), 0);
}

/* Reads dir/name whole (caller frees). */
static char *
slurp(const char *dir, const char *name)
{
	char	 path[4096], *buf;
	FILE	*f;
	long	 len;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "r"));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	assert_non_null(buf = calloc(1, (size_t)len + 1));
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return (buf);
}

/*
 * Serially correlated rounds: the host's pooled estimate widens every
 * primary interval, and each report says so next to the comparison.
 */
static void
test_serial_report(void **state)
{
	struct dataset		*ds;
	struct analysis		*a;
	char			*dir, *cause = NULL, *md, *json;
	char			*html, *p;
	size_t			 b;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("gate"));
	gen_serial(dir);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	assert_true(a->hosts[0].r1 > 0.4);
	assert_true(a->hosts[0].widen > 2);
	for (b = 0; b < 3; b++)
		assert_true(cmp(a, b, 1)->widen > 2);
	analysis_free(a);
	dataset_free(ds);

	assert_int_equal(report_render(dir, 0, NULL, NULL, &cause), 0);
	md = slurp(dir, "report.md");
	json = slurp(dir, "summary.json");
	html = slurp(dir, "report.html");
	expect_in("report.md", md, "<br>*rounds serially correlated (lag-1 r ");
	expect_in("report.md", md, "> Rounds on `h` are serially correlated");
	expect_in("report.html", html, "rounds serially correlated (lag-1 r ");
	expect_in("report.html", html, "are serially correlated (mean lag-1 r");
	/* The host's fields, then the first comparison's. */
	p = json;
	for (b = 0; b < 2; b++) {
		expect_in("summary.json", p, "\"serial_r\": 0.");
		p = strstr(p, "\"widened\": ");
		assert_non_null(p);
		p += strlen("\"widened\": ");
		if (!(strtod(p, NULL) > 2))
			fail_msg("widened %.10s", p);
	}
	/* And the resolution per host. */
	expect_in("report.md", md, "Resolution (effect found with 80% power");
	free(md);
	free(json);
	free(html);
	synth_tmpdir_free(dir);
}

/*
 * Writes a record of 3 benchmarks and nrounds rounds where every round
 * says B is 3x slower: the log ratio is log 3 plus noise of sd 0.05 that
 * is an AR(1) of phi across rounds; sorted (phi < 0): the rounds' noise
 * put in increasing order, a lag-1 r near 1.
 */
static void
gen_slow3(const char *dir, double phi, uint32_t nrounds)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL;
	double			 e[3][40], x;
	uint32_t		 round, seq = 0;
	size_t			 b, i, j;

	assert_true(nrounds <= 40);
	assert_int_equal(synth_suite(&ss, "slow3", 2, 3, nrounds, 1), 0);
	synth_host(&h, "h", "x86_64", "Synthetic", 2);
	rng_seed(&r, 13);
	for (b = 0; b < 3; b++) {
		for (x = 0, i = 0; i < nrounds; i++) {
			x = (phi > 0 ? phi : 0) * x + synth_gauss(&r);
			e[b][i] = 0.05 * x * (phi > 0 ? sqrt(1 - phi * phi) :
			    1);
		}
		for (i = 0; phi < 0 && i < nrounds; i++) {
			for (j = i + 1; j < nrounds; j++) {
				if (e[b][j] < e[b][i]) {
					x = e[b][i];
					e[b][i] = e[b][j];
					e[b][j] = x;
				}
			}
		}
	}
	if (synth_open(&rec, dir, "20260101-000000-slow3", &ss.s,
	    "orch run slow3.ini", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	for (round = 1; round <= nrounds; round++) {
		for (b = 0; b < 3; b++) {
			synth_elapsed(&smp, seq++, round, 2000000, 1e6);
			assert_int_equal(record_sample(&rec, "h",
			    ss.bs[b].name, ss.vars[0].name, &smp), 0);
			synth_elapsed(&smp, seq++, round, 2000000,
			    3e6 * exp(e[b][round - 1]));
			assert_int_equal(record_sample(&rec, "h",
			    ss.bs[b].name, ss.vars[1].name, &smp), 0);
		}
	}
	assert_int_equal(synth_close(&rec, &h, 1), 0);
}

/*
 * A 20-round run whose every round says B is 3x slower is worse whatever
 * its serial correlation, and the report says what widened an interval:
 * the serial correlation, never "too few rounds". Five rounds are too few
 * (the family's level is out of their reach), and the report says that.
 */
static void
test_slow3_worse(void **state)
{
	static const double	 phis[] = { 0, 0.5, 0.9, 0.99, -1 };
	struct dataset		*ds;
	struct analysis		*a;
	char			*dir, *cause = NULL, *md;
	size_t			 i, b, nwide = 0;

	(void)state;
	for (i = 0; i <= (sizeof phis / sizeof phis[0]); i++) {
		assert_non_null(dir = synth_tmpdir_new("gate"));
		gen_slow3(dir, i < (sizeof phis / sizeof phis[0]) ? phis[i] : 0,
		    i < (sizeof phis / sizeof phis[0]) ? 20 : 5);
		if (synth_load(dir, &ds, &a, &cause) != 0)
			fail_msg("%s", cause);
		for (b = 0; b < 3; b++) {
			if (i == (sizeof phis / sizeof phis[0])) {
				assert_int_equal(cmp(a, b, 1)->verdict,
				    VERDICT_INCONCLUSIVE);
				continue;
			}
			if (cmp(a, b, 1)->verdict != VERDICT_WORSE)
				fail_msg("phi %g bench %zu: %s [%g, %g]",
				    phis[i], b, stats_verdict_name(
				    cmp(a, b, 1)->verdict), cmp(a, b, 1)->lo,
				    cmp(a, b, 1)->hi);
			nwide += cmp(a, b, 1)->widen > 1;
		}
		analysis_free(a);
		dataset_free(ds);
		assert_int_equal(report_render(dir, 0, NULL, NULL, &cause),
		    0);
		md = slurp(dir, "report.md");
		if (i == (sizeof phis / sizeof phis[0]))
			expect_in("report.md", md, "[unbounded: too few "
			    "rounds]");
		else if (strstr(md, "too few rounds") != NULL)
			fail_msg("phi %g: 'too few rounds' in '%s'", phis[i],
			    md);
		if (i < (sizeof phis / sizeof phis[0]) && phis[i] == -1)
			expect_in("report.md", md, "interval widened ×");
		free(md);
		synth_tmpdir_free(dir);
	}
	/* The correlated orders did widen. */
	assert_true(nwide >= 6);
}

/* Fails unless got is want to 1e-9 relative. */
static void
expect_near(const char *what, double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fabs(want)))
		fail_msg("%s: got %.12g, want %.12g", what, got, want);
}

/*
 * Writes a record of 3 benchmarks and nrounds rounds, B slower by eff[b]
 * on benchmark b, noise of sd 0.05 an AR(1) of phi 0.5 across rounds
 * (seeded by seed); eff NULL: benchmarks 0 and 1 B twice as slow in
 * rounds 9-12 and 1-4 and the same elsewhere, noise-free (12 rounds; the
 * per-round mean's estimate, log 2 / 4, is below both of theirs, log 2 /
 * 2), benchmark 2 never measured; halves: benchmark b measured only in
 * rounds of its
 * third (1..n/3, ...), so that each comparison has n/3 pairs while the
 * per-round mean has n rounds.
 */
static void
gen_geo(const char *dir, uint32_t nrounds, const double *eff, int halves,
    uint64_t seed)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL;
	double			 x[3] = { 0, 0, 0 };
	uint32_t		 round, seq = 0, third = nrounds / 3;
	size_t			 b;

	assert_int_equal(synth_suite(&ss, "geo", 2, 3, nrounds, 1), 0);
	synth_host(&h, "h", "x86_64", "Synthetic", 2);
	rng_seed(&r, seed);
	if (synth_open(&rec, dir, "20260101-000000-geo", &ss.s,
	    "orch run geo.ini", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	for (round = 1; round <= nrounds; round++) {
		for (b = 0; b < 3; b++) {
			x[b] = 0.5 * x[b] + sqrt(0.75) * synth_gauss(&r);
			if ((halves && (round - 1) / third != b) ||
			    (eff == NULL && b == 2))
				continue;
			synth_elapsed(&smp, seq++, round, 2000000, 1e6);
			assert_int_equal(record_sample(&rec, "h",
			    ss.bs[b].name, ss.vars[0].name, &smp), 0);
			synth_elapsed(&smp, seq++, round, 2000000,
			    eff == NULL ? (b == 0 ? round > 8 : round <= 4) ?
			    2e6 : 1e6 : 1e6 * (1 + eff[b]) *
			    exp(0.05 * x[b]));
			assert_int_equal(record_sample(&rec, "h",
			    ss.bs[b].name, ss.vars[1].name, &smp), 0);
		}
	}
	assert_int_equal(synth_close(&rec, &h, 1), 0);
}

/*
 * The geometric mean is tested like its comparisons: worse when they are
 * (20 rounds, 3x slower, serially correlated), its estimate between the
 * smallest and largest estimate it summarises (random effects and noise),
 * and never better or worse when every comparison under it is unbounded
 * (each benchmark measured in a third of 18 rounds: 6 pairs, too few at
 * the family's level, while the mean's 18 rounds would be enough).
 */
static void
test_geo_like_rows(void **state)
{
	static const double	 slow3[] = { 2, 2, 2 };
	struct dataset		*ds;
	struct analysis		*a;
	const struct rep_geo	*geo;
	struct rng		 r;
	char			*dir, *cause = NULL;
	double			 eff[3], lo, hi;
	size_t			 t, b;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("gate"));
	gen_geo(dir, 20, slow3, 0, 3);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	assert_non_null(geo = analysis_geo(a, 0, 1));
	assert_int_equal(geo->nused, 3);
	assert_int_equal(geo->verdict, VERDICT_WORSE);
	assert_true(geo->lo > 1 && isfinite(geo->hi));
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);

	rng_seed(&r, 4);
	for (t = 0; t < 12; t++) {
		for (b = 0; b < 3; b++)
			eff[b] = 0.2 * synth_gauss(&r) * (t % 2 ? 1 : 0.1);
		assert_non_null(dir = synth_tmpdir_new("gate"));
		gen_geo(dir, 10 + 3 * (uint32_t)t, eff, 0, 100 + t);
		if (synth_load(dir, &ds, &a, &cause) != 0)
			fail_msg("%s", cause);
		assert_non_null(geo = analysis_geo(a, 0, 1));
		lo = INFINITY;
		hi = -INFINITY;
		for (b = 0; b < 3; b++) {
			lo = fmin(lo, cmp(a, b, 1)->ratio);
			hi = fmax(hi, cmp(a, b, 1)->ratio);
		}
		if (!(geo->est >= lo * (1 - 1e-12) &&
		    geo->est <= hi * (1 + 1e-12)))
			fail_msg("run %zu: geomean %g outside [%g, %g]", t,
			    geo->est, lo, hi);
		assert_true(geo->lo <= geo->est && geo->est <= geo->hi);
		analysis_free(a);
		dataset_free(ds);
		synth_tmpdir_free(dir);
	}

	/* A mean of two whose per-round mean lies below both rows. */
	assert_non_null(dir = synth_tmpdir_new("gate"));
	gen_geo(dir, 12, NULL, 0, 6);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	assert_non_null(geo = analysis_geo(a, 0, 1));
	assert_int_equal(geo->nused, 2);
	for (b = 0; b < 2; b++)
		expect_near("row", cmp(a, b, 1)->ratio, sqrt(2));
	expect_near("geomean", geo->est, sqrt(2));
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);

	assert_non_null(dir = synth_tmpdir_new("gate"));
	gen_geo(dir, 18, slow3, 1, 5);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	for (b = 0; b < 3; b++) {
		assert_int_equal(cmp(a, b, 1)->npairs, 6);
		assert_false(cmp(a, b, 1)->lo > 0 &&
		    isfinite(cmp(a, b, 1)->hi));
	}
	assert_non_null(geo = analysis_geo(a, 0, 1));
	assert_int_equal(geo->nused, 3);
	assert_int_equal(geo->verdict, VERDICT_INCONCLUSIVE);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/*
 * Writes a record of 20 rounds of variants A and B on benches "crashy"
 * and "edge" (elapsed_ns, the same for both, seeded noise): B's run of
 * crashy was killed by a signal and good on its retry in 6 rounds (30%),
 * of edge in 2 (10%, not more).
 */
static void
gen_retry(const char *dir)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL;
	uint32_t		 round, seq = 0;
	size_t			 b, v;
	double			 e;
	int			 retried;

	assert_int_equal(synth_suite(&ss, "retry", 2, 2, 20, 1), 0);
	snprintf(ss.bs[0].name, sizeof ss.bs[0].name, "crashy");
	snprintf(ss.bs[1].name, sizeof ss.bs[1].name, "edge");
	synth_host(&h, "h", "x86_64", "Synthetic", 2);
	rng_seed(&r, 5);
	if (synth_open(&rec, dir, "20260101-000000-retry", &ss.s,
	    "orch run retry.ini", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	for (round = 1; round <= 20; round++) {
		for (b = 0; b < 2; b++) {
			for (v = 0; v < 2; v++) {
				retried = v == 1 && (b == 0 ?
				    round % 10 == 1 || round % 10 == 4 ||
				    round % 10 == 7 : round % 10 == 5);
				e = 1e6 * (1 + 0.02 * synth_gauss(&r));
				if (retried) {
					synth_elapsed(&smp, seq++, round, 1000,
					    e);
					smp.status = PROTO_ST_SIGNAL;
					smp.signal = 11;
					smp.nmetrics = 0;
					assert_int_equal(record_sample(&rec,
					    "h", ss.bs[b].name,
					    ss.vars[v].name, &smp), 0);
				}
				synth_elapsed(&smp, seq++, round, 1000000, e);
				smp.attempt = retried ? 2 : 1;
				assert_int_equal(record_sample(&rec, "h",
				    ss.bs[b].name, ss.vars[v].name, &smp), 0);
			}
		}
	}
	assert_int_equal(synth_close(&rec, &h, 1), 0);
}

/*
 * A variant retried in more than 10% of its runs hides a crash rate: it
 * is counted and flagged, on the terminal and in report.md, and
 * --fail-on=invalid trips on it (not --fail-on=worse); 10% exactly is not
 * flagged.
 */
static void
test_retry_rate(void **state)
{
	struct dataset		*ds;
	struct analysis		*a;
	const struct rep_result	*res;
	char			*dir, *cause = NULL, *lines, *buf = NULL;
	size_t			 n, len = 0;
	FILE			*f;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("retry"));
	gen_retry(dir);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	assert_non_null(res = analysis_result(a, 0, 0, 0, 1));
	assert_int_equal(res->runs, 20);
	assert_int_equal(res->runs_retried, 6);
	assert_int_equal(res->failed, 0);
	assert_true(res->retry_flag);
	assert_non_null(res = analysis_result(a, 0, 1, 0, 1));
	assert_int_equal(res->runs_retried, 2);
	assert_false(res->retry_flag);
	assert_false(analysis_result(a, 0, 0, 0, 0)->retry_flag);
	/* Its ratio itself is no failure: it is the retries that are. */
	assert_int_not_equal(analysis_cmp(a, 0, 0, 0, 1)->verdict,
	    VERDICT_INVALID);

	assert_int_equal(gate_check(a, GATE_INVALID, &n, &lines), 0);
	assert_int_equal(n, 1);
	expect_in("gate", lines, "orch: --fail-on: h crashy: B retried in 6 of "
	    "20 runs (30%, over 10%): a crash rate its ratio hides");
	assert_null(strstr(lines, "edge"));
	free(lines);
	assert_int_equal(gate_check(a, GATE_WORSE, &n, &lines), 0);
	assert_int_equal(n, 0);
	free(lines);

	assert_non_null(f = open_memstream(&buf, &len));
	report_answer_text(a, f);
	fclose(f);
	expect_in("terminal", buf, "retried in more than 10% of its runs (a "
	    "crash rate the ratio hides):\n  h  crashy/B: 6 of 20 runs "
	    "retried (30%)\n");
	assert_null(strstr(buf, "edge/B: 2 of"));
	free(buf);
	buf = NULL;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(report_md(a, f), 0);
	fclose(f);
	expect_in("report.md", buf, "> **Retried in more than 10% of its "
	    "runs:** B, 6 of 20 runs (30%)");
	free(buf);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/* The list: words, commas, any, and what it refuses. */
static void
test_gate_parse(void **state)
{
	static const struct {
		const char	*list;
		int		 want;	/* -1: refused */
	} cases[] = {
		{ "worse", GATE_WORSE },
		{ "invalid", GATE_INVALID },
		{ "inconclusive", GATE_INCONCLUSIVE },
		{ "worse,invalid", GATE_WORSE | GATE_INVALID },
		{ "inconclusive,worse", GATE_WORSE | GATE_INCONCLUSIVE },
		{ "any", GATE_ANY },
		{ "worse,any", GATE_ANY },
		{ "", -1 },
		{ "better", -1 },
		{ "worse,", -1 },
		{ ",worse", -1 },
		{ "worse,,invalid", -1 },
		{ "Worse", -1 },
		{ "worse invalid", -1 },
	};
	char	*cause;
	size_t	 i;
	int	 mask, r;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mask = 0;
		cause = NULL;
		r = gate_parse(cases[i].list, &mask, &cause);
		if (cases[i].want < 0) {
			if (r == 0)
				fail_msg("'%s' accepted", cases[i].list);
			expect_in(cases[i].list, cause, "--fail-on");
			expect_in(cases[i].list, cause, "worse, invalid, "
			    "inconclusive");
			free(cause);
			continue;
		}
		if (r != 0)
			fail_msg("'%s': %s", cases[i].list, cause);
		assert_int_equal(mask, cases[i].want);
	}
	/* The word refused is named. */
	mask = 0;
	assert_int_equal(gate_parse("worse,bogus", &mask, &cause), -1);
	expect_in("bogus", cause, "'bogus'");
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalids),
		cmocka_unit_test(test_gate_lines),
		cmocka_unit_test(test_gate_parse),
		cmocka_unit_test(test_serial_report),
		cmocka_unit_test(test_slow3_worse),
		cmocka_unit_test(test_geo_like_rows),
		cmocka_unit_test(test_retry_rate),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
