/* The hosts of a command: resolved, then each bound to its backend. */
#include <stddef.h>
#include <stdlib.h>

#include "coordinator/hosts/host-backend.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/hosts.h"
#include "coordinator/hosts/inventory.h"

/* Binds h to its backend: `local` has one already, the rest are SSH's. */
static void
hosts_bind(struct host *h)
{
	if (h->ops == NULL)
		h->ops = &host_ssh_ops;
	h->chan.sock = -1;
}

int
hosts_resolve(const char *inventory, const char *list, struct host **hosts,
    size_t *n, char **cause)
{
	const struct inventory	*inv;
	const char		*path;
	size_t			 i;
	int			 required;

	*hosts = NULL;
	*n = 0;
	*cause = NULL;
	path = inventory_path(inventory, &required);
	if (inventory_get(path, required, &inv, cause) != 0 ||
	    inventory_resolve_ssh(inv, list, hosts, n, cause) != 0)
		return (-1);
	for (i = 0; i < *n; i++)
		hosts_bind(&(*hosts)[i]);
	return (0);
}
