/*
 * The agent's session: key on stdin, sealed PAIR socket, handshake, then
 * QUERY / PLAN / BYE from the coordinator. Standard input stays open as the
 * lifeline: when it closes the coordinator is gone, and the agent kills the
 * benchmark it is running and exits.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "agent/exec.h"
#include "agent/facts.h"
#include "agent/serve.h"
#include "proto/chan.h"
#include "proto/hash.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

extern char **environ;

#define SERVE_SEND_TIMEOUT	30000	/* ms to hand a message to the peer */
#define SERVE_IDLE_TIMEOUT	3600000	/* ms without a message: give up */
#define SERVE_GONE		-2	/* serve_wait: the lifeline closed */

struct serve_file {
	char	sha[PROTO_SHA_HEX];
	char	path[PATH_MAX];
	dev_t	dev;		/* identity verified at plan time: every run */
	ino_t	ino;		/* must execute this very file */
};

struct serve {
	const struct serve_opts	*opts;
	char			 workdir[PATH_MAX];
	char			 rundir[PATH_MAX];
	char			 run_id[64];
	struct chan		 chan;
	uint32_t		 seq;		/* next sample's seq */
	int			 bye;		/* BYE received */
	int			 lockfd;	/* WORKDIR/run.lock, held while a plan runs */
	char			 null_sha[PROTO_SHA_HEX];	/* orch-null in the cache, or "" */
	double			 self_load;	/* our own share of the load average */
	int64_t			 self_at;	/* when self_load was last brought up to date */
	int			 self_running;	/* a benchmark of ours runs now */
	const char		*counters;	/* the plan's, when the kernel allows */
	char			 ctrlist[128];	/* those the kernel accepted */
};

/* Returns milliseconds of CLOCK_MONOTONIC. */
static int64_t
serve_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Creates dir and its parents, mode 0700. Returns 0 or -1 (errno). */
static int
serve_mkdirs(const char *dir)
{
	char	tmp[PATH_MAX], *p;

	if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
			return (-1);
		*p = '/';
	}
	if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
		return (-1);
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
	int64_t		deadline = serve_now_ms() + s->opts->key_timeout_ms;
	struct pollfd	pfd;
	ssize_t		r;
	int		left, rv = -1;

	for (;;) {
		left = (int)(deadline - serve_now_ms());
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
 * Waits for the next message, at most timeout_ms, watching the lifeline.
 * Returns 0 with msg filled, CHAN_TIMEOUT, SERVE_GONE, or -1.
 */
static int
serve_wait(struct serve *s, struct proto_msg *msg, int timeout_ms)
{
	struct pollfd	pfd[2];
	char		buf[64], err[CHAN_ERR_LEN];
	int64_t		deadline = serve_now_ms() + timeout_ms;
	ssize_t		n;
	int		left, r;

	for (;;) {
		r = chan_recv(&s->chan, msg, 0, err, sizeof err);
		if (r != CHAN_TIMEOUT) {
			if (r == -1)
				log_warnx("%s", err);
			return (r);
		}
		left = (int)(deadline - serve_now_ms());
		if (left <= 0)
			return (CHAN_TIMEOUT);
		pfd[0].fd = 0;
		pfd[0].events = POLLIN;
		pfd[1].fd = chan_fd(&s->chan);
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, left) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll");
			return (-1);
		}
		if (pfd[0].revents != 0) {
			n = read(0, buf, sizeof buf);
			if (n == 0 || (n == -1 && errno != EINTR &&
			    errno != EAGAIN))
				return (SERVE_GONE);
		}
	}
}

/* Sends msg; returns 0 or -1 (logged). */
static int
serve_send(struct serve *s, const struct proto_msg *msg)
{
	char	err[CHAN_ERR_LEN];

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

/*
 * Checks that the cache holds the file with this hash, by hashing it.
 * Fills f when given. Returns 0, or -1 when missing or different (a
 * corrupt file is removed so a later push can replace it).
 */
static int
serve_cache_check(struct serve *s, const char *sha, struct serve_file *f)
{
	char		path[PATH_MAX], got[PROTO_SHA_HEX];
	struct stat	st;
	int		fd, r = -1;

	if (snprintf(path, sizeof path, "%s/cache/%s", s->workdir, sha) >=
	    (int)sizeof path)
		return (-1);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		goto out;
	if (hash_fd(fd, got) != 0)
		goto out;
	if (strcmp(got, sha) != 0) {
		log_warnx("cache file %s has hash %s: removed", path, got);
		unlink(path);
		goto out;
	}
	if (f != NULL) {
		snprintf(f->sha, sizeof f->sha, "%s", sha);
		snprintf(f->path, sizeof f->path, "%s", path);
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	}
	r = 0;
out:
	close(fd);
	return (r);
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
		if (serve_cache_check(s, q->sha[i], NULL) == 0)
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
	int64_t	now = serve_now_ms();
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
	char	src[PATH_MAX], dst[PATH_MAX], tmp[PATH_MAX], buf[65536], *slash;
	ssize_t	n;
	int	in = -1, out = -1, ok = 0;

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
	if (serve_cache_check(s, s->null_sha, NULL) == 0)
		return;
	snprintf(dst, sizeof dst, "%s/cache/%s", s->workdir, s->null_sha);
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", dst, (long)getpid());
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0700)) == -1)
		goto out;
	while ((n = read(in, buf, sizeof buf)) > 0) {
		if (write(out, buf, (size_t)n) != n)
			goto out;
	}
	if (n == 0 && close(out) == 0) {
		out = -1;
		ok = rename(tmp, dst) == 0;
	}
out:
	if (in != -1)
		close(in);
	if (out != -1)
		close(out);
	if (!ok) {
		log_warn("cannot install the floor program %s", src);
		unlink(tmp);
		s->null_sha[0] = '\0';
	}
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
	int64_t			start = serve_now_ms(), waited;
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
		waited = serve_now_ms() - start;
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
			if (msg.type == PROTO_BYE)
				s->bye = 1;
			proto_msg_free(&msg);
			if (s->bye)
				return (SERVE_GONE);
		} else if (r != CHAN_TIMEOUT)
			return (r);
		if (backoff < 30000)
			backoff *= 2;
	}
}

/* Handles messages that may arrive while a plan runs. Returns 0 or SERVE_GONE. */
static int
serve_poll_between(struct serve *s)
{
	struct proto_msg	msg;
	int			r;

	while ((r = serve_wait(s, &msg, 0)) == 0) {
		if (msg.type == PROTO_BYE)
			s->bye = 1;
		else if (msg.type != PROTO_ACK)
			log_warnx("ignored %s during a plan",
			    proto_type_name(msg.type));
		proto_msg_free(&msg);
		if (s->bye)
			return (SERVE_GONE);
	}
	return (r == SERVE_GONE ? SERVE_GONE : 0);
}

/* Runs one attempt of one step into smp. Returns 0, or SERVE_GONE. */
static int
serve_run_one(struct serve *s, const struct proto_plan *plan,
    const struct serve_file *files, uint32_t stepno, uint32_t attempt,
    struct proto_sample *smp)
{
	const struct proto_step	*step = &plan->steps[stepno];
	const struct proto_cmd	*cmd = &plan->cmds[step->cmd];
	const struct serve_file	*exe = NULL;
	struct exec_req		 req;
	struct stat		 st;
	char			**argv, **envp, exepath[PATH_MAX];
	size_t			 i;
	int			 r = 0;

	memset(smp, 0, sizeof *smp);
	smp->step = stepno;
	smp->cmd = step->cmd;
	smp->round = step->round;
	smp->warmup = step->warmup;
	smp->attempt = attempt;
	smp->load1 = facts_load1();
	for (i = 0; i < plan->nfiles; i++) {
		if (strcmp(files[i].sha, cmd->exe) == 0)
			exe = &files[i];
	}
	/* The plan check guarantees exe; the inode check catches a swap. */
	if (exe == NULL || stat(exe->path, &st) == -1 ||
	    st.st_dev != exe->dev || st.st_ino != exe->ino) {
		smp->status = PROTO_ST_FAILED;
		snprintf(smp->err_tail, sizeof smp->err_tail,
		    "program %s changed in the cache since it was verified",
		    cmd->exe);
		return (0);
	}
	argv = xcalloc(cmd->nargs + 2, sizeof *argv);
	snprintf(exepath, sizeof exepath, "%s", exe->path);
	argv[0] = exepath;
	for (i = 0; i < cmd->nargs; i++)
		argv[i + 1] = cmd->args[i];
	envp = serve_envp(cmd);

	memset(&req, 0, sizeof req);
	req.argv = argv;
	req.envp = envp;
	req.cwd = s->rundir;
	req.timeout_ms = cmd->timeout_ms;
	req.checksum_key = cmd->checksum_key;
	req.pin = plan->pin[0] != '\0' ? plan->pin : NULL;
	req.lifeline_fd = 0;
	req.counters = s->counters;
	serve_self_load(s, 1);
	if (exec_run(&req, smp) != 0)
		r = SERVE_GONE;
	serve_self_load(s, 0);
	free(argv);
	free(envp);
	return (r);
}

/*
 * Takes the host's run lock, WORKDIR/run.lock: one run per host at a time.
 * flock() dies with its holder, so a crashed run never leaves it stuck.
 * Returns 0, or -1 with who holds it in why.
 */
static int
serve_lock(struct serve *s, char *why, size_t len)
{
	char		 path[PATH_MAX], info[512], when[32], held[512];
	const char	*from = getenv("SSH_CLIENT"), *user = getenv("USER");
	struct tm	 tm;
	time_t		 now = time(NULL);
	ssize_t		 n;
	int		 fd;

	if (s->lockfd != -1)
		return (0);
	snprintf(path, sizeof path, "%s/run.lock", s->workdir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		return (-1);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		n = pread(fd, held, sizeof held - 1, 0);
		held[n > 0 ? n : 0] = '\0';
		held[strcspn(held, "\n")] = '\0';
		snprintf(why, len, "host busy: another orch run holds %s (%s)",
		    path, held[0] ? held : "no details");
		close(fd);
		return (-1);
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(info, sizeof info, "run %s, agent pid %ld, user %s, from %s, "
	    "since %s\n", s->run_id, (long)getpid(), user ? user : "?",
	    from ? from : "this machine", when);
	if (ftruncate(fd, 0) == -1 || pwrite(fd, info, strlen(info), 0) == -1)
		log_warn("%s", path);
	s->lockfd = fd;
	return (0);
}

/* Verifies a plan's files, then runs its steps, streaming samples. */
static int
serve_plan(struct serve *s, const struct proto_plan *plan)
{
	struct proto_msg	 msg;
	struct proto_sample	*smp;
	struct serve_file	*files;
	char			 reason[256] = "";
	uint32_t		 i, attempt, nsent = 0;
	int			 r = 0, ok = 1;

	files = xcalloc(plan->nfiles + 1, sizeof *files);
	if (serve_lock(s, reason, sizeof reason) != 0) {
		r = serve_error(s, "busy", "%s", reason);
		goto out;
	}
	for (i = 0; i < plan->nfiles; i++) {
		if (serve_cache_check(s, plan->files[i], &files[i]) != 0) {
			r = serve_error(s, "file", "file %s is not in the cache "
			    "of %s (or does not match its hash)",
			    plan->files[i], s->workdir);
			goto out;
		}
	}
	if (serve_mkdirs(s->rundir) == -1) {
		r = serve_error(s, "workdir", "cannot create %s: %s",
		    s->rundir, strerror(errno));
		goto out;
	}
	s->counters = NULL;
	if (plan->counters[0] != '\0') {
		struct facts_counters	probe;
		char			why[256], note[300];
		int			n, k;

		n = facts_counters_open(&probe, plan->counters, why,
		    sizeof why);
		s->ctrlist[0] = '\0';
		for (k = 0; k < n; k++)
			snprintf(s->ctrlist + strlen(s->ctrlist),
			    sizeof s->ctrlist - strlen(s->ctrlist), "%s%s",
			    k ? "," : "", probe.name[k]);
		facts_counters_close(&probe, NULL);
		if (n > 0)
			s->counters = s->ctrlist;
		if (n < 0 || why[0] != '\0') {
			snprintf(note, sizeof note, "counters not measured: %s",
			    why);
			log_info("%s", note);
			serve_status(s, "note", facts_load1(), 0, 0, note);
		}
	}

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_SAMPLE;
	smp = &msg.u.sample;
	for (i = 0; i < plan->nsteps && ok; i++) {
		if ((r = serve_poll_between(s)) != 0)
			goto out;
		r = serve_wait_quiet(s, plan, reason, sizeof reason);
		if (r == 1) {
			ok = 0;
			r = 0;
			break;
		}
		if (r != 0)
			goto out;
		for (attempt = 1; ; attempt++) {
			if ((r = serve_run_one(s, plan, files, i, attempt,
			    smp)) != 0)
				goto out;
			smp->seq = s->seq++;
			if (serve_send(s, &msg) != 0) {
				r = -1;
				goto out;
			}
			nsent++;
			if (smp->status != PROTO_ST_SIGNAL ||
			    attempt > plan->retries)
				break;
			log_info("step %u killed by signal %d: attempt %u",
			    i, smp->signal, attempt + 1);
		}
	}
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_DONE;
	msg.u.done.nsamples = nsent;
	msg.u.done.ok = (uint8_t)ok;
	snprintf(msg.u.done.reason, sizeof msg.u.done.reason, "%s", reason);
	r = serve_send(s, &msg);
out:
	free(files);
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

int
serve_main(const struct serve_opts *opts)
{
	struct serve		 s;
	struct proto_msg	 msg;
	uint8_t			 key[PROTO_KEY_LEN];
	char			 endpoint[128], err[CHAN_ERR_LEN];
	int			 r, greeted = 0, code = 3;

	memset(&s, 0, sizeof s);
	s.opts = opts;
	s.chan.sock = -1;
	s.lockfd = -1;
	if (exec_init() != 0) {
		log_warn("exec_init");
		return (3);
	}
	if (serve_mkdirs(opts->workdir) == -1 ||
	    realpath(opts->workdir, s.workdir) == NULL) {
		log_warn("workdir %s", opts->workdir);
		return (3);
	}
	if (snprintf(err, sizeof err, "%s/cache", s.workdir) >= (int)sizeof err ||
	    serve_mkdirs(err) == -1) {
		log_warn("workdir %s/cache", s.workdir);
		return (3);
	}
	serve_install_null(&s);
	if (serve_read_key(&s, key) != 0)
		return (3);
	snprintf(s.rundir, sizeof s.rundir, "%s/runs/%s", s.workdir, s.run_id);
	r = chan_open(&s.chan, key, s.run_id, 1, err, sizeof err);
	OPENSSL_cleanse(key, sizeof key);
	if (r != 0) {
		log_warnx("%s", err);
		return (3);
	}
	if (chan_bind_random(&s.chan, opts->bind, endpoint, sizeof endpoint,
	    err, sizeof err) != 0) {
		log_warnx("%s", err);
		goto out;
	}
	printf("ORCH-AGENT %d %s\n", PROTO_VERSION, endpoint);
	fflush(stdout);
	log_debug("run %s: listening on %s, workdir %s", s.run_id, endpoint,
	    s.workdir);

	for (;;) {
		r = serve_wait(&s, &msg, greeted ? SERVE_IDLE_TIMEOUT :
		    opts->hello_timeout_ms);
		if (r == SERVE_GONE) {
			log_debug("coordinator gone: exiting");
			code = s.bye ? 0 : 3;
			goto out;
		}
		if (r == CHAN_TIMEOUT) {
			if (s.chan.peer_version != 0)
				log_warnx("the coordinator speaks protocol %d, "
				    "this agent %d", s.chan.peer_version,
				    PROTO_VERSION);
			else
				log_warnx("no message from the coordinator "
				    "within %d ms", greeted ? SERVE_IDLE_TIMEOUT :
				    opts->hello_timeout_ms);
			goto out;
		}
		if (r != 0)
			goto out;
		if (!greeted && msg.type != PROTO_HELLO) {
			serve_error(&s, "protocol", "expected hello, got %s",
			    proto_type_name(msg.type));
			proto_msg_free(&msg);
			goto out;
		}
		switch (msg.type) {
		case PROTO_HELLO:
			r = serve_hello(&s, &msg.u.hello);
			greeted = 1;
			break;
		case PROTO_QUERY:
			r = serve_query(&s, &msg.u.hashes);
			break;
		case PROTO_PLAN:
			r = serve_plan(&s, &msg.u.plan);
			break;
		case PROTO_BYE:
			s.bye = 1;
			r = 0;
			break;
		case PROTO_ACK:
			r = 0;
			break;
		default:
			r = serve_error(&s, "protocol", "unexpected %s",
			    proto_type_name(msg.type));
			break;
		}
		proto_msg_free(&msg);
		if (r == SERVE_GONE || s.bye) {
			code = s.bye ? 0 : 3;
			goto out;
		}
		if (r != 0)
			goto out;
	}
out:
	if (s.lockfd != -1)
		close(s.lockfd);
	chan_close(&s.chan);
	return (code);
}
