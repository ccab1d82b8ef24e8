/* memhog MB: allocates and touches MB mebibytes, prints touched_mb=MB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	long	 mb = argc > 1 ? strtol(argv[1], NULL, 10) : 50;
	size_t	 len = (size_t)mb * 1024 * 1024;
	char	*p;

	if ((p = malloc(len)) == NULL) {
		perror("malloc");
		return (1);
	}
	memset(p, 1, len);
	printf("touched_mb=%ld\nsum=%d\n", mb, p[len / 2] + p[len - 1]);
	free(p);
	return (0);
}
