/*
 * The command line's words: each command's synopsis and options, in two
 * tables (usage.c), from which `orch help`, `orch COMMAND --help`, every
 * usage error and the manual page (docs/orch.1) are all written.
 */
#ifndef COORDINATOR_USAGE_H
#define COORDINATOR_USAGE_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/*
 * What getopt_long returns for an option (the id of its row of the table):
 * its letter when it has a short spelling, else one of these, above any
 * char.
 */
enum usage_id {
	OPT_HOSTS = 0x100,
	OPT_INVENTORY,
	OPT_SSH_CONFIG,
	OPT_ACCEPT_NEW,
	OPT_ROUNDS,
	OPT_BUDGET,
	OPT_SEED,
	OPT_WARMUP,
	OPT_EXPORT_JSON,
	OPT_EXPORT_MD,
	OPT_EXPORT_CSV,
	OPT_LABEL,
	OPT_REPORTS,
	OPT_REBUILD,
	OPT_HOST,
	OPT_BENCH,
	OPT_METRIC,
	OPT_VARIANT,
	OPT_SINCE,
	OPT_OUT,
	OPT_MAX_LOAD,
	OPT_FAIL_ON,
	OPT_RESUME,
	OPT_RESUME_FOREIGN,
	OPT_MACHINE_REF,
	OPT_FORCE,
	OPT_FROM_SOURCE,
	OPT_PREPARE,
	OPT_ENV_PAD,
	OPT_CHECK,
	OPT_ALLOCATE
};

#define USAGE_GETOPT_MAX	32	/* rows of one command, and the end */

/* One command's options as getopt_long takes them, made from the table. */
struct usage_getopt {
	const char	*command;
	struct option	 longopts[USAGE_GETOPT_MAX];	/* a zero row ends */
	char		 names[USAGE_GETOPT_MAX][24];	/* longopts' names */
	char		 shortopts[2 * USAGE_GETOPT_MAX + 2]; /* ":vqhn:" */
	size_t		 n;
};

/* Returns 1 when name is one of orch's commands, else 0. */
int	usage_known(const char *name);

/*
 * Fills g with command's rows of the option table for getopt_long: each
 * long spelling with its id (enum usage_id, or its letter), and the
 * short options after a ':' (getopt_long then says ':' for a missing
 * value); -h, --help is there for every command, listed or not. Returns
 * 0, or -1 when command is unknown or its rows do not fit g.
 */
int	usage_getopt(const char *command, struct usage_getopt *g);

/* Writes the synopsis of every command and how to get more help. */
void	usage_all(FILE *f);

/*
 * Writes command's synopsis, what it does and only its own options.
 * Returns 0, or -1 when there is no such command.
 */
int	usage_command(FILE *f, const char *command);

/*
 * Says on stderr "orch COMMAND: WHY", then the command's synopsis and
 * where its options are explained, and exits 2 (bad usage, nothing ran).
 */
void	usage_error(const char *command, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3), noreturn));

/*
 * The usage error for what getopt_long (with an optstring starting with
 * ':') refused in argv, ch being what it returned ('?' or ':'): an
 * unknown option, a value missing or given to a flag. Names the option.
 */
void	usage_bad_option(const char *command, char **argv, int optind_,
	    int optopt_, int ch) __attribute__((noreturn));

/* Writes the manual page, orch(1), in roff (man(7)). */
void	usage_man(FILE *f);

#endif
