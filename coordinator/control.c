/* orch status / orch stop: each host's part of a run. */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/control.h"
#include "coordinator/deploy.h"
#include "coordinator/host.h"
#include "coordinator/record.h"
#include "coordinator/ssh.h"
#include "proto/ident.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/xmalloc.h"

extern char **environ;

struct control_job {
	struct host	*h;
	const char	*run_id;
	int		 stop;
	char		 line[512];
};

/* Runs argv here and reads the first line of its stdout (bounded). */
static void
control_local(const char *agent, const char *workdir, const char *run_id,
    int stop, char *line, size_t len)
{
	posix_spawn_file_actions_t	 fa;
	char				 wd[PATH_MAX + 16], run[128];
	char				*argv[5];
	struct pollfd			 pfd;
	ssize_t				 n;
	size_t				 got = 0;
	pid_t				 pid;
	int				 p[2], st;

	snprintf(line, len, "cannot ask the local agent");
	snprintf(wd, sizeof wd, "--workdir=%s", workdir);
	snprintf(run, sizeof run, "--run=%s", run_id);
	argv[0] = (char *)(uintptr_t)agent;
	argv[1] = (char *)(uintptr_t)(stop ? "stop" : "status");
	argv[2] = wd;
	argv[3] = run;
	argv[4] = NULL;
	if (pipe(p) == -1)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawn(&pid, agent, &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		close(p[1]);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	line[0] = '\0';
	pfd.fd = p[0];
	pfd.events = POLLIN;
	while (got < len - 1 && poll(&pfd, 1, 15000) == 1) {
		if ((n = read(p[0], line + got, len - 1 - got)) <= 0)
			break;
		got += (size_t)n;
	}
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
}

static void *
control_thread(void *arg)
{
	struct control_job	*j = arg;
	struct host		*h = j->h;
	struct ssh		 s;
	struct ssh_target	 t;
	char			 wd[PATH_MAX], agent[PATH_MAX + 32];
	char			 wdopt[PATH_MAX + 16];
	char			 runopt[PROTO_NAME_MAX + 16];
	char			*argv[] = { agent, (char *)(uintptr_t)(j->stop ?
				    "stop" : "status"), wdopt, runopt, NULL };
	char			 err[HOST_ERR_LEN], errb[1024];
	const char		*home;

	if (h->ops != &host_ssh_ops) {
		if (h->workdir[0] == '\0') {
			home = getenv("HOME");
			snprintf(h->workdir, sizeof h->workdir, "%s/.orch",
			    home != NULL ? home : "/tmp");
		}
		control_local(host_local_agent(), h->workdir, j->run_id,
		    j->stop, j->line, sizeof j->line);
		return (NULL);
	}
	host_ssh_target(h, &t);
	if (ssh_open(&s, &t, err, sizeof err) != 0) {
		snprintf(j->line, sizeof j->line, "unreachable: %s", err);
		return (NULL);
	}
	if (deploy_workdir(h, wd, sizeof wd) != 0) {
		snprintf(j->line, sizeof j->line, "bad workdir");
		ssh_close(&s);
		return (NULL);
	}
	snprintf(agent, sizeof agent, "%s/bin/orch-agent", wd);
	snprintf(wdopt, sizeof wdopt, "--workdir=%s", wd);
	snprintf(runopt, sizeof runopt, "--run=%s", j->run_id);
	if (ssh_run(&s, argv, NULL, j->line, sizeof j->line, errb, sizeof errb,
	    20000) != 0 && j->line[0] == '\0')
		snprintf(j->line, sizeof j->line, "cannot ask the agent: %.200s",
		    errb);
	j->line[strcspn(j->line, "\n")] = '\0';
	ssh_close(&s);
	return (NULL);
}

char *
control_hosts(const char *dir, char **cause)
{
	struct dataset	*ds;
	char		*list;
	size_t		 i, len = 1;

	if (record_load(dir, &ds, cause) != 0)
		return (NULL);
	for (i = 0; i < ds->nhosts; i++)
		len += strlen(ds->hosts[i].name) + 1;
	list = xcalloc(1, len);
	for (i = 0; i < ds->nhosts; i++) {
		if (i > 0)
			strcat(list, ",");
		strcat(list, ds->hosts[i].name);
	}
	dataset_free(ds);
	return (list);
}

int
control_main(const char *dir, struct host *hosts, size_t n, int stop)
{
	struct control_job	*jobs;
	struct dataset		*ds;
	const struct ds_host	*dh;
	char			*cause = NULL, state[HOST_ERR_LEN + 16];
	size_t			 i, k, nrec;
	long			 hi;

	if (record_load(dir, &ds, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (2);
	}
	/* The run id goes into every host's command line: a name only. */
	if (!ident_str_ok(ds->run_id, PROTO_NAME_MAX)) {
		fprintf(stderr, "orch: %s: run id '%.*s' is not a valid "
		    "identifier ([A-Za-z0-9_.-], not starting with '-' or "
		    "'.')\n", dir, (int)strcspn(ds->run_id, "\n"), ds->run_id);
		dataset_free(ds);
		return (2);
	}
	jobs = xcalloc(n + 1, sizeof *jobs);
	for (i = 0; i < n; i++) {
		jobs[i].h = &hosts[i];
		jobs[i].run_id = ds->run_id;
		jobs[i].stop = stop;
	}
	host_each(jobs, n, sizeof *jobs, control_thread);
	printf("run %s (%s), %s\n", ds->run_id, ds->suite_name,
	    ds->ended[0] ? "complete" : "not complete");
	printf("%-12s %8s  %-32s %s\n", "HOST", "RECORDED", "STATE",
	    stop ? "AGENT (stop)" : "AGENT");
	for (i = 0; i < n; i++) {
		hi = dataset_host(ds, hosts[i].name);
		nrec = 0;
		for (k = 0; hi >= 0 && k < ds->nsamples; k++)
			nrec += ds->samples[k].host == (size_t)hi;
		for (k = 0; hi >= 0 && k < ds->nfloors; k++)
			nrec += ds->floors[k].host == (size_t)hi;
		dh = hi >= 0 ? &ds->hosts[hi] : NULL;
		if (dh == NULL || !dh->ended)
			snprintf(state, sizeof state, "unfinished");
		else if (dh->failed)
			snprintf(state, sizeof state, "failed: %.40s",
			    dh->error);
		else
			snprintf(state, sizeof state, "done");
		printf("%-12s %8zu  %-32s %s\n", hosts[i].name, nrec, state,
		    jobs[i].line);
	}
	free(jobs);
	dataset_free(ds);
	return (0);
}
