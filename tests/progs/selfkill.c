/*
 * selfkill FILE: the first time (FILE absent) creates FILE and dies of
 * SIGKILL; afterwards prints ok=1 and exits 0. For re-run tests.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	int	fd;

	if (argc < 2) {
		fprintf(stderr, "usage: selfkill FILE\n");
		return (2);
	}
	if (access(argv[1], F_OK) == -1) {
		if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0644)) == -1) {
			perror(argv[1]);
			return (2);
		}
		close(fd);
		kill(getpid(), SIGKILL);
	}
	printf("ok=1\n");
	return (0);
}
