/*
 * daemonizer: a benchmark that escapes its process group the way a daemon
 * does. It forks; the child calls setsid() and forks again; the grandchild
 * sends its stdio to /dev/null, writes its pid into PIDFILE and sleeps
 * 60 s. The program waits (at most 5 s) for the pid file, prints
 * grandchild_pid=N, then exits 0 — or, with "hang", sleeps 60 s itself.
 *
 * usage: daemonizer PIDFILE [hang]
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec	 ts = { 0, 10000000 };
	char		 tmp[4096];
	FILE		*f;
	pid_t		 pid;
	long		 gc = 0;
	int		 fd, i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: daemonizer PIDFILE [hang]\n");
		return (2);
	}
	fflush(stdout);
	if ((pid = fork()) == -1) {
		perror("fork");
		return (1);
	}
	if (pid == 0) {
		setsid();
		if ((pid = fork()) == -1)
			_exit(1);
		if (pid != 0)
			_exit(0);
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
		if ((f = fopen(tmp, "w")) != NULL) {
			fprintf(f, "%ld\n", (long)getpid());
			if (fclose(f) == 0)
				rename(tmp, argv[1]);
		}
		sleep(60);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	for (i = 0; i < 500; i++) {
		if ((f = fopen(argv[1], "r")) != NULL) {
			if (fscanf(f, "%ld", &gc) != 1)
				gc = 0;
			fclose(f);
			if (gc > 0)
				break;
		}
		nanosleep(&ts, NULL);
	}
	if (gc <= 0) {
		fprintf(stderr, "daemonizer: no pid file %s within 5 s\n",
		    argv[1]);
		return (1);
	}
	printf("grandchild_pid=%ld\n", gc);
	fflush(stdout);
	if (argc == 3 && strcmp(argv[2], "hang") == 0)
		sleep(60);
	return (0);
}
