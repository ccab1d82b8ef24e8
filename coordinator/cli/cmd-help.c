/* orch help [COMMAND], orch help --man; also orch --help and orch -h. */
#include <stdio.h>
#include <string.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"

static int	cmd_help_exec(struct cmd *);

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = "--help -h",
	.flags = 0,
	.exec = cmd_help_exec
};

/* The list of commands, one command's usage, or the manual page. */
static int
cmd_help_exec(struct cmd *self)
{
	int	  argc = self->argc;
	char	**argv = self->argv;

	if (argc == 1) {
		usage_all(stdout);
		return (0);
	}
	if (argc == 2 && strcmp(argv[1], "--man") == 0) {
		usage_man(stdout);
		return (0);
	}
	if (argc > 2)
		usage_error("help", "help takes one command, got %d",
		    argc - 1);
	if (usage_command(stdout, argv[1]) != 0) {
		fprintf(stderr, "orch help: unknown command '%s'\n", argv[1]);
		args_usage();
	}
	return (0);
}
