/*
 * Unit tests for rounds = auto: the looks and the alpha each spends
 * (coordinator/analysis/seq.c), their exact boundaries (seq-bound.c)
 * against published constants and a Monte Carlo, the suite's adaptive keys with their errors
 * (coordinator/input/suite.c), and a plan balanced within every block
 * (coordinator/run/plan.c).
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

#include <sys/stat.h>
#include <unistd.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/analysis/seq.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/plan.h"
#include "coordinator/store/record.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* Looks fall on multiples of min_rounds, the last on max_rounds. */
static void
test_looks(void **state)
{
	(void)state;
	assert_int_equal(seq_next(0, 5, 200), 5);
	assert_int_equal(seq_next(4, 5, 200), 5);
	assert_int_equal(seq_next(5, 5, 200), 10);
	assert_int_equal(seq_next(7, 5, 200), 10);
	assert_int_equal(seq_next(198, 5, 200), 200);
	assert_int_equal(seq_next(200, 5, 200), 200);
	assert_int_equal(seq_next(21, 5, 23), 23);
	assert_int_equal(seq_next(250, 5, 200), 200);
	assert_int_equal(seq_prev(5, 5, 200), 0);
	assert_int_equal(seq_prev(10, 5, 200), 5);
	assert_int_equal(seq_prev(12, 5, 200), 10);
	assert_int_equal(seq_prev(23, 5, 23), 20);
	assert_int_equal(seq_prev(3, 5, 200), 0);
}

/*
 * The shares of every look of a host sum to at most 1 (the union bound
 * over looks), whatever the block size and however the looks fell; each
 * is positive; linear spending gives equal looks equal shares.
 */
static void
test_shares_sum(void **state)
{
	static const uint32_t mins[] = { 2, 3, 5, 7, 10, 50 };
	static const uint32_t maxs[] = { 10, 23, 100, 200, 1000 };
	size_t		i, j;
	uint32_t	n;
	double		sum, sh;

	(void)state;
	for (i = 0; i < NELEM(mins); i++) {
		for (j = 0; j < NELEM(maxs); j++) {
			if (mins[i] > maxs[j])
				continue;
			sum = 0;
			for (n = mins[i]; ; n = seq_next(n, mins[i],
			    maxs[j])) {
				sh = seq_share(n, mins[i], maxs[j]);
				assert_true(sh > 0);
				sum += sh;
				if (n >= maxs[j])
					break;
			}
			assert_true(sum <= 1 + 1e-12);
			assert_true(sum >= 1 - 1e-12);
		}
	}
	assert_true(seq_share(0, 5, 200) == 0);
	/* A look off the boundaries (a host that failed mid-block) spends
	 * only its part of the block. */
	assert_true(seq_share(12, 5, 200) < seq_share(15, 5, 200));
	assert_true(seq_share(10, 5, 200) > 0.0249 &&
	    seq_share(10, 5, 200) < 0.0251);
}

/*
 * The published constants of Jennison and Turnbull (Group Sequential
 * Methods, 2000), two-sided alpha 0.05, K equally spaced looks: Pocock's
 * constant boundary C_P(K) (Table 2.1) and O'Brien and Fleming's
 * C_B(K) sqrt(K / k) (Table 2.3) each cross with probability 0.05 under
 * no change, to the tables' three decimals; and spending what a boundary
 * crosses gives that boundary back.
 */
static void
test_bounds_published(void **state)
{
	static const double pocock[] = { 0, 1.960, 2.178, 2.289, 2.361,
	    2.413 };
	static const double obf[] = { 0, 1.960, 1.977, 2.004, 2.024, 2.040 };
	double	info[5], c[5], cum[5], back[5];
	size_t	K, k;

	(void)state;
	for (K = 1; K <= 5; K++) {
		for (k = 0; k < K; k++) {
			info[k] = (double)(k + 1);
			c[k] = pocock[K];
		}
		assert_int_equal(seq_bounds(info, K, NULL, c, cum), 0);
		assert_true(fabs(cum[K - 1] - 0.05) < 2e-4);
		assert_int_equal(seq_bounds(info, K, cum, back, NULL), 0);
		for (k = 0; k < K; k++)
			assert_true(fabs(back[k] - pocock[K]) < 1e-6);
		for (k = 0; k < K; k++)
			c[k] = obf[K] * sqrt((double)K / (double)(k + 1));
		assert_int_equal(seq_bounds(info, K, NULL, c, cum), 0);
		assert_true(fabs(cum[K - 1] - 0.05) < 2e-4);
		/* Each look crosses more than none, less than all. */
		for (k = 1; k < K; k++)
			assert_true(cum[k] > cum[k - 1]);
	}
	/* Information that does not grow is refused. */
	info[0] = 2;
	info[1] = 2;
	assert_int_equal(seq_bounds(info, 2, NULL, c, cum), -1);
	info[0] = 0;
	assert_int_equal(seq_bounds(info, 1, NULL, c, cum), -1);
}

/*
 * Under valgrind (VALGRIND=1, tests/run-unit.sh) the Monte Carlo runs a
 * hundredth of its paths and checks no rate: its code paths only.
 */
static int	mc_rates = 1;

/* A standard normal draw (Box-Muller) from r. */
static double
seq_normal(struct rng *r)
{
	double	u1 = ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
	double	u2 = ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;

	return (sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

/*
 * Linear spending alpha t on the looks given: the boundaries' cumulative
 * crossing under no change is alpha t_k at each look by the integration
 * (to 1e-9) and by an independent Monte Carlo of the Brownian motion
 * (fixed seed, npath paths: within 4 of its standard errors at every
 * look; 1.5 million paths give one of 1.8e-4 at alpha 0.05).
 */
static void
bounds_mc(const double *info, size_t K, double alpha, uint64_t seed,
    size_t npath)
{
	double		 c[SEQ_EXACT_LOOKS], spent[SEQ_EXACT_LOOKS], s, z, se;
	size_t		 k, hit[SEQ_EXACT_LOOKS], i;
	struct rng	 r;

	assert_true(K <= SEQ_EXACT_LOOKS);
	for (k = 0; k < K; k++)
		spent[k] = alpha * info[k] / info[K - 1];
	assert_int_equal(seq_bounds(info, K, spent, c, NULL), 0);
	{
		double	cum[SEQ_EXACT_LOOKS];

		assert_int_equal(seq_bounds(info, K, NULL, c, cum), 0);
		for (k = 0; k < K; k++)
			assert_true(fabs(cum[k] - spent[k]) < 1e-9);
	}
	if (!mc_rates)
		npath /= 100;
	memset(hit, 0, sizeof hit);
	rng_seed(&r, seed);
	for (i = 0; i < npath; i++) {
		for (s = 0, k = 0; k < K; k++) {
			s += sqrt(info[k] - (k > 0 ? info[k - 1] : 0)) *
			    seq_normal(&r);
			z = s / sqrt(info[k]);
			if (fabs(z) >= c[k]) {
				hit[k]++;
				break;
			}
		}
	}
	for (s = 0, k = 0; k < K; k++) {
		s += (double)hit[k] / (double)npath;
		se = sqrt(spent[k] * (1 - spent[k]) / (double)npath);
		if (mc_rates && fabs(s - spent[k]) > 4 * se)
			fail_msg("look %zu: Monte Carlo %.6f, spent %.6f "
			    "(se %.6f)", k + 1, s, spent[k], se);
	}
}

static void
test_bounds_mc(void **state)
{
	static const double equal[] = { 1, 2, 3, 4, 5 };
	static const double blocks[] = { 5, 10, 15, 20, 23 };
	static const double ten[] = { 5, 10, 15, 20, 25, 30, 35, 40, 45, 50 };
	double	many[SEQ_EXACT_LOOKS];
	size_t	k;

	(void)state;
	bounds_mc(equal, 5, 0.05, 1, 1500000);
	bounds_mc(blocks, 5, 0.05, 2, 1500000);
	bounds_mc(ten, 10, 0.05, 3, 1500000);
	bounds_mc(ten, 10, 0.01, 4, 1500000);
	/* As many looks as are computed exactly, close together (the
	 * grid refined for them). */
	for (k = 0; k < SEQ_EXACT_LOOKS; k++)
		many[k] = 2.0 * (double)(k + 1);
	bounds_mc(many, SEQ_EXACT_LOOKS, 0.05, 5, 200000);
}

/*
 * seq_level: the first look tests at its share, every later look of the
 * schedule at more, growing; off the schedule at its share; the levels
 * of a schedule are those of seq_bounds; 0 without rounds.
 */
static void
test_levels(void **state)
{
	double		info[40], spent[40], c[40], lv, prev = 0;
	uint32_t	n;
	size_t		k;

	(void)state;
	for (k = 0; k < 40; k++) {
		info[k] = 5.0 * (double)(k + 1);
		spent[k] = 0.05 * info[k] / 200;
	}
	assert_int_equal(seq_bounds(info, 40, spent, c, NULL), 0);
	for (k = 0, n = 5; n <= 200; n += 5, k++) {
		lv = seq_level(n, 5, 200, 0.05);
		assert_true(fabs(lv - erfc(c[k] / M_SQRT2)) < 1e-12);
		if (n == 5)
			assert_true(fabs(lv - 0.05 * seq_share(5, 5, 200)) <
			    1e-9);
		else
			assert_true(lv > 0.05 * seq_share(n, 5, 200) &&
			    lv > prev);
		prev = lv;
	}
	/* A last look of 0.0145 against the union bound's 0.00125. */
	assert_true(seq_level(200, 5, 200, 0.05) > 0.0145 &&
	    seq_level(200, 5, 200, 0.05) < 0.0146);
	assert_true(seq_level(12, 5, 200, 0.05) ==
	    0.05 * seq_share(12, 5, 200));
	assert_true(seq_level(250, 5, 200, 0.05) ==
	    seq_level(200, 5, 200, 0.05));
	/* A short last block (20 to 23) spends its share, exactly. */
	assert_true(seq_level(23, 5, 23, 0.01) > 0.01 * seq_share(23, 5, 23));
	assert_true(seq_level(0, 5, 200, 0.05) == 0);
	assert_true(seq_level(5, 5, 200, 0) == 0);
	/* Past SEQ_EXACT_LOOKS looks: the union bound's share. */
	assert_true(seq_level(2 * (SEQ_EXACT_LOOKS + 3), 2, 100000, 0.05) ==
	    0.05 * seq_share(2 * (SEQ_EXACT_LOOKS + 3), 2, 100000));
	for (n = 4; n <= 2 * SEQ_EXACT_LOOKS; n += 2) {
		lv = seq_level(n, 2, 100000, 0.05);
		assert_true(lv > 0.05 * seq_share(n, 2, 100000));
		assert_true(lv > seq_level(n - 2, 2, 100000, 0.05));
	}
}

static void
test_budget(void **state)
{
	(void)state;
	assert_int_equal(seq_over_budget(100000000000LL, 1, 0), 0);
	assert_int_equal(seq_over_budget(50000000000LL, 10000000000LL, 60), 0);
	assert_int_equal(seq_over_budget(50000000000LL, 10000000001LL, 60), 1);
	assert_int_equal(seq_over_budget(61000000000LL, 0, 60), 1);
	assert_string_equal(seq_stop_name(SEQ_DECIDED), "decided");
	assert_string_equal(seq_stop_name(SEQ_MAX), "max_rounds");
	assert_string_equal(seq_stop_name(SEQ_BUDGET), "budget");
	assert_string_equal(seq_stop_name(SEQ_GOING), "going");
}

static void
test_budget_words(void **state)
{
	static const struct { const char *v; int ok; uint32_t s; } c[] = {
		{ "90s", 1, 90 }, { "20m", 1, 1200 }, { "2h", 1, 7200 },
		{ "1d", 1, 86400 }, { "600", 1, 600 }, { "30d", 1, 2592000 },
		{ "31d", 0, 0 }, { "0", 0, 0 }, { "0m", 0, 0 }, { "", 0, 0 },
		{ "m", 0, 0 }, { "5x", 0, 0 }, { "-5m", 0, 0 }, { "1.5h", 0, 0 },
		{ "99999999999999999999s", 0, 0 }, { "20 m", 0, 0 },
	};
	uint32_t	s;
	size_t		i;

	(void)state;
	for (i = 0; i < NELEM(c); i++) {
		s = 0;
		assert_int_equal(suite_parse_budget(c[i].v, &s) == 0, c[i].ok);
		if (c[i].ok)
			assert_int_equal(s, c[i].s);
	}
}

/* A suite of two variants of /bin/sh with the [suite] lines given. */
static int
load(const char *suite_lines, struct suite **s, char **cause)
{
	char	text[1024];

	snprintf(text, sizeof text, "[suite]\n%s\n[variant.A]\nbin = /bin/sh\n"
	    "[variant.B]\nbin = /bin/sh\n[bench.x]\nargs = -c true\n",
	    suite_lines);
	*s = NULL;
	*cause = NULL;
	return (suite_load_text("t.ini", text, s, cause));
}

static void
test_suite_keys(void **state)
{
	struct suite	*s;
	char		*cause;

	(void)state;
	assert_int_equal(load("rounds = auto", &s, &cause), 0);
	assert_int_equal(s->auto_rounds, 1);
	assert_int_equal(s->min_rounds, 5);
	assert_int_equal(s->max_rounds, 200);
	assert_int_equal(s->rounds, 200);
	assert_int_equal(s->budget_s, 0);
	suite_free(s);
	assert_int_equal(load("max_rounds = 40\nbudget = 20m\nrounds = auto\n"
	    "min_rounds = 8", &s, &cause), 0);
	assert_int_equal(s->rounds, 40);
	assert_int_equal(s->min_rounds, 8);
	assert_int_equal(s->budget_s, 1200);
	suite_free(s);
	assert_int_equal(load("rounds = 12", &s, &cause), 0);
	assert_int_equal(s->auto_rounds, 0);
	assert_int_equal(s->rounds, 12);
	suite_free(s);
}

static void
test_suite_bad(void **state)
{
	static const struct { const char *lines, *want; } c[] = {
		{ "rounds = auto\nbudget = soon", "t.ini:3: [suite] budget: "
		  "'soon' is not a duration (want e.g. 90s, 20m, 2h; at most "
		  "30d)" },
		{ "rounds = auto\nmin_rounds = 1", "t.ini:3: [suite] "
		  "min_rounds: 1 is out of range 2..100000" },
		{ "rounds = auto\nmax_rounds = 0", "t.ini:3: [suite] "
		  "max_rounds: 0 is out of range 2..100000" },
		{ "rounds = auto\nmin_rounds = 50\nmax_rounds = 40", "t.ini:3: "
		  "[suite] min_rounds 50 is above max_rounds 40" },
		{ "rounds = 10\nmax_rounds = 40", "t.ini:3: [suite] max_rounds "
		  "needs rounds = auto (rounds is 10)" },
		{ "budget = 1h", "t.ini:2: [suite] budget needs rounds = auto "
		  "(rounds is 10)" },
		{ "rounds = often", "t.ini:2: [suite] rounds: 'often' is not an "
		  "integer" },
	};
	struct suite	*s;
	char		*cause;
	size_t		 i;

	(void)state;
	for (i = 0; i < NELEM(c); i++) {
		assert_int_equal(load(c[i].lines, &s, &cause), -1);
		assert_null(s);
		assert_non_null(cause);
		assert_string_equal(cause, c[i].want);
		free(cause);
	}
}

/*
 * rounds = auto: within each block of min_rounds rounds every variant
 * stands first equally often, so a host stopped after any block ran a
 * balanced order; the warmups and the round order are as for fixed rounds.
 */
static void
test_plan_blocks(void **state)
{
	struct suite		*s;
	struct plan_entry	*e;
	char			*cause;
	size_t			 n, i, first[64], blk;
	uint32_t		 rounds;

	(void)state;
	assert_int_equal(load("rounds = auto\nmin_rounds = 6\nmax_rounds = 45\n"
	    "warmup = 1", &s, &cause), 0);
	assert_int_equal(plan_order(s, 7, &e, &n), 0);
	rounds = s->rounds;
	assert_int_equal(n, 2 * (1 + rounds));
	memset(first, 0, sizeof first);
	for (i = 2; i < n; i += 2) {
		assert_int_equal(e[i].round, (i - 2) / 2 + 1);
		assert_int_equal(e[i + 1].round, e[i].round);
		assert_int_not_equal(e[i].variant, e[i + 1].variant);
		if (e[i].variant == 0)
			first[(e[i].round - 1) / 6]++;
	}
	/* 7 whole blocks of 6: A first 3 times in each; the last of 3. */
	for (blk = 0; blk < 7; blk++)
		assert_int_equal(first[blk], 3);
	assert_true(first[7] == 1 || first[7] == 2);
	free(e);
	suite_free(s);
}

static uint32_t	aa_min_rounds = 5;	/* aa_record's min_rounds */

/*
 * Writes an A/A record of one host, one benchmark and `rounds` rounds into
 * dir, each run 0.4 s back to back, B +-5% of A in turn (never `same` at
 * min_effect 0, never better or worse), auto with min_rounds aa_min_rounds when
 * max_rounds > 0; analyses it into *a (*ds to free).
 */
static void
aa_record(const char *dir, uint32_t rounds, uint32_t max_rounds,
    uint32_t budget_s, struct dataset **ds, struct analysis **a)
{
	struct record		 rec;
	struct suite		 st;
	struct suite_variant	 vars[2];
	struct suite_bench	 b;
	struct suite_metric	 m;
	struct proto_sample	 smp;
	struct host		 h;
	char			*cause = NULL;
	uint32_t		 r, v, seq = 0;
	int64_t			 t = 1700000000LL * 1000000000LL;

	memset(&st, 0, sizeof st);
	memset(vars, 0, sizeof vars);
	memset(&b, 0, sizeof b);
	memset(&m, 0, sizeof m);
	memset(&h, 0, sizeof h);
	st.path = (char *)(uintptr_t)"t.ini";
	st.text = (char *)(uintptr_t)"[suite]\n";
	snprintf(st.name, sizeof st.name, "t");
	st.rounds = max_rounds > 0 ? max_rounds : rounds;
	st.auto_rounds = max_rounds > 0;
	st.min_rounds = aa_min_rounds;
	st.max_rounds = max_rounds;
	st.budget_s = budget_s;
	st.nvariants = 2;
	st.variants = vars;
	snprintf(vars[0].name, sizeof vars[0].name, "A");
	snprintf(vars[1].name, sizeof vars[1].name, "B");
	snprintf(m.name, sizeof m.name, "elapsed_ns");
	snprintf(b.name, sizeof b.name, "k");
	b.nmetrics = 1;
	b.metrics = &m;
	st.nbenches = 1;
	st.benches = &b;
	snprintf(h.name, sizeof h.name, "h1");
	snprintf(h.facts.os, sizeof h.facts.os, "linux");
	snprintf(h.facts.arch, sizeof h.facts.arch, "x86_64");
	snprintf(h.facts.cpu_model, sizeof h.facts.cpu_model, "cpu");
	h.facts.cores = 2;
	h.status = HOST_OK;
	assert_int_equal(record_open(&rec, dir, &cause), 0);
	assert_int_equal(record_run(&rec, "r1", &st, 1, "orch run t.ini",
	    "2026-01-01T00:00:00Z", &h, 1), 0);
	assert_int_equal(record_host(&rec, &h), 0);
	for (r = 1; r <= rounds; r++) {
		for (v = 0; v < 2; v++) {
			memset(&smp, 0, sizeof smp);
			smp.seq = seq++;
			smp.round = r;
			smp.attempt = 1;
			smp.start_ns = t;
			smp.wall_ns = 400000000;
			t += 400000000;
			smp.nmetrics = 1;
			snprintf(smp.metrics[0].key, PROTO_NAME_MAX,
			    "elapsed_ns");
			smp.metrics[0].value = 1e6 * (v == 1 ?
			    (r % 2 ? 1.05 : 0.95) : 1);
			assert_int_equal(record_sample(&rec, "h1", "k",
			    vars[v].name, &smp), 0);
		}
	}
	assert_int_equal(record_hostend(&rec, &h), 0);
	assert_int_equal(record_close(&rec, "2026-01-01T00:01:00Z"), 0);
	assert_int_equal(record_load(dir, ds, &cause), 0);
	assert_int_equal(analysis_build(*ds, a, &cause), 0);
	assert_int_equal((*a)->nhosts, 1);
}

/*
 * The analysis's stop, as the coordinator's look uses it: the budget
 * (10 rounds of 0.4 s runs: 8 s spent, blocks of 4 s), max_rounds, a host
 * still going, a first look of too few rounds to decide, and a run of
 * fixed rounds tested at the family's level.
 */
static void
test_stop(void **state)
{
	char			 dir[] = "/tmp/orch-test-seq.XXXXXX", path[64];
	struct dataset		*ds;
	struct analysis		*a;
	const struct rep_host	*rh;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/samples.msgpack", dir);

	aa_record(dir, 10, 200, 11, &ds, &a);	/* 8 s + 4 s > 11 s */
	rh = &a->hosts[0];
	assert_int_equal(rh->rounds_used, 10);
	assert_true(rh->spent_ns == 8000000000LL);
	assert_true(rh->pace_ns == 4000000000LL);
	assert_int_equal(rh->stop, SEQ_BUDGET);
	assert_int_equal(rh->nprimary, 1);
	assert_int_equal(rh->ndecided, 0);
	/* The second look's exact level, above its share 0.05 * 5 / 200. */
	assert_true(rh->seq_alpha == seq_level(10, 5, 200, 0.05));
	assert_true(rh->seq_alpha > 0.00145 && rh->seq_alpha < 0.00147);
	analysis_free(a);
	dataset_free(ds);
	unlink(path);

	aa_record(dir, 10, 200, 12, &ds, &a);	/* 8 s + 4 s fits 12 s */
	assert_int_equal(a->hosts[0].stop, SEQ_GOING);
	analysis_free(a);
	dataset_free(ds);
	unlink(path);

	aa_record(dir, 10, 200, 0, &ds, &a);	/* no budget */
	assert_int_equal(a->hosts[0].stop, SEQ_GOING);
	analysis_free(a);
	dataset_free(ds);
	unlink(path);

	aa_record(dir, 10, 10, 0, &ds, &a);	/* at max_rounds */
	assert_int_equal(a->hosts[0].stop, SEQ_MAX);
	analysis_free(a);
	dataset_free(ds);
	unlink(path);

	/*
	 * min_rounds 2: the first look's comparison is invalid for want of
	 * rounds only, which more rounds mend, so the host goes on.
	 */
	aa_min_rounds = 2;
	aa_record(dir, 2, 200, 0, &ds, &a);
	assert_int_equal(a->hosts[0].nprimary, 1);
	assert_int_equal(a->hosts[0].ndecided, 1);	/* invalid */
	assert_int_equal(a->hosts[0].stop, SEQ_GOING);
	analysis_free(a);
	dataset_free(ds);
	unlink(path);
	aa_min_rounds = 5;

	aa_record(dir, 10, 0, 0, &ds, &a);	/* fixed rounds */
	assert_int_equal(a->hosts[0].stop, SEQ_GOING);
	assert_true(a->hosts[0].seq_alpha == a->family_alpha);
	analysis_free(a);
	dataset_free(ds);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_looks),
		cmocka_unit_test(test_shares_sum),
		cmocka_unit_test(test_bounds_published),
		cmocka_unit_test(test_bounds_mc),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_budget_words),
		cmocka_unit_test(test_suite_keys),
		cmocka_unit_test(test_suite_bad),
		cmocka_unit_test(test_plan_blocks),
		cmocka_unit_test(test_stop),
	};

	if (getenv("VALGRIND") != NULL && strcmp(getenv("VALGRIND"), "1") == 0)
		mc_rates = 0;
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
