/* Unit tests of agent/facts-*.c: machine facts and CPU pinning. */
#ifdef __linux__
#define _GNU_SOURCE	/* sched_getaffinity, to check facts_pin */
#include <sched.h>
#endif
#include <sys/resource.h>
#include <sys/utsname.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/facts.h"

/* Returns the value of extra fact key, or NULL. */
static const char *
extra(const struct proto_facts *f, const char *key)
{
	size_t	i;

	for (i = 0; i < f->nextra; i++) {
		if (strcmp(f->extra[i].key, key) == 0)
			return (f->extra[i].value);
	}
	return (NULL);
}

/* Returns 1 when v is one of the NULL-terminated words. */
static int
one_of(const char *v, const char *const *words)
{
	for (; *words != NULL; words++) {
		if (strcmp(v, *words) == 0)
			return (1);
	}
	return (0);
}

static void
test_collect_basics(void **state)
{
	static struct proto_facts f;
	struct utsname	u;
	long		online = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	memset(&f, 0, sizeof f);
	strcpy(f.workdir, "/untouched");
	assert_int_equal(facts_collect(&f), 0);
#ifdef __APPLE__
	assert_string_equal(f.os, "darwin");
#else
	assert_string_equal(f.os, "linux");
#endif
	assert_true(strcmp(f.arch, "x86_64") == 0 ||
	    strcmp(f.arch, "aarch64") == 0);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(f.kernel, u.release);
	assert_true(f.cpu_model[0] != '\0');
	assert_true(f.hostname[0] != '\0');
	assert_true(f.cores >= 1);
	assert_int_equal(f.cores, online);
	assert_true(f.mem_kb > 1024);
	assert_true(f.load[0] >= 0 && f.load[1] >= 0 && f.load[2] >= 0);
	assert_string_equal(f.workdir, "/untouched");
	assert_true(f.nextra <= PROTO_FACTS_EXTRA_MAX);
}

static void
test_collect_extras(void **state)
{
	static struct proto_facts f;
	static const char *const onoff[] = { "on", "off", "unknown", NULL };
	static const char *const aslr[] = { "on", "partial", "off", "unknown",
	    NULL };
#ifdef __linux__
	static const char *const keys[] = { "governor", "boost", "smt",
	    "aslr", "thp", "vm", "perf_event_paranoid" };
#else
	static const char *const keys[] = { "aslr", "vm" };
#endif
	const char	*v;
	size_t		 i;

	(void)state;
	memset(&f, 0, sizeof f);
	assert_int_equal(facts_collect(&f), 0);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		v = extra(&f, keys[i]);
		if (v == NULL)
			fail_msg("extra fact %s missing", keys[i]);
		assert_true(v[0] != '\0');
	}
	for (i = 0; i < f.nextra; i++)
		assert_true(f.extra[i].key[0] != '\0');
	assert_true(one_of(extra(&f, "aslr"), aslr));
	v = extra(&f, "vm");
	assert_true(strcmp(v, "no") == 0 || strcmp(v, "unknown") == 0 ||
	    strncmp(v, "yes", 3) == 0);
#ifdef __linux__
	assert_true(one_of(extra(&f, "boost"), onoff));
	assert_true(one_of(extra(&f, "smt"), onoff));
	/* The bracketed word only: "always [madvise] never" -> "madvise". */
	assert_null(strchr(extra(&f, "thp"), '['));
	assert_null(strchr(extra(&f, "thp"), ' '));
	if ((v = extra(&f, "cpu_max_mhz")) != NULL)
		assert_true(atoi(v) > 0);
#else
	(void)onoff;
#endif
}

static void
test_cores_load(void **state)
{
	(void)state;
	assert_int_equal(facts_cores(), sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(facts_load1() >= 0);
	assert_true(facts_cpus_usable() >= 1);
	assert_true(facts_cpus_usable() <= facts_cores());
}

static void
test_maxrss_units(void **state)
{
	struct rusage	ru;

	(void)state;
	memset(&ru, 0, sizeof ru);
	ru.ru_maxrss = 51200;
#ifdef __APPLE__
	assert_int_equal(facts_maxrss_kb(&ru), 50);	/* bytes */
#else
	assert_int_equal(facts_maxrss_kb(&ru), 51200);	/* KiB already */
#endif
	ru.ru_maxrss = 0;
	assert_int_equal(facts_maxrss_kb(&ru), 0);
}

#ifdef __linux__
static void
test_pin_garbage(void **state)
{
	static const char *const bad[] = {
		"x", "1-", "-1", "3-1", "1,,2", "1,", ",1", "0x1", "1 2",
		"1-2-3", "2;3",
	};
	char	err[256];
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		if (facts_pin(bad[i], err, sizeof err) != -1)
			fail_msg("\"%s\" was accepted", bad[i]);
		assert_non_null(strstr(err, "bad CPU list"));
		assert_non_null(strstr(err, bad[i]));
	}
	assert_int_equal(facts_pin("99999", err, sizeof err), -1);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(facts_pin("0-5000", err, sizeof err), -1);
	assert_non_null(strstr(err, "out of range"));
}

static void
test_pin_and_restore(void **state)
{
	cpu_set_t	orig, now;
	char		err[256];

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof orig, &orig), 0);
	/* The CPUs the agent may use are its affinity, not all online. */
	assert_int_equal(facts_cpus_usable(), CPU_COUNT(&orig));
	assert_true(facts_cpus_usable() <= facts_cores());
	assert_int_equal(facts_pin("0", err, sizeof err), 0);
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(0, &now));
	assert_int_equal(facts_cpus_usable(), 1);
	assert_int_equal(facts_pin(NULL, err, sizeof err), 0);
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_true(CPU_EQUAL(&now, &orig));
	assert_int_equal(facts_cpus_usable(), CPU_COUNT(&orig));

	/* A list with blanks and a range; "" restores as NULL does. */
	assert_int_equal(facts_pin(" 0 - 0 , 0", err, sizeof err), 0);
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_int_equal(facts_pin("", err, sizeof err), 0);
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_true(CPU_EQUAL(&now, &orig));
}

static void
test_pin_unavailable(void **state)
{
	cpu_set_t	orig, now;
	char		err[256];

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof orig, &orig), 0);
	/* A CPU this machine does not have is refused, affinity unchanged. */
	assert_int_equal(facts_pin("1023", err, sizeof err), -1);
	assert_non_null(strstr(err, "1023"));
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_true(CPU_EQUAL(&now, &orig));
}
#else
static void
test_pin_unsupported(void **state)
{
	char	err[256];

	(void)state;
	assert_int_equal(facts_pin("0", err, sizeof err), -1);
	assert_non_null(strstr(err, "not supported"));
	assert_int_equal(facts_pin(NULL, err, sizeof err), 0);
}
#endif

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_basics),
		cmocka_unit_test(test_collect_extras),
		cmocka_unit_test(test_cores_load),
		cmocka_unit_test(test_maxrss_units),
#ifdef __linux__
		cmocka_unit_test(test_pin_garbage),
		cmocka_unit_test(test_pin_and_restore),
		cmocka_unit_test(test_pin_unavailable),
#else
		cmocka_unit_test(test_pin_unsupported),
#endif
	};

	return (cmocka_run_group_tests_name("facts", tests, NULL, NULL));
}
