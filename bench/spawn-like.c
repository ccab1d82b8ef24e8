/*
 * spawn-like N DIR PROG [ARG...]: the bare loop of bare-spawn.c, but each
 * run started and collected the way the agent does it (agent/exec.c):
 * stdin from /dev/null, stdout and stderr into non-blocking pipes that are
 * read until EOF (their write ends kept open here until the reap), its own
 * process group, every signal at its default and
 * an empty mask, descriptors above 2 closed, DIR as its working directory,
 * and the exit noticed by a SIGCHLD handler writing to a self-pipe while
 * the loop sleeps in poll(), then wait4(). What it does not do: the
 * protocol, the journal, the coordinator. Prints the same JSON as
 * bare-spawn.
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int	sigw = -1;

static void
on_chld(int sig)
{
	char	c = 0;
	int	saved = errno;

	(void)sig;
	if (write(sigw, &c, 1) == -1)
		c = 1;
	errno = saved;
}

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

/* Reads what fd has; closes it at EOF. */
static void
drain(int *fd)
{
	char	buf[65536];
	ssize_t	n;

	n = read(*fd, buf, sizeof buf);
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		close(*fd);
		*fd = -1;
	}
}

int
main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t	 at;
	struct sigaction	 sa;
	struct rusage		 ru, self;
	struct pollfd		 pfd[3];
	sigset_t		 none, all;
	int64_t			*t, t0, t1, start, sum = 0;
	long			 n, i;
	pid_t			 pid, w;
	int			 sp[2], op[2], ep[2], st = 0, e, reaped;
	char			 b[64];

	if (argc < 4 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: spawn-like N DIR PROG [ARG...]\n");
		return (2);
	}
	if ((t = calloc((size_t)n, sizeof *t)) == NULL ||
	    pipe2(sp, O_NONBLOCK | O_CLOEXEC) == -1)
		return (1);
	sigw = sp[1];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_chld;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&none);
	sigfillset(&all);
	start = now_ns();
	for (i = 0; i < n; i++) {
		if (pipe2(op, O_CLOEXEC) == -1 || pipe2(ep, O_CLOEXEC) == -1)
			return (1);
		fcntl(op[0], F_SETFL, O_NONBLOCK);
		fcntl(ep[0], F_SETFL, O_NONBLOCK);
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, op[1], 1);
		posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
		posix_spawn_file_actions_addclosefrom_np(&fa, 3);
		posix_spawn_file_actions_addchdir_np(&fa, argv[2]);
		posix_spawnattr_init(&at);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
		    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
		posix_spawnattr_setpgroup(&at, 0);
		posix_spawnattr_setsigmask(&at, &none);
		posix_spawnattr_setsigdefault(&at, &all);
		t0 = now_ns();
		if ((e = posix_spawn(&pid, argv[3], &fa, &at, argv + 3,
		    environ)) != 0) {
			fprintf(stderr, "spawn-like: %s: %s\n", argv[3],
			    strerror(e));
			return (1);
		}
		/* The write ends stay open until the reap, as the agent's. */
		reaped = 0;
		t1 = 0;
		while (!reaped || op[0] != -1 || ep[0] != -1) {
			pfd[0].fd = reaped ? -1 : sp[0];
			pfd[1].fd = op[0];
			pfd[2].fd = ep[0];
			pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
			if (poll(pfd, 3, 30000) == -1 && errno != EINTR)
				return (1);
			if (!reaped && pfd[0].revents) {
				while (read(sp[0], b, sizeof b) > 0)
					;
				w = wait4(pid, &st, WNOHANG, &ru);
				if (w == pid) {
					t1 = now_ns();
					reaped = 1;
					kill(-pid, SIGKILL);
					close(op[1]);
					close(ep[1]);
				}
			}
			if (op[0] != -1 && pfd[1].revents)
				drain(&op[0]);
			if (ep[0] != -1 && pfd[2].revents)
				drain(&ep[0]);
		}
		posix_spawn_file_actions_destroy(&fa);
		posix_spawnattr_destroy(&at);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "spawn-like: %s failed\n", argv[3]);
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
