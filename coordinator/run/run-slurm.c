/*
 * `orch run` on Slurm hosts (docs/inventory.md, "Slurm"): before any host
 * is connected, each Slurm host of the run gets a job of its own (one
 * node, exclusive), read back and checked as untrusted text; its node's
 * NodeAddr becomes the host's address, and SSH takes it from there like
 * any inventory host. A node that is not held alone ends the run before
 * anything is measured, with every job it made cancelled. The jobs go
 * into the record (alloc), are cancelled at a normal end (release), left
 * running when the coordinator detaches, found again by --resume and
 * cancelled by orch stop (control.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coordinator/hosts/host.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/slurm.h"
#include "coordinator/run/run-int.h"
#include "coordinator/run/run.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "proto/xmalloc.h"

/* The cluster a recorded job is of, as slurm.c needs it: its bounds. */
static void
run_slurm_cluster(const struct ds_slurm *s, struct inventory_slurm *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", s->cluster);
	snprintf(c->login, sizeof c->login, "%s", s->login);
	c->timeout_s = s->timeout_s;
	c->wait_s = s->timeout_s;
	c->time_s = INVENTORY_SLURM_TIME;
}

/* Points h at its node: its address, and its node's workdir by default. */
static void
run_slurm_point(struct host *h, const struct ds_slurm *s)
{
	snprintf(h->address, sizeof h->address, "%s", s->node_addr);
	if (h->workdir[0] == '\0')
		snprintf(h->workdir, sizeof h->workdir, "%s", s->workdir);
}

/*
 * Allocates host h's node (node: its inventory entry) and checks it: a
 * job named orch-RUNID, its node's address, held alone. Fills *sl; sets
 * *made once a job exists. Returns 0, or -1 with *cause.
 */
static int
run_slurm_one(struct run *run, struct host *h,
    const struct inventory_slurm_node *node, struct run_slurm *sl,
    char **cause)
{
	const struct inventory_slurm	*c = node->cluster;
	struct ds_slurm			*s = &sl->rec;
	char				 name[80], comment[80];

	snprintf(name, sizeof name, "orch-%s", run->run_id);
	snprintf(comment, sizeof comment, "orch:%s", run->run_id);
	snprintf(sl->cluster.name, sizeof sl->cluster.name, "%s", c->name);
	snprintf(sl->cluster.login, sizeof sl->cluster.login, "%s", c->login);
	sl->cluster.timeout_s = c->timeout_s;
	sl->cluster.wait_s = c->wait_s;
	sl->cluster.time_s = c->time_s;
	if (slurm_alloc(node, h->name, name, comment, &sl->job, cause) != 0) {
		char	*m;

		xasprintf(&m, "%s (cluster %s, partition %s; no job left)",
		    *cause, c->name, node->partition);
		free(*cause);
		*cause = m;
		return (-1);
	}
	sl->made = 1;
	snprintf(s->cluster, sizeof s->cluster, "%s", c->name);
	snprintf(s->login, sizeof s->login, "%s", c->login);
	snprintf(s->job_id, sizeof s->job_id, "%s", sl->job.id);
	snprintf(s->node, sizeof s->node, "%s", sl->job.node);
	snprintf(s->partition, sizeof s->partition, "%s", sl->job.partition);
	snprintf(s->constraint, sizeof s->constraint, "%s",
	    node->constraint != NULL ? node->constraint : "");
	s->timeout_s = c->timeout_s;
	s->end_s = (uint64_t)time(NULL) + c->time_s;
	if (slurm_node_addr(c, h->name, s->node, s->node_addr,
	    sizeof s->node_addr, cause) != 0 ||
	    slurm_verify_exclusive(c, h->name, &sl->job, cause) != 0)
		return (-1);
	if (h->workdir[0] != '\0')
		snprintf(s->workdir, sizeof s->workdir, "%s", h->workdir);
	else
		slurm_workdir(s->workdir, sizeof s->workdir, s->node);
	run_slurm_point(h, s);
	fprintf(stderr, "orch: %s: Slurm job %s on node %s (%s), partition "
	    "%s, exclusive\n", h->name, s->job_id, s->node, s->node_addr,
	    s->partition);
	return (0);
}

/* A new run: allocates every Slurm host of the inventory's. */
static int
run_slurm_new(struct run *run, char **cause)
{
	const struct run_opts		*opts = run->opts;
	struct inventory		*inv = NULL;
	struct inventory_slurm_node	 node;
	const char			*path;
	size_t				 i;
	int				 required, r = -1;

	path = inventory_path(opts->inventory, &required);
	if (inventory_load(path, required, &inv, cause) != 0)
		return (-1);
	for (i = 0; i < opts->nhosts; i++) {
		if (!inventory_slurm_host(inv, opts->hosts[i].name, &node))
			continue;
		run->slurm = xreallocarray(run->slurm, run->nslurm + 1,
		    sizeof *run->slurm);
		memset(&run->slurm[run->nslurm], 0, sizeof *run->slurm);
		run->slurm[run->nslurm].host = i;
		if (run_slurm_one(run, &opts->hosts[i], &node,
		    &run->slurm[run->nslurm++], cause) != 0)
			goto out;
	}
	r = 0;
out:
	inventory_free(inv);
	return (r);
}

/*
 * A resume: each host's recorded job must still run on the node it had,
 * held alone. Returns 0, or -1 with *cause.
 */
static int
run_slurm_again(struct run *run, const struct dataset *ds, char **cause)
{
	const struct run_opts	*opts = run->opts;
	const struct ds_slurm	*s;
	struct run_slurm	*sl;
	struct host		*h;
	size_t			 i;
	long			 hi;

	for (i = 0; i < opts->nhosts; i++) {
		h = &opts->hosts[i];
		hi = dataset_host(ds, h->name);
		if (hi < 0 || (s = ds->hosts[hi].slurm) == NULL)
			continue;
		run->slurm = xreallocarray(run->slurm, run->nslurm + 1,
		    sizeof *run->slurm);
		sl = &run->slurm[run->nslurm++];
		memset(sl, 0, sizeof *sl);
		sl->host = i;
		sl->rec = *s;
		run_slurm_cluster(s, &sl->cluster);
		snprintf(sl->job.id, sizeof sl->job.id, "%s", s->job_id);
		if (s->released) {
			xasprintf(cause, "%s: Slurm job %s of node %s was "
			    "released: the allocation ended, the run cannot "
			    "go on", h->name, s->job_id, s->node);
			return (-1);
		}
		if (slurm_read_job(&sl->cluster, h->name, &sl->job,
		    cause) != 0)
			return (-1);
		if (strcmp(sl->job.node, s->node) != 0) {
			xasprintf(cause, "%s: Slurm job %s now holds node %s, "
			    "not %s as the run recorded", h->name, s->job_id,
			    sl->job.node, s->node);
			return (-1);
		}
		if (slurm_verify_exclusive(&sl->cluster, h->name, &sl->job,
		    cause) != 0)
			return (-1);
		run_slurm_point(h, s);
		fprintf(stderr, "orch: %s: Slurm job %s still holds node %s\n",
		    h->name, s->job_id, s->node);
	}
	return (0);
}

int
run_slurm_prepare(struct run *run, const struct dataset *ds, char **cause)
{
	if (ds != NULL)
		return (run_slurm_again(run, ds, cause));
	return (run_slurm_new(run, cause));
}

void
run_slurm_record(struct run *run)
{
	size_t	i;

	for (i = 0; i < run->nslurm; i++) {
		if (run->slurm[i].made)
			record_alloc(&run->rec,
			    run->opts->hosts[run->slurm[i].host].name,
			    &run->slurm[i].rec);
	}
}

int
run_slurm_release(struct run *run, int record, const char *at)
{
	struct run_slurm	*sl;
	char			*cause = NULL;
	size_t			 i;
	int			 r = 0;

	for (i = 0; i < run->nslurm; i++) {
		sl = &run->slurm[i];
		if (sl->released || sl->job.id[0] == '\0')
			continue;
		if (slurm_release(&sl->cluster,
		    run->opts->hosts[sl->host].name, &sl->job, &cause) != 0) {
			fprintf(stderr, "orch: %s (scancel %s by hand)\n",
			    cause, sl->job.id);
			free(cause);
			cause = NULL;
			r = -1;
			continue;
		}
		sl->released = 1;
		if (record)
			record_release(&run->rec, sl->rec.cluster,
			    sl->rec.job_id, at);
	}
	return (r);
}

void
run_slurm_abandon(struct run *run)
{
	size_t	i;

	/* Only the jobs this coordinator made: a resume's stay resumable. */
	for (i = 0; i < run->nslurm; i++) {
		if (!run->slurm[i].made)
			run->slurm[i].released = 1;
	}
	run_slurm_release(run, 0, "");
}

void
run_slurm_detach(const struct run *run)
{
	const struct run_slurm	*sl;
	char			 end[32];
	struct tm		 tm;
	time_t			 t;
	size_t			 i;

	for (i = 0; i < run->nslurm; i++) {
		sl = &run->slurm[i];
		t = (time_t)sl->rec.end_s;
		gmtime_r(&t, &tm);
		strftime(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(stderr, "  Slurm job %s (host %s, node %s) stays "
		    "allocated until %s, its time limit; orch stop cancels "
		    "it\n", sl->rec.job_id, run->opts->hosts[sl->host].name,
		    sl->rec.node, end);
	}
}

void
run_slurm_point_hosts(const struct dataset *ds, struct host *hosts, size_t n)
{
	size_t	i;
	long	hi;

	for (i = 0; i < n; i++) {
		hi = dataset_host(ds, hosts[i].name);
		if (hi >= 0 && ds->hosts[hi].slurm != NULL)
			run_slurm_point(&hosts[i], ds->hosts[hi].slurm);
	}
}

int
run_slurm_stop(const struct dataset *ds)
{
	const struct ds_slurm	*s;
	struct inventory_slurm	 c;
	struct slurm_job	 job;
	char			*cause = NULL;
	size_t			 i;
	int			 r = 0;

	for (i = 0; i < ds->nhosts; i++) {
		if ((s = ds->hosts[i].slurm) == NULL || s->released)
			continue;
		run_slurm_cluster(s, &c);
		memset(&job, 0, sizeof job);
		snprintf(job.id, sizeof job.id, "%s", s->job_id);
		if (slurm_release(&c, ds->hosts[i].name, &job, &cause) != 0) {
			fprintf(stderr, "orch: %s (scancel %s by hand)\n",
			    cause, s->job_id);
			free(cause);
			cause = NULL;
			r = -1;
			continue;
		}
		printf("%s: Slurm job %s (node %s) cancelled\n",
		    ds->hosts[i].name, s->job_id, s->node);
	}
	return (r);
}

void
run_slurm_free(struct run *run)
{
	free(run->slurm);
	run->slurm = NULL;
	run->nslurm = 0;
}
