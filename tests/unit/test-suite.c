/*
 * Unit tests for coordinator/input/suite.c: a suite with every key, the defaults,
 * one fixture per bad input (tests/unit/suites/bad-*.ini) with the exact
 * message beside it, and the word splitting and {os}/{arch} expansion.
 * Run from the repository root: fixture paths and messages are relative.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/input/suite.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define DIR		"tests/unit/suites/"

/* Loads a fixture that must parse, failing the test with the cause if not. */
static struct suite *
load_ok(const char *path)
{
	struct suite	*s = NULL;
	char		*cause = NULL;

	if (suite_load(path, &s, &cause) != 0)
		fail_msg("%s: %s", path, cause != NULL ? cause : "(no cause)");
	assert_null(cause);
	assert_non_null(s);
	return (s);
}

/* Renders words as "[w1][w2]..." so empty words show. */
static void
render(char **w, size_t n, char *out, size_t len)
{
	size_t	i, o = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, len - o, "[%s]", w[i]);
}

/* Checks a word array against its rendering. */
static void
check_words(char **w, size_t n, const char *want)
{
	char	got[1024];

	render(w, n, got, sizeof got);
	assert_string_equal(got, want);
	if (w != NULL)
		assert_null(w[n]);
}

/* Returns the whole file at path as a string (test helper; aborts on error). */
static char *
slurp(const char *path)
{
	FILE	*f = fopen(path, "rb");
	char	*buf;
	long	 n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return (buf);
}

/* ---- a suite with every key --------------------------------------------- */

/* Every key of good.ini parses to its exact value. */
static void
test_good(void **state)
{
	struct suite		*s;
	struct suite_variant	*v;
	struct suite_bench	*b;
	char			*text;

	(void)state;
	s = load_ok(DIR "good.ini");
	assert_string_equal(s->path, DIR "good.ini");
	text = slurp(DIR "good.ini");
	assert_string_equal(s->text, text);
	free(text);

	assert_string_equal(s->name, "good-suite");
	assert_int_equal(s->rounds, 20);
	assert_int_equal(s->warmup, 3);
	assert_true(s->seed == UINT64_MAX);
	assert_int_equal(s->has_seed, 1);
	assert_true(s->min_effect == 0.02);
	assert_int_equal(s->ref, 1);
	assert_true(s->max_load == 0.5);
	assert_int_equal(s->load_wait_s, 30);
	assert_int_equal(s->retries, 4);
	assert_string_equal(s->pin, "0-1,3");
	assert_int_equal(s->subtract_floor, 0);

	assert_int_equal(s->nvariants, 4);
	v = &s->variants[0];
	assert_string_equal(v->name, "A");
	assert_int_equal(v->line, 17);
	assert_string_equal(v->bin, DIR "exec/prog.sh");
	check_words(v->env, v->nenv, "[FOO=1][BAR=two words][EMPTY=]");
	check_words(v->args, v->nargs, "[--mode][a b][]");
	v = &s->variants[1];
	assert_string_equal(v->name, "B");
	assert_int_equal(v->line, 22);
	assert_string_equal(v->bin, "/bin/true");
	assert_int_equal(v->nargs, 0);
	assert_int_equal(v->nenv, 0);
	v = &s->variants[2];
	assert_string_equal(v->name, "C");
	assert_string_equal(v->bin, DIR "tmpl/{os}-{arch}/prog");
	check_words(v->args, v->nargs, "[-x]");
	v = &s->variants[3];
	assert_string_equal(v->name, "D");
	assert_string_equal(v->bin, DIR "tmpl/{os}-{arch}/prog");

	assert_int_equal(s->nbenches, 3);
	b = &s->benches[0];
	assert_string_equal(b->name, "hash");
	assert_int_equal(b->line, 32);
	check_words(b->args, b->nargs,
	    "[2000000][{file:data}][--other={file:other}]");
	assert_int_equal(b->nfiles, 2);
	assert_string_equal(b->files[0].name, "data");
	assert_string_equal(b->files[0].path, DIR "data/input.txt");
	assert_int_equal(b->files[0].line, 34);
	assert_string_equal(b->files[1].name, "other");
	assert_string_equal(b->files[1].path, DIR "data/other.txt");
	assert_int_equal(b->nmetrics, 3);
	assert_string_equal(b->metrics[0].name, "elapsed_ns");
	assert_int_equal(b->metrics[0].higher, 0);
	assert_string_equal(b->metrics[1].name, "wall_ns");
	assert_int_equal(b->metrics[1].higher, 0);
	assert_string_equal(b->metrics[2].name, "calls_per_s");
	assert_int_equal(b->metrics[2].higher, 1);
	assert_string_equal(b->checksum, "checksum");
	assert_int_equal(b->timeout_ms, 1);	/* 0.4 ms: up, not to none */

	b = &s->benches[1];
	assert_string_equal(b->name, "plain");
	assert_int_equal(b->nargs, 0);
	assert_int_equal(b->nfiles, 0);
	assert_int_equal(b->nmetrics, 1);
	assert_string_equal(b->metrics[0].name, "wall_ns");
	assert_int_equal(b->metrics[0].higher, 1);
	assert_string_equal(b->checksum, "");
	assert_int_equal(b->timeout_ms, 12500);	/* [suite] timeout */

	b = &s->benches[2];
	assert_string_equal(b->name, "x-1.y_z");
	assert_int_equal(b->nmetrics, 2);
	assert_int_equal(b->metrics[0].higher, 0);
	assert_string_equal(b->metrics[1].name, "maxrss_kb");
	assert_int_equal(b->metrics[1].higher, 1);
	assert_int_equal(b->timeout_ms, 0);
	suite_free(s);
}

/* Relative paths resolve against an absolute suite path too. */
static void
test_good_absolute(void **state)
{
	struct suite	*s;
	char		 cwd[4096], path[4200], want[4200];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(path, sizeof path, "%s/" DIR "good.ini", cwd);
	s = load_ok(path);
	snprintf(want, sizeof want, "%s/" DIR "exec/prog.sh", cwd);
	assert_string_equal(s->variants[0].bin, want);
	snprintf(want, sizeof want, "%s/" DIR "data/input.txt", cwd);
	assert_string_equal(s->benches[0].files[0].path, want);
	/* Already valid from the current directory: kept as written. */
	assert_string_equal(s->benches[0].files[1].path, DIR "data/other.txt");
	suite_free(s);
}

/* The default name is the file's, made a name: '-' and '.' kept but first. */
static void
test_default_name(void **state)
{
	static const struct {
		const char	*file;
		const char	*want;
	} cases[] = {
		{ "slow-fast.ini", "slow-fast" },
		{ "my suite.v2.ini", "my_suite.v2" },
		{ "-x.ini", "_x" },
		{ ".hidden-1.ini", "_hidden-1" },
		{ "..ini", "_" },
	};
	struct suite	*s;
	char		 dir[] = "/tmp/orch-test-suite.XXXXXX", path[256];
	FILE		*f;
	size_t		 i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
		assert_non_null(f = fopen(path, "w"));
		fputs("[suite]\n[variant.A]\nbin = /bin/true\n[variant.B]\n"
		    "bin = /bin/true\n[bench.one]\n", f);
		assert_int_equal(fclose(f), 0);
		s = load_ok(path);
		assert_string_equal(s->name, cases[i].want);
		suite_free(s);
		unlink(path);
	}
	rmdir(dir);
}

/* A suite with only what is required gets every default. */
static void
test_defaults(void **state)
{
	struct suite	*s;

	(void)state;
	s = load_ok(DIR "minimal.ini");
	assert_string_equal(s->name, "minimal");
	assert_int_equal(s->rounds, 10);
	assert_int_equal(s->warmup, 1);
	assert_int_equal(s->has_seed, 0);
	assert_true(s->min_effect == 0.01);
	assert_int_equal(s->ref, 0);
	assert_true(s->max_load == 1.0 / 3.0);
	assert_int_equal(s->load_wait_s, 600);
	assert_int_equal(s->retries, 2);
	assert_int_equal(s->env_pad, 4096);
	assert_int_equal(s->settle_ms, 50);
	assert_string_equal(s->pin, "");
	assert_int_equal(s->subtract_floor, 1);
	assert_int_equal(s->nvariants, 2);
	assert_int_equal(s->variants[0].nargs, 0);
	assert_int_equal(s->variants[0].nenv, 0);
	assert_int_equal(s->nbenches, 1);
	assert_string_equal(s->benches[0].name, "one");
	assert_int_equal(s->benches[0].nmetrics, 1);
	assert_string_equal(s->benches[0].metrics[0].name, "wall_ns");
	assert_int_equal(s->benches[0].metrics[0].higher, 0);
	assert_int_equal(s->benches[0].timeout_ms, 0);
	assert_string_equal(s->benches[0].checksum, "");
	suite_free(s);
}

/* Without [suite] at all: the same defaults, the name from the file. */
static void
test_no_suite_section(void **state)
{
	struct suite	*s;

	(void)state;
	s = load_ok(DIR "good-no-suite.ini");
	assert_string_equal(s->name, "good-no-suite");
	assert_int_equal(s->rounds, 10);
	assert_int_equal(s->warmup, 1);
	assert_int_equal(s->has_seed, 0);
	assert_true(s->min_effect == 0.01);
	assert_int_equal(s->ref, 0);
	assert_true(s->max_load == 1.0 / 3.0);
	assert_int_equal(s->nvariants, 2);
	assert_int_equal(s->nbenches, 1);
	assert_int_equal(s->benches[0].timeout_ms, 0);
	suite_free(s);
}

/* The longest line inih accepts (the next length is a bad-* case). */
static void
test_long_line(void **state)
{
	struct suite	*s;

	(void)state;
	s = load_ok(DIR "long-line.ini");
	assert_int_equal(s->benches[0].nargs, 1);
	assert_int_equal(strlen(s->benches[0].args[0]), 191);
	suite_free(s);
}

/* A file that cannot be opened: the path and the reason, no line. */
static void
test_missing_file(void **state)
{
	struct suite	*s = (struct suite *)1;
	char		*cause = NULL;

	(void)state;
	assert_int_equal(suite_load(DIR "no-such.ini", &s, &cause), -1);
	assert_null(s);
	assert_string_equal(cause,
	    DIR "no-such.ini: No such file or directory");
	free(cause);
	suite_free(NULL);
}

/* ---- bad inputs: fixture file, then the message after its path ---------- */

struct bad_case {
	const char	*file;
	const char	*want;	/* the cause after "tests/unit/suites/FILE" */
};

static const struct bad_case bad_cases[] = {
	{ "bad-syntax.ini",
	    ":3: syntax error: expected key = value" },
	{ "bad-syntax-comment.ini",
	    ":2: syntax error: expected key = value" },
	{ "bad-section-bracket.ini",
	    ":3: syntax error: missing ']'" },
	{ "bad-section-text.ini",
	    ":1: syntax error: text after ']'" },
	{ "bad-unknown-section.ini",
	    ":6: unknown section [host.epyc] (want [suite], [variant.NAME], [bench.NAME] or [claim.NAME])" },
	{ "bad-unknown-section-empty.ini",
	    ":7: unknown section [benchmark] (want [suite], [variant.NAME], [bench.NAME] or [claim.NAME])" },
	{ "bad-outside.ini",
	    ":2: key 'rounds' outside any section" },
	{ "bad-unknown-key-suite.ini",
	    ":2: [suite] unknown key 'round'" },
	{ "bad-unknown-key-variant.ini",
	    ":4: [variant.A] unknown key 'argv'" },
	{ "bad-unknown-key-bench.ini",
	    ":8: [bench.hash] unknown key 'arg'" },
	{ "bad-dup-key.ini",
	    ":4: [suite] duplicate key 'rounds' (first on line 2)" },
	{ "bad-dup-key-bench.ini",
	    ":9: [bench.a] duplicate key 'metrics' (first on line 7)" },
	{ "bad-dup-suite.ini",
	    ":7: duplicate section [suite] (first on line 1)" },
	{ "bad-dup-variant.ini",
	    ":6: duplicate section [variant.A] (first on line 2)" },
	{ "bad-dup-bench.ini",
	    ":8: duplicate section [bench.a] (first on line 6)" },
	{ "bad-name-dash.ini",
	    ":2: [variant.-a] bad name '-a' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-suite-name-dot.ini",
	    ":2: [suite] name: bad name '.hidden' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name.ini",
	    ":2: [variant.a b] bad name 'a b' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name-empty.ini",
	    ":6: [bench.] bad name '' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name-long.ini",
	    ":6: [bench.nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn] bad name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-suite-name.ini",
	    ":2: [suite] name: bad name 'my suite' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-rounds-text.ini",
	    ":2: [suite] rounds: '1O' is not an integer" },
	{ "bad-rounds-sign.ini",
	    ":2: [suite] rounds: '+5' is not an integer" },
	{ "bad-rounds-empty.ini",
	    ":2: [suite] rounds: '' is not an integer" },
	{ "bad-rounds-zero.ini",
	    ":3: [suite] rounds: 0 is out of range 1..100000" },
	{ "bad-rounds-big.ini",
	    ":2: [suite] rounds: 100001 is out of range 1..100000" },
	{ "bad-warmup.ini",
	    ":2: [suite] warmup: 1001 is out of range 0..1000" },
	{ "bad-seed-text.ini",
	    ":2: [suite] seed: '-1' is not an integer" },
	{ "bad-seed-big.ini",
	    ":2: [suite] seed: 18446744073709551616 is out of range 0..18446744073709551615" },
	{ "bad-min-effect.ini",
	    ":2: [suite] min_effect: 1 is out of range (want 0 <= x < 1)" },
	{ "bad-min-effect-text.ini",
	    ":2: [suite] min_effect: '1%' is not a number" },
	{ "bad-min-effect-exp.ini",
	    ":2: [suite] min_effect: '1e-2' is not a number" },
	{ "bad-max-load.ini",
	    ":2: [suite] max_load: '-1' is not a number" },
	{ "bad-load-wait.ini",
	    ":2: [suite] load_wait: '10m' is not an integer" },
	{ "bad-retries.ini",
	    ":2: [suite] retries: 11 is out of range 0..10" },
	{ "bad-env-pad.ini",
	    ":2: [suite] env_pad: 65537 is out of range 0..65536" },
	{ "bad-env-pad-neg.ini",
	    ":2: [suite] env_pad: '-1' is not an integer" },
	{ "bad-settle-bare.ini",
	    ":2: [suite] settle: '50' is not a pause (want e.g. 50ms or 2s, "
	    "at most 10s; 0: none)" },
	{ "bad-settle-big.ini",
	    ":2: [suite] settle: '11s' is not a pause (want e.g. 50ms or 2s, "
	    "at most 10s; 0: none)" },
	{ "bad-settle-neg.ini",
	    ":2: [suite] settle: '-5ms' is not a pause (want e.g. 50ms or 2s, "
	    "at most 10s; 0: none)" },
	{ "bad-pin.ini",
	    ":2: [suite] pin: bad CPU list '2,,3' (want e.g. 2,3 or 0-3)" },
	{ "bad-subtract-floor.ini",
	    ":2: [suite] subtract_floor: 'maybe' is not yes or no" },
	{ "bad-timeout-text.ini",
	    ":2: [suite] timeout: '30s' is not a number of seconds" },
	{ "bad-timeout-big.ini",
	    ":7: [bench.a] timeout: 86400.5 is out of range 0..86400" },
	{ "bad-timeout-dots.ini",
	    ":7: [bench.a] timeout: '1.2.3' is not a number of seconds" },
	/* [suite] is optional; what is really missing is said, with a line. */
	{ "bad-empty.ini",
	    ":1: no [variant.NAME] section: a suite compares at least 2 "
	    "variants" },
	{ "bad-no-variant.ini",
	    ":3: no [variant.NAME] section: a suite compares at least 2 "
	    "variants" },
	{ "bad-one-variant.ini",
	    ":2: [variant.A] is the only variant: a suite compares at least 2" },
	{ "bad-one-variant-no-suite.ini",
	    ":1: [variant.A] is the only variant: a suite compares at least 2" },
	{ "bad-no-bench.ini",
	    ":5: no [bench.NAME] section: a suite runs at least one "
	    "benchmark" },
	{ "bad-no-bench-no-suite.ini",
	    ":4: no [bench.NAME] section: a suite runs at least one "
	    "benchmark" },
	{ "bad-no-bin.ini",
	    ":4: [variant.B] missing bin" },
	{ "bad-no-bin-empty-section.ini",
	    ":4: [variant.B] missing bin" },
	{ "bad-empty-bin.ini",
	    ":5: [variant.B] empty bin" },
	{ "bad-bin-missing.ini",
	    ":7: [variant.B] bin 'nope/prog' does not exist" },
	{ "bad-bin-not-exec.ini",
	    ":3: [variant.A] bin 'data/input.txt' is not executable" },
	{ "bad-bin-dir.ini",
	    ":3: [variant.A] bin 'exec' is not a regular file" },
	{ "bad-reference.ini",
	    ":3: [suite] reference 'C' is not a variant" },
	{ "bad-args-quote.ini",
	    ":7: [bench.a] args: unterminated ' quote" },
	{ "bad-variant-args-quote.ini",
	    ":4: [variant.A] args: unterminated \" quote" },
	{ "bad-env-item.ini",
	    ":4: [variant.A] env: bad item 'BAR' (want NAME=value)" },
	{ "bad-env-name.ini",
	    ":4: [variant.A] env: bad item '1X=2' (want NAME=value)" },
	{ "bad-env-quote.ini",
	    ":4: [variant.A] env: unterminated ' quote" },
	{ "bad-file-ref.ini",
	    ":8: [bench.a] args: unknown file 'dat' in {file:dat}" },
	{ "bad-file-ref-later.ini",
	    ":7: [bench.a] args: unknown file 'out' in {file:out}" },
	{ "bad-file-ref-nofiles.ini",
	    ":7: [bench.a] args: unknown file 'data' in {file:data}" },
	{ "bad-file-ref-open.ini",
	    ":7: [bench.a] args: unterminated '{file:' in '{file:data'" },
	{ "bad-file-missing.ini",
	    ":7: [bench.a] files: 'data/nope.bin' does not exist" },
	{ "bad-file-dir.ini",
	    ":7: [bench.a] files: 'data' is not a regular file" },
	{ "bad-file-item.ini",
	    ":7: [bench.a] files: bad item 'data/input.txt' (want NAME=path)" },
	{ "bad-file-dup.ini",
	    ":7: [bench.a] files: duplicate name 'd'" },
	{ "bad-metrics-dup.ini",
	    ":7: [bench.a] metrics: duplicate metric 'wall_ns'" },
	{ "bad-metrics-empty.ini",
	    ":7: [bench.a] metrics: bad name '' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-better-metric.ini",
	    ":7: [bench.a] better: 'calls_per_s' is not in metrics" },
	{ "bad-better-default.ini",
	    ":7: [bench.a] better: 'user_ns' is not in metrics" },
	{ "bad-better-item.ini",
	    ":8: [bench.a] better: bad item 'faster' (want lower, higher or METRIC:lower|higher)" },
	{ "bad-better-twice.ini",
	    ":8: [bench.a] better: 'wall_ns' given twice" },
	{ "bad-checksum.ini",
	    ":7: [bench.a] checksum: bad name 'sum=1' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-long-line.ini",
	    ":2: line too long (at most 198 characters)" },
	{ "bad-first-error.ini",
	    ":2: [suite] rounds: 0 is out of range 1..100000" },
	{ "bad-first-syntax.ini",
	    ":2: syntax error: expected key = value" },
	{ "bad-nul.ini",
	    ":3: NUL byte in file" },
};

/* One bad fixture: suite_load fails with exactly the expected cause. */
static void
test_bad(void **state)
{
	const struct bad_case	*c = *state;
	struct suite		*s = (struct suite *)1;
	char			*cause = NULL, path[256], want[512];

	snprintf(path, sizeof path, DIR "%s", c->file);
	snprintf(want, sizeof want, "%s%s", path, c->want);
	assert_int_equal(suite_load(path, &s, &cause), -1);
	assert_null(s);
	assert_non_null(cause);
	assert_string_equal(cause, want);
	free(cause);
}

/* ---- suite_split -------------------------------------------------------- */

struct split_case {
	const char	*in;
	const char	*want;	/* rendered words, or NULL for an error */
	const char	*cause;
};

static const struct split_case split_cases[] = {
	{ "", "", NULL },
	{ " \t ", "", NULL },
	{ "a", "[a]", NULL },
	{ "  a  b\tc  ", "[a][b][c]", NULL },
	{ "'a b' c", "[a b][c]", NULL },
	{ "''", "[]", NULL },
	{ "\"\"", "[]", NULL },
	{ "a '' b", "[a][][b]", NULL },
	{ "x'y z'\"w\"v", "[xy zwv]", NULL },
	{ "'it''s'", "[its]", NULL },
	{ "'a\\b \"q\"'", "[a\\b \"q\"]", NULL },
	{ "\"a \\\" b\"", "[a \" b]", NULL },
	{ "\"\\$x \\` \\\\ \\n \\a\"", "[$x ` \\ \\n \\a]", NULL },
	{ "\"it's\"", "[it's]", NULL },
	{ "a\\ b", "[a b]", NULL },
	{ "\\'a\\'", "['a']", NULL },
	{ "\\\"", "[\"]", NULL },
	{ "a\\", "[a\\]", NULL },
	{ "--x={file:data} $HOME *", "[--x={file:data}][$HOME][*]", NULL },
	{ "'abc", NULL, "unterminated ' quote" },
	{ "a 'b c", NULL, "unterminated ' quote" },
	{ "\"abc", NULL, "unterminated \" quote" },
	{ "\"a\\\"", NULL, "unterminated \" quote" },
	{ "'x' \"y", NULL, "unterminated \" quote" },
};

/* Each split case gives its words or its error. */
static void
test_split(void **state)
{
	size_t	i, n;
	char	**w, *cause;

	(void)state;
	for (i = 0; i < NELEM(split_cases); i++) {
		const struct split_case	*c = &split_cases[i];
		int			 r;

		w = (char **)1;
		n = 99;
		cause = NULL;
		r = suite_split(c->in, &w, &n, &cause);
		if (c->want != NULL) {
			if (r != 0)
				fail_msg("split <%s>: %s", c->in, cause);
			assert_null(cause);
			assert_non_null(w);
			check_words(w, n, c->want);
		} else {
			if (r != -1)
				fail_msg("split <%s>: no error", c->in);
			assert_null(w);
			assert_int_equal(n, 0);
			assert_non_null(cause);
			assert_string_equal(cause, c->cause);
		}
		for (; w != NULL && n > 0; n--)
			free(w[n - 1]);
		free(w);
		free(cause);
	}
}

/* PROTO_ARGS_MAX words are fine; one more is an error. */
static void
test_split_limit(void **state)
{
	char	 in[PROTO_ARGS_MAX * 2 + 8], **w, *cause = NULL;
	size_t	 i, n;

	(void)state;
	for (i = 0; i < PROTO_ARGS_MAX; i++)
		memcpy(in + 2 * i, "a ", 2);
	in[2 * PROTO_ARGS_MAX] = '\0';
	assert_int_equal(suite_split(in, &w, &n, &cause), 0);
	assert_int_equal(n, PROTO_ARGS_MAX);
	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
	memcpy(in + 2 * PROTO_ARGS_MAX, "b", 2);
	assert_int_equal(suite_split(in, &w, &n, &cause), -1);
	assert_null(w);
	assert_string_equal(cause, "too many words (at most 256)");
	free(cause);
	/* A NULL cause is allowed. */
	assert_int_equal(suite_split("'x", &w, &n, NULL), -1);
}

/* ---- suite_expand ------------------------------------------------------- */

/* {os} and {arch} are replaced, other braces kept, small buffers refused. */
static void
test_expand(void **state)
{
	char	out[64];

	(void)state;
	assert_int_equal(suite_expand("bin/{os}-{arch}/hashloop", "linux",
	    "x86_64", out, sizeof out), 0);
	assert_string_equal(out, "bin/linux-x86_64/hashloop");
	assert_int_equal(suite_expand("{arch}{os}{arch}", "darwin", "aarch64",
	    out, sizeof out), 0);
	assert_string_equal(out, "aarch64darwinaarch64");
	assert_int_equal(suite_expand("{file:x} {OS} {os {arch}}", "linux",
	    "x86_64", out, sizeof out), 0);
	assert_string_equal(out, "{file:x} {OS} {os x86_64}");
	assert_int_equal(suite_expand("", "linux", "x86_64", out, sizeof out),
	    0);
	assert_string_equal(out, "");
	/* Exactly fits (10 characters and the NUL), then one byte short. */
	assert_int_equal(suite_expand("a/{os}", "linux", "x", out, 8), 0);
	assert_string_equal(out, "a/linux");
	assert_int_equal(suite_expand("a/{os}", "linux", "x", out, 7), -1);
	assert_string_equal(out, "");
	assert_int_equal(suite_expand("abc", "linux", "x", out, 3), -1);
	assert_int_equal(suite_expand("abc", "linux", "x", out, 0), -1);
}

/* Runs the named cases, then one test per bad fixture. */
/*
 * settle takes a pause with its unit, milliseconds or seconds, up to 10 s,
 * or 0; a bare number is refused rather than guessed at.
 */
static void
test_settle(void **state)
{
	static const struct { const char *v; int ok; uint32_t ms; } c[] = {
		{ "0", 1, 0 }, { "50ms", 1, 50 }, { "0ms", 1, 0 },
		{ "2s", 1, 2000 }, { "10s", 1, 10000 }, { "10000ms", 1, 10000 },
		{ "10001ms", 0, 0 }, { "11s", 0, 0 }, { "50", 0, 0 },
		{ "", 0, 0 }, { "ms", 0, 0 }, { "s", 0, 0 }, { "-5ms", 0, 0 },
		{ "1.5s", 0, 0 }, { "5 ms", 0, 0 }, { "5m", 0, 0 },
		{ "99999999999999999999ms", 0, 0 }, { "4294967296000ms", 0, 0 },
	};
	uint32_t	ms;
	size_t		i;

	(void)state;
	for (i = 0; i < NELEM(c); i++) {
		ms = 7;
		assert_int_equal(suite_parse_settle(c[i].v, &ms) == 0,
		    c[i].ok);
		assert_int_equal(ms, c[i].ok ? c[i].ms : 7);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_good_absolute),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_settle),
		cmocka_unit_test(test_no_suite_section),
		cmocka_unit_test(test_default_name),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_limit),
		cmocka_unit_test(test_expand),
	};
	struct CMUnitTest	bad[NELEM(bad_cases)];
	size_t			i;
	int			fails = 0;

	for (i = 0; i < NELEM(bad_cases); i++) {
		memset(&bad[i], 0, sizeof bad[i]);
		bad[i].name = bad_cases[i].file;
		bad[i].test_func = test_bad;
		bad[i].initial_state = (void *)(uintptr_t)&bad_cases[i];
	}
	fails += cmocka_run_group_tests_name("suite", tests, NULL, NULL);
	fails += _cmocka_run_group_tests("suite_bad", bad, NELEM(bad), NULL,
	    NULL);
	return (fails != 0);
}
