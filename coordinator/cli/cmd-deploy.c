/* orch deploy: the agent onto each host, ahead of a run. */
#include <stddef.h>
#include <stdlib.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/hosts/deploy.h"

static int	cmd_deploy_exec(struct cmd *);

const struct cmd_entry cmd_deploy_entry = {
	.name = "deploy",
	.alias = NULL,
	.flags = CMD_AGENT,
	.exec = cmd_deploy_exec
};

/* orch deploy [options]: its options, then deploy_main. */
static int
cmd_deploy_exec(struct cmd *self)
{
	struct host	*hosts;
	size_t		 n;
	int		 force, r;

	hosts = args_deploy("deploy", 1, self->argc, self->argv, &n, &force);
	r = deploy_main(hosts, n, force);
	free(hosts);
	return (r);
}
