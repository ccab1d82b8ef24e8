/*
 * agent-cpu: stands in for orch-agent (ORCH_AGENT=.../agent-cpu) to measure
 * what the agent costs. It starts $BENCH_AGENT with the same arguments,
 * hands it stdin and stdout (the agent's lifeline stays the agent's alone),
 * waits for it with wait4() and appends "cpu_ns nvcsw nivcsw" to
 * $BENCH_AGENT_CPU: the CPU time and context switches of the agent *and*
 * every benchmark it ran (the kernel adds the children it reaped). The
 * agent's own share is that minus the samples' user_ns + sys_ns and nvcsw,
 * which orch recorded from the same wait4() accounting (bench/run.sh does
 * the subtraction). Exits as the agent did.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/time.h>
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
	const char	*agent = getenv("BENCH_AGENT");
	const char	*out = getenv("BENCH_AGENT_CPU");
	struct rusage	 ru;
	FILE		*f;
	pid_t		 pid;
	int		 e, status = 0;

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
	memset(&ru, 0, sizeof ru);
	while (wait4(pid, &status, 0, &ru) == -1 && errno == EINTR)
		;
	if ((f = fopen(out, "a")) != NULL) {
		fprintf(f, "%lld %ld %ld\n",
		    ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
		    1000000000LL + ((long long)ru.ru_utime.tv_usec +
		    ru.ru_stime.tv_usec) * 1000LL, ru.ru_nvcsw, ru.ru_nivcsw);
		fclose(f);
	}
	if (WIFEXITED(status))
		return (WEXITSTATUS(status));
	return (128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}
