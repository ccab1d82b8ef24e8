/* failer CODE: prints a message to stderr, then exits with CODE. */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	int	code = argc > 1 ? atoi(argv[1]) : 1;

	printf("partial=1\n");
	fprintf(stderr, "failer: something went wrong, exiting with %d\n",
	    code);
	return (code);
}
