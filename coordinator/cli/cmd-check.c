/* orch check: is each host ready to measure? */
#include <stddef.h>
#include <stdlib.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/hosts/check.h"

static int	cmd_check_exec(struct cmd *);

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.alias = NULL,
	.flags = CMD_AGENT,
	.exec = cmd_check_exec
};

/* orch check [options]: its options (deploy's, but two), then check_main. */
static int
cmd_check_exec(struct cmd *self)
{
	struct host	*hosts;
	size_t		 n;
	int		 force, r;

	hosts = args_deploy("check", 0, self->argc, self->argv, &n, &force);
	r = check_main(hosts, n, args_deploy_inventory());
	free(hosts);
	return (r);
}
