/*
 * agent-cpu: stands in for orch-agent (ORCH_AGENT=.../agent-cpu) to measure
 * the agent's own CPU time. It starts $BENCH_AGENT with the same arguments,
 * hands it stdin and stdout (the agent's lifeline stays the agent's alone),
 * waits for it to exit without reaping it (WNOWAIT), reads the zombie's
 * utime and stime from /proc/PID/stat -- its own and its threads', not its
 * children's (the benchmarks) -- and appends "utime stime clk_tck" in clock
 * ticks to $BENCH_AGENT_CPU. Exits as the agent did.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static volatile pid_t	child = -1;

/* Passes a termination request on to the agent. */
static void
forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int
main(int argc, char **argv)
{
	const char	*agent = getenv("BENCH_AGENT"), *out = getenv("BENCH_AGENT_CPU");
	char		 path[64], buf[2048], *p;
	unsigned long	 ut = 0, st = 0;
	siginfo_t	 si;
	FILE		*f;
	pid_t		 pid;
	int		 e, i, status = 0;

	(void)argc;
	if (agent == NULL || out == NULL) {
		fprintf(stderr, "agent-cpu: set BENCH_AGENT and BENCH_AGENT_CPU\n");
		return (2);
	}
	argv[0] = (char *)agent;
	if ((e = posix_spawn(&pid, agent, NULL, NULL, argv, environ)) != 0) {
		fprintf(stderr, "agent-cpu: %s: %s\n", agent, strerror(e));
		return (127);
	}
	child = pid;
	signal(SIGTERM, forward);
	signal(SIGINT, forward);
	signal(SIGHUP, forward);
	close(0);
	close(1);
	memset(&si, 0, sizeof si);
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == -1 &&
	    errno == EINTR)
		;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(buf, sizeof buf, f) != NULL &&
		    (p = strrchr(buf, ')')) != NULL) {
			/* Fields after the name: 3 state ... 14 utime 15 stime. */
			p += 2;
			for (i = 3; i < 14 && p != NULL; i++) {
				p = strchr(p, ' ');
				if (p != NULL)
					p++;
			}
			if (p != NULL)
				sscanf(p, "%lu %lu", &ut, &st);
		}
		fclose(f);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if ((f = fopen(out, "a")) != NULL) {
		fprintf(f, "%lu %lu %ld\n", ut, st, sysconf(_SC_CLK_TCK));
		fclose(f);
	}
	if (WIFEXITED(status))
		return (WEXITSTATUS(status));
	return (128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}
