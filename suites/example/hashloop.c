/*
 * The example suite's benchmark program, two kernels:
 *   hashloop ROUNDS FILE       hashes FILE's bytes ROUNDS times (FNV-1a 64)
 *   hashloop --sort N SEED     sorts N pseudo-random 64-bit keys (qsort)
 * Each prints elapsed_ns= (self-timed), a throughput and checksum=.
 * HASHLOOP_EXTRA=P adds P percent more work whose result is discarded:
 * more work, same checksum. That is how variant B of suites/example.ini is
 * a known ~P% slower.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t	sink;

static long long
elapsed(const struct timespec *t0, const struct timespec *t1)
{
	return (long long)(t1->tv_sec - t0->tv_sec) * 1000000000LL +
	    (t1->tv_nsec - t0->tv_nsec);
}

static uint64_t
fnv(const unsigned char *p, size_t n, uint64_t h)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int
hash_main(long rounds, const char *path, long extra)
{
	struct timespec	 t0, t1;
	unsigned char	*buf;
	uint64_t	 h = 0xcbf29ce484222325ULL, x = 0;
	long		 i, extra_rounds = rounds * extra / 100;
	size_t		 n;
	FILE		*f;

	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	rewind(f);
	if ((buf = malloc(n + 1)) == NULL || fread(buf, 1, n, f) != n) {
		fprintf(stderr, "cannot read %s\n", path);
		return 1;
	}
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rounds; i++)
		h = fnv(buf, n, h);
	for (i = 0; i < extra_rounds; i++)
		x = fnv(buf, n, x + (uint64_t)i);
	sink = x;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("elapsed_ns=%lld\n", elapsed(&t0, &t1));
	printf("bytes_per_s=%.0f\n", (double)n * (double)rounds /
	    ((double)elapsed(&t0, &t1) / 1e9));
	printf("checksum=%016llx\n", (unsigned long long)h);
	free(buf);
	return 0;
}

static int
cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void
fill(uint64_t *v, long n, uint64_t s)
{
	long	i;

	for (i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		v[i] = s;
	}
}

static int
sort_main(long n, uint64_t seed, long extra)
{
	struct timespec	 t0, t1;
	uint64_t	*v, *w, sum = 0;
	long		 i, m = n * extra / 100;

	seed |= 1;
	v = malloc((size_t)n * sizeof *v);
	w = malloc((size_t)(m + 1) * sizeof *w);
	if (v == NULL || w == NULL)
		return 1;
	fill(v, n, seed);
	fill(w, m, seed + 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	qsort(v, (size_t)n, sizeof *v, cmp);
	qsort(w, (size_t)m, sizeof *w, cmp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sink = w[0];
	for (i = 0; i < n; i++)
		sum = sum * 31 + v[i];
	printf("elapsed_ns=%lld\n", elapsed(&t0, &t1));
	printf("keys_per_s=%.0f\n", (double)n /
	    ((double)elapsed(&t0, &t1) / 1e9));
	printf("checksum=%016llx\n", (unsigned long long)sum);
	free(v);
	free(w);
	return 0;
}

int
main(int argc, char **argv)
{
	const char	*e = getenv("HASHLOOP_EXTRA");
	long		 extra = e != NULL ? strtol(e, NULL, 10) : 0, n;

	if (argc == 4 && strcmp(argv[1], "--sort") == 0 &&
	    (n = strtol(argv[2], NULL, 10)) > 0)
		return sort_main(n, strtoull(argv[3], NULL, 10), extra);
	if (argc == 3 && (n = strtol(argv[1], NULL, 10)) > 0)
		return hash_main(n, argv[2], extra);
	fprintf(stderr, "usage: hashloop ROUNDS FILE | hashloop --sort N SEED\n");
	return 2;
}
