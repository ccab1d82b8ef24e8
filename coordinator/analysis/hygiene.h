/*
 * Measurement hygiene seen in a dataset: the harness floor per host, the
 * first-run cost of freshly pushed programs, A/A comparisons, load waits
 * and the agents' notes. The report renderers show these.
 */
#ifndef COORDINATOR_HYGIENE_H
#define COORDINATOR_HYGIENE_H

#include <stddef.h>
#include <stdint.h>

#include "coordinator/analysis/stats.h"
#include "coordinator/store/record.h"

struct hyg_first {
	size_t		 variant;
	size_t		 bench;		/* of its first run */
	uint32_t	 seq;
	double		 first_ns;	/* wall time of that first run */
	double		 median_ns;	/* median of its measured runs */
};

struct hyg_host {
	struct stats_summary floor;	/* wall_ns of orch-null, n = 0: none */
	size_t		 nfirst;
	struct hyg_first first[16];	/* fresh programs' first runs */
	uint64_t	 waited_ms;	/* longest wait for the load */
	size_t		 nwaits;	/* waits for the load */
	size_t		 nnotes;	/* notes from the agent */
};

/* Computes the hygiene of host h. Returns 0 or -1 (out of memory). */
int	hygiene_host(const struct dataset *ds, size_t h, struct hyg_host *out);

/* Returns 1 when variant v runs the very file of the reference on host h. */
int	hygiene_aa(const struct dataset *ds, size_t h, size_t v);

/* Returns the SHA-256 of variant v's program on host h, or NULL. */
const char *hygiene_bin_sha(const struct dataset *ds, size_t h, size_t v);

#endif
