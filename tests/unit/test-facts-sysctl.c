/*
 * Unit tests of agent/facts-sysctl.c: what the macOS agent makes of the
 * answers of sysctlbyname() and proc_pid_rusage(), run on any OS. The
 * answers are those of an M2 (MacBook Air Mac14,2, 4 performance and 4
 * efficiency cores, 24 GiB, macOS 14.5 = Darwin 23.5.0) and of an Intel
 * Mac, as raw bytes of the sizes the kernel gives: strings with their NUL,
 * 32-bit counts, 64-bit byte counts and frequencies. They are typed from
 * those machines' published figures, not captured here from a Mac.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/facts-sysctl.h"

/* One sysctl answer: a string (with its NUL), or an integer of size 4/8. */
struct answer {
	const char	*name;
	const char	*str;
	uint64_t	 num;
	size_t		 size;		/* integers: 4 or 8 (or odd sizes) */
};

#define S(n, s)		{ n, s, 0, 0 }
#define I32(n, v)	{ n, NULL, v, 4 }
#define I64(n, v)	{ n, NULL, v, 8 }

static const struct answer m2[] = {
	S("machdep.cpu.brand_string", "Apple M2"),
	S("kern.osrelease", "23.5.0"),
	S("kern.osproductversion", "14.5"),
	S("hw.model", "Mac14,2"),
	I64("hw.memsize", 25769803776ULL),
	I32("hw.logicalcpu", 8),
	I32("hw.physicalcpu", 8),
	I32("hw.perflevel0.logicalcpu", 4),
	I32("hw.perflevel1.logicalcpu", 4),
	I32("kern.hv_vmm_present", 0),
	I32("sysctl.proc_translated", 0),
	{ NULL, NULL, 0, 0 }
};

static const struct answer intel[] = {
	S("machdep.cpu.brand_string",
	    "Intel(R) Core(TM) i7-8850H CPU @ 2.60GHz"),
	S("kern.osrelease", "21.6.0"),
	S("hw.model", "MacBookPro15,1"),
	I64("hw.memsize", 17179869184ULL),
	I32("hw.logicalcpu", 12),
	I32("hw.physicalcpu", 6),
	I64("hw.cpufrequency_max", 2600000000ULL),
	I32("kern.hv_vmm_present", 1),
	{ NULL, NULL, 0, 0 }
};

static const struct answer odd[] = {
	S("machdep.cpu.brand_string", ""),		/* empty: absent */
	{ "hw.memsize", NULL, 7, 2 },			/* 2 bytes: absent */
	S("hw.model", "0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef"),			/* 128 + NUL */
	I32("hw.logicalcpu", 0),			/* no cores: absent */
	{ NULL, NULL, 0, 0 }
};

static const struct answer *answers;

/* sysctlbyname as the kernel answers it: ENOENT, ENOMEM, or the bytes. */
static int
fake_sysctl(const char *name, void *buf, size_t *len)
{
	const struct answer	*a;
	size_t			 n;

	for (a = answers; a->name != NULL; a++) {
		if (strcmp(a->name, name) != 0)
			continue;
		if (a->str != NULL) {
			n = strlen(a->str) + 1;
			/* xnu copies what fits and fails with ENOMEM. */
			memcpy(buf, a->str, n < *len ? n : *len);
			if (n > *len)
				return (-1);
		} else {
			uint32_t	v32 = (uint32_t)a->num;
			uint64_t	v64 = a->num;

			n = a->size;
			if (n > *len)
				return (-1);
			if (n == 4)
				memcpy(buf, &v32, 4);
			else if (n == 8)
				memcpy(buf, &v64, 8);
			else
				memcpy(buf, &v64, n);
		}
		*len = n;
		return (0);
	}
	return (-1);
}

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

static void
test_m2(void **state)
{
	static struct proto_facts f;

	(void)state;
	answers = m2;
	memset(&f, 0, sizeof f);
	strcpy(f.kernel, "from uname");
	facts_sysctl_fill(&f, fake_sysctl);
	assert_string_equal(f.cpu_model, "Apple M2");
	assert_string_equal(f.kernel, "23.5.0");
	assert_int_equal(f.mem_kb, 25165824);
	assert_string_equal(extra(&f, "model"), "Mac14,2");
	assert_string_equal(extra(&f, "macos"), "14.5");
	assert_string_equal(extra(&f, "perf_cores"), "4");
	assert_string_equal(extra(&f, "efficiency_cores"), "4");
	assert_string_equal(extra(&f, "smt"), "off");
	assert_string_equal(extra(&f, "aslr"), "on");
	assert_string_equal(extra(&f, "vm"), "no");
	assert_string_equal(extra(&f, "rosetta"), "no");
	assert_null(extra(&f, "cpu_max_mhz"));
	assert_int_equal(facts_sysctl_cores(fake_sysctl), 8);
}

static void
test_intel(void **state)
{
	static struct proto_facts f;

	(void)state;
	answers = intel;
	memset(&f, 0, sizeof f);
	facts_sysctl_fill(&f, fake_sysctl);
	assert_string_equal(f.cpu_model,
	    "Intel(R) Core(TM) i7-8850H CPU @ 2.60GHz");
	assert_int_equal(f.mem_kb, 16777216);
	assert_string_equal(extra(&f, "smt"), "on");
	assert_string_equal(extra(&f, "cpu_max_mhz"), "2600");
	assert_string_equal(extra(&f, "vm"), "yes");
	assert_null(extra(&f, "perf_cores"));
	assert_null(extra(&f, "efficiency_cores"));
	assert_null(extra(&f, "rosetta"));
	assert_null(extra(&f, "macos"));
	assert_int_equal(facts_sysctl_cores(fake_sysctl), 12);
}

static void
test_odd_answers(void **state)
{
	static struct proto_facts f;
	char		buf[8];
	uint64_t	v = 99;

	(void)state;
	answers = odd;
	memset(&f, 0, sizeof f);
	strcpy(f.cpu_model, "arm64");
	facts_sysctl_fill(&f, fake_sysctl);
	assert_string_equal(f.cpu_model, "arm64");	/* empty: kept */
	assert_int_equal(f.mem_kb, 0);			/* 2 bytes: absent */
	assert_null(extra(&f, "model"));		/* too long for buf */
	assert_string_equal(extra(&f, "vm"), "unknown");
	assert_int_equal(facts_sysctl_cores(fake_sysctl), 0);
	assert_int_equal(facts_sysctl_u64(fake_sysctl, "hw.memsize", &v), -1);
	assert_int_equal(facts_sysctl_u64(fake_sysctl, "no.such", &v), -1);
	assert_int_equal(v, 99);
	answers = m2;
	/* A string that fills the buffer exactly ends at its last byte. */
	assert_int_equal(facts_sysctl_str(fake_sysctl, "hw.model", buf,
	    sizeof buf), 0);
	assert_string_equal(buf, "Mac14,2");
	assert_int_equal(facts_sysctl_str(fake_sysctl, "hw.model", buf, 0),
	    -1);
}

/* A RUSAGE_INFO_V4 answer with the given instructions and cycles. */
static void
rusage_v4(unsigned char *ri, uint64_t instructions, uint64_t cycles)
{
	size_t	i;

	for (i = 0; i < FACTS_RI_V4_SIZE; i++)
		ri[i] = (unsigned char)(0xa0 + i % 7);	/* other fields */
	memcpy(ri + FACTS_RI_V4_INSTRUCTIONS, &instructions, 8);
	memcpy(ri + FACTS_RI_V4_CYCLES, &cycles, 8);
}

static void
test_rusage_counters(void **state)
{
	static struct proto_sample s;
	struct facts_counters	c;
	unsigned char		ri[FACTS_RI_V4_SIZE + 1];
	char			err[512];

	(void)state;
	memset(&s, 0, sizeof s);
	rusage_v4(ri + 1, 123456789012ULL, 40000000000ULL);	/* unaligned */
	assert_int_equal(facts_rusage_open(&c, "cycles, instructions", err,
	    sizeof err), 2);
	assert_string_equal(err, "");
	assert_int_equal(facts_rusage_take(&c, ri + 1, FACTS_RI_V4_SIZE), 0);
	facts_rusage_close(&c, &s);
	assert_int_equal(s.nmetrics, 2);
	assert_string_equal(s.metrics[0].key, "cycles");
	assert_true(s.metrics[0].value == 40000000000.0);
	assert_string_equal(s.metrics[1].key, "instructions");
	assert_true(s.metrics[1].value == 123456789012.0);
	assert_int_equal(c.n, 0);
}

static void
test_rusage_names(void **state)
{
	static struct proto_sample s;
	struct facts_counters	c;
	unsigned char		ri[FACTS_RI_V4_SIZE];
	char			err[512];

	(void)state;
	memset(&s, 0, sizeof s);
	/* Known elsewhere, not on macOS: skipped, with the reason. */
	assert_int_equal(facts_rusage_open(&c, "instructions,task-clock,"
	    "branch-misses", err, sizeof err), 1);
	assert_non_null(strstr(err, "'task-clock' is not available on macOS"));
	assert_non_null(strstr(err, "; counter 'branch-misses'"));
	/* No exited child seen: nothing is reported. */
	facts_rusage_close(&c, &s);
	assert_int_equal(s.nmetrics, 0);
	/* A short answer is refused. */
	assert_int_equal(facts_rusage_open(&c, "cycles", err, sizeof err), 1);
	rusage_v4(ri, 1, 2);
	assert_int_equal(facts_rusage_take(&c, ri, FACTS_RI_V4_CYCLES + 7), -1);
	facts_rusage_close(&c, &s);
	assert_int_equal(s.nmetrics, 0);
	/* Lost sample: nothing added. */
	assert_int_equal(facts_rusage_open(&c, "cycles", err, sizeof err), 1);
	assert_int_equal(facts_rusage_take(&c, ri, sizeof ri), 0);
	facts_rusage_close(&c, NULL);
	assert_int_equal(c.n, 0);
	/* Unknown names fail the whole list. */
	assert_int_equal(facts_rusage_open(&c, "cycles,bogus", err,
	    sizeof err), -1);
	assert_string_equal(err, "unknown counter 'bogus'");
	assert_int_equal(c.n, 0);
	assert_int_equal(facts_rusage_open(&c, "", err, sizeof err), 0);
	assert_int_equal(facts_rusage_open(&c, NULL, err, sizeof err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_m2),
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_odd_answers),
		cmocka_unit_test(test_rusage_counters),
		cmocka_unit_test(test_rusage_names),
	};

	return (cmocka_run_group_tests_name("facts-sysctl", tests, NULL,
	    NULL));
}
