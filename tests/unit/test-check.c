/*
 * Unit tests of coordinator/hosts/check.c's verdicts on a host's facts: what the
 * READY column says (a run would wait above the load gate; a host without
 * an agent is one orch run deploys to, not one that is not ready) and the
 * load warning, on synthetic facts, so that no test depends on the load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/hosts/check.h"
#include "coordinator/hosts/host.h"

static struct host	h;

/* A probed host of cores cores at a 1-minute load of load. */
static void
host_at(unsigned cores, double load, double max_load)
{
	memset(&h, 0, sizeof h);
	snprintf(h.name, sizeof h.name, "web1");
	snprintf(h.facts.os, sizeof h.facts.os, "linux");
	h.facts.cores = cores;
	h.facts.load[0] = load;
	h.max_load = max_load;
}

static void
test_ready_quiet(void **state)
{
	(void)state;
	host_at(4, 0.5, -1);		/* 0.125 per core, gate 1/3 */
	assert_string_equal(check_ready(&h, 1), "yes");
}

static void
test_ready_would_wait(void **state)
{
	char	buf[2048];

	(void)state;
	host_at(2, 2.6, -1);		/* 1.30 per core, gate 1/3 */
	assert_string_equal(check_ready(&h, 1), "would wait");
	check_warnings(&h, buf, sizeof buf);
	assert_non_null(strstr(buf, "1-minute load 2.60 (1.30 per core) is "
	    "above max_load 0.33 per core of 2 cores: a run would wait "
	    "(--max-load=0 measures anyway)"));
	/* The inventory's gate, not the default. */
	host_at(2, 2.59, 2.0);
	assert_string_equal(check_ready(&h, 1), "yes");
	check_warnings(&h, buf, sizeof buf);
	assert_null(strstr(buf, "would wait"));
	/* max_load = 0: the gate is off, a run never waits. */
	host_at(2, 50, 0);
	assert_string_equal(check_ready(&h, 1), "yes");
	/* No facts of the cores: nothing to say. */
	host_at(0, 50, -1);
	assert_string_equal(check_ready(&h, 1), "yes");
}

static void
test_ready_deploys(void **state)
{
	(void)state;
	host_at(2, 0, -1);
	assert_string_equal(check_ready(&h, 0), "NO");
	h.agent_stale = 1;		/* no agent: orch run installs it */
	assert_string_equal(check_ready(&h, 0), "run deploys");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_quiet),
		cmocka_unit_test(test_ready_would_wait),
		cmocka_unit_test(test_ready_deploys),
	};

	return (cmocka_run_group_tests_name("check", tests, NULL, NULL));
}
