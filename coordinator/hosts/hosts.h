/*
 * The hosts a command names, ready to use: its --hosts list resolved
 * against the inventory and ssh_config, each host bound to its backend
 * (this machine, or SSH) here, so that no caller picks one.
 */
#ifndef COORDINATOR_HOSTS_H
#define COORDINATOR_HOSTS_H

#include <stddef.h>

struct host;

/*
 * Loads the inventory (inventory: --inventory, or NULL for
 * $ORCH_INVENTORY, else inventory/hosts.ini, which may be missing) and
 * resolves list (NULL: `local`) against it and ssh_config into a new array
 * of *n hosts, each bound to its backend (caller frees with free()).
 * Returns 0, or -1 with *cause "FILE:LINE: ..." or naming the host
 * (caller frees).
 */
int	hosts_resolve(const char *inventory, const char *list,
	    struct host **hosts, size_t *n, char **cause);

#endif
