/*
 * Short commands (issue 30 item 1): a one-line run compares wall time as
 * it is, as hyperfine -N does, so a command as short as the harness floor
 * gets a verdict, never "invalid" for the floor; its reports name the
 * compared quantity. Synthetic records (tests/unit/synth.c), fixed seeds.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/report-quantity.h"
#include "coordinator/report/report.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define SHORT_ROUNDS	30
#define SHORT_FLOOR	900000.0	/* ns: the harness floor */

/* Loads the suite of `orch run -- true '/bin/echo x'`. */
static struct suite *
short_oneline_suite(void)
{
	const char	*cmds[] = { "true", "/bin/echo x" };
	struct suite	*s = NULL;
	char		*text = NULL, *cause = NULL;

	if (oneline_suite_opts(cmds, 2, NULL, 0, NULL, &text, &cause) != 0 ||
	    suite_load_text(ONELINE_LABEL, text, &s, &cause) != 0)
		fail_msg("%s", cause);
	free(text);
	return (s);
}

/* The one-line suite says subtract_floor = no. */
static void
test_oneline_no_floor(void **state)
{
	struct suite	*s = short_oneline_suite();

	(void)state;
	assert_int_equal(s->subtract_floor, 0);
	suite_free(s);
}

/*
 * And it measures until decided: rounds = auto in blocks of 10, at most
 * 200 rounds, a budget of 30 s (docs/suites.md).
 */
static void
test_oneline_auto(void **state)
{
	struct suite	*s = short_oneline_suite();

	(void)state;
	assert_int_equal(s->auto_rounds, 1);
	assert_int_equal(s->min_rounds, 10);
	assert_int_equal(s->max_rounds, 200);
	assert_int_equal(s->rounds, 200);
	assert_int_equal(s->budget_s, 30);
	suite_free(s);
}

/*
 * Writes a one-line-like run into dir: bench "cmd" of wall time only (no
 * metric of its own), A at a ns and B at ratio x a, noise sigma, a floor
 * run of SHORT_FLOOR each round, subtract_floor as a one-line run's.
 */
static void
short_simulate(const char *dir, double a, double ratio, double sigma,
    uint64_t seed)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct suite		*os;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL;
	uint32_t		 round, seq = 0;
	size_t			 k, v;
	double			 x;

	assert_int_equal(synth_suite(&ss, "oneline", 2, 1, SHORT_ROUNDS,
	    seed), 0);
	snprintf(ss.bs[0].name, sizeof ss.bs[0].name, "cmd");
	/* A bench without metrics = has wall_ns as its one (suite.c). */
	snprintf(ss.m[0].name, sizeof ss.m[0].name, "wall_ns");
	os = short_oneline_suite();
	ss.s.subtract_floor = os->subtract_floor;
	suite_free(os);
	synth_host(&h, "h", "x86_64", "Synthetic", 2);
	rng_seed(&r, seed);
	if (synth_open(&rec, dir, "20260101-000000-sh", &ss.s,
	    "orch run -- true '/bin/echo x'", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	for (round = 1; round <= SHORT_ROUNDS; round++) {
		synth_sample(&smp, seq++, round, (uint64_t)SHORT_FLOOR);
		assert_int_equal(record_sample(&rec, "h", RECORD_FLOOR, "",
		    &smp), 0);
		for (k = 0; k < 2; k++) {
			v = (round % 2 == 1) ? k : 1 - k;
			x = a * (v == 1 ? ratio : 1) *
			    exp(sigma * synth_gauss(&r));
			synth_sample(&smp, seq++, round, (uint64_t)x);
			assert_int_equal(record_sample(&rec, "h", "cmd",
			    ss.vars[v].name, &smp), 0);
		}
	}
	assert_int_equal(synth_close(&rec, &h, 1), 0);
}

/* Analyses a simulated run; returns B's verdict against A. */
static enum stats_verdict
short_verdict(double a, double ratio, double sigma, uint64_t seed,
    char *quantity, size_t len)
{
	struct dataset		*ds;
	struct analysis		*an;
	const struct rep_cmp	*c;
	enum stats_verdict	 v;
	char			*dir, *cause = NULL;

	assert_non_null(dir = synth_tmpdir_new("short"));
	short_simulate(dir, a, ratio, sigma, seed);
	if (synth_load(dir, &ds, &an, &cause) != 0)
		fail_msg("%s", cause);
	assert_non_null(c = analysis_cmp(an, 0, 0, 0, 1));
	assert_string_equal(ds->benches[0].metrics[0], "wall_ns");
	assert_int_equal(c->npairs, SHORT_ROUNDS);
	if (c->verdict == VERDICT_INVALID)
		print_message("invalid: %s\n", c->reason);
	v = c->verdict;
	report_quantity(an, 0, quantity, len);
	analysis_free(an);
	dataset_free(ds);
	synth_tmpdir_free(dir);
	return (v);
}

/*
 * Values below the floor (A at 0.8 x the floor, B 5% more, 5% noise) are
 * never invalid for the floor, over ten seeds; the quantity says so.
 */
static void
test_below_floor(void **state)
{
	enum stats_verdict	v;
	char			q[128];
	uint64_t		seed;

	(void)state;
	for (seed = 1; seed <= 10; seed++) {
		v = short_verdict(0.8 * SHORT_FLOOR, 1.05, 0.05, seed, q,
		    sizeof q);
		assert_int_not_equal(v, VERDICT_INVALID);
		assert_int_not_equal(v, VERDICT_BETTER);
	}
	assert_string_equal(q, "wall time, harness floor 0.9 ms not "
	    "subtracted");
}

/* A and A below the floor: same or inconclusive, never invalid. */
static void
test_aa_below_floor(void **state)
{
	enum stats_verdict	v;
	char			q[128];
	uint64_t		seed;

	(void)state;
	for (seed = 11; seed <= 20; seed++) {
		v = short_verdict(0.8 * SHORT_FLOOR, 1.0, 0.05, seed, q,
		    sizeof q);
		assert_true(v == VERDICT_SAME || v == VERDICT_INCONCLUSIVE);
	}
}

/* 10% more wall time at 30 rounds with 1% noise: worse, every seed. */
static void
test_ten_percent_worse(void **state)
{
	char		q[128];
	uint64_t	seed;

	(void)state;
	for (seed = 21; seed <= 30; seed++)
		assert_int_equal(short_verdict(1.1 * SHORT_FLOOR, 1.10, 0.01,
		    seed, q, sizeof q), VERDICT_WORSE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oneline_no_floor),
		cmocka_unit_test(test_oneline_auto),
		cmocka_unit_test(test_below_floor),
		cmocka_unit_test(test_aa_below_floor),
		cmocka_unit_test(test_ten_percent_worse),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
