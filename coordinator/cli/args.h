/*
 * What the commands share in reading their words: getopt_long over rows
 * made from usage.c's table, the usage exits, numbers, gates, labels,
 * exports and the hosts of --hosts. Each says what is wrong on stderr;
 * those named "exits" exit 2 (bad usage or input, nothing ran), or 0 for
 * --help.
 */
#ifndef COORDINATOR_ARGS_H
#define COORDINATOR_ARGS_H

#include <stddef.h>

#include "coordinator/cli/usage.h"

struct host;
struct report_exports;

/* Fills g with command's options from the usage table. */
void	args_init(struct usage_getopt *g, const char *command);

/*
 * Returns the id of the next option of argv[0..argc) (enum usage_id, or
 * its letter), optarg its value; -1 after the last. Exits 0 with the
 * command's usage on stdout for --help, 2 with a usage error naming what
 * getopt_long refused.
 */
int	args_next(struct usage_getopt *g, int argc, char **argv);

/* Exits 2 with the list of commands on stderr. */
void	args_usage(void) __attribute__((noreturn));

/* Exits 0 with command's usage on stdout (orch COMMAND --help). */
void	args_help(const char *command) __attribute__((noreturn));

/*
 * Returns s as an unsigned decimal number at most max; exits 2 naming
 * opt when it is not one.
 */
unsigned long long args_u64(const char *opt, const char *s,
	    unsigned long long max);

/* Parses a --fail-on list into *mask. Returns 0, or -1 having said why. */
int	args_fail_on(const char *list, int *mask);

/*
 * Checks one --label KEY=VALUE and adds it to labels[*n] (LABELS_MAX).
 * Returns 0, or -1 having said why.
 */
int	args_label(char *arg, char **labels, size_t *n);

/*
 * Takes an option that picks the hosts, which run, check and deploy
 * share (--hosts, --inventory, --ssh-config, --accept-new-host-keys),
 * into *list and *inv or the SSH settings.
 */
void	args_reach(int id, const char *arg, const char **list,
	    const char **inv);

/* Takes the path of an --export-* option into e. */
void	args_export(int id, const char *path, struct report_exports *e);

/*
 * Checks the --export-* paths and points *out at e when one was given.
 * Returns 0, or -1 having said why.
 */
int	args_exports(const struct report_exports *e,
	    const struct report_exports **out);

/*
 * Returns the hosts list names (NULL: `local`), resolved against the
 * inventory inv (NULL: the default) and bound to their backends, *n of
 * them (caller frees); exits 2 with the file and line on bad input.
 */
struct host *args_hosts(const char *inv, const char *list, size_t *n);

/*
 * As args_hosts for the host names a run's record holds (comma
 * separated): only those the user's inventory (or ssh_config, with a
 * HostName) names by that very name are resolved; a group's name, `all`
 * or a name the inventory does not know is left out, each with why in
 * *unknown (caller frees; NULL when none). Returns NULL when none is
 * left (*n 0).
 */
struct host *args_hosts_named(const char *inv, const char *list, size_t *n,
	    char **unknown);

/*
 * Writes the options a run's printed resume, stop and status lines need
 * again to reach its hosts, " --inventory=PATH --ssh-config=PATH" (each
 * given one, absolute when it exists, shell-quoted; "" when none), into
 * out.
 */
void	args_again(const char *inv, const char *sshcfg, char *out,
	    size_t len);

/*
 * Writes what goes before "orch" in those lines: "ORCH_WORKDIR=VALUE "
 * (quoted) when it is set and hosts include `local`, whose workdir it is;
 * else "".
 */
void	args_again_env(const struct host *hosts, size_t n, char *out,
	    size_t len);

/*
 * orch deploy's options: parses them and returns the hosts as args_hosts
 * does; *force as deploy_main takes it. args_deploy_inventory: the
 * --inventory the last args_deploy was given, or NULL.
 */
struct host *args_deploy(int argc, char **argv, size_t *n, int *force);
const char	*args_deploy_inventory(void);

#endif
