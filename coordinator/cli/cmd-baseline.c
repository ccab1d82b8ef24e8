/* orch baseline set NAME DIR | list | rm NAME: names for run directories. */
#include <stdio.h>
#include <string.h>

#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/store/baseline.h"

static int	cmd_baseline_exec(struct cmd *);

const struct cmd_entry cmd_baseline_entry = {
	.name = "baseline",
	.alias = NULL,
	.flags = 0,
	.exec = cmd_baseline_exec
};

/* orch baseline's verbs, each with its words. */
static int
cmd_baseline_exec(struct cmd *self)
{
	int	  argc = self->argc;
	char	**argv = self->argv;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		usage_command(stdout, "baseline");
		return (0);
	}
	if (argc == 4 && strcmp(argv[1], "set") == 0)
		return (baseline_set(argv[2], argv[3]));
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return (baseline_list());
	if (argc == 3 && strcmp(argv[1], "rm") == 0)
		return (baseline_rm(argv[2]));
	usage_error("baseline", "want 'set NAME DIR', 'list' or 'rm NAME'");
}
