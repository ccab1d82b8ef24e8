/* orch deploy: the agent onto each host, ahead of a run. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/hosts/deploy.h"
#include "coordinator/hosts/inventory.h"

static int	cmd_deploy_exec(struct cmd *);

const struct cmd_entry cmd_deploy_entry = {
	.name = "deploy",
	.alias = NULL,
	.flags = CMD_AGENT,
	.exec = cmd_deploy_exec
};

/*
 * Refuses the Slurm hosts among hosts[n] (their node is whatever a run is
 * given; orch run deploys the agent there): a line each, naming the host,
 * its inventory line and its cluster. Returns how many were refused.
 */
static size_t
cmd_deploy_slurm(const struct host *hosts, size_t n)
{
	const struct inventory		*inv;
	struct inventory_slurm_node	 sn;
	const char			*path;
	char				*cause = NULL;
	size_t				 i, bad = 0;
	int				 required;

	path = inventory_path(args_deploy_inventory(), &required);
	if (inventory_get(path, required, &inv, &cause) != 0) {
		/* args_deploy resolved the hosts from it: it loaded then. */
		free(cause);
		return (0);
	}
	for (i = 0; i < n; i++) {
		if (!inventory_slurm_host(inv, hosts[i].name, &sn))
			continue;
		fprintf(stderr, "orch: %s:%d: [host.%s] slurm = %s: a Slurm "
		    "host has no node until a run is given one; orch run "
		    "deploys the agent to the node it gets\n", path, sn.line,
		    hosts[i].name, sn.cluster->name);
		bad++;
	}
	return (bad);
}

/* orch deploy [options]: its options, then deploy_main. */
static int
cmd_deploy_exec(struct cmd *self)
{
	struct host	*hosts;
	size_t		 n;
	int		 force, r;

	hosts = args_deploy(self->argc, self->argv, &n, &force);
	if (cmd_deploy_slurm(hosts, n) > 0) {
		free(hosts);
		return (2);
	}
	r = deploy_main(hosts, n, force);
	free(hosts);
	return (r);
}
