/*
 * The agent's session: key on stdin, sealed PAIR socket, handshake, then
 * QUERY / PLAN / BYE from the coordinator. Standard input stays open as the
 * lifeline: when it closes the coordinator is gone, and the agent kills the
 * benchmark it is running and exits.
 */
#include <sys/types.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "agent/cache.h"
#include "agent/exec.h"
#include "agent/facts.h"
#include "agent/hostprog.h"
#include "agent/journal.h"
#include "agent/proc.h"
#include "agent/serve.h"
#include "agent/workdir.h"
#include "proto/chan.h"
#include "proto/hash.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/util.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

extern char **environ;

#define SERVE_SEND_TIMEOUT	30000	/* ms to hand a message to the peer */
#define SERVE_SETTLE_MS		100	/* ms to wait for a sample's ACK */
#define SERVE_IDLE_TIMEOUT	3600000	/* ms without a message: give up */
#define SERVE_GONE		-2	/* serve_wait: the lifeline closed */
#define SERVE_WAIT_TELL		30000	/* ms between STATUS while waiting */
#define SERVE_STOP		-3	/* SIGTERM, SIGINT or BYE: stop now */
#define SERVE_VERSION_MS	5000	/* a host program's --version, at most */

/* A host program of the plan, resolved on this host. */
struct serve_prog {
	char			 name[PROTO_PROG_MAX];	/* as the plan says */
	struct cache_file	 f;			/* found, hashed, open */
	char			 version[PROTO_VERSION_LINE];
};

/* What became of a hook command in this session. */
enum serve_hook_state { HOOK_NOT_RUN, HOOK_OK, HOOK_FAILED };

static void	serve_spawned(long, void *);

/* Closed by the SIGTERM handler: its read end then polls as EOF. */
static int			serve_stop_pipe[2] = { -1, -1 };
static volatile sig_atomic_t	serve_stopped;

struct serve {
	const struct serve_opts	*opts;
	char			 workdir[PATH_MAX];
	char			 rundir[PATH_MAX];
	char			 sockpath[PATH_MAX];	/* our ipc socket, or "" */
	char			 sockdir[PATH_MAX];	/* its private dir, or "" */
	char			 run_id[64];
	struct chan		 chan;
	uint32_t		 seq;		/* next sample's seq */
	int64_t			 sent;		/* last seq sent this session, or -1 */
	int64_t			 acked;		/* highest seq acknowledged, or -1 */
	int			 bye;		/* BYE received */
	int			 lockfd;	/* WORKDIR/run.lock, held while a plan runs */
	struct cache		 cache;		/* WORKDIR/cache, and what it verified */
	char			 null_sha[PROTO_SHA_HEX];	/* orch-null in the cache, or "" */
	double			 self_load;	/* our own share of the load average */
	int64_t			 self_at;	/* when self_load was last brought up to date */
	int			 self_running;	/* a benchmark of ours runs now */
	const char		*counters;	/* the plan's, when the kernel allows */
	char			 ctrlist[128];	/* those the kernel accepted */
	const char		*pin;		/* the plan's, where the OS pins */
	int			 detached;	/* stdin closed: no coordinator */
	int			 journal;	/* WORKDIR/runs/ID/journal, append */
	int			 plan_done;	/* every step ran (or was refused) */
	uint32_t		 granted;	/* an open plan runs steps
						   [0, granted); 0: all */
	int			 final;		/* it ends at granted */
	uint32_t		 linger_ms;	/* the plan's */
	uint32_t		 cur_step;	/* what runs now, for the journal */
	uint32_t		 cur_attempt;
	struct serve_prog	*progs;		/* the plan's host programs */
	size_t			 nprogs;
	uint8_t			*hook_state;	/* per cmd: enum serve_hook_state */
	char			(*hook_why)[PROTO_TAIL_MAX];	/* per cmd */
	uint8_t			*cleanup_due;	/* per cmd: a cleanup to run */
	uint32_t		*cleanup_last;	/* per cmd: its last step */
	char			 hook_failed[256];	/* a cleanup failed */
	uint8_t			*cmd_ran;	/* per command: a step of it ended */
	uint8_t			*no_retry;	/* per command: its first step failed
						   every attempt: no more retries */
};

/*
 * Removes the sockets that agents killed before they could remove their
 * own left in the workdir (agent-PID.sock of a PID that is gone).
 */
static void
serve_sweep_sockets(const char *workdir)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[PATH_MAX], *end;
	long		 pid;

	if ((d = opendir(workdir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "agent-", 6) != 0)
			continue;
		pid = strtol(de->d_name + 6, &end, 10);
		if (end == de->d_name + 6 || strcmp(end, ".sock") != 0 ||
		    pid <= 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) == -1 && errno == ESRCH &&
		    snprintf(path, sizeof path, "%s/%s", workdir,
		    de->d_name) < (int)sizeof path && unlink(path) == 0)
			log_debug("removed %s, left by a lost agent", path);
	}
	closedir(d);
}

/*
 * Chooses our socket's path: in the workdir (0700, ours) when it can be
 * one there: a Unix socket's path is at most sizeof sun_path - 1 bytes
 * (103 on macOS), and the endpoint line is split on blanks. Else in a
 * private directory of our own (mkdtemp: 0700) under $TMPDIR or /tmp,
 * removed at exit. Returns 0, or -1 with err set.
 */
static int
serve_sockpath(struct serve *s, char *err, size_t errlen)
{
	struct sockaddr_un	 sun;
	const char		*tmp;
	char			 dir[PATH_MAX];
	int			 n;

	n = snprintf(s->sockpath, sizeof s->sockpath, "%s/agent-%ld.sock",
	    s->workdir, (long)getpid());
	if (n > 0 && (size_t)n < sizeof sun.sun_path &&
	    strpbrk(s->sockpath, " \t\n") == NULL)
		return (0);
	tmp = getenv("TMPDIR");
	if (tmp == NULL || *tmp != '/' || strlen(tmp) > 64 ||
	    strpbrk(tmp, " \t\n") != NULL)
		tmp = "/tmp";
	if (snprintf(dir, sizeof dir, "%s/orch-agent.XXXXXX", tmp) >=
	    (int)sizeof dir || mkdtemp(dir) == NULL) {
		snprintf(err, errlen, "workdir %s cannot hold the agent's "
		    "socket (a blank, or too long a path), and no private "
		    "directory could be made in %s: %s", s->workdir, tmp,
		    strerror(errno));
		s->sockpath[0] = '\0';
		return (-1);
	}
	snprintf(s->sockdir, sizeof s->sockdir, "%s", dir);
	snprintf(s->sockpath, sizeof s->sockpath, "%s/agent.sock", dir);
	log_debug("socket in %s: the workdir cannot hold it", dir);
	return (0);
}

/*
 * Reads the key line from stdin one byte at a time (nothing after the
 * newline may be consumed: stdin stays the lifeline). Returns 0 or -1.
 */
static int
serve_read_key(struct serve *s, uint8_t key[PROTO_KEY_LEN])
{
	char		line[256];
	size_t		n = 0;
	int64_t		deadline = util_now_ms() + s->opts->key_timeout_ms;
	struct pollfd	pfd;
	ssize_t		r;
	int		left, rv = -1;

	for (;;) {
		left = (int)(deadline - util_now_ms());
		if (left <= 0) {
			log_warnx("no key line on stdin within %d ms",
			    s->opts->key_timeout_ms);
			goto out;
		}
		pfd.fd = 0;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll stdin");
			goto out;
		}
		if (pfd.revents == 0)
			continue;
		r = read(0, line + n, 1);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			log_warnx("stdin closed before the key line");
			goto out;
		}
		if (line[n] == '\n')
			break;
		if (++n == sizeof line - 1) {
			log_warnx("key line too long");
			goto out;
		}
	}
	line[n] = '\0';
	if (seal_keyline_parse(line, key, s->run_id, sizeof s->run_id) != 0) {
		log_warnx("malformed key line on stdin");
		goto out;
	}
	rv = 0;
out:
	OPENSSL_cleanse(line, sizeof line);
	return (rv);
}

/* Stops the agent at SIGTERM or SIGINT: closing the pipe wakes every poll. */
static void
serve_sigterm(int sig)
{
	int	saved = errno;

	(void)sig;
	serve_stopped = 1;
	if (serve_stop_pipe[1] != -1) {
		close(serve_stop_pipe[1]);
		serve_stop_pipe[1] = -1;
	}
	errno = saved;
}

/* Sends our log to RUNDIR/agent.log: stderr went with the coordinator. */
static void
serve_detach_log(struct serve *s)
{
	char	path[PATH_MAX];
	int	fd;

	if (s->journal == -1)
		return;		/* no plan: nothing will run, nothing to log */
	snprintf(path, sizeof path, "%s/agent.log", s->rundir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0600)) == -1)
		return;
	dup2(fd, 2);
	close(fd);
}

/*
 * Waits for the next message, at most timeout_ms, watching the lifeline
 * (stdin) and the stop pipe. Returns 0 with msg filled, CHAN_TIMEOUT,
 * SERVE_GONE once when stdin closes (then s->detached is set), SERVE_STOP,
 * or -1.
 */
static int
serve_wait(struct serve *s, struct proto_msg *msg, int timeout_ms)
{
	struct pollfd	pfd[3];
	char		buf[64], err[CHAN_ERR_LEN];
	int64_t		deadline = util_now_ms() + timeout_ms;
	ssize_t		n;
	int		left, r, np;

	for (;;) {
		if (serve_stopped)
			return (SERVE_STOP);
		if (!s->detached) {
			r = chan_recv(&s->chan, msg, 0, err, sizeof err);
			if (r != CHAN_TIMEOUT) {
				if (r == -1)
					log_warnx("%s", err);
				return (r);
			}
		}
		left = (int)(deadline - util_now_ms());
		if (left <= 0)
			return (CHAN_TIMEOUT);
		np = 0;
		pfd[np].fd = serve_stop_pipe[0];
		pfd[np++].events = POLLIN;
		if (!s->detached) {
			pfd[np].fd = 0;
			pfd[np++].events = POLLIN;
			pfd[np].fd = chan_fd(&s->chan);
			pfd[np++].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)np, left) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll");
			return (-1);
		}
		if (pfd[0].revents != 0)
			return (SERVE_STOP);
		/* A message first: a BYE sent before stdin closed wins. */
		if (np > 2 && pfd[2].revents != 0)
			continue;
		if (np > 1 && pfd[1].revents != 0) {
			n = read(0, buf, sizeof buf);
			if (n == 0 || (n == -1 && errno != EINTR &&
			    errno != EAGAIN)) {
				log_info("the coordinator is gone: carrying on "
				    "detached");
				s->detached = 1;
				serve_detach_log(s);
				return (SERVE_GONE);
			}
		}
	}
}

/* Sends msg; returns 0 or -1 (logged). */
static int
serve_send(struct serve *s, const struct proto_msg *msg)
{
	char	err[CHAN_ERR_LEN];

	if (s->detached)
		return (0);	/* the journal keeps it for a resume */
	if (chan_send(&s->chan, msg, SERVE_SEND_TIMEOUT, err, sizeof err) != 0) {
		log_warnx("%s", err);
		return (-1);
	}
	return (0);
}

/* Sends an ERROR message with a code and words. */
static int
serve_error(struct serve *s, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
serve_error(struct serve *s, const char *code, const char *fmt, ...)
{
	struct proto_msg	msg;
	va_list			ap;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_ERROR;
	snprintf(msg.u.error.code, sizeof msg.u.error.code, "%s", code);
	va_start(ap, fmt);
	vsnprintf(msg.u.error.msg, sizeof msg.u.error.msg, fmt, ap);
	va_end(ap);
	log_warnx("%s", msg.u.error.msg);
	return (serve_send(s, &msg));
}

/* Returns 1 when a command of plan runs the file sha. */
static int
serve_is_exe(const struct proto_plan *plan, const char *sha)
{
	size_t	i;

	for (i = 0; i < plan->ncmds; i++) {
		if (strcmp(plan->cmds[i].exe, sha) == 0)
			return (1);
	}
	return (0);
}

/* Answers a QUERY with the hashes the cache holds, verified. */
static int
serve_query(struct serve *s, const struct proto_hashes *q)
{
	struct proto_msg	msg;
	size_t			i;
	int			r;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_HAVE;
	msg.u.hashes.sha = xcalloc(q->n + 1, sizeof *msg.u.hashes.sha);
	for (i = 0; i < q->n; i++) {
		if (cache_check(&s->cache, q->sha[i], NULL) == 0)
			memcpy(msg.u.hashes.sha[msg.u.hashes.n++], q->sha[i],
			    PROTO_SHA_HEX);
	}
	r = serve_send(s, &msg);
	free(msg.u.hashes.sha);
	return (r);
}

/* Builds the environment of a command: ours, with cmd's entries on top. */
static char **
serve_envp(const struct proto_cmd *cmd)
{
	char		**envp;
	size_t		  n = 0, i, j, len;
	const char	 *eq;
	int		  shadowed;

	for (i = 0; environ[i] != NULL; i++)
		n++;
	envp = xcalloc(n + cmd->nenv + 1, sizeof *envp);
	n = 0;
	for (i = 0; environ[i] != NULL; i++) {
		shadowed = 0;
		for (j = 0; j < cmd->nenv && !shadowed; j++) {
			if ((eq = strchr(cmd->env[j], '=')) == NULL)
				continue;
			len = (size_t)(eq - cmd->env[j]) + 1;
			if (strncmp(environ[i], cmd->env[j], len) == 0)
				shadowed = 1;
		}
		if (!shadowed)
			envp[n++] = environ[i];
	}
	for (j = 0; j < cmd->nenv; j++)
		envp[n++] = cmd->env[j];
	envp[n] = NULL;
	return (envp);
}

/*
 * Brings our own contribution to the 1-minute load average up to date and
 * notes whether a benchmark runs from now on. The kernel's load average is
 * an exponential average with a one-minute time constant of the number of
 * runnable tasks; our benchmark is one of them while it runs, so it must
 * not count as "busy" against us.
 */
static void
serve_self_load(struct serve *s, int running)
{
	int64_t	now = util_now_ms();
	double	decay;

	if (s->self_at != 0) {
		decay = exp(-(double)(now - s->self_at) / 60000.0);
		s->self_load = s->self_load * decay +
		    (s->self_running ? 1.0 : 0.0) * (1.0 - decay);
	}
	s->self_at = now;
	s->self_running = running;
}

/* Sends a STATUS message; failures are logged, never fatal. */
static void
serve_status(struct serve *s, const char *state, double load, double limit,
    uint32_t waited_ms, const char *detail)
{
	struct proto_msg	msg;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_STATUS;
	snprintf(msg.u.state.state, sizeof msg.u.state.state, "%s", state);
	snprintf(msg.u.state.detail, sizeof msg.u.state.detail, "%s", detail);
	msg.u.state.load1 = load;
	msg.u.state.limit = limit;
	msg.u.state.waited_ms = waited_ms;
	serve_send(s, &msg);
}

/*
 * Copies orch-null, the harness-floor program installed beside the agent,
 * into the cache so that it runs through the same verified path as every
 * benchmark. Leaves null_sha empty when there is none.
 */
static void
serve_install_null(struct serve *s)
{
	char	src[PATH_MAX], *slash;

	if (s->opts->self == NULL || strchr(s->opts->self, '/') == NULL)
		return;
	snprintf(src, sizeof src, "%s", s->opts->self);
	slash = strrchr(src, '/');
	snprintf(slash + 1, sizeof src - (size_t)(slash + 1 - src), "orch-null");
	if (hash_file(src, s->null_sha) != 0) {
		log_debug("no floor program %s: %s", src, strerror(errno));
		s->null_sha[0] = '\0';
		return;
	}
	if (cache_check(&s->cache, s->null_sha, NULL) == 0)
		return;
	if (cache_install(&s->cache, src, s->null_sha) != 0) {
		log_warn("cannot install the floor program %s", src);
		s->null_sha[0] = '\0';
	}
}

/*
 * Takes a GRANT of an open plan: it only grows (a late, smaller one is a
 * no-op), and a final one ends the plan at the next step boundary.
 * Journaled first, so that a resumed agent knows how far it may go.
 */
static void
serve_grant(struct serve *s, const struct proto_grant *g)
{
	if (g->granted <= s->granted && !g->final)
		return;
	if (journal_granted(s->journal, g->granted, g->final) != 0)
		log_warn("journal");
	if (g->granted > s->granted)
		s->granted = g->granted;
	if (g->final)
		s->final = 1;
	log_debug("grant: steps up to %u%s", s->granted,
	    s->final ? ", final" : "");
}

static int	serve_between_msg(struct serve *, struct proto_msg *);

/*
 * An open plan at the end of its grant: tells the coordinator (which then
 * looks at the rounds so far and answers with a GRANT) and waits for it,
 * again every SERVE_WAIT_TELL. Detached, it waits for nobody: the plan
 * ends with the blocks it was granted. Returns 0 when step i may run, 1
 * when the plan ends before it, SERVE_STOP or -1.
 */
static int
serve_wait_grant(struct serve *s, uint32_t i)
{
	struct proto_msg	msg;
	int64_t			start = util_now_ms(), told = -1, now;
	int			r;
	char			detail[128];

	while (!s->final && i >= s->granted) {
		if (s->detached)
			return (1);
		now = util_now_ms();
		if (told < 0 || now - told >= SERVE_WAIT_TELL) {
			snprintf(detail, sizeof detail, "block done at step "
			    "%u: waiting for the coordinator's look", i);
			serve_status(s, "waiting-grant", 0, 0,
			    (uint32_t)(now - start), detail);
			told = now;
		}
		r = serve_wait(s, &msg, SERVE_WAIT_TELL);
		if (r == 0) {
			if (serve_between_msg(s, &msg) != 0)
				return (SERVE_STOP);
		} else if (r == SERVE_STOP)
			return (SERVE_STOP);
		else if (r != CHAN_TIMEOUT && r != SERVE_GONE)
			return (r);
	}
	return (i >= s->granted ? 1 : 0);
}

/*
 * Handles a message that arrives while a plan runs: an ACK moves what is
 * acknowledged, a BYE stops the plan (returns -1), anything else is noted
 * and ignored. Frees msg.
 */
static int
serve_between_msg(struct serve *s, struct proto_msg *msg)
{
	if (msg->type == PROTO_BYE)
		s->bye = 1;
	else if (msg->type == PROTO_GRANT && s->granted > 0)
		serve_grant(s, &msg->u.grant);
	else if (msg->type == PROTO_ACK) {
		if ((int64_t)msg->u.ack.seq > s->acked)
			s->acked = msg->u.ack.seq;
	} else
		log_warnx("ignored %s during a plan",
		    proto_type_name(msg->type));
	proto_msg_free(msg);
	return (s->bye ? -1 : 0);
}

/*
 * Waits until the 1-minute load is at most max_load per core, backing off,
 * for at most wait_ms. Returns 0 when quiet, 1 when still busy (reason
 * filled), SERVE_GONE or -1.
 */
static int
serve_wait_quiet(struct serve *s, const struct proto_plan *plan,
    char *reason, size_t len)
{
	struct proto_msg	msg;
	uint32_t		cores = facts_cores();
	double			load, others, limit = plan->max_load * cores;
	int64_t			start = util_now_ms(), waited;
	int			backoff = 1000, r, told = 0;
	char			detail[256];

	if (plan->max_load <= 0)
		return (0);
	for (;;) {
		serve_self_load(s, 0);
		load = facts_load1();
		others = load - s->self_load;
		if (load < 0 || others <= limit)
			return (0);
		waited = util_now_ms() - start;
		if (waited >= (int64_t)plan->load_wait_ms) {
			snprintf(reason, len, "too busy: 1-minute load %.2f "
			    "(%.2f without our benchmarks) stayed above %.2f "
			    "(max_load %.4g x %u cores) for %lld s", load,
			    others, limit, plan->max_load, cores,
			    (long long)(waited / 1000));
			return (1);
		}
		snprintf(detail, sizeof detail, "waiting: 1-minute load %.2f "
		    "above %.2f (max_load %.4g x %u cores)", others, limit,
		    plan->max_load, cores);
		if (!told || backoff >= 8000)
			log_info("%s", detail);
		serve_status(s, "waiting-load", load, limit, (uint32_t)waited,
		    detail);
		told = 1;
		if (backoff > (int)(plan->load_wait_ms - waited))
			backoff = (int)(plan->load_wait_ms - waited);
		r = serve_wait(s, &msg, backoff);
		if (r == 0) {
			if (serve_between_msg(s, &msg) != 0)
				return (SERVE_STOP);
		} else if (r != CHAN_TIMEOUT && r != SERVE_GONE)
			return (r);
		/* At least every 30 s: the coordinator shows each wait. */
		backoff = backoff * 2 < SERVE_WAIT_TELL ? backoff * 2 :
		    SERVE_WAIT_TELL;
	}
}

/*
 * Handles messages that may arrive while a plan runs. Returns 0, or
 * SERVE_STOP (BYE, SIGTERM).
 */
static int
serve_poll_between(struct serve *s)
{
	struct proto_msg	msg;
	int			r;

	while ((r = serve_wait(s, &msg, 0)) == 0) {
		if (serve_between_msg(s, &msg) != 0)
			return (SERVE_STOP);
	}
	return (r == SERVE_STOP ? SERVE_STOP : 0);
}

/*
 * Waits, at most SERVE_SETTLE_MS, until the coordinator has acknowledged
 * the last sample sent: on a small machine its recording of one sample
 * (decrypting, writing the record, answering) would otherwise share the
 * cores with the next measurement. On a slow link the bound lets the runs
 * go on; the journal keeps every sample either way. Returns 0 or
 * SERVE_STOP.
 */
static int
serve_settle(struct serve *s)
{
	struct proto_msg	msg;
	int64_t			deadline = util_now_ms() + SERVE_SETTLE_MS;
	int			r, left;

	while (!s->detached && s->sent >= 0 && s->acked < s->sent) {
		if ((left = (int)(deadline - util_now_ms())) <= 0)
			return (0);
		r = serve_wait(s, &msg, left);
		if (r == SERVE_STOP)
			return (SERVE_STOP);
		if (r != 0)
			return (0);	/* no answer, gone or an error: go on */
		if (serve_between_msg(s, &msg) != 0)
			return (SERVE_STOP);
	}
	return (0);
}

/*
 * Finds cmd's program: a verified cache file of files, or a host program
 * resolved for this plan. Fills smp's reason and returns NULL when it
 * changed since it was hashed.
 */
static const struct cache_file *
serve_cmd_prog(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct proto_cmd *cmd,
    struct proto_sample *smp)
{
	size_t	i;

	if (cmd->has_host) {
		for (i = 0; i < s->nprogs; i++) {
			if (strcmp(s->progs[i].name, cmd->host) != 0)
				continue;
			if (hostprog_unchanged(&s->progs[i].f))
				return (&s->progs[i].f);
			smp->status = PROTO_ST_FAILED;
			snprintf(smp->err_tail, sizeof smp->err_tail,
			    "host program %s (%s) changed since it was "
			    "hashed (SHA-256 %s)", cmd->host,
			    s->progs[i].f.path, s->progs[i].f.sha);
			return (NULL);
		}
		smp->status = PROTO_ST_FAILED;
		snprintf(smp->err_tail, sizeof smp->err_tail,
		    "host program %s was not resolved", cmd->host);
		return (NULL);
	}
	for (i = 0; i < plan->nfiles; i++) {
		/* The plan check guarantees it and holds it open. */
		if (strcmp(files[i].sha, cmd->exe) == 0 &&
		    cache_file_unchanged(&files[i]))
			return (&files[i]);
	}
	smp->status = PROTO_ST_FAILED;
	snprintf(smp->err_tail, sizeof smp->err_tail,
	    "program %s changed in the cache since it was verified",
	    cmd->exe);
	return (NULL);
}

/*
 * Runs cmd once into smp: a measured run, or (hook) a hook's, which is
 * neither pinned, counted nor journaled. The benchmark outlives a lost
 * coordinator; only a stop (SIGTERM) kills it. Returns 0 or SERVE_STOP.
 */
static int
serve_exec(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct proto_cmd *cmd,
    struct proto_sample *smp, int hook)
{
	const struct cache_file	*exe;
	struct exec_req		 req;
	char			**argv, **envp, exepath[PATH_MAX];
	char			 fdpath[64];
	size_t			 i;
	int			 r = 0;

	if ((exe = serve_cmd_prog(s, plan, files, cmd, smp)) == NULL)
		return (0);
	argv = xcalloc(cmd->nargs + 2, sizeof *argv);
	snprintf(exepath, sizeof exepath, "%s", exe->path);
	argv[0] = exepath;
	for (i = 0; i < cmd->nargs; i++)
		argv[i + 1] = cmd->args[i];
	envp = serve_envp(cmd);

	memset(&req, 0, sizeof req);
	req.argv = argv;
	/*
	 * A cache file runs from its descriptor, what was hashed; a host
	 * program by its path (a script's interpreter must open it), checked
	 * unchanged just before.
	 */
	req.path = !cmd->has_host && proc_fd_path(exe->fd, fdpath,
	    sizeof fdpath) == 0 ? fdpath : NULL;
	req.envp = envp;
	req.cwd = s->rundir;
	req.timeout_ms = cmd->timeout_ms;
	req.lifeline_fd = serve_stop_pipe[0];
	if (!hook) {
		req.checksum_key = cmd->checksum_key;
		req.pin = s->pin;
		req.counters = s->counters;
		req.spawned = s->journal != -1 ? serve_spawned : NULL;
		req.spawned_arg = s;
	}
	serve_self_load(s, 1);
	if (exec_run(&req, smp) != 0)
		r = SERVE_STOP;
	serve_self_load(s, 0);
	free(argv);
	free(envp);
	return (r);
}

/*
 * Runs one attempt of one step into smp. Returns 0 or SERVE_STOP.
 */
static int
serve_run_one(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, uint32_t stepno, uint32_t attempt,
    struct proto_sample *smp)
{
	const struct proto_step	*step = &plan->steps[stepno];
	const struct proto_cmd	*cmd = &plan->cmds[step->cmd];

	memset(smp, 0, sizeof *smp);
	smp->step = stepno;
	smp->cmd = step->cmd;
	smp->round = step->round;
	smp->warmup = step->warmup;
	smp->attempt = attempt;
	smp->load1 = facts_load1();
	s->cur_step = stepno;
	s->cur_attempt = attempt;
	return (serve_exec(s, plan, files, cmd, smp, 0));
}

/*
 * Kills the process group of pid, which a lost agent journaled running
 * with identity ident, when pid is still that process; leaves it alone
 * when it is another one, gone, or of unknown identity.
 */
static void
serve_kill_left(uint32_t pid, const char *ident)
{
	char	now[PROC_IDENT_LEN];

	if (ident[0] == '\0') {
		log_info("process %u left by the lost agent: no identity in "
		    "the journal, left alone", pid);
		return;
	}
	if (proc_ident((pid_t)pid, now, sizeof now) != 0)
		return;		/* gone */
	if (strcmp(now, ident) != 0) {
		log_info("process %u is not the benchmark the lost agent "
		    "left (%s, not %s): left alone", pid, now, ident);
		return;
	}
	if (kill(-(pid_t)pid, SIGKILL) == 0)
		log_info("killed process group %u left by the lost agent", pid);
}

/*
 * Journals the pid of a benchmark just started and what identifies it (no
 * flush: it is on its way).
 */
static void
serve_spawned(long pid, void *arg)
{
	struct serve	*s = arg;
	char		 ident[PROC_IDENT_LEN];

	/* Started already, so its start time is set even before its exec. */
	if (proc_ident((pid_t)pid, ident, sizeof ident) != 0) {
		log_warnx("cannot tell process %ld apart from a later one: "
		    "a resume will leave it alone", pid);
		ident[0] = '\0';
	}
	if (journal_running(s->journal, s->cur_step, s->cur_attempt,
	    (uint32_t)pid, ident) != 0)
		log_warn("journal");
}

/* Journals a sample, then sends it. Returns 0 or -1. */
static int
serve_record(struct serve *s, const struct proto_msg *msg)
{
	if (journal_result(s->journal, msg) != 0) {
		log_warn("journal");
		return (-1);
	}
	return (serve_send(s, msg));
}

/* Sends a journaled sample again, unless no coordinator listens. */
static void
serve_resend(const struct proto_msg *msg, void *arg)
{
	struct serve	*s = arg;

	if (!s->detached)
		serve_send(s, msg);
}

/*
 * Opens the journal of this run: a new one, or the one a lost
 * coordinator's agent left, whose progress fills pr; resends the samples
 * the coordinator does not have and stops what the lost agent left
 * running. Returns 0 or -1 with a reason in why.
 */
static int
serve_journal_open(struct serve *s, const struct proto_plan *plan,
    struct journal_progress *pr, char *why, size_t len)
{
	uint32_t	step;

	s->journal = journal_open(s->rundir, s->run_id, plan, pr,
	    serve_resend, s, why, len);
	if (s->journal == -1)
		return (-1);
	if (pr->resumed)
		log_info("run %s: resuming from the journal (%u samples)",
		    s->run_id, pr->nsamples);
	/*
	 * A benchmark its dead agent left running must not overlap ours. Its
	 * pid may name another process by now (after a reboot, or once the
	 * pids wrapped): only a process with the identity journaled is ours.
	 */
	for (step = 0; step < plan->nsteps; step++) {
		if (pr->started[step] > pr->ended[step] && pr->pid[step] > 1)
			serve_kill_left(pr->pid[step], pr->ident[step]);
	}
	s->seq = (uint32_t)(pr->last_seq + 1);
	return (0);
}

/*
 * Takes the run lock, verifies the plan's files (keeping its programs open
 * in files) and opens the run's journal. Returns 0, or -1 with the code
 * and the words of the error for the coordinator.
 */
static int
serve_plan_prepare(struct serve *s, const struct proto_plan *plan,
    struct cache_file *files, struct journal_progress *pr, const char **code,
    char *why, size_t len)
{
	size_t	i;

	/*
	 * A resume that brings another plan than the journal's is refused
	 * before it takes the run over: the agent measuring that journal
	 * carries on, and the journal stays whole for a resume that brings
	 * the run's own plan.
	 */
	if (!journal_same_plan(s->rundir, plan)) {
		*code = "plan";
		snprintf(why, len, "%s/journal holds another plan for run %s "
		    "(other settings, programs or files than at its start): "
		    "refused; the journal is kept and its agent, if any, "
		    "carries on", s->rundir, s->run_id);
		return (-1);
	}
	if (s->lockfd == -1 && (s->lockfd = workdir_lock(s->workdir,
	    s->run_id, why, len)) == -1) {
		*code = "busy";
		return (-1);
	}
	for (i = 0; i < plan->nfiles; i++) {
		if (cache_check(&s->cache, plan->files[i], &files[i]) != 0) {
			*code = "file";
			snprintf(why, len, "file %s is not in the cache of %s "
			    "(or does not match its hash)", plan->files[i],
			    s->workdir);
			return (-1);
		}
		/* Only programs are kept open: a plan may have many files. */
		if (!serve_is_exe(plan, plan->files[i]))
			cache_files_close(&files[i], 1);
	}
	if (workdir_mkdirs(s->rundir) == -1) {
		*code = "workdir";
		snprintf(why, len, "cannot create %s: %s", s->rundir,
		    strerror(errno));
		return (-1);
	}
	if (serve_journal_open(s, plan, pr, why, len) != 0) {
		*code = "journal";
		return (-1);
	}
	return (0);
}

/* Tells the coordinator of a setting not applied, as a "note" STATUS. */
static void
serve_note(struct serve *s, const char *what, const char *why)
{
	char	note[300];

	snprintf(note, sizeof note, "%s: %s", what, why);
	log_info("%s", note);
	serve_status(s, "note", facts_load1(), 0, 0, note);
}

/*
 * Checks the plan's CPU list. A bad one is an error; an OS without
 * affinity (macOS) runs unpinned and says so. Returns 0, or -1 with the
 * error's words in why.
 */
static int
serve_plan_pin(struct serve *s, const struct proto_plan *plan, char *why,
    size_t len)
{
	struct proto_facts	f;
	char			err[256];

	s->pin = plan->pin[0] != '\0' ? plan->pin : NULL;
	if (s->pin == NULL)
		return (0);
	if (facts_pin(s->pin, err, sizeof err) == 0) {
		facts_pin(NULL, err, sizeof err);
		return (0);
	}
	memset(&f, 0, sizeof f);
	facts_collect(&f);
	if (strcmp(f.os, "linux") == 0) {
		snprintf(why, len, "pin = %s: %s", s->pin, err);
		return (-1);
	}
	serve_note(s, "pinning not applied", err);
	s->pin = NULL;
	return (0);
}

/*
 * Finds which of the plan's hardware counters the kernel lets us read;
 * the runs measure those, and the coordinator hears of the others.
 */
static void
serve_plan_counters(struct serve *s, const struct proto_plan *plan)
{
	struct facts_counters	probe;
	/* With "counters not measured: ", it must fit a STATUS detail. */
	char			why[sizeof ((struct proto_state *)0)->detail -
				    32];
	int			n, k;

	s->counters = NULL;
	if (plan->counters[0] == '\0')
		return;
	n = facts_counters_open(&probe, plan->counters, why, sizeof why);
	s->ctrlist[0] = '\0';
	for (k = 0; k < n; k++)
		snprintf(s->ctrlist + strlen(s->ctrlist),
		    sizeof s->ctrlist - strlen(s->ctrlist), "%s%s",
		    k ? "," : "", probe.name[k]);
	facts_counters_close(&probe, NULL);
	if (n > 0)
		s->counters = s->ctrlist;
	if (n < 0 || why[0] != '\0')
		serve_note(s, "counters not measured", why);
}

/* Returns command c's hook k (PROTO_HOOK_*), or -1. */
static int32_t
serve_hook_of(const struct proto_cmd *c, int k)
{
	return (c->has_hooks ? c->hooks[k] : -1);
}

/*
 * Runs hook command h (what: "prepare", "setup", "cleanup") once, not
 * measured. Returns 0 when it exited 0, 1 when it failed (why: "prepare
 * failed: exit 3", and the end of its stderr), or SERVE_STOP.
 */
static int
serve_hook(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, int32_t h, const char *what, char *why,
    size_t len)
{
	struct proto_sample	*smp;
	int			 r;

	smp = xcalloc(1, sizeof *smp);
	if ((r = serve_exec(s, plan, files, &plan->cmds[h], smp, 1)) == 0 &&
	    smp->status != PROTO_ST_OK) {
		r = 1;
		if (smp->status == PROTO_ST_FAILED && smp->exit_code != 0 &&
		    strncmp(smp->err_tail, "exit code", 9) != 0)
			snprintf(why, len, "%s failed: exit %d: %s", what,
			    (int)smp->exit_code, smp->err_tail);
		else if (smp->status == PROTO_ST_FAILED && smp->exit_code != 0)
			snprintf(why, len, "%s failed: exit %d", what,
			    (int)smp->exit_code);
		else
			snprintf(why, len, "%s failed: %s", what,
			    smp->err_tail);
		log_info("%s %s: %s", plan->cmds[h].bench, what, why);
	}
	free(smp);
	return (r);
}

/* Fills smp as attempt of step stepno, failed before it ran, for why. */
static void
serve_not_run(const struct proto_plan *plan, uint32_t stepno,
    uint32_t attempt, struct proto_sample *smp, const char *why)
{
	struct timespec	ts;

	memset(smp, 0, sizeof *smp);
	smp->step = stepno;
	smp->cmd = plan->steps[stepno].cmd;
	smp->round = plan->steps[stepno].round;
	smp->warmup = plan->steps[stepno].warmup;
	smp->attempt = attempt;
	smp->load1 = facts_load1();
	clock_gettime(CLOCK_REALTIME, &ts);
	smp->start_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	smp->status = PROTO_ST_FAILED;
	snprintf(smp->err_tail, sizeof smp->err_tail, "%s", why);
}

/*
 * Runs cmd's setup hook when this session has not yet: once per host
 * before the first step of its bench. Returns 0 or SERVE_STOP.
 */
static int
serve_setup(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct proto_cmd *cmd)
{
	int32_t	su = serve_hook_of(cmd, PROTO_HOOK_SETUP);
	int32_t	cl = serve_hook_of(cmd, PROTO_HOOK_CLEANUP);
	int	r;

	/* A bench that started has its cleanup run, whatever happens. */
	if (cl >= 0)
		s->cleanup_due[cl] = 1;
	if (su < 0 || s->hook_state[su] != HOOK_NOT_RUN)
		return (0);
	r = serve_hook(s, plan, files, su, "setup", s->hook_why[su],
	    sizeof s->hook_why[su]);
	if (r == SERVE_STOP)
		return (r);
	s->hook_state[su] = r == 0 ? HOOK_OK : HOOK_FAILED;
	return (0);
}

/*
 * Runs cleanup hook k when due; a failure is a note now and the plan's
 * failure at its end. Returns 0 or SERVE_STOP.
 */
static int
serve_cleanup(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, int32_t k)
{
	char	why[PROTO_TAIL_MAX], what[PROTO_NAME_MAX + 16];
	int	r;

	if (k < 0 || !s->cleanup_due[k])
		return (0);
	s->cleanup_due[k] = 0;
	if ((r = serve_hook(s, plan, files, k, "cleanup", why,
	    sizeof why)) != 1)
		return (r);
	snprintf(what, sizeof what, "benchmark %s", plan->cmds[k].bench);
	serve_note(s, what, why);
	if (s->hook_failed[0] == '\0')
		snprintf(s->hook_failed, sizeof s->hook_failed, "%s: %s", what,
		    why);
	return (0);
}

/*
 * Runs one attempt of step i into smp, with its hooks: not at all when its
 * bench's setup failed, not when its prepare hook failed (either is the
 * sample's failure). Returns 0 or SERVE_STOP.
 */
static int
serve_attempt(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, uint32_t i, uint32_t attempt,
    struct proto_sample *smp)
{
	const struct proto_cmd	*cmd = &plan->cmds[plan->steps[i].cmd];
	int32_t			 su = serve_hook_of(cmd, PROTO_HOOK_SETUP);
	int32_t			 pp = serve_hook_of(cmd, PROTO_HOOK_PREPARE);
	char			 why[PROTO_TAIL_MAX];
	int			 r;

	if (su >= 0 && s->hook_state[su] == HOOK_FAILED) {
		serve_not_run(plan, i, attempt, smp, s->hook_why[su]);
		return (0);
	}
	if (pp >= 0) {
		if ((r = serve_hook(s, plan, files, pp, "prepare", why,
		    sizeof why)) == SERVE_STOP)
			return (r);
		if (r == 1) {
			serve_not_run(plan, i, attempt, smp, why);
			return (0);
		}
	}
	return (serve_run_one(s, plan, files, i, attempt, smp));
}

/*
 * Notes the end of a step: a command whose first step failed every attempt
 * (a program that crashes each time) is not retried again, as its retries
 * would only repeat the crash.
 */
static void
serve_step_ended(struct serve *s, const struct proto_sample *smp)
{
	if (s->cmd_ran[smp->cmd])
		return;
	s->cmd_ran[smp->cmd] = 1;
	if (smp->status != PROTO_ST_OK && smp->attempt > 1) {
		s->no_retry[smp->cmd] = 1;
		log_info("command %u failed every attempt of its first run: "
		    "not retried again", smp->cmd);
	}
}

/*
 * Runs step i from attempt on: again while a signal it did not get from us
 * kills it, up to the plan's retries; journals and sends each sample.
 * Returns 0, SERVE_STOP, or -1.
 */
static int
serve_step(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, uint32_t i, uint32_t attempt,
    uint32_t *nsent)
{
	struct proto_msg	 msg;
	struct proto_sample	*smp = &msg.u.sample;
	int			 r;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_SAMPLE;
	if ((r = serve_setup(s, plan, files,
	    &plan->cmds[plan->steps[i].cmd])) != 0)
		return (r);
	for (;; attempt++) {
		if ((r = serve_settle(s)) != 0)
			return (r);
		if (journal_started(s->journal, i, attempt) != 0) {
			log_warn("journal");
			return (-1);
		}
		if ((r = serve_attempt(s, plan, files, i, attempt, smp)) != 0)
			return (r);
		smp->seq = s->seq++;
		if (serve_record(s, &msg) != 0)
			return (-1);
		s->sent = smp->seq;
		(*nsent)++;
		if (smp->status != PROTO_ST_SIGNAL || attempt > plan->retries ||
		    s->no_retry[smp->cmd]) {
			serve_step_ended(s, smp);
			return (0);
		}
		log_info("step %u killed by signal %d: attempt %u", i,
		    smp->signal, attempt + 1);
	}
}

/*
 * Runs the steps the journal does not show done, each once the host is
 * quiet. Returns 0 (with *ok cleared and reason filled when the host
 * stayed busy), SERVE_STOP, or -1.
 */
static int
serve_plan_steps(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct journal_progress *pr,
    uint32_t *nsent, int *ok, char *reason, size_t len)
{
	uint32_t	i, attempt;
	int32_t		cl;
	size_t		k;
	int		r;

	for (i = 0; i < plan->nsteps; i++) {
		if (journal_step_done(plan, pr, i))
			continue;
		if ((r = serve_poll_between(s)) != 0)
			return (r);
		if (s->granted > 0 && i >= s->granted) {
			if ((r = serve_wait_grant(s, i)) == 1)
				break;
			if (r != 0)
				return (r);
		}
		r = serve_wait_quiet(s, plan, reason, len);
		if (r == 1) {
			*ok = 0;
			break;
		}
		if (r != 0)
			return (r);
		/* An attempt started but never ended died with its agent. */
		attempt = (pr->started[i] > pr->ended[i] ? pr->started[i] :
		    pr->ended[i]) + 1;
		if ((r = serve_step(s, plan, files, i, attempt, nsent)) != 0)
			return (r);
		cl = serve_hook_of(&plan->cmds[plan->steps[i].cmd],
		    PROTO_HOOK_CLEANUP);
		if (cl >= 0 && s->cleanup_last[cl] == i &&
		    (r = serve_cleanup(s, plan, files, cl)) != 0)
			return (r);
	}
	/* Benches cut short (a busy host) are cleaned up too. */
	for (k = 0; k < plan->ncmds; k++) {
		if ((r = serve_cleanup(s, plan, files, (int32_t)k)) != 0)
			return (r);
	}
	return (0);
}

/*
 * Sets up the hooks' bookkeeping for plan: nothing run yet, and the last
 * step of each cleanup hook's bench.
 */
static void
serve_plan_hooks(struct serve *s, const struct proto_plan *plan)
{
	int32_t		cl;
	uint32_t	i;

	s->hook_state = xcalloc(plan->ncmds + 1, sizeof *s->hook_state);
	s->hook_why = xcalloc(plan->ncmds + 1, sizeof *s->hook_why);
	s->cleanup_due = xcalloc(plan->ncmds + 1, sizeof *s->cleanup_due);
	s->cleanup_last = xcalloc(plan->ncmds + 1, sizeof *s->cleanup_last);
	s->hook_failed[0] = '\0';
	for (i = 0; i < plan->nsteps; i++) {
		cl = serve_hook_of(&plan->cmds[plan->steps[i].cmd],
		    PROTO_HOOK_CLEANUP);
		if (cl >= 0)
			s->cleanup_last[cl] = i;
	}
}

/* Lets go of the plan's host programs and hook bookkeeping. */
static void
serve_plan_free(struct serve *s)
{
	size_t	i;

	for (i = 0; i < s->nprogs; i++)
		cache_files_close(&s->progs[i].f, 1);
	free(s->progs);
	s->progs = NULL;
	s->nprogs = 0;
	free(s->hook_state);
	free(s->hook_why);
	free(s->cleanup_due);
	free(s->cleanup_last);
	s->hook_state = s->cleanup_due = NULL;
	s->hook_why = NULL;
	s->cleanup_last = NULL;
}

/*
 * Resolves the plan's host programs before anything is measured: found,
 * hashed, held open, asked for their --version; and tells the coordinator
 * what it found (PROGS). Returns 0, 1 with the error's words in why (a
 * program not found), SERVE_STOP or -1.
 */
static int
serve_plan_progs(struct serve *s, const struct proto_plan *plan, char *why,
    size_t len)
{
	struct proto_msg	 msg;
	struct serve_prog	*sp;
	char			**envp;
	size_t			 i, k;
	int			 r;

	s->progs = xcalloc(plan->ncmds + 1, sizeof *s->progs);
	for (i = 0; i < plan->ncmds; i++) {
		if (!plan->cmds[i].has_host)
			continue;
		for (k = 0; k < s->nprogs; k++) {
			if (strcmp(s->progs[k].name, plan->cmds[i].host) == 0)
				break;
		}
		if (k < s->nprogs)
			continue;
		sp = &s->progs[s->nprogs];
		snprintf(sp->name, sizeof sp->name, "%s", plan->cmds[i].host);
		if (hostprog_resolve(sp->name, &sp->f, why, len) != 0)
			return (1);
		s->nprogs++;
		envp = serve_envp(&plan->cmds[i]);
		r = hostprog_version(&sp->f, envp, s->rundir,
		    serve_stop_pipe[0], SERVE_VERSION_MS, sp->version,
		    sizeof sp->version);
		free(envp);
		if (r != 0)
			return (SERVE_STOP);
		log_info("host program %s: %s (SHA-256 %s) %s", sp->name,
		    sp->f.path, sp->f.sha, sp->version);
	}
	if (s->nprogs == 0)
		return (0);
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_PROGS;
	msg.u.progs.n = s->nprogs;
	msg.u.progs.v = xcalloc(s->nprogs, sizeof *msg.u.progs.v);
	for (k = 0; k < s->nprogs; k++) {
		sp = &s->progs[k];
		snprintf(msg.u.progs.v[k].prog, sizeof msg.u.progs.v[k].prog,
		    "%s", sp->name);
		snprintf(msg.u.progs.v[k].path, sizeof msg.u.progs.v[k].path,
		    "%s", sp->f.path);
		memcpy(msg.u.progs.v[k].sha, sp->f.sha, PROTO_SHA_HEX);
		snprintf(msg.u.progs.v[k].version,
		    sizeof msg.u.progs.v[k].version, "%s", sp->version);
	}
	/* Detached (no coordinator), there is no one to tell. */
	r = s->detached ? 0 : serve_send(s, &msg);
	free(msg.u.progs.v);
	return (r);
}

/*
 * Verifies a plan's files, then runs its steps (from its journal when the
 * run is being resumed), journaling and streaming samples, and ends with
 * DONE. Returns 0, SERVE_STOP, or -1.
 */
static int
serve_plan(struct serve *s, const struct proto_plan *plan)
{
	struct proto_msg	 msg;
	struct cache_file	*files;
	struct journal_progress	 pr;
	const char		*code = "pin";	/* unless prepare says */
	char			 reason[256] = "";
	char			 why[sizeof msg.u.error.msg];
	uint32_t		 i, nsent = 0;
	int			 r, ok = 1;

	memset(&pr, 0, sizeof pr);
	s->cmd_ran = xcalloc(plan->ncmds + 1, 1);
	s->no_retry = xcalloc(plan->ncmds + 1, 1);
	files = xcalloc(plan->nfiles + 1, sizeof *files);
	for (i = 0; i <= plan->nfiles; i++)
		files[i].fd = -1;
	if (serve_plan_prepare(s, plan, files, &pr, &code, why,
	    sizeof why) != 0 || serve_plan_pin(s, plan, why, sizeof why) != 0) {
		r = serve_error(s, code, "%s", why);
		goto out;
	}
	serve_plan_counters(s, plan);
	serve_plan_hooks(s, plan);
	/* An open plan: as far as either the coordinator or the journal
	 * (grants a lost coordinator gave) says. */
	s->granted = plan->granted;
	s->final = 0;
	if (plan->granted > 0 && pr.granted > s->granted)
		s->granted = pr.granted;
	if (plan->granted > 0 && pr.final)
		s->final = 1;
	if ((r = serve_plan_progs(s, plan, why, sizeof why)) == 1) {
		r = serve_error(s, "program", "%s", why);
		goto out;
	}
	if (r != 0)
		goto out;
	r = serve_plan_steps(s, plan, files, &pr, &nsent, &ok, reason,
	    sizeof reason);
	if (r != 0)
		goto out;
	if (ok && s->hook_failed[0] != '\0') {
		ok = 0;
		snprintf(reason, sizeof reason, "%s", s->hook_failed);
	}
	s->plan_done = 1;
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_DONE;
	msg.u.done.nsamples = nsent;
	msg.u.done.ok = (uint8_t)ok;
	snprintf(msg.u.done.reason, sizeof msg.u.done.reason, "%s", reason);
	r = serve_send(s, &msg);
out:
	serve_plan_free(s);
	journal_progress_free(&pr);
	cache_files_close(files, plan->nfiles);
	free(files);
	free(s->cmd_ran);
	free(s->no_retry);
	s->cmd_ran = s->no_retry = NULL;
	return (r);
}

/* Answers the coordinator's HELLO. Returns 0, or -1 on a mismatch. */
static int
serve_hello(struct serve *s, const struct proto_hello *h)
{
	struct proto_msg	msg;

	if (h->proto != PROTO_VERSION) {
		serve_error(s, "version", "orch-agent %s speaks protocol %d "
		    "but the coordinator (orch %s) speaks %u: run orch deploy "
		    "to install a matching agent", ORCH_VERSION, PROTO_VERSION,
		    h->version, h->proto);
		return (-1);
	}
	if (strcmp(h->run_id, s->run_id) != 0) {
		serve_error(s, "run", "hello for run %s, but the key is for "
		    "run %s", h->run_id, s->run_id);
		return (-1);
	}
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_HELLO;
	msg.u.hello.proto = PROTO_VERSION;
	snprintf(msg.u.hello.version, sizeof msg.u.hello.version, "%s",
	    ORCH_VERSION);
	snprintf(msg.u.hello.run_id, sizeof msg.u.hello.run_id, "%s",
	    s->run_id);
	msg.u.hello.has_facts = 1;
	facts_collect(&msg.u.hello.facts);
	snprintf(msg.u.hello.facts.workdir, sizeof msg.u.hello.facts.workdir,
	    "%s", s->workdir);
	if (s->null_sha[0] != '\0' &&
	    msg.u.hello.facts.nextra < PROTO_FACTS_EXTRA_MAX) {
		struct proto_kv	*kv;

		kv = &msg.u.hello.facts.extra[msg.u.hello.facts.nextra++];
		snprintf(kv->key, sizeof kv->key, "null_sha");
		snprintf(kv->value, sizeof kv->value, "%s", s->null_sha);
	}
	return (serve_send(s, &msg));
}

/*
 * Sets up the stop pipe that SIGTERM and SIGINT close, and ignores the
 * SIGHUP and SIGPIPE of a dropped SSH session: a run carries on detached.
 * Returns 0 or -1.
 */
static int
serve_signals(void)
{
	struct sigaction	sa;

	if (pipe(serve_stop_pipe) == -1) {
		log_warn("pipe");
		return (-1);
	}
	fcntl(serve_stop_pipe[0], F_SETFD, FD_CLOEXEC);
	fcntl(serve_stop_pipe[1], F_SETFD, FD_CLOEXEC);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = serve_sigterm;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	return (0);
}

/*
 * Makes the workdir and its cache, both ours alone, and brings orch-null
 * into the cache. Returns 0, or -1 (logged).
 */
static int
serve_workdir(struct serve *s)
{
	char	path[PATH_MAX], err[CHAN_ERR_LEN];

	if (workdir_mkdirs(s->opts->workdir) == -1 ||
	    realpath(s->opts->workdir, s->workdir) == NULL) {
		log_warn("workdir %s", s->opts->workdir);
		return (-1);
	}
	if (workdir_check(s->workdir, err, sizeof err) != 0) {
		log_warnx("workdir %s", err);
		return (-1);
	}
	if (snprintf(path, sizeof path, "%s/cache", s->workdir) >=
	    (int)sizeof path || workdir_mkdirs(path) == -1) {
		log_warn("workdir %s/cache", s->workdir);
		return (-1);
	}
	if (workdir_check(path, err, sizeof err) != 0) {
		log_warnx("cache %s", err);
		return (-1);
	}
	cache_init(&s->cache, s->workdir);
	serve_install_null(s);
	return (0);
}

/*
 * Reads the key, opens the sealed channel and binds it, then prints the
 * endpoint line the coordinator waits for. Returns 0, or -1 (logged).
 */
static int
serve_listen(struct serve *s)
{
	uint8_t	key[PROTO_KEY_LEN];
	char	endpoint[PATH_MAX + 16], err[CHAN_ERR_LEN];
	int	r;

	if (serve_read_key(s, key) != 0)
		return (-1);
	snprintf(s->rundir, sizeof s->rundir, "%s/runs/%s", s->workdir,
	    s->run_id);
	r = chan_open(&s->chan, key, s->run_id, 1, err, sizeof err);
	OPENSSL_cleanse(key, sizeof key);
	if (r != 0) {
		log_warnx("%s", err);
		return (-1);
	}
	/*
	 * A PAIR socket serves the first peer that connects. On TCP that can
	 * be any local user (or, with --bind, any network peer) before the
	 * coordinator; a Unix socket inside the 0700 workdir admits only our
	 * own user, which the coordinator reaches over SSH (direct-streamlocal).
	 */
	if (s->opts->bind == NULL) {
		serve_sweep_sockets(s->workdir);
		if (serve_sockpath(s, err, sizeof err) != 0 ||
		    chan_bind_ipc(&s->chan, s->sockpath, endpoint,
		    sizeof endpoint, err, sizeof err) != 0) {
			log_warnx("%s", err);
			return (-1);
		}
	} else if (chan_bind_random(&s->chan, s->opts->bind, endpoint,
	    sizeof endpoint, err, sizeof err) != 0) {
		log_warnx("%s", err);
		return (-1);
	}
	printf("ORCH-AGENT %d %s %s\n", PROTO_VERSION, endpoint, ORCH_VERSION);
	fflush(stdout);
	log_debug("run %s: listening on %s, workdir %s", s->run_id, endpoint,
	    s->workdir);
	return (0);
}

/* Answers one message of the coordinator's. Returns 0, SERVE_STOP or -1. */
static int
serve_dispatch(struct serve *s, struct proto_msg *msg)
{
	switch (msg->type) {
	case PROTO_HELLO:
		return (serve_hello(s, &msg->u.hello));
	case PROTO_QUERY:
		return (serve_query(s, &msg->u.hashes));
	case PROTO_PLAN:
		s->linger_ms = msg->u.plan.linger_ms;
		return (serve_plan(s, &msg->u.plan));
	case PROTO_BYE:
		s->bye = 1;
		return (0);
	case PROTO_ACK:
		if ((int64_t)msg->u.ack.seq > s->acked)
			s->acked = msg->u.ack.seq;
		return (0);
	case PROTO_GRANT:
		return (0);	/* late: the plan it was for has ended */
	default:
		return (serve_error(s, "protocol", "unexpected %s",
		    proto_type_name(msg->type)));
	}
}

/*
 * Once no coordinator listens: a finished run holds the lock for a
 * resume, lingering, then goes. Returns the exit code.
 */
static int
serve_detached(struct serve *s)
{
	struct proto_msg	msg;

	if (!s->plan_done) {
		log_info("no plan to carry on: exiting");
		return (3);
	}
	log_info("run %s complete, uncollected: lingering %u s", s->run_id,
	    s->linger_ms / 1000);
	if (serve_wait(s, &msg, (int)s->linger_ms) == 0)
		proto_msg_free(&msg);
	return (0);
}

/*
 * Serves the coordinator, message by message, until BYE, a stop, an error
 * or the end of lingering once it is gone. Returns the exit code.
 */
static int
serve_loop(struct serve *s)
{
	struct proto_msg	msg;
	int			r, greeted = 0, timeout;

	for (;;) {
		if (s->detached)
			return (serve_detached(s));
		timeout = greeted ? SERVE_IDLE_TIMEOUT :
		    s->opts->hello_timeout_ms;
		r = serve_wait(s, &msg, timeout);
		if (r == SERVE_GONE)
			continue;
		if (r == SERVE_STOP) {
			log_info("stopped");
			return (0);
		}
		if (r == CHAN_TIMEOUT) {
			if (s->chan.peer_version != 0)
				log_warnx("the coordinator speaks protocol %d, "
				    "this agent %d", s->chan.peer_version,
				    PROTO_VERSION);
			else
				log_warnx("no message from the coordinator "
				    "within %d ms", timeout);
			return (3);
		}
		if (r != 0)
			return (3);
		if (!greeted && msg.type != PROTO_HELLO) {
			serve_error(s, "protocol", "expected hello, got %s",
			    proto_type_name(msg.type));
			proto_msg_free(&msg);
			return (3);
		}
		if (msg.type == PROTO_HELLO)
			greeted = 1;
		r = serve_dispatch(s, &msg);
		proto_msg_free(&msg);
		if (r == SERVE_STOP || s->bye)
			return (0);
		if (r != 0)
			return (3);
	}
}

int
serve_main(const struct serve_opts *opts)
{
	struct serve	s;
	int		code = 3;

	memset(&s, 0, sizeof s);
	s.opts = opts;
	s.chan.sock = -1;
	s.lockfd = -1;
	s.sent = s.acked = -1;
	s.journal = -1;
	if (serve_signals() != 0)
		return (3);
	if (exec_init() != 0) {
		log_warn("exec_init");
		return (3);
	}
	if (serve_workdir(&s) != 0)
		return (3);
	if (serve_listen(&s) == 0)
		code = serve_loop(&s);
	if (s.journal != -1)
		close(s.journal);
	if (s.lockfd != -1)
		close(s.lockfd);
	chan_close(&s.chan);
	if (s.sockpath[0] != '\0')
		unlink(s.sockpath);
	if (s.sockdir[0] != '\0')
		rmdir(s.sockdir);
	return (code);
}

int
serve_ctl(const char *workdir, const char *run_id, int stop)
{
	char	held[512];
	long	pid, n;
	int	r, i;

	r = workdir_lock_holder(workdir, held, sizeof held);
	n = journal_count(workdir, run_id);
	if (r == 1 && workdir_holder_of(held, run_id, &pid)) {
		if (!stop) {
			printf("running pid %ld journal %ld (%s)\n", pid, n,
			    held);
			return (0);
		}
		if (pid > 1 && kill((pid_t)pid, SIGTERM) == -1 &&
		    errno != ESRCH) {
			printf("error: cannot stop pid %ld: %s\n", pid,
			    strerror(errno));
			return (1);
		}
		for (i = 0; i < WORKDIR_LOCK_WAIT / 50; i++) {
			if (workdir_lock_holder(workdir, held, sizeof held) != 1)
				break;
			usleep(50 * 1000);
		}
		if (i == WORKDIR_LOCK_WAIT / 50) {
			printf("error: pid %ld did not stop within %d s\n", pid,
			    WORKDIR_LOCK_WAIT / 1000);
			return (1);
		}
		printf("stopped pid %ld journal %ld\n", pid, n);
		return (0);
	}
	if (r == 1)
		printf("%s journal %ld (another run holds the host: %s)\n",
		    stop ? "not-running" : "not-running", n, held);
	else
		printf("not-running journal %ld\n", n);
	return (0);
}
