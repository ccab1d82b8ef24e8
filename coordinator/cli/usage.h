/*
 * The command line's words: each command's synopsis and options, in two
 * tables (usage.c), from which `orch help`, `orch COMMAND --help`, every
 * usage error and the manual page (docs/orch.1) are all written.
 */
#ifndef COORDINATOR_USAGE_H
#define COORDINATOR_USAGE_H

#include <stdio.h>

/* Returns 1 when name is one of orch's commands, else 0. */
int	usage_known(const char *name);

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
