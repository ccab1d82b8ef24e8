/*
 * Unit tests of the one terminal sanitizer (coordinator/input/tty.c) and
 * of JSON strings made of any bytes (coordinator/report/json.c): C0 and C1
 * controls, DEL, bytes that are not UTF-8, overlong forms, surrogates,
 * sequences cut short.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/input/tty.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-text.h"

/* What fn writes of s, as a string (free it). */
static char *
written(void (*fn)(FILE *, const char *), const char *s)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f;

	assert_non_null(f = open_memstream(&buf, &len));
	fn(f, s);
	fclose(f);
	return (buf);
}

/* One input and what a terminal may be shown of it. */
static const struct {
	const char	*in, *out;
} cases[] = {
	{ "plain text", "plain text" },
	{ "\x1b]0;PWNED\x07", "?]0;PWNED?" },
	{ "a\x1b[2Jb", "a?[2Jb" },
	{ "tab\there\nnl\rcr\x7f", "tab?here?nl?cr?" },
	/* U+009B, CSI in one character; U+0085; U+0080 and U+009F. */
	{ "\xc2\x9b" "31mred", "?31mred" },
	{ "x\xc2\x85y\xc2\x80\xc2\x9fz", "x?y??z" },
	/* U+00A0, é, €, an emoji: printable UTF-8 stays. */
	{ "\xc2\xa0\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
	  "\xc2\xa0\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
	/* A raw C1 byte (CSI in an 8-bit terminal), stray bytes. */
	{ "\x9b" "31m", "?31m" },
	{ "\377\376", "??" },
	/* Overlong '/', a surrogate, beyond U+10FFFF, cut short. */
	{ "\xc0\xaf", "??" },
	{ "\xed\xa0\x80", "???" },
	{ "\xf4\x90\x80\x80", "????" },
	{ "ab\xe2\x82", "ab??" },
};

static void
test_tty(void **state)
{
	char	*got, *copy;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = written(tty_write, cases[i].in);
		if (strcmp(got, cases[i].out) != 0)
			fail_msg("case %zu: tty_write gave '%s'", i, got);
		free(got);
		assert_non_null(copy = strdup(cases[i].in));
		if (strcmp(tty_clean(copy, 0), cases[i].out) != 0)
			fail_msg("case %zu: tty_clean gave '%s'", i, copy);
		free(copy);
	}
	/* lines: a newline stays, every other control does not. */
	assert_non_null(copy = strdup("cc: error\n\x1b[31mld\xc2\x9b\n"));
	assert_string_equal(tty_clean(copy, 1), "cc: error\n?[31mld?\n");
	free(copy);
}

static void
test_utf8_len(void **state)
{
	(void)state;
	assert_int_equal(tty_utf8_len("a"), 1);
	assert_int_equal(tty_utf8_len(""), 0);
	assert_int_equal(tty_utf8_len("\xc3\xa9"), 2);
	assert_int_equal(tty_utf8_len("\xe2\x82\xac"), 3);
	assert_int_equal(tty_utf8_len("\xf0\x9f\x98\x80"), 4);
	assert_int_equal(tty_utf8_len("\xc1\xbf"), 0);
	assert_int_equal(tty_utf8_len("\xe0\x80\xaf"), 0);
	assert_int_equal(tty_utf8_len("\xf0\x80\x80\xaf"), 0);
	assert_int_equal(tty_utf8_len("\x80"), 0);
	assert_int_equal(tty_utf8_len("\xf5\x80\x80\x80"), 0);
}

/* A JSON string is valid UTF-8 whatever the bytes: \ufffd for a bad one. */
static void
test_json_utf8(void **state)
{
	char	*got;

	(void)state;
	got = written(json_str, "exit 1: \377\376 gone");
	assert_string_equal(got, "\"exit 1: \\ufffd\\ufffd gone\"");
	free(got);
	got = written(json_str, "\xc3\xa9t\xc3\xa9 \xe2\x82");
	assert_string_equal(got, "\"\xc3\xa9t\xc3\xa9 \\ufffd\\ufffd\"");
	free(got);
	got = written(json_str, "\xed\xa0\x80\x1b\"");
	assert_string_equal(got,
	    "\"\\ufffd\\ufffd\\ufffd\\u001b\\\"\"");
	free(got);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tty),
		cmocka_unit_test(test_utf8_len),
		cmocka_unit_test(test_json_utf8),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
