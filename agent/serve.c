/*
 * The agent's session: key on stdin, sealed PAIR socket, handshake, then
 * QUERY / PLAN / BYE from the coordinator. Standard input stays open as the
 * lifeline: when it closes the coordinator is gone, and the agent kills the
 * benchmark it is running and exits.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "agent/cache.h"
#include "agent/exec.h"
#include "agent/facts.h"
#include "agent/journal.h"
#include "agent/serve-int.h"
#include "agent/serve.h"
#include "agent/workdir.h"
#include "proto/chan.h"
#include "proto/hash.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/util.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

#define SERVE_IDLE_TIMEOUT	3600000	/* ms without a message: give up */

/* Closed by the SIGTERM handler: its read end then polls as EOF. */
int			serve_stop_pipe[2] = { -1, -1 };
volatile sig_atomic_t	serve_stopped;
/* The stop pipe's write end, taken by whoever closes it first. */
static atomic_int	serve_stop_w = -1;
/* SIGUSR1 came: a resume's agent takes the run over (serve_attempt_begin). */
static atomic_int	serve_handover;
/* An attempt is in flight: from its journal record to its sample's. */
static atomic_int	serve_in_attempt;

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

/*
 * Closes the stop pipe, once, whichever thread's handler or the main
 * thread gets here first (nanomsg's threads take signals too): every poll
 * on its read end wakes, and the agent stops.
 */
static void
serve_stop_close(void)
{
	int	fd;

	serve_stopped = 1;
	if ((fd = atomic_exchange(&serve_stop_w, -1)) != -1)
		close(fd);
}

/* Stops the agent at SIGTERM or SIGINT: closing the pipe wakes every poll. */
static void
serve_sigterm(int sig)
{
	int	saved = errno;

	(void)sig;
	serve_stop_close();
	errno = saved;
}

/*
 * SIGUSR1, from the agent a resume started for this run and host
 * (workdir_lock): stop as SIGTERM does, but let an attempt in flight end
 * and journal its sample first, so the new agent goes on after it rather
 * than running it again as another attempt.
 */
static void
serve_sighandover(int sig)
{
	int	saved = errno;

	(void)sig;
	atomic_store(&serve_handover, 1);
	if (!atomic_load(&serve_in_attempt))
		serve_stop_close();
	errno = saved;
}

int
serve_attempt_begin(void)
{
	atomic_store(&serve_in_attempt, 1);
	if (atomic_load(&serve_handover)) {
		serve_attempt_end();
		return (SERVE_STOP);
	}
	return (0);
}

void
serve_attempt_end(void)
{
	atomic_store(&serve_in_attempt, 0);
	if (atomic_load(&serve_handover)) {
		if (!serve_stopped)
			log_info("handing the run over: its attempt in flight "
			    "ended and is journaled");
		serve_stop_close();
	}
}

/*
 * Sets up the stop pipe that SIGTERM and SIGINT close (SIGUSR1 too, once
 * no attempt is in flight), and ignores the SIGHUP and SIGPIPE of a
 * dropped SSH session: a run carries on detached.
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
	atomic_store(&serve_stop_w, serve_stop_pipe[1]);
	serve_stop_pipe[1] = -1;	/* serve_stop_w holds it */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = serve_sigterm;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = serve_sighandover;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	return (0);
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
	snprintf(slash + 1, sizeof src - (size_t)(slash + 1 - src),
	    "orch-null");
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
	 * own user, which the coordinator reaches over SSH
	 * (direct-streamlocal).
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
	r = serve_msg_send(s, &msg);
	free(msg.u.hashes.sha);
	return (r);
}

/*
 * Keeps the inventory name the coordinator serves us as, for the run lock
 * and the journal: one line of plain characters (others '?').
 */
static void
serve_hello_host(struct serve *s, const struct proto_hello *h)
{
	size_t	i;

	if (!h->has_host)
		return;
	snprintf(s->host, sizeof s->host, "%s", h->host);
	for (i = 0; s->host[i] != '\0'; i++) {
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@:[]",
		    s->host[i]) == NULL)
			s->host[i] = '?';
	}
}

/* Answers the coordinator's HELLO. Returns 0, or -1 on a mismatch. */
static int
serve_hello(struct serve *s, const struct proto_hello *h)
{
	struct proto_msg	msg;
	struct stat		st;

	if (h->proto != PROTO_VERSION) {
		serve_msg_error(s, "version", "orch-agent %s speaks protocol "
		    "%d but the coordinator (orch %s) speaks %u: run orch "
		    "deploy to install a matching agent", ORCH_VERSION,
		    PROTO_VERSION, h->version, h->proto);
		return (-1);
	}
	if (strcmp(h->run_id, s->run_id) != 0) {
		serve_msg_error(s, "run", "hello for run %s, but the key is "
		    "for run %s", h->run_id, s->run_id);
		return (-1);
	}
	serve_hello_host(s, h);
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
	/* With the machine's identity: two hosts that are one workdir. */
	if (stat(s->workdir, &st) == 0) {
		msg.u.hello.facts.workdir_dev = (uint64_t)st.st_dev;
		msg.u.hello.facts.workdir_ino = (uint64_t)st.st_ino;
	}
	if (s->null_sha[0] != '\0' &&
	    msg.u.hello.facts.nextra < PROTO_FACTS_EXTRA_MAX) {
		struct proto_kv	*kv;

		kv = &msg.u.hello.facts.extra[msg.u.hello.facts.nextra++];
		snprintf(kv->key, sizeof kv->key, "null_sha");
		snprintf(kv->value, sizeof kv->value, "%s", s->null_sha);
	}
	return (serve_msg_send(s, &msg));
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
		return (serve_msg_error(s, "protocol", "unexpected %s",
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
	if (serve_msg_wait(s, &msg, (int)s->linger_ms) == 0)
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
		r = serve_msg_wait(s, &msg, timeout);
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
			serve_msg_error(s, "protocol", "expected hello, got %s",
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
			if (workdir_lock_holder(workdir, held,
			    sizeof held) != 1)
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
