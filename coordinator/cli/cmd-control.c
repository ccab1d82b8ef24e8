/* orch status DIR and orch stop DIR: a run's hosts, asked or stopped. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/hosts/slurm-login.h"
#include "coordinator/hosts/sshconfig.h"
#include "coordinator/input/tty.h"
#include "coordinator/run/control.h"

static int	cmd_status_exec(struct cmd *);
static int	cmd_stop_exec(struct cmd *);

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.alias = NULL,
	.flags = CMD_AGENT,
	.exec = cmd_status_exec
};

const struct cmd_entry cmd_stop_entry = {
	.name = "stop",
	.alias = NULL,
	.flags = CMD_AGENT,
	.exec = cmd_stop_exec
};

/* orch status|stop [options] DIR: its options, then control_main. */
static int
cmd_control_exec(struct cmd *self, int stop)
{
	struct usage_getopt	 g;
	const char		*name = self->entry->name, *inv = NULL;
	const char		*sshcfg = NULL;
	struct host		*hosts;
	int			 argc = self->argc, id, r;
	char			**argv = self->argv, *list, *cause = NULL;
	char			*unknown, *u, *next, again[2 * PATH_MAX + 64];
	char			 env[PATH_MAX + 64];
	size_t			 n;

	args_init(&g, name);
	while ((id = args_next(&g, argc, argv)) != -1) {
		if (id == OPT_SSH_CONFIG)
			sshcfg_set_file(sshcfg = optarg);
		else
			inv = optarg;
	}
	if (optind != argc - 1)
		usage_error(name, "%s takes one run directory, got %d", name,
		    argc - optind);
	if ((list = control_hosts(argv[optind], &cause)) == NULL) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (2);
	}
	/* Whom to contact: the record's names, the user's own hosts only. */
	hosts = args_hosts_named(inv, list, &n, &unknown);
	args_again(inv, sshcfg, again, sizeof again);
	args_again_env(hosts, n, env, sizeof env);
	/* orch stop cancels Slurm jobs: their login host is looked up here. */
	slurm_login_inventory(inv);
	r = control_main(argv[optind], hosts, n, stop, again, env);
	for (u = unknown; u != NULL; u = next) {
		if ((next = strstr(u, "; host '")) != NULL)
			*next++ = '\0';
		fprintf(stderr, "orch: %s\n", tty_clean(u, 0));
	}
	free(unknown);
	free(list);
	free(hosts);
	return (r);
}

/* orch status DIR. */
static int
cmd_status_exec(struct cmd *self)
{
	return (cmd_control_exec(self, 0));
}

/* orch stop DIR. */
static int
cmd_stop_exec(struct cmd *self)
{
	return (cmd_control_exec(self, 1));
}
