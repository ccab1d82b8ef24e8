/* `orch check`: is each host ready for a release run? */
#ifndef COORDINATOR_CHECK_H
#define COORDINATOR_CHECK_H

#include <stddef.h>

struct host;

/*
 * Connects to every host at once (never installing anything), prints a
 * readiness table and the warnings that make numbers less trustworthy.
 * A Slurm host's partition is told; with allocate, one of its nodes is
 * held for seconds and probed as any host (whether SSH to an allocated
 * node is allowed), then released, on Ctrl-C too. Returns 0 when every
 * host is ready, 128 + N when signal N interrupted it, else 3.
 */
int	check_main(struct host *hosts, size_t n, const char *inventory,
	    int allocate);

/*
 * Appends to buf the warnings a host's facts deserve (one per line,
 * "governor is powersave: ..."), as pyperf system show does. Returns the
 * number of warnings.
 */
int	check_warnings(const struct host *h, char *buf, size_t len);

/*
 * Returns what the READY column says of h: "yes"; "would wait" when its
 * 1-minute load per core is above the load gate (a run would wait);
 * "run deploys" when it has no agent or an outdated one (orch run installs
 * it); "NO". probed: the agent answered with the host's facts.
 */
const char *check_ready(const struct host *h, int probed);

#endif
