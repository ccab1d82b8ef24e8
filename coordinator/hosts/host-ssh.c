/*
 * Lab hosts over SSH: the agent started by an exec channel (the run key on
 * its stdin, which stays open as its lifeline), files pushed by SFTP into
 * its cache, and — with transport=tunnel — the nanomsg connection relayed
 * through a direct-streamlocal channel to the agent's Unix socket inside
 * its 0700 workdir, so only the SSH port must be reachable and no other
 * user of either machine can take the agent's (first-come) PAIR socket:
 * our end of the relay is a Unix socket in a 0700 directory too.
 *
 * libssh2 sessions are not thread-safe: a relay thread owns the session
 * between calls, and every use holds the host's mutex.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coordinator/hosts/deploy.h"
#include "coordinator/hosts/host-backend.h"
#include "coordinator/hosts/host-route.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/shell.h"
#include "coordinator/hosts/ssh.h"
#include "coordinator/input/defaults.h"
#include "proto/be.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

#define HS_START_TIMEOUT	20000	/* ms for the agent's endpoint line */
#define HS_STOP_TIMEOUT		5000	/* ms for the agent to exit */
#define HS_BUF			65536
#define HS_EP_LEN		200	/* the agent's endpoint, %199s below */
#define HS_CLOSE_TIMEOUT	2000	/* ms for a channel's EOF and close */

struct host_ssh {
	struct ssh	 ssh;
	LIBSSH2_CHANNEL	*exec;		/* the agent; stdin is its lifeline */
	LIBSSH2_CHANNEL	*fwd;		/* direct-streamlocal to the agent */
	int		 lfd;		/* local listener nanomsg connects to */
	int		 cfd;		/* nanomsg's connection, accepted */
	char		 agent_sock[HS_EP_LEN];	/* the agent's socket path */
	char		 ldir[64];	/* our 0700 directory holding lsock */
	char		 lsock[128];	/* our listener's path, or "" */
	int		 logfd;		/* the agent's stderr goes here */
	pthread_t	 thread;
	int		 running;
	pthread_mutex_t	 mtx;
	/* Set by one thread, read by the other: atomic, not volatile. */
	atomic_int	 quit;
	atomic_int	 dead;		/* the agent's channel closed */
	char		 up[HS_BUF];	/* bytes from cfd not yet in fwd */
	size_t		 uplen, upoff;
};

static int	hs_accept_new;		/* --accept-new-host-keys */

void
host_ssh_accept_new(int on)
{
	hs_accept_new = on;
}

/* Fills one SSH target: a host's or a jump host's settings. */
static void
hs_target_one(struct ssh_target *t, const char *name, const char *address,
    int port, const char *user, const char *identity,
    const struct host_reach *reach, const struct ssh_target *jump)
{
	memset(t, 0, sizeof *t);
	t->name = name;
	t->address = address;
	t->port = port > 0 ? port : DEFAULT_SSH_PORT;
	t->user = user;
	t->identity = identity;
	t->reach = reach;
	t->accept_new = hs_accept_new;
	t->timeout_ms = reach != NULL && reach->timeout_ms > 0 ?
	    reach->timeout_ms : SSH_CONNECT_TIMEOUT;
	t->jump = jump;
}

/*
 * Fills an SSH target from a host's settings, its jump hosts (if any) in
 * hops, each reached through the one before. A host without a route (none
 * from the inventory) has no ssh_config settings and no jump host.
 */
static void
hs_target(const struct host *h, struct ssh_target *t,
    struct ssh_target hops[HOST_HOPS_MAX])
{
	const struct host_route	*r = h->route;
	const struct host_hop	*p;
	size_t			 i;

	for (i = 0; r != NULL && i < r->nhops && i < HOST_HOPS_MAX; i++) {
		p = &r->hops[i];
		hs_target_one(&hops[i], p->name, p->address, p->port, p->user,
		    p->identity, &p->reach, i > 0 ? &hops[i - 1] : NULL);
	}
	hs_target_one(t, h->name, h->address, h->port, h->user, h->identity,
	    r != NULL ? &r->reach : NULL, i > 0 ? &hops[i - 1] : NULL);
}

void
host_ssh_target(const struct host *h, struct ssh_target *t,
    struct ssh_target *hops)
{
	hs_target(h, t, hops);
}

/* Closes the tunnel's current connection, both ends. */
static void
hs_drop_conn(struct host_ssh *x)
{
	if (x->fwd != NULL) {
		libssh2_channel_send_eof(x->fwd);
		libssh2_channel_close(x->fwd);
		libssh2_channel_free(x->fwd);
		x->fwd = NULL;
	}
	if (x->cfd != -1)
		close(x->cfd);
	x->cfd = -1;
	x->uplen = x->upoff = 0;
}

/*
 * Opens a direct-streamlocal@openssh.com channel to the agent's socket
 * (OpenSSH PROTOCOL 2.4; libssh2 1.10 has no call of its own for it, so
 * the request is built here: string path, string reserved, uint32
 * reserved). Returns the channel, or NULL (EAGAIN in non-blocking mode
 * means call again with the same arguments).
 */
static LIBSSH2_CHANNEL *
hs_streamlocal(struct host_ssh *x)
{
	static const char	 type[] = "direct-streamlocal@openssh.com";
	unsigned char		 msg[4 + HS_EP_LEN + 8];
	size_t			 plen = strlen(x->agent_sock), n = 0;

	be32_put(msg, (uint32_t)plen);
	n += 4;
	memcpy(msg + n, x->agent_sock, plen);
	n += plen;
	memset(msg + n, 0, 8);
	n += 8;
	return (libssh2_channel_open_ex(x->ssh.session, type,
	    sizeof type - 1, LIBSSH2_CHANNEL_WINDOW_DEFAULT,
	    LIBSSH2_CHANNEL_PACKET_DEFAULT, (const char *)msg,
	    (unsigned int)n));
}

/*
 * Moves the agent's stderr to its log (stdout has nothing more for us)
 * and notes when its channel closed. Returns 1 when anything happened.
 */
static int
hs_pump_agent(struct host *h, struct host_ssh *x)
{
	char	buf[HS_BUF];
	ssize_t	n;
	int	moved = 0;

	if (x->exec == NULL || x->dead)
		return (0);
	while ((n = libssh2_channel_read_stderr(x->exec, buf,
	    sizeof buf)) > 0) {
		moved = 1;
		if (x->logfd != -1 &&
		    util_write_all(x->logfd, buf, (size_t)n) != 0)
			log_debug("%s: agent log write failed", h->name);
	}
	while ((n = libssh2_channel_read(x->exec, buf, sizeof buf)) > 0)
		moved = 1;
	if (libssh2_channel_eof(x->exec) ||
	    (n < 0 && n != LIBSSH2_ERROR_EAGAIN)) {
		x->dead = 1;
		moved = 1;
	}
	return (moved);
}

/*
 * Relays the tunnel's bytes both ways, agent to coordinator first.
 * Returns 1 when it moved bytes or dropped the connection.
 */
static int
hs_pump_tunnel(struct host_ssh *x)
{
	char	buf[HS_BUF];
	ssize_t	n;
	int	moved = 0;

	while ((n = libssh2_channel_read(x->fwd, buf, sizeof buf)) > 0) {
		moved = 1;
		if (util_write_all(x->cfd, buf, (size_t)n) != 0) {
			hs_drop_conn(x);
			return (1);
		}
	}
	if (libssh2_channel_eof(x->fwd) ||
	    (n < 0 && n != LIBSSH2_ERROR_EAGAIN)) {
		hs_drop_conn(x);
		return (1);
	}
	for (;;) {
		if (x->upoff == x->uplen) {
			x->upoff = x->uplen = 0;
			n = read(x->cfd, x->up, sizeof x->up);
			if (n == 0 || (n == -1 && errno != EAGAIN &&
			    errno != EINTR)) {
				hs_drop_conn(x);
				return (1);
			}
			if (n <= 0)
				break;
			x->uplen = (size_t)n;
		}
		n = libssh2_channel_write(x->fwd, x->up + x->upoff,
		    x->uplen - x->upoff);
		if (n == LIBSSH2_ERROR_EAGAIN)
			break;
		if (n < 0) {
			hs_drop_conn(x);
			return (1);
		}
		x->upoff += (size_t)n;
		moved = 1;
	}
	return (moved);
}

/* One pass of the relay, under the mutex. Returns 1 when it moved bytes. */
static int
hs_pump(struct host *h, struct host_ssh *x)
{
	int	moved, fd, ignored;

	libssh2_session_set_blocking(x->ssh.session, 0);
	libssh2_keepalive_send(x->ssh.session, &ignored);
	moved = hs_pump_agent(h, x);
	if (x->lfd == -1)
		return (moved);

	/* nanomsg (re)connects: relay the new connection. */
	if (x->cfd == -1 && x->fwd == NULL &&
	    (fd = accept(x->lfd, NULL, NULL)) != -1) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		x->cfd = fd;
		moved = 1;
	}
	if (x->cfd != -1 && x->fwd == NULL) {
		x->fwd = hs_streamlocal(x);
		if (x->fwd == NULL && libssh2_session_last_errno(
		    x->ssh.session) != LIBSSH2_ERROR_EAGAIN) {
			/*
			 * nanomsg reconnects after the agent went: at the
			 * end of every run, so only news while it runs.
			 */
			if (!x->quit && !x->dead && h->connected)
				log_debug("%s: cannot open the tunnel to the "
				    "agent", h->name);
			hs_drop_conn(x);
		}
		return (1);
	}
	if (x->fwd == NULL)
		return (moved);
	return (hs_pump_tunnel(x) || moved);
}

/* The relay thread: pumps until told to quit. */
static void *
hs_thread(void *arg)
{
	struct host		*h = arg;
	struct host_ssh		*x = h->priv;
	struct pollfd		 pfd[3];
	int			 n, moved, dir;

	while (!x->quit) {
		pthread_mutex_lock(&x->mtx);
		moved = hs_pump(h, x);
		dir = libssh2_session_block_directions(x->ssh.session);
		pthread_mutex_unlock(&x->mtx);
		if (moved)
			continue;
		n = 0;
		pfd[n].fd = x->ssh.sock;
		pfd[n].events = POLLIN;
		if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
			pfd[n].events |= POLLOUT;
		n++;
		if (x->lfd != -1 && x->cfd == -1) {
			pfd[n].fd = x->lfd;
			pfd[n++].events = POLLIN;
		}
		if (x->cfd != -1 && x->upoff == x->uplen) {
			pfd[n].fd = x->cfd;
			pfd[n++].events = POLLIN;
		}
		poll(pfd, (nfds_t)n, 200);
	}
	return (NULL);
}

/*
 * Opens the relay's listener: a Unix socket in a fresh 0700 directory, so
 * that only our own user can connect to it before nanomsg does (a
 * loopback TCP port would admit any local user). Returns fd or -1 (errno).
 */
static int
hs_listen(struct host_ssh *x)
{
	struct sockaddr_un	sun;
	const char		*tmp = getenv("TMPDIR");
	int			fd, saved;

	if (tmp == NULL || *tmp == '\0' || strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(x->ldir, sizeof x->ldir, "%s/orch-relay.XXXXXX", tmp);
	if (mkdtemp(x->ldir) == NULL) {
		x->ldir[0] = '\0';
		return (-1);
	}
	snprintf(x->lsock, sizeof x->lsock, "%s/s", x->ldir);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", x->lsock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return (-1);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof sun) == -1 ||
	    listen(fd, 4) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return (-1);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return (fd);
}

/* Removes the relay's listener socket and its directory. */
static void
hs_unlisten(struct host_ssh *x)
{
	if (x->lfd != -1)
		close(x->lfd);
	x->lfd = -1;
	if (x->lsock[0] != '\0')
		unlink(x->lsock);
	if (x->ldir[0] != '\0')
		rmdir(x->ldir);
	x->lsock[0] = x->ldir[0] = '\0';
}

/* Reads the agent's endpoint line from the exec channel (blocking). */
static int
hs_read_line(struct host_ssh *x, char *line, size_t len)
{
	size_t	n = 0;
	ssize_t	r;

	libssh2_session_set_timeout(x->ssh.session, HS_START_TIMEOUT);
	while (n < len - 1) {
		r = libssh2_channel_read(x->exec, line + n, 1);
		if (r <= 0)
			return (-1);
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	libssh2_session_set_timeout(x->ssh.session, 0);
	return (0);
}

/*
 * Starts the agent with argv on a new exec channel, hands it the key line
 * and reads its announcement: its endpoint into ep. Returns 0 when a current
 * agent answered; 1 when none did (missing, failed, or of another version or
 * protocol: why says which); -1 when SSH itself failed (why set).
 */
static int
hs_exec(struct host_ssh *x, char *const argv[], const char *key_line,
    char ep[HS_EP_LEN], char *why, size_t whylen)
{
	char	line[256], errb[4096], ver[64], cmd[SHELL_CMD_MAX];
	int	proto, n;
	ssize_t	r;

	if (shell_command(cmd, sizeof cmd, argv) != 0) {
		snprintf(why, whylen, "the agent's command line is longer "
		    "than %d bytes", SHELL_CMD_MAX - 1);
		return (-1);
	}
	libssh2_session_set_blocking(x->ssh.session, 1);
	libssh2_session_set_timeout(x->ssh.session, HS_START_TIMEOUT);
	if ((x->exec = libssh2_channel_open_session(x->ssh.session)) == NULL ||
	    libssh2_channel_exec(x->exec, cmd) != 0) {
		snprintf(why, whylen, "cannot start the agent over SSH");
		return (-1);
	}
	if (libssh2_channel_write(x->exec, key_line, strlen(key_line)) !=
	    (ssize_t)strlen(key_line)) {
		snprintf(why, whylen, "cannot hand the key to the agent");
		return (-1);
	}
	if (hs_read_line(x, line, sizeof line) != 0) {
		errb[0] = '\0';
		libssh2_session_set_blocking(x->ssh.session, 0);
		r = libssh2_channel_read_stderr(x->exec, errb,
		    sizeof errb - 1);
		errb[r > 0 ? r : 0] = '\0';
		errb[strcspn(errb, "\n")] = '\0';
		snprintf(why, whylen, "the agent printed no endpoint within "
		    "%d s%s%.300s", HS_START_TIMEOUT / 1000,
		    errb[0] ? ": " : "", errb);
		return (1);
	}
	ver[0] = '\0';
	n = sscanf(line, "ORCH-AGENT %d %199s %63s", &proto, ep, ver);
	if (n < 2) {
		snprintf(why, whylen, "the agent printed '%.100s', not an "
		    "endpoint of protocol %d", line, PROTO_VERSION);
		return (1);
	}
	if (proto != PROTO_VERSION || strcmp(ver, ORCH_VERSION) != 0) {
		snprintf(why, whylen, "the agent is %s%s, protocol %d; this "
		    "orch is %s, protocol %d", ver[0] ? "version " : "",
		    ver[0] ? ver : "older", proto, ORCH_VERSION,
		    PROTO_VERSION);
		return (1);
	}
	return (0);
}

/*
 * Writes the agent's command line for the host into argv (at most 7
 * words and the NULL), its words in the caller's buffers.
 */
static int
hs_agent_argv(const struct host *h, char *argv[8], char *agent, size_t alen,
    char *wdopt, size_t wlen, char *bindopt, size_t blen)
{
	char	wd[PATH_MAX];
	int	n = 0;

	if (deploy_workdir(h, wd, sizeof wd) != 0)
		return (-1);
	snprintf(agent, alen, "%s/bin/orch-agent", wd);
	snprintf(wdopt, wlen, "--workdir=%s", wd);
	snprintf(bindopt, blen, "--bind=%s", h->address);
	argv[n++] = (char *)(uintptr_t)"exec";
	argv[n++] = agent;
	argv[n++] = (char *)(uintptr_t)"serve";
	argv[n++] = wdopt;
	if (h->transport == HOST_TRANSPORT_DIRECT)
		argv[n++] = bindopt;
	if (h->verbose)
		argv[n++] = (char *)(uintptr_t)"-v";
	argv[n] = NULL;
	return (0);
}

/*
 * Sets up the coordinator's side of the connection to the announced
 * endpoint ep: a tcp:// one is used as it is; an ipc:// one (tunnel) gets
 * our relay's listener. Writes what nanomsg connects to into endpoint.
 * Returns 0, or -1 with words in err.
 */
static int
hs_endpoint(struct host *h, struct host_ssh *x, const char *ep,
    char *endpoint, size_t len, char *err, size_t errlen)
{
	if (h->transport == HOST_TRANSPORT_DIRECT) {
		if (strncmp(ep, "tcp://", 6) != 0) {
			snprintf(err, errlen, "the agent announced '%.100s', "
			    "not a tcp:// endpoint", ep);
			return (-1);
		}
		snprintf(endpoint, len, "%s", ep);
		return (0);
	}
	if (strncmp(ep, "ipc:///", 7) != 0) {
		snprintf(err, errlen, "the agent announced '%.100s', not an "
		    "ipc:// endpoint", ep);
		return (-1);
	}
	snprintf(x->agent_sock, sizeof x->agent_sock, "%s", ep + 6);
	if ((x->lfd = hs_listen(x)) == -1) {
		snprintf(err, errlen, "cannot listen on %s: %s",
		    x->lsock[0] ? x->lsock : "a relay socket", strerror(errno));
		hs_unlisten(x);
		return (-1);
	}
	snprintf(endpoint, len, "ipc://%s", x->lsock);
	return (0);
}

static int
hs_start(struct host *h, const char *key_line, char *endpoint, size_t len,
    char *err, size_t errlen)
{
	struct host_ssh		*x;
	struct ssh_target	 t, hops[HOST_HOPS_MAX];
	char			 agent[PATH_MAX + 32], wdopt[PATH_MAX + 16];
	char			 bindopt[sizeof h->address + 8];
	char			*argv[8];
	char			 ep[HS_EP_LEN], how[256], why[512];
	int			 r, tries;

	x = xcalloc(1, sizeof *x);
	x->lfd = x->cfd = x->logfd = -1;
	x->ssh.sock = x->ssh.pumpfd = -1;
	pthread_mutex_init(&x->mtx, NULL);
	h->priv = x;
	if (h->logpath[0] != '\0')
		x->logfd = open(h->logpath, O_WRONLY | O_CREAT | O_APPEND |
		    O_NOFOLLOW | O_CLOEXEC, 0600);

	hs_target(h, &t, hops);
	if (ssh_open(&x->ssh, &t, err, errlen) != 0)
		return (-1);
	/* The workdir is checked before its bin/orch-agent runs. */
	if (deploy_workdir_check(&x->ssh, h, err, errlen) != 0)
		return (-1);
	if (hs_agent_argv(h, argv, agent, sizeof agent, wdopt, sizeof wdopt,
	    bindopt, sizeof bindopt) != 0) {
		snprintf(err, errlen, "bad workdir '%s'", h->workdir);
		return (-1);
	}

	/*
	 * Straight to the agent: when it is current (nearly every run) that
	 * is the one command this host runs. When it is missing, of another
	 * version or failed, deploy it (or, for a no-deploy host, say to)
	 * and start it once more; then its own words are the error.
	 */
	for (tries = 0;; tries++) {
		r = hs_exec(x, argv, key_line, ep, why, sizeof why);
		if (r == 0)
			break;
		if (r < 0 || tries > 0) {
			snprintf(err, errlen, "%s", why);
			return (-1);
		}
		log_debug("%s: %s", h->name, why);
		libssh2_session_set_blocking(x->ssh.session, 1);
		libssh2_channel_free(x->exec);
		x->exec = NULL;
		if (deploy_agent(&x->ssh, h, h->no_deploy ? -1 : 0, how,
		    sizeof how, err, errlen) != 0)
			return (-1);
		log_debug("%s: agent %s", h->name, how);
	}
	if (hs_endpoint(h, x, ep, endpoint, len, err, errlen) != 0)
		return (-1);
	libssh2_session_set_timeout(x->ssh.session, 0);
	if (pthread_create(&x->thread, NULL, hs_thread, h) != 0) {
		snprintf(err, errlen, "cannot start the relay thread");
		return (-1);
	}
	x->running = 1;
	return (0);
}

static int
hs_push(struct host *h, const char *path, const char *sha, int executable,
    char *err, size_t errlen)
{
	struct host_ssh	*x = h->priv;
	char		 remote[PATH_MAX];
	uint64_t	 bytes;
	int		 r;

	snprintf(remote, sizeof remote, "%s/cache/%s", h->facts.workdir, sha);
	pthread_mutex_lock(&x->mtx);
	r = ssh_put(&x->ssh, path, remote, executable ? 0700 : 0600,
	    SSH_PUT_KEEP, &bytes, err, errlen);
	libssh2_session_set_blocking(x->ssh.session, 0);
	pthread_mutex_unlock(&x->mtx);
	return (r);
}

static int
hs_alive(struct host *h)
{
	struct host_ssh	*x = h->priv;

	return (x != NULL && x->running && !x->dead);
}

/*
 * Runs the agent's verb ("status", "stop") for run_id over s: its stdout
 * into out, its stderr into errb. Returns ssh_run()'s answer, or -3 when
 * the workdir does not fit.
 */
static int
hs_agent_run(struct ssh *s, const struct host *h, const char *verb,
    const char *run_id, char *out, size_t outlen, char *errb, size_t errlen)
{
	char	wd[PATH_MAX], agent[PATH_MAX + 32], wdopt[PATH_MAX + 16];
	char	runopt[PROTO_NAME_MAX + 16];
	char	*argv[] = { agent, (char *)(uintptr_t)verb, wdopt, runopt,
		    NULL };

	if (deploy_workdir(h, wd, sizeof wd) != 0)
		return (-3);
	snprintf(agent, sizeof agent, "%s/bin/orch-agent", wd);
	snprintf(wdopt, sizeof wdopt, "--workdir=%s", wd);
	snprintf(runopt, sizeof runopt, "--run=%s", run_id);
	return (ssh_run(s, argv, NULL, out, outlen, errb, errlen,
	    CONTROL_SSH_TIMEOUT));
}

static void
hs_stop(struct host *h)
{
	struct host_ssh		*x = h->priv;
	struct timespec		 ts = { 0, 20 * 1000 * 1000 };
	int			 i;

	if (x == NULL)
		return;
	if (x->exec != NULL && !h->detach) {
		/* Close the lifeline: the agent exits by itself. */
		pthread_mutex_lock(&x->mtx);
		libssh2_session_set_blocking(x->ssh.session, 1);
		libssh2_session_set_timeout(x->ssh.session, HS_CLOSE_TIMEOUT);
		libssh2_channel_send_eof(x->exec);
		libssh2_session_set_timeout(x->ssh.session, 0);
		pthread_mutex_unlock(&x->mtx);
		for (i = 0; x->running && i < HS_STOP_TIMEOUT / 20 && !x->dead;
		    i++)
			nanosleep(&ts, NULL);
	}
	x->quit = 1;
	if (x->running)
		pthread_join(x->thread, NULL);
	x->running = 0;
	/* Detached: the session's end leaves the agent measuring. */
	if (x->exec != NULL && !x->dead && h->run_id[0] != '\0' &&
	    !h->detach) {
		/* Still running a plan: stop it over a channel of its own. */
		char	out[512], errb[512];
		int	r;

		r = hs_agent_run(&x->ssh, h, "stop", h->run_id, out,
		    sizeof out, errb, sizeof errb);
		if (r != 0 && r != -3)
			log_warnx("%s: cannot stop the agent: %s", h->name,
			    errb);
	}
	if (x->ssh.session != NULL) {
		libssh2_session_set_blocking(x->ssh.session, 1);
		libssh2_session_set_timeout(x->ssh.session, HS_CLOSE_TIMEOUT);
		hs_drop_conn(x);
		if (x->exec != NULL) {
			libssh2_channel_close(x->exec);
			libssh2_channel_free(x->exec);
		}
	}
	ssh_close(&x->ssh);
	hs_unlisten(x);
	if (x->cfd != -1)
		close(x->cfd);
	if (x->logfd != -1)
		close(x->logfd);
	pthread_mutex_destroy(&x->mtx);
	free(x);
	h->priv = NULL;
}

static int
hs_deploy(struct host *h, int force, char *how, size_t howlen, char *err,
    size_t errlen)
{
	struct ssh		s;
	struct ssh_target	t, hops[HOST_HOPS_MAX];
	int			r;

	hs_target(h, &t, hops);
	if (ssh_open(&s, &t, err, errlen) != 0)
		return (-1);
	r = deploy_agent(&s, h, force, how, howlen, err, errlen);
	ssh_close(&s);
	return (r);
}

/* Fills p from ssh_open's words about why it failed. */
static void
hs_probe_failed(const char *err, struct host_probe *p)
{
	if (strstr(err, "cannot connect") != NULL ||
	    strstr(err, "cannot reach") != NULL ||
	    strstr(err, "resolve") != NULL)
		snprintf(p->reach, sizeof p->reach, "no");
	else
		snprintf(p->reach, sizeof p->reach, "yes");
	if (strstr(err, "host key") != NULL || strstr(err, "HOST KEY") != NULL)
		snprintf(p->hostkey, sizeof p->hostkey, "REFUSED");
	else if (strstr(err, "authentication") != NULL) {
		snprintf(p->hostkey, sizeof p->hostkey, "ok");
		snprintf(p->auth, sizeof p->auth, "FAILED");
	}
}

/* Writes the free space in the host's workdir (made if missing) to p->disk. */
static void
hs_probe_disk(struct ssh *s, const struct host *h, struct host_probe *p)
{
	char			 wd[PATH_MAX], out[1024], errb[1024];
	char			*argv[] = { (char *)(uintptr_t)"sh",
				    (char *)(uintptr_t)"-c",
				    (char *)(uintptr_t)"mkdir -p \"$1\" && "
				    "df -Pk \"$1\" | tail -1",
				    (char *)(uintptr_t)"orch-check", wd, NULL };
	unsigned long long	 kb;

	if (deploy_workdir(h, wd, sizeof wd) != 0)
		return;
	if (ssh_run(s, argv, NULL, out, sizeof out, errb, sizeof errb,
	    CHECK_DF_TIMEOUT) == 0 &&
	    sscanf(out, "%*s %*s %*s %llu", &kb) == 1)
		snprintf(p->disk, sizeof p->disk, "%.1f GiB",
		    (double)kb / (1024 * 1024));
}

static int
hs_probe(struct host *h, struct host_probe *p, char *err, size_t errlen)
{
	struct ssh		 s;
	struct ssh_target	 t, hops[HOST_HOPS_MAX];
	char			 how[256];

	hs_target(h, &t, hops);
	if (ssh_open(&s, &t, err, errlen) != 0) {
		hs_probe_failed(err, p);
		return (-1);
	}
	snprintf(p->reach, sizeof p->reach, "yes");
	snprintf(p->hostkey, sizeof p->hostkey, "%s", s.hostkey_status);
	snprintf(p->auth, sizeof p->auth, "ok");
	if (deploy_agent(&s, h, -1, how, sizeof how, err, errlen) != 0) {
		snprintf(p->agent, sizeof p->agent, "%s",
		    strstr(err, "outdated") != NULL ? "outdated" :
		    strstr(err, " refused: ") != NULL ? "refused" : "missing");
		ssh_close(&s);
		return (-1);
	}
	hs_probe_disk(&s, h, p);
	ssh_close(&s);
	return (0);
}

/* The disk was measured before the session, by hs_probe. */
static void
hs_probe_open(struct host *h, struct host_probe *p)
{
	(void)h;
	(void)p;
}

static int
hs_agent_source(const struct host *h, char *buf, size_t len)
{
	char	path[PATH_MAX];

	if (deploy_prebuilt_path(h->facts.os, h->facts.arch, path,
	    sizeof path) == 0)
		snprintf(buf, len, "orch deploy pushes the prebuilt %s-%s "
		    "agent (%s)", h->facts.os, h->facts.arch, path);
	else
		snprintf(buf, len, "no prebuilt %s-%s agent here; orch deploy "
		    "builds it from source on the host", h->facts.os,
		    h->facts.arch);
	return (0);
}

static void
hs_control(struct host *h, const char *verb, const char *run_id, char *line,
    size_t len)
{
	struct ssh		s;
	struct ssh_target	t, hops[HOST_HOPS_MAX];
	char			err[HOST_ERR_LEN], errb[1024];
	int			r;

	hs_target(h, &t, hops);
	if (ssh_open(&s, &t, err, sizeof err) != 0) {
		snprintf(line, len, "unreachable: %s", err);
		return;
	}
	if (deploy_workdir_check(&s, h, err, sizeof err) != 0) {
		snprintf(line, len, "not asked: %s", err);
		ssh_close(&s);
		return;
	}
	r = hs_agent_run(&s, h, verb, run_id, line, len, errb, sizeof errb);
	if (r == -3)
		snprintf(line, len, "bad workdir");
	else if (r != 0 && line[0] == '\0')
		snprintf(line, len, "cannot ask the agent: %.200s", errb);
	line[strcspn(line, "\n")] = '\0';
	ssh_close(&s);
}

const struct host_ops host_ssh_ops = {
	"ssh",
	hs_start,
	hs_push,
	hs_alive,
	hs_stop,
	hs_deploy,
	hs_probe,
	hs_probe_open,
	hs_agent_source,
	hs_control,
};
