/* sleeper MS: sleeps MS milliseconds ignoring SIGTERM, then prints slept_ms. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int
main(int argc, char **argv)
{
	struct timespec	ts;
	long		ms = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;

	signal(SIGTERM, SIG_IGN);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	printf("slept_ms=%ld\n", ms);
	return (0);
}
