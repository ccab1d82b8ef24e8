/*
 * forker: forks a grandchild that sleeps 60 s in the same process group
 * with stdout/stderr on /dev/null, prints child_pid=N, then exits 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	pid_t	pid;
	int	fd;

	fflush(stdout);
	if ((pid = fork()) == -1) {
		perror("fork");
		return (1);
	}
	if (pid == 0) {
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		sleep(60);
		_exit(0);
	}
	printf("child_pid=%ld\n", (long)pid);
	return (0);
}
