/*
 * Unit tests for the Machines section (coordinator/analysis/machines.c,
 * report-machines.c) and its statistic (coordinator/analysis/stats-hl.c).
 *
 * The statistic against brute force: every order statistic of the n × m
 * differences found by counting equals the one of the sorted differences,
 * and the Mann–Whitney ranks equal R's qwilcox for known sizes.
 *
 * The section on a synthetic record written through the real record
 * writer (gen_machines): three hosts with known machine ratios and a known
 * instruction / CPI / clock split, small lognormal noise from a fixed seed.
 * The intervals cover the true ratios, the split reproduces the time ratio
 * within rounding, the per-core ratio divides out the declared threads,
 * the emulated host is named, and report.md, report.html and summary.json
 * are compared byte for byte with fixtures/machines/three.*.golden. Regenerate
 * them after a deliberate change, from the repository root:
 *   ORCH_UPDATE_GOLDEN=1 build/default/tests/test-machines
 * Also the suite keys threads and parallel, with their errors.
 */
#include <sys/stat.h>

#include <errno.h>
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

#include "coordinator/analysis/machines.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/analysis/stats-hl.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/report.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define FX_DIR	"tests/unit/fixtures/machines"
#define ROUNDS	12
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- helpers ------------------------------------------------------------ */

static int
cmp_dbl(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

static char *
slurp(const char *path)
{
	FILE	*f;
	long	 n;
	char	*s;

	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = calloc(1, (size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return (s);
}

/* ---- the statistic -------------------------------------------------------- */

/* qwilcox(0.025, n, m) in R, and a level that cannot be reached. */
static void
test_hl_rank(void **state)
{
	(void)state;
	assert_int_equal(stats_hl_rank(3, 3, 0.95), 0);
	assert_int_equal(stats_hl_rank(4, 4, 0.95), 1);
	assert_int_equal(stats_hl_rank(5, 5, 0.95), 3);
	assert_int_equal(stats_hl_rank(10, 10, 0.95), 24);
	assert_int_equal(stats_hl_rank(20, 20, 0.95), 128);
	assert_int_equal(stats_hl_rank(5, 10, 0.95), 9);
	/* The normal approximation past STATS_HL_EXACT_MAX lands close. */
	assert_true(llabs((long long)stats_hl_rank(50, 50, 0.95) -
	    (long long)stats_hl_rank(51, 50, 0.95)) <= 30);
	assert_true(fabs(stats_hl_probit(0.975) - 1.959964) < 1e-6);
}

/* Counting and bisection agree with the sorted differences. */
static void
test_hl_brute(void **state)
{
	/*
	 * n, m, and 1: small integers (ties, many differences exactly 0), 2:
	 * only 0 and 1 (a difference of 0 tens of thousands of times). Past
	 * 16384 differences the bisection runs before they are listed.
	 */
	static const size_t	sizes[][3] = {
		{ 1, 1, 0 }, { 3, 4, 0 }, { 5, 5, 0 }, { 12, 9, 0 },
		{ 60, 70, 0 }, { 8, 9, 1 }, { 55, 40, 1 }, { 1, 1, 1 },
		{ 400, 350, 0 }, { 380, 400, 1 }, { 400, 300, 2 }
	};
	struct rng	r;
	double		x[400], y[400], *d, est, lo, hi, want;
	size_t		c, i, j, n, m, nm, k;

	(void)state;
	rng_seed(&r, 42);
	for (c = 0; c < NELEM(sizes); c++) {
		n = sizes[c][0];
		m = sizes[c][1];
		for (i = 0; i < n; i++)
			x[i] = sizes[c][2] ? (double)(rng_next(&r) %
			    (sizes[c][2] == 2 ? 2 : 4)) : synth_gauss(&r);
		for (j = 0; j < m; j++)
			y[j] = sizes[c][2] ? (double)(rng_next(&r) %
			    (sizes[c][2] == 2 ? 2 : 5)) : 0.5 + synth_gauss(&r);
		nm = n * m;
		d = calloc(nm, sizeof *d);
		assert_non_null(d);
		for (i = 0; i < n; i++)
			for (j = 0; j < m; j++)
				d[i * m + j] = y[j] - x[i];
		qsort(d, nm, sizeof *d, cmp_dbl);
		assert_int_equal(stats_hl_shift(x, n, y, m, 0.95, &est, &lo,
		    &hi), 0);
		want = nm % 2 ? d[nm / 2] : (d[nm / 2 - 1] + d[nm / 2]) / 2;
		assert_true(est == want);
		k = stats_hl_rank(n, m, 0.95);
		if (k == 0) {
			assert_true(isnan(lo) && isnan(hi));
		} else {
			assert_true(lo == d[k - 1]);
			assert_true(hi == d[nm - k]);
		}
		free(d);
	}
	assert_int_equal(stats_hl_shift(x, 0, y, 3, 0.95, &est, &lo, &hi), -1);
	x[0] = NAN;
	assert_int_equal(stats_hl_shift(x, 1, y, 3, 0.95, &est, &lo, &hi), -1);
}

/* ---- a synthetic run of three machines ----------------------------------- */

/* One machine: its facts and the truth of its benchmarks. */
struct gen_host {
	const char	*name, *os, *arch, *cpu, *kernel, *governor;
	uint32_t	 cores;
	double		 instr;		/* per run of bench "serial" */
	double		 cpi;
	double		 ghz;
	double		 par;		/* time ratio of bench "par" */
};

static const struct gen_host gen_hosts[] = {
	/* The reference: 1e9 instructions at CPI 1, 3 GHz: 333 ms. */
	{ "x86", "linux", "x86_64", "AMD EPYC 9654 96-Core Processor",
	    "6.1.0-18-amd64", "performance", 8, 1e9, 1.0, 3.0, 1.0 },
	/* 1.25x the instructions, CPI 0.64, 3.2 GHz: time ratio 0.75. */
	{ "m2", "darwin", "aarch64", "Apple M2", "23.6.0", "", 8, 1.25e9,
	    0.64, 3.2, 0.6 },
	/* Emulated: 3x the instructions, CPI 1.5, 2.25 GHz: ratio 6. */
	{ "arm", "linux", "aarch64", "Intel(R) Xeon(R) Processor",
	    "6.1.0-18-amd64", "performance", 2, 3e9, 1.5, 2.25, 4.0 },
};

/* The true time ratio of "serial" on host i against the reference. */
static double
gen_ratio(size_t i)
{
	const struct gen_host	*h = &gen_hosts[i], *r = &gen_hosts[0];

	return ((h->instr * h->cpi / h->ghz) / (r->instr * r->cpi / r->ghz));
}

/*
 * Writes a run of nhosts of gen_hosts into dir: bench "serial" (elapsed_ns,
 * instructions and cycles), bench "par" (threads = 4, elapsed_ns only),
 * variants A and B (B: 10% slower everywhere), ROUNDS rounds, 0.5% noise.
 */
static void
gen_machines(const char *dir, size_t nhosts, const char *cmdline)
{
	static const char	 text[] =
	    "[suite]\nname = machines\ncounters = instructions, cycles\n"
	    "[variant.A]\nbin = a\n[variant.B]\nbin = b\n"
	    "[bench.serial]\nmetrics = elapsed_ns, instructions, cycles\n"
	    "[bench.par]\nthreads = 4\nmetrics = elapsed_ns\n";
	struct record		 rec;
	struct synth_suite	 ss;
	struct suite_metric	 m[3];
	struct proto_sample	 smp;
	struct host		 h[NELEM(gen_hosts)];
	const struct gen_host	*g;
	struct rng		 r;
	char			*cause = NULL;
	uint32_t		 rnd, seq;
	size_t			 i, b, k, v;
	double			 noise, instr, cycles, t;

	/* serial's three metrics; par's one is the suite's elapsed_ns. */
	assert_int_equal(synth_suite(&ss, "machines", 2, 2, ROUNDS, 7), 0);
	ss.s.text = (char *)(uintptr_t)text;
	snprintf(ss.s.counters, sizeof ss.s.counters, "instructions,cycles");
	memset(m, 0, sizeof m);
	snprintf(m[0].name, PROTO_NAME_MAX, "elapsed_ns");
	snprintf(m[1].name, PROTO_NAME_MAX, "instructions");
	snprintf(m[2].name, PROTO_NAME_MAX, "cycles");
	snprintf(ss.bs[0].name, sizeof ss.bs[0].name, "serial");
	ss.bs[0].nmetrics = 3;
	ss.bs[0].metrics = m;
	snprintf(ss.bs[1].name, sizeof ss.bs[1].name, "par");
	ss.bs[1].threads = 4;

	for (i = 0; i < nhosts; i++) {
		g = &gen_hosts[i];
		synth_host(&h[i], g->name, g->arch, g->cpu, g->cores);
		snprintf(h[i].facts.os, sizeof h[i].facts.os, "%s", g->os);
		snprintf(h[i].facts.kernel, sizeof h[i].facts.kernel, "%s",
		    g->kernel);
		h[i].facts.mem_kb = 16ULL * 1024 * 1024;
		if (g->governor[0] != '\0')
			assert_int_equal(synth_fact(&h[i], "governor",
			    g->governor), 0);
	}
	rng_seed(&r, 7);
	if (synth_open(&rec, dir, "20260101-000000-mach", &ss.s, cmdline, h,
	    nhosts, &cause) != 0)
		fail_msg("%s", cause);
	for (i = 0; i < nhosts; i++)
		assert_int_equal(record_host(&rec, &h[i]), 0);
	for (i = 0; i < nhosts; i++) {
		g = &gen_hosts[i];
		seq = 0;
		for (rnd = 1; rnd <= ROUNDS; rnd++) {
			for (k = 0; k < 4; k++) {
				b = k / 2;
				v = (rnd % 2 == 1) ? k % 2 : 1 - k % 2;
				noise = exp(0.005 * synth_gauss(&r));
				/* B runs 10% more instructions. */
				instr = g->instr * (v == 1 ? 1.1 : 1) *
				    exp(0.0005 * synth_gauss(&r));
				cycles = instr * g->cpi * noise;
				t = b == 0 ? cycles / g->ghz :
				    2e8 * g->par * (v == 1 ? 1.1 : 1) * noise;
				synth_elapsed(&smp, seq++, rnd, 500000000, t);
				if (b == 0) {
					snprintf(smp.metrics[1].key,
					    PROTO_NAME_MAX, "instructions");
					smp.metrics[1].value = round(instr);
					snprintf(smp.metrics[2].key,
					    PROTO_NAME_MAX, "cycles");
					smp.metrics[2].value = round(cycles);
					smp.nmetrics = 3;
				}
				assert_int_equal(record_sample(&rec, g->name,
				    ss.bs[b].name, ss.vars[v].name, &smp), 0);
			}
		}
	}
	assert_int_equal(synth_close(&rec, h, nhosts), 0);
}

/* Loads dir and builds its analysis and machines. */
static void
load(const char *dir, struct dataset **ds, struct analysis **a,
    struct machines **m)
{
	char	*cause = NULL;

	if (synth_load(dir, ds, a, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(machines_build(*a, m), 0);
}

/* Returns the cell of host name, bench and variant. */
static const struct mach_cell *
cell(const struct machines *m, const char *host, size_t b, size_t v)
{
	size_t	i;

	for (i = 0; i < m->ncells; i++) {
		if (strcmp(m->a->ds->hosts[m->cells[i].host].name, host) == 0 &&
		    m->cells[i].bench == b && m->cells[i].variant == v)
			return (&m->cells[i]);
	}
	fail_msg("no cell %s %zu %zu", host, b, v);
	return (NULL);
}

/* Rounds to the three decimals the report prints. */
static double
r3(double v)
{
	return (round(v * 1000) / 1000);
}

/* Known ratios, the split, per core, the emulated host. */
static void
test_known(void **state)
{
	struct dataset		*ds;
	struct analysis		*a;
	struct machines		*m;
	const struct mach_cell	*c;
	char			*dir;
	double			 truth, prod, tol;
	size_t			 i, v;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("machines"));
	gen_machines(dir, 3, "orch run machines.ini");
	load(dir, &ds, &a, &m);
	assert_non_null(m);
	assert_string_equal(ds->hosts[m->ref].name, "x86");
	assert_int_equal(m->ref_given, 0);
	assert_int_equal(m->nhosts, 3);
	assert_int_equal(m->emulated[0], 0);	/* x86 */
	assert_int_equal(m->emulated[1], 0);	/* m2 */
	assert_int_equal(m->emulated[2], 1);	/* arm on a Xeon */
	assert_int_equal(m->counters, 1);
	assert_int_equal(m->parallel, 1);
	for (i = 1; i < NELEM(gen_hosts); i++) {
		for (v = 0; v < 2; v++) {
			/* The interval covers the true machine ratio. */
			c = cell(m, gen_hosts[i].name, 0, v);
			truth = gen_ratio(i);
			assert_true(c->lo <= truth && truth <= c->hi);
			assert_true(fabs(c->ratio / truth - 1) < 0.01);
			/* The split, each part near its truth... */
			assert_true(fabs(c->r_instr / (gen_hosts[i].instr /
			    gen_hosts[0].instr) - 1) < 0.002);
			assert_true(fabs(c->r_cpi / (gen_hosts[i].cpi /
			    gen_hosts[0].cpi) - 1) < 0.01);
			assert_true(fabs(c->r_clock / (gen_hosts[i].ghz /
			    gen_hosts[0].ghz) - 1) < 0.01);
			/* ...and, as printed, reproduces the time ratio. */
			prod = r3(c->r_instr) * r3(c->r_cpi) / r3(c->r_clock);
			tol = 0.0005 * (prod / r3(c->r_instr) + prod /
			    r3(c->r_cpi) + prod / r3(c->r_clock)) + 0.0005;
			assert_true(fabs(prod - r3(c->r_time)) <= tol);
			assert_true(fabs(c->r_time - c->ratio) < 1e-12);
			assert_true(fabs(c->ipc - 1 / gen_hosts[i].cpi) < 0.01);
			assert_true(fabs(c->ghz / gen_hosts[i].ghz - 1) < 0.01);
			/* Per core: par keeps 4 cores busy, arm has 2. */
			c = cell(m, gen_hosts[i].name, 1, v);
			truth = gen_hosts[i].par;
			assert_true(c->lo <= truth && truth <= c->hi);
			assert_true(c->ref_cores == 4);
			assert_true(c->cores == (i == 2 ? 2 : 4));
			assert_true(fabs(c->pc_ratio - c->ratio * c->cores /
			    4) < 1e-12);
			c = cell(m, gen_hosts[i].name, 0, v);
			assert_true(c->cores == 0 && isnan(c->pc_ratio));
		}
	}
	/* Geometric means over serial and par: sqrt of the product. */
	for (i = 0; i < m->ngeos; i++) {
		size_t	hi = strcmp(ds->hosts[m->geos[i].host].name, "m2") == 0 ?
		    1 : 2;

		truth = sqrt(gen_ratio(hi) * gen_hosts[hi].par);
		assert_int_equal(m->geos[i].nused, 2);
		assert_true(m->geos[i].lo <= truth && truth <= m->geos[i].hi);
	}
	/* Facts that differ: os, arch, cpu_model, cores, kernel, governor. */
	assert_int_equal(m->nfacts, 6);
	assert_string_equal(m->facts[2].name, "cpu_model");
	assert_string_equal(m->facts[2].value[2], "Intel(R) Xeon(R) Processor");
	machines_free(m);
	analysis_free(a);
	dataset_free((struct dataset *)ds);
	synth_tmpdir_free(dir);
}

/* The reference the run named on its command line is the report's. */
static void
test_cmdline_ref(void **state)
{
	struct dataset		*ds;
	struct analysis		*a;
	struct machines		*m;
	const struct mach_cell	*c;
	char			*dir;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("machines"));
	gen_machines(dir, 3, "orch run --machine-reference=m2 machines.ini");
	load(dir, &ds, &a, &m);
	assert_string_equal(ds->hosts[m->ref].name, "m2");
	assert_int_equal(m->ref_given, 1);
	c = cell(m, "x86", 0, 0);
	assert_true(c->lo <= 1 / gen_ratio(1) && 1 / gen_ratio(1) <= c->hi);
	machines_free(m);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);

	/* A name that is no host of the record: the first host. */
	assert_non_null(dir = synth_tmpdir_new("machines"));
	gen_machines(dir, 3, "orch run --machine-reference nohost x.ini");
	load(dir, &ds, &a, &m);
	assert_string_equal(ds->hosts[m->ref].name, "x86");
	assert_int_equal(m->ref_given, 0);
	machines_free(m);
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/* One host: no section, "machines": null. */
static void
test_one_host(void **state)
{
	struct dataset	*ds;
	struct analysis	*a;
	struct machines	*m;
	char		*dir, *cause = NULL, path[4096], *s;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("machines"));
	gen_machines(dir, 1, "orch run machines.ini");
	load(dir, &ds, &a, &m);
	assert_null(m);
	analysis_free(a);
	dataset_free(ds);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("%s", cause);
	snprintf(path, sizeof path, "%s/report.md", dir);
	s = slurp(path);
	assert_null(strstr(s, "## Machines"));
	free(s);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	s = slurp(path);
	assert_non_null(strstr(s, "\"machines\": null"));
	free(s);
	synth_tmpdir_free(dir);
}

/* report.md, report.html and summary.json of the three machines. */
static void
test_golden(void **state)
{
	static const char *const files[] = {
		"report.md", "report.html", "summary.json"
	};
	const char	*upd = getenv("ORCH_UPDATE_GOLDEN");
	char		*dir, *cause = NULL, path[4096];
	char		*got, *want;
	FILE		*f;
	size_t		 i;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("machines"));
	gen_machines(dir, 3, "orch run machines.ini");
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("%s", cause);
	for (i = 0; i < NELEM(files); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		got = slurp(path);
		assert_non_null(got);
		snprintf(path, sizeof path, "%s/three.%s.golden", FX_DIR,
		    files[i]);
		if (upd != NULL && strcmp(upd, "1") == 0) {
			mkdir(FX_DIR, 0755);
			assert_non_null(f = fopen(path, "w"));
			fputs(got, f);
			fclose(f);
		}
		want = slurp(path);
		if (want == NULL || strcmp(got, want) != 0)
			fail_msg("%s differs from %s (regenerate with "
			    "ORCH_UPDATE_GOLDEN=1 and review the diff)",
			    files[i], path);
		free(got);
		free(want);
	}
	snprintf(path, sizeof path, "%s/report.md", dir);
	got = slurp(path);
	assert_non_null(strstr(got, "## Machines"));
	assert_non_null(strstr(got, "compared unpaired"));
	assert_non_null(strstr(got, "`arm` is emulated"));
	assert_non_null(strstr(got, "### Where the time goes"));
	free(got);
	snprintf(path, sizeof path, "%s/report.html", dir);
	got = slurp(path);
	assert_non_null(strstr(got, "<section id=\"machines\">"));
	assert_non_null(strstr(got, "aria-label=\"m2 relative to x86\""));
	free(got);
	synth_tmpdir_free(dir);
}

/* ---- the suite keys --------------------------------------------------------- */

static void
write_suite(const char *path, const char *bench)
{
	FILE	*f;

	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "[suite]\nname = t\n[variant.A]\nbin = /bin/true\n"
	    "[variant.B]\nbin = /bin/true\n[bench.b]\n%s", bench);
	fclose(f);
}

static void
test_suite_keys(void **state)
{
	static const struct {
		const char	*text;
		uint32_t	 threads;	/* 0: an error */
		const char	*err;
	} cases[] = {
		{ "threads = 4\n", 4, NULL },
		{ "parallel = yes\n", SUITE_THREADS_ALL, NULL },
		{ "parallel = no\n", 1, NULL },
		{ "args = x\n", 0, NULL },
		{ "threads = 0\n", 0, ":8: [bench.b] threads: 0 is out of "
		    "range 1..4096" },
		{ "threads = four\n", 0, ":8: [bench.b] threads: 'four' is "
		    "not an integer" },
		{ "parallel = maybe\n", 0, ":8: [bench.b] parallel: 'maybe' "
		    "is not yes or no" },
		{ "threads = 2\nparallel = yes\n", 0, ":9: [bench.b]: give "
		    "threads or parallel, not both" },
	};
	char		 path[] = "/tmp/orch-test-machines-suite.XXXXXX";
	struct suite	*s;
	char		*cause, want[256];
	size_t		 i;
	int		 fd;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		strcpy(path, "/tmp/orch-test-machines-suite.XXXXXX");
		assert_true((fd = mkstemp(path)) != -1);
		close(fd);
		write_suite(path, cases[i].text);
		s = NULL;
		cause = NULL;
		if (cases[i].err == NULL) {
			if (suite_load(path, &s, &cause) != 0)
				fail_msg("%s: %s", cases[i].text, cause);
			assert_int_equal(s->benches[0].threads,
			    cases[i].threads);
			suite_free(s);
		} else {
			assert_int_equal(suite_load(path, &s, &cause), -1);
			snprintf(want, sizeof want, "%s%s", path,
			    cases[i].err);
			assert_string_equal(cause, want);
			free(cause);
		}
		unlink(path);
	}
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_hl_rank),
		cmocka_unit_test(test_hl_brute),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_cmdline_ref),
		cmocka_unit_test(test_one_host),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_suite_keys),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
