/*
 * Unit tests for the sweeps of coordinator/input/suite.c (params = in a
 * [bench.NAME]): the expansion's names, order, arguments and copies, the
 * cartesian product, and each bad input with its exact FILE:LINE message.
 * Suites are given as text (suite_load_text), so each case sits beside
 * what it must give.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/input/suite.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
/* A bench name of 57: with ".nnnn-1", one over the 63 of a name. */
#define LONG	"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" "bbbbbbbbbbbbbbbbbbbbbbbbbbb"

#define HEAD \
	"[suite]\n" \
	"[variant.A]\n" \
	"bin = /bin/true\n" \
	"[variant.B]\n" \
	"bin = /bin/true\n"
/* HEAD is 5 lines: a case's first own line is line 6. */

static struct suite *
load_ok(const char *text)
{
	struct suite	*s = NULL;
	char		*cause = NULL;

	if (suite_load_text("t.ini", text, &s, &cause) != 0)
		fail_msg("%s", cause);
	return (s);
}

/* Renders words as "[w1][w2]...". */
static void
render(char **w, size_t n, char *out, size_t len)
{
	size_t	i, o = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, len - o, "[%s]", w[i]);
}

/* One parameter: one benchmark a value, in order, args substituted. */
static void
test_one_param(void **state)
{
	struct suite	*s;
	char		 got[256];

	(void)state;
	s = load_ok(HEAD
	    "[bench.sort]\n"
	    "params = size=1e3,1e4,1e5\n"
	    "args = --n {param:size} x{param:size}y {file:d}\n"
	    "files = d=tests/unit/suites/data/input.txt\n"
	    "metrics = elapsed_ns, wall_ns\n"
	    "better = lower, elapsed_ns:higher\n"
	    "checksum = sum\n"
	    "timeout = 7\n"
	    "[bench.after]\n");
	assert_int_equal(s->nbenches, 4);
	assert_string_equal(s->benches[0].name, "sort.size-1e3");
	assert_string_equal(s->benches[1].name, "sort.size-1e4");
	assert_string_equal(s->benches[2].name, "sort.size-1e5");
	assert_string_equal(s->benches[3].name, "after");
	assert_string_equal(s->benches[3].sweep, "");
	assert_null(s->benches[3].point);
	render(s->benches[1].args, s->benches[1].nargs, got, sizeof got);
	assert_string_equal(got, "[--n][1e4][x1e4y][{file:d}]");
	assert_null(s->benches[1].args[s->benches[1].nargs]);
	assert_string_equal(s->benches[2].sweep, "sort");
	assert_string_equal(s->benches[2].point, "size=1e5");
	assert_int_equal(s->benches[2].line, 6);
	assert_int_equal(s->benches[2].nfiles, 1);
	assert_string_equal(s->benches[2].files[0].name, "d");
	assert_string_equal(s->benches[2].files[0].path,
	    "tests/unit/suites/data/input.txt");
	assert_int_equal(s->benches[2].nmetrics, 2);
	assert_string_equal(s->benches[2].metrics[1].name, "wall_ns");
	assert_int_equal(s->benches[2].metrics[0].higher, 1);
	assert_int_equal(s->benches[2].metrics[1].higher, 0);
	assert_string_equal(s->benches[2].checksum, "sum");
	assert_int_equal(s->benches[2].timeout_ms, 7000);
	suite_free(s);
}

/* Several parameters: the cartesian product, the last changing fastest. */
static void
test_product(void **state)
{
	static const char *const want[] = {
		"b.n-1.mode-fast", "b.n-1.mode-slow", "b.n-1.mode--3",
		"b.n-2.mode-fast", "b.n-2.mode-slow", "b.n-2.mode--3",
	};
	struct suite	*s;
	char		 got[256];
	size_t		 i;

	(void)state;
	s = load_ok(HEAD
	    "[bench.b]\n"
	    "params = n=1,2   mode=fast,slow,-3\n"
	    "args = {param:mode}:{param:n}\n");
	assert_int_equal(s->nbenches, NELEM(want));
	for (i = 0; i < NELEM(want); i++)
		assert_string_equal(s->benches[i].name, want[i]);
	assert_string_equal(s->benches[5].point, "n=2 mode=-3");
	render(s->benches[4].args, s->benches[4].nargs, got, sizeof got);
	assert_string_equal(got, "[slow:2]");
	/* The default metric is kept too. */
	assert_string_equal(s->benches[4].metrics[0].name, "wall_ns");
	suite_free(s);
}

/* A sweep's points keep the template's threads and hooks, {param:} filled. */
static void
test_hooks_threads(void **state)
{
	struct suite	*s;
	char		 got[256];

	(void)state;
	s = load_ok(HEAD
	    "[bench.b]\n"
	    "params = n=1,2\n"
	    "threads = 3\n"
	    "prepare = /bin/true --n={param:n}\n"
	    "cleanup = host:rm -f /tmp/x{param:n}\n");
	assert_int_equal(s->nbenches, 2);
	assert_int_equal(s->benches[0].threads, 3);
	assert_int_equal(s->benches[1].threads, 3);
	render(s->benches[1].hooks[SUITE_HOOK_PREPARE].argv,
	    s->benches[1].hooks[SUITE_HOOK_PREPARE].nargv, got, sizeof got);
	assert_string_equal(got, "[/bin/true][--n=2]");
	assert_string_equal(s->benches[1].hooks[SUITE_HOOK_PREPARE].bin,
	    "/bin/true");
	render(s->benches[0].hooks[SUITE_HOOK_CLEANUP].argv,
	    s->benches[0].hooks[SUITE_HOOK_CLEANUP].nargv, got, sizeof got);
	assert_string_equal(got, "[host:rm][-f][/tmp/x1]");
	assert_string_equal(s->benches[0].hooks[SUITE_HOOK_CLEANUP].host, "rm");
	assert_int_equal(s->benches[0].hooks[SUITE_HOOK_SETUP].nargv, 0);
	suite_free(s);
}

/* 1000 benchmarks from one sweep are fine. */
static void
test_bound_ok(void **state)
{
	struct suite	*s;

	(void)state;
	s = load_ok(HEAD
	    "[bench.b]\n"
	    "params = a=0,1,2,3,4,5,6,7,8,9 b=0,1,2,3,4,5,6,7,8,9 "
	    "c=0,1,2,3,4,5,6,7,8,9\n");
	assert_int_equal(s->nbenches, 1000);
	assert_string_equal(s->benches[999].name, "b.a-9.b-9.c-9");
	suite_free(s);
}

/* A recorded suite's sweeps, read without its programs. */
static void
test_names_only(void **state)
{
	struct suite	*s = NULL;
	char		*cause = NULL;
	const char	*text = "[suite]\n[variant.A]\nbin = /nonexistent/a\n"
	    "[variant.B]\nbin = /nonexistent/b\n[bench.x]\nparams = k=1,2\n"
	    "files = d=/nonexistent/data\n";

	(void)state;
	assert_int_equal(suite_load_text("t.ini", text, &s, &cause), -1);
	assert_string_equal(cause, "t.ini:3: [variant.A] bin '/nonexistent/a' "
	    "does not exist");
	free(cause);
	assert_int_equal(suite_load_names("t.ini", text, &s, &cause), 0);
	assert_int_equal(s->nbenches, 2);
	assert_string_equal(s->benches[1].name, "x.k-2");
	assert_string_equal(s->benches[1].sweep, "x");
	suite_free(s);
}

/* Each bad sweep with its exact message. */
static void
test_errors(void **state)
{
	static const struct {
		const char	*text;
		const char	*err;
	} cases[] = {
		{ "[bench.b]\nparams = size\n", "t.ini:7: [bench.b] params: "
		    "bad item 'size' (want NAME=v1,v2,...)" },
		{ "[bench.b]\nparams = \n", "t.ini:7: [bench.b] params: empty "
		    "(want NAME=v1,v2,...)" },
		{ "[bench.b]\nparams = 9x=1\n", "t.ini:7: [bench.b] params: "
		    "bad parameter name '9x' (want a letter or _, then letters, "
		    "digits or _, at most 31)" },
		{ "[bench.b]\nparams = a-b=1\n", "t.ini:7: [bench.b] params: "
		    "bad parameter name 'a-b' (want a letter or _, then "
		    "letters, digits or _, at most 31)" },
		{ "[bench.b]\nparams = =1\n", "t.ini:7: [bench.b] params: "
		    "bad parameter name '' (want a letter or _, then letters, "
		    "digits or _, at most 31)" },
		{ "[bench.b]\nparams = n=1,,2\n", "t.ini:7: [bench.b] params: "
		    "bad value '' for 'n' (want 1 to 63 of A-Z a-z 0-9 _ . -)" },
		{ "[bench.b]\nparams = n=\n", "t.ini:7: [bench.b] params: "
		    "bad value '' for 'n' (want 1 to 63 of A-Z a-z 0-9 _ . -)" },
		{ "[bench.b]\nparams = n=1/2\n", "t.ini:7: [bench.b] params: "
		    "bad value '1/2' for 'n' (want 1 to 63 of A-Z a-z 0-9 _ . "
		    "-)" },
		{ "[bench.b]\nparams = n={x}\n", "t.ini:7: [bench.b] params: "
		    "bad value '{x}' for 'n' (want 1 to 63 of A-Z a-z 0-9 _ . "
		    "-)" },
		{ "[bench.b]\nparams = n=1,2,1\n", "t.ini:7: [bench.b] params: "
		    "duplicate value '1' for 'n'" },
		{ "[bench.b]\nparams = n=1 n=2\n", "t.ini:7: [bench.b] params: "
		    "parameter 'n' given twice" },
		{ "[bench.b]\nparams = a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1\n",
		    "t.ini:7: [bench.b] params: too many parameters (at most "
		    "8)" },
		{ "[bench.b]\nparams = a=0,1,2,3,4,5,6,7,8,9 "
		    "b=0,1,2,3,4,5,6,7,8,9 c=0,1,2,3,4,5,6,7,8,9 d=0,1\n",
		    "t.ini:7: [bench.b] params: over 1000 benchmarks (the "
		    "values' product)" },
		{ "[bench.b]\nparams = n=1\nparams = n=2\n", "t.ini:8: "
		    "[bench.b] duplicate key 'params' (first on line 7)" },
		{ "[bench.b]\nparams = n=1\nargs = {param:m}\n", "t.ini:8: "
		    "[bench.b] args: unknown parameter 'm' in {param:m}" },
		{ "[bench.b]\nargs = x {param:n}\n", "t.ini:7: [bench.b] args: "
		    "unknown parameter 'n' in {param:n} (no params = in this "
		    "benchmark)" },
		{ "[bench.b]\nargs = {param:n\nparams = n=1\n", "t.ini:7: "
		    "[bench.b] args: unterminated '{param:' in '{param:n'" },
		{ "[bench.b.n-1]\n[bench.b]\nparams = n=1,2\n", "t.ini:8: "
		    "[bench.b] params: benchmark 'b.n-1' is also [bench.b.n-1] "
		    "(line 6)" },
		{ "[bench.b]\nparams = n=1,2\n[bench.b.n-2]\n", "t.ini:8: "
		    "duplicate section [bench.b.n-2] (first on line 6)" },
		{ "[bench.b]\nparams = n=1\n[bench.b]\n", "t.ini:8: duplicate "
		    "section [bench.b] (first on line 6)" },
		{ "[bench." LONG "]\n"
		    "params = nnnn=1\n", "t.ini:7: "
		    "[bench." LONG "] "
		    "params: benchmark name "
		    "'" LONG ".nnnn-1'"
		    " too long (at most 63 characters: shorten the benchmark's, "
		    "the parameters' or the values' names)" },
		{ "[variant.C]\nbin = /bin/true\nparams = n=1\n", "t.ini:8: "
		    "[variant.C] unknown key 'params'" },
	};
	struct suite	*s;
	char		 text[1024], *cause;
	size_t		 i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		snprintf(text, sizeof text, "%s%s", HEAD, cases[i].text);
		s = NULL;
		cause = NULL;
		if (suite_load_text("t.ini", text, &s, &cause) == 0)
			fail_msg("case %zu loaded, want '%s'", i,
			    cases[i].err);
		assert_null(s);
		if (strcmp(cause, cases[i].err) != 0)
			fail_msg("case %zu:\n got '%s'\nwant '%s'", i, cause,
			    cases[i].err);
		free(cause);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_param),
		cmocka_unit_test(test_product),
		cmocka_unit_test(test_hooks_threads),
		cmocka_unit_test(test_bound_ok),
		cmocka_unit_test(test_names_only),
		cmocka_unit_test(test_errors),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
