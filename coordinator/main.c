/* orch: the coordinator's command line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/gate.h"
#include "coordinator/analysis/machines.h"
#include "coordinator/cli/usage.h"
#include "coordinator/hosts/check.h"
#include "coordinator/hosts/deploy.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/ssh.h"
#include "coordinator/hosts/sshconfig.h"
#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/compare.h"
#include "coordinator/report/report-export.h"
#include "coordinator/report/report-history.h"
#include "coordinator/report/report.h"
#include "coordinator/run/control.h"
#include "coordinator/run/run.h"
#include "coordinator/store/baseline.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

/* A long option without a short one: getopt_long's value above any char. */
#define OPT_SSH_CONFIG	0x100
#define OPT_LABEL	0x110	/* run --label */
#define OPT_BUDGET	0x101

/* Exits 2 with the command list: no command, or an unknown one. */
static void __attribute__((noreturn))
usage(void)
{
	usage_all(stderr);
	exit(2);
}

/* orch COMMAND --help: the command's usage on stdout, exit 0. */
static void __attribute__((noreturn))
help_exit(const char *command)
{
	usage_command(stdout, command);
	exit(0);
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
	    inventory_resolve_ssh(inv, list, &hosts, n, &cause) != 0) {
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

/* Parses a --fail-on list into *mask. Returns 0, or -1 having said why. */
static int
main_fail_on(const char *list, int *mask)
{
	char	*cause = NULL;

	if (gate_parse(list, mask, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (-1);
	}
	return (0);
}

/*
 * Checks one --label KEY=VALUE and adds it to labels[*n] (LABELS_MAX).
 * Returns 0, or -1 having said why.
 */
static int
main_label(char *arg, char **labels, size_t *n)
{
	char	*k, *v, *cause = NULL;
	size_t	 i, klen;

	if (dataset_label_parse(arg, &k, &v, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (-1);
	}
	klen = strlen(k);
	for (i = 0; i < *n; i++) {
		if (strncmp(labels[i], k, klen) == 0 &&
		    labels[i][klen] == '=') {
			fprintf(stderr, "orch: --label %s: given twice\n", k);
			free(k);
			return (-1);
		}
	}
	free(k);
	if (*n == LABELS_MAX) {
		fprintf(stderr, "orch: --label: at most %d labels\n",
		    LABELS_MAX);
		return (-1);
	}
	labels[(*n)++] = arg;
	return (0);
}

/*
 * Takes an option that picks the hosts, which run, check and deploy share
 * (-H, -i, --ssh-config, -A), into *list and *inv or the ssh settings.
 */
static void
main_hosts_opt(int ch, const char *arg, const char **list, const char **inv)
{
	if (ch == 'H')
		*list = arg;
	else if (ch == 'i')
		*inv = arg;
	else if (ch == OPT_SSH_CONFIG)
		sshcfg_set_file(arg);
	else
		host_ssh_accept_new(1);
}

/* Takes the path of an --export-* option (-J, -M or -C) into e. */
static void
main_export(int ch, const char *path, struct report_exports *e)
{
	if (ch == 'J')
		e->json = path;
	else if (ch == 'M')
		e->md = path;
	else
		e->csv = path;
}

/*
 * Checks the --export-* paths (report-export.c) and points *out at e when
 * one was given. Returns 0, or -1 with the error printed.
 */
static int
run_exports(const struct report_exports *e,
    const struct report_exports **out)
{
	char	*cause = NULL;

	*out = NULL;
	if (e->json == NULL && e->md == NULL && e->csv == NULL)
		return (0);
	if (report_export_check(e, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (-1);
	}
	*out = e;
	return (0);
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
		{ "ssh-config", required_argument, NULL, OPT_SSH_CONFIG },
		{ "rounds", required_argument, NULL, 'r' },
		{ "budget", required_argument, NULL, OPT_BUDGET },
		{ "seed", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "max-load", required_argument, NULL, 'L' },
		{ "fail-on", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "resume", required_argument, NULL, 'R' },
		{ "machine-reference", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "command-name", required_argument, NULL, 'n' },
		{ "export-json", required_argument, NULL, 'J' },
		{ "export-markdown", required_argument, NULL, 'M' },
		{ "export-csv", required_argument, NULL, 'C' },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ NULL, 0, NULL, 0 }
	};
	char			*labels[LABELS_MAX];
	struct run_opts		 opts;
	struct report_exports	 exp = { NULL, NULL, NULL };
	const char		*hosts = NULL, *inv = NULL;
	char			*end, *cmdline, *text = NULL;
	const char		*names[64];	/* -n: one per command */
	size_t			 nnames = 0;
	int			 ch, r, dd;

	memset(&opts, 0, sizeof opts);
	opts.max_load = -1;
	/* After "--", commands: a one-line run (oneline.c). */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	while ((ch = getopt_long(dd, argv, ":vqhn:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'W':
			opts.warmup = (uint32_t)parse_u64("--warmup", optarg,
			    1000);
			opts.has_warmup = 1;
			break;
		case 'n':
			if (nnames == sizeof names / sizeof names[0]) {
				fprintf(stderr, "orch: -n: at most %zu names\n",
				    nnames);
				return (2);
			}
			names[nnames++] = optarg;
			break;
		case 'J':
		case 'M':
		case 'C':
			main_export(ch, optarg, &exp);
			break;
		case OPT_LABEL:
			if (main_label(optarg, labels, &opts.nlabels) != 0)
				return (2);
			break;
		case 'H':
		case 'i':
		case OPT_SSH_CONFIG:
		case 'A':
			main_hosts_opt(ch, optarg, &hosts, &inv);
			break;
		case 'q':
			opts.quiet = 1;
			break;
		case 'h':
			help_exit("run");
		case OPT_BUDGET:
			if (suite_parse_budget(optarg, &opts.budget_s) != 0) {
				fprintf(stderr, "orch: --budget: '%s' is not a "
				    "duration (want e.g. 90s, 20m, 2h)\n",
				    optarg);
				return (2);
			}
			break;
		case 'r':
			if (strcmp(optarg, "auto") == 0) {
				opts.auto_rounds = 1;
				break;
			}
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
			if (main_fail_on(optarg, &opts.fail_on) != 0)
				return (2);
			break;
		case 'm':
			if (machines_opt(optarg) != 0)
				return (2);
			break;
		case 'v':
			opts.verbose = 1;
			log_init("orch", LOG_DEBUG);
			break;
		default:
			usage_bad_option("run", argv, optind, optopt, ch);
		}
	}
	if (opts.resume != NULL) {
		char	*cause = NULL, *list;

		struct host	*given = NULL;
		size_t		 ngiven = 0;

		if (argc - optind > 1)
			usage_error("run", "--resume=DIR takes no more than the "
			    "suite it ran, got %d arguments", argc - optind);
		if (dd < argc || nnames > 0)
			usage_error("run", "--resume=DIR takes the commands of a "
			    "one-line run from DIR (DIR/suite.ini)");
		if (opts.has_warmup)
			usage_error("run", "--resume=DIR takes --warmup from the "
			    "record: leave it out");
		if (opts.nlabels > 0)
			usage_error("run", "--resume=DIR takes the labels from "
			    "the record: leave --label out");
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
	} else if (dd < argc) {
		char	*cause = NULL;

		if (optind != dd)
			usage_error("run", "a one-line run takes no suite file "
			    "('%s'): the commands go after --", argv[optind]);
		if (oneline_suite((const char *const *)(argv + dd + 1),
		    (size_t)(argc - dd - 1),
		    names, nnames, &text, &cause) != 0) {
			fprintf(stderr, "orch: %s\n", cause);
			free(cause);
			return (2);
		}
		opts.suite = ONELINE_LABEL;
		opts.suite_text = text;
	} else {
		if (nnames > 0)
			usage_error("run", "-n names the commands of a one-line run: "
			    "give them after --");
		if (optind == argc)
			usage_error("run", "run takes one suite file, got none");
		if (optind != argc - 1)
			usage_error("run", "run takes one suite file, got %d "
			    "(%s, %s%s)", argc - optind, argv[optind],
			    argv[optind + 1], argc - optind > 2 ? ", ..." : "");
		opts.suite = argv[optind];
	}
	if (run_exports(&exp, &opts.exports) != 0) {
		free(text);
		return (2);
	}
	if (opts.resume == NULL)
		opts.hosts = resolve_hosts(inv, hosts, &opts.nhosts);
	if (machines_opt_check(opts.hosts, opts.nhosts) != 0) {
		free(opts.hosts);
		free(text);
		return (2);
	}
	opts.labels = labels;
	/* Quoted: a one-line run's commands are words with blanks. */
	cmdline = oneline_cmdline(all_argc, all_argv);
	opts.cmdline = cmdline;
	r = run_main(&opts);
	free(opts.hosts);
	free(cmdline);
	free(text);
	return (r);
}

static int
cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fail-on", required_argument, NULL, 'f' },
		{ "machine-reference", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "export-json", required_argument, NULL, 'J' },
		{ "export-markdown", required_argument, NULL, 'M' },
		{ "export-csv", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_exports		 exp = { NULL, NULL, NULL };
	const struct report_exports	*ep;
	char				*cause = NULL, *tripped = NULL;
	int				 ch, fail_on = 0, quiet = 0;

	while ((ch = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			help_exit("report");
		case 'f':
			if (main_fail_on(optarg, &fail_on) != 0)
				return (2);
			break;
		case 'm':
			if (machines_opt(optarg) != 0)
				return (2);
			break;
		case 'J':
		case 'M':
		case 'C':
			main_export(ch, optarg, &exp);
			break;
		default:
			usage_bad_option("report", argv, optind, optopt, ch);
		}
	}
	if (optind != argc - 1)
		usage_error("report", "report takes one run directory, got %d",
		    argc - optind);
	if (run_exports(&exp, &ep) != 0)
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

/* orch status DIR and orch stop DIR. */
static int
cmd_control(int argc, char **argv, int stop)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ "ssh-config", required_argument, NULL, OPT_SSH_CONFIG },
		{ NULL, 0, NULL, 0 }
	};
	const char	*name = stop ? "stop" : "status";
	struct host	*hosts;
	const char	*inv = NULL;
	char		*list, *cause = NULL;
	size_t		 n;
	int		 ch, r;

	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h')
			help_exit(name);
		else if (ch == OPT_SSH_CONFIG)
			sshcfg_set_file(optarg);
		else if (ch == 'i')
			inv = optarg;
		else
			usage_bad_option(name, argv, optind, optopt, ch);
	}
	if (optind != argc - 1)
		usage_error(name, "%s takes one run directory, got %d", name,
		    argc - optind);
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
		{ "ssh-config", required_argument, NULL, OPT_SSH_CONFIG },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "force", no_argument, NULL, 'F' },
		{ "from-source", no_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*name = deploy ? "deploy" : "check";
	struct host	*hosts;
	const char	*list = NULL, *inv = NULL;
	size_t		 n;
	int		 ch, force = 0, r;

	while ((ch = getopt_long(argc, argv, ":vh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'H':
		case 'i':
		case OPT_SSH_CONFIG:
		case 'A':
			main_hosts_opt(ch, optarg, &list, &inv);
			break;
		case 'F':
			if (!deploy)
				usage_error(name, "--force is an option of deploy");
			force = force > 1 ? force : 1;
			break;
		case 'S':
			if (!deploy)
				usage_error(name, "--from-source is an option of "
				    "deploy");
			force = 2;
			break;
		case 'v':
			log_init("orch", LOG_DEBUG);
			break;
		case 'h':
			help_exit(name);
		default:
			usage_bad_option(name, argv, optind, optopt, ch);
		}
	}
	if (optind != argc)
		usage_error(name, "%s takes no arguments, got '%s' (hosts go "
		    "in --hosts=LIST)", name, argv[optind]);
	hosts = resolve_hosts(inv, list, &n);
	r = deploy ? deploy_main(hosts, n, force) : check_main(hosts, n);
	free(hosts);
	return (r);
}

/* orch help [COMMAND], orch help --man. */
static int
cmd_help(int argc, char **argv)
{
	if (argc == 1) {
		usage_all(stdout);
		return (0);
	}
	if (argc == 2 && strcmp(argv[1], "--man") == 0) {
		usage_man(stdout);
		return (0);
	}
	if (argc > 2)
		usage_error("help", "help takes one command, got %d",
		    argc - 1);
	if (usage_command(stdout, argv[1]) != 0) {
		fprintf(stderr, "orch help: unknown command '%s'\n", argv[1]);
		usage();
	}
	return (0);
}

int
main(int argc, char **argv)
{
	const char	*cmd;

	log_init("orch", LOG_INFO);
	if (argc < 2)
		usage();
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
	    strcmp(cmd, "help") == 0)
		return (cmd_help(argc - 1, argv + 1));
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		if (argc > 2 && strcmp(argv[2], "--help") != 0)
			usage_error("version", "version takes no arguments");
		if (argc > 2)
			help_exit("version");
		printf("orch %s protocol %d\n", ORCH_VERSION, PROTO_VERSION);
		return (0);
	}
	if (!usage_known(cmd)) {
		fprintf(stderr, "orch: unknown command '%s'\n", cmd);
		usage();
	}
	find_agent(argv[0]);
	if (ssh_init() != 0)
		fatalx("libssh2_init failed");
	if (strcmp(cmd, "check") == 0)
		return (cmd_hosts(argc - 1, argv + 1, 0));
	if (strcmp(cmd, "deploy") == 0)
		return (cmd_hosts(argc - 1, argv + 1, 1));
	if (strcmp(cmd, "run") == 0)
		return (cmd_run(argc - 1, argv + 1, argc, argv));
	if (strcmp(cmd, "status") == 0)
		return (cmd_control(argc - 1, argv + 1, 0));
	if (strcmp(cmd, "stop") == 0)
		return (cmd_control(argc - 1, argv + 1, 1));
	if (strcmp(cmd, "index") == 0)
		return (history_cmd_index(argc - 1, argv + 1));
	if (strcmp(cmd, "history") == 0)
		return (history_cmd_history(argc - 1, argv + 1));
	if (strcmp(cmd, "compare") == 0)
		return (cmd_compare(argc - 1, argv + 1));
	if (strcmp(cmd, "baseline") == 0)
		return (cmd_baseline(argc - 1, argv + 1));
	return (cmd_report(argc - 1, argv + 1));
}
