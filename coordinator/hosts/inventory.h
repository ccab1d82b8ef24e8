/*
 * Inventory files (INI, see docs/inventory.md): the hosts a run
 * may use, [host.NAME] with how to reach each one, and [group.NAME] lists
 * of hosts and other groups. The built-in host `local` needs no entry.
 * [slurm.NAME] names a Slurm cluster, and a host with slurm = NAME is a node
 * allocated from it for a run (coordinator/run/run-slurm.c); such a host
 * has no address and, unless its entry names one, no workdir ("") until
 * its node is known.
 */
#ifndef COORDINATOR_INVENTORY_H
#define COORDINATOR_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "coordinator/hosts/host.h"

#define INVENTORY_DEFAULT_PATH	"inventory/hosts.ini"

struct inventory;

#define INVENTORY_SLURM_TIME	3600	/* time: the job's limit, seconds */
#define INVENTORY_SLURM_WAIT	600	/* wait: longest wait in the queue */
#define INVENTORY_SLURM_TIMEOUT	30	/* timeout: bound on each command */

/* A [slurm.NAME] section: a cluster whose nodes a run allocates. */
struct inventory_slurm {
	char		 name[64];
	char		 login[256];	/* a host, or "local" */
	char		 account[128];	/* "": none */
	char		 qos[128];	/* "": none */
	uint32_t	 time_s;
	uint32_t	 wait_s;
	uint32_t	 timeout_s;
	char		**args;		/* extra salloc words; owned by the
					   inventory */
	size_t		 nargs;
	int		 line;		/* of the section header */
};

/* What a host with slurm = NAME asks of its cluster. */
struct inventory_slurm_node {
	const struct inventory_slurm *cluster;
	const char	*partition;
	const char	*constraint;	/* NULL: none */
	const char	*nodelist;	/* NULL: none */
	int		 line;		/* of the host's section header */
};

/*
 * Loads path; a missing file is an error only when required (explicit
 * --inventory or $ORCH_INVENTORY), otherwise it loads as an empty inventory.
 * Returns 0, or -1 with *cause "PATH:LINE: message" (caller frees).
 */
int	inventory_load(const char *path, int required, struct inventory **out,
	    char **cause);

/* Frees an inventory; NULL is ok. */
void	inventory_free(struct inventory *inv);

/*
 * As inventory_load, once per path (and required) in a process: a later
 * call returns the inventory the first loaded, so that the hosts of one
 * command and their Slurm clusters come from one reading of the file
 * however many parts of it look. The inventory is kept (the caller never
 * frees it) until inventory_forget. A failed load is not kept.
 */
int	inventory_get(const char *path, int required,
	    const struct inventory **out, char **cause);

/* Frees every inventory inventory_get kept; their pointers go stale. */
void	inventory_forget(void);

/*
 * Returns the inventory path: opt (--inventory) if not NULL, else
 * $ORCH_INVENTORY if set and non-empty, else INVENTORY_DEFAULT_PATH; sets
 * *required to 1 for the first two, else 0.
 */
const char *inventory_path(const char *opt, int *required);

/*
 * Resolves a --hosts list (NULL means "local") into a new array of *n hosts
 * (caller frees with free(): the remote hosts' routes are in the same
 * block), in list order without duplicates: host names, group names
 * (expanded in order, recursively), `all` (every inventory host in file
 * order) and `local` (built in). Remote hosts have ops NULL and a route
 * (host-route.h). inv may be NULL (only `local` exists). Returns 0, or -1
 * with *cause (caller frees).
 */
int	inventory_resolve(const struct inventory *inv, const char *list,
	    struct host **hosts, size_t *n, char **cause);

/*
 * As inventory_resolve, and a name that is no host or group of the
 * inventory is looked up in ssh_config (`ssh -G`, sshconfig.h); hosts with
 * ssh_config = yes take what their entry leaves out from it; jump hosts
 * (the jump key, or ProxyJump) fill each host's route.
 */
int	inventory_resolve_ssh(const struct inventory *inv, const char *list,
	    struct host **hosts, size_t *n, char **cause);

/* Returns the number of [host.NAME] entries, not counting `local`. */
size_t	inventory_nhosts(const struct inventory *inv);

/* Returns the name of host i (0 <= i < inventory_nhosts()), in file order. */
const char *inventory_host_name(const struct inventory *inv, size_t i);

/* Returns the [slurm.NAME] section called name, or NULL. */
const struct inventory_slurm *inventory_slurm(const struct inventory *inv,
	    const char *name);

/*
 * Returns 1 and fills *node when inventory host name has slurm = ..., 0
 * when it has not (or is no inventory host).
 */
int	inventory_slurm_host(const struct inventory *inv, const char *name,
	    struct inventory_slurm_node *node);

#endif
