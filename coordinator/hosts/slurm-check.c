/*
 * orch check --allocate of a Slurm host (see slurm-check.h): the steps of
 * orch run's allocation (coordinator/run/run-slurm.c) for one node, with
 * bounds made for a check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hosts/host.h"
#include "coordinator/hosts/slurm-check.h"
#include "coordinator/hosts/slurm.h"
#include "proto/xmalloc.h"

/* Copies node's cluster into sp with check's bounds, and node over it. */
static void
slurm_probe_bounds(struct slurm_probe *sp,
    const struct inventory_slurm_node *node)
{
	sp->cluster = *node->cluster;
	/* Never queued: what is not free within the timeout is busy. */
	sp->cluster.wait_s = sp->cluster.timeout_s;
	if (sp->cluster.time_s > SLURM_CHECK_TIME)
		sp->cluster.time_s = SLURM_CHECK_TIME;
	sp->node = *node;
	sp->node.cluster = &sp->cluster;
}

int
slurm_probe_alloc(struct host *h, const struct inventory_slurm_node *node,
    const char *name, struct slurm_probe *sp, char **cause)
{
	char	*why = NULL, *m;
	int	 busy = 0;

	memset(sp, 0, sizeof *sp);
	slurm_probe_bounds(sp, node);
	if (slurm_alloc_busy(&sp->node, h->name, name, "orch:check", &sp->job,
	    &busy, cause) != 0) {
		if (!busy)
			return (-1);
		free(*cause);
		xasprintf(cause, "no node of partition %s free now: not "
		    "probed", node->partition);
		return (1);
	}
	if (sp->job.leader[0] == '\0')
		snprintf(sp->job.leader, sizeof sp->job.leader, "%s",
		    sp->job.id);
	sp->held = 1;
	if (slurm_node_addr(&sp->cluster, h->name, sp->job.node, sp->addr,
	    sizeof sp->addr, NULL, cause) != 0 ||
	    slurm_verify_exclusive(&sp->cluster, h->name, &sp->job,
	    cause) != 0) {
		/* Given back at once: the caller probes nothing. */
		if (slurm_probe_release(sp, h->name, &why) != 0) {
			xasprintf(&m, "%s; %s", *cause, why);
			free(why);
			free(*cause);
			*cause = m;
		}
		return (-1);
	}
	snprintf(h->address, sizeof h->address, "%s", sp->addr);
	if (h->workdir[0] == '\0')
		slurm_workdir(h->workdir, sizeof h->workdir, sp->job.node);
	return (0);
}

int
slurm_probe_release(struct slurm_probe *sp, const char *host, char **cause)
{
	char	*why = NULL;

	if (!sp->held)
		return (0);
	if (slurm_release(&sp->cluster, host, &sp->job, &why) != 0) {
		xasprintf(cause, "%s (scancel %s by hand)", why,
		    sp->job.leader);
		free(why);
		return (-1);
	}
	sp->held = 0;
	return (0);
}
