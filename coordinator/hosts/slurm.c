/*
 * Slurm's command line, by argv (see slurm.h): each call is
 * `timeout -k 2 SECS CMD ...`, spawned here without a shell (login =
 * local) or run on the cluster's login host over SSH (slurm-login.c), its
 * stdout and stderr collected (at most SLURM_OUT_MAX each) until a
 * deadline of our own a little after timeout's; every field read back is
 * checked before use, wherever it ran.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/slurm-login.h"
#include "coordinator/hosts/slurm.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

#define SLURM_ARGV_MAX	96	/* words of one command */
#define SLURM_GRACE_MS	5000	/* our deadline after timeout's */

extern char **environ;

/* Set by slurm_stop_on: when it turns non-zero, a salloc is revoked. */
static const atomic_int	*slurm_stop;

/* A command's result: exit status (256: killed or timed out) and output. */
struct slurm_out {
	int	 status;
	char	 out[SLURM_OUT_MAX + 1];
	size_t	 outlen;
	char	 err[SLURM_OUT_MAX + 1];
	size_t	 errlen;
	char	 login[256];	/* where it ran: "" here, else the host */
	char	 last[512];	/* slurm_last's answer */
};

/* True when c's commands run on a login host, not here. */
static int
slurm_remote(const struct inventory_slurm *c)
{
	return (strcmp(c->login, "local") != 0);
}

/* Reads what fd has into buf (len of it used); returns read's result. */
static ssize_t
slurm_read(int fd, char *buf, size_t *len)
{
	char	 tmp[4096];
	ssize_t	 n;
	size_t	 k;

	if ((n = read(fd, tmp, sizeof tmp)) <= 0)
		return (n);
	k = (size_t)n;
	if (k > SLURM_OUT_MAX - *len)
		k = SLURM_OUT_MAX - *len;
	memcpy(buf + *len, tmp, k);
	*len += k;
	buf[*len] = '\0';
	return (n);
}

void
slurm_stop_on(const atomic_int *flag)
{
	slurm_stop = flag;
}

/*
 * Collects the child's two pipes until both close or the deadline; with
 * stoppable, a stop (slurm_stop_on) sends pid SIGTERM (timeout passes it
 * to salloc, which revokes its request) and waits on for what it says.
 */
static void
slurm_collect(int po, int pe, int64_t deadline, struct slurm_out *o,
    pid_t pid, int stoppable)
{
	struct pollfd	pfd[2];
	int		left, n, sent = 0;

	pfd[0].fd = po;
	pfd[1].fd = pe;
	pfd[0].events = pfd[1].events = POLLIN;
	while (pfd[0].fd != -1 || pfd[1].fd != -1) {
		if (stoppable && !sent && slurm_stop != NULL && *slurm_stop) {
			kill(pid, SIGTERM);
			sent = 1;
		}
		if ((left = (int)(deadline - util_now_ms())) <= 0)
			break;
		if (stoppable && left > 100)
			left = 100;
		if ((n = poll(pfd, 2, left)) < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (pfd[0].revents != 0 && slurm_read(po, o->out,
		    &o->outlen) <= 0)
			pfd[0].fd = -1;
		if (pfd[1].revents != 0 && slurm_read(pe, o->err,
		    &o->errlen) <= 0)
			pfd[1].fd = -1;
	}
}

/*
 * Runs av (timeout(1)'s words, then the Slurm command) on c's login host,
 * bounded there by timeout(1) and here by the same deadline as a local
 * command (see slurm_run_x).
 */
static int
slurm_run_login(const struct inventory_slurm *c, char *const av[],
    unsigned secs, struct slurm_out *o, int stoppable, char **cause)
{
	const char	*cmd = av[4];

	snprintf(o->login, sizeof o->login, "%s", c->login);
	if (slurm_login_run(c, av, cmd, (int)secs * 1000 + SLURM_GRACE_MS,
	    stoppable ? slurm_stop : NULL, o->out, sizeof o->out, o->err,
	    sizeof o->err, &o->status, cause) != 0)
		return (-1);
	o->outlen = strlen(o->out);
	o->errlen = strlen(o->err);
	if (o->status == 127 && o->outlen == 0 && strstr(o->err, cmd) !=
	    NULL) {
		xasprintf(cause, "cluster %s: login host %s: %s not found "
		    "there (Slurm's client commands, package slurm-client, "
		    "in the PATH of the login host's non-interactive shell)",
		    c->name, c->login, cmd);
		return (-1);
	}
	return (0);
}

/*
 * Runs argv (a NULL-terminated Slurm command) bounded by secs seconds.
 * Returns 0 with *o filled (o->status its exit status, 256 when killed
 * or timed out), or -1 with *cause when it could not be started.
 */
static int
slurm_run_x(const struct inventory_slurm *c, char *const argv[],
    unsigned secs, struct slurm_out *o, int stoppable, char **cause)
{
	posix_spawn_file_actions_t	 fa;
	char				*av[SLURM_ARGV_MAX + 6], bound[16];
	int64_t				 deadline;
	pid_t				 pid, w;
	size_t				 n = 0, i;
	int				 po[2], pe[2], e, st = 0;

	memset(o, 0, sizeof *o);
	snprintf(bound, sizeof bound, "%us", secs);
	av[n++] = (char *)(uintptr_t)"timeout";
	av[n++] = (char *)(uintptr_t)"-k";
	av[n++] = (char *)(uintptr_t)"2";
	av[n++] = bound;
	for (i = 0; argv[i] != NULL && i < SLURM_ARGV_MAX; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	if (slurm_remote(c))
		return (slurm_run_login(c, av, secs, o, stoppable, cause));
	if (pipe(po) == -1) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		return (-1);
	}
	if (pipe(pe) == -1) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		close(po[0]);
		close(po[1]);
		return (-1);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawn_file_actions_addclose(&fa, po[0]);
	posix_spawn_file_actions_addclose(&fa, pe[0]);
	e = posix_spawnp(&pid, av[0], &fa, NULL, av, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (e != 0) {
		close(po[0]);
		close(pe[0]);
		xasprintf(cause, "cannot run timeout %s: %s", argv[0],
		    strerror(e));
		return (-1);
	}
	deadline = util_now_ms() + (int64_t)secs * 1000 + SLURM_GRACE_MS;
	slurm_collect(po[0], pe[0], deadline, o, pid, stoppable);
	close(po[0]);
	close(pe[0]);
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 &&
	    util_now_ms() < deadline)
		poll(NULL, 0, 10);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		o->status = 256;
	} else
		o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 256;
	if (o->status == 127 && o->outlen == 0 && strstr(o->err, argv[0]) !=
	    NULL) {
		xasprintf(cause, "%s not found (Slurm's client commands: "
		    "package slurm-client)", argv[0]);
		return (-1);
	}
	return (0);
}

/* Runs argv bounded by secs seconds (see slurm_run_x). */
static int
slurm_run(const struct inventory_slurm *c, char *const argv[], unsigned secs,
    struct slurm_out *o, char **cause)
{
	return (slurm_run_x(c, argv, secs, o, 0, cause));
}

/* The last line of a command's stderr, for a message (at most 200 bytes). */
static const char *
slurm_last(struct slurm_out *o)
{
	char	*e = o->err, *nl;

	while (o->errlen > 0 && (o->err[o->errlen - 1] == '\n' ||
	    o->err[o->errlen - 1] == '\r'))
		o->err[--o->errlen] = '\0';
	if ((nl = strrchr(e, '\n')) != NULL)
		e = nl + 1;
	if (strlen(e) > 200)
		e[200] = '\0';
	for (nl = e; *nl != '\0'; nl++) {
		if (!isprint((unsigned char)*nl))
			*nl = '?';
	}
	if (*e == '\0')
		e = (char *)(uintptr_t)(o->status == 256 ?
		    "timed out, or killed" : "no message");
	if (o->login[0] == '\0')
		return (e);
	snprintf(o->last, sizeof o->last, "on login host %s: %s", o->login,
	    e);
	return (o->last);
}

/* Checks a name read back from Slurm (see slurm.h). */
int
slurm_word_ok(const char *s, const char *extra, size_t len)
{
	const char	*c;

	if (*s == '\0' || *s == '-' || strlen(s) >= len)
		return (0);
	for (c = s; *c != '\0'; c++) {
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' &&
		    *c != '-' && strchr(extra, *c) == NULL)
			return (0);
	}
	return (1);
}

/* Finds key=value in scontrol -o text (see slurm.h). */
int
slurm_field(const char *text, const char *key, char *out, size_t len)
{
	const char	*p, *v, *e;
	size_t		 k = strlen(key), n;
	int		 found = 0;

	for (p = text; (p = strstr(p, key)) != NULL; p += k) {
		if ((p != text && p[-1] != ' ' && p[-1] != '\n') || p[k] != '=')
			continue;
		if (found++)
			return (-2);
		v = p + k + 1;
		for (e = v; *e != '\0' && *e != ' ' && *e != '\n'; e++)
			;
		if ((n = (size_t)(e - v)) >= len)
			return (-3);
		memcpy(out, v, n);
		out[n] = '\0';
	}
	return (found ? 0 : -1);
}

/* True when s is a job id as salloc prints one: 1-18 digits. */
static int
slurm_id_ok(const char *s)
{
	size_t	n = strspn(s, "0123456789");

	return (n > 0 && n <= 18 && s[n] == '\0');
}

/* True when s is a job as squeue prints one: an id, or ID+COMPONENT. */
static int
slurm_comp_ok(const char *s)
{
	size_t	n = strspn(s, "0123456789"), k;

	if (n == 0 || n > 18)
		return (0);
	if (s[n] == '\0')
		return (1);
	k = strspn(s + n + 1, "0123456789");
	return (s[n] == '+' && k > 0 && k <= 4 && s[n + 1 + k] == '\0');
}

/* The job squeue -j and scancel take for job: its leader, or its id. */
static char *
slurm_leader(const struct slurm_job *job)
{
	return ((char *)(uintptr_t)(job->leader[0] != '\0' ? job->leader :
	    job->id));
}

/*
 * Writes the user whose jobs are ours to user[len]: ours here, the login
 * host's user there. Returns 0, or -1 when unknown or not a plain name.
 */
static int
slurm_user(const struct inventory_slurm *c, char *user, size_t len)
{
	struct passwd	*pw;

	if (slurm_remote(c)) {
		if (slurm_login_user(c, user, len) != 0)
			return (-1);
	} else {
		if ((pw = getpwuid(getuid())) == NULL)
			return (-1);
		snprintf(user, len, "%s", pw->pw_name);
	}
	return (slurm_word_ok(user, "", len) ? 0 : -1);
}

/*
 * True when squeue lists no job called name of user (pending, running,
 * suspended or completing); false too when it cannot tell.
 */
static int
slurm_name_gone(const struct inventory_slurm *c, const char *name,
    char *user)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[11], *cause = NULL;
	int			 gone = 0;

	av[0] = (char *)(uintptr_t)"squeue";
	av[1] = (char *)(uintptr_t)"-h";
	av[2] = (char *)(uintptr_t)"-n";
	av[3] = (char *)(uintptr_t)name;
	av[4] = (char *)(uintptr_t)"-u";
	av[5] = user;
	av[6] = (char *)(uintptr_t)"-t";
	av[7] = (char *)(uintptr_t)"pending,running,suspended,completing";
	av[8] = (char *)(uintptr_t)"-o";
	av[9] = (char *)(uintptr_t)"%i";
	av[10] = NULL;
	if (slurm_run(c, av, c->timeout_s, o, &cause) != 0)
		free(cause);
	else
		gone = o->status == 0 && o->outlen == 0;
	free(o);
	return (gone);
}

/*
 * Cancels every job called name (after a failed allocation). On a login
 * host, a salloc whose channel was closed may still be submitting: its
 * job is looked for again, and cancelled, for the cluster's timeout.
 */
static void
slurm_cancel_name(const struct inventory_slurm *c, const char *name)
{
	struct slurm_out	*o;
	char			*av[6], *cause = NULL, user[64];
	int64_t			 end;

	/* Only our own jobs of that name: never another user's. */
	if (slurm_user(c, user, sizeof user) != 0)
		return;
	o = xmalloc(sizeof *o);
	av[0] = (char *)(uintptr_t)"scancel";
	av[1] = (char *)(uintptr_t)"-n";
	av[2] = (char *)(uintptr_t)name;
	av[3] = (char *)(uintptr_t)"-u";
	av[4] = user;
	av[5] = NULL;
	end = util_now_ms() + (int64_t)c->timeout_s * 1000;
	for (;;) {
		/* Not reached: nothing to cancel there, or nothing we can. */
		if (slurm_run(c, av, c->timeout_s, o, &cause) != 0) {
			free(cause);
			break;
		}
		if (!slurm_remote(c) || util_now_ms() >= end)
			break;
		/* Twice gone, a second apart: nothing was on its way. */
		if (slurm_name_gone(c, name, user)) {
			poll(NULL, 0, 1000);
			if (slurm_name_gone(c, name, user))
				break;
		}
		poll(NULL, 0, 200);
	}
	free(o);
}

/* Parses squeue's lines for job (see slurm.h). */
int
slurm_parse_job(char *text, struct slurm_job *job, char *state, size_t slen)
{
	char	*f[5], *s = text, *line, *p;
	size_t	 n, found = 0;

	while ((line = strsep(&s, "\n")) != NULL) {
		if (*line == '\0' && (s == NULL || *s == '\0'))
			break;
		for (n = 0, p = line; n < 5 && (f[n] = strsep(&p, "|")) !=
		    NULL; n++)
			;
		if (n != 4 || !slurm_comp_ok(f[0]) ||
		    !slurm_word_ok(f[1], "", sizeof job->node) ||
		    !slurm_word_ok(f[2], "", sizeof job->partition) ||
		    !slurm_word_ok(f[3], "", slen))
			goto bad;
		if (strcmp(f[0], job->id) != 0)
			continue;
		if (found++)
			goto bad;
		snprintf(job->node, sizeof job->node, "%s", f[1]);
		snprintf(job->partition, sizeof job->partition, "%s", f[2]);
		snprintf(state, slen, "%s", f[3]);
	}
	if (found == 1)
		return (0);
bad:
	job->node[0] = job->partition[0] = '\0';
	return (-1);
}

/* Reads job's node and partition back from squeue (see slurm.h). */
int
slurm_read_job(const struct inventory_slurm *c, const char *host,
    struct slurm_job *job, char **cause)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[7], state[32];
	int			 r = -1;

	av[0] = (char *)(uintptr_t)"squeue";
	av[1] = (char *)(uintptr_t)"-h";
	av[2] = (char *)(uintptr_t)"-j";
	/* squeue -j of a component lists them all: ours is picked. */
	av[3] = slurm_leader(job);
	av[4] = (char *)(uintptr_t)"-o";
	av[5] = (char *)(uintptr_t)"%i|%N|%P|%T";
	av[6] = NULL;
	if (!slurm_comp_ok(job->id) || !slurm_id_ok(av[3])) {
		xasprintf(cause, "%s: bad job id '%.32s'", host, job->id);
		goto out;
	}
	if (slurm_run(c, av, c->timeout_s, o, cause) != 0)
		goto out;
	if (o->status != 0 && strstr(o->err, "Invalid job id") != NULL) {
		xasprintf(cause, "%s: job %s: Slurm no longer knows it (its "
		    "allocation ended)", host, job->id);
		goto out;
	}
	if (o->status != 0) {
		xasprintf(cause, "%s: squeue -j %s: %s", host, job->id,
		    slurm_last(o));
		goto out;
	}
	if (o->outlen == 0) {
		xasprintf(cause, "%s: job %s: Slurm no longer lists it (its "
		    "allocation ended)", host, job->id);
		goto out;
	}
	if (slurm_parse_job(o->out, job, state, sizeof state) != 0) {
		xasprintf(cause, "%s: squeue -j %s: unexpected output (want "
		    "one line ID|NODE|PARTITION|STATE)", host, job->id);
		goto out;
	}
	if (strcmp(state, "RUNNING") != 0) {
		xasprintf(cause, "%s: job %s is %s, not RUNNING (its "
		    "allocation ended)", host, job->id, state);
		goto out;
	}
	r = 0;
out:
	free(o);
	return (r);
}

/* True when s is a node's address: a host name, IPv4 or IPv6. */
int
slurm_addr_ok(const char *s, size_t len)
{
	return (slurm_word_ok(s, ":", len) && s[0] != '.' &&
	    strstr(s, "..") == NULL);
}

/* Reads NodeAddr of node from scontrol's line (see slurm.h). */
int
slurm_parse_node_addr(const char *text, const char *node, char *addr,
    size_t len)
{
	char	name[64];

	if (slurm_field(text, "NodeName", name, sizeof name) != 0 ||
	    strcmp(name, node) != 0 ||
	    slurm_field(text, "NodeAddr", addr, len) != 0 ||
	    !slurm_addr_ok(addr, len)) {
		if (len > 0)
			addr[0] = '\0';
		return (-1);
	}
	return (0);
}

/* Copies the digits of field key into *v; leaves it 0 otherwise. */
static void
slurm_field_num(const char *text, const char *key, uint64_t *v)
{
	char	b[24];
	size_t	n;

	*v = 0;
	if (slurm_field(text, key, b, sizeof b) != 0)
		return;
	n = strspn(b, "0123456789");
	if (n > 0 && n <= 15 && b[n] == '\0')
		*v = strtoull(b, NULL, 10);
}

/* Reads a node's facts from scontrol's text (see slurm.h). */
void
slurm_parse_node_facts(const char *text, struct slurm_node_facts *f)
{
	uint64_t	v;

	memset(f, 0, sizeof *f);
	slurm_field_num(text, "CPUTot", &v);
	f->cpus = v <= UINT32_MAX ? (uint32_t)v : 0;
	slurm_field_num(text, "RealMemory", &f->mem_mb);
	if (slurm_field(text, "Arch", f->arch, sizeof f->arch) != 0 ||
	    !slurm_word_ok(f->arch, "", sizeof f->arch))
		f->arch[0] = '\0';
	if (slurm_field(text, "AvailableFeatures", f->features,
	    sizeof f->features) != 0 || !slurm_word_ok(f->features, ",",
	    sizeof f->features))
		f->features[0] = '\0';
}

/* The address SSH reaches node at (see slurm.h). */
int
slurm_node_addr(const struct inventory_slurm *c, const char *host,
    const char *node, char *addr, size_t len, struct slurm_node_facts *f,
    char **cause)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[6];
	int			 r = -1;

	av[0] = (char *)(uintptr_t)"scontrol";
	av[1] = (char *)(uintptr_t)"show";
	av[2] = (char *)(uintptr_t)"node";
	av[3] = (char *)(uintptr_t)"-o";
	av[4] = (char *)(uintptr_t)node;
	av[5] = NULL;
	if (!slurm_word_ok(node, "", 64)) {
		xasprintf(cause, "%s: bad node name", host);
		goto out;
	}
	if (slurm_run(c, av, c->timeout_s, o, cause) != 0)
		goto out;
	if (o->status != 0) {
		xasprintf(cause, "%s: scontrol show node %s: %s", host, node,
		    slurm_last(o));
		goto out;
	}
	if (strchr(o->out, '\n') != NULL && strchr(o->out, '\n')[1] != '\0') {
		xasprintf(cause, "%s: scontrol show node %s: more than one "
		    "line", host, node);
		goto out;
	}
	if (slurm_parse_node_addr(o->out, node, addr, len) != 0) {
		xasprintf(cause, "%s: scontrol show node %s: no valid NodeAddr "
		    "(want NodeName=%s and one NodeAddr of A-Z a-z 0-9 . - :)",
		    host, node, node);
		goto out;
	}
	if (f != NULL)
		slurm_parse_node_facts(o->out, f);
	r = 0;
out:
	free(o);
	return (r);
}

/* The default workdir of a Slurm host on node (see slurm.h). */
void
slurm_workdir(char *buf, size_t len, const char *node)
{
	snprintf(buf, len, "~/.orch/node-%s", node);
}

/* Appends opt=value to av (kept in owned) unless value is NULL or "". */
static void
slurm_opt(char **av, size_t *n, char **owned, size_t *nown, const char *opt,
    const char *value)
{
	if (value == NULL || *value == '\0')
		return;
	xasprintf(&owned[*nown], "%s=%s", opt, value);
	av[(*n)++] = owned[(*nown)++];
}

/* Appends a component's words: one whole node of its partition. */
static void
slurm_component(char **av, size_t *n, char **own, size_t *nown,
    const struct inventory_slurm_node *node)
{
	av[(*n)++] = (char *)(uintptr_t)"-N1";
	av[(*n)++] = (char *)(uintptr_t)"--exclusive";
	av[(*n)++] = (char *)(uintptr_t)"--mem=0";
	slurm_opt(av, n, own, nown, "--partition", node->partition);
	slurm_opt(av, n, own, nown, "--constraint", node->constraint);
	slurm_opt(av, n, own, nown, "--nodelist", node->nodelist);
}

/*
 * Builds salloc's argv for nodes[n] (one component each, ':' between)
 * into av (words owned by own[]): the job's options go with the first
 * component, where salloc takes them for the whole job. Returns the
 * number of words, or 0 when they would not fit SLURM_ARGV_MAX.
 */
static size_t
slurm_salloc_argv(const struct inventory_slurm_node *nodes, size_t nn,
    const char *name, const char *comment, char **av, char **own,
    size_t *nown)
{
	const struct inventory_slurm	*c = nodes[0].cluster;
	char				 lim[32];
	size_t				 n = 0, i;

	/* Each component is at most 7 words with its ':'. */
	if (10 + c->nargs + 7 * nn > SLURM_ARGV_MAX)
		return (0);
	/* Slurm's limits are minutes; "H:MM:SS" rounds up to the next. */
	snprintf(lim, sizeof lim, "%u:%02u:%02u", c->time_s / 3600,
	    c->time_s / 60 % 60, c->time_s % 60);
	av[n++] = (char *)(uintptr_t)"salloc";
	av[n++] = (char *)(uintptr_t)"--no-shell";
	slurm_opt(av, &n, own, nown, "--job-name", name);
	slurm_opt(av, &n, own, nown, "--comment", comment);
	slurm_opt(av, &n, own, nown, "--time", lim);
	slurm_opt(av, &n, own, nown, "--account", c->account);
	slurm_opt(av, &n, own, nown, "--qos", c->qos);
	xasprintf(&own[*nown], "--immediate=%u", c->wait_s);
	av[n++] = own[(*nown)++];
	for (i = 0; i < c->nargs; i++)
		av[n++] = c->args[i];
	for (i = 0; i < nn; i++) {
		if (i > 0)
			av[n++] = (char *)(uintptr_t)":";
		slurm_component(av, &n, own, nown, &nodes[i]);
	}
	av[n] = NULL;
	return (n);
}

/*
 * Returns the start of the line of salloc's error that says the cluster
 * takes no heterogeneous job, or NULL.
 */
static const char *
slurm_het_line(const char *err)
{
	static const char *const words[] = { "eterogeneous", "HetJob",
	    "hetjob" };
	const char	*at = NULL, *w;
	size_t		 i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if ((w = strstr(err, words[i])) != NULL && (at == NULL ||
		    w < at))
			at = w;
	}
	if (at == NULL)
		return (NULL);
	while (at > err && at[-1] != '\n')
		at--;
	return (at);
}

/* True when salloc's error says the cluster takes no heterogeneous job. */
int
slurm_het_refused(const char *err)
{
	return (slurm_het_line(err) != NULL);
}

/* Reads salloc's "Granted job allocation ID" into id[len]; 0 or -1. */
static int
slurm_granted(const char *err, char *id, size_t len)
{
	const char	*g = strstr(err, "Granted job allocation ");
	size_t		 i;

	if (g == NULL)
		return (-1);
	g += strlen("Granted job allocation ");
	i = strspn(g, "0123456789");
	if (i == 0 || i >= len || i > 18 || (g[i] != '\n' && g[i] != '\0'))
		return (-1);
	memcpy(id, g, i);
	id[i] = '\0';
	return (0);
}

/*
 * Allocates one job of nn components (see slurm.h); *busy (NULL: not
 * asked) is set when salloc queued the request and gave up at its bound:
 * no node was free.
 */
static int
slurm_alloc_x(const struct inventory_slurm_node *nodes,
    const char *const *hosts, size_t nn, const char *name,
    const char *comment, struct slurm_job *jobs, int *refused, int *busy,
    char **cause)
{
	const struct inventory_slurm	*c = nodes[0].cluster;
	struct slurm_out		*o = NULL;
	char				*av[SLURM_ARGV_MAX + 1];
	char				*own[SLURM_ARGV_MAX], leader[32], *nl;
	const char			*het;
	size_t				 nown = 0, i;
	int				 r = -1;

	*refused = 0;
	memset(jobs, 0, nn * sizeof *jobs);
	if (c == NULL) {
		xasprintf(cause, "%s: no Slurm cluster", hosts[0]);
		return (-1);
	}
	if (!slurm_word_ok(name, "", sizeof jobs->name)) {
		xasprintf(cause, "%s: bad job name '%s'", hosts[0], name);
		return (-1);
	}
	if (slurm_salloc_argv(nodes, nn, name, comment, av, own,
	    &nown) == 0) {
		*refused = 1;
		xasprintf(cause, "%s: %zu components do not fit one salloc",
		    hosts[0], nn);
		return (-1);
	}
	o = xmalloc(sizeof *o);
	if (slurm_run_x(c, av, c->wait_s + c->timeout_s, o, 1, cause) != 0)
		goto fail;
	if (o->status != 0 && slurm_stop != NULL && *slurm_stop) {
		xasprintf(cause, "%s: interrupted while waiting in the queue: "
		    "the request is revoked", hosts[0]);
		goto fail;
	}
	if (o->status != 0 || slurm_granted(o->err, leader,
	    sizeof leader) != 0) {
		if (busy != NULL)
			*busy = o->status != 0 && strstr(o->err,
			    "queued and waiting for resources") != NULL;
		if (nn > 1 && (het = slurm_het_line(o->err)) != NULL) {
			*refused = 1;
			/*
			 * Its words, not the line after them ("Job
			 * submit/allocate failed: Unspecified error").
			 */
			if ((nl = strchr(het, '\n')) != NULL) {
				o->errlen = (size_t)(nl - o->err);
				o->err[o->errlen] = '\0';
			}
		}
		if (nn > 1)
			xasprintf(cause, "%s: salloc of %zu components (-p %s "
			    "...): %s", hosts[0], nn, nodes[0].partition,
			    slurm_last(o));
		else
			xasprintf(cause, "%s: salloc -p %s: %s", hosts[0],
			    nodes[0].partition, slurm_last(o));
		goto fail;
	}
	for (i = 0; i < nn; i++) {
		snprintf(jobs[i].name, sizeof jobs[i].name, "%s", name);
		snprintf(jobs[i].leader, sizeof jobs[i].leader, "%s", leader);
		jobs[i].component = (uint32_t)i;
		/* A job of one component is a plain job: no "+0". */
		if (nn == 1)
			snprintf(jobs[i].id, sizeof jobs[i].id, "%s", leader);
		else
			snprintf(jobs[i].id, sizeof jobs[i].id, "%s+%zu",
			    leader, i);
		if (slurm_read_job(c, hosts[i], &jobs[i], cause) != 0)
			goto fail;
	}
	r = 0;
	goto out;
fail:
	slurm_cancel_name(c, name);
out:
	for (i = 0; i < nown; i++)
		free(own[i]);
	free(o);
	return (r);
}

/* Allocates one job of nn components (see slurm.h). */
int
slurm_alloc_het(const struct inventory_slurm_node *nodes,
    const char *const *hosts, size_t nn, const char *name,
    const char *comment, struct slurm_job *jobs, int *refused, char **cause)
{
	return (slurm_alloc_x(nodes, hosts, nn, name, comment, jobs, refused,
	    NULL, cause));
}

/* Allocates one node for host (see slurm.h). */
int
slurm_alloc(const struct inventory_slurm_node *node, const char *host,
    const char *name, const char *comment, struct slurm_job *job,
    char **cause)
{
	int	refused;

	return (slurm_alloc_het(node, &host, 1, name, comment, job, &refused,
	    cause));
}

/* Allocates one node for host, telling a busy partition (see slurm.h). */
int
slurm_alloc_busy(const struct inventory_slurm_node *node, const char *host,
    const char *name, const char *comment, struct slurm_job *job, int *busy,
    char **cause)
{
	int	refused;

	*busy = 0;
	return (slurm_alloc_x(node, &host, 1, name, comment, job, &refused,
	    busy, cause));
}

/* Prints the OverSubscribe of partition p into out ("?" when unknown). */
static void
slurm_part_over(const struct inventory_slurm *c, const char *p, char *out,
    size_t len)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[6], *cause = NULL;

	snprintf(out, len, "?");
	av[0] = (char *)(uintptr_t)"scontrol";
	av[1] = (char *)(uintptr_t)"show";
	av[2] = (char *)(uintptr_t)"partition";
	av[3] = (char *)(uintptr_t)"-o";
	av[4] = (char *)(uintptr_t)p;
	av[5] = NULL;
	if (slurm_run(c, av, c->timeout_s, o, &cause) != 0)
		free(cause);
	else if (o->status != 0 || slurm_field(o->out, "OverSubscribe", out,
	    len) != 0 || !slurm_word_ok(out, ":", len))
		snprintf(out, len, "?");
	free(o);
}

/*
 * The other jobs running on job's node: 0 with *others set (none: 0), or
 * -1 with *cause.
 */
static int
slurm_node_jobs(const struct inventory_slurm *c, const char *host,
    const struct slurm_job *job, size_t *others, char **cause)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[9], *s, *line;
	int			 r = -1;

	*others = 0;
	av[0] = (char *)(uintptr_t)"squeue";
	av[1] = (char *)(uintptr_t)"-h";
	av[2] = (char *)(uintptr_t)"-w";
	av[3] = (char *)(uintptr_t)job->node;
	av[4] = (char *)(uintptr_t)"-t";
	av[5] = (char *)(uintptr_t)"running,suspended,completing";
	av[6] = (char *)(uintptr_t)"-o";
	av[7] = (char *)(uintptr_t)"%i";
	av[8] = NULL;
	if (slurm_run(c, av, c->timeout_s, o, cause) != 0)
		goto out;
	if (o->status != 0) {
		xasprintf(cause, "%s: squeue -w %s: %s", host, job->node,
		    slurm_last(o));
		goto out;
	}
	for (s = o->out; (line = strsep(&s, "\n")) != NULL;) {
		if (*line == '\0')
			continue;
		if (!slurm_comp_ok(line)) {
			xasprintf(cause, "%s: squeue -w %s: unexpected output",
			    host, job->node);
			goto out;
		}
		if (strcmp(line, job->id) != 0)
			(*others)++;
	}
	r = 0;
out:
	free(o);
	return (r);
}

/* Checks that job holds its node alone (see slurm.h). */
int
slurm_verify_exclusive(const struct inventory_slurm *c, const char *host,
    const struct slurm_job *job, char **cause)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[6], state[32], over[32], nodes[64];
	char			 part[32];
	size_t			 others = 0;
	int			 r = -1;

	av[0] = (char *)(uintptr_t)"scontrol";
	av[1] = (char *)(uintptr_t)"show";
	av[2] = (char *)(uintptr_t)"job";
	av[3] = (char *)(uintptr_t)"-o";
	av[4] = (char *)(uintptr_t)job->id;
	av[5] = NULL;
	if (slurm_run(c, av, c->timeout_s, o, cause) != 0)
		goto out;
	if (o->status != 0) {
		xasprintf(cause, "%s: scontrol show job %s: %s", host, job->id,
		    slurm_last(o));
		goto out;
	}
	if (slurm_field(o->out, "JobState", state, sizeof state) != 0 ||
	    slurm_field(o->out, "OverSubscribe", over, sizeof over) != 0 ||
	    slurm_field(o->out, "NodeList", nodes, sizeof nodes) != 0 ||
	    !slurm_word_ok(over, "", sizeof over)) {
		xasprintf(cause, "%s: scontrol show job %s: unexpected output "
		    "(want JobState, OverSubscribe and NodeList once each)",
		    host, job->id);
		goto out;
	}
	if (strcmp(state, "RUNNING") != 0 || strcmp(nodes, job->node) != 0) {
		xasprintf(cause, "%s: job %s is %s on '%s', not running on "
		    "node %s", host, job->id, slurm_word_ok(state, "", 32) ?
		    state : "?", slurm_word_ok(nodes, "", 64) ? nodes : "?",
		    job->node);
		goto out;
	}
	if (slurm_node_jobs(c, host, job, &others, cause) != 0)
		goto out;
	if (strcmp(over, "NO") != 0 || others > 0) {
		slurm_part_over(c, job->partition, part, sizeof part);
		xasprintf(cause, "%s: job %s on node %s is not exclusive "
		    "(OverSubscribe=%s, %zu other job%s on the node; "
		    "partition %s has OverSubscribe=%s)", host, job->id,
		    job->node, over, others, others == 1 ? "" : "s",
		    job->partition, part);
		goto out;
	}
	r = 0;
out:
	free(o);
	return (r);
}

/* True when squeue no longer lists job as pending, running or completing. */
static int
slurm_gone(const struct inventory_slurm *c, const struct slurm_job *job)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[9], *cause = NULL;
	int			 gone = 0;

	av[0] = (char *)(uintptr_t)"squeue";
	av[1] = (char *)(uintptr_t)"-h";
	av[2] = (char *)(uintptr_t)"-j";
	av[3] = slurm_leader(job);
	av[4] = (char *)(uintptr_t)"-t";
	av[5] = (char *)(uintptr_t)"pending,running,suspended,completing";
	av[6] = (char *)(uintptr_t)"-o";
	av[7] = (char *)(uintptr_t)"%i";
	av[8] = NULL;
	if (slurm_run(c, av, c->timeout_s, o, &cause) != 0)
		free(cause);
	else if (o->status == 0 && o->outlen == 0)
		gone = 1;
	else if (o->status != 0 && strstr(o->err, "Invalid job id") != NULL)
		gone = 1;	/* already purged */
	free(o);
	return (gone);
}

/* Cancels job and waits until it is gone (see slurm.h). */
int
slurm_release(const struct inventory_slurm *c, const char *host,
    const struct slurm_job *job, char **cause)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[3];
	int64_t			 end;
	int			 r = -1;

	/* The leader: a heterogeneous job goes back whole. */
	av[0] = (char *)(uintptr_t)"scancel";
	av[1] = slurm_leader(job);
	av[2] = NULL;
	if (!slurm_id_ok(av[1])) {
		xasprintf(cause, "%s: bad job id '%.32s'", host, av[1]);
		goto out;
	}
	if (slurm_run(c, av, c->timeout_s, o, cause) != 0)
		goto out;
	/* A job already gone (cancelled by name after a failure) is fine. */
	if (o->status != 0 && slurm_gone(c, job)) {
		r = 0;
		goto out;
	}
	if (o->status != 0) {
		xasprintf(cause, "%s: scancel %s: %s", host, av[1],
		    slurm_last(o));
		goto out;
	}
	end = util_now_ms() + (int64_t)c->timeout_s * 1000;
	while (!slurm_gone(c, job)) {
		if (util_now_ms() >= end) {
			xasprintf(cause, "%s: job %s still listed %u s after "
			    "scancel", host, av[1], c->timeout_s);
			goto out;
		}
		poll(NULL, 0, 100);
	}
	r = 0;
out:
	free(o);
	return (r);
}

/*
 * Appends sinfo's nodes of partition p to out[len] ("n1 idle, n4 mix"),
 * each line NODE|STATE of plain words, at most 8 named. Returns 0 or -1.
 */
static int
slurm_part_nodes(const struct inventory_slurm *c, const char *host,
    const char *p, char *out, size_t len, char **cause)
{
	struct slurm_out	*o = xmalloc(sizeof *o);
	char			*av[8], *s, *line, *bar;
	size_t			 n = 0, k;
	int			 r = -1;

	av[0] = (char *)(uintptr_t)"sinfo";
	av[1] = (char *)(uintptr_t)"-h";
	av[2] = (char *)(uintptr_t)"-N";
	av[3] = (char *)(uintptr_t)"-p";
	av[4] = (char *)(uintptr_t)p;
	av[5] = (char *)(uintptr_t)"-o";
	av[6] = (char *)(uintptr_t)"%N|%t";
	av[7] = NULL;
	if (slurm_run(c, av, c->timeout_s, o, cause) != 0)
		goto out;
	if (o->status != 0) {
		xasprintf(cause, "%s: sinfo -p %s: %s", host, p, slurm_last(o));
		goto out;
	}
	for (s = o->out; (line = strsep(&s, "\n")) != NULL;) {
		if (*line == '\0')
			continue;
		if ((bar = strchr(line, '|')) == NULL)
			goto bad;
		*bar++ = '\0';
		if (!slurm_word_ok(line, "", 64) ||
		    !slurm_word_ok(bar, "*~#!%@^+", 32))
			goto bad;
		k = strlen(out);
		if (n++ < 8)
			snprintf(out + k, len - k, "%s%s %s", n > 1 ? ", " :
			    "", line, bar);
	}
	k = strlen(out);
	if (n > 8)
		snprintf(out + k, len - k, " and %zu more", n - 8);
	else if (n == 0)
		snprintf(out + k, len - k, "none");
	r = 0;
	goto out;
bad:
	xasprintf(cause, "%s: sinfo -p %s: unexpected output (want NODE|STATE "
	    "lines)", host, p);
out:
	free(o);
	return (r);
}

/* What orch check says of a Slurm host's partition (see slurm.h). */
int
slurm_check(const struct inventory_slurm_node *node, const char *host,
    char *out, size_t len, int *exclusive, char **cause)
{
	const struct inventory_slurm	*c = node->cluster;
	struct slurm_out		*o = xmalloc(sizeof *o);
	char				*av[6], state[32], over[32];
	char				 login[400];
	size_t				 k;
	int				 r = -1;

	*exclusive = 0;
	out[0] = '\0';
	av[0] = (char *)(uintptr_t)"scontrol";
	av[1] = (char *)(uintptr_t)"show";
	av[2] = (char *)(uintptr_t)"partition";
	av[3] = (char *)(uintptr_t)"-o";
	av[4] = (char *)(uintptr_t)node->partition;
	av[5] = NULL;
	if (slurm_run(c, av, c->timeout_s, o, cause) != 0)
		goto out;
	if (o->status != 0) {
		xasprintf(cause, "%s: scontrol show partition %s: %s", host,
		    node->partition, slurm_last(o));
		goto out;
	}
	if (slurm_field(o->out, "State", state, sizeof state) != 0 ||
	    !slurm_word_ok(state, "", sizeof state) ||
	    slurm_field(o->out, "OverSubscribe", over, sizeof over) != 0 ||
	    !slurm_word_ok(over, ":", sizeof over)) {
		xasprintf(cause, "%s: scontrol show partition %s: unexpected "
		    "output (want State and OverSubscribe once each)", host,
		    node->partition);
		goto out;
	}
	/* FORCE puts --exclusive jobs together: orch run would refuse. */
	*exclusive = strncmp(over, "FORCE", 5) != 0;
	/* Where the commands ran: told when it is not here. */
	login[0] = '\0';
	if (slurm_remote(c)) {
		snprintf(login, sizeof login, ", login host ");
		k = strlen(login);
		slurm_login_describe(c, login + k, sizeof login - k);
	}
	snprintf(out, len, "partition %s of cluster %s%s: State=%s "
	    "OverSubscribe=%s; nodes: ", node->partition, c->name, login, state,
	    over);
	k = strlen(out);
	if (slurm_part_nodes(c, host, node->partition, out + k, len - k,
	    cause) != 0)
		goto out;
	r = 0;
out:
	free(o);
	return (r);
}
