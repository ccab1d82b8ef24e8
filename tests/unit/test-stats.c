/*
 * Unit tests for coordinator/analysis/stats.c. Quantiles, summaries and Wilcoxon
 * p-values are checked against numbers R computed (fixtures/stats/, see its
 * README); bootstrap and verdict cases are constructed here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "coordinator/analysis/rng.h"
#include "coordinator/analysis/stats.h"
#include "tests/unit/fixtures/stats/fixtures.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* Fails unless got is within rel (relative) of want; equal infinities pass. */
static void
check_close(const char *what, double got, double want, double rel)
{
	double	err;

	if (got == want)
		return;
	err = fabs(got - want) / fmax(fabs(want), 1e-300);
	if (!(err <= rel))
		fail_msg("%s: got %.17g, want %.17g (relative error %.3g > %.3g)",
		    what, got, want, err, rel);
}

/* A uniform double in (0, 1). */
static double
uniform(struct rng *r)
{
	return (((double)(rng_next(r) >> 11) + 0.5) * 0x1p-53);
}

/* A standard normal deviate (Box-Muller). */
static double
normal(struct rng *r)
{
	double	u1 = uniform(r), u2 = uniform(r);

	return (sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2));
}

/* ---- quantiles and summaries against R ---------------------------------- */

static int
cmp_double(const void *pa, const void *pb)
{
	double	a = *(const double *)pa, b = *(const double *)pb;

	return ((a > b) - (a < b));
}

static void
test_summary_fixture(void **state)
{
	const struct fx_summary	*fx = *state;
	struct stats_summary	 s;
	double			*sorted, *copy;
	char			 what[64];
	size_t			 i;

	sorted = malloc(fx->n * sizeof *sorted);
	copy = malloc(fx->n * sizeof *copy);
	assert_non_null(sorted);
	assert_non_null(copy);
	memcpy(sorted, fx->x, fx->n * sizeof *sorted);
	memcpy(copy, fx->x, fx->n * sizeof *copy);
	qsort(sorted, fx->n, sizeof *sorted, cmp_double);

	for (i = 0; i < FX_NPROBS; i++) {
		snprintf(what, sizeof what, "%s quantile(%g)", fx->name,
		    fx_probs[i]);
		check_close(what, stats_quantile(sorted, fx->n, fx_probs[i]),
		    fx->q[i], 1e-14);
	}

	assert_int_equal(stats_summarize(fx->x, fx->n, &s), 0);
	assert_int_equal(s.n, fx->n);
	check_close("median", s.median, fx->median, 1e-15);
	check_close("min", s.min, fx->min, 0);
	check_close("max", s.max, fx->max, 0);
	check_close("mean", s.mean, fx->mean, 1e-14);
	check_close("q1", s.q1, fx->q1, 1e-14);
	check_close("q3", s.q3, fx->q3, 1e-14);
	check_close("iqr_pct", s.iqr_pct, fx->iqr_pct, 1e-12);
	check_close("cv", s.cv, fx->cv, 1e-12);

	check_close("stats_median", stats_median(fx->x, fx->n), fx->median,
	    1e-15);
	/* stats_median works on a copy. */
	assert_memory_equal(copy, fx->x, fx->n * sizeof *copy);
	free(sorted);
	free(copy);
}

static void
test_quantile_edges(void **state)
{
	const double	x[] = { 1, 2, 4, 8 };

	(void)state;
	assert_true(isnan(stats_quantile(x, 0, 0.5)));
	assert_true(isnan(stats_quantile(x, 4, NAN)));
	assert_true(stats_quantile(x, 4, -0.5) == 1);
	assert_true(stats_quantile(x, 4, 1.5) == 8);
	assert_true(stats_quantile(x, 1, 0.3) == 1);
	/* (n - 1) * q = 1.5: halfway between 2 and 4. */
	assert_true(stats_quantile(x, 4, 0.5) == 3);
}

static void
test_summary_empty(void **state)
{
	struct stats_summary	s;
	const double		x[] = { 5 };

	(void)state;
	memset(&s, 0xa5, sizeof s);
	assert_int_equal(stats_summarize(x, 0, &s), 0);
	assert_int_equal(s.n, 0);
	assert_true(s.median == 0 && s.min == 0 && s.max == 0 &&
	    s.mean == 0 && s.q1 == 0 && s.q3 == 0 && s.iqr_pct == 0 &&
	    s.cv == 0);
	assert_true(isnan(stats_median(x, 0)));
}

static void
test_summary_zero_median(void **state)
{
	struct stats_summary	s;
	const double		x[] = { -1, 0, 1 };

	(void)state;
	assert_int_equal(stats_summarize(x, NELEM(x), &s), 0);
	assert_true(s.median == 0);
	assert_true(s.iqr_pct == 0);	/* no division by a zero median */
	assert_true(s.cv == 0);		/* nor by a zero mean */
}

static void
test_median_duplicates(void **state)
{
	double	x[1000];
	size_t	i;

	(void)state;
	/* Many equal values, reversed order: the selection stays correct. */
	for (i = 0; i < NELEM(x); i++)
		x[i] = (double)((NELEM(x) - 1 - i) / 100);
	assert_true(stats_median(x, NELEM(x)) == 4.5);
	assert_true(stats_median(x, NELEM(x) - 1) == 5);
}

/* ---- Wilcoxon signed-rank p-values against R ---------------------------- */

static void
test_wilcoxon_fixture(void **state)
{
	const struct fx_wilcoxon	*fx = *state;

	check_close(fx->name, stats_wilcoxon_p(fx->d, fx->n), fx->p,
	    fx->exact ? 1e-9 : 1e-6);
}

static void
test_wilcoxon_edges(void **state)
{
	const double	zeros[] = { 0, 0, -0.0 };
	const double	with_nan[] = { 1.5, NAN, -0.25, 2, 3, 0.75 };
	const double	no_nan[] = { 1.5, -0.25, 2, 3, 0.75 };

	(void)state;
	assert_true(stats_wilcoxon_p(zeros, 0) == 1.0);
	assert_true(stats_wilcoxon_p(zeros, NELEM(zeros)) == 1.0);
	/* Missing differences are dropped, as R's na handling does. */
	assert_true(stats_wilcoxon_p(with_nan, NELEM(with_nan)) ==
	    stats_wilcoxon_p(no_nan, NELEM(no_nan)));
	/* n = 5, V = 14 of 15: 2 * P(V >= 14) = 2 * 2 / 32. */
	check_close("n5 v14", stats_wilcoxon_p(no_nan, NELEM(no_nan)),
	    0.125, 1e-15);
}

/* ---- bootstrap of the median -------------------------------------------- */

static void
test_boot_deterministic(void **state)
{
	double	x[30], lo1, hi1, lo2, hi2, lo3, hi3;
	struct rng r;
	size_t	i;
	int	differs = 0;
	uint64_t seed;

	(void)state;
	rng_seed(&r, 7);
	for (i = 0; i < NELEM(x); i++)
		x[i] = exp(0.1 * normal(&r));
	assert_int_equal(stats_boot_median(x, NELEM(x), 42, 0.95, &lo1, &hi1),
	    0);
	assert_int_equal(stats_boot_median(x, NELEM(x), 42, 0.95, &lo2, &hi2),
	    0);
	assert_true(lo1 == lo2 && hi1 == hi2);
	/* Another seed generally moves at least one end. */
	for (seed = 43; seed < 48; seed++) {
		assert_int_equal(stats_boot_median(x, NELEM(x), seed, 0.95,
		    &lo3, &hi3), 0);
		if (lo3 != lo1 || hi3 != hi1)
			differs++;
	}
	assert_true(differs >= 3);
}

static void
test_boot_contains_median(void **state)
{
	double		x[25], lo, hi, med;
	struct rng	r;
	size_t		i, n;

	(void)state;
	rng_seed(&r, 11);
	for (n = 2; n <= NELEM(x); n += 7) {
		for (i = 0; i < n; i++)
			x[i] = 1.02 * exp(0.05 * normal(&r));
		med = stats_median(x, n);
		assert_int_equal(stats_boot_median(x, n, n, 0.95, &lo, &hi),
		    0);
		assert_true(lo <= med && med <= hi);
		assert_true(lo < hi);
	}
}

static void
test_boot_constant(void **state)
{
	const double	x[] = { 1.25, 1.25, 1.25, 1.25, 1.25, 1.25 };
	double		lo, hi;

	(void)state;
	assert_int_equal(stats_boot_median(x, NELEM(x), 1, 0.95, &lo, &hi),
	    0);
	assert_true(lo == 1.25 && hi == 1.25);
	assert_int_equal(stats_boot_median(x, 1, 1, 0.95, &lo, &hi), 0);
	assert_true(lo == 1.25 && hi == 1.25);
}

static void
test_boot_errors(void **state)
{
	const double	x[] = { 1, 2, 3 };
	double		lo = 0, hi = 0;

	(void)state;
	assert_int_equal(stats_boot_median(x, 0, 1, 0.95, &lo, &hi), -1);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(stats_boot_median(x, 3, 1, 1.0, &lo, &hi), -1);
	assert_int_equal(stats_boot_median(x, 3, 1, NAN, &lo, &hi), -1);
	assert_int_equal(stats_boot_median_n(x, 3, 1, 0.9, 0, &lo, &hi), -1);
}

/*
 * Coverage sanity, not a tuning target: a percentile bootstrap of a median
 * from 20 values covers roughly its nominal 95% (the interval is made of
 * a few order statistics, so it runs a little over or under). 200 samples
 * of log-normal ratios with median 1.05; the binomial sd at 95% is 1.5
 * points, so [85%, 99%] fails only when the method is wrong.
 */
static void
test_boot_coverage(void **state)
{
	double		x[20], lo, hi;
	struct rng	r;
	size_t		s, i, covered = 0, nsamples = 200;

	(void)state;
	rng_seed(&r, 2024);
	for (s = 0; s < nsamples; s++) {
		for (i = 0; i < NELEM(x); i++)
			x[i] = 1.05 * exp(0.04 * normal(&r));
		/* 1000 resamples keep this fast under valgrind. */
		assert_int_equal(stats_boot_median_n(x, NELEM(x), s, 0.95,
		    1000, &lo, &hi), 0);
		if (lo <= 1.05 && 1.05 <= hi)
			covered++;
	}
	print_message("coverage %zu/%zu\n", covered, nsamples);
	assert_true(covered >= 170 && covered <= 198);
}

/* 1000 ratios, STATS_BOOT_N resamples: the size of a long run. */
static void
test_boot_large(void **state)
{
	double		*x, lo, hi, med, secs;
	struct rng	 r;
	clock_t		 t0;
	size_t		 i, n = 1000;

	(void)state;
	x = malloc(n * sizeof *x);
	assert_non_null(x);
	rng_seed(&r, 99);
	for (i = 0; i < n; i++)
		x[i] = 0.97 * exp(0.1 * normal(&r));
	t0 = clock();
	assert_int_equal(stats_boot_median(x, n, 5, 0.95, &lo, &hi), 0);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	med = stats_median(x, n);
	print_message("boot 1000 x %d: %.3f s CPU\n", STATS_BOOT_N, secs);
	assert_true(lo <= med && med <= hi);
	/* The interval of a median of 1000 with 10% noise is about +/-0.8%. */
	assert_true(hi - lo > 0.002 && hi - lo < 0.03);
	/* Timing means nothing under valgrind or sanitizers (set by
	 * tests/run-unit.sh for valgrind); elsewhere it is a budget. */
	if (getenv("VALGRIND") == NULL && getenv("ORCH_NO_TIMING") == NULL)
		assert_true(secs < 2.0);
	free(x);
}

/* ---- sorting ----------------------------------------------------------- */

/* stats_sort orders as qsort does, NANs last, on awkward inputs. */
static void
test_sort(void **state)
{
	static const size_t	 sizes[] = { 0, 1, 2, 3, 16, 17, 100, 1000, 5000 };
	double			*x, *y;
	struct rng		 r;
	size_t			 i, k, m, n, shape;

	(void)state;
	rng_seed(&r, 9);
	for (k = 0; k < NELEM(sizes); k++) {
		n = sizes[k];
		x = calloc(n + 1, sizeof *x);
		y = calloc(n + 1, sizeof *y);
		assert_true(x != NULL && y != NULL);
		for (shape = 0; shape < 6; shape++) {
			for (i = 0; i < n; i++) {
				switch (shape) {
				case 0:	x[i] = normal(&r); break;
				case 1:	x[i] = (double)i; break;
				case 2:	x[i] = (double)(n - i); break;
				case 3:	x[i] = (double)rng_below(&r, 3); break;
				case 4:	x[i] = 7; break;
				default:	/* organ pipe, with NANs */
					x[i] = i % 5 == 0 ? NAN : (double)(i <
					    n / 2 ? i : n - i);
				}
			}
			/* The reference: the numbers sorted, then the NANs. */
			for (i = 0, m = 0; i < n; i++)
				if (!isnan(x[i]))
					y[m++] = x[i];
			qsort(y, m, sizeof *y, cmp_double);
			stats_sort(x, n);
			for (i = 0; i < n; i++) {
				if (i < m && x[i] != y[i])
					fail_msg("n %zu shape %zu: [%zu] %g, "
					    "want %g", n, shape, i, x[i], y[i]);
				if (i >= m && !isnan(x[i]))
					fail_msg("n %zu shape %zu: [%zu] %g, "
					    "want NAN", n, shape, i, x[i]);
			}
		}
		free(x);
		free(y);
	}
}

/* ---- verdicts ----------------------------------------------------------- */

struct verdict_case {
	const char		*name;
	double			 ratio, lo, hi, min_effect;
	int			 higher_better;
	size_t			 npairs;
	int			 checksum_ok;
	enum stats_verdict	 want;
};

static const struct verdict_case verdict_cases[] = {
	{ "clear_better", 0.90, 0.88, 0.92, 0.01, 0, 20, 1, VERDICT_BETTER },
	{ "clear_worse", 1.10, 1.08, 1.12, 0.01, 0, 20, 1, VERDICT_WORSE },
	{ "same_inside_min_effect", 1.002, 0.995, 1.008, 0.01, 0, 20, 1,
	    VERDICT_SAME },
	{ "same_excluding_1", 1.004, 1.002, 1.006, 0.01, 0, 20, 1,
	    VERDICT_SAME },
	{ "straddles_1", 0.97, 0.90, 1.05, 0.01, 0, 20, 1,
	    VERDICT_INCONCLUSIVE },
	{ "excludes_1_estimate_within", 0.995, 0.985, 0.998, 0.01, 0, 20, 1,
	    VERDICT_INCONCLUSIVE },
	{ "estimate_beyond_interval_touches_1", 0.95, 0.90, 1.0, 0.01, 0, 20,
	    1, VERDICT_INCONCLUSIVE },
	{ "checksum_mismatch", 0.90, 0.88, 0.92, 0.01, 0, 20, 0,
	    VERDICT_INVALID },
	{ "four_pairs", 0.90, 0.88, 0.92, 0.01, 0, 4, 1, VERDICT_INVALID },
	{ "five_pairs", 0.90, 0.88, 0.92, 0.01, 0, 5, 1, VERDICT_BETTER },
	{ "higher_better_lower_ratio", 0.90, 0.88, 0.92, 0.01, 1, 20, 1,
	    VERDICT_WORSE },
	{ "higher_better_higher_ratio", 1.10, 1.08, 1.12, 0.01, 1, 20, 1,
	    VERDICT_BETTER },
	{ "zero_min_effect", 0.999, 0.998, 0.9995, 0, 0, 20, 1,
	    VERDICT_BETTER },
	{ "nan_ratio", NAN, 0.88, 0.92, 0.01, 0, 20, 1,
	    VERDICT_INCONCLUSIVE },
	{ "nan_interval", 0.90, NAN, NAN, 0.01, 0, 20, 1,
	    VERDICT_INCONCLUSIVE },
	{ "nan_and_few_pairs", NAN, NAN, NAN, 0.01, 0, 3, 1, VERDICT_INVALID },
};

static void
test_verdict_case(void **state)
{
	const struct verdict_case	*c = *state;
	enum stats_verdict		 got;

	got = stats_verdict(c->ratio, c->lo, c->hi, c->min_effect,
	    c->higher_better, c->npairs, c->checksum_ok);
	if (got != c->want)
		fail_msg("%s: got %s, want %s", c->name,
		    stats_verdict_name(got), stats_verdict_name(c->want));
}

static void
test_verdict_names(void **state)
{
	(void)state;
	assert_string_equal(stats_verdict_name(VERDICT_BETTER), "better");
	assert_string_equal(stats_verdict_name(VERDICT_WORSE), "worse");
	assert_string_equal(stats_verdict_name(VERDICT_SAME), "same");
	assert_string_equal(stats_verdict_name(VERDICT_INCONCLUSIVE),
	    "inconclusive");
	assert_string_equal(stats_verdict_name(VERDICT_INVALID), "invalid");
}

/* ---- one procedure: estimate, interval and p (stats_compare) ------------ */

/*
 * The untied fixtures: stats_compare's p is R's wilcox.test p (exact below
 * 50 differences, normal with continuity correction from 50 on).
 */
static void
test_compare_fixture(void **state)
{
	const struct fx_wilcoxon	*fx = *state;
	struct stats_cmp		 c;


	/* Independent rounds: the p of the test as R has it. */
	assert_int_equal(stats_compare_serial(fx->d, fx->n, 0.05, 0.01, 0,
	    100000, &c), 0);
	check_close(fx->name, c.p, fx->p, 1e-9);
}

/*
 * Whether a fixture has zeros or tied |d|: those count half here (a Walsh
 * average equal to the shift), where R drops zeros and corrects the
 * variance, so its p is not this test's (test_compare_ties has theirs).
 */
static int
fx_tied(const struct fx_wilcoxon *fx)
{
	size_t	i, j;

	for (i = 0; i < fx->n; i++) {
		if (fx->d[i] == 0)
			return (1);
		for (j = 0; j < i; j++)
			if (fabs(fx->d[i]) == fabs(fx->d[j]))
				return (1);
	}
	return (0);
}

/* Tied data: constant ratios, exactly. */
static void
test_compare_ties(void **state)
{
	struct stats_cmp	c;
	double			d[8];
	size_t			i;

	(void)state;
	/* No change at all: p 1, the interval the point 0. */
	for (i = 0; i < 8; i++)
		d[i] = 0;
	assert_int_equal(stats_compare(d, 8, 0.05, 0.01, &c), 0);
	check_close("zeros p", c.p, 1, 0);
	assert_true(c.est == 0 && c.lo == 0 && c.hi == 0);
	assert_int_equal(stats_verdict_test(&c, 0.05, 0.01, 0), VERDICT_SAME);
	/* A constant 10%: the smallest p of 6 rounds, the point interval. */
	for (i = 0; i < 6; i++)
		d[i] = 0.1;
	assert_int_equal(stats_compare(d, 6, 0.05, 0.01, &c), 0);
	check_close("const p", c.p, 2.0 / 64, 1e-12);
	check_close("const lo", c.lo, 0.1, 1e-12);
	check_close("const hi", c.hi, 0.1, 1e-12);
	assert_int_equal(stats_verdict_test(&c, 0.05, 0.01, 0),
	    VERDICT_WORSE);
	/* Half zeros, half 0.1: the zeros' Walsh averages count half. */
	for (i = 0; i < 8; i++)
		d[i] = i % 2 ? 0.1 : 0;
	assert_int_equal(stats_compare(d, 8, 0.05, 0.01, &c), 0);
	check_close("half est", c.est, 0.05, 1e-12);
	assert_true(c.p > 0.05 && c.lo <= 0 && c.hi >= 0.1);
}

static int
dbl_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/*
 * R's wilcox.test(d, conf.int = TRUE) for n < 50 untied differences, by
 * brute force: every Walsh average sorted, the signed-rank distribution by
 * enumeration, qu = qsignrank(alpha / 2, n) (1 when 0), the interval
 * [W(qu), W(N - qu + 1)] and the estimate their median. Written apart
 * from stats.c on purpose.
 */
static void
brute_r(const double *d, size_t n, double alpha, double *est, double *lo,
    double *hi, double *p)
{
	size_t	 N = n * (n + 1) / 2, i, j, k = 0, qu, v = 0;
	double	*w = calloc(N, sizeof *w), *cnt = calloc(N + 1, sizeof *cnt);
	double	 cum, tail;

	assert_non_null(w);
	assert_non_null(cnt);
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2;
	qsort(w, N, sizeof *w, dbl_cmp);
	*est = N % 2 ? w[N / 2] : (w[N / 2 - 1] + w[N / 2]) / 2;
	cnt[0] = 1;
	for (j = 1; j <= n; j++)
		for (k = N; k >= j; k--)
			cnt[k] += cnt[k - j];
	for (k = 0; k <= N; k++)
		cnt[k] /= ldexp(1, (int)n);
	/* qsignrank: the smallest q with P(V <= q) >= alpha / 2. */
	for (cum = 0, qu = 0; qu <= N; qu++) {
		cum += cnt[qu];
		if (cum >= alpha / 2 - 1e-12)
			break;
	}
	if (qu == 0)
		qu = 1;
	*lo = w[qu - 1];
	*hi = w[N - qu];
	for (k = 0; k < N; k++)
		v += w[k] > 0;
	/* Two-sided p: both tails beyond |V - N/2|. */
	for (tail = 0, k = 0; k <= N; k++) {
		if (fabs((double)k - (double)N / 2) >=
		    fabs((double)v - (double)N / 2) - 1e-9)
			tail += cnt[k];
	}
	*p = fmin(1, tail);
	free(w);
	free(cnt);
}

/* Random untied data against the brute force, at 5% and a family's level. */
static void
test_compare_brute(void **state)
{
	static const double	alphas[] = { 0.05, 0.01, 0.05 / 20 };
	struct rng		r;
	struct stats_cmp	c;
	double			d[49], est, lo, hi, p, me = 0.01;
	size_t			n, i, a, t;

	(void)state;
	rng_seed(&r, 77);
	for (t = 0; t < 120; t++) {
		n = 9 + t % 40;
		for (i = 0; i < n; i++)
			d[i] = 0.05 * (uniform(&r) - 0.5 + 0.02 * (double)(t % 5));
		for (a = 0; a < NELEM(alphas); a++) {
			/* Rounds known independent: R's test, unwidened. */
			assert_int_equal(stats_compare_serial(d, n, alphas[a],
			    me, 0, 100000, &c), 0);
			brute_r(d, n, alphas[a], &est, &lo, &hi, &p);
			check_close("estimate", c.est, est, 1e-12);
			check_close("p", c.p, p, 1e-9);
			if (stats_min_p(n) > alphas[a]) {
				/* R warns and returns [W(1), W(N)]; no shift
				 * can be rejected: unbounded. */
				assert_true(isinf(c.lo) && isinf(c.hi));
				continue;
			}
			check_close("lo", c.lo, lo, 1e-12);
			check_close("hi", c.hi, hi, 1e-12);
		}
	}
}

/*
 * Past 16384 Walsh averages (n >= 181) the k-th is found by a bisection
 * and then a list: the estimate is still the median of every Walsh
 * average, for spread values, for few distinct ones (many sums equal),
 * and for a sample nine tenths 0 (more equal sums than are listed).
 */
static void
test_walsh_large(void **state)
{
	static const double	few[] = { -0.02, 0.01, 0.03, 0.04 };
	struct rng		r;
	struct stats_cmp	c;
	double			*d, *w, want;
	size_t			n = 420, N = n * (n + 1) / 2, i, j, k, t;

	(void)state;
	d = calloc(n, sizeof *d);
	w = calloc(N, sizeof *w);
	assert_non_null(d);
	assert_non_null(w);
	rng_seed(&r, 5);
	for (t = 0; t < 3; t++) {
		for (i = 0; i < n; i++)
			d[i] = t == 0 ? 0.05 * (uniform(&r) - 0.4) : t == 1 ?
			    few[rng_next(&r) % 4] : (i % 10 ? 0 : 0.02);
		for (i = k = 0; i < n; i++)
			for (j = i; j < n; j++)
				w[k++] = (d[i] + d[j]) / 2;
		qsort(w, N, sizeof *w, dbl_cmp);
		want = N % 2 ? w[N / 2] : (w[N / 2 - 1] + w[N / 2]) / 2;
		assert_int_equal(stats_compare_serial(d, n, 0.05, 0.01, 0,
		    100000, &c), 0);
		check_close("estimate", c.est, want, 1e-12);
		assert_true(c.lo <= c.est && c.est <= c.hi);
	}
	free(d);
	free(w);
}

/*
 * Interval and p are one procedure: 0 outside [lo, hi] exactly when
 * p <= alpha, for exact and normal sizes, with and without widening.
 */
static void
test_compare_consistent(void **state)
{
	static const double	alphas[] = { 0.05, 0.01, 0.0025, 0.0005 };
	struct rng		r;
	struct stats_cmp	c;
	double			d[120], x = 0;
	size_t			n, i, a, t, nsig = 0, nwide = 0;

	(void)state;
	rng_seed(&r, 78);
	for (t = 0; t < 400; t++) {
		n = 8 + t % 112;
		for (i = 0; i < n; i++) {
			/* Some series serially correlated, some shifted. */
			x = (t % 3 == 0 ? 0.8 * x : 0) + (uniform(&r) - 0.5);
			d[i] = 0.03 * x + 0.004 * (double)(t % 4);
		}
		for (a = 0; a < NELEM(alphas); a++) {
			assert_int_equal(stats_compare(d, n, alphas[a], 0.01,
			    &c), 0);
			if ((c.p <= alphas[a]) != (c.lo > 0 || c.hi < 0))
				fail_msg("n %zu alpha %g: p %.6g, interval "
				    "[%.6g, %.6g]", n, alphas[a], c.p, c.lo,
				    c.hi);
			if (!(c.lo <= c.est && c.est <= c.hi))
				fail_msg("estimate outside its interval");
			nsig += c.p <= alphas[a];
			nwide += c.widen > 1;
		}
	}
	/* Both outcomes and the widening were exercised. */
	assert_true(nsig > 100 && nsig < 1500);
	assert_true(nwide > 50);
}

/* Lag-1 autocorrelation and when it widens. */
static void
test_compare_serial(void **state)
{
	static const double	ramp[] = { 1, 2, 3, 4, 5 };
	struct rng		r;
	struct stats_cmp	c;
	double			d[40], x = 0;
	size_t			i;

	(void)state;
	/* mean 3: (2 + 0 + 0 + 2) / 10 */
	check_close("lag1 ramp", stats_lag1(ramp, 5), 0.4, 1e-12);
	assert_true(isnan(stats_lag1(ramp, 2)));
	/* Constant but for rounding: no correlation to speak of. */
	for (i = 0; i < 40; i++)
		d[i] = log(1.1) * (1 + 1e-15 * (double)(i % 2));
	assert_true(isnan(stats_lag1(d, 40)));
	/* A strongly correlated series widens, and says so. */
	rng_seed(&r, 5);
	for (i = 0; i < 40; i++) {
		x = 0.9 * x + (uniform(&r) - 0.5);
		d[i] = 0.02 * x;
	}
	assert_int_equal(stats_compare(d, 40, 0.05, 0.01, &c), 0);
	assert_true(c.r1 > 0.5);
	assert_true(c.widen > 2);
	/* Too short a series never does. */
	assert_int_equal(stats_compare(d, 12, 0.05, 0.01, &c), 0);
	assert_true(c.widen == 1);
	/* A pooled estimate overrides the series' own. */
	assert_int_equal(stats_compare_serial(d, 40, 0.05, 0.01, 0.0, 400,
	    &c), 0);
	assert_true(c.widen == 1);
	assert_int_equal(stats_compare_serial(d, 12, 0.05, 0.01, 0.5, 400,
	    &c), 0);
	assert_true(c.widen > 2);
}

/*
 * Student's t quantiles (R's qt), and the shift-t adjustment: 20 rounds
 * all saying 3x slower are worse at any pooled serial correlation and any
 * family up to 22, with a finite interval whose p agrees with it, scaled
 * by sqrt(w) t_{n/w-1} / t_{n-1}.
 */
static void
test_compare_shift_t(void **state)
{
	static const double	rs[] = { 0, 0.3, 0.5, 0.7, 0.9, 0.99 };
	struct stats_cmp	c;
	struct rng		r;
	double			d[20], x = 0, alpha;
	size_t			i, a, m;

	(void)state;
	check_close("t 1", stats_qt_upper(0.025, 1), 12.7062047361747, 1e-9);
	check_close("t 10", stats_qt_upper(0.025, 10), 2.22813885198627,
	    1e-9);
	check_close("t 2.5", stats_qt_upper(0.005, 2.5), 7.16372813894879,
	    1e-7);
	check_close("t 1000", stats_qt_upper(0.025, 1000), 1.96233908082641,
	    1e-9);
	assert_true(isnan(stats_qt_upper(0.6, 3)));
	rng_seed(&r, 21);
	for (i = 0; i < 20; i++) {
		x = 0.9 * x + (uniform(&r) - 0.5);
		d[i] = log(3) + 0.05 * x;
	}
	for (m = 1; m <= 22; m++) {
		alpha = 0.05 / (double)m;
		for (a = 0; a < sizeof rs / sizeof rs[0]; a++) {
			assert_int_equal(stats_compare_serial(d, 20, alpha,
			    0.01, rs[a], 200, &c), 0);
			assert_true(isfinite(c.lo) && isfinite(c.hi));
			assert_true(c.lo > 0 && c.p <= alpha);
			assert_int_equal(stats_verdict_test(&c, alpha, 0.01,
			    0), VERDICT_WORSE);
			assert_true(c.widen == 1 ? c.scale == 1 :
			    c.scale > sqrt(c.widen));
			/* The exact interval of 20 rounds already pays
			 * for 19 degrees of freedom: c charges n/w - 1
			 * against them, so c is 1 as w comes down to 1. */
			if (c.widen > 1)
				check_close("shift-t c", c.scale,
				    sqrt(c.widen) * stats_qt_upper(alpha / 2,
				    fmax(20 / c.widen - 1, 2)) /
				    stats_qt_upper(alpha / 2, 19), 1e-9);
		}
	}
}

/* The smallest p, the unbounded interval and the detectable effect. */
static void
test_compare_power(void **state)
{
	struct stats_cmp	c;
	struct rng		r;
	double			d[30];
	size_t			i;

	(void)state;
	check_close("min p 10", stats_min_p(10), 2.0 / 1024, 1e-12);
	check_close("min p 5", stats_min_p(5), 2.0 / 32, 1e-12);
	/* Five rounds all one way: still not at 5%; nothing is bounded. */
	for (i = 0; i < 5; i++)
		d[i] = 0.1 + 0.01 * (double)i;
	assert_int_equal(stats_compare(d, 5, 0.05, 0.01, &c), 0);
	check_close("p 5", c.p, 0.0625, 1e-12);
	assert_true(isinf(c.lo) && c.lo < 0 && isinf(c.hi));
	assert_true(isinf(c.mde));
	/* Thirty rounds of 5% noise: an MDE of a few percent, and rounds
	 * to decide 1% in the hundreds. */
	rng_seed(&r, 9);
	for (i = 0; i < 30; i++)
		d[i] = 0.0707 * (uniform(&r) + uniform(&r) + uniform(&r) -
		    1.5) * 2;
	assert_int_equal(stats_compare(d, 30, 0.05, 0.01, &c), 0);
	assert_true(c.mde > 0.02 && c.mde < 0.08);
	assert_true(c.decide_rounds > 100 && c.decide_rounds < 5000);
	/* A smaller alpha needs a larger effect. */
	{
		struct stats_cmp	c2;

		assert_int_equal(stats_compare(d, 30, 0.0025, 0.01, &c2), 0);
		assert_true(c2.mde > c.mde);
		assert_true(c2.hi - c2.lo > c.hi - c.lo);
	}
}

/* The verdict rule on a tested comparison. */
static void
test_verdict_test(void **state)
{
	struct stats_cmp	c;

	(void)state;
	memset(&c, 0, sizeof c);
	/* Proven and past min_effect: worse (lower is better). */
	c.est = log(1.05);
	c.lo = log(1.02);
	c.hi = log(1.08);
	c.p = 0.001;
	assert_int_equal(stats_verdict_test(&c, 0.01, 0.01, 0),
	    VERDICT_WORSE);
	assert_int_equal(stats_verdict_test(&c, 0.01, 0.01, 1),
	    VERDICT_BETTER);
	/* The same, not proven at a family's level. */
	assert_int_equal(stats_verdict_test(&c, 0.0005, 0.01, 0),
	    VERDICT_INCONCLUSIVE);
	/* Proven but inside min_effect: not a verdict. */
	assert_int_equal(stats_verdict_test(&c, 0.01, 0.06, 0),
	    VERDICT_INCONCLUSIVE);
	/* Inside ±min_effect: same. */
	c.est = log(1.001);
	c.lo = log(0.995);
	c.hi = log(1.006);
	c.p = 0.5;
	assert_int_equal(stats_verdict_test(&c, 0.05, 0.01, 0),
	    VERDICT_SAME);
	c.est = NAN;
	assert_int_equal(stats_verdict_test(&c, 0.05, 0.01, 0),
	    VERDICT_INCONCLUSIVE);
}

/* Normal quantiles. */
static void
test_qnorm(void **state)
{
	(void)state;
	check_close("q 0.975", stats_qnorm(0.975), 1.959963984540054, 1e-12);
	check_close("q 0.8", stats_qnorm(0.8), 0.8416212335729143, 1e-12);
	check_close("q 1e-6", stats_qnorm(1e-6), -4.753424308822899, 1e-10);
	assert_true(isinf(stats_qnorm(0)));
}

/* ---- groups --------------------------------------------------------------- */

/* One named test per row of a data table. */
#define TABLE_TESTS(dst, tbl, fn) do {					\
	size_t	_i;							\
	for (_i = 0; _i < NELEM(tbl); _i++) {				\
		(dst)[_i].name = (tbl)[_i].name;			\
		(dst)[_i].test_func = (fn);				\
		(dst)[_i].setup_func = NULL;				\
		(dst)[_i].teardown_func = NULL;				\
		(dst)[_i].initial_state = (void *)(uintptr_t)&(tbl)[_i]; \
	}								\
} while (0)

int
main(void)
{
	struct CMUnitTest	summaries[NELEM(fx_summaries)];
	struct CMUnitTest	wilcoxons[NELEM(fx_wilcoxons)];
	struct CMUnitTest	verdicts[NELEM(verdict_cases)];
	const struct CMUnitTest	quantile[] = {
		cmocka_unit_test(test_quantile_edges),
		cmocka_unit_test(test_summary_empty),
		cmocka_unit_test(test_summary_zero_median),
		cmocka_unit_test(test_median_duplicates),
		cmocka_unit_test(test_sort),
	};
	const struct CMUnitTest	wilcoxon[] = {
		cmocka_unit_test(test_wilcoxon_edges),
	};
	const struct CMUnitTest	boot[] = {
		cmocka_unit_test(test_boot_deterministic),
		cmocka_unit_test(test_boot_contains_median),
		cmocka_unit_test(test_boot_constant),
		cmocka_unit_test(test_boot_errors),
		cmocka_unit_test(test_boot_coverage),
		cmocka_unit_test(test_boot_large),
	};
	const struct CMUnitTest	verdict[] = {
		cmocka_unit_test(test_verdict_names),
		cmocka_unit_test(test_verdict_test),
	};
	const struct CMUnitTest	compare[] = {
		cmocka_unit_test(test_compare_brute),
		cmocka_unit_test(test_walsh_large),
		cmocka_unit_test(test_compare_ties),
		cmocka_unit_test(test_compare_consistent),
		cmocka_unit_test(test_compare_serial),
		cmocka_unit_test(test_compare_shift_t),
		cmocka_unit_test(test_compare_power),
		cmocka_unit_test(test_qnorm),
	};
	struct CMUnitTest	compares[NELEM(fx_wilcoxons)];
	size_t			ncompares = 0, k;
	int			fails = 0;

	TABLE_TESTS(summaries, fx_summaries, test_summary_fixture);
	TABLE_TESTS(wilcoxons, fx_wilcoxons, test_wilcoxon_fixture);
	TABLE_TESTS(verdicts, verdict_cases, test_verdict_case);
	/* The untied fixtures only (fx_tied). */
	for (k = 0; k < NELEM(fx_wilcoxons); k++) {
		if (fx_tied(&fx_wilcoxons[k]))
			continue;
		compares[ncompares].name = fx_wilcoxons[k].name;
		compares[ncompares].test_func = test_compare_fixture;
		compares[ncompares].setup_func = NULL;
		compares[ncompares].teardown_func = NULL;
		compares[ncompares++].initial_state =
		    (void *)(uintptr_t)&fx_wilcoxons[k];
	}

	fails += _cmocka_run_group_tests("stats_summary_vs_r", summaries,
	    NELEM(summaries), NULL, NULL);
	fails += cmocka_run_group_tests_name("stats_quantile", quantile, NULL,
	    NULL);
	fails += _cmocka_run_group_tests("stats_wilcoxon_vs_r", wilcoxons,
	    NELEM(wilcoxons), NULL, NULL);
	fails += cmocka_run_group_tests_name("stats_wilcoxon", wilcoxon, NULL,
	    NULL);
	fails += cmocka_run_group_tests_name("stats_boot_median", boot, NULL,
	    NULL);
	fails += _cmocka_run_group_tests("stats_verdict_cases", verdicts,
	    NELEM(verdicts), NULL, NULL);
	fails += cmocka_run_group_tests_name("stats_verdict", verdict, NULL,
	    NULL);
	fails += _cmocka_run_group_tests("stats_compare_vs_r", compares,
	    ncompares, NULL, NULL);
	fails += cmocka_run_group_tests_name("stats_compare", compare, NULL,
	    NULL);
	return (fails == 0 ? 0 : 1);
}
