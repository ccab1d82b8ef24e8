/* orch-agent: executes benchmark runs for an orch coordinator. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/serve.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: orch-agent --version\n"
	    "       orch-agent serve [-v] [--workdir=DIR] [--bind=ADDR]\n"
	    "       orch-agent status|stop --workdir=DIR --run=RUN-ID\n"
	    "The run key is read from standard input; see proto/PROTOCOL.md.\n"
	    "Without --bind the agent listens on a Unix socket in DIR.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "workdir", required_argument, NULL, 'w' },
		{ "bind", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct serve_opts	 opts;
	const char		*home;
	char			*workdir = NULL;
	int			 ch, level = LOG_INFO, r;

	log_init("orch-agent", LOG_INFO);
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("orch-agent %s protocol %d\n", ORCH_VERSION,
		    PROTO_VERSION);
		return (0);
	}
	if (argc == 4 && (strcmp(argv[1], "status") == 0 ||
	    strcmp(argv[1], "stop") == 0) &&
	    strncmp(argv[2], "--workdir=", 10) == 0 &&
	    strncmp(argv[3], "--run=", 6) == 0)
		return (serve_ctl(argv[2] + 10, argv[3] + 6,
		    strcmp(argv[1], "stop") == 0));
	if (argc < 2 || strcmp(argv[1], "serve") != 0)
		usage();

	memset(&opts, 0, sizeof opts);
	opts.bind = NULL;	/* a Unix socket in the workdir */
	opts.key_timeout_ms = 30000;
	opts.hello_timeout_ms = 60000;
	opts.self = argv[0];
	optind = 2;
	while ((ch = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'w':
			opts.workdir = optarg;
			break;
		case 'b':
			opts.bind = optarg;
			break;
		case 'v':
			level = LOG_DEBUG;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_init("orch-agent", level);
	if (opts.workdir == NULL) {
		if ((home = getenv("HOME")) == NULL)
			fatalx("HOME is not set and no --workdir given");
		xasprintf(&workdir, "%s/.orch", home);
		opts.workdir = workdir;
	}
	r = serve_main(&opts);
	free(workdir);
	return (r);
}
