/* orch history: each benchmark's series of runs and its change points. */
#include <getopt.h>
#include <string.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/report/report-history.h"

static int	cmd_history_exec(struct cmd *);

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.alias = NULL,
	.flags = 0,
	.exec = cmd_history_exec
};

/* orch history [options]: the series, their change points, history.html. */
static int
cmd_history_exec(struct cmd *self)
{
	struct usage_getopt	 g;
	struct history_opts	 o;
	int			 argc = self->argc, id;
	char			**argv = self->argv;

	memset(&o, 0, sizeof o);
	args_init(&g, "history");
	while ((id = args_next(&g, argc, argv)) != -1) {
		switch (id) {
		case OPT_REPORTS:
			o.reports = optarg;
			break;
		case OPT_HOST:
			o.f.host = optarg;
			break;
		case OPT_BENCH:
			o.f.bench = optarg;
			break;
		case OPT_METRIC:
			o.f.metric = optarg;
			break;
		case OPT_VARIANT:
			o.f.variant = optarg;
			break;
		case OPT_SINCE:
			o.f.since = optarg;
			break;
		case OPT_OUT:
			o.out = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		}
	}
	if (optind != argc)
		usage_error("history", "history takes no arguments, got '%s' "
		    "(the store is --reports=DIR/history.sqlite)",
		    argv[optind]);
	return (history_main(&o));
}
