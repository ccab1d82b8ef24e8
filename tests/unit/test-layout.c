/*
 * Memory layout (coordinator/analysis/layout.c): Spearman's rank
 * correlation and its p-value on fixed data; on synthetic series with
 * fixed seeds, a metric that moves with the padding is found and one that
 * does not is flagged at most at the test's level; and on synthetic run
 * records, layout_build tests each variant and flags only the one that
 * moves.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "coordinator/analysis/layout.h"
#include "coordinator/analysis/rng.h"
#include "tests/unit/synth.h"

#define ROUNDS	20

/* Perfect order, reversed order, ties, too few pairs and a constant. */
static void
test_spearman_fixed(void **state)
{
	double	x[12], y[12], p, rho;
	size_t	i;

	(void)state;
	for (i = 0; i < 12; i++) {
		x[i] = (double)i;
		y[i] = exp((double)i);
	}
	assert_true(layout_spearman(x, y, 12, &p) == 1 && p == 0);
	for (i = 0; i < 12; i++)
		y[i] = -(double)i * (double)i;
	assert_true(layout_spearman(x, y, 12, &p) == -1 && p == 0);
	/* x's ranks 1..12, y's: pairs tied, so rho is just below 1. */
	for (i = 0; i < 12; i++)
		y[i] = (double)(i / 2);
	rho = layout_spearman(x, y, 12, &p);
	assert_true(rho > 0.98 && rho < 1 && p < 1e-6);
	/* An alternating y has rho near 0 and a large p. */
	for (i = 0; i < 12; i++)
		y[i] = (double)(i % 2);
	rho = layout_spearman(x, y, 12, &p);
	assert_true(fabs(rho) < 0.2 && p > 0.5);
	assert_true(isnan(layout_spearman(x, y, LAYOUT_MIN_N - 1, &p)));
	assert_true(isnan(p));
	for (i = 0; i < 12; i++)
		y[i] = 3;
	assert_true(isnan(layout_spearman(x, y, 12, &p)) && isnan(p));
}

/*
 * 1000 seeds of 20 runs: a log metric of noise 1% with no padding effect
 * is flagged at p <= 0.05 in at most 5% (+ 1.5% of sampling slack), and
 * one 5% slower over 4096 bytes of padding is found (p <= 0.05) in at
 * least 95%.
 */
static void
test_spearman_calibration(void **state)
{
	struct rng	r;
	double		x[ROUNDS], y[ROUNDS], z[ROUNDS], p;
	size_t		seed, i, flat = 0, found = 0;

	(void)state;
	for (seed = 0; seed < 1000; seed++) {
		rng_seed(&r, 1000 + seed);
		for (i = 0; i < ROUNDS; i++) {
			x[i] = (double)rng_below(&r, 4097);
			y[i] = 0.01 * synth_gauss(&r);
			z[i] = y[i] + 0.05 * x[i] / 4096;
		}
		(void)layout_spearman(x, y, ROUNDS, &p);
		flat += p <= 0.05;
		(void)layout_spearman(x, z, ROUNDS, &p);
		found += p <= 0.05;
	}
	print_message("flat flagged %zu/1000, moving found %zu/1000\n", flat,
	    found);
	assert_true(flat <= 65);
	assert_true(found >= 950);
}

/*
 * Writes a run of host h, bench k, variants A and B, ROUNDS rounds, with
 * seed's noise (1%) and padding; B's elapsed_ns grows by slope over 4096
 * bytes of padding (A's never), and every round drifts by 1% (noise to
 * the test).
 */
static void
lay_simulate(const char *dir, uint64_t seed, double slope)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL;
	uint32_t		 round, seq = 0, pad;
	size_t			 k, v;
	double			 drift;

	assert_int_equal(synth_suite(&ss, "lay", 2, 1, ROUNDS, seed), 0);
	snprintf(ss.bs[0].name, sizeof ss.bs[0].name, "k");
	synth_host(&h, "h", "x86_64", "Synthetic", 2);
	rng_seed(&r, seed);
	if (synth_open(&rec, dir, "20260101-000000-lay", &ss.s,
	    "orch run lay.ini", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	for (round = 1; round <= ROUNDS; round++) {
		drift = 0.01 * synth_gauss(&r);
		for (k = 0; k < 2; k++) {
			v = (round % 2 == 1) ? k : 1 - k;
			pad = (uint32_t)rng_below(&r, 4097);
			synth_elapsed(&smp, seq++, round, 2000000, 1e6 *
			    exp(drift + 0.01 * synth_gauss(&r) +
			    (v == 1 ? slope * pad / 4096.0 : 0)));
			smp.has_env_pad = 1;
			smp.env_pad = pad;
			assert_int_equal(record_sample(&rec, "h", "k",
			    ss.vars[v].name, &smp), 0);
		}
	}
	assert_int_equal(synth_close(&rec, &h, 1), 0);
}

/* Builds the layout of one simulated run. */
static struct layout *
lay_run(uint64_t seed, double slope)
{
	struct dataset	*ds;
	struct analysis	*a;
	struct layout	*l;
	char		*dir, *cause = NULL;

	assert_non_null(dir = synth_tmpdir_new("layout"));
	lay_simulate(dir, seed, slope);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(layout_build(a, &l), 0);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
	return (l);
}

/*
 * B's metric 8% slower over 4096 bytes, under a 1% drift between rounds:
 * B is layout-sensitive in 19 of 20 seeds at least; A, or either with no
 * effect, at most about the family's level (4 of 40).
 */
static void
test_build(void **state)
{
	struct layout	*l;
	size_t		 seed, flagged = 0, found = 0;

	(void)state;
	for (seed = 0; seed < 20; seed++) {
		l = lay_run(77 + seed, 0.08);
		assert_int_equal(l->ntests, 2);
		assert_true(l->alpha == 0.025);
		assert_int_equal(l->tests[0].variant, 0);
		assert_int_equal(l->tests[1].variant, 1);
		assert_int_equal(l->tests[1].n, ROUNDS);
		found += l->tests[1].sensitive && l->tests[1].rho > 0;
		flagged += l->tests[0].sensitive;
		layout_free(l);
		l = lay_run(177 + seed, 0);
		flagged += l->tests[0].sensitive || l->tests[1].sensitive;
		layout_free(l);
	}
	print_message("found %zu/20, flagged without effect %zu/40\n", found,
	    flagged);
	assert_true(found >= 19);
	/* Expected: 20 x 0.05 without effect, 20 x 0.025 of A beside B. */
	assert_true(flagged <= 4);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_spearman_fixed),
		cmocka_unit_test(test_spearman_calibration),
		cmocka_unit_test(test_build),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
