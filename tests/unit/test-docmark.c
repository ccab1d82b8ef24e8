/*
 * Unit tests for coordinator/input/docmark.c: the marks of a Markdown
 * document found with their lines, runs, keys and values; each malformed
 * mark an error "doc.md:LINE: why" (nesting, never closed, a close with
 * no mark, a figure over lines, unknown keys and fields, quotes, every
 * bound); fenced code and code spans never read as marks.
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

#include "coordinator/input/docmark.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* Parses s as doc.md; returns its marks, or NULL with *cause. */
static struct docmarks *
parse(const char *s, char **cause)
{
	struct docmarks	*dm = NULL;

	*cause = NULL;
	if (docmark_parse("doc.md", s, strlen(s), &dm, cause) != 0)
		return (NULL);
	return (dm);
}

/* Returns the VALUE of mark i of dm (a static copy). */
static const char *
value(const struct docmarks *dm, size_t i)
{
	static char	buf[4096];

	snprintf(buf, sizeof buf, "%.*s", (int)dm->marks[i].val_len,
	    dm->text + dm->marks[i].val_off);
	return (buf);
}

/* Marks found: their lines, runs, keys, values; text around them kept. */
static void
test_marks(void **state)
{
	struct docmarks	*dm;
	char		*cause;
	const char	*s = "# T\n\nratio <!-- orch reports/r1 bench=sort "
	    "field=ratio -->0.767<!-- /orch --> and <!-- orch-notes --> no, "
	    "<!-- a comment --> <!-- orchestra -->\n"
	    "```\n<!-- orch r field=ratio --> in a fence\n```\n"
	    "<!-- orch base\ttable=matrix host=h1 -->\n| a |\n|---|\n"
	    "<!-- /orch -->\n";

	(void)state;
	dm = parse(s, &cause);
	assert_null(cause);
	assert_non_null(dm);
	assert_int_equal(dm->nmarks, 2);
	assert_int_equal(dm->marks[0].line, 3);
	assert_string_equal(dm->marks[0].run, "reports/r1");
	assert_string_equal(dm->marks[0].key[DM_BENCH], "sort");
	assert_string_equal(dm->marks[0].key[DM_FIELD], "ratio");
	assert_null(dm->marks[0].key[DM_HOST]);
	assert_string_equal(value(dm, 0), "0.767");
	assert_int_equal(dm->marks[1].line, 7);
	assert_string_equal(dm->marks[1].run, "base");
	assert_string_equal(dm->marks[1].key[DM_TABLE], "matrix");
	assert_string_equal(dm->marks[1].key[DM_HOST], "h1");
	assert_string_equal(value(dm, 1), "\n| a |\n|---|\n");
	assert_int_equal(dm->len, strlen(s));
	assert_memory_equal(dm->text, s, dm->len);
	docmark_free(dm);

	/* Code spans are text; a lone backtick is not one. */
	dm = parse("`<!-- orch RUN QUERY -->` ``a ` <!-- /orch -->`` x ` "
	    "<!-- orch r field=p -->1<!-- /orch -->\n", &cause);
	assert_null(cause);
	assert_int_equal(dm->nmarks, 1);
	assert_string_equal(value(dm, 0), "1");
	docmark_free(dm);

	/* A quoted value holds blanks; the quotes are not in it. */
	dm = parse("<!-- orch r field=geomean group=\"x86_64 \xc2\xb7 AMD "
	    "EPYC 9654 96-Core\" b=\"q -->1<!-- /orch -->", &cause);
	assert_null(dm);
	assert_string_equal(cause, "doc.md:1: a quote not closed in "
	    "'b=\"q'");
	free(cause);
	dm = parse("<!-- orch r field=geomean group=\"x86_64 \xc2\xb7 AMD "
	    "EPYC 9654 96-Core Processor\" variant=\"B\" -->1<!-- /orch -->",
	    &cause);
	assert_null(cause);
	assert_string_equal(dm->marks[0].key[DM_GROUP],
	    "x86_64 \xc2\xb7 AMD EPYC 9654 96-Core Processor");
	assert_string_equal(dm->marks[0].key[DM_VARIANT], "B");
	docmark_free(dm);

	dm = parse("", &cause);
	assert_non_null(dm);
	assert_int_equal(dm->nmarks, 0);
	docmark_free(dm);
}

/* A malformed document and the start of its error. */
struct bad_case {
	const char	*doc;
	const char	*err;
};

/* Each malformed mark: FILE:LINE and why. */
static void
test_errors(void **state)
{
	static const struct bad_case cases[] = {
		{ "a\n<!-- orch r field=ratio -->1\nb\n",
		    "doc.md:2: the mark is never closed" },
		{ "<!-- orch r field=ratio -->1\n<!-- orch r field=p -->2"
		    "<!-- /orch -->\n", "doc.md:2: a mark inside the mark of "
		    "line 1" },
		{ "x\n\n<!-- /orch -->\n", "doc.md:3: <!-- /orch --> closes "
		    "no mark" },
		{ "<!-- orch r field=ratio -->1\n2<!-- /orch -->\n",
		    "doc.md:1: the figure's value spans lines" },
		{ "<!-- orch r field=ratio\n-->1<!-- /orch -->\n",
		    "doc.md:1: the mark's comment is not closed on its line" },
		{ "<!-- orch r colour=red field=ratio -->1<!-- /orch -->",
		    "doc.md:1: unknown key 'colour'" },
		{ "<!-- orch r field=speed -->1<!-- /orch -->",
		    "doc.md:1: unknown field 'speed' (one of: ratio, ci_low" },
		{ "<!-- orch r table=chart -->\n<!-- /orch -->",
		    "doc.md:1: unknown table 'chart' (one of: matrix" },
		{ "<!-- orch r bench=a -->1<!-- /orch -->",
		    "doc.md:1: the mark needs one of field= and table=, not "
		    "neither" },
		{ "<!-- orch r field=p table=matrix -->1<!-- /orch -->",
		    "doc.md:1: the mark needs one of field= and table=, not "
		    "both" },
		{ "<!-- orch r field=p field=p -->1<!-- /orch -->",
		    "doc.md:1: field= given twice" },
		{ "<!-- orch r host= field=p -->1<!-- /orch -->",
		    "doc.md:1: host= has no value" },
		{ "<!-- orch field=p -->1<!-- /orch -->",
		    "doc.md:1: the mark names no run before 'field=p'" },
		{ "<!-- orch  -->1<!-- /orch -->",
		    "doc.md:1: the mark names no run" },
		{ "<!-- orch r s field=p -->1<!-- /orch -->",
		    "doc.md:1: 's' is no key=value (the run is 'r')" },
		{ "<!--orch r field=p -->1<!-- /orch -->",
		    "doc.md:1: a malformed mark" },
		{ "<!-- orch r field=p -->1<!--/orch-->",
		    "doc.md:1: a malformed mark" },
		{ "<!-- orch r field=p\x01 -->1<!-- /orch -->",
		    "doc.md:1: a control byte in the mark" },
		{ "<!-- orch r group=\"a b field=p -->1<!-- /orch -->",
		    "doc.md:1: a quote not closed in 'group=\"a b field=p'" },
		{ "<!-- orch r group=\"a b\"c field=p -->1<!-- /orch -->",
		    "doc.md:1: text after the closing quote of "
		    "'group=\"a b\"c'" },
		{ "<!-- orch r a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 j=10 k=11 "
		    "l=12 -->", "doc.md:1: more than 12 words" },
	};
	struct docmarks	*dm;
	char		*cause;
	size_t		 i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		dm = parse(cases[i].doc, &cause);
		if (dm != NULL || cause == NULL ||
		    strncmp(cause, cases[i].err, strlen(cases[i].err)) != 0)
			fail_msg("case %zu: got '%s', want '%s...'", i,
			    cause == NULL ? "(none)" : cause, cases[i].err);
		free(cause);
	}
}

/* Bounds: a long opening, a long value, a long line without marks. */
static void
test_long(void **state)
{
	struct docmarks	*dm;
	char		*s, *cause;
	size_t		 n = 2 * DOCMARK_MAX_OPEN;

	(void)state;
	s = malloc(DOCMARK_MAX_TABLE + 256);
	assert_non_null(s);
	memcpy(s, "<!-- orch r field=p bench=", 26);
	memset(s + 26, 'b', n);
	strcpy(s + 26 + n, " -->1<!-- /orch -->");
	dm = parse(s, &cause);
	assert_null(dm);
	assert_string_equal(cause, "doc.md:1: the mark is longer than 1024 "
	    "bytes");
	free(cause);

	strcpy(s, "<!-- orch r field=p -->");
	memset(s + 23, '7', DOCMARK_MAX_VALUE + 1);
	strcpy(s + 23 + DOCMARK_MAX_VALUE + 1, "<!-- /orch -->");
	dm = parse(s, &cause);
	assert_null(dm);
	assert_string_equal(cause, "doc.md:1: the mark's value is longer "
	    "than 1024 bytes");
	free(cause);

	/* A long line of text and one long table are fine. */
	strcpy(s, "<!-- orch r table=claims -->");
	memset(s + 28, '|', DOCMARK_MAX_TABLE - 1);
	strcpy(s + 28 + DOCMARK_MAX_TABLE - 1, "<!-- /orch --><!-- x -->");
	dm = parse(s, &cause);
	assert_null(cause);
	assert_int_equal(dm->nmarks, 1);
	assert_int_equal(dm->marks[0].val_len, DOCMARK_MAX_TABLE - 1);
	docmark_free(dm);
	free(s);

	/* A NUL byte: no Markdown. */
	assert_int_equal(docmark_parse("doc.md", "a\0b", 3, &dm, &cause), -1);
	assert_string_equal(cause, "doc.md: holds a NUL byte: no Markdown");
	free(cause);
}

/* docmark_load: a missing file and a directory are errors by name. */
static void
test_load(void **state)
{
	struct docmarks	*dm;
	char		*cause = NULL;

	(void)state;
	assert_int_equal(docmark_load("/nonexistent/doc.md", &dm, &cause),
	    -1);
	assert_non_null(strstr(cause, "/nonexistent/doc.md: "));
	free(cause);
	assert_int_equal(docmark_load(".", &dm, &cause), -1);
	assert_string_equal(cause, ".: not a regular file");
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_load),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
