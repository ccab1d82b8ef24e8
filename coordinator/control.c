/* orch status / orch stop: each host's part of a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/control.h"
#include "coordinator/host.h"
#include "coordinator/record.h"
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
