/* orch check: is each host ready to measure? */
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/hosts/check.h"
#include "proto/log.h"

static int	cmd_check_exec(struct cmd *);

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.alias = NULL,
	.flags = CMD_AGENT,
	.exec = cmd_check_exec
};

/* orch check [options]: its options, then check_main. */
static int
cmd_check_exec(struct cmd *self)
{
	struct usage_getopt	 g;
	struct host		*hosts;
	const char		*list = NULL, *inv = NULL;
	size_t			 n;
	int			 id, allocate = 0, r;

	args_init(&g, "check");
	while ((id = args_next(&g, self->argc, self->argv)) != -1) {
		if (id == OPT_ALLOCATE)
			allocate = 1;
		else if (id == 'v')
			log_init("orch", LOG_DEBUG);
		else
			args_reach(id, optarg, &list, &inv);
	}
	if (optind != self->argc)
		usage_error("check", "check takes no arguments, got '%s' "
		    "(hosts go in --hosts=LIST)", self->argv[optind]);
	hosts = args_hosts(inv, list, &n);
	r = check_main(hosts, n, inv, allocate);
	free(hosts);
	return (r);
}
