/* orch: the coordinator's command line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/check.h"
#include "coordinator/control.h"
#include "coordinator/deploy.h"
#include "coordinator/host.h"
#include "coordinator/inventory.h"
#include "coordinator/report.h"
#include "coordinator/run.h"
#include "coordinator/ssh.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: orch run [--hosts=LIST] [--inventory=FILE] [--rounds=N] "
	    "[--seed=N]\n"
	    "                [--out=DIR] [--max-load=F] [--fail-on=worse]\n"
	    "                [--accept-new-host-keys] [-v] SUITE.ini\n"
	    "       orch run --resume=DIR [--inventory=FILE]\n"
	    "       orch status DIR | orch stop DIR [--inventory=FILE]\n"
	    "       orch check [--hosts=LIST] [--inventory=FILE] "
	    "[--accept-new-host-keys]\n"
	    "       orch deploy [--hosts=LIST] [--inventory=FILE] [--force] "
	    "[--from-source]\n"
	    "                [--accept-new-host-keys]\n"
	    "       orch report [--fail-on=worse] DIR\n"
	    "       orch --version\n"
	    "LIST: host and group names, `all`, comma separated; `local` is "
	    "this machine.\n");
	exit(2);
}

/* Parses an unsigned decimal number; exits 2 naming the option when bad. */
static unsigned long long
parse_u64(const char *opt, const char *s, unsigned long long max)
{
	unsigned long long	 v;
	char			*end;

	errno = 0;
	if (*s == '\0' || *s == '-' || *s == '+')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		goto bad;
	return (v);
bad:
	fprintf(stderr, "orch: %s: '%s' is not a number in 0..%llu\n", opt, s,
	    max);
	exit(2);
}

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
	/* Installed: PREFIX/bin/orch, prebuilt agents in PREFIX/libexec/orch. */
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

/* Joins argv into one line for the record. */
static char *
join_args(int argc, char **argv)
{
	size_t	len = 1;
	char	*s;
	int	 i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = xcalloc(1, len);
	for (i = 0; i < argc; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return (s);
}

/*
 * Resolves --hosts against the inventory (--inventory, $ORCH_INVENTORY or
 * inventory/hosts.ini); exits 2 with the file and line on bad input.
 */
static struct host *
resolve_hosts(const char *inv_opt, const char *list, size_t *n)
{
	struct inventory	*inv = NULL;
	struct host		*hosts = NULL;
	const char		*path;
	char			*cause = NULL;
	size_t			 i;
	int			 required;

	path = inventory_path(inv_opt, &required);
	if (inventory_load(path, required, &inv, &cause) != 0 ||
	    inventory_resolve(inv, list, &hosts, n, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		inventory_free(inv);
		exit(2);
	}
	inventory_free(inv);
	for (i = 0; i < *n; i++) {
		if (hosts[i].ops == NULL)
			hosts[i].ops = &host_ssh_ops;
		hosts[i].chan.sock = -1;
	}
	return (hosts);
}

/*
 * orch run: its options, then run_main. Long because it is getopt's
 * switch, one case per option of run.
 */
static int
cmd_run(int argc, char **argv, int all_argc, char **all_argv)
{
	static const struct option longopts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "inventory", required_argument, NULL, 'i' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "max-load", required_argument, NULL, 'L' },
		{ "fail-on", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "resume", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct run_opts	 opts;
	const char	*hosts = NULL, *inv = NULL;
	char		*end, *cmdline;
	int		 ch, r;

	memset(&opts, 0, sizeof opts);
	opts.max_load = -1;
	while ((ch = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			hosts = optarg;
			break;
		case 'i':
			inv = optarg;
			break;
		case 'A':
			host_ssh_accept_new(1);
			break;
		case 'r':
			opts.rounds = (uint32_t)parse_u64("--rounds", optarg,
			    100000);
			if (opts.rounds < 1) {
				fprintf(stderr, "orch: --rounds: must be at "
				    "least 1\n");
				return (2);
			}
			break;
		case 's':
			opts.seed = parse_u64("--seed", optarg,
			    (1ULL << 53) - 1);
			opts.has_seed = 1;
			break;
		case 'o':
			opts.out = optarg;
			break;
		case 'R':
			opts.resume = optarg;
			break;
		case 'L':
			errno = 0;
			opts.max_load = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || end == optarg ||
			    !(opts.max_load >= 0)) {
				fprintf(stderr, "orch: --max-load: '%s' is not "
				    "a load per core >= 0\n", optarg);
				return (2);
			}
			break;
		case 'f':
			if (strcmp(optarg, "worse") != 0) {
				fprintf(stderr, "orch: --fail-on: only 'worse' "
				    "is supported\n");
				return (2);
			}
			opts.fail_on_worse = 1;
			break;
		case 'v':
			opts.verbose = 1;
			log_init("orch", LOG_DEBUG);
			break;
		default:
			usage();
		}
	}
	if (opts.resume != NULL) {
		char	*cause = NULL, *list;

		struct host	*given = NULL;
		size_t		 ngiven = 0;

		if (argc - optind > 1)
			usage();
		/* A flag may repeat the record; one that contradicts it: 2. */
		if (hosts != NULL)
			given = resolve_hosts(inv, hosts, &ngiven);
		if (run_resume_flags(&opts, optind < argc ? argv[optind] :
		    NULL, given, ngiven, &cause) != 0) {
			fprintf(stderr, "orch: %s\n", cause);
			free(cause);
			free(given);
			return (2);
		}
		free(given);
		if ((list = run_resume_hosts(opts.resume, &cause)) == NULL) {
			fprintf(stderr, "orch: %s\n", cause);
			free(cause);
			return (2);
		}
		opts.hosts = resolve_hosts(inv, list, &opts.nhosts);
		free(list);
	} else {
		if (optind != argc - 1)
			usage();
		opts.suite = argv[optind];
		opts.hosts = resolve_hosts(inv, hosts, &opts.nhosts);
	}
	cmdline = join_args(all_argc, all_argv);
	opts.cmdline = cmdline;
	r = run_main(&opts);
	free(opts.hosts);
	free(cmdline);
	return (r);
}

static int
cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fail-on", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	size_t	 nworse = 0;
	char	*cause = NULL;
	int	 ch, fail_on = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (strcmp(optarg, "worse") != 0) {
				fprintf(stderr, "orch: --fail-on: only 'worse' "
				    "is supported\n");
				return (2);
			}
			fail_on = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (report_render(argv[optind], &nworse, NULL, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (2);
	}
	printf("report: %s/report.md (and report.html, summary.json, "
	    "samples.csv)\n", argv[optind]);
	if (fail_on && nworse > 0) {
		fprintf(stderr, "orch: --fail-on=worse: %zu worse verdict%s\n",
		    nworse, nworse == 1 ? "" : "s");
		return (1);
	}
	return (0);
}

/* orch status DIR and orch stop DIR. */
static int
cmd_control(int argc, char **argv, int stop)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 }
	};
	struct host	*hosts;
	const char	*inv = NULL;
	char		*list, *cause = NULL;
	size_t		 n;
	int		 ch, r;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch != 'i')
			usage();
		inv = optarg;
	}
	if (optind != argc - 1)
		usage();
	if ((list = control_hosts(argv[optind], &cause)) == NULL) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (2);
	}
	hosts = resolve_hosts(inv, list, &n);
	r = control_main(argv[optind], hosts, n, stop);
	free(list);
	free(hosts);
	return (r);
}

/* orch check and orch deploy share their options. */
static int
cmd_hosts(int argc, char **argv, int deploy)
{
	static const struct option longopts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "inventory", required_argument, NULL, 'i' },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "force", no_argument, NULL, 'F' },
		{ "from-source", no_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	struct host	*hosts;
	const char	*list = NULL, *inv = NULL;
	size_t		 n;
	int		 ch, force = 0, r;

	while ((ch = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			list = optarg;
			break;
		case 'i':
			inv = optarg;
			break;
		case 'A':
			host_ssh_accept_new(1);
			break;
		case 'F':
			if (!deploy)
				usage();
			force = force > 1 ? force : 1;
			break;
		case 'S':
			if (!deploy)
				usage();
			force = 2;
			break;
		case 'v':
			log_init("orch", LOG_DEBUG);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	hosts = resolve_hosts(inv, list, &n);
	r = deploy ? deploy_main(hosts, n, force) : check_main(hosts, n);
	free(hosts);
	return (r);
}

int
main(int argc, char **argv)
{
	log_init("orch", LOG_INFO);
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("orch %s protocol %d\n", ORCH_VERSION, PROTO_VERSION);
		return (0);
	}
	find_agent(argv[0]);
	if (ssh_init() != 0)
		fatalx("libssh2_init failed");
	if (strcmp(argv[1], "check") == 0)
		return (cmd_hosts(argc - 1, argv + 1, 0));
	if (strcmp(argv[1], "deploy") == 0)
		return (cmd_hosts(argc - 1, argv + 1, 1));
	if (strcmp(argv[1], "run") == 0)
		return (cmd_run(argc - 1, argv + 1, argc, argv));
	if (strcmp(argv[1], "status") == 0)
		return (cmd_control(argc - 1, argv + 1, 0));
	if (strcmp(argv[1], "stop") == 0)
		return (cmd_control(argc - 1, argv + 1, 1));
	if (strcmp(argv[1], "report") == 0)
		return (cmd_report(argc - 1, argv + 1));
	fprintf(stderr, "orch: unknown command '%s'\n", argv[1]);
	usage();
}
