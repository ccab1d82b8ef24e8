/* orch: the coordinator's command line, dispatched through cmd_table. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/hosts/deploy.h"
#include "coordinator/hosts/host.h"
#include "proto/log.h"

/*
 * Finds orch-agent beside this program ($ORCH_AGENT overrides), the
 * installed prebuilt agents (../libexec/orch) and the source tree above
 * it (orch deploy builds the agent on hosts from it).
 */
static void
find_agent(const char *argv0)
{
	char		 self[PATH_MAX], path[PATH_MAX + 32], *slash;
	const char	*env;
	ssize_t		 n;
	int		 up;

	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0)
		self[n] = '\0';
	else if (realpath(argv0, self) == NULL)
		return;
	if ((slash = strrchr(self, '/')) == NULL)
		return;
	*slash = '\0';
	snprintf(path, sizeof path, "%s/orch-agent", self);
	if ((env = getenv("ORCH_AGENT")) != NULL)
		snprintf(path, sizeof path, "%s", env);
	host_local_set_agent(path);
	deploy_set_agent(path);
	/* Installed: PREFIX/bin/orch, prebuilt agents PREFIX/libexec/orch. */
	snprintf(path, sizeof path, "%s/../libexec/orch", self);
	deploy_set_libexec(path);
	for (up = 0; up < 3; up++) {
		if ((slash = strrchr(self, '/')) == NULL)
			break;
		*slash = '\0';
		snprintf(path, sizeof path, "%s/agent/serve.c", self);
		if (access(path, R_OK) == 0) {
			deploy_set_root(self);
			break;
		}
	}
}

int
main(int argc, char **argv)
{
	struct cmd	self;

	log_init("orch", LOG_INFO);
	if (argc < 2)
		args_usage();
	if ((self.entry = cmd_find(argv[1])) == NULL) {
		fprintf(stderr, "orch: unknown command '%s'\n", argv[1]);
		args_usage();
	}
	if (self.entry->flags & CMD_AGENT)
		find_agent(argv[0]);
	self.argc = argc - 1;
	self.argv = argv + 1;
	self.all_argc = argc;
	self.all_argv = argv;
	return (self.entry->exec(&self));
}
