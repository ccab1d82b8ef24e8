/* orch version, also orch --version: orch's version and its protocol's. */
#include <stdio.h>
#include <string.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "proto/proto.h"
#include "proto/version.h"

static int	cmd_version_exec(struct cmd *);

const struct cmd_entry cmd_version_entry = {
	.name = "version",
	.alias = "--version",
	.flags = 0,
	.exec = cmd_version_exec
};

/* Prints the versions; takes no words but --help. */
static int
cmd_version_exec(struct cmd *self)
{
	if (self->argc > 1 && strcmp(self->argv[1], "--help") != 0)
		usage_error("version", "version takes no arguments");
	if (self->argc > 1)
		args_help("version");
	printf("orch %s protocol %d\n", ORCH_VERSION, PROTO_VERSION);
	return (0);
}
