/*
 * orch run: a suite file, a one-line run (the commands after --), or
 * --resume=DIR; its options, then run_main.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/machines.h"
#include "coordinator/cli/args.h"
#include "coordinator/cli/cmd.h"
#include "coordinator/cli/usage.h"
#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/report-export.h"
#include "coordinator/run/run.h"
#include "coordinator/store/dataset.h"
#include "proto/log.h"

#define CMD_RUN_NAMES	64	/* -n: one per command */

/* What orch run's words say, before the hosts are resolved. */
struct cmd_run_args {
	struct run_opts		 opts;
	struct report_exports	 exp;
	char			*labels[LABELS_MAX];
	const char		*hosts;		/* --hosts, or NULL */
	const char		*inv;		/* --inventory, or NULL */
	const char		*sshcfg;	/* --ssh-config, or NULL */
	const char		*names[CMD_RUN_NAMES];
	size_t			 nnames;
	int			 dd;		/* argv[dd] is "--", or argc */
	char			*text;		/* a one-line run's suite */
	struct oneline_opts	 oo;		/* --prepare, -L */
	char			*pbuf[ONELINE_PARAMS_MAX];	/* -L N=V */
};

static int	cmd_run_exec(struct cmd *);

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.alias = NULL,
	.flags = CMD_AGENT,
	.exec = cmd_run_exec
};

/*
 * Takes an option with a number or a duration (--warmup, --rounds,
 * --seed, --env-pad, --max-load, --budget). Returns 0, or -1 having said why.
 */
static int
cmd_run_number(struct run_opts *o, int id, const char *arg)
{
	char	*end;

	switch (id) {
	case OPT_WARMUP:
		o->warmup = (uint32_t)args_u64("--warmup", arg, 1000);
		o->has_warmup = 1;
		break;
	case OPT_ROUNDS:
		if (strcmp(arg, "auto") == 0) {
			o->auto_rounds = 1;
			break;
		}
		o->rounds = (uint32_t)args_u64("--rounds", arg, 100000);
		if (o->rounds < 1) {
			fprintf(stderr, "orch: --rounds: must be at least 1\n");
			return (-1);
		}
		break;
	case OPT_ENV_PAD:
		o->env_pad = (uint32_t)args_u64("--env-pad", arg,
		    PROTO_ENV_PAD_MAX);
		o->has_env_pad = 1;
		break;
	case OPT_SEED:
		o->seed = args_u64("--seed", arg, (1ULL << 53) - 1);
		o->has_seed = 1;
		break;
	case OPT_MAX_LOAD:
		errno = 0;
		o->max_load = strtod(arg, &end);
		if (errno != 0 || *end != '\0' || end == arg ||
		    !(o->max_load >= 0)) {
			fprintf(stderr, "orch: --max-load: '%s' is not a load "
			    "per core >= 0\n", arg);
			return (-1);
		}
		break;
	case OPT_BUDGET:
		if (suite_parse_budget(arg, &o->budget_s) != 0) {
			fprintf(stderr, "orch: --budget: '%s' is not a "
			    "duration (want e.g. 90s, 20m, 2h)\n", arg);
			return (-1);
		}
		break;
	}
	return (0);
}

/*
 * Takes a one-line run's --prepare, or -L NAME V1,V2,... (its values the
 * next word, argv[optind], unless arg is NAME=V1,V2,...). Returns 0, or
 * -1 having said why.
 */
static int
cmd_run_oneline_opt(struct cmd_run_args *ra, int id, char *arg,
    char **argv)
{
	struct oneline_opts	*o = &ra->oo;
	char			*eq;

	if (id == OPT_PREPARE) {
		o->prepare = arg;
		return (0);
	}
	if (o->nparams == ONELINE_PARAMS_MAX) {
		fprintf(stderr, "orch: -L: at most %d parameters\n",
		    ONELINE_PARAMS_MAX);
		return (-1);
	}
	if ((eq = strchr(arg, '=')) != NULL) {
		ra->pbuf[o->nparams] = strdup(arg);
		if (ra->pbuf[o->nparams] == NULL)
			return (-1);
		eq = ra->pbuf[o->nparams] + (eq - arg);
		*eq = '\0';
		o->pname[o->nparams] = ra->pbuf[o->nparams];
		o->pvals[o->nparams++] = eq + 1;
		return (0);
	}
	if (optind >= ra->dd)
		usage_error("run", "-L %s: give its values, -L %s V1,V2,...",
		    arg, arg);
	o->pname[o->nparams] = arg;
	o->pvals[o->nparams++] = argv[optind++];
	return (0);
}

/* Takes one option of run into ra. Returns 0, or -1 having said why. */
static int
cmd_run_option(struct cmd_run_args *ra, int id, char *arg)
{
	switch (id) {
	case 'n':
		if (ra->nnames == CMD_RUN_NAMES) {
			fprintf(stderr, "orch: -n: at most %zu names\n",
			    ra->nnames);
			return (-1);
		}
		ra->names[ra->nnames++] = arg;
		return (0);
	case OPT_EXPORT_JSON:
	case OPT_EXPORT_MD:
	case OPT_EXPORT_CSV:
		args_export(id, arg, &ra->exp);
		return (0);
	case OPT_LABEL:
		return (args_label(arg, ra->labels, &ra->opts.nlabels));
	case OPT_SSH_CONFIG:
		ra->sshcfg = arg;
		/* FALLTHROUGH */
	case OPT_HOSTS:
	case OPT_INVENTORY:
	case OPT_ACCEPT_NEW:
		args_reach(id, arg, &ra->hosts, &ra->inv);
		return (0);
	case 'q':
		ra->opts.quiet = 1;
		return (0);
	case OPT_OUT:
		ra->opts.out = arg;
		return (0);
	case OPT_RESUME:
		ra->opts.resume = arg;
		return (0);
	case OPT_RESUME_FOREIGN:
		ra->opts.resume_foreign = 1;
		return (0);
	case OPT_FAIL_ON:
		return (args_fail_on(arg, &ra->opts.fail_on));
	case OPT_MACHINE_REF:
		return (machines_opt(arg));
	case 'v':
		ra->opts.verbose = 1;
		log_init("orch", LOG_DEBUG);
		return (0);
	}
	return (cmd_run_number(&ra->opts, id, arg));
}

/*
 * With --resume=DIR: checks the words against the record in DIR and
 * resolves its hosts. Returns 0, or -1 having said why.
 */
static int
cmd_run_resume(struct cmd_run_args *ra, int argc, char **argv)
{
	struct host	*given = NULL;
	size_t		 ngiven = 0;
	char		*cause = NULL, *list;

	if (argc - optind > 1)
		usage_error("run", "--resume=DIR takes no more than the suite "
		    "it ran, got %d arguments", argc - optind);
	if (ra->dd < argc || ra->nnames > 0 || ra->oo.prepare != NULL ||
	    ra->oo.nparams > 0)
		usage_error("run", "--resume=DIR takes the commands of a "
		    "one-line run from DIR (DIR/suite.ini)");
	if (ra->opts.has_warmup)
		usage_error("run", "--resume=DIR takes --warmup from the "
		    "record: leave it out");
	if (ra->opts.nlabels > 0)
		usage_error("run", "--resume=DIR takes the labels from the "
		    "record: leave --label out");
	/* A flag may repeat the record; one that contradicts it: 2. */
	if (ra->hosts != NULL)
		given = args_hosts(ra->inv, ra->hosts, &ngiven);
	if (run_resume_flags(&ra->opts, optind < argc ? argv[optind] : NULL,
	    given, ngiven, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		free(given);
		return (-1);
	}
	free(given);
	if ((list = run_resume_hosts(ra->opts.resume, &cause)) == NULL) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (-1);
	}
	/* The record's names pick hosts of the user's inventory only. */
	ra->opts.hosts = args_hosts_named(ra->inv, list, &ra->opts.nhosts,
	    &cause);
	free(list);
	if (cause == NULL && run_resume_workdirs(ra->opts.resume,
	    ra->opts.hosts, ra->opts.nhosts, &cause) == 0)
		return (0);
	fprintf(stderr, "orch: %s\n", cause);
	free(cause);
	free(ra->opts.hosts);
	ra->opts.hosts = NULL;
	return (-1);
}

/*
 * Takes the commands after -- as a one-line run's suite, or the one suite
 * file. Returns 0, or -1 having said why.
 */
static int
cmd_run_suite(struct cmd_run_args *ra, int argc, char **argv)
{
	char	*cause = NULL;
	int	 dd = ra->dd;

	if (dd < argc) {
		if (optind != dd)
			usage_error("run", "a one-line run takes no suite file "
			    "('%s'): the commands go after --", argv[optind]);
		if (oneline_suite_opts((const char *const *)(argv + dd + 1),
		    (size_t)(argc - dd - 1), ra->names, ra->nnames, &ra->oo,
		    &ra->text, &cause) != 0) {
			fprintf(stderr, "orch: %s\n", cause);
			free(cause);
			return (-1);
		}
		ra->opts.suite = ONELINE_LABEL;
		ra->opts.suite_text = ra->text;
		return (0);
	}
	if (ra->nnames > 0)
		usage_error("run", "-n names the commands of a one-line run: "
		    "give them after --");
	if (ra->oo.prepare != NULL || ra->oo.nparams > 0)
		usage_error("run", "%s is for a one-line run (its commands "
		    "after --); a suite says prepare = and params = in its "
		    "[bench.NAME]", ra->oo.prepare != NULL ? "--prepare" :
		    "-L");
	if (optind == argc)
		usage_error("run", "run takes one suite file, got none");
	if (optind != argc - 1)
		usage_error("run", "run takes one suite file, got %d (%s, "
		    "%s%s)", argc - optind, argv[optind], argv[optind + 1],
		    argc - optind > 2 ? ", ..." : "");
	ra->opts.suite = argv[optind];
	return (0);
}

/* orch run [options] SUITE.ini | -- CMD... | --resume=DIR. */
static int
cmd_run_exec(struct cmd *self)
{
	struct usage_getopt	 g;
	struct cmd_run_args		 ra;
	int			 argc = self->argc, id, r;
	char			**argv = self->argv, *cmdline;
	char			 again[2 * PATH_MAX + 64], env[PATH_MAX + 64];

	memset(&ra, 0, sizeof ra);
	ra.opts.max_load = -1;
	/* After "--", commands: a one-line run (oneline.c). */
	for (ra.dd = 1; ra.dd < argc && strcmp(argv[ra.dd], "--") != 0;
	    ra.dd++)
		;
	args_init(&g, "run");
	while ((id = args_next(&g, ra.dd, argv)) != -1) {
		if (id == OPT_PREPARE || id == 'L') {
			if (cmd_run_oneline_opt(&ra, id, optarg, argv) != 0)
				return (2);
		} else if (cmd_run_option(&ra, id, optarg) != 0)
			return (2);
	}
	if (ra.opts.resume_foreign && ra.opts.resume == NULL)
		usage_error("run", "--resume-foreign goes with --resume=DIR");
	if (ra.opts.resume != NULL) {
		if (cmd_run_resume(&ra, argc, argv) != 0) {
			free(ra.opts.resume_suite);
			return (2);
		}
	} else if (cmd_run_suite(&ra, argc, argv) != 0)
		return (2);
	if (args_exports(&ra.exp, &ra.opts.exports) != 0) {
		free(ra.opts.resume_suite);
		free(ra.opts.hosts);
		free(ra.text);
		return (2);
	}
	if (ra.opts.resume == NULL)
		ra.opts.hosts = args_hosts(ra.inv, ra.hosts, &ra.opts.nhosts);
	if (machines_opt_check(ra.opts.hosts, ra.opts.nhosts) != 0) {
		free(ra.opts.resume_suite);
		free(ra.opts.hosts);
		free(ra.text);
		return (2);
	}
	ra.opts.labels = ra.labels;
	ra.opts.inventory = ra.inv;
	args_again(ra.inv, ra.sshcfg, again, sizeof again);
	args_again_env(ra.opts.hosts, ra.opts.nhosts, env, sizeof env);
	ra.opts.again = again;
	ra.opts.again_env = env;
	/* Quoted: a one-line run's commands are words with blanks. */
	cmdline = oneline_cmdline(self->all_argc, self->all_argv);
	ra.opts.cmdline = cmdline;
	r = run_main(&ra.opts);
	free(ra.opts.resume_suite);
	free(ra.opts.hosts);
	free(cmdline);
	free(ra.text);
	for (id = 0; id < ONELINE_PARAMS_MAX; id++)
		free(ra.pbuf[id]);
	return (r);
}
