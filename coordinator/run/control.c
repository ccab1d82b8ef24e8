/* orch status / orch stop: each host's part of a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/tty.h"
#include "coordinator/run/control.h"
#include "coordinator/run/run-int.h"
#include "coordinator/store/record.h"
#include "proto/ident.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/xmalloc.h"

struct control_job {
	struct host	*h;
	const char	*run_id;
	int		 stop;
	char		 line[512];
};

static void *
control_thread(void *arg)
{
	struct control_job	*j = arg;

	j->h->ops->control(j->h, j->stop ? "stop" : "status", j->run_id,
	    j->line, sizeof j->line);
	return (NULL);
}

/*
 * Says what the run is: running (its coordinator at work), interrupted
 * (no coordinator, agents measuring), resumable (no coordinator, no agent,
 * hosts unfinished), finished or failed; and what to do next.
 */
static void
control_headline(const char *dir, const struct dataset *ds,
    const struct control_job *jobs, size_t n, const char *again,
    const char *env)
{
	size_t	i, measuring = 0, failed = 0, open = 0;
	long	hi;

	for (i = 0; i < ds->nhosts; i++) {
		if (!ds->hosts[i].ended)
			open++;
		else if (ds->hosts[i].failed)
			failed++;
	}
	for (i = 0; i < n; i++) {
		hi = dataset_host(ds, jobs[i].h->name);
		if (hi >= 0 && !ds->hosts[hi].ended &&
		    strncmp(jobs[i].line, "running ", 8) == 0)
			measuring++;
	}
	printf("run %s (%s), ", ds->run_id, ds->suite_name);
	if (record_busy(dir))
		printf("running: its coordinator (orch run) is at work\n");
	else if (ds->ended[0] != '\0' && failed == 0)
		printf("finished\n");
	else if (ds->ended[0] != '\0')
		printf("failed: %zu of %zu host%s failed (orch report %s "
		    "renders what they measured)\n", failed, ds->nhosts,
		    ds->nhosts == 1 ? "" : "s", dir);
	else if (measuring > 0)
		printf("interrupted: its coordinator is gone%s%s and %zu "
		    "agent%s the run on (measuring, or holding what it "
		    "measured); %sorch run%s --resume=%s collects and "
		    "finishes it, %sorch stop%s %s ends it\n", ds->detached ?
		    " since " : "", ds->detached ? ds->detached_at : "",
		    measuring, measuring == 1 ? " carries" : "s carry", env,
		    again, dir, env, again, dir);
	else if (open > 0)
		printf("resumable: its coordinator is gone and no agent "
		    "measures; %sorch run%s --resume=%s finishes it\n", env,
		    again, dir);
	else
		printf("not finished: every host ended, but the run has no "
		    "end (orch report %s renders it)\n", dir);
}

char *
control_hosts(const char *dir, char **cause)
{
	struct dataset	*ds;
	char		*list;

	if (record_load(dir, &ds, cause) != 0)
		return (NULL);
	list = dataset_host_list(ds, 0);
	dataset_free(ds);
	return (list);
}

int
control_main(const char *dir, struct host *hosts, size_t n, int stop,
    const char *again, const char *env)
{
	struct control_job	*jobs;
	struct dataset		*ds;
	const struct ds_host	*dh;
	char			*cause = NULL, **states;
	size_t			 i, k, *nrecs, wh = 4, ws = 5;
	long			 hi;
	int			 r;

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
	/* A Slurm host is the node its recorded job holds. */
	run_slurm_point_hosts(ds, hosts, n);
	host_each(jobs, n, sizeof *jobs, control_thread);
	control_headline(dir, ds, jobs, n, again, env);
	/* Columns as wide as their longest value: none runs into the next. */
	states = xcalloc(n + 1, sizeof *states);
	nrecs = xcalloc(n + 1, sizeof *nrecs);
	for (i = 0; i < n; i++) {
		hi = dataset_host(ds, hosts[i].name);
		for (k = 0; hi >= 0 && k < ds->nsamples; k++)
			nrecs[i] += ds->samples[k].host == (size_t)hi;
		for (k = 0; hi >= 0 && k < ds->nfloors; k++)
			nrecs[i] += ds->floors[k].host == (size_t)hi;
		dh = hi >= 0 ? &ds->hosts[hi] : NULL;
		if (dh == NULL || !dh->ended)
			xasprintf(&states[i], "unfinished");
		else if (dh->failed)
			xasprintf(&states[i], "failed: %s", dh->error);
		else
			xasprintf(&states[i], "done");
		/* The record's error and the agent's reply are anyone's. */
		tty_clean(states[i], 0);
		tty_clean(jobs[i].line, 0);
		wh = strlen(hosts[i].name) > wh ? strlen(hosts[i].name) : wh;
		ws = strlen(states[i]) > ws ? strlen(states[i]) : ws;
	}
	printf("%-*s  %8s  %-*s  %s\n", (int)wh, "HOST", "RECORDED", (int)ws,
	    "STATE", stop ? "AGENT (stop)" : "AGENT");
	for (i = 0; i < n; i++) {
		printf("%-*s  %8zu  %-*s  %s\n", (int)wh, hosts[i].name,
		    nrecs[i], (int)ws, states[i], jobs[i].line);
		free(states[i]);
	}
	free(states);
	free(nrecs);
	free(jobs);
	/* The agents have stopped: their nodes go back to Slurm. */
	r = stop && run_slurm_stop(ds) != 0 ? 3 : 0;
	dataset_free(ds);
	return (r);
}
