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
#include "coordinator/hosts/slurm-login.h"
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

/* True when a and b are one job (of one cluster). */
static int
run_slurm_same(const struct ds_slurm *a, const struct ds_slurm *b)
{
	return (strcmp(a->cluster, b->cluster) == 0 &&
	    strcmp(a->job_id, b->job_id) == 0);
}

/*
 * The job of a recorded host s, as Slurm names it: its leader, or
 * LEADER+K when the record holds more than one component of it.
 */
static void
run_slurm_job(const struct dataset *ds, const struct ds_slurm *s,
    struct slurm_job *job)
{
	size_t	i, n = 0;

	for (i = 0; i < ds->nhosts; i++)
		n += ds->hosts[i].slurm != NULL &&
		    run_slurm_same(ds->hosts[i].slurm, s);
	memset(job, 0, sizeof *job);
	snprintf(job->leader, sizeof job->leader, "%s", s->job_id);
	job->component = s->component;
	if (n > 1)
		snprintf(job->id, sizeof job->id, "%s+%u", s->job_id,
		    s->component);
	else
		snprintf(job->id, sizeof job->id, "%s", s->job_id);
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
 * Takes host h's job (sl->job, allocated from its entry node) into the
 * run: its record, its node's address, held alone. Returns 0, or -1 with
 * *cause.
 */
static int
run_slurm_take(struct host *h, const struct inventory_slurm_node *node,
    struct run_slurm *sl, char **cause)
{
	const struct inventory_slurm	*c = node->cluster;
	struct ds_slurm			*s = &sl->rec;
	struct slurm_node_facts		 nf;

	snprintf(sl->cluster.name, sizeof sl->cluster.name, "%s", c->name);
	snprintf(sl->cluster.login, sizeof sl->cluster.login, "%s", c->login);
	sl->cluster.timeout_s = c->timeout_s;
	sl->cluster.wait_s = c->wait_s;
	sl->cluster.time_s = c->time_s;
	snprintf(s->cluster, sizeof s->cluster, "%s", c->name);
	snprintf(s->login, sizeof s->login, "%s", c->login);
	snprintf(s->job_id, sizeof s->job_id, "%s", sl->job.leader);
	s->component = sl->job.component;
	snprintf(s->node, sizeof s->node, "%s", sl->job.node);
	snprintf(s->partition, sizeof s->partition, "%s", sl->job.partition);
	snprintf(s->constraint, sizeof s->constraint, "%s",
	    node->constraint != NULL ? node->constraint : "");
	s->timeout_s = c->timeout_s;
	s->end_s = (uint64_t)time(NULL) + c->time_s;
	if (slurm_node_addr(c, h->name, s->node, s->node_addr,
	    sizeof s->node_addr, &nf, cause) != 0 ||
	    slurm_verify_exclusive(c, h->name, &sl->job, cause) != 0)
		return (-1);
	if (h->workdir[0] != '\0')
		snprintf(s->workdir, sizeof s->workdir, "%s", h->workdir);
	else
		slurm_workdir(s->workdir, sizeof s->workdir, s->node);
	s->node_cpus = nf.cpus;
	s->node_mem_mb = nf.mem_mb;
	snprintf(s->node_arch, sizeof s->node_arch, "%s", nf.arch);
	snprintf(s->node_features, sizeof s->node_features, "%s",
	    nf.features);
	run_slurm_point(h, s);
	fprintf(stderr, "orch: %s: Slurm job %s on node %s (%s), partition "
	    "%s, exclusive\n", h->name, sl->job.id, s->node, s->node_addr,
	    s->partition);
	return (0);
}

/* True when opts->hosts[i] has its job in run->slurm already. */
static int
run_slurm_done(const struct run *run, size_t i)
{
	size_t	k;

	for (k = 0; k < run->nslurm; k++) {
		if (run->slurm[k].host == i)
			return (1);
	}
	return (0);
}

/* Adds "(cluster C, partition P; no job left)" to *cause. */
static void
run_slurm_cause(char **cause, const struct inventory_slurm_node *node)
{
	char	*m;

	xasprintf(&m, "%s (cluster %s, partition %s; no job left)", *cause,
	    node->cluster->name, node->partition);
	free(*cause);
	*cause = m;
}

/*
 * Allocates the nn hosts at[nn] (of opts->hosts, their entries nodes[])
 * of one cluster into run->slurm: one heterogeneous job, or a job per
 * host where the cluster refuses one. Returns 0, or -1 with *cause.
 */
static int
run_slurm_cluster_alloc(struct run *run, const size_t *at,
    const struct inventory_slurm_node *nodes, size_t nn, char **cause)
{
	struct host		*hosts = run->opts->hosts;
	struct slurm_job	*jobs = xcalloc(nn, sizeof *jobs);
	const char		**names = xcalloc(nn, sizeof *names);
	char			 name[80], comment[80];
	size_t			 i, base = run->nslurm;
	int			 refused = 0, r = -1, het = 0;

	snprintf(name, sizeof name, "orch-%s", run->run_id);
	snprintf(comment, sizeof comment, "orch:%s", run->run_id);
	for (i = 0; i < nn; i++)
		names[i] = hosts[at[i]].name;
	if (nn > 1) {
		if (slurm_alloc_het(nodes, names, nn, name, comment, jobs,
		    &refused, cause) == 0)
			het = 1;
		else if (!refused) {
			run_slurm_cause(cause, &nodes[0]);
			goto out;
		} else {
			fprintf(stderr, "orch: %s; a job per host instead\n",
			    *cause);
			free(*cause);
			*cause = NULL;
		}
	}
	run->slurm = xreallocarray(run->slurm, run->nslurm + nn,
	    sizeof *run->slurm);
	memset(run->slurm + base, 0, nn * sizeof *run->slurm);
	for (i = 0; i < nn; i++) {
		run->slurm[base + i].host = at[i];
		if (!het && slurm_alloc(&nodes[i], names[i], name, comment,
		    &jobs[i], cause) != 0) {
			run_slurm_cause(cause, &nodes[i]);
			goto out;
		}
		if (jobs[i].leader[0] == '\0')
			snprintf(jobs[i].leader, sizeof jobs[i].leader, "%s",
			    jobs[i].id);
		run->slurm[base + i].job = jobs[i];
		run->slurm[base + i].made = 1;
		run->nslurm++;
	}
	for (i = 0; i < nn; i++) {
		if (run_slurm_take(&hosts[at[i]], &nodes[i],
		    &run->slurm[base + i], cause) != 0)
			goto out;
	}
	r = 0;
out:
	free(jobs);
	free(names);
	return (r);
}

/* A new run: allocates every Slurm host of the inventory's, by cluster. */
static int
run_slurm_new(struct run *run, char **cause)
{
	const struct run_opts		*opts = run->opts;
	const struct inventory		*inv;
	struct inventory_slurm_node	*nodes, node;
	const struct inventory_slurm	*c;
	const char			*path;
	size_t				*at, i, j, nn;
	int				 required, r = -1;

	path = inventory_path(opts->inventory, &required);
	if (inventory_get(path, required, &inv, cause) != 0)
		return (-1);
	nodes = xcalloc(opts->nhosts + 1, sizeof *nodes);
	at = xcalloc(opts->nhosts + 1, sizeof *at);
	for (i = 0; i < opts->nhosts; i++) {
		if (!inventory_slurm_host(inv, opts->hosts[i].name, &node))
			continue;
		/* The first host of a cluster takes all of the cluster's. */
		if (run_slurm_done(run, i))
			continue;
		c = node.cluster;
		for (nn = 0, j = i; j < opts->nhosts; j++) {
			if (inventory_slurm_host(inv, opts->hosts[j].name,
			    &nodes[nn]) && nodes[nn].cluster == c)
				at[nn++] = j;
		}
		if (run_slurm_cluster_alloc(run, at, nodes, nn, cause) != 0)
			goto out;
	}
	r = 0;
out:
	free(nodes);
	free(at);
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
		run_slurm_job(ds, s, &sl->job);
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
			    "not %s as the run recorded", h->name, sl->job.id,
			    sl->job.node, s->node);
			return (-1);
		}
		if (slurm_verify_exclusive(&sl->cluster, h->name, &sl->job,
		    cause) != 0)
			return (-1);
		run_slurm_point(h, s);
		fprintf(stderr, "orch: %s: Slurm job %s still holds node %s\n",
		    h->name, sl->job.id, s->node);
	}
	return (0);
}

int
run_slurm_prepare(struct run *run, const struct dataset *ds, char **cause)
{
	/* Ctrl-C while queued revokes the request (exit 130). */
	slurm_stop_on(&run_stop);
	/* A cluster's login host is looked up where the hosts were. */
	slurm_login_inventory(run->opts->inventory);
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
	size_t			 i, k;
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
		/* Every component of it went with its leader. */
		for (k = i; k < run->nslurm; k++) {
			if (run_slurm_same(&run->slurm[k].rec, &sl->rec))
				run->slurm[k].released = 1;
		}
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
		    "it\n", sl->job.id, run->opts->hosts[sl->host].name,
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
	size_t			 i, j;
	int			 r = 0;

	for (i = 0; i < ds->nhosts; i++) {
		if ((s = ds->hosts[i].slurm) == NULL || s->released)
			continue;
		/* A heterogeneous job goes back once, with its leader. */
		for (j = 0; j < i; j++) {
			if (ds->hosts[j].slurm != NULL &&
			    run_slurm_same(ds->hosts[j].slurm, s))
				break;
		}
		run_slurm_cluster(s, &c);
		run_slurm_job(ds, s, &job);
		if (j == i && slurm_release(&c, ds->hosts[i].name, &job,
		    &cause) != 0) {
			fprintf(stderr, "orch: %s (scancel %s by hand)\n",
			    cause, s->job_id);
			free(cause);
			cause = NULL;
			r = -1;
			continue;
		}
		printf("%s: Slurm job %s (node %s) cancelled\n",
		    ds->hosts[i].name, job.id, s->node);
	}
	slurm_login_close();
	return (r);
}

void
run_slurm_free(struct run *run)
{
	free(run->slurm);
	run->slurm = NULL;
	run->nslurm = 0;
	/* Every job went back (or was left to orch stop): its sessions go. */
	slurm_login_close();
}
