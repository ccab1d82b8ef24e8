/*
 * sleeper [-c FILE -p PHASE] MS: sleeps MS milliseconds ignoring SIGTERM,
 * then prints slept_ms.
 *
 * With -c it also prints turn_ns, a value no noise can move: the k-th run
 * counted in FILE (k from 0; FILE holds k) prints 1000000 when k + PHASE is
 * even and 2000000 when it is odd. Two variants of one host counting in
 * files of their own with phases 0 and 1 give round r the ratio 2 or 1/2,
 * alternating: an A/A whose paired log ratios are +c, -c, +c ... can never
 * be decided (symmetric about 0, never inside 1 +/- 0) however many looks,
 * the order of the rounds or the machine's load.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long
turn(const char *path)
{
	FILE	*f;
	long	 k = 0;

	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%ld", &k) != 1 || k < 0)
			k = 0;
		fclose(f);
	}
	if ((f = fopen(path, "w")) == NULL || fprintf(f, "%ld\n", k + 1) < 0 ||
	    fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	return (k);
}

int
main(int argc, char **argv)
{
	struct timespec	 ts;
	const char	*count = NULL;
	long		 ms, phase = 0, k = 0;
	int		 ch;

	while ((ch = getopt(argc, argv, "c:p:")) != -1) {
		switch (ch) {
		case 'c':
			count = optarg;
			break;
		case 'p':
			phase = strtol(optarg, NULL, 10);
			break;
		default:
			return (2);
		}
	}
	ms = optind < argc ? strtol(argv[optind], NULL, 10) : 1000;
	if (count != NULL)
		k = turn(count);
	signal(SIGTERM, SIG_IGN);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	printf("slept_ms=%ld\n", ms);
	if (count != NULL)
		printf("turn_ns=%ld\n", (k + phase) % 2 == 0 ? 1000000L :
		    2000000L);
	return (0);
}
