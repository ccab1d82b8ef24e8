/*
 * orch compare between runs (coordinator/report/compare.c), on synthetic
 * records written with the real record writer (tests/unit/synth.c), fixed
 * seeds:
 *   - the same files on a machine 5% slower: no row is better or worse,
 *     and the terminal says the files are unchanged and the machine moved;
 *   - B's program changed and 8% slower relative to A, on a machine 5%
 *     slower: B's relative row is worse at about 1.08, A is not called,
 *     B's absolute row is inconclusive for want of a between-run spread;
 *   - the same files and B / A 10% off: the relative row is not called;
 *   - B's env changed (its files not): B changed, A the same; a bench's
 *     args changed: every variant changed;
 *   - 20 pairs of runs of unchanged programs (B rebuilt) whose machines differ by a
 *     random 3% (0.5% noise): a relative row is called in at most one
 *     pair; and 400 such pairs at 1% noise, where min_effect hides less:
 *     called in at most the family's 5% of them (and two standard errors);
 *   - a variant without recorded files, and an old run without the new
 *     run's reference: files "changed", no relative row;
 *   - four runs of B's old program indexed in the history store: B's
 *     changed program decided from absolute values with their spread in
 *     the interval; two indexed runs: the spread unknown, inconclusive;
 *     a history file that is no store: a warning, the spread unknown.
 */
#include <sys/stat.h>

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

#include "coordinator/analysis/gate.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/report/compare.h"
#include "coordinator/report/report-index.h"
#include "coordinator/store/history.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define ROUNDS		20

static const char sha_a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaa";
static const char sha_b[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    "bbbbbbbbbbbbbbbb";
static const char sha_c[] = "cccccccccccccccccccccccccccccccccccccccccccccccc"
    "cccccccccccccccc";

/* One synthetic run: what the machine and B's program do, and the files. */
struct gen {
	double		 machine;	/* every value's factor */
	double		 b;		/* B / A */
	const char	*asha, *bsha;	/* NULL: no file recorded */
	const char	*ref;		/* the suite's reference: NULL, A */
	double		 sigma;		/* each sample's lognormal noise */
	const char	*text;		/* the suite's text; NULL: [suite] */
};

/*
 * Writes a run into dir: host x1, bench k1, variants A and B interleaved
 * in balanced order over ROUNDS rounds, elapsed_ns 1e6 times the machine
 * (and B's factor) with lognormal noise sigma drawn from seed.
 */
static void
gen_run(const char *dir, const struct gen *g, uint64_t seed)
{
	struct record		 rec;
	struct synth_suite	 ss;
	struct proto_sample	 smp;
	struct host		 h;
	struct rng		 r;
	char			*cause = NULL, id[32];
	uint32_t		 round, seq = 0;
	size_t			 k, v;

	/* Each run its own id, as the history store keys runs by it. */
	snprintf(id, sizeof id, "20260101-%06u-cc",
	    (unsigned)(seed % 1000000));
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(synth_suite(&ss, "cmp", 2, 1, ROUNDS, seed), 0);
	snprintf(ss.bs[0].name, sizeof ss.bs[0].name, "k1");
	if (g->text != NULL)
		ss.s.text = (char *)(uintptr_t)g->text;
	if (g->ref != NULL) {
		snprintf(ss.vars[0].name, sizeof ss.vars[0].name, "%s",
		    g->ref);
	}
	synth_host(&h, "x1", "x86_64", "Zen 4", 4);
	rng_seed(&r, seed);
	if (synth_open(&rec, dir, id, &ss.s,
	    "orch run cmp.ini", &h, 1, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_host(&rec, &h), 0);
	if (g->asha != NULL)
		assert_int_equal(record_file(&rec, "x1", ss.vars[0].name,
		    "bin", "a", g->asha, 0), 0);
	if (g->bsha != NULL)
		assert_int_equal(record_file(&rec, "x1", "B", "bin", "b",
		    g->bsha, 0), 0);
	for (round = 1; round <= ROUNDS; round++) {
		for (k = 0; k < 2; k++) {
			v = round % 2 == 1 ? k : 1 - k;
			synth_elapsed(&smp, seq++, round, 2000000, 1e6 *
			    g->machine * (v == 1 ? g->b : 1) *
			    exp(g->sigma * synth_gauss(&r)));
			assert_int_equal(record_sample(&rec, "x1", "k1",
			    ss.vars[v].name, &smp), 0);
		}
	}
	assert_int_equal(record_hostend(&rec, &h), 0);
	assert_int_equal(synth_close(&rec, &h, 0), 0);
}

/* Reads a whole file; returns its bytes (NUL-terminated) or NULL. */
static char *
slurp(const char *path)
{
	FILE	*f;
	char	*buf;
	long	 n;

	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	assert_non_null(buf = malloc((size_t)n + 1));
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return (buf);
}

/* The result of one compare: its files and its terminal's text. */
struct res {
	char	*json, *md, *tty, *tripped;
	char	*rel;		/* json's "relative" list, cut out */
	char	*abs;		/* json's "comparisons" list */
};

/* Runs compare old new (in top) with gate mask, and reads what it wrote. */
static void
res_get(struct res *x, const char *top, int mask)
{
	char	 old[PATH_MAX], new[PATH_MAX], path[PATH_MAX], *cause = NULL;
	char	*p, *q;
	size_t	 len = 0;
	FILE	*tty;

	memset(x, 0, sizeof *x);
	snprintf(old, sizeof old, "%s/old", top);
	snprintf(new, sizeof new, "%s/new", top);
	assert_non_null(tty = open_memstream(&x->tty, &len));
	if (compare_render(old, new, new, tty, mask, &x->tripped,
	    &cause) != 0)
		fail_msg("%s", cause);
	fclose(tty);
	snprintf(path, sizeof path, "%s/compare.json", new);
	assert_non_null(x->json = slurp(path));
	snprintf(path, sizeof path, "%s/compare.md", new);
	assert_non_null(x->md = slurp(path));
	assert_non_null(p = strstr(x->json, "\"relative\": ["));
	assert_non_null(q = strstr(p, "\"comparisons\": ["));
	x->rel = strndup(p, (size_t)(q - p));
	x->abs = strdup(q);
}

static void
res_free(struct res *x)
{
	free(x->json);
	free(x->md);
	free(x->tty);
	free(x->tripped);
	free(x->rel);
	free(x->abs);
}

/* Returns 1 when s says better or worse as a JSON verdict. */
static int
called(const char *s)
{
	return (strstr(s, "\"verdict\": \"better\"") != NULL ||
	    strstr(s, "\"verdict\": \"worse\"") != NULL);
}

/* Makes top with the runs old and new of g and h; returns top. */
static char *
pair(const struct gen *o, const struct gen *n, uint64_t seed)
{
	char	*top, dir[PATH_MAX];

	assert_non_null(top = synth_tmpdir_new("compare"));
	snprintf(dir, sizeof dir, "%s/old", top);
	gen_run(dir, o, seed);
	snprintf(dir, sizeof dir, "%s/new", top);
	gen_run(dir, n, seed + 1000);
	return (top);
}

/* Removes top and its two runs. */
static void
unpair(char *top)
{
	char	dir[PATH_MAX];

	snprintf(dir, sizeof dir, "%s/old", top);
	synth_tmpdir_free(strdup(dir));
	snprintf(dir, sizeof dir, "%s/new", top);
	synth_tmpdir_free(strdup(dir));
	rmdir(top);
	free(top);
}

static void
test_machine_moved(void **state)
{
	const struct gen	 o = { 1.00, 1.0, sha_a, sha_b, NULL, 0.01, NULL };
	const struct gen	 n = { 1.05, 1.0, sha_a, sha_b, NULL, 0.01, NULL };
	struct res		 x;
	char			*top;

	(void)state;
	top = pair(&o, &n, 1);
	res_get(&x, top, GATE_WORSE);
	assert_false(called(x.json));
	assert_null(x.tripped);
	assert_non_null(strstr(x.abs, "\"variant\": \"A\""));
	assert_null(strstr(x.abs, "\"files\": \"changed\""));
	assert_non_null(strstr(x.abs, "\"files\": \"same\""));
	/* The machine's move, the reference's beside it. */
	assert_non_null(strstr(x.tty, "  A  1.0"));
	assert_non_null(strstr(x.tty, "files unchanged: the machine moved "
	    "by +5."));
	assert_non_null(strstr(x.tty, "% (the reference A: +5."));
	assert_non_null(strstr(x.md, "files unchanged: the machine moved "
	    "by +5."));
	assert_non_null(strstr(x.tty, "B / A  "));
	assert_non_null(strstr(x.tty, "(files of both unchanged: never better "
	    "or worse, only the machine moved)"));
	res_free(&x);
	unpair(top);
}

/*
 * The same files, yet B / A moved by 10% (as a layout or a busy machine
 * can move it between runs): the relative row is not called either.
 */
static void
test_ratio_moved(void **state)
{
	const struct gen	 o = { 1.00, 1.00, sha_a, sha_b, NULL, 0.01,
				    NULL };
	const struct gen	 n = { 1.00, 1.10, sha_a, sha_b, NULL, 0.01,
				    NULL };
	struct res		 x;
	char			*top;

	(void)state;
	top = pair(&o, &n, 11);
	res_get(&x, top, GATE_WORSE);
	assert_false(called(x.json));
	assert_null(x.tripped);
	assert_non_null(strstr(x.rel, "\"verdict\": \"inconclusive\""));
	assert_non_null(strstr(x.json, "\"family_size\": 0,"));
	res_free(&x);
	unpair(top);
}

/* B's env changed, its files not: B is "changed", A "same". */
static void
test_settings(void **state)
{
	static const char	 t1[] = "[suite]\nname = cmp\nreference = A\n"
	    "[variant.A]\nbin = /bin/true\n[variant.B]\nbin = /bin/true\n"
	    "env = X=1\n[bench.k1]\nargs = 1\n";
	static const char	 t2[] = "[suite]\nname = cmp\nreference = A\n"
	    "[variant.A]\nbin = /bin/true\n[variant.B]\nbin = /bin/true\n"
	    "env = X=2\n[bench.k1]\nargs = 1\n";
	static const char	 t3[] = "[suite]\nname = cmp\nreference = A\n"
	    "[variant.A]\nbin = /bin/true\n[variant.B]\nbin = /bin/true\n"
	    "env = X=1\n[bench.k1]\nargs = 2\n";
	struct gen		 o = { 1.00, 1.0, sha_a, sha_b, NULL, 0.01, t1 };
	struct gen		 n = { 1.00, 1.2, sha_a, sha_b, NULL, 0.01, t2 };
	struct res		 x;
	const char		*p;
	char			*top;

	(void)state;
	top = pair(&o, &n, 13);
	res_get(&x, top, 0);
	assert_non_null(p = strstr(x.abs, "\"variant\": \"A\""));
	assert_non_null(strstr(p, "\"files\": \"same\""));
	assert_non_null(p = strstr(x.abs, "\"variant\": \"B\""));
	assert_non_null(strstr(p, "\"files\": \"changed\""));
	assert_non_null(strstr(x.rel, "\"verdict\": \"worse\""));
	res_free(&x);
	unpair(top);
	/* The benchmark's arguments changed: every variant changed. */
	n.text = t3;
	top = pair(&o, &n, 17);
	res_get(&x, top, 0);
	assert_null(strstr(x.abs, "\"files\": \"same\""));
	res_free(&x);
	unpair(top);
}

static void
test_b_changed(void **state)
{
	const struct gen	 o = { 1.00, 1.00, sha_a, sha_b, NULL, 0.01, NULL };
	const struct gen	 n = { 1.05, 1.08, sha_a, sha_c, NULL, 0.01, NULL };
	struct res		 x;
	const char		*p;
	char			*top;
	double			 ratio;

	(void)state;
	top = pair(&o, &n, 7);
	res_get(&x, top, GATE_WORSE);
	assert_non_null(p = strstr(x.rel, "\"variant\": \"B\", "
	    "\"reference\": \"A\""));
	assert_non_null(p = strstr(p, "\"ratio\": "));
	ratio = strtod(p + strlen("\"ratio\": "), NULL);
	print_message("B / A new / old: %.4f\n", ratio);
	assert_true(ratio > 1.06 && ratio < 1.10);
	assert_non_null(strstr(x.rel, "\"verdict\": \"worse\""));
	/* A is not called, nor B's absolute row: no between-run spread. */
	assert_false(called(x.abs));
	assert_non_null(strstr(x.abs, "\"variant\": \"B\""));
	assert_non_null(strstr(x.abs, "\"verdict\": \"inconclusive\", "
	    "\"files\": \"changed\", \"note\": \"files changed: between-run "
	    "spread unknown: index >= 3 runs of these files, or compare the "
	    "relative rows\""));
	assert_non_null(x.tripped);
	assert_non_null(strstr(x.tripped, "orch: --fail-on: x1 k1 elapsed_ns "
	    "B: new vs old worse: ratio 1.0"));
	assert_non_null(strstr(x.tripped, "relative to A"));
	assert_null(strstr(x.tripped, " A: "));
	assert_null(strstr(x.tripped, "\n"
	    "orch"));	/* one line only */
	/* The terminal and compare.md: relative rows first. */
	assert_true(strstr(x.tty, "B / A") < strstr(x.tty, "absolute"));
	assert_true(strstr(x.md, "## Relative") < strstr(x.md,
	    "## Absolute"));
	res_free(&x);
	unpair(top);
}

/* Returns a uniform deviate in [0, 1) from r. */
static double
uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) * 0x1p-53);
}

/*
 * Compares npairs pairs of runs of unchanged programs, B rebuilt (another
 * SHA-256, so that its relative row can be called), each machine off by
 * a uniform random up to 3%, samples' noise sigma. Returns how many pairs
 * had their relative row called; no absolute row may be.
 */
static int
no_change(int npairs, double sigma, uint64_t seed)
{
	struct gen	 o = { 1.00, 1.0, sha_a, sha_b, NULL, 0, NULL };
	struct gen	 n = { 1.00, 1.0, sha_a, sha_c, NULL, 0, NULL };
	struct res	 x;
	struct rng	 r;
	char		*top;
	int		 i, ncalled = 0;

	o.sigma = n.sigma = sigma;
	rng_seed(&r, seed);
	for (i = 0; i < npairs; i++) {
		o.machine = 1 + 0.03 * (2 * uniform(&r) - 1);
		n.machine = 1 + 0.03 * (2 * uniform(&r) - 1);
		top = pair(&o, &n, seed + (uint64_t)i * 2);
		res_get(&x, top, 0);
		ncalled += called(x.rel);
		assert_false(called(x.abs));
		res_free(&x);
		unpair(top);
	}
	print_message("sigma %.3f: relative rows called in %d of %d pairs\n",
	    sigma, ncalled, npairs);
	return (ncalled);
}

/* The 20 pairs, samples' noise 0.5% (a quiet program). */
static void
test_no_change_pairs(void **state)
{
	(void)state;
	assert_true(no_change(20, 0.005, 28) <= 1);
}

/*
 * The level itself, where min_effect (1%) does not hide it: at 1% noise
 * a pair is called at most at the family's 5% (bound: 5% and two binomial
 * standard errors of 400 pairs, 28).
 */
static void
test_no_change_level(void **state)
{
	(void)state;
	assert_true(no_change(400, 0.01, 2800) <= 28);
}

static void
test_no_files(void **state)
{
	const struct gen	 o = { 1.00, 1.0, NULL, NULL, NULL, 0.01, NULL };
	const struct gen	 n = { 1.00, 1.0, NULL, sha_b, NULL, 0.01, NULL };
	const struct gen	 z = { 1.00, 1.0, sha_a, sha_b, "Z", 0.01, NULL };
	struct res		 x;
	char			*top;

	(void)state;
	/* No file recorded: nothing says the files are the same. */
	top = pair(&o, &n, 3);
	res_get(&x, top, 0);
	assert_null(strstr(x.abs, "\"files\": \"same\""));
	assert_non_null(strstr(x.abs, "\"files\": \"changed\""));
	res_free(&x);
	unpair(top);
	/* The old run has no A, the new run's reference: no relative row. */
	top = pair(&z, &o, 5);
	res_get(&x, top, 0);
	assert_non_null(strstr(x.json, "\"relative\": [],"));
	res_free(&x);
	unpair(top);
}

/*
 * Writes nh earlier runs of A and B's old program into top (h1, ...), on
 * machines the factors m apart, and indexes them with old and new into
 * top's history store.
 */
static void
spread_index(const char *top, const double *m, size_t nh)
{
	struct gen	 g = { 1.00, 1.0, sha_a, sha_b, NULL, 0.01, NULL };
	struct history	*h;
	char		*dirs[8], *cause = NULL, path[PATH_MAX];
	size_t		 i;

	for (i = 0; i < nh + 2; i++)
		assert_non_null(dirs[i] = malloc(PATH_MAX));
	for (i = 0; i < nh; i++) {
		g.machine = m[i];
		snprintf(dirs[i], PATH_MAX, "%s/h%zu", top, i + 1);
		gen_run(dirs[i], &g, 500 + i);
	}
	snprintf(dirs[nh], PATH_MAX, "%s/old", top);
	snprintf(dirs[nh + 1], PATH_MAX, "%s/new", top);
	snprintf(path, sizeof path, "%s/history.sqlite", top);
	if (history_open(path, 1, &h, NULL, &cause) != 0 ||
	    report_index_list(h, dirs, nh + 2, &cause) != 0)
		fail_msg("%s", cause);
	history_close(h);
	for (i = 0; i < nh + 2; i++)
		free(dirs[i]);
}

/* Removes what spread_index (nh runs) and pair made. */
static void
spread_free(char *top, size_t nh)
{
	char	path[PATH_MAX];
	size_t	i;

	for (i = 0; i < nh; i++) {
		snprintf(path, sizeof path, "%s/h%zu", top, i + 1);
		synth_tmpdir_free(strdup(path));
	}
	snprintf(path, sizeof path, "%s/history.sqlite", top);
	unlink(path);
	snprintf(path, sizeof path, "%s/history.sqlite-wal", top);
	unlink(path);
	snprintf(path, sizeof path, "%s/history.sqlite-shm", top);
	unlink(path);
	unpair(top);
}

/*
 * Four indexed runs of B's old program 3% apart: B's absolute row of a
 * changed program is decided with their spread in its interval (30%
 * slower: worse; 2% slower: not called); with two such runs it is
 * inconclusive, the spread unknown.
 */
static void
test_spread(void **state)
{
	static const double	 m4[] = { 1.00, 1.04, 0.97, 1.02 };
	const struct gen	 o = { 1.00, 1.00, sha_a, sha_b, NULL, 0.01,
				    NULL };
	struct gen		 n = { 1.00, 1.30, sha_a, sha_c, NULL, 0.01,
				    NULL };
	struct res		 x;
	const char		*p;
	char			*top;

	(void)state;
	top = pair(&o, &n, 21);
	spread_index(top, m4, 4);
	res_get(&x, top, GATE_WORSE);
	if (getenv("CMP_DEBUG") != NULL)
		print_message("%s", x.abs);
	assert_non_null(p = strstr(x.abs, "\"variant\": \"B\""));
	assert_non_null(strstr(p, "\"verdict\": \"worse\", \"files\": "
	    "\"changed\", \"note\": \"files changed: between-run spread "));
	assert_non_null(strstr(p, "% from 4 indexed runs of these files, in "
	    "the interval\""));
	/* The spread is in the interval: wider than the within-run one. */
	assert_non_null(strstr(x.json, "\"family_size\": 2,"));
	assert_non_null(x.tripped);
	assert_non_null(strstr(x.tripped, "x1 k1 elapsed_ns B: new vs old "
	    "worse: ratio 1.3"));
	res_free(&x);
	spread_free(top, 4);

	n.b = 1.02;
	top = pair(&o, &n, 23);
	spread_index(top, m4, 4);
	res_get(&x, top, 0);
	assert_false(called(x.abs));
	assert_non_null(strstr(x.abs, "from 4 indexed runs"));
	res_free(&x);
	spread_free(top, 4);

	n.b = 1.30;
	top = pair(&o, &n, 25);
	spread_index(top, m4, 2);
	res_get(&x, top, 0);
	assert_false(called(x.abs));
	assert_non_null(strstr(x.abs, "between-run spread unknown"));
	res_free(&x);
	spread_free(top, 2);

	/* A store that is not one: a warning, the spread unknown. */
	top = pair(&o, &n, 27);
	{
		char	path[PATH_MAX];
		FILE	*f;

		snprintf(path, sizeof path, "%s/history.sqlite", top);
		assert_non_null(f = fopen(path, "w"));
		fputs("not a database, not at all\n", f);
		fclose(f);
	}
	res_get(&x, top, 0);
	assert_non_null(strstr(x.json, "\"history store not read (no "
	    "between-run spread): "));
	assert_non_null(strstr(x.abs, "between-run spread unknown"));
	res_free(&x);
	spread_free(top, 0);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_machine_moved),
		cmocka_unit_test(test_ratio_moved),
		cmocka_unit_test(test_b_changed),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_no_change_pairs),
		cmocka_unit_test(test_no_change_level),
		cmocka_unit_test(test_no_files),
		cmocka_unit_test(test_spread),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
