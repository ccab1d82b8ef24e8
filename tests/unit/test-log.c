/* Unit tests of proto/log.c: the hook around each line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/log.h"

/* Marks where the hook ran, on the stream the log writes to. */
static void
tl_hook(int before)
{
	fputs(before ? "<clear>" : "<draw>", stderr);
}

/* Runs the log with stderr in a file; returns what was written. */
static void
tl_capture(char *buf, size_t len, void (*hook)(int))
{
	FILE	*f;
	size_t	 n;
	int	 saved;

	fflush(stderr);
	assert_non_null(f = tmpfile());
	assert_true((saved = dup(2)) != -1);
	assert_true(dup2(fileno(f), 2) != -1);
	log_init("orch", LOG_INFO);
	log_set_hook(hook);
	log_warnx("one %d", 1);
	log_debug("not shown");
	log_set_hook(NULL);
	log_info("two");
	fflush(stderr);
	assert_true(dup2(saved, 2) != -1);
	close(saved);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* The hook clears before the line and draws after; NULL removes it. */
static void
test_log_hook(void **state)
{
	char	buf[256];

	(void)state;
	tl_capture(buf, sizeof buf, tl_hook);
	assert_string_equal(buf, "<clear>orch: one 1\n<draw>orch: two\n");
}

/* No hook: the lines alone. */
static void
test_log_nohook(void **state)
{
	char	buf[256];

	(void)state;
	tl_capture(buf, sizeof buf, NULL);
	assert_string_equal(buf, "orch: one 1\norch: two\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_hook),
		cmocka_unit_test(test_log_nohook),
	};

	return (cmocka_run_group_tests_name("log", tests, NULL, NULL));
}
