/*
 * slowdown: a CPU-bound program whose amount of work is a knob, for the
 * statistical power tests.
 *   slowdown ITER [--pct=P] [--drift=D --t0=EPOCH_S]
 *     runs ITER steps of a dependent xorshift chain, plus P percent more
 *     steps (an injected slowdown), plus D percent more per second of wall
 *     clock since EPOCH_S (a machine that slows down steadily). The extra
 *     steps are discarded: the checksum depends on ITER only, so every
 *     variant does "the same work" as far as orch's checksum rule goes.
 *     Prints elapsed_ns= (the loop alone) and checksum=.
 *   slowdown --calibrate=US
 *     prints the ITER that takes about US microseconds here.
 * SLOWDOWN_PCT=P in the environment adds to --pct.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t	sink;

static int64_t
now_ns(clockid_t c)
{
	struct timespec	ts;

	clock_gettime(c, &ts);
	return ((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

/* Runs n steps of the chain from x; returns where it ends. */
static uint64_t
chain(uint64_t x, uint64_t n)
{
	uint64_t	i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return (x);
}

int
main(int argc, char **argv)
{
	double		 pct = 0, drift = 0, t0 = 0, extra;
	uint64_t	 iter = 0, x, best = UINT64_MAX, us;
	int64_t		 a, b;
	const char	*env;
	int		 i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--pct=", 6) == 0)
			pct += strtod(argv[i] + 6, NULL);
		else if (strncmp(argv[i], "--drift=", 8) == 0)
			drift = strtod(argv[i] + 8, NULL);
		else if (strncmp(argv[i], "--t0=", 5) == 0)
			t0 = strtod(argv[i] + 5, NULL);
		else if (strncmp(argv[i], "--calibrate=", 12) == 0) {
			us = strtoull(argv[i] + 12, NULL, 10);
			/* The fastest of a few tries of 2^20 steps. */
			for (i = 0; i < 20; i++) {
				a = now_ns(CLOCK_MONOTONIC);
				sink = chain(88172645463325252ULL, 1 << 20);
				b = now_ns(CLOCK_MONOTONIC);
				if ((uint64_t)(b - a) < best)
					best = (uint64_t)(b - a);
			}
			printf("%llu\n", (unsigned long long)((double)us *
			    1000.0 * (double)(1 << 20) / (double)best));
			return (0);
		} else
			iter = strtoull(argv[i], NULL, 10);
	}
	if ((env = getenv("SLOWDOWN_PCT")) != NULL)
		pct += strtod(env, NULL);
	if (iter == 0) {
		fprintf(stderr, "usage: slowdown ITER [--pct=P] "
		    "[--drift=D --t0=EPOCH_S] | --calibrate=US\n");
		return (2);
	}
	extra = pct / 100.0;
	if (drift != 0 && t0 > 0)
		extra += drift / 100.0 *
		    ((double)now_ns(CLOCK_REALTIME) / 1e9 - t0);
	if (extra < 0)
		extra = 0;
	a = now_ns(CLOCK_MONOTONIC);
	x = chain(88172645463325252ULL, iter);
	sink = chain(x, (uint64_t)((double)iter * extra));
	b = now_ns(CLOCK_MONOTONIC);
	printf("elapsed_ns=%lld\nchecksum=%016llx\n", (long long)(b - a),
	    (unsigned long long)x);
	return (0);
}
