/*
 * Unit tests for coordinator/analysis/changepoint.c on synthetic series with fixed
 * seeds: a known shift is found at its run, two shifts both, a flat series
 * (over many seeds) gives no more false detections than the test's level
 * allows, and bad arguments are refused.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "coordinator/analysis/changepoint.h"
#include "coordinator/analysis/rng.h"

/* A standard normal deviate from r (Box-Muller). */
static double
gauss(struct rng *r)
{
	double	u = ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
	double	v = (double)(rng_next(r) >> 11) / 9007199254740992.0;

	return (sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

/* n values of noise sd around 0, plus step from index at on (if at < n). */
static void
series(double *x, size_t n, uint64_t seed, double sd, size_t at, double step)
{
	struct rng	r;
	size_t		i;

	rng_seed(&r, seed);
	for (i = 0; i < n; i++)
		x[i] = sd * gauss(&r) + (i >= at ? step : 0);
}

static size_t
find(const double *x, size_t n, struct cp_point **pts)
{
	size_t	np;

	assert_int_equal(changepoint_find(x, n, CP_MIN_SEG, CP_PERMS,
	    CP_ALPHA, CP_SEED, "test", pts, &np), 0);
	return (np);
}

/*
 * A shift of -16% (16 noise sd) at run 20 of 30 (index 19), over 20 seeds:
 * always found there; a further split of a flat side is a false detection
 * at CP_ALPHA each (1 expected over 20 series, at most 4 allowed).
 */
static void
test_one_shift(void **state)
{
	struct cp_point	*pts;
	double		 x[30];
	uint64_t	 seed;
	size_t		 i, np, at, extra = 0;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		series(x, 30, seed, 0.01, 19, log(0.85));
		np = find(x, 30, &pts);
		assert_true(np >= 1);
		for (i = 0, at = np; i < np; i++) {
			if (pts[i].at == 19)
				at = i;
		}
		assert_true(at < np);
		extra += np - 1;
		assert_true(pts[at].p <= CP_ALPHA);
		/* The shift is near the true one; its interval excludes 0. */
		if (np == 1)
			assert_true(fabs(pts[at].shift - log(0.85)) < 0.02);
		assert_true(pts[at].lo <= pts[at].shift &&
		    pts[at].shift <= pts[at].hi && pts[at].hi < 0);
		free(pts);
	}
	assert_true(extra <= 4);
	/* Seed 1 exactly: the one change point. */
	series(x, 30, 1, 0.01, 19, log(0.85));
	assert_int_equal(find(x, 30, &pts), 1);
	assert_int_equal(pts[0].at, 19);
	free(pts);
}

/* Two shifts, up at 10 and back down at 22 of 32: both, at their runs. */
static void
test_two_shifts(void **state)
{
	struct cp_point	*pts;
	double		 x[32];
	size_t		 i, np;

	(void)state;
	series(x, 32, 7, 0.01, 10, 0.1);
	for (i = 22; i < 32; i++)
		x[i] -= 0.1;
	np = find(x, 32, &pts);
	assert_int_equal(np, 2);
	assert_int_equal(pts[0].at, 10);
	assert_int_equal(pts[1].at, 22);
	assert_true(pts[0].shift > 0.05 && pts[1].shift < -0.05);
	free(pts);
}

/*
 * Flat series of 30: each is a false detection with probability at most
 * CP_ALPHA. Over 400 seeds that is at most 20 expected; allow the binomial
 * room of 3 sd (sqrt(400 * 0.05 * 0.95) = 4.4): 33.
 */
static void
test_flat(void **state)
{
	struct cp_point	*pts;
	double		 x[30];
	uint64_t	 seed;
	size_t		 np, hits = 0;

	(void)state;
	for (seed = 1000; seed < 1400; seed++) {
		series(x, 30, seed, 0.02, 30, 0);
		np = find(x, 30, &pts);
		hits += np > 0;
		free(pts);
	}
	print_message("flat: %zu of 400 series with a change point\n", hits);
	assert_true(hits <= 33);
}

/* The same series and key: the same answer (the permutations are seeded). */
static void
test_deterministic(void **state)
{
	struct cp_point	*a, *b;
	double		 x[40];
	size_t		 na, nb;

	(void)state;
	series(x, 40, 3, 1, 25, 0.9);
	na = find(x, 40, &a);
	nb = find(x, 40, &b);
	assert_int_equal(na, nb);
	if (na > 0) {
		assert_int_equal(a[0].at, b[0].at);
		assert_true(a[0].p == b[0].p);
	}
	free(a);
	free(b);
}

/* Too short for two segments, a non-finite value, bad parameters. */
static void
test_bad(void **state)
{
	struct cp_point	*pts;
	double		 x[12] = { 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5 };
	size_t		 np;

	(void)state;
	assert_int_equal(changepoint_find(x, 9, CP_MIN_SEG, CP_PERMS,
	    CP_ALPHA, 1, "", &pts, &np), 0);
	assert_int_equal(np, 0);
	assert_null(pts);
	x[3] = NAN;
	assert_int_equal(changepoint_find(x, 12, CP_MIN_SEG, CP_PERMS,
	    CP_ALPHA, 1, "", &pts, &np), -1);
	x[3] = 0;
	assert_int_equal(changepoint_find(x, 12, 1, CP_PERMS, CP_ALPHA, 1,
	    "", &pts, &np), -1);
	assert_int_equal(changepoint_find(x, 12, CP_MIN_SEG, 0, CP_ALPHA, 1,
	    "", &pts, &np), -1);
	/* 6 and 6, a clear step: found at 6. */
	assert_int_equal(changepoint_find(x, 12, CP_MIN_SEG, CP_PERMS,
	    CP_ALPHA, 1, "", &pts, &np), 0);
	assert_int_equal(np, 1);
	assert_int_equal(pts[0].at, 6);
	free(pts);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_shift),
		cmocka_unit_test(test_two_shifts),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_bad),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
