/*
 * The command line's words, in two tables: the commands, and the options
 * with the commands that take each. An option is one row of usage_opts;
 * `orch help`, `orch COMMAND --help`, the usage errors and the manual page
 * (docs/orch.1, `orch help --man`) are all written from them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/cli/usage.h"
#include "proto/version.h"

struct usage_cmd {
	const char	*name;
	const char	*synopsis;	/* after "orch NAME"; '\n' between
					   forms */
	const char	*summary;	/* one line, for the list of commands */
	const char	*text;		/* what it does, for its own help */
};

struct usage_opt {
	const char	*commands;	/* the commands taking it, ' '
					   between */
	const char	*spelling;	/* "--hosts=LIST", "-v, --verbose" */
	int		 id;		/* getopt_long's value: its letter, or
					   an OPT_* (usage.h) */
	const char	*help;
};

static const struct usage_cmd usage_cmds[] = {
	{ "run", "[options] SUITE.ini\n"
	  "[options] [-n NAME]... -- 'CMD A' 'CMD B' ...\n"
	  "--resume=DIR [--resume-foreign] [--inventory=FILE] [SUITE.ini]",
	  "measure a suite's variants on every host at once",
	  "Runs SUITE.ini's variants interleaved on every host at once, "
	  "records every sample in DIR/samples.msgpack, writes the reports "
	  "and prints the answer: per architecture a headline, and per host "
	  "and benchmark the ratio of each variant to the reference, its 95% "
	  "interval and verdict. After --, each argument is a command to "
	  "compare instead (a one-line run, no suite file): split into words "
	  "as the shell would, run without a shell, the first one the "
	  "reference. With --resume=DIR, reconnects to the agents "
	  "of a run whose coordinator was lost and finishes it, in the "
	  "workdirs the inventory names; a run directory you did not start "
	  "(no DIR/run.mac made with your run key) is resumed only with "
	  "--resume-foreign." },
	{ "check", "[options]",
	  "say whether each host is ready to measure",
	  "Connects to each host (installing nothing) and prints a table: "
	  "reachable, host key, agent, facts, load, and READY: yes; would "
	  "wait (its load is above the load gate, so a run would wait for "
	  "it); run deploys (no agent or an outdated one, which orch run "
	  "installs by itself); NO (the line below it says why). Then each "
	  "host's facts and warnings. A Slurm host's partition is told "
	  "(its State, OverSubscribe and nodes), nothing allocated; with "
	  "--allocate, one of its nodes is held for seconds (never queued), "
	  "checked as any host, and given back: whether SSH to an allocated "
	  "node is allowed. Exits 3 when a host is NO." },
	{ "deploy", "[options]",
	  "install or update the agent on each host",
	  "Installs orch-agent on each host: a prebuilt agent when one "
	  "matches, else built there from the source tree. orch run deploys "
	  "by itself; deploy is for doing it ahead of time." },
	{ "status", "[--inventory=FILE] DIR",
	  "show each host's progress in the run in DIR",
	  "Asks each host of the run in DIR how far it got." },
	{ "stop", "[--inventory=FILE] DIR",
	  "stop the run in DIR on every host",
	  "Stops the agents of the run in DIR on every host; what they "
	  "measured stays in their journals." },
	{ "report", "[options] DIR",
	  "re-render every report file of DIR and print the answer",
	  "Writes samples.csv, summary.json, report.md, report.html and "
	  "answer.md of the run in DIR again from DIR/samples.msgpack alone "
	  "(byte for byte what the run wrote), and prints the answer." },
	{ "index", "[--reports=DIR] [--rebuild] [DIR...]",
	  "index runs into the history store",
	  "Indexes each run directory DIR into the history store "
	  "REPORTS/history.sqlite (REPORTS: --reports, else the runs' parent "
	  "directory), all or none; a run indexed again replaces its entry. "
	  "With --rebuild, every run under REPORTS (default reports). A run "
	  "indexes itself when it ends." },
	{ "history", "[options]",
	  "print each benchmark's series of runs and its change points",
	  "Prints, per host, benchmark and metric (the primary one unless "
	  "--metric), each run's labels, the ratio of each variant to the "
	  "reference with its interval and each variant's typical value; "
	  "then the runs where a series changed level, with the size of the "
	  "shift, its interval and the labels on both sides. Writes "
	  "history.html beside the store (or --out=FILE): one trend plot per "
	  "host and benchmark." },
	{ "compare", "[options] OLD NEW",
	  "compare two runs, or a baseline and a run",
	  "Compares each host, benchmark, primary metric and variant that "
	  "the runs OLD and NEW (run directories, or baselines' names) "
	  "both measured, as two independent samples: the ratio new / old "
	  "with its interval (Hodges-Lehmann, Mann-Whitney; 5% family-wise "
	  "over the comparison), per architecture; warns where the runs "
	  "differ in CPU, kernel, governor, boost, SMT, agent, files' "
	  "SHA-256, load or orch version. Writes compare.md, compare.html "
	  "and compare.json (into NEW unless --out) and prints the answer." },
	{ "baseline", "set NAME DIR\nlist\nrm NAME",
	  "name a run directory, for orch compare NAME DIR",
	  "set points the baseline NAME at the run in DIR (a symbolic link "
	  "reports/baselines/NAME), list prints every baseline and its run "
	  "directory, rm removes one." },
	{ "doc", "check FILE.md...\nrender [--check] FILE.md...",
	  "check or render the figures a document quotes from runs",
	  "Finds each mark <!-- orch RUN QUERY -->VALUE<!-- /orch --> of "
	  "the Markdown files (RUN a run directory or a baseline's name; "
	  "QUERY host=, bench=, variant=, metric=, arch=, group= and "
	  "field= or table=; docs/evidence.md) and computes its figure from "
	  "the run's record as report.md prints it. check exits 1 naming "
	  "FILE:LINE of each VALUE that differs, render rewrites them in "
	  "place (nothing outside the marks changes); a malformed mark, or "
	  "one naming what the run lacks, exits 2 with FILE:LINE." },
	{ "help", "[COMMAND]",
	  "show this help, or a command's",
	  "Prints the list of commands, or COMMAND's options; "
	  "`orch help --man` prints the manual page." },
	{ "version", "",
	  "print orch's version and its protocol's",
	  "Prints orch's version and the agent protocol's version "
	  "(also `orch --version`)." },
};

/*
 * One row per option: adding an option is adding a row. The getopt_long
 * rows are made from the same spelling (usage_getopt).
 */
static const struct usage_opt usage_opts[] = {
	{ "run check deploy", "--hosts=LIST", OPT_HOSTS,
	  "hosts and groups of the inventory, comma separated; `all` for "
	  "every host; `local` (the default) is this machine; any other name "
	  "is looked up in ssh_config with `ssh -G`" },
	{ "run check deploy status stop", "--inventory=FILE", OPT_INVENTORY,
	  "the inventory of hosts (default $ORCH_INVENTORY, else "
	  "inventory/hosts.ini)" },
	{ "run check deploy status stop", "--ssh-config=FILE", OPT_SSH_CONFIG,
	  "the ssh_config that names not in the inventory are looked up in "
	  "(default $ORCH_SSH_CONFIG, else ssh's own: ~/.ssh/config)" },
	{ "run check deploy", "--accept-new-host-keys", OPT_ACCEPT_NEW,
	  "add the key of a host not in ~/.ssh/known_hosts (never a changed "
	  "one)" },
	{ "run", "--rounds=N|auto", OPT_ROUNDS,
	  "measured rounds per host (default: the suite's; a one-line "
	  "run's: auto, blocks of 10, budget 30s); auto: each host stops "
	  "once its primary comparisons are decided, at the suite's "
	  "max_rounds, or at its budget" },
	{ "run", "--budget=DURATION", OPT_BUDGET,
	  "with rounds = auto, the time each host may measure (90s, 20m, 2h; "
	  "default: the suite's, else none)" },
	{ "run", "--seed=N", OPT_SEED,
	  "the seed of the order and the bootstrap (default: the suite's, "
	  "else random and recorded)" },
	{ "run", "--env-pad=N", OPT_ENV_PAD,
	  "pad each measured run's environment by 0 to N bytes, drawn from "
	  "the seed (ORCH_ENV_PAD); 0 turns it off (default: the suite's "
	  "env_pad, else 4096)" },
	{ "run", "--warmup=N", OPT_WARMUP,
	  "unmeasured runs of each variant first (default: the suite's)" },
	{ "run", "-n, --command-name=NAME", 'n',
	  "the name of a one-line run's next command (one per command, in "
	  "order; default: made from the command)" },
	{ "run", "--prepare=CMD", OPT_PREPARE,
	  "a one-line run's command run untimed before every run of every "
	  "command, warmups too (the suite's prepare hook)" },
	{ "run", "-L, --parameter-list=NAME V1,V2,...", 'L',
	  "a one-line run's sweep: {NAME} in the commands' arguments takes "
	  "each value in turn, one benchmark per value (the suite's params; "
	  "also NAME=V1,V2,...; repeatable)" },
	{ "run report", "--export-json=PATH", OPT_EXPORT_JSON,
	  "also write summary.json to PATH" },
	{ "run report", "--export-markdown=PATH", OPT_EXPORT_MD,
	  "also write report.md to PATH" },
	{ "run report", "--export-csv=PATH", OPT_EXPORT_CSV,
	  "also write samples.csv to PATH" },
	{ "run", "--label=KEY=VALUE", OPT_LABEL,
	  "a label of the run (release=v5, commit=abc123), kept in its record "
	  "and history; repeatable" },
	{ "index history", "--reports=DIR", OPT_REPORTS,
	  "the reports directory whose history.sqlite is used (index: default "
	  "the runs' parent; history: default reports)" },
	{ "index", "--rebuild", OPT_REBUILD,
	  "index every run directory under the reports directory" },
	{ "history", "--host=NAME", OPT_HOST,
	  "only this host" },
	{ "history", "--bench=NAME", OPT_BENCH,
	  "only this benchmark" },
	{ "history", "--metric=NAME", OPT_METRIC,
	  "this metric (default: each benchmark's primary one)" },
	{ "history", "--variant=NAME", OPT_VARIANT,
	  "only this variant's series" },
	{ "history", "--since=DATE", OPT_SINCE,
	  "only runs started on or after DATE (YYYY-MM-DD)" },
	{ "history", "--out=FILE", OPT_OUT,
	  "write the page there (default REPORTS/history.html)" },
	{ "history", "-q, --quiet", 'q',
	  "do not print the series (the page is written all the same)" },
	{ "run", "--out=DIR", OPT_OUT,
	  "write the run into DIR (default reports/RUN-ID, and reports/latest "
	  "points at it)" },
	{ "run", "--max-load=F", OPT_MAX_LOAD,
	  "wait while the 1-minute load per core is above F; 0 measures "
	  "anyway (default: the suite's)" },
	{ "compare", "--out=DIR", OPT_OUT,
	  "write compare.md, compare.html and compare.json into DIR (default: "
	  "NEW's directory)" },
	{ "compare", "--fail-on=LIST", OPT_FAIL_ON,
	  "exit 1 when a comparison's verdict trips the gate, one line each: "
	  "worse, invalid, inconclusive, or any (comma separated)" },
	{ "run report", "--fail-on=LIST", OPT_FAIL_ON,
	  "exit 1 when a primary comparison trips the gate, one line each "
	  "saying why; LIST is comma separated: worse, invalid (also a "
	  "variant retried in more than 10% of its runs on a host), "
	  "inconclusive, refuted (a claim of the suite), or any" },
	{ "run", "--resume=DIR", OPT_RESUME,
	  "reconnect to the unfinished run in DIR and finish it (its suite, "
	  "hosts, rounds and seed come from DIR)" },
	{ "run", "--resume-foreign", OPT_RESUME_FOREIGN,
	  "with --resume=DIR: resume a run that was not started by you here "
	  "(DIR/run.mac is not your key's); name the suite to run too, "
	  "unless the record's is an absolute path of yours outside DIR" },
	{ "run report", "--machine-reference=HOST", OPT_MACHINE_REF,
	  "the host the Machines section compares every other host with "
	  "(default: the run's first host)" },
	{ "run report compare", "-q, --quiet", 'q',
	  "do not print the answer (the files are written all the same)" },
	{ "doc", "--check", OPT_CHECK,
	  "with render: check only, as `orch doc check` (write nothing)" },
	{ "check", "--allocate", OPT_ALLOCATE,
	  "hold one node of each Slurm host for seconds, as orch run would "
	  "(exclusive, never queued: a partition with no node free now is "
	  "not probed), try SSH and the agent there, then release it; "
	  "without it nothing is allocated" },
	{ "deploy", "--force", OPT_FORCE,
	  "push the agent even when the host has this version" },
	{ "deploy", "--from-source", OPT_FROM_SOURCE,
	  "build the agent on the host from the source tree, even when a "
	  "prebuilt one matches" },
	{ "run check deploy", "-v, --verbose", 'v',
	  "log every step, with times" },
	{ "run check deploy status stop report index history", "-h, --help",
	  'h',
	  "show this help" },
};

#define USAGE_NCMDS	(sizeof usage_cmds / sizeof usage_cmds[0])
#define USAGE_NOPTS	(sizeof usage_opts / sizeof usage_opts[0])
#define USAGE_WIDTH	79		/* columns of the terminal text */

/* Returns the row of command name, or NULL. */
static const struct usage_cmd *
usage_find(const char *name)
{
	size_t	i;

	for (i = 0; i < USAGE_NCMDS; i++) {
		if (strcmp(usage_cmds[i].name, name) == 0)
			return (&usage_cmds[i]);
	}
	return (NULL);
}

/* Returns 1 when the option row o is one of command's. */
static int
usage_takes(const struct usage_opt *o, const char *command)
{
	const char	*p = o->commands;
	size_t		 n = strlen(command), w;

	while (*p != '\0') {
		w = strcspn(p, " ");
		if (w == n && strncmp(p, command, n) == 0)
			return (1);
		p += w;
		p += strspn(p, " ");
	}
	return (0);
}

int
usage_known(const char *name)
{
	return (usage_find(name) != NULL);
}

/*
 * Adds one getopt_long row to g: name[0..len) (the long spelling), has_arg
 * and id, and the letter (0: none) to the short options. Returns 0, or -1
 * when it does not fit.
 */
static int
usage_getopt_add(struct usage_getopt *g, const char *name, size_t len,
    int has_arg, int id, int letter)
{
	struct option	*o = &g->longopts[g->n];
	size_t		 k = strlen(g->shortopts);

	if (g->n + 1 >= USAGE_GETOPT_MAX || len >= sizeof g->names[0] ||
	    k + 3 > sizeof g->shortopts)
		return (-1);
	memcpy(g->names[g->n], name, len);
	g->names[g->n][len] = '\0';
	o->name = g->names[g->n];
	o->has_arg = has_arg;
	o->flag = NULL;
	o->val = id;
	if (letter != 0) {
		g->shortopts[k++] = (char)letter;
		if (has_arg == required_argument)
			g->shortopts[k++] = ':';
		g->shortopts[k] = '\0';
	}
	g->n++;
	memset(&g->longopts[g->n], 0, sizeof g->longopts[g->n]);
	return (0);
}

int
usage_getopt(const char *command, struct usage_getopt *g)
{
	const struct usage_opt	*o;
	const char		*p;
	size_t			 i, w;
	int			 letter, help = 0;

	memset(g, 0, sizeof *g);
	g->command = command;
	g->shortopts[0] = ':';
	if (usage_find(command) == NULL)
		return (-1);
	for (i = 0; i < USAGE_NOPTS; i++) {
		o = &usage_opts[i];
		if (!usage_takes(o, command))
			continue;
		/* "-v, --verbose" or "--hosts=LIST": the letter, the name. */
		p = o->spelling;
		letter = 0;
		if (p[0] == '-' && p[1] != '-') {
			letter = p[1];
			p += strcspn(p, " ") + 1;
		}
		if (strncmp(p, "--", 2) != 0)
			return (-1);
		p += 2;
		w = strcspn(p, "=");
		if (usage_getopt_add(g, p, w, p[w] == '=' ? required_argument :
		    no_argument, o->id, letter) != 0)
			return (-1);
		if (o->id == 'h')
			help = 1;
	}
	/* Every command takes --help, listed in its usage or not. */
	if (!help && usage_getopt_add(g, "help", 4, no_argument, 'h',
	    'h') != 0)
		return (-1);
	return (0);
}

/*
 * Writes text from column col, wrapped at USAGE_WIDTH on blanks; each
 * continuation line is indented by indent. Never cuts inside a word.
 */
static void
usage_wrap(FILE *f, const char *text, size_t col, size_t indent)
{
	const char	*p = text;
	size_t		 w;

	while (*p != '\0') {
		w = strcspn(p, " ");
		if (col > indent && col + 1 + w > USAGE_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (p != text) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += w;
		p += w;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

/* Writes each form of c's synopsis, the first after lead. */
static void
usage_synopsis(FILE *f, const struct usage_cmd *c, const char *lead)
{
	const char	*p = c->synopsis;
	size_t		 w;
	int		 first = 1;

	do {
		w = strcspn(p, "\n");
		fprintf(f, "%*s orch %s%s%.*s\n", (int)strlen(lead),
		    first ? lead : "", c->name, w > 0 ? " " : "", (int)w, p);
		first = 0;
		p += w;
	} while (*p++ != '\0');
}

void
usage_all(FILE *f)
{
	size_t	i;

	fputs("usage: orch COMMAND [options] [arguments]\n\ncommands:\n", f);
	for (i = 0; i < USAGE_NCMDS; i++)
		fprintf(f, "  %-8s %s\n", usage_cmds[i].name,
		    usage_cmds[i].summary);
	fputs("\n`orch help COMMAND` or `orch COMMAND --help` shows a "
	    "command's options;\n`man orch` (docs/orch.1) has them all. Exit "
	    "codes: 0 done, 1 a --fail-on\ngate tripped, 2 bad usage or "
	    "input (nothing ran), 3 a host or a run failed.\n", f);
}

int
usage_command(FILE *f, const char *command)
{
	const struct usage_cmd	*c;
	const struct usage_opt	*o;
	size_t			 i, width = 0;

	if ((c = usage_find(command)) == NULL)
		return (-1);
	usage_synopsis(f, c, "usage:");
	fputc('\n', f);
	usage_wrap(f, c->text, 0, 0);
	for (i = 0; i < USAGE_NOPTS; i++) {
		if (usage_takes(&usage_opts[i], command) &&
		    strlen(usage_opts[i].spelling) > width)
			width = strlen(usage_opts[i].spelling);
	}
	if (width == 0)
		return (0);
	fputs("\noptions:\n", f);
	for (i = 0; i < USAGE_NOPTS; i++) {
		o = &usage_opts[i];
		if (!usage_takes(o, command))
			continue;
		fprintf(f, "  %-*s  ", (int)width, o->spelling);
		usage_wrap(f, o->help, width + 4, width + 4);
	}
	return (0);
}

void
usage_error(const char *command, const char *fmt, ...)
{
	const struct usage_cmd	*c;
	va_list			 ap;

	fprintf(stderr, "orch %s: ", command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if ((c = usage_find(command)) != NULL) {
		usage_synopsis(stderr, c, "usage:");
		fprintf(stderr, "(orch %s --help explains each option)\n",
		    command);
	}
	exit(2);
}

/* Appends command word w[0..n) to out[outlen] unless it is there. */
static void
usage_owner_add(char *out, size_t outlen, const char *w, size_t n)
{
	const char	*p = out;
	size_t		 k;

	while (*p != '\0') {
		k = strcspn(p, ",");
		if (k == n && strncmp(p, w, n) == 0)
			return;
		p += k;
		p += strspn(p, ", ");
	}
	snprintf(out + strlen(out), outlen - strlen(out), "%s%.*s",
	    out[0] != '\0' ? ", " : "", (int)n, w);
}

/*
 * Writes the commands that take the long option name[0..len) to
 * out[outlen], ", " between ("deploy"; "run, check, deploy"). Returns 0
 * when none does.
 */
static int
usage_owners(const char *name, size_t len, char *out, size_t outlen)
{
	const struct usage_opt	*o;
	const char		*p, *c;
	size_t			 i, w;

	out[0] = '\0';
	for (i = 0; i < USAGE_NOPTS; i++) {
		o = &usage_opts[i];
		p = strstr(o->spelling, "--");
		if (p == NULL || strncmp(p + 2, name, len) != 0 ||
		    (p[2 + len] != '\0' && p[2 + len] != '='))
			continue;
		for (c = o->commands; *c != '\0'; c += w, c += strspn(c,
		    " ")) {
			w = strcspn(c, " ");
			usage_owner_add(out, outlen, c, w);
		}
	}
	return (out[0] != '\0');
}

void
usage_bad_option(const char *command, char **argv, int optind_, int optopt_,
    int ch)
{
	const char	*arg = argv[optind_ - 1];
	size_t		 n = strcspn(arg, "=");
	char		 owners[256];

	if (strncmp(arg, "--", 2) != 0) {
		/* A short option: getopt_long names it in optopt. */
		if (ch == ':')
			usage_error(command, "-%c needs a value", optopt_);
		usage_error(command, "-%c: unknown option", optopt_);
	}
	if (ch == ':')
		usage_error(command, "%s needs a value (%s=...)", arg, arg);
	/* getopt_long sets optopt to a known long option's value. */
	if (optopt_ != 0 && arg[n] == '=')
		usage_error(command, "%.*s takes no value", (int)n, arg);
	if (usage_owners(arg + 2, n - 2, owners, sizeof owners))
		usage_error(command, "%.*s is an option of %s", (int)n, arg,
		    owners);
	usage_error(command, "%.*s: unknown option", (int)n, arg);
}

/* Writes s for roff: backslashes and minus signs escaped. */
static void
usage_roff(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

/* The manual page's sections after the commands, as roff text. */
static const char *const usage_man_tail[] = {
	".SH EXIT STATUS",
	".TP", "0", "done",
	".TP", "1", "a \\-\\-fail\\-on gate tripped",
	".TP", "2", "bad usage or bad input: nothing ran, nothing was written",
	".TP", "3",
	"a host or a measured run failed (partial results are still written)",
	".SH ENVIRONMENT",
	".TP", "ORCH_INVENTORY",
	"the inventory when \\-\\-inventory is not given",
	".TP", "ORCH_AGENT", "the orch\\-agent to run on this machine",
	".TP", "ORCH_WORKDIR",
	"the local agent's work directory (default ~/.orch)",
	".TP", "ORCH_KNOWN_HOSTS",
	"the known_hosts file (default ~/.ssh/known_hosts)",
	".SH FILES",
	"A run writes reports/RUN\\-ID/ (or \\-\\-out=DIR): samples.msgpack, "
	"samples.csv, summary.json, report.md, report.html, answer.md and "
	"logs/; docs/output.md in the source describes each.",
	".SH SEE ALSO",
	"docs/suites.md, docs/inventory.md, docs/report.md, docs/output.md "
	"in orch's source.",
};

void
usage_man(FILE *f)
{
	const struct usage_cmd	*c;
	const char		*p;
	size_t			 i, j, w;

	fputs(".\\\" Generated by `orch help --man` from "
	    "coordinator/cli/usage.c; do not edit.\n", f);
	fprintf(f, ".TH ORCH 1 \"\" \"orch %s\" \"User Commands\"\n",
	    ORCH_VERSION);
	fputs(".SH NAME\norch \\- cross\\-machine A/B benchmark evidence\n"
	    ".SH SYNOPSIS\n.nf\n", f);
	for (i = 0; i < USAGE_NCMDS; i++) {
		c = &usage_cmds[i];
		p = c->synopsis;
		do {
			w = strcspn(p, "\n");
			fprintf(f, "\\fBorch %s\\fR", c->name);
			if (w > 0) {
				char	buf[256];

				snprintf(buf, sizeof buf, " %.*s", (int)w, p);
				usage_roff(f, buf);
			}
			fputc('\n', f);
			p += w;
		} while (*p++ != '\0');
	}
	fputs(".fi\n.SH DESCRIPTION\norch runs variants of a program "
	    "interleaved on several hosts at once and says, per architecture, "
	    "whether a variant is better, worse or the same as the reference, "
	    "by how much, and how sure that is.\n.SH COMMANDS\n", f);
	for (i = 0; i < USAGE_NCMDS; i++) {
		c = &usage_cmds[i];
		fprintf(f, ".SS %s\n", c->name);
		usage_roff(f, c->text);
		fputc('\n', f);
		for (j = 0; j < USAGE_NOPTS; j++) {
			if (!usage_takes(&usage_opts[j], c->name))
				continue;
			fputs(".TP\n\\fB", f);
			usage_roff(f, usage_opts[j].spelling);
			fputs("\\fR\n", f);
			usage_roff(f, usage_opts[j].help);
			fputc('\n', f);
		}
	}
	for (i = 0; i < sizeof usage_man_tail / sizeof usage_man_tail[0];
	    i++)
		fprintf(f, "%s\n", usage_man_tail[i]);
}
