/* orch index: runs into the history store. */
#include <getopt.h>
#include <stddef.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/report/report-history.h"

static int	cmd_index_exec(struct cmd *);

const struct cmd_entry cmd_index_entry = {
	.name = "index",
	.alias = NULL,
	.flags = 0,
	.exec = cmd_index_exec
};

/* orch index [--reports=DIR] [--rebuild] [DIR...]. */
static int
cmd_index_exec(struct cmd *self)
{
	struct usage_getopt	 g;
	const char		*reports = NULL;
	int			 argc = self->argc, id, rebuild = 0;
	char			**argv = self->argv;

	args_init(&g, "index");
	while ((id = args_next(&g, argc, argv)) != -1) {
		if (id == OPT_REPORTS)
			reports = optarg;
		else
			rebuild = 1;
	}
	if (optind == argc && !rebuild)
		usage_error("index", "index takes run directories, or "
		    "--rebuild for every run under the reports directory");
	return (history_index_main(reports, rebuild, argv + optind,
	    (size_t)(argc - optind)));
}
