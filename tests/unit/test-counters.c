/*
 * Unit tests of the note on hardware counters the kernel refuses
 * (agent/facts-linux.c): one clause per reason, naming each counter once,
 * and cut only between words when it does not fit, never mid-word (it
 * once read "no such hardware c").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/facts.h"

#define ALL	"instructions, cycles, branches, branch-misses, cache-misses, " \
		"context-switches, task-clock, page-faults"

static void
test_refusal_words(void **state)
{
	struct facts_counters	c;
	char			full[4096], cut[120], *dots;
	size_t			n;

	(void)state;
	if (facts_counters_open(&c, ALL, full, sizeof full) < 0)
		fail_msg("open: %s", full);
	facts_counters_close(&c, NULL);
	if (full[0] == '\0')
		skip();		/* this machine lets every counter be read */
	/* Each refused counter is named once; a reason is said once. */
	assert_null(strstr(full, "refused counter 'instructions'; the kernel "
	    "refused counter 'cycles'"));
	if (facts_counters_open(&c, ALL, cut, sizeof cut) < 0)
		fail_msg("open: %s", cut);
	facts_counters_close(&c, NULL);
	if (strlen(full) < sizeof cut) {
		assert_string_equal(cut, full);
		return;
	}
	/* Cut: a prefix of the whole note, ending between two words. */
	n = strlen(cut);
	assert_true(n >= 3 && n < sizeof cut);
	dots = cut + n - 3;
	assert_string_equal(dots, "...");
	*dots = '\0';
	n = strlen(cut);
	assert_true(n > 0);
	assert_memory_equal(cut, full, n);
	assert_true(full[n] == ' ');
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusal_words),
	};

	return (cmocka_run_group_tests_name("counters", tests, NULL, NULL));
}
