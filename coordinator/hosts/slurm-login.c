/*
 * Slurm's commands on a cluster's login host (see slurm-login.h): one
 * session a cluster, found by (cluster, login) so that a cluster rebuilt
 * from a record (orch stop, --resume) finds it too. Each session has a
 * mutex held for a whole command (libssh2 sessions are not thread-safe,
 * and orch check asks about several hosts of one cluster at once); the
 * list has one of its own, taken after an entry's, never before.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hosts/host-backend.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/hosts.h"
#include "coordinator/hosts/slurm-login.h"
#include "coordinator/hosts/ssh.h"
#include "proto/xmalloc.h"

struct slurm_login {
	char		 cluster[64];
	char		 login[256];
	struct host	*hosts;		/* the login host, resolved; owned */
	struct ssh_target t;		/* points into hosts */
	struct ssh_target hops[HOST_HOPS_MAX];
	struct ssh	 ssh;
	int		 open;		/* ssh is a live session */
	pthread_mutex_t	 mtx;		/* held for a whole command */
	struct slurm_login *next;
};

static pthread_mutex_t	 sl_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct slurm_login *sl_list;
static char		*sl_inventory;	/* NULL: the default inventory */

void
slurm_login_inventory(const char *inventory)
{
	free(sl_inventory);
	sl_inventory = inventory != NULL ? xstrdup(inventory) : NULL;
}

const char *
slurm_login_unnamed(const char *err, const char *name)
{
	size_t	n = strlen(name);

	if (n > 0 && strncmp(err, name, n) == 0 && strncmp(err + n, ": ",
	    2) == 0)
		return (err + n + 2);
	return (err);
}

/* Finds (or adds) c's entry; it lives until slurm_login_close. */
static struct slurm_login *
sl_find(const struct inventory_slurm *c)
{
	struct slurm_login	*l;

	pthread_mutex_lock(&sl_mtx);
	for (l = sl_list; l != NULL; l = l->next) {
		if (strcmp(l->cluster, c->name) == 0 &&
		    strcmp(l->login, c->login) == 0)
			break;
	}
	if (l == NULL) {
		l = xcalloc(1, sizeof *l);
		snprintf(l->cluster, sizeof l->cluster, "%s", c->name);
		snprintf(l->login, sizeof l->login, "%s", c->login);
		l->ssh.sock = -1;
		pthread_mutex_init(&l->mtx, NULL);
		l->next = sl_list;
		sl_list = l;
	}
	pthread_mutex_unlock(&sl_mtx);
	return (l);
}

/*
 * Resolves l's login host as hosts_resolve does any host: one host, an
 * SSH one with an address (not a Slurm host, not a group). Returns 0, or
 * -1 with *cause.
 */
static int
sl_resolve(struct slurm_login *l, char **cause)
{
	struct host	*hosts = NULL;
	size_t		 n = 0;
	char		*why = NULL;
	int		 r;

	if (l->hosts != NULL)
		return (0);
	/* Made for a command's main thread: one resolution at a time. */
	pthread_mutex_lock(&sl_mtx);
	r = hosts_resolve(sl_inventory, l->login, &hosts, &n, &why);
	pthread_mutex_unlock(&sl_mtx);
	if (r != 0) {
		xasprintf(cause, "cluster %s: login host %s: %s", l->cluster,
		    l->login, why);
		free(why);
		return (-1);
	}
	if (n != 1 || hosts[0].ops != &host_ssh_ops ||
	    hosts[0].address[0] == '\0') {
		xasprintf(cause, "cluster %s: login host %s: %s", l->cluster,
		    l->login, n != 1 ? "names more than one host (want one "
		    "host, not a group)" : hosts[0].ops != &host_ssh_ops ?
		    "is this machine (write login = local)" : "has no address "
		    "(a Slurm host cannot be a login host)");
		free(hosts);
		return (-1);
	}
	l->hosts = hosts;
	host_ssh_target(&l->hosts[0], &l->t, l->hops);
	return (0);
}

/* Opens l's session unless it is open. Returns 0, or -1 with *cause. */
static int
sl_open(struct slurm_login *l, const char *cmd, char **cause)
{
	char	err[SSH_ERR_LEN];

	if (l->open)
		return (0);
	if (sl_resolve(l, cause) != 0)
		return (-1);
	if (ssh_open(&l->ssh, &l->t, err, sizeof err) != 0) {
		xasprintf(cause, "cluster %s: login host %s: %s: %s",
		    l->cluster, l->login, cmd, slurm_login_unnamed(err,
		    l->login));
		return (-1);
	}
	l->open = 1;
	return (0);
}

int
slurm_login_run(const struct inventory_slurm *c, char *const argv[],
    const char *cmd, int timeout_ms, const atomic_int *stop, char *out,
    size_t outlen, char *err, size_t errlen, int *status, char **cause)
{
	struct slurm_login	*l = sl_find(c);
	int			 r, fresh;

	out[0] = err[0] = '\0';
	*status = 256;
	pthread_mutex_lock(&l->mtx);
again:
	fresh = !l->open;
	if (sl_open(l, cmd, cause) != 0) {
		pthread_mutex_unlock(&l->mtx);
		return (-1);
	}
	r = ssh_run_stop(&l->ssh, argv, NULL, out, outlen, err, errlen,
	    timeout_ms, stop);
	/*
	 * A session kept idle through a long run may have been dropped on
	 * the way: a new one, once. Not for salloc (stop set), which must
	 * never be sent twice.
	 */
	if (r == -1 && !fresh && stop == NULL) {
		ssh_close(&l->ssh);
		l->open = 0;
		goto again;
	}
	if (r == -1) {
		/* The session is not to be trusted again: a new one next. */
		xasprintf(cause, "cluster %s: login host %s: %s: %s",
		    l->cluster, l->login, cmd, err);
		ssh_close(&l->ssh);
		l->open = 0;
		pthread_mutex_unlock(&l->mtx);
		return (-1);
	}
	if (r == -2)
		snprintf(err, errlen, "timed out after %d ms (on the login "
		    "host's channel)", timeout_ms);
	*status = r >= 0 ? r : 256;
	pthread_mutex_unlock(&l->mtx);
	return (0);
}

int
slurm_login_user(const struct inventory_slurm *c, char *user, size_t len)
{
	struct slurm_login	*l = sl_find(c);
	int			 r = -1;

	pthread_mutex_lock(&l->mtx);
	if (l->hosts != NULL && l->t.user != NULL && *l->t.user != '\0' &&
	    strlen(l->t.user) < len) {
		snprintf(user, len, "%s", l->t.user);
		r = 0;
	}
	pthread_mutex_unlock(&l->mtx);
	return (r);
}

void
slurm_login_describe(const struct inventory_slurm *c, char *out, size_t len)
{
	struct slurm_login	*l = sl_find(c);

	pthread_mutex_lock(&l->mtx);
	if (l->hosts != NULL)
		snprintf(out, len, "%s (%s@%s port %d%s%s)", l->login,
		    l->t.user, l->t.address, l->t.port, l->t.jump != NULL ?
		    " through " : "", l->t.jump != NULL ? l->t.jump->name : "");
	else
		snprintf(out, len, "%s", l->login);
	pthread_mutex_unlock(&l->mtx);
}

void
slurm_login_close(void)
{
	struct slurm_login	*l, *next;

	pthread_mutex_lock(&sl_mtx);
	for (l = sl_list; l != NULL; l = next) {
		next = l->next;
		if (l->open)
			ssh_close(&l->ssh);
		free(l->hosts);
		pthread_mutex_destroy(&l->mtx);
		free(l);
	}
	sl_list = NULL;
	pthread_mutex_unlock(&sl_mtx);
}
