/*
 * The login host of a Slurm cluster whose login is a host, not local
 * (docs/inventory.md, "Slurm"): the name resolves as any host a command
 * names does (the inventory, else ssh_config: user, identity, port, jump
 * hosts, known_hosts), one SSH session a cluster is opened when its first
 * command needs it and kept for the rest of the process, and every
 * command runs there by an exec of its argv, quoted word by word
 * (shell.h): the remote shell never sees an unquoted word.
 */
#ifndef COORDINATOR_SLURM_LOGIN_H
#define COORDINATOR_SLURM_LOGIN_H

#include <stdatomic.h>
#include <stddef.h>

#include "coordinator/hosts/inventory.h"

/*
 * Sets the inventory login hosts are looked up in: the command's
 * --inventory, or NULL for $ORCH_INVENTORY, else the default.
 */
void	slurm_login_inventory(const char *inventory);

/*
 * Runs argv (a whole command line, timeout(1) first) on c's login host,
 * at most timeout_ms, what; once *stop (NULL: never) turns non-zero the
 * channel is closed. Fills out[outlen] and err[errlen], NUL-terminated,
 * and *status: the exit status, 256 when timed out or stopped. Returns 0,
 * or -1 with *cause (caller frees) "cluster C: login host L: CMD: ..."
 * when the host cannot be resolved or reached, or its session broke.
 */
int	slurm_login_run(const struct inventory_slurm *c, char *const argv[],
	    const char *cmd, int timeout_ms, const atomic_int *stop,
	    char *out, size_t outlen, char *err, size_t errlen, int *status,
	    char **cause);

/*
 * Writes the user c's login host is logged in as (whose jobs scancel may
 * cancel) to user[len]. Returns 0, or -1 when it is not known yet.
 */
int	slurm_login_user(const struct inventory_slurm *c, char *user,
	    size_t len);

/*
 * Writes how c's login host is reached, "L (USER@ADDRESS port P)", to
 * out[len] ("L" alone before its first command).
 */
void	slurm_login_describe(const struct inventory_slurm *c, char *out,
	    size_t len);

/*
 * Returns err past a leading "NAME: " (ssh.c's messages name the host;
 * ours name it already), else err itself. Pure.
 */
const char *slurm_login_unnamed(const char *err, const char *name);

/* Closes every login host's session (the end of a command). */
void	slurm_login_close(void);

#endif
