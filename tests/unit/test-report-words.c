/*
 * Unit tests for the reports' smaller words (issue 32 items 9 and 10,
 * issue 27's answer.md escape), on records built here with fixed values:
 * a wall_ns at or below the harness floor is never a negative time or a
 * negative CV; the plan line says the rounds the hosts ran, not the most
 * rounds = auto allows; the forest plot's axis holds every estimate and
 * interval end it draws; the terminal answer gives each variant's typical
 * value and spread; a crafted CPU model is no Markdown link in answer.md.
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

#include "coordinator/analysis/analysis.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/report-index.h"
#include "coordinator/report/report.h"
#include "coordinator/report/report-text.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/history.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* What a generated record holds: one host, A and B, one bench. */
struct gen {
	const char	*cpu;		/* the host's CPU model */
	int		 auto_rounds;	/* rounds = auto, at most max_rounds */
	uint32_t	 max_rounds;
	uint32_t	 rounds;	/* rounds the host ran */
	double		 floor_ns;	/* each floor run's wall time */
	double		 a_ns, b_ns;	/* A's and B's wall time, about */
	const char	*text;		/* the suite's text; NULL: a stub */
	const char	*bench;		/* its bench; NULL: "run" */
};

/* Reads a whole file; returns its bytes (NUL-terminated) or NULL. */
static char *
slurp(const char *dir, const char *name)
{
	char	 path[1024], *buf;
	FILE	*f;
	long	 n;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "rb")) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	assert_true((n = ftell(f)) >= 0);
	assert_int_equal(fseek(f, 0, SEEK_SET), 0);
	assert_non_null(buf = malloc((size_t)n + 1));
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return (buf);
}

/* Writes one sample of wall time ns (status 0) as round r. */
static void
gen_sample(struct record *rec, const char *bench, const char *variant,
    uint32_t round, uint32_t *seq, double ns)
{
	struct proto_sample	s;

	memset(&s, 0, sizeof s);
	s.seq = (*seq)++;
	s.round = round;
	s.attempt = 1;
	s.load1 = 0.1;
	s.start_ns = 1768471200LL * 1000000000LL + (int64_t)s.seq * 100000000;
	s.wall_ns = (uint64_t)ns;
	s.user_ns = (uint64_t)(ns / 2);
	assert_int_equal(record_sample(rec, "lab", bench, variant, &s), 0);
}

/*
 * Writes a record of g in a new directory, and renders its reports there;
 * returns the directory (tmpdir_free frees it).
 */
static char *
gen_render(const struct gen *g)
{
	static const char	 text[] = "[suite]\nname = words\n";
	struct record		 rec;
	struct suite		 s;
	struct suite_variant	 vars[2];
	struct suite_bench	 bs[1];
	struct suite_metric	 m[1];
	struct host		 h;
	static unsigned		 nrun;
	char			*dir, *cause = NULL, sha[PROTO_SHA_HEX];
	char			 run_id[32];
	uint32_t		 r, seq = 0;
	size_t			 k;

	assert_non_null(dir = synth_tmpdir_new("words"));
	memset(&s, 0, sizeof s);
	memset(vars, 0, sizeof vars);
	memset(bs, 0, sizeof bs);
	memset(m, 0, sizeof m);
	s.path = (char *)(uintptr_t)"words.ini";
	s.text = (char *)(uintptr_t)(g->text != NULL ? g->text : text);
	snprintf(s.name, sizeof s.name, "words");
	s.rounds = g->auto_rounds ? g->max_rounds : g->rounds;
	s.auto_rounds = g->auto_rounds;
	s.min_rounds = 5;
	s.max_rounds = g->max_rounds;
	s.seed = 5;
	s.min_effect = 0.01;
	s.subtract_floor = 1;
	s.nvariants = 2;
	s.variants = vars;
	snprintf(vars[0].name, sizeof vars[0].name, "A");
	snprintf(vars[1].name, sizeof vars[1].name, "B");
	s.nbenches = 1;
	s.benches = bs;
	snprintf(m[0].name, PROTO_NAME_MAX, "wall_ns");
	snprintf(bs[0].name, sizeof bs[0].name, "%s",
	    g->bench != NULL ? g->bench : "run");
	bs[0].nmetrics = 1;
	bs[0].metrics = m;

	memset(&h, 0, sizeof h);
	snprintf(h.name, sizeof h.name, "lab");
	snprintf(h.agent_version, sizeof h.agent_version, "0.1.0");
	snprintf(h.facts.os, sizeof h.facts.os, "linux");
	snprintf(h.facts.arch, sizeof h.facts.arch, "x86_64");
	snprintf(h.facts.cpu_model, sizeof h.facts.cpu_model, "%s", g->cpu);
	snprintf(h.facts.kernel, sizeof h.facts.kernel, "6.1.0");
	snprintf(h.facts.workdir, sizeof h.facts.workdir, "/home/b/.orch");
	h.facts.cores = 4;
	h.status = HOST_OK;

	if (record_open(&rec, dir, &cause) != 0)
		fail_msg("%s", cause);
	/* Each record of the process its own run id, for the history. */
	snprintf(run_id, sizeof run_id, "20260115-1000%02u-words", nrun++);
	assert_int_equal(record_run(&rec, run_id, &s, 5,
	    "orch run words.ini", "2026-01-15T10:00:00Z", &h, 1), 0);
	assert_int_equal(record_host(&rec, &h), 0);
	for (k = 0; k < 2; k++) {
		memset(sha, 0, sizeof sha);
		memset(sha, "ab"[k], 64);
		assert_int_equal(record_file(&rec, "lab", vars[k].name, "bin",
		    k == 0 ? "bin/a" : "bin/b", sha, 0), 0);
	}
	for (r = 1; r <= g->rounds; r++) {
		/* A spread of +-10% about each value, alternating. */
		double	 f = 1 + 0.1 * ((double)(r % 5) - 2) / 2;

		gen_sample(&rec, RECORD_FLOOR, "", r, &seq, g->floor_ns);
		gen_sample(&rec, bs[0].name, "A", r, &seq, g->a_ns * f);
		gen_sample(&rec, bs[0].name, "B", r, &seq, g->b_ns * f);
	}
	assert_int_equal(record_hostend(&rec, &h), 0);
	assert_int_equal(record_close(&rec, "2026-01-15T10:01:00Z"), 0);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("%s", cause);
	return (dir);
}

/* Fails when text holds needle. */
static void
expect_none(const char *what, const char *text, const char *needle)
{
	const char	*p;

	if ((p = strstr(text, needle)) != NULL)
		fail_msg("%s: '%s' found: '%.120s'", what, needle, p);
}

static void
expect_in(const char *what, const char *text, const char *needle)
{
	if (strstr(text, needle) == NULL)
		fail_msg("%s: '%s' not found", what, needle);
}

/*
 * A's runs are at or below the floor (2 ms floor, A 1.9 ms +-10%): its
 * median, range and CV are no negative numbers in report.md and
 * report.html ("-1278291 ns", "CV -446.8" before), but "below the floor
 * (2.000 ms)" and "-".
 */
static void
test_below_floor(void **state)
{
	const struct gen	 g = { "Intel(R) Xeon(R) Gold 6130", 0, 0, 12,
	    2e6, 1.9e6, 8e6, NULL, NULL };
	const char		*files[] = { "report.md", "report.html" };
	char			*dir, *text, *row;
	size_t			 i;

	(void)state;
	dir = gen_render(&g);
	for (i = 0; i < NELEM(files); i++) {
		text = slurp(dir, files[i]);
		expect_in(files[i], text, "below the floor (2.000 ms)");
		expect_none(files[i], text, " -1");
		expect_none(files[i], text, ">-1");
		expect_none(files[i], text, "| -2");
		expect_none(files[i], text, ">-2");
		expect_none(files[i], text, "| -3");
		expect_none(files[i], text, "| -4");
		free(text);
	}
	/* A's row in report.md: median, range below, IQR and CV "-". */
	text = slurp(dir, "report.md");
	assert_non_null(row = strstr(text, "| **wall_ns** | A (ref) |"));
	*strchr(row, '\n') = '\0';
	expect_in("A's row", row, "| below the floor (2.000 ms) | below the "
	    "floor (2.000 ms) … ");
	expect_in("A's row", row, "| - | - |");
	free(text);
	synth_tmpdir_free(dir);
}

/*
 * rounds = auto that stopped after 15 of at most 200 rounds: the plan
 * line says 15 (it said 200), and that 200 was the most.
 */
static void
test_auto_rounds(void **state)
{
	const struct gen	 g = { "Intel(R) Xeon(R) Gold 6130", 1, 200, 15,
	    2e4, 3e6, 6e6, NULL, NULL };
	const char		*files[] = { "report.md", "report.html" };
	char			*dir, *text;
	size_t			 i;

	(void)state;
	dir = gen_render(&g);
	for (i = 0; i < NELEM(files); i++) {
		text = slurp(dir, files[i]);
		expect_in(files[i], text, "2 variants over 15 interleaved "
		    "rounds (0 warmup runs each first; rounds = auto, at most "
		    "200)");
		expect_none(files[i], text, "over 200 interleaved");
		free(text);
	}
	text = slurp(dir, "answer.md");
	expect_in("answer.md", text, "; 15 rounds, seed");
	free(text);
	synth_tmpdir_free(dir);
}

/* Returns the forest plot's axis ends, from its first and last tick. */
static void
forest_x_range(const char *html, const char **svg, const char **end)
{
	assert_non_null(*svg = strstr(html, "<svg class=\"forest\""));
	assert_non_null(*end = strstr(*svg, "</svg>"));
}

/*
 * Every dot and diamond a forest plot draws is inside its axis (x 340
 * to 770 in report-html.c's geometry): A is 3x B, an estimate far from
 * the band of "same".
 */
static void
test_forest_axis(void **state)
{
	const struct gen	 g = { "Intel(R) Xeon(R) Gold 6130", 0, 0, 12,
	    2e4, 9e6, 3e6, NULL, NULL };
	const char		*svg, *end, *p;
	char			*dir, *html;
	double			 x;
	size_t			 n = 0;

	(void)state;
	dir = gen_render(&g);
	html = slurp(dir, "report.html");
	forest_x_range(html, &svg, &end);
	for (p = svg; (p = strstr(p, "<circle cx=\"")) != NULL && p < end;
	    p++, n++) {
		x = strtod(p + 12, NULL);
		if (!(x >= 340 && x <= 770))
			fail_msg("a dot at x %g, off the axis 340..770", x);
	}
	for (p = svg; (p = strstr(p, "<polygon points=\"")) != NULL &&
	    p < end; p++, n++) {
		double	xl, y;

		/* The points: its left end, then its estimate's. */
		assert_int_equal(sscanf(p + 17, "%lf,%lf %lf", &xl, &y, &x),
		    3);
		if (!(x >= 340 && x <= 770) || !(xl + 3 >= 340))
			fail_msg("a diamond at x %g, off the axis", x);
	}
	assert_true(n >= 2);
	expect_in("report.html", html, "0.332 [");
	free(html);
	synth_tmpdir_free(dir);
}

/* A one-line run's suite text: A runs /usr/bin/CMD_A, B /usr/bin/CMD_B. */
#define ONELINE_TEXT(a, b) \
	"; orch run --: the commands as a suite (docs/suites.md)\n" \
	"[suite]\nname = oneline\n\n[variant.A]\nbin = /usr/bin/" a "\n" \
	"\n[variant.B]\nbin = /usr/bin/" b "\n\n[bench.cmd]\n"

/* Returns the variant key of run ri's point for reference or not. */
static const char *
point_of(const struct hist_point *pts, size_t n, size_t ri, int ref)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (pts[i].run == ri && pts[i].primary &&
		    (strcmp(pts[i].variant, pts[i].reference) == 0) == ref)
			return (pts[i].variant);
	}
	fail_msg("no point of run %zu", ri);
	return (NULL);
}

/*
 * Two one-line runs whose variants are both named A and B (as -n would
 * name them) but run other commands: each command is its own series in
 * the history (before, both runs filed A's and B's under "A" and "B"),
 * and the same command in both runs (sleep 1) is one series.
 */
static void
test_oneline_series(void **state)
{
	const struct gen	 g1 = { "cpu", 0, 0, 6, 2e4, 3e6, 6e6,
	    ONELINE_TEXT("true", "sleep 1"), "cmd" };
	const struct gen	 g2 = { "cpu", 0, 0, 6, 2e4, 6e6, 9e6,
	    ONELINE_TEXT("sleep 1", "gzip"), "cmd" };
	const struct hist_filter f = { NULL, NULL, NULL, NULL, NULL };
	struct history		*h = NULL;
	struct hist_run		*runs = NULL;
	struct hist_point	*pts = NULL;
	char			*d1, *d2, *cause = NULL, path[1024];
	const char		*a1, *b1, *a2, *b2;
	size_t			 nruns = 0, npts = 0;
	int			 rebuilt = 0;

	(void)state;
	d1 = gen_render(&g1);
	d2 = gen_render(&g2);
	snprintf(path, sizeof path, "%s/%s", d1, HISTORY_FILE);
	if (history_open(path, 1, &h, &rebuilt, &cause) != 0 ||
	    report_index(h, d1, &cause) != 0 ||
	    report_index(h, d2, &cause) != 0 ||
	    history_query(h, &f, &runs, &nruns, &pts, &npts, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(nruns, 2);
	a1 = point_of(pts, npts, 0, 1);
	b1 = point_of(pts, npts, 0, 0);
	a2 = point_of(pts, npts, 1, 1);
	b2 = point_of(pts, npts, 1, 0);
	if (strcmp(a1, a2) == 0 || strcmp(b1, b2) == 0 || strcmp(a1, b2) == 0)
		fail_msg("other commands share a series: %s %s / %s %s", a1,
		    b1, a2, b2);
	if (strncmp(a1, "true.", 5) != 0 || strncmp(b2, "gzip.", 5) != 0)
		fail_msg("keys not named by their commands: %s, %s", a1, b2);
	/* sleep 1: B of the first run, A of the second: one series. */
	assert_string_equal(b1, a2);
	history_query_free(runs, nruns, pts, npts);
	history_close(h);
	unlink(path);
	snprintf(path, sizeof path, "%s/%s-wal", d1, HISTORY_FILE);
	unlink(path);
	snprintf(path, sizeof path, "%s/%s-shm", d1, HISTORY_FILE);
	unlink(path);
	synth_tmpdir_free(d1);
	synth_tmpdir_free(d2);
}

/*
 * The terminal answer gives, under each comparison, each variant's
 * median and MAD x 1.4826 with its unit (net of the 20 us floor): A
 * 3 ms and B 6 ms +-10% in rounds of 0.9 to 1.1.
 */
static void
test_answer_typical(void **state)
{
	const struct gen	 g = { "cpu", 0, 0, 12, 2e4, 3e6, 6e6, NULL,
	    NULL };
	struct dataset		*ds = NULL;
	struct analysis		*an = NULL;
	char			*dir, *cause = NULL, *buf = NULL;
	size_t			 len = 0;
	FILE			*f;

	(void)state;
	dir = gen_render(&g);
	if (record_load(dir, &ds, &cause) != 0 ||
	    analysis_build(ds, &an, &cause) != 0)
		fail_msg("%s", cause);
	assert_non_null(f = open_memstream(&buf, &len));
	report_answer_text(an, f);
	assert_int_equal(fclose(f), 0);
	expect_in("the answer", buf, "\n    lab  run  wall_ns  ");
	expect_in("the answer", buf, "\n      B 5.980 ms ± 0.445 ms, A 2.980 "
	    "ms ± 0.222 ms (median ± MAD × 1.4826)\n");
	free(buf);
	analysis_free(an);
	dataset_free(ds);
	synth_tmpdir_free(dir);
}

/*
 * A host whose CPU model is a Markdown link and an image: answer.md and
 * report.md show its text, never a link (issue 27).
 */
static void
test_answer_md_escape(void **state)
{
	const struct gen	 g = { "[click](http://x) ![i](http://y)", 0, 0,
	    6, 2e4, 3e6, 6e6, NULL, NULL };
	const char		*files[] = { "answer.md", "report.md" };
	char			*dir, *text;
	size_t			 i;

	(void)state;
	dir = gen_render(&g);
	for (i = 0; i < NELEM(files); i++) {
		text = slurp(dir, files[i]);
		expect_none(files[i], text, "[click](");
		expect_none(files[i], text, "[i](");
		/* answer.md as report_md_text; report.md's prose, ']('. */
		expect_in(files[i], text, i == 0 ? "\\[click\\](http://x)" :
		    "[click\\](http://x)");
		free(text);
	}
	synth_tmpdir_free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_below_floor),
		cmocka_unit_test(test_auto_rounds),
		cmocka_unit_test(test_forest_axis),
		cmocka_unit_test(test_oneline_series),
		cmocka_unit_test(test_answer_typical),
		cmocka_unit_test(test_answer_md_escape),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
