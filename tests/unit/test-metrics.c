/* Unit tests of agent/metrics.c: which stdout lines become metrics. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/metrics.h"

static struct proto_sample	sample;
static char			err[256];

/*
 * Feeds one NUL-terminated line with the metric keys keys[n]; returns
 * metrics_line()'s answer.
 */
static int
line_keys(const char *text, const char *checksum_key, char *const *keys,
    size_t n)
{
	err[0] = '\0';
	return (metrics_line(&sample, text, strlen(text), checksum_key, keys,
	    n, err, sizeof err));
}

/*
 * Feeds one NUL-terminated line whose own key (its text up to a blank or
 * '=', after blanks) is the one metric named; returns metrics_line()'s
 * answer.
 */
static int
line(const char *text, const char *checksum_key)
{
	char	 key[PROTO_NAME_MAX + 16];
	char	*keys[1] = { key };
	size_t	 i = 0, n = 0;

	while (text[i] == ' ' || text[i] == '\t')
		i++;
	while (n < sizeof key - 1 && text[i] != '\0' &&
	    strchr(" \t=", text[i]) == NULL)
		key[n++] = text[i++];
	key[n] = '\0';
	return (line_keys(text, checksum_key, keys, 1));
}

/* Feeds a line that must be an error whose reason holds want. */
static void
bad(const char *text, const char *want)
{
	assert_int_equal(line(text, NULL), -1);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': reason '%s' lacks '%s'", text, err, want);
}

/* Returns the metric called key, failing the test when absent. */
static double
metric(const char *key)
{
	size_t	i;

	for (i = 0; i < sample.nmetrics; i++) {
		if (strcmp(sample.metrics[i].key, key) == 0)
			return (sample.metrics[i].value);
	}
	fail_msg("metric %s missing", key);
	return (0);
}

static int
reset(void **state)
{
	(void)state;
	memset(&sample, 0, sizeof sample);
	return (0);
}

static void
test_ints(void **state)
{
	(void)state;
	assert_int_equal(line("elapsed_ns=123", NULL), 1);
	assert_int_equal(line("calls=0", NULL), 1);
	assert_int_equal(line("big=18446744073709551615", NULL), 1);
	assert_int_equal(sample.nmetrics, 3);
	assert_string_equal(sample.metrics[0].key, "elapsed_ns");
	assert_true(metric("elapsed_ns") == 123.0);
	assert_true(metric("calls") == 0.0);
	assert_true(metric("big") == 18446744073709551615.0);
}

static void
test_floats(void **state)
{
	(void)state;
	assert_int_equal(line("ratio=1.5", NULL), 1);
	assert_int_equal(line("pi=3.14159", NULL), 1);
	assert_int_equal(line("plus=+2.25", NULL), 1);
	assert_true(metric("ratio") == 1.5);
	assert_true(metric("pi") == 3.14159);
	assert_true(metric("plus") == 2.25);
	/* Half a number is a number written wrong; 1.2.3 is text: both bad. */
	bad("a=1.", "a=1. is not a finite decimal number");
	bad("b=.5", "b=.5 is not a finite decimal number");
	bad("c=1.2.3", "metric c=1.2.3 is not a number");
	assert_int_equal(sample.nmetrics, 3);
}

static void
test_negative(void **state)
{
	(void)state;
	assert_int_equal(line("delta=-42", NULL), 1);
	assert_int_equal(line("drift=-0.25", NULL), 1);
	assert_true(metric("delta") == -42.0);
	assert_true(metric("drift") == -0.25);
	bad("x=-", "metric x=- is not a number");
	bad("y=--1", "metric y=--1 is not a number");
}

static void
test_exponent(void **state)
{
	(void)state;
	assert_int_equal(line("ops=1e6", NULL), 1);
	assert_int_equal(line("tiny=2.5E-3", NULL), 1);
	assert_int_equal(line("pos=7e+2", NULL), 1);
	assert_true(metric("ops") == 1e6);
	assert_true(metric("tiny") == 2.5e-3);
	assert_true(metric("pos") == 700.0);
	bad("e1=1e", "metric e1=1e is not");
	bad("e2=1e+", "metric e2=1e+ is not");
	/* Finite as text, infinite as a double: an error, not a drop. */
	bad("huge=1e999", "huge=1e999 is out of range");
	bad("small=-1e999", "small=-1e999 is out of range");
	assert_int_equal(sample.nmetrics, 3);
}

static void
test_blanks(void **state)
{
	(void)state;
	assert_int_equal(line("  spaced = 12  ", NULL), 1);
	assert_int_equal(line("\ttabbed\t=\t7\t", NULL), 1);
	assert_int_equal(line("crlf=5\r", NULL), 1);
	assert_true(metric("spaced") == 12.0);
	assert_true(metric("tabbed") == 7.0);
	assert_true(metric("crlf") == 5.0);
	/* Blanks inside a key or a value are not allowed. */
	assert_int_equal(line("two words=1", NULL), 0);
	bad("n=1 2", "metric n=1 2 is not a number");
	bad("ms=12 ms", "metric ms=12 ms is not a number");
	assert_int_equal(sample.nmetrics, 3);
}

static void
test_key_chars(void **state)
{
	(void)state;
	assert_int_equal(line("a.b-c_d9=1", NULL), 1);
	assert_int_equal(line("_x=2", NULL), 1);
	assert_true(metric("a.b-c_d9") == 1.0);
	assert_true(metric("_x") == 2.0);
	assert_int_equal(line("9lives=1", NULL), 0);
	assert_int_equal(line("-x=1", NULL), 0);
	assert_int_equal(line("=1", NULL), 0);
	assert_int_equal(line("k$=1", NULL), 0);
	assert_int_equal(line("", NULL), 0);
	assert_int_equal(line("   ", NULL), 0);
	assert_int_equal(line("no equals sign", NULL), 0);
	assert_int_equal(sample.nmetrics, 2);
}

static void
test_checksum_string(void **state)
{
	(void)state;
	assert_int_equal(line("checksum=deadbeef", "checksum"), 1);
	assert_int_equal(sample.has_checksum, 1);
	assert_string_equal(sample.checksum, "deadbeef");
	/* Numeric checksums stay strings and never become metrics. */
	assert_int_equal(line("checksum = 0042 ", "checksum"), 1);
	assert_string_equal(sample.checksum, "0042");
	assert_int_equal(sample.nmetrics, 0);
	/* Non-numeric, with inner blanks: kept as written, outer blanks cut. */
	assert_int_equal(line("checksum=  sha:ab cd  ", "checksum"), 1);
	assert_string_equal(sample.checksum, "sha:ab cd");
}

static void
test_checksum_other_key(void **state)
{
	char	longv[PROTO_CHECKSUM_MAX + 20];

	(void)state;
	/* Without a checksum key, "checksum=5" is an ordinary metric. */
	assert_int_equal(line("checksum=5", NULL), 1);
	assert_int_equal(line("check=6", ""), 1);
	assert_int_equal(sample.has_checksum, 0);
	assert_true(metric("checksum") == 5.0);
	/* With another key, "checksum" is just a metric, "sum" the checksum. */
	assert_int_equal(line("sum=77", "sum"), 1);
	assert_string_equal(sample.checksum, "77");
	assert_int_equal(sample.nmetrics, 2);
	/* A checksum too long to keep whole is not kept. */
	memset(longv, 'a', sizeof longv);
	memcpy(longv, "sum=", 4);
	longv[sizeof longv - 1] = '\0';
	assert_int_equal(line(longv, "sum"), 0);
	assert_string_equal(sample.checksum, "77");
}

static void
test_duplicate(void **state)
{
	(void)state;
	assert_int_equal(line("t=1", NULL), 1);
	assert_int_equal(line("u=5", NULL), 1);
	/* Which of two values was meant cannot be known. */
	bad("t=2", "metric t printed twice (1, then 2)");
	bad(" t = 1 ", "metric t printed twice (1, then 1)");
	assert_int_equal(sample.nmetrics, 2);
	assert_true(metric("t") == 1.0);
	assert_true(metric("u") == 5.0);
	/* A checksum's last line wins: it is compared, not averaged. */
	assert_int_equal(line("c=first", "c"), 1);
	assert_int_equal(line("c=second", "c"), 1);
	assert_string_equal(sample.checksum, "second");
}

static void
test_non_numeric(void **state)
{
	(void)state;
	/* A metric the suite names, printed as text: refused, said. */
	bad("name=hashloop", "metric name=hashloop is not a number");
	bad("empty=", "metric empty= is not a number");
	bad("version=1.2.3", "metric version=1.2.3 is not a number");
	bad("list=1,2", "metric list=1,2 is not a number");
	assert_int_equal(line("Result: 12 ms", NULL), 0);
	assert_int_equal(sample.nmetrics, 0);
	assert_int_equal(sample.has_checksum, 0);
}

static void
test_hex_inf_nan(void **state)
{
	(void)state;
	bad("h=0x10", "h=0x10 is not a finite decimal number");
	bad("h=0X1p3", "h=0X1p3 is not");
	bad("i=inf", "i=inf is not a finite decimal number");
	bad("i=-Infinity", "i=-Infinity is not");
	bad("elapsed_ns=NaN", "elapsed_ns=NaN is not a finite decimal number");
	bad("n=NAN(123)", "n=NAN(123) is not");
	assert_int_equal(sample.nmetrics, 0);
	/* Words that only start like one are text: a named one refused. */
	bad("mode=infant", "metric mode=infant is not a number");
	bad("elapsed_ns=abc", "metric elapsed_ns=abc is not a number");
	assert_int_equal(sample.nmetrics, 0);
}

static void
test_builtin_ignored(void **state)
{
	(void)state;
	assert_int_equal(metrics_builtin("wall_ns"), 1);
	assert_int_equal(metrics_builtin("user_ns"), 1);
	assert_int_equal(metrics_builtin("sys_ns"), 1);
	assert_int_equal(metrics_builtin("maxrss_kb"), 1);
	assert_int_equal(metrics_builtin("nvcsw"), 1);
	assert_int_equal(metrics_builtin("nivcsw"), 1);
	assert_int_equal(metrics_builtin("elapsed_ns"), 0);
	assert_int_equal(metrics_builtin("wall"), 0);
	/* A program's own wall_ns would be shadowed: an error naming both. */
	bad("wall_ns=1", "printed wall_ns=1, which collides with orch's "
	    "built-in metric wall_ns");
	bad("maxrss_kb=1", "built-in metric maxrss_kb");
	bad("nivcsw=fast", "printed nivcsw=fast");
	assert_int_equal(line("wall_ns_own=5", NULL), 1);
	assert_int_equal(sample.nmetrics, 1);
	assert_string_equal(sample.metrics[0].key, "wall_ns_own");
}

static void
test_key_too_long(void **state)
{
	char	buf[PROTO_NAME_MAX + 16];

	(void)state;
	/* PROTO_NAME_MAX - 1 characters fit. */
	memset(buf, 'k', PROTO_NAME_MAX - 1);
	snprintf(buf + PROTO_NAME_MAX - 1, sizeof buf - (PROTO_NAME_MAX - 1),
	    "=1");
	assert_int_equal(line(buf, NULL), 1);
	assert_int_equal(sample.nmetrics, 1);
	assert_int_equal(strlen(sample.metrics[0].key), PROTO_NAME_MAX - 1);
	/* One more does not. */
	memset(buf, 'k', PROTO_NAME_MAX);
	snprintf(buf + PROTO_NAME_MAX, sizeof buf - PROTO_NAME_MAX, "=2");
	assert_int_equal(line(buf, NULL), 0);
	assert_int_equal(sample.nmetrics, 1);
	assert_true(sample.metrics[0].value == 1.0);
}

static void
test_limit(void **state)
{
	char	buf[64];
	int	i;

	(void)state;
	for (i = 0; i < PROTO_METRICS_MAX; i++) {
		snprintf(buf, sizeof buf, "m%d=%d", i, i);
		assert_int_equal(line(buf, NULL), 1);
	}
	assert_int_equal(sample.nmetrics, PROTO_METRICS_MAX);
	assert_int_equal(line("one_too_many=1", NULL), 0);
	assert_int_equal(sample.nmetrics, PROTO_METRICS_MAX);
	/* A key twice is still an error; the checksum still counts. */
	bad("m0=100", "metric m0 printed twice");
	assert_true(metric("m0") == 0.0);
	assert_int_equal(line("checksum=z", "checksum"), 1);
	assert_string_equal(sample.checksum, "z");
	assert_true(metric("m63") == 63.0);
}

static void
test_only_named(void **state)
{
	static char	 e[] = "elapsed_ns", o[] = "ops";
	char		*keys[2] = { e, o };

	(void)state;
	/* A program's own key=value output is output, never an error. */
	assert_int_equal(line_keys("name=0x10", NULL, keys, 2), 0);
	assert_int_equal(line_keys("__flags_unknown_mask=0x10", NULL, keys, 2),
	    0);
	assert_int_equal(line_keys("version=1.2.3", NULL, keys, 2), 0);
	assert_int_equal(line_keys("i=inf", NULL, keys, 2), 0);
	assert_int_equal(line_keys("wall_ns=1", NULL, keys, 2), 0);
	assert_int_equal(line_keys("elapsed=5", NULL, keys, 2), 0);
	assert_int_equal(sample.nmetrics, 0);
	assert_int_equal(line_keys("elapsed_ns=5", NULL, keys, 2), 1);
	assert_int_equal(line_keys(" ops = 7 ", NULL, keys, 2), 1);
	assert_int_equal(sample.nmetrics, 2);
	assert_true(metric("elapsed_ns") == 5.0);
	assert_true(metric("ops") == 7.0);
	/* A named one twice, or as text, is still refused with its reason. */
	assert_int_equal(line_keys("ops=8", NULL, keys, 2), -1);
	assert_non_null(strstr(err, "metric ops printed twice (7, then 8)"));
	memset(&sample, 0, sizeof sample);
	assert_int_equal(line_keys("ops=fast", NULL, keys, 2), -1);
	assert_non_null(strstr(err, "metric ops=fast is not a number"));
	assert_int_equal(line_keys("ops=0x10", NULL, keys, 2), -1);
	assert_non_null(strstr(err, "ops=0x10 is not a finite decimal"));
	/* No key named: nothing is read but the checksum. */
	memset(&sample, 0, sizeof sample);
	assert_int_equal(line_keys("elapsed_ns=5", NULL, NULL, 0), 0);
	assert_int_equal(line_keys("sum=abc", "sum", NULL, 0), 1);
	assert_string_equal(sample.checksum, "abc");
	assert_int_equal(sample.nmetrics, 0);
}

static void
test_not_nul_terminated(void **state)
{
	const char	text[] = "a=12b=3";

	(void)state;
	/* Only len bytes count: "a=12" out of a longer buffer. */
	static char	 a[] = "a";
	char		*keys[1] = { a };

	assert_int_equal(metrics_line(&sample, text, 4, NULL, keys, 1, err,
	    sizeof err), 1);
	assert_true(metric("a") == 12.0);
	assert_int_equal(sample.nmetrics, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ints, reset),
		cmocka_unit_test_setup(test_floats, reset),
		cmocka_unit_test_setup(test_negative, reset),
		cmocka_unit_test_setup(test_exponent, reset),
		cmocka_unit_test_setup(test_blanks, reset),
		cmocka_unit_test_setup(test_key_chars, reset),
		cmocka_unit_test_setup(test_checksum_string, reset),
		cmocka_unit_test_setup(test_checksum_other_key, reset),
		cmocka_unit_test_setup(test_duplicate, reset),
		cmocka_unit_test_setup(test_non_numeric, reset),
		cmocka_unit_test_setup(test_hex_inf_nan, reset),
		cmocka_unit_test_setup(test_builtin_ignored, reset),
		cmocka_unit_test_setup(test_key_too_long, reset),
		cmocka_unit_test_setup(test_limit, reset),
		cmocka_unit_test_setup(test_only_named, reset),
		cmocka_unit_test_setup(test_not_nul_terminated, reset),
	};

	return (cmocka_run_group_tests_name("metrics", tests, NULL, NULL));
}
