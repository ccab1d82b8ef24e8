/*
 * bare-spawn N PROG [ARG...]: the harness floor of a minimal harness. Runs
 * PROG N times with posix_spawn() and a blocking wait4(), nothing else (no
 * pipes, no process group, no output parsing), and prints the per-run wall
 * times as one JSON object: n, median_ns, mean_ns, min_ns, p10_ns, p90_ns,
 * total_ns (the loop itself, spawn to spawn) and self_cpu_ns (this loop's
 * own CPU time per run, its children's not included).
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char **environ;

static int64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

static int
cmp64(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return ((x > y) - (x < y));
}

int
main(int argc, char **argv)
{
	struct rusage	 ru, self;
	int64_t		*t, t0, t1, start, sum = 0;
	long		 n, i;
	pid_t		 pid;
	int		 st, e;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: bare-spawn N PROG [ARG...]\n");
		return (2);
	}
	if ((t = calloc((size_t)n, sizeof *t)) == NULL)
		return (1);
	start = now_ns();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if ((e = posix_spawn(&pid, argv[2], NULL, NULL, argv + 2,
		    environ)) != 0) {
			fprintf(stderr, "bare-spawn: %s: %s\n", argv[2],
			    strerror(e));
			return (1);
		}
		while (wait4(pid, &st, 0, &ru) == -1 && errno == EINTR)
			;
		t1 = now_ns();
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "bare-spawn: %s failed\n", argv[2]);
			return (1);
		}
		t[i] = t1 - t0;
		sum += t[i];
	}
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &self);
	qsort(t, (size_t)n, sizeof *t, cmp64);
	printf("{\"n\":%ld,\"median_ns\":%.1f,\"mean_ns\":%.1f,\"min_ns\":%lld,"
	    "\"p10_ns\":%lld,\"p90_ns\":%lld,\"total_ns\":%lld,"
	    "\"self_cpu_ns\":%.1f}\n", n,
	    n % 2 ? (double)t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2.0,
	    (double)sum / (double)n, (long long)t[0],
	    (long long)t[n / 10], (long long)t[n * 9 / 10],
	    (long long)(t1 - start),
	    ((double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1e9 +
	    (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1e3) /
	    (double)n);
	free(t);
	return (0);
}
