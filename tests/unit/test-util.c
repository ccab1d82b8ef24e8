/* Unit tests of proto/be.h and proto/util.c. */
#include <sys/wait.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/be.h"
#include "proto/util.h"

static void
test_be_put(void **state)
{
	static const uint8_t	want[14] = {
		0x01, 0x02,
		0x01, 0x02, 0x03, 0x04,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08
	};
	uint8_t			got[14];

	(void)state;
	be16_put(got, 0x0102);
	be32_put(got + 2, 0x01020304);
	be64_put(got + 6, 0x0102030405060708ULL);
	assert_memory_equal(got, want, sizeof want);
}

static void
test_be_get(void **state)
{
	static const uint8_t	p[9] = {
		0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8, 0xf7
	};

	(void)state;
	assert_int_equal(be16_get(p), 0xfffe);
	assert_int_equal(be32_get(p), 0xfffefdfcU);
	assert_true(be64_get(p) == 0xfffefdfcfbfaf9f8ULL);
	/* Unaligned: nothing assumes the bytes sit on a boundary. */
	assert_int_equal(be32_get(p + 1), 0xfefdfcfbU);
	assert_int_equal(be_get(p, 0), 0);
	assert_int_equal(be_get(p, 1), 0xff);
	assert_int_equal(be_get(p, 2), be16_get(p));
	assert_int_equal(be_get(p, 4), be32_get(p));
	assert_true(be_get(p + 1, 8) == be64_get(p + 1));
}

static void
test_be_round_trip(void **state)
{
	static const uint64_t	v[] = {
		0, 1, 0xff, 0x100, 0xffffffffULL, 0x100000000ULL, UINT64_MAX
	};
	uint8_t			b[8];
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		be64_put(b, v[i]);
		assert_true(be64_get(b) == v[i]);
		be32_put(b, (uint32_t)v[i]);
		assert_int_equal(be32_get(b), (uint32_t)v[i]);
		be16_put(b, (uint16_t)v[i]);
		assert_int_equal(be16_get(b), (uint16_t)v[i]);
	}
}

static void
test_write_all(void **state)
{
	char	buf[100000], got[sizeof buf];
	size_t	n = 0;
	ssize_t	r;
	pid_t	pid;
	int	p[2], status;

	(void)state;
	memset(buf, 'x', sizeof buf);
	buf[sizeof buf - 1] = 'y';
	assert_int_equal(pipe(p), 0);
	/*
	 * More than a pipe holds, through a non-blocking end: written in
	 * parts, waiting for room as the reader drains.
	 */
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		close(p[0]);
		fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
		_exit(util_write_all(p[1], buf, sizeof buf) == 0 ? 0 : 1);
	}
	close(p[1]);
	while ((r = read(p[0], got + n, sizeof got - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(n, sizeof buf);
	assert_memory_equal(got, buf, sizeof buf);
}

static void
test_now_ms(void **state)
{
	int64_t	a, b;

	(void)state;
	a = util_now_ms();
	usleep(20 * 1000);
	b = util_now_ms();
	assert_true(b - a >= 19);
	assert_true(b - a < 5000);
}

/*
 * util_clock_ns: the clock asked for, in nanoseconds (CLOCK_REALTIME is
 * the epoch's, CLOCK_MONOTONIC moves on), and 0 for a clock that cannot
 * be read rather than an unset time.
 */
static void
test_clock_ns(void **state)
{
	struct timespec	ts;
	int64_t		a, b;

	(void)state;
	clock_gettime(CLOCK_REALTIME, &ts);
	a = util_clock_ns(CLOCK_REALTIME);
	assert_true(a / 1000000000LL >= (int64_t)ts.tv_sec);
	assert_true(a / 1000000000LL <= (int64_t)ts.tv_sec + 5);
	a = util_clock_ns(CLOCK_MONOTONIC);
	usleep(2 * 1000);
	b = util_clock_ns(CLOCK_MONOTONIC);
	assert_true(b - a >= 1900000);
	assert_true(b - a < 5000000000LL);
	assert_int_equal(util_clock_ns((clockid_t)-9999), 0);
}

/*
 * util_env_pad: 0 when off, within 0..max, the same for the same key, and
 * (nearly) every step and attempt its own length.
 */
static void
test_env_pad(void **state)
{
	static uint8_t	seen[4097];
	uint32_t	step, v, distinct = 0, lo = 0;

	(void)state;
	assert_int_equal(util_env_pad(7, 3, 1, 0), 0);
	for (step = 0; step < 1000; step++) {
		v = util_env_pad(42, step, 1, 4096);
		assert_true(v <= 4096);
		assert_int_equal(v, util_env_pad(42, step, 1, 4096));
		distinct += !seen[v];
		seen[v] = 1;
		lo += v < 2048;
	}
	/* 1000 draws of 4097 values: about 890 distinct, half below 2048. */
	assert_true(distinct > 800);
	assert_true(lo > 430 && lo < 570);
	/* Another attempt, another seed: another length (1 in 4097 alike). */
	for (step = 0, distinct = 0; step < 1000; step++)
		distinct += util_env_pad(42, step, 1, 4096) !=
		    util_env_pad(42, step, 2, 4096) &&
		    util_env_pad(42, step, 1, 4096) !=
		    util_env_pad(43, step, 1, 4096);
	assert_true(distinct > 990);
}

/*
 * util_stop_signals: SIGTERM and SIGINT set the flag to the signal, and
 * the first of each puts it back to its default (a second would end the
 * program); another signal leaves the flag alone.
 */
static void
test_stop_signals(void **state)
{
	struct sigaction	sa, old_int, old_term;
	atomic_int		flag = 0;

	(void)state;
	sigaction(SIGINT, NULL, &old_int);
	sigaction(SIGTERM, NULL, &old_term);
	util_stop_signals(&flag);
	sigaction(SIGTERM, NULL, &sa);
	assert_true(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
	assert_int_equal(raise(SIGTERM), 0);
	assert_int_equal(flag, SIGTERM);
	sigaction(SIGTERM, NULL, &sa);
	assert_true(sa.sa_handler == SIG_DFL);
	sigaction(SIGINT, NULL, &sa);
	assert_true(sa.sa_handler != SIG_DFL);
	assert_int_equal(raise(SIGINT), 0);
	assert_int_equal(flag, SIGINT);
	sigaction(SIGINT, NULL, &sa);
	assert_true(sa.sa_handler == SIG_DFL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_be_put),
		cmocka_unit_test(test_be_get),
		cmocka_unit_test(test_be_round_trip),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_stop_signals),
		cmocka_unit_test(test_now_ms),
		cmocka_unit_test(test_clock_ns),
		cmocka_unit_test(test_env_pad),
	};

	return (cmocka_run_group_tests_name("util", tests, NULL, NULL));
}
