/* affinity: prints cpus=N and cpu_list=... of its CPU affinity (Linux). */
#ifdef __linux__
#define _GNU_SOURCE
#include <sched.h>
#endif
#include <stdio.h>

int
main(void)
{
#ifdef __linux__
	cpu_set_t	set;
	int		c, first = -1, sep = 0;

	if (sched_getaffinity(0, sizeof set, &set) == -1) {
		perror("sched_getaffinity");
		return (1);
	}
	printf("cpus=%d\ncpu_list=", CPU_COUNT(&set));
	for (c = 0; c <= CPU_SETSIZE; c++) {
		if (c < CPU_SETSIZE && CPU_ISSET(c, &set)) {
			if (first == -1)
				first = c;
			continue;
		}
		if (first == -1)
			continue;
		printf("%s%d", sep ? "," : "", first);
		if (c - 1 > first)
			printf("-%d", c - 1);
		sep = 1;
		first = -1;
	}
	printf("\n");
#else
	printf("cpus=0\ncpu_list=\n");
#endif
	return (0);
}
