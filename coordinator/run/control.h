/*
 * `orch status DIR` and `orch stop DIR`: a run's hosts, seen from its record
 * and its agents.
 */
#ifndef COORDINATOR_CONTROL_H
#define COORDINATOR_CONTROL_H

#include <stddef.h>

struct host;

/*
 * For every host of the run recorded in dir: what the record holds and
 * what the host's agent says (stop: stops it). hosts are the run's hosts
 * resolved against the inventory; again the options the lines it prints
 * repeat (" --inventory=...", "" none), env what goes before their "orch"
 * ("ORCH_WORKDIR=... ", "" none). Returns the exit code.
 */
int	control_main(const char *dir, struct host *hosts, size_t n, int stop,
	    const char *again, const char *env);

/*
 * Returns every host the run in dir started on, comma separated (free), or
 * NULL with *cause.
 */
char	*control_hosts(const char *dir, char **cause);

#endif
