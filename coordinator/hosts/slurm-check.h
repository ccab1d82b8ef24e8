/*
 * orch check --allocate of a Slurm host (docs/inventory.md, "Slurm"): one
 * node held for seconds, allocated as orch run allocates it (exclusive,
 * verified, its NodeAddr the host's address), so that check can try SSH
 * to it as to any host: sites with pam_slurm_adopt let in only a user
 * who holds a job on the node, others let no one in. The job never
 * queues (the cluster's timeout bounds salloc's wait, as --immediate),
 * its time limit is short (SLURM_CHECK_TIME at most: the dead man's
 * switch), and it is released on every path.
 */
#ifndef COORDINATOR_SLURM_CHECK_H
#define COORDINATOR_SLURM_CHECK_H

#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/slurm.h"

#define SLURM_CHECK_TIME	120	/* seconds: a check job's time limit */

struct host;

/* A node held for orch check. */
struct slurm_probe {
	struct inventory_slurm	 cluster;	/* the host's, with check's
						   bounds */
	struct inventory_slurm_node node;	/* points at cluster */
	struct slurm_job	 job;
	char			 addr[256];	/* the node's NodeAddr */
	int			 held;		/* job is ours to release */
};

/*
 * Allocates one node for host h (its entry node), job name name, reads
 * its NodeAddr, checks that it holds the node alone, and points h at it
 * (address; workdir, unless the inventory names one, the node's as orch
 * run's). Returns 0; 1 when no node of the partition was free within the
 * cluster's timeout (nothing held, *cause says so); -1 with *cause
 * (caller frees), nothing left held.
 */
int	slurm_probe_alloc(struct host *h,
	    const struct inventory_slurm_node *node, const char *name,
	    struct slurm_probe *sp, char **cause);

/*
 * Releases sp's job when held: scancel, then squeue until it is gone.
 * Returns 0, or -1 with *cause naming the host and the job.
 */
int	slurm_probe_release(struct slurm_probe *sp, const char *host,
	    char **cause);

#endif
