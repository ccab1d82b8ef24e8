/* orch doc check FILE.md... | render [--check] FILE.md...: marks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/report/report-doc.h"

static int	cmd_doc_exec(struct cmd *);

const struct cmd_entry cmd_doc_entry = {
	.name = "doc",
	.alias = NULL,
	.flags = 0,
	.exec = cmd_doc_exec
};

/*
 * orch doc VERB [--check] FILE...: each file through report_doc. Returns 2
 * when a file had an error, else 1 when a mark differs (check), else 0.
 */
static int
cmd_doc_exec(struct cmd *self)
{
	struct usage_getopt	 g;
	int			 argc = self->argc, id, check = 0, render;
	int			 rc, worst = 0, i;
	char			**argv = self->argv;
	char			*diffs, *cause = NULL;

	args_init(&g, "doc");
	while ((id = args_next(&g, argc, argv)) != -1) {
		if (id == OPT_CHECK)
			check = 1;
	}
	if (optind >= argc || (strcmp(argv[optind], "check") != 0 &&
	    strcmp(argv[optind], "render") != 0))
		usage_error("doc", "want 'check FILE.md...' or 'render "
		    "[--check] FILE.md...'");
	render = strcmp(argv[optind], "render") == 0 && !check;
	if (check && strcmp(argv[optind], "render") != 0)
		usage_error("doc", "--check is for 'doc render'");
	if (++optind == argc)
		usage_error("doc", "no document named");
	for (i = optind; i < argc; i++) {
		rc = report_doc(argv[i], render, &diffs, &cause);
		if (rc < 0) {
			fprintf(stderr, "orch: %s\n", cause);
			free(cause);
			cause = NULL;
			worst = 2;
			continue;
		}
		if (diffs != NULL) {
			fputs(render ? "" : diffs, stdout);
			if (render)
				printf("doc: %s rewritten from its runs\n",
				    argv[i]);
			free(diffs);
		}
		if (rc == 1 && worst == 0)
			worst = 1;
	}
	return (worst);
}
