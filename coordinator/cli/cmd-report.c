/* orch report DIR: every report file of a run again, and its answer. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "coordinator/analysis/machines.h"
#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/report/report-export.h"
#include "coordinator/report/report.h"

static int	cmd_report_exec(struct cmd *);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.alias = NULL,
	.flags = 0,
	.exec = cmd_report_exec
};

/* orch report [options] DIR: its options, then report_render_answer. */
static int
cmd_report_exec(struct cmd *self)
{
	struct usage_getopt		 g;
	struct report_exports		 exp = { NULL, NULL, NULL };
	const struct report_exports	*ep;
	int				 argc = self->argc, id;
	int				 fail_on = 0, quiet = 0;
	char				**argv = self->argv;
	char				*cause = NULL, *tripped = NULL;

	args_init(&g, "report");
	while ((id = args_next(&g, argc, argv)) != -1) {
		switch (id) {
		case 'q':
			quiet = 1;
			break;
		case OPT_FAIL_ON:
			if (args_fail_on(optarg, &fail_on) != 0)
				return (2);
			break;
		case OPT_MACHINE_REF:
			if (machines_opt(optarg) != 0)
				return (2);
			break;
		default:
			args_export(id, optarg, &exp);
		}
	}
	if (optind != argc - 1)
		usage_error("report", "report takes one run directory, got %d",
		    argc - optind);
	if (args_exports(&exp, &ep) != 0)
		return (2);
	if (report_render_answer(argv[optind], quiet ? NULL : stdout,
	    fail_on, &tripped, NULL, &cause) != 0 || (ep != NULL &&
	    report_export(argv[optind], ep, &cause) != 0)) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (2);
	}
	printf("report: %s/report.md (and answer.md, report.html, "
	    "summary.json, samples.csv)\n", argv[optind]);
	if (tripped != NULL) {
		fputs(tripped, stderr);
		free(tripped);
		return (1);
	}
	return (0);
}
