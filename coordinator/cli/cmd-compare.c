/* orch compare OLD NEW: two runs, or a baseline and a run. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/gate.h"
#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/report/compare.h"
#include "coordinator/store/baseline.h"
#include "coordinator/store/dataset.h"
#include "proto/xmalloc.h"

static int	cmd_compare_exec(struct cmd *);

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.alias = NULL,
	.flags = 0,
	.exec = cmd_compare_exec
};

/*
 * Resolves OLD or NEW: a run directory, else a baseline's name (caller
 * frees); exits 2 when it is neither.
 */
static char *
cmd_compare_resolve(const char *arg)
{
	char	*dir = NULL, *cause = NULL, path[PATH_MAX];
	int	 rc;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", arg, RECORD_FILE) <
	    sizeof path && access(path, F_OK) == 0)
		return (xstrdup(arg));
	if ((rc = baseline_resolve(arg, &dir, &cause)) == 0)
		return (dir);
	if (rc < 0) {
		fprintf(stderr, "orch compare: %s\n", cause);
		free(cause);
		exit(2);
	}
	fprintf(stderr, "orch compare: %s: neither a run directory (no %s in "
	    "it) nor a baseline (orch baseline list)\n", arg, RECORD_FILE);
	exit(2);
}

/* Takes --fail-on for compare, which has no claims to refute. */
static int
cmd_compare_fail_on(const char *arg, int *fail_on)
{
	if (args_fail_on(arg, fail_on) != 0)
		return (-1);
	if (*fail_on & GATE_REFUTED && strstr(arg, "refuted") != NULL) {
		fprintf(stderr, "orch: --fail-on: refuted is for a run's "
		    "claims, not for compare\n");
		return (-1);
	}
	return (0);
}

/* orch compare [options] OLD NEW: its options, then compare_render. */
static int
cmd_compare_exec(struct cmd *self)
{
	struct usage_getopt	 g;
	const char		*out = NULL;
	int			 argc = self->argc, id, fail_on = 0, quiet = 0;
	char			**argv = self->argv;
	char			*old, *new, *cause = NULL, *tripped = NULL;

	args_init(&g, "compare");
	while ((id = args_next(&g, argc, argv)) != -1) {
		if (id == 'q')
			quiet = 1;
		else if (id == OPT_OUT)
			out = optarg;
		else if (cmd_compare_fail_on(optarg, &fail_on) != 0)
			return (2);
	}
	if (optind != argc - 2)
		usage_error("compare", "compare takes OLD and NEW, got %d "
		    "argument%s", argc - optind, argc - optind == 1 ? "" :
		    "s");
	old = cmd_compare_resolve(argv[optind]);
	new = cmd_compare_resolve(argv[optind + 1]);
	if (compare_render(old, new, out != NULL ? out : new,
	    quiet ? NULL : stdout, fail_on, &tripped, &cause) != 0) {
		fprintf(stderr, "orch compare: %s\n", cause);
		free(cause);
		free(old);
		free(new);
		return (2);
	}
	printf("compare: %s/compare.md (and compare.html, compare.json)\n",
	    out != NULL ? out : new);
	free(old);
	free(new);
	if (tripped != NULL) {
		fputs(tripped, stderr);
		free(tripped);
		return (1);
	}
	return (0);
}
