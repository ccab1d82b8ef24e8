/*
 * metricout MODE: prints the metric lines of MODE, to test how the agent
 * takes them: good, text, nan, huge, twice, builtin.
 */
#include <stdio.h>
#include <string.h>

int
main(int argc, char **argv)
{
	const char	*mode = argc > 1 ? argv[1] : "good";

	/* Text that only looks like key=value is never an error. */
	printf("version=1.2.3\nmode: %s\n", mode);
	if (strcmp(mode, "good") == 0)
		printf("elapsed_ns=1000\n");
	else if (strcmp(mode, "text") == 0)
		printf("elapsed_ns=abc\n");
	else if (strcmp(mode, "nan") == 0)
		printf("elapsed_ns=NaN\n");
	else if (strcmp(mode, "huge") == 0)
		printf("elapsed_ns=1e999\n");
	else if (strcmp(mode, "twice") == 0)
		printf("elapsed_ns=1000\nelapsed_ns=2000\n");
	else if (strcmp(mode, "builtin") == 0)
		printf("elapsed_ns=1000\nwall_ns=1\n");
	return (0);
}
