/*
 * The built-in host `local`: orch-agent as a child process, spoken to over
 * the same sealed nanomsg protocol as a remote host, minus SSH.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coordinator/hosts/host-backend.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/defaults.h"
#include "proto/hash.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

extern char **environ;

#define LOCAL_START_TIMEOUT	15000	/* ms for the agent to print its
					   endpoint */
#define LOCAL_STOP_TIMEOUT	3000	/* ms for the agent to exit by itself */
#define LOCAL_TERM_TIMEOUT	10000	/* ms for it to exit after SIGTERM */

struct host_local {
	pid_t	pid;
	int	stdin_fd;	/* the agent's lifeline; closed to stop it */
	int	exited;
	int	wstatus;
};

static char	local_agent[PATH_MAX] = "orch-agent";

void
host_local_set_agent(const char *path)
{
	snprintf(local_agent, sizeof local_agent, "%s", path);
}

const char *
host_local_agent(void)
{
	return (local_agent);
}

void
host_local_init(struct host *h)
{
	const char	*wd;

	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "local");
	h->ops = &host_local_ops;
	h->max_load = -1;
	if ((wd = getenv("ORCH_WORKDIR")) != NULL)
		snprintf(h->workdir, sizeof h->workdir, "%s", wd);
	h->chan.sock = -1;
}

/* Reads one line from fd within timeout_ms. Returns its length or -1. */
static ssize_t
local_read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	struct pollfd	pfd;
	size_t		n = 0;
	ssize_t		r;

	while (n < len - 1) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		r = poll(&pfd, 1, timeout_ms);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return (-1);
		r = read(fd, buf + n, 1);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return (-1);
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return ((ssize_t)n);
}

/* Sets the host's workdir to $HOME/.orch unless one is configured. */
static void
local_workdir(struct host *h)
{
	const char	*hd;

	if (h->workdir[0] != '\0')
		return;
	if ((hd = getenv("HOME")) == NULL)
		hd = "/tmp";
	snprintf(h->workdir, sizeof h->workdir, "%s/%s", hd,
	    DEFAULT_WORKDIR_HOME);
}

/*
 * Reads the agent's announcement from fd: its endpoint (ipc:// or tcp://,
 * at most 128 bytes) into endpoint, of this protocol. Returns 0, or -1
 * with words in err.
 */
static int
local_announce(const struct host *h, int fd, char *endpoint, char *err,
    size_t errlen)
{
	char	line[256];
	int	proto;

	if (local_read_line(fd, line, sizeof line, LOCAL_START_TIMEOUT) < 0) {
		snprintf(err, errlen, "the agent %s printed no endpoint "
		    "within %d ms (see %s)", local_agent,
		    LOCAL_START_TIMEOUT, h->logpath);
		return (-1);
	}
	if (sscanf(line, "ORCH-AGENT %d %127s", &proto, endpoint) != 2 ||
	    (strncmp(endpoint, "ipc://", 6) != 0 &&
	    strncmp(endpoint, "tcp://", 6) != 0)) {
		snprintf(err, errlen, "the agent printed '%.100s', not an "
		    "endpoint", line);
		return (-1);
	}
	if (proto != PROTO_VERSION) {
		snprintf(err, errlen, "the agent %s speaks protocol %d, this "
		    "orch %d: rebuild both (make)", local_agent, proto,
		    PROTO_VERSION);
		return (-1);
	}
	return (0);
}

static int
local_start(struct host *h, const char *key_line, char *endpoint, size_t len,
    char *err, size_t errlen)
{
	struct host_local		*l;
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 sa;
	char				*argv[6], wdarg[PATH_MAX + 16];
	int				 in[2] = { -1, -1 },
	    out[2] = { -1, -1 };
	int				 argc = 0, e, r = -1;

	l = xcalloc(1, sizeof *l);
	l->pid = -1;
	l->stdin_fd = -1;
	h->priv = l;
	if (pipe(in) == -1 || pipe(out) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	fcntl(in[1], F_SETFD, FD_CLOEXEC);
	fcntl(out[0], F_SETFD, FD_CLOEXEC);
	local_workdir(h);
	snprintf(wdarg, sizeof wdarg, "--workdir=%s", h->workdir);
	argv[argc++] = local_agent;
	argv[argc++] = (char *)"serve";
	argv[argc++] = wdarg;
	if (h->verbose)
		argv[argc++] = (char *)"-v";
	argv[argc] = NULL;

	/*
	 * Its own process group: a Ctrl-C at the terminal stops orch, whose
	 * agent then carries on detached, as the agents of remote hosts do.
	 */
	posix_spawnattr_init(&sa);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&sa, 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	if (h->logpath[0] != '\0')
		posix_spawn_file_actions_addopen(&fa, 2, h->logpath,
		    O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
	e = posix_spawn(&l->pid, local_agent, &fa, &sa, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&sa);
	if (e != 0) {
		l->pid = -1;
		snprintf(err, errlen, "cannot start %s: %s", local_agent,
		    strerror(e));
		goto out;
	}
	close(in[0]);
	in[0] = -1;
	close(out[1]);
	out[1] = -1;
	l->stdin_fd = in[1];
	in[1] = -1;

	if (util_write_all(l->stdin_fd, key_line, strlen(key_line)) != 0) {
		snprintf(err, errlen, "cannot hand the key to the agent: %s",
		    strerror(errno));
		goto out;
	}
	if (local_announce(h, out[0], endpoint, err, errlen) != 0)
		goto out;
	(void)len;
	r = 0;
out:
	if (in[0] != -1)
		close(in[0]);
	if (in[1] != -1)
		close(in[1]);
	if (out[0] != -1)
		close(out[0]);
	if (out[1] != -1)
		close(out[1]);
	return (r);
}

/*
 * Puts the file pushed to tmp at dst. A plain file there already with the
 * right content stays, never replaced: two runs started at once both push
 * it, and the agent measuring with it holds the file it verified (a link,
 * which the agent never follows, is replaced). Returns 0 or -1 (errno).
 */
static int
local_push_place(const char *tmp, const char *dst, const char *sha)
{
	struct stat	st;
	char		have[PROTO_SHA_HEX];

	if (link(tmp, dst) == 0 || (errno == EEXIST && lstat(dst, &st) == 0 &&
	    S_ISREG(st.st_mode) && hash_file(dst, have) == 0 &&
	    strcmp(have, sha) == 0))
		return (unlink(tmp) == -1 && errno != ENOENT ? -1 : 0);
	return (rename(tmp, dst));
}

static int
local_push(struct host *h, const char *path, const char *sha, int executable,
    char *err, size_t errlen)
{
	static atomic_uint	pushes;
	char			dst[PATH_MAX], tmp[PATH_MAX], buf[1 << 16];
	ssize_t			n;
	int			in = -1, out = -1, r = -1, saved;

	/* One name per push: two hosts' threads of one workdir share a pid. */
	if (snprintf(dst, sizeof dst, "%s/cache/%s", h->facts.workdir, sha) >=
	    (int)sizeof dst ||
	    snprintf(tmp, sizeof tmp, "%s/cache/.tmp-%s-%ld-%u",
	    h->facts.workdir, sha, (long)getpid(),
	    atomic_fetch_add(&pushes, 1)) >= (int)sizeof tmp) {
		snprintf(err, errlen, "workdir path too long");
		return (-1);
	}
	if ((in = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	/*
	 * Never through a link planted at the temporary name, never into a
	 * file that is there already: one left by a dead orch of the same
	 * pid is removed first (a link's unlink removes the link only).
	 */
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    executable ? 0700 : 0600);
	if (out == -1 && errno == EEXIST && unlink(tmp) == 0)
		out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, executable ? 0700 : 0600);
	if (out == -1) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || util_write_all(out, buf, (size_t)n) != 0) {
			snprintf(err, errlen, "copy %s to %s: %s", path, tmp,
			    strerror(errno));
			goto out;
		}
	}
	if (fsync(out) == -1 || close(out) == -1) {
		out = -1;
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	out = -1;
	if (local_push_place(tmp, dst, sha) == -1) {
		snprintf(err, errlen, "rename %s: %s", dst, strerror(errno));
		goto out;
	}
	r = 0;
out:
	saved = errno;
	if (in != -1)
		close(in);
	if (out != -1)
		close(out);
	if (r != 0)
		unlink(tmp);
	errno = saved;
	return (r);
}

/* Reaps the agent if it has exited. */
static void
local_reap(struct host_local *l)
{
	if (l->pid > 0 && !l->exited && waitpid(l->pid, &l->wstatus,
	    WNOHANG) == l->pid)
		l->exited = 1;
}

static int
local_alive(struct host *h)
{
	struct host_local	*l = h->priv;

	if (l == NULL || l->pid <= 0)
		return (0);
	local_reap(l);
	return (!l->exited);
}

static void
local_stop(struct host *h)
{
	struct host_local	*l = h->priv;
	struct timespec		 ts = { 0, 10 * 1000 * 1000 };
	int			 i;

	if (l == NULL)
		return;
	if (l->stdin_fd != -1)
		close(l->stdin_fd);	/* the lifeline: the agent exits */
	/* Detached: the agent carries on with its plan, as if we were lost. */
	if (l->pid > 0 && !h->detach) {
		for (i = 0; i < LOCAL_STOP_TIMEOUT / 10; i++) {
			local_reap(l);
			if (l->exited)
				break;
			nanosleep(&ts, NULL);
		}
		/* Still running a plan: stop it (its benchmark too). */
		if (!l->exited) {
			kill(l->pid, SIGTERM);
			for (i = 0; i < LOCAL_TERM_TIMEOUT / 10; i++) {
				local_reap(l);
				if (l->exited)
					break;
				nanosleep(&ts, NULL);
			}
		}
		if (!l->exited) {
			log_warnx("%s: agent did not exit: killing it",
			    h->name);
			kill(l->pid, SIGKILL);
			waitpid(l->pid, &l->wstatus, 0);
		}
	}
	free(l);
	h->priv = NULL;
}

/* The local host runs the agent next to orch: nothing to install. */
static int
local_deploy(struct host *h, int force, char *how, size_t howlen, char *err,
    size_t errlen)
{
	(void)h;
	(void)force;
	(void)err;
	(void)errlen;
	snprintf(how, howlen, "runs %s directly", local_agent);
	return (0);
}

/* Nothing stands between orch and the local agent: only the session tells. */
static int
local_probe(struct host *h, struct host_probe *p, char *err, size_t errlen)
{
	(void)h;
	(void)err;
	(void)errlen;
	snprintf(p->reach, sizeof p->reach, "local");
	return (0);
}

static void
local_probe_open(struct host *h, struct host_probe *p)
{
	struct statvfs	sv;

	if (statvfs(h->facts.workdir, &sv) == 0)
		snprintf(p->disk, sizeof p->disk, "%.1f GiB",
		    (double)sv.f_bavail * (double)sv.f_frsize / (1 << 30));
}

/* The local host runs this machine's own agent: no other source. */
static int
local_agent_source(const struct host *h, char *buf, size_t len)
{
	(void)h;
	if (len > 0)
		buf[0] = '\0';
	return (-1);
}

static void
local_control(struct host *h, const char *verb, const char *run_id,
    char *line, size_t len)
{
	posix_spawn_file_actions_t	 fa;
	char				 wd[PATH_MAX + 16], run[128];
	char				*argv[5];
	struct pollfd			 pfd;
	ssize_t				 n;
	size_t				 got = 0;
	pid_t				 pid;
	int				 p[2], st;

	local_workdir(h);
	snprintf(line, len, "cannot ask the local agent");
	snprintf(wd, sizeof wd, "--workdir=%s", h->workdir);
	snprintf(run, sizeof run, "--run=%s", run_id);
	argv[0] = local_agent;
	argv[1] = (char *)(uintptr_t)verb;
	argv[2] = wd;
	argv[3] = run;
	argv[4] = NULL;
	if (pipe(p) == -1)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawn(&pid, local_agent, &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		close(p[1]);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	line[0] = '\0';
	pfd.fd = p[0];
	pfd.events = POLLIN;
	while (got < len - 1 && poll(&pfd, 1, CONTROL_LOCAL_TIMEOUT) == 1) {
		if ((n = read(p[0], line + got, len - 1 - got)) <= 0)
			break;
		got += (size_t)n;
	}
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
}

const struct host_ops host_local_ops = {
	"local",
	local_start,
	local_push,
	local_alive,
	local_stop,
	local_deploy,
	local_probe,
	local_probe_open,
	local_agent_source,
	local_control,
};
