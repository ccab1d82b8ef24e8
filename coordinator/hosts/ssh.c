/* SSH sessions through libssh2, checked and authenticated like OpenSSH. */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "coordinator/hosts/knownhosts.h"
#include "coordinator/hosts/shell.h"
#include "coordinator/hosts/ssh.h"
#include "coordinator/input/defaults.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

#define SSH_WRITE_CHUNK	(35 * 30000)	/* ~1 MiB, a multiple of 30000 */
#define SSH_JUMP_CHUNK	(140 * 30000)	/* ~4 MiB: through a jump host the
					   round trip is longer, so more
					   SFTP writes are kept in flight */
#define SSH_PUMP_BUF	32768		/* bytes in flight each way at a jump */
#define SSH_PUMP_POLL	1000		/* ms between the pump's keepalives */

/* Host-key algorithms libssh2 1.10 offers, most preferred first. */
static const char *const ssh_algs[] = {
	"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp521", "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa",
};
#define SSH_KH_FILES	(2 * HOST_KH_MAX)	/* user's, then global */
#define SSH_NALGS	(sizeof ssh_algs / sizeof ssh_algs[0])

static pthread_once_t	 ssh_once = PTHREAD_ONCE_INIT;
static int		 ssh_init_rc = -1;

/* Initialises libssh2, once (through ssh_once). */
static void
ssh_init_once(void)
{
	ssh_init_rc = libssh2_init(0) == 0 ? 0 : -1;
}

/*
 * Initialises libssh2 the first time an SSH host is used, whichever thread
 * that is; no command that reaches no SSH host pays for it. Returns 0 or
 * -1.
 */
static int
ssh_init(void)
{
	if (pthread_once(&ssh_once, ssh_init_once) != 0)
		return (-1);
	return (ssh_init_rc);
}

/* Returns $HOME, or the passwd entry's home, or "/". */
static const char *
ssh_home(void)
{
	const char	*h = getenv("HOME");
	struct passwd	*pw;

	if (h != NULL && *h != '\0')
		return (h);
	if ((pw = getpwuid(getuid())) != NULL)
		return (pw->pw_dir);
	return ("/");
}

const char *
ssh_known_hosts_path(void)
{
	static char	 path[PATH_MAX];
	const char	*e = getenv("ORCH_KNOWN_HOSTS");

	if (e != NULL && *e != '\0')
		return (e);
	snprintf(path, sizeof path, "%s/.ssh/known_hosts", ssh_home());
	return (path);
}

/*
 * Writes the known_hosts files for t into files[0..*n), as OpenSSH reads
 * them: the user's ($ORCH_KNOWN_HOSTS when set, else ssh_config's
 * UserKnownHostsFile list, else ~/.ssh/known_hosts and known_hosts2), the
 * first of which takes new keys, then the global ones (GlobalKnownHostsFile,
 * else /etc/ssh/ssh_known_hosts and ssh_known_hosts2), only read. kh2 holds
 * the default known_hosts2's path.
 */
static void
ssh_kh_files(const struct ssh_target *t, const char *files[SSH_KH_FILES],
    size_t *n, char *kh2, size_t kh2len)
{
	static const char	*global[] = { "/etc/ssh/ssh_known_hosts",
	    "/etc/ssh/ssh_known_hosts2" };
	const struct host_reach	*r = t->reach;
	const char		*e = getenv("ORCH_KNOWN_HOSTS");
	size_t			 i;

	*n = 0;
	if ((e == NULL || *e == '\0') && r != NULL && r->nkh > 0) {
		for (i = 0; i < r->nkh && i < HOST_KH_MAX; i++)
			files[(*n)++] = r->known_hosts[i];
	} else {
		files[(*n)++] = ssh_known_hosts_path();
		if (e == NULL || *e == '\0') {
			snprintf(kh2, kh2len, "%s2", files[0]);
			files[(*n)++] = kh2;
		}
	}
	if (r != NULL && r->global_set) {
		for (i = 0; i < r->nglobal && i < HOST_KH_MAX; i++)
			files[(*n)++] = r->global_kh[i];
	} else {
		files[(*n)++] = global[0];
		files[(*n)++] = global[1];
	}
}

/* Writes the name known_hosts holds t's key under: alias, host, [host]:port. */
static void
ssh_kh_entry(const struct ssh_target *t, char *out, size_t len)
{
	if (t->reach != NULL && t->reach->hostkey_alias[0] != '\0')
		snprintf(out, len, "%s", t->reach->hostkey_alias);
	else if (t->port == 22)
		snprintf(out, len, "%s", t->address);
	else
		snprintf(out, len, "[%s]:%d", t->address, t->port);
}

const char *
ssh_sftp_path(const char *path)
{
	if (strncmp(path, "~/", 2) == 0)
		return (path + 2);
	return (path);
}

/* Expands a leading ~/ with the local home. */
static void
ssh_expand(const char *in, char *out, size_t len)
{
	if (strncmp(in, "~/", 2) == 0)
		snprintf(out, len, "%s/%s", ssh_home(), in + 2);
	else
		snprintf(out, len, "%s", in);
}

/* Connects a TCP socket within timeout_ms. Returns the fd or -1 (err). */
static int
ssh_connect_tcp(const struct ssh_target *t, char *err, size_t errlen)
{
	struct addrinfo	 hints, *res = NULL, *ai;
	struct pollfd	 pfd;
	char		 port[16];
	socklen_t	 sl;
	int		 fd = -1, e, soerr = 0, flags;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof port, "%d", t->port);
	if ((e = getaddrinfo(t->address, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "cannot resolve %s: %s", t->address,
		    gai_strerror(e));
		return (-1);
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol)) == -1)
			continue;
		flags = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			goto connected;
		if (errno == EINPROGRESS) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, t->timeout_ms) == 1) {
				sl = sizeof soerr;
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr,
				    &sl);
				if (soerr == 0)
					goto connected;
				errno = soerr;
			} else
				errno = ETIMEDOUT;
		}
		e = errno;
		close(fd);
		fd = -1;
		errno = e;
	}
	snprintf(err, errlen, "cannot connect to %s port %d: %s", t->address,
	    t->port, strerror(errno));
	freeaddrinfo(res);
	return (-1);
connected:
	fcntl(fd, F_SETFL, flags);
	freeaddrinfo(res);
	return (fd);
}

/*
 * Builds the host-key algorithm preference: algorithms of keys that
 * known_hosts holds for name first, then the rest, so a host whose ed25519
 * key alone is known does not negotiate ECDSA and look unknown.
 */
static void
ssh_hostkey_pref(LIBSSH2_SESSION *session, const struct ssh_target *tg,
    const char *name, char *out, size_t len)
{
	struct kh_result  res;
	const char	**algs = NULL, *files[SSH_KH_FILES];
	char		  err[256], kh2[PATH_MAX];
	int		  known[SSH_NALGS], supported[SSH_NALGS], i, n, k;
	size_t		  a, t, f, nfiles;

	memset(known, 0, sizeof known);
	/*
	 * Only algorithms this libssh2 has: 1.10 strips the others with an
	 * overlapping memcpy.
	 */
	memset(supported, 0, sizeof supported);
	n = libssh2_session_supported_algs(session, LIBSSH2_METHOD_HOSTKEY,
	    &algs);
	for (k = 0; k < n; k++) {
		for (a = 0; a < SSH_NALGS; a++) {
			if (strcmp(algs[k], ssh_algs[a]) == 0)
				supported[a] = 1;
		}
	}
	if (algs != NULL)
		libssh2_free(session, algs);
	/* Warnings about the file come once, from the check itself. */
	ssh_kh_files(tg, files, &nfiles, kh2, sizeof kh2);
	for (f = 0; f < nfiles; f++) {
		if (knownhosts_check(files[f], name, NULL, 0, &res, NULL, err,
		    sizeof err) != 0)
			continue;
		for (t = 0; t < res.ntypes; t++) {
			for (a = 0; a < SSH_NALGS; a++) {
				if (strcmp(res.types[t], ssh_algs[a]) == 0 ||
				    (strcmp(res.types[t], "ssh-rsa") == 0 &&
				    strncmp(ssh_algs[a], "rsa-", 4) == 0))
					known[a] = 1;
			}
		}
	}
	out[0] = '\0';
	for (i = 1; i >= 0; i--) {
		for (a = 0; a < SSH_NALGS; a++) {
			if (known[a] != i || !supported[a])
				continue;
			if (out[0] != '\0')
				strncat(out, ",", len - strlen(out) - 1);
			strncat(out, ssh_algs[a], len - strlen(out) - 1);
		}
	}
}

/* Appends one known_hosts line to path, creating its directory when needed. */
static int
ssh_kh_append(const char *path, const char *line, char *err, size_t errlen)
{
	char		 dir[PATH_MAX], *slash;
	FILE		*f;

	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	if ((f = fopen(path, "a")) == NULL) {
		snprintf(err, errlen, "cannot add the host key to %s: %s", path,
		    strerror(errno));
		return (-1);
	}
	fputs(line, f);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot add the host key to %s: %s", path,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* Logs a known_hosts line that was skipped. */
static void
ssh_kh_warn(const char *msg)
{
	log_warnx("%s", msg);
}

/*
 * Says in err why the key of t (known_hosts name entry) is refused: res,
 * from path, is changed, revoked, unverifiable or vouched for by a CA only
 * (first: the file a pinned key goes to).
 */
static void
ssh_kh_refusal(const struct ssh *s, const struct ssh_target *t,
    const char *entry, const char *path, const char *first,
    const struct kh_result *res, char *err, size_t errlen)
{
	switch (res->status) {
	case KH_CHANGED:
		snprintf(err, errlen, "%s: HOST KEY CHANGED for %s: it now "
		    "presents %s, but %s:%d pins %s for it. Someone may be "
		    "intercepting the connection; if the host was reinstalled, "
		    "remove the old key with: ssh-keygen -f %s -R '%s'",
		    t->name, entry, s->fingerprint, path, res->line,
		    res->known_fp, path, entry);
		break;
	case KH_REVOKED:
		snprintf(err, errlen, "%s: REVOKED HOST KEY for %s: it "
		    "presents %s, which %s:%d marks @revoked; refusing to "
		    "connect", t->name, entry, s->fingerprint, path, res->line);
		break;
	case KH_UNVERIFIABLE:
		snprintf(err, errlen, "%s: host key of %s (%s) cannot be "
		    "verified: %s:%d names the host but orch cannot read that "
		    "line (see the warning above); fix or remove the line "
		    "(ssh-keygen -f %s -R '%s'), then pin the key", t->name,
		    entry, s->fingerprint, path, res->line, path, entry);
		break;
	case KH_CA_ONLY:
		snprintf(err, errlen, "%s: host key of %s (%s) is vouched for "
		    "only by a @cert-authority (%s:%d): orch cannot verify "
		    "host certificates (libssh2 does not verify them); pin the "
		    "host's own key instead, after checking its fingerprint "
		    "with the host's owner: ssh-keyscan -p %d %s >> %s",
		    t->name, entry,
		    s->fingerprint, path, res->line, t->port, t->address,
		    first);
		break;
	default:
		snprintf(err, errlen, "%s: host key of %s refused", t->name,
		    entry);
		break;
	}
}

/*
 * Checks the server's host key against known_hosts as OpenSSH does: known
 * when pinned; refused when the host has keys but not this one (of
 * whatever type), or when it is @revoked; added when the host has none and
 * accept_new is set. Returns 0 or -1 (err).
 */
static int
ssh_check_hostkey(struct ssh *s, const struct ssh_target *t, char *err,
    size_t errlen)
{
	struct kh_result	 res, one;
	const char		*key, *path, *files[SSH_KH_FILES];
	char			 entry[300], line[KH_LINE_MAX], why[256];
	char			 kh2[PATH_MAX];
	size_t			 keylen, f, nfiles;
	int			 type, rank, best = -1;
	/*
	 * Across files, as OpenSSH: revoked, then known, changed (a pin in
	 * the global file counts), unverifiable, CA only.
	 */
	static const int	 ranks[] = { 4, 0, 3, 5, 1, 2 };

	key = libssh2_session_hostkey(s->session, &keylen, &type);
	if (key == NULL) {
		snprintf(err, errlen, "%s: no host key from the server",
		    t->name);
		return (-1);
	}
	knownhosts_fingerprint((const unsigned char *)key, keylen,
	    s->fingerprint, sizeof s->fingerprint);
	ssh_kh_entry(t, entry, sizeof entry);
	ssh_kh_files(t, files, &nfiles, kh2, sizeof kh2);
	path = files[0];
	memset(&res, 0, sizeof res);
	res.status = KH_NEW;
	for (f = 0; f < nfiles; f++) {
		if (knownhosts_check(files[f], entry,
		    (const unsigned char *)key, keylen, &one, ssh_kh_warn, why,
		    sizeof why) != 0) {
			snprintf(err, errlen, "%s: cannot check the host key: "
			    "%s", t->name, why);
			return (-1);
		}
		rank = ranks[one.status];
		if (one.status != KH_NEW && (best == -1 || rank > best)) {
			best = rank;
			res = one;
			path = files[f];
		}
	}
	if (res.status == KH_KNOWN) {
		snprintf(s->hostkey_status, sizeof s->hostkey_status, "known");
		return (0);
	}
	if (res.status != KH_NEW) {
		ssh_kh_refusal(s, t, entry, path, files[0], &res, err,
		    errlen);
		return (-1);
	}
	if (!t->accept_new) {
		snprintf(err, errlen, "%s: unknown host key for %s (%s, "
		    "not in %s). Check the fingerprint with the host's "
		    "owner, then add it (ssh-keyscan -p %d %s >> %s) or "
		    "rerun with --accept-new-host-keys", t->name, entry,
		    s->fingerprint, path, t->port, t->address, path);
		return (-1);
	}
	if (knownhosts_line(entry, (const unsigned char *)key, keylen,
	    "added by orch", line, sizeof line) != 0) {
		snprintf(err, errlen, "%s: cannot record the new host key",
		    t->name);
		return (-1);
	}
	path = files[0];
	if (ssh_kh_append(path, line, err, errlen) != 0)
		return (-1);
	log_info("%s: added %s for %s to %s", t->name, s->fingerprint, entry,
	    path);
	snprintf(s->hostkey_status, sizeof s->hostkey_status, "added (new)");
	return (0);
}

/*
 * Returns 1 if the public key beside keyfile (keyfile.pub, "TYPE BASE64
 * ...") is the key blob[0..len), as OpenSSH's IdentitiesOnly matches
 * ssh-agent keys to IdentityFile ones.
 */
static int
ssh_pub_is(const char *keyfile, const unsigned char *blob, size_t len)
{
	char		 path[PATH_MAX], line[8192], *b64;
	unsigned char	 dec[6144];
	size_t		 n;
	FILE		*f;
	int		 d, r = 0;

	ssh_expand(keyfile, path, sizeof path);
	if (strlen(path) + 4 >= sizeof path)
		return (0);
	strcat(path, ".pub");
	if ((f = fopen(path, "r")) == NULL)
		return (0);
	if (fgets(line, sizeof line, f) != NULL &&
	    (b64 = strchr(line, ' ')) != NULL) {
		b64++;
		n = strcspn(b64, " \t\r\n");
		if (n > 0 && n % 4 == 0 && n / 4 * 3 <= sizeof dec &&
		    (d = EVP_DecodeBlock(dec, (unsigned char *)b64,
		    (int)n)) >= 0) {
			/* EVP_DecodeBlock counts the padding as bytes. */
			d -= (b64[n - 1] == '=') + (n > 1 && b64[n - 2] == '=');
			r = (size_t)d == len && memcmp(dec, blob, len) == 0;
		}
	}
	fclose(f);
	return (r);
}

/* Returns 1 if an ssh-agent key may be offered (IdentitiesOnly). */
static int
ssh_agent_key_ok(const struct ssh_target *t, const char *const *files,
    size_t nfiles, const struct libssh2_agent_publickey *id)
{
	size_t	i;

	if (t->reach == NULL || !t->reach->identities_only)
		return (1);
	for (i = 0; i < nfiles; i++) {
		if (ssh_pub_is(files[i], id->blob, id->blob_len))
			return (1);
	}
	return (0);
}

/* Authenticates with ssh-agent identities, then key files. */
static int
ssh_auth(struct ssh *s, const struct ssh_target *t, char *err, size_t errlen)
{
	LIBSSH2_AGENT			*agent;
	struct libssh2_agent_publickey	*id = NULL, *prev = NULL;
	char				 tried[1024] = "", path[PATH_MAX];
	const char			*files[HOST_IDS_MAX];
	size_t				 nfiles = 0, i, n = 0;
	char				*msg;
	int				 ok = 0;

	if (t->identity != NULL && t->identity[0] != '\0')
		files[nfiles++] = t->identity;
	else if (t->reach != NULL && t->reach->nids > 0) {
		/* ssh_config's IdentityFile list: missing ones are skipped. */
		for (i = 0; i < t->reach->nids && i < HOST_IDS_MAX; i++)
			files[nfiles++] = t->reach->ids[i];
	} else {
		files[nfiles++] = "~/.ssh/id_ed25519";
		files[nfiles++] = "~/.ssh/id_ecdsa";
	}
	if (getenv("SSH_AUTH_SOCK") != NULL &&
	    (agent = libssh2_agent_init(s->session)) != NULL) {
		if (libssh2_agent_connect(agent) == 0 &&
		    libssh2_agent_list_identities(agent) == 0) {
			while (libssh2_agent_get_identity(agent, &id,
			    prev) == 0) {
				prev = id;
				if (!ssh_agent_key_ok(t, files, nfiles, id))
					continue;
				n++;
				if (libssh2_agent_userauth(agent, t->user,
				    id) == 0) {
					ok = 1;
					snprintf(s->auth, sizeof s->auth,
					    "ssh-agent key %s", id->comment);
					break;
				}
			}
			libssh2_agent_disconnect(agent);
		}
		libssh2_agent_free(agent);
		snprintf(tried, sizeof tried, "ssh-agent (%zu identit%s)", n,
		    n == 1 ? "y" : "ies");
	}
	if (ok)
		return (0);
	for (i = 0; i < nfiles; i++) {
		ssh_expand(files[i], path, sizeof path);
		if (access(path, R_OK) != 0) {
			if (t->identity != NULL && t->identity[0] != '\0') {
				snprintf(err, errlen, "%s: identity %s: %s",
				    t->name, path, strerror(errno));
				return (-1);
			}
			continue;
		}
		if (libssh2_userauth_publickey_fromfile_ex(s->session, t->user,
		    (unsigned int)strlen(t->user), NULL, path, NULL) == 0) {
			snprintf(s->auth, sizeof s->auth, "key %s", path);
			return (0);
		}
		msg = NULL;
		libssh2_session_last_error(s->session, &msg, NULL, 0);
		snprintf(tried + strlen(tried), sizeof tried - strlen(tried),
		    "%s%s (%s)", tried[0] ? ", " : "", path,
		    msg != NULL ? msg : "rejected");
	}
	snprintf(err, errlen, "%s: authentication failed for %s@%s port %d: "
	    "tried %s", t->name, t->user, t->address, t->port,
	    tried[0] ? tried : t->reach != NULL && t->reach->nids > 0 ?
	    "no keys (no ssh-agent, none of ssh_config's IdentityFile "
	    "files exists)" : "no keys (no ssh-agent, no ~/.ssh/id_ed25519 "
	    "or id_ecdsa; set identity in the inventory)");
	return (-1);
}

/*
 * The pump of a session through a jump host: moves bytes between the
 * socketpair end whose other end the session reads and writes, and the
 * direct-tcpip channel of the jump host's session, which only this thread
 * uses while it runs. Ends when the session closes its end (after passing
 * on what it wrote, for at most SSH_CLOSE_TIMEOUT), when the channel ends,
 * or on an error; then shuts the socket down so the session sees EOF.
 * Long because it is one loop over both directions' buffers.
 */
static void *
ssh_pump(void *arg)
{
	struct ssh	*s = arg;
	LIBSSH2_SESSION	*js = s->jump->session;
	struct pollfd	 pfd[2];
	char		*up, *down;
	size_t		 uplen = 0, upoff = 0, downlen = 0, downoff = 0;
	ssize_t		 n;
	int64_t		 closing = 0;
	int		 progress, fd_eof = 0, dir, ignored;

	up = xmalloc(SSH_PUMP_BUF);
	down = xmalloc(SSH_PUMP_BUF);
	libssh2_session_set_blocking(js, 0);
	for (;;) {
		progress = 0;
		/* The session's bytes to the channel. */
		if (upoff == uplen && !fd_eof) {
			upoff = uplen = 0;
			n = recv(s->pumpfd, up, SSH_PUMP_BUF, MSG_DONTWAIT);
			if (n > 0) {
				uplen = (size_t)n;
				progress = 1;
			} else if (n == 0 || (errno != EAGAIN &&
			    errno != EINTR)) {
				fd_eof = 1;
				closing = util_now_ms() + SSH_CLOSE_TIMEOUT;
				progress = 1;
			}
		}
		if (upoff < uplen) {
			n = libssh2_channel_write(s->jchan, up + upoff,
			    uplen - upoff);
			if (n > 0) {
				upoff += (size_t)n;
				progress = 1;
			} else if (n != LIBSSH2_ERROR_EAGAIN)
				break;
		}
		if (fd_eof && (upoff == uplen || util_now_ms() > closing))
			break;
		/* The channel's bytes to the session. */
		if (downoff == downlen) {
			downoff = downlen = 0;
			n = libssh2_channel_read(s->jchan, down, SSH_PUMP_BUF);
			if (n > 0) {
				downlen = (size_t)n;
				progress = 1;
			} else if ((n < 0 && n != LIBSSH2_ERROR_EAGAIN) ||
			    libssh2_channel_eof(s->jchan))
				break;	/* nothing left to pass on */
		}
		if (downoff < downlen) {
			n = send(s->pumpfd, down + downoff, downlen - downoff,
			    MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n > 0) {
				downoff += (size_t)n;
				progress = 1;
			} else if (errno != EAGAIN && errno != EINTR)
				break;
		}
		libssh2_keepalive_send(js, &ignored);
		/*
		 * Reading may have taken in a window adjustment the write
		 * waited for: the socket has nothing more to say about it.
		 */
		if (progress || (upoff < uplen &&
		    libssh2_channel_window_write(s->jchan) > 0))
			continue;
		dir = libssh2_session_block_directions(js);
		pfd[0].fd = s->pumpfd;
		pfd[0].events = 0;
		if (upoff == uplen && !fd_eof)
			pfd[0].events |= POLLIN;
		if (downoff < downlen)
			pfd[0].events |= POLLOUT;
		pfd[1].fd = s->jump->sock;
		pfd[1].events = POLLIN;
		if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
			pfd[1].events |= POLLOUT;
		poll(pfd, 2, fd_eof ? 100 : SSH_PUMP_POLL);
	}
	shutdown(s->pumpfd, SHUT_RDWR);
	free(up);
	free(down);
	return (NULL);
}

/*
 * Reaches t through the jump host t->jump: opens (and checks) the jump
 * host's session, a direct-tcpip channel from it to t, and a socketpair
 * with a pump thread between them; s->sock is the session's end. Returns
 * 0, or -1 with err naming the hop that failed.
 */
static int
ssh_open_jump(struct ssh *s, const struct ssh_target *t, char *err,
    size_t errlen)
{
	char	why[SSH_ERR_LEN], *msg;
	int	sv[2], one = 1;

	s->jump = xcalloc(1, sizeof *s->jump);
	if (ssh_open(s->jump, t->jump, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: through jump host %s: %s", t->name,
		    t->jump->name, why);
		return (-1);
	}
	/*
	 * The session inside sends small packets (SFTP acknowledgements)
	 * that must not wait for Nagle's algorithm; a jump host reached
	 * through another has a socketpair, which refuses this harmlessly.
	 */
	(void)setsockopt(s->jump->sock, IPPROTO_TCP, TCP_NODELAY, &one,
	    sizeof one);
	libssh2_session_set_timeout(s->jump->session, t->timeout_ms);
	/* The originator fields are informative only. */
	s->jchan = libssh2_channel_direct_tcpip_ex(s->jump->session,
	    t->address, t->port, "127.0.0.1", 0);
	libssh2_session_set_timeout(s->jump->session, 0);
	if (s->jchan == NULL) {
		msg = NULL;
		libssh2_session_last_error(s->jump->session, &msg, NULL, 0);
		snprintf(err, errlen, "%s: jump host %s cannot reach %s port "
		    "%d: %s", t->name, t->jump->name, t->address, t->port,
		    msg != NULL ? msg : "channel refused");
		return (-1);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(err, errlen, "%s: socketpair: %s", t->name,
		    strerror(errno));
		return (-1);
	}
	s->sock = sv[0];
	s->pumpfd = sv[1];
	if (pthread_create(&s->pump, NULL, ssh_pump, s) != 0) {
		snprintf(err, errlen, "%s: cannot start the jump host's pump "
		    "thread", t->name);
		return (-1);
	}
	s->pumping = 1;
	return (0);
}

int
ssh_open(struct ssh *s, const struct ssh_target *t, char *err, size_t errlen)
{
	char	pref[512], *msg;
	int	e;

	memset(s, 0, sizeof *s);
	s->sock = s->pumpfd = -1;
	if (ssh_init() != 0) {
		snprintf(err, errlen, "libssh2_init failed");
		return (-1);
	}
	if (t->jump != NULL) {
		if (ssh_open_jump(s, t, err, errlen) != 0)
			goto fail;
	} else if ((s->sock = ssh_connect_tcp(t, err, errlen)) == -1)
		return (-1);
	if ((s->session = libssh2_session_init()) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	libssh2_session_set_blocking(s->session, 1);
	libssh2_session_set_timeout(s->session, t->timeout_ms);
	ssh_kh_entry(t, pref, sizeof pref);
	ssh_hostkey_pref(s->session, t, pref, pref, sizeof pref);
	if (libssh2_session_method_pref(s->session, LIBSSH2_METHOD_HOSTKEY,
	    pref) != 0)
		log_debug("%s: host key preference '%s' refused",
		    t->name, pref);
	if ((e = libssh2_session_handshake(s->session, s->sock)) != 0) {
		msg = NULL;
		libssh2_session_last_error(s->session, &msg, NULL, 0);
		snprintf(err, errlen, "%s: SSH handshake with %s port %d%s%s "
		    "failed: %s", t->name, t->address, t->port,
		    t->jump != NULL ? " through " : "",
		    t->jump != NULL ? t->jump->name : "",
		    msg != NULL ? msg : "unknown error");
		goto fail;
	}
	if (ssh_check_hostkey(s, t, err, errlen) != 0)
		goto fail;
	if (ssh_auth(s, t, err, errlen) != 0)
		goto fail;
	libssh2_keepalive_config(s->session, 1, 15);
	libssh2_session_set_timeout(s->session, 0);
	return (0);
fail:
	ssh_close(s);
	return (-1);
}

void
ssh_close(struct ssh *s)
{
	if (s->session != NULL) {
		libssh2_session_set_blocking(s->session, 1);
		libssh2_session_set_timeout(s->session, SSH_CLOSE_TIMEOUT);
		libssh2_session_disconnect(s->session, "orch done");
		libssh2_session_free(s->session);
		s->session = NULL;
	}
	if (s->sock != -1)
		close(s->sock);
	s->sock = -1;
	/* The pump sees our end closed, passes on the rest, and ends. */
	if (s->pumping)
		pthread_join(s->pump, NULL);
	s->pumping = 0;
	if (s->pumpfd != -1)
		close(s->pumpfd);
	s->pumpfd = -1;
	if (s->jchan != NULL) {
		libssh2_session_set_blocking(s->jump->session, 1);
		libssh2_session_set_timeout(s->jump->session,
		    SSH_CLOSE_TIMEOUT);
		libssh2_channel_close(s->jchan);
		libssh2_channel_free(s->jchan);
		s->jchan = NULL;
	}
	if (s->jump != NULL) {
		ssh_close(s->jump);
		free(s->jump);
		s->jump = NULL;
	}
}

/* Waits for the socket in the direction libssh2 needs, at most ms. */
static void
ssh_wait(struct ssh *s, int ms)
{
	struct pollfd	pfd;
	int		dir = libssh2_session_block_directions(s->session);

	pfd.fd = s->sock;
	pfd.events = 0;
	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		pfd.events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		pfd.events |= POLLOUT;
	if (pfd.events == 0)
		pfd.events = POLLIN;
	poll(&pfd, 1, ms);
}

/*
 * The number POSIX gives signal name (as SSH sends it, without "SIG"), or
 * 127 for a name without one everywhere (USR1 differs from OS to OS).
 */
static int
ssh_signum(const char *name)
{
	static const struct {
		const char	*name;
		int		 num;
	} sigs[] = {
		{ "HUP", 1 }, { "INT", 2 }, { "QUIT", 3 }, { "ILL", 4 },
		{ "ABRT", 6 }, { "FPE", 8 }, { "KILL", 9 }, { "SEGV", 11 },
		{ "PIPE", 13 }, { "ALRM", 14 }, { "TERM", 15 },
	};
	size_t	i;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		if (strcmp(sigs[i].name, name) == 0)
			return (sigs[i].num);
	}
	return (127);
}

/*
 * The exit status of ch's command, once its channel closed: the status it
 * sent, or 128 + N when it died of signal N. libssh2 reports 0 for a
 * command that sent no exit status, which one killed by a signal does
 * not: only the exit-signal message tells, so "killed by signal NAME"
 * (the name as the host sent it, made printable) ends errbuf then.
 * libssh2 1.10 keeps no mark of an exit status never sent, so a command
 * whose server sent neither message still reads as 0.
 */
static int
ssh_exit_status(struct ssh *s, LIBSSH2_CHANNEL *ch, char *errbuf,
    size_t errlen)
{
	char	*sig = NULL, name[16], line[48];
	size_t	 siglen = 0, i, n, k;
	int	 r;

	r = libssh2_channel_get_exit_status(ch);
	if (r < 0 || r > 255)
		r = 255;
	if (libssh2_channel_get_exit_signal(ch, &sig, &siglen, NULL, NULL,
	    NULL, NULL) != 0 || sig == NULL)
		return (r);
	/* The host's words: a plain name, else '?' where it is not. */
	for (i = 0; i < siglen && i < sizeof name - 1; i++)
		name[i] = (sig[i] >= 'A' && sig[i] <= 'Z') ||
		    (sig[i] >= '0' && sig[i] <= '9') ? sig[i] : '?';
	name[i] = '\0';
	libssh2_free(s->session, sig);
	if (errlen == 0)
		return (128 + ssh_signum(name));
	n = strlen(errbuf);
	snprintf(line, sizeof line, "%skilled by signal %s", n > 0 &&
	    errbuf[n - 1] != '\n' ? "\n" : "", name[0] != '\0' ? name : "?");
	k = strlen(line);
	if (k >= errlen)
		k = errlen - 1;
	if (n + k >= errlen)
		n = errlen - 1 - k;
	memcpy(errbuf + n, line, k);
	errbuf[n + k] = '\0';
	return (128 + ssh_signum(name));
}

int
ssh_run(struct ssh *s, char *const argv[], const char *input, char *out,
    size_t outlen, char *errbuf, size_t errlen, int timeout_ms)
{
	return (ssh_run_stop(s, argv, input, out, outlen, errbuf, errlen,
	    timeout_ms, NULL));
}

/*
 * Long because it is one loop over a non-blocking channel: the input,
 * stdout, stderr, the exit status, the deadline and the stop flag share
 * its state.
 */
int
ssh_run_stop(struct ssh *s, char *const argv[], const char *input,
    char *out, size_t outlen, char *errbuf, size_t errlen, int timeout_ms,
    const atomic_int *stop)
{
	LIBSSH2_CHANNEL	*ch;
	char		 cmd[SHELL_CMD_MAX];
	int64_t		 deadline = util_now_ms() + timeout_ms;
	size_t		 no = 0, ne = 0, in_off = 0, in_len;
	char		 buf[16384];
	ssize_t		 n;
	int		 r = -1, progress, eof_sent = 0;

	in_len = input != NULL ? strlen(input) : 0;
	out[0] = '\0';
	errbuf[0] = '\0';
	if (shell_command(cmd, sizeof cmd, argv) != 0) {
		snprintf(errbuf, errlen, "a remote command longer than %d "
		    "bytes", SHELL_CMD_MAX - 1);
		return (-1);
	}
	libssh2_session_set_blocking(s->session, 1);
	libssh2_session_set_timeout(s->session, timeout_ms);
	if ((ch = libssh2_channel_open_session(s->session)) == NULL) {
		snprintf(errbuf, errlen, "cannot open an SSH channel");
		libssh2_session_set_timeout(s->session, 0);
		return (-1);
	}
	if (libssh2_channel_exec(ch, cmd) != 0) {
		snprintf(errbuf, errlen, "cannot run '%s'", cmd);
		goto out;
	}
	libssh2_session_set_blocking(s->session, 0);
	for (;;) {
		progress = 0;
		if (in_off < in_len) {
			n = libssh2_channel_write(ch, input + in_off,
			    in_len - in_off);
			if (n > 0) {
				in_off += (size_t)n;
				progress = 1;
			}
		}
		if (in_off == in_len && !eof_sent &&
		    libssh2_channel_send_eof(ch) != LIBSSH2_ERROR_EAGAIN)
			eof_sent = 1;
		n = libssh2_channel_read(ch, buf, sizeof buf);
		if (n > 0) {
			progress = 1;
			if (no + (size_t)n >= outlen)
				n = (ssize_t)(outlen - 1 - no);
			memcpy(out + no, buf, (size_t)n);
			no += (size_t)n;
			out[no] = '\0';
		} else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
			/* No exit status follows: not a command's 0. */
			snprintf(errbuf, errlen, "reading from the SSH channel "
			    "failed (error %zd)", n);
			goto out;
		}
		n = libssh2_channel_read_stderr(ch, buf, sizeof buf);
		if (n > 0) {
			progress = 1;
			if (ne + (size_t)n >= errlen)
				n = (ssize_t)(errlen - 1 - ne);
			memcpy(errbuf + ne, buf, (size_t)n);
			ne += (size_t)n;
			errbuf[ne] = '\0';
		}
		if (libssh2_channel_eof(ch))
			break;
		if (util_now_ms() > deadline) {
			r = -2;
			goto out;
		}
		/* Freeing the channel closes it: the command is left alone. */
		if (stop != NULL && *stop) {
			r = -3;
			goto out;
		}
		if (!progress)
			ssh_wait(s, 100);
	}
	while (libssh2_channel_close(ch) == LIBSSH2_ERROR_EAGAIN &&
	    util_now_ms() < deadline)
		ssh_wait(s, 100);
	while (libssh2_channel_wait_closed(ch) == LIBSSH2_ERROR_EAGAIN &&
	    util_now_ms() < deadline)
		ssh_wait(s, 100);
	r = ssh_exit_status(s, ch, errbuf, errlen);
out:
	libssh2_session_set_blocking(s->session, 1);
	libssh2_session_set_timeout(s->session, SSH_CLOSE_TIMEOUT);
	libssh2_channel_free(ch);
	libssh2_session_set_timeout(s->session, 0);
	return (r);
}

/* SFTP calls by NUL-terminated path (libssh2's macros truncate lengths). */
static unsigned int
ssh_len(const char *p)
{
	return ((unsigned int)strlen(p));
}

/* Creates the remote directories of path (all but its last part). */
static void
ssh_mkparents(LIBSSH2_SFTP *sftp, const char *path)
{
	char	tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof tmp, "%s", path);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		/* EEXIST is fine */
		libssh2_sftp_mkdir_ex(sftp, tmp, ssh_len(tmp), 0700);
		*p = '/';
	}
}

/*
 * Replaces remote with tmp in one rename(2) on the host: "mv -f" over an
 * exec channel, for servers whose SFTP rename refuses to overwrite (OpenSSH
 * speaks SFTP 3, and libssh2 1.10 cannot send posix-rename). An unlink and
 * a rename would leave a moment with no file: another host of the same
 * workdir could fail to run the agent there.
 */
static int
ssh_replace(struct ssh *s, const char *tmp, const char *remote, char *err,
    size_t errlen)
{
	char	 a[2][PATH_MAX], out[256], errb[1024];
	char	*argv[] = { "mv", "-f", "--", a[0], a[1], NULL };
	int	 r;

	snprintf(a[0], sizeof a[0], "%s", tmp);
	snprintf(a[1], sizeof a[1], "%s", remote);

	r = ssh_run(s, argv, NULL, out, sizeof out, errb, sizeof errb,
	    SSH_REPLACE_TIMEOUT);
	libssh2_session_set_blocking(s->session, 1);
	if (r == 0)
		return (0);
	errb[strcspn(errb, "\n")] = '\0';
	snprintf(err, errlen, "cannot rename %s to %s on the host (%s)", tmp,
	    remote, r == -2 ? "timed out" : errb[0] != '\0' ? errb :
	    "mv failed");
	return (-1);
}

/*
 * True when rpath is a regular file of size bytes on the host: what a
 * content-addressed push found there already.
 */
static int
ssh_have(LIBSSH2_SFTP *sftp, const char *rpath, uint64_t size)
{
	LIBSSH2_SFTP_ATTRIBUTES	a;

	memset(&a, 0, sizeof a);
	if (libssh2_sftp_stat_ex(sftp, rpath, ssh_len(rpath),
	    LIBSSH2_SFTP_LSTAT, &a) != 0)
		return (0);
	return ((a.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS) &&
	    LIBSSH2_SFTP_S_ISREG(a.permissions) &&
	    (a.flags & LIBSSH2_SFTP_ATTR_SIZE) && a.filesize == size);
}

int
ssh_put(struct ssh *s, const char *local, const char *remote, long mode,
    int how, uint64_t *bytes, char *err, size_t errlen)
{
	LIBSSH2_SFTP		*sftp = NULL;
	LIBSSH2_SFTP_HANDLE	*fh = NULL;
	char			 tmp[PATH_MAX], rtmp[PATH_MAX], *buf = NULL;
	const char		*rpath = ssh_sftp_path(remote);
	unsigned char		 rnd[8];
	ssize_t			 n, w;
	size_t			 off, chunk;
	int			 fd = -1, r = -1;

	*bytes = 0;
	libssh2_session_set_blocking(s->session, 1);
	if ((fd = open(local, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", local, strerror(errno));
		return (-1);
	}
	/*
	 * The temporary name is this push's alone: two hosts of one workdir
	 * push from one process (one pid), two coordinators from two
	 * machines may share a pid.
	 */
	if (RAND_bytes(rnd, sizeof rnd) != 1) {
		snprintf(err, errlen, "cannot make a temporary name "
		    "(RAND_bytes failed)");
		goto out;
	}
	if (snprintf(rtmp, sizeof rtmp, "%s.tmp-%ld-%02x%02x%02x%02x%02x%02x"
	    "%02x%02x", remote, (long)getpid(), rnd[0], rnd[1], rnd[2],
	    rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]) >= (int)sizeof rtmp) {
		snprintf(err, errlen, "%s: path too long", remote);
		goto out;
	}
	snprintf(tmp, sizeof tmp, "%s", ssh_sftp_path(rtmp));
	if ((sftp = libssh2_sftp_init(s->session)) == NULL) {
		snprintf(err, errlen, "cannot start SFTP");
		goto out;
	}
	ssh_mkparents(sftp, rpath);
	fh = libssh2_sftp_open_ex(sftp, tmp, ssh_len(tmp), LIBSSH2_FXF_WRITE |
	    LIBSSH2_FXF_CREAT | LIBSSH2_FXF_EXCL, mode, LIBSSH2_SFTP_OPENFILE);
	if (fh == NULL) {
		snprintf(err, errlen, "cannot create %s on the host (SFTP "
		    "error %lu)", tmp, libssh2_sftp_last_error(sftp));
		goto out;
	}
	chunk = s->jump != NULL ? SSH_JUMP_CHUNK : SSH_WRITE_CHUNK;
	buf = xmalloc(chunk);
	for (;;) {
		n = read(fd, buf, chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "%s: %s", local, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		for (off = 0; off < (size_t)n; off += (size_t)w) {
			w = libssh2_sftp_write(fh, buf + off, (size_t)n - off);
			if (w < 0) {
				snprintf(err, errlen, "writing %s on the host "
				    "failed (SFTP error %lu)", tmp,
				    libssh2_sftp_last_error(sftp));
				goto out;
			}
		}
		*bytes += (uint64_t)n;
	}
	libssh2_sftp_close(fh);
	fh = NULL;
	if (how == SSH_PUT_KEEP) {
		/* Without OVERWRITE: the first push to land stays. */
		if (libssh2_sftp_rename_ex(sftp, tmp, ssh_len(tmp), rpath,
		    ssh_len(rpath), LIBSSH2_SFTP_RENAME_ATOMIC |
		    LIBSSH2_SFTP_RENAME_NATIVE) != 0) {
			libssh2_sftp_unlink_ex(sftp, tmp, ssh_len(tmp));
			if (!ssh_have(sftp, rpath, *bytes)) {
				snprintf(err, errlen, "cannot rename %s to %s "
				    "on the host (SFTP error %lu)", tmp, rpath,
				    libssh2_sftp_last_error(sftp));
				goto out;
			}
		}
	} else if (libssh2_sftp_rename_ex(sftp, tmp, ssh_len(tmp), rpath,
	    ssh_len(rpath), LIBSSH2_SFTP_RENAME_OVERWRITE |
	    LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE) != 0 &&
	    ssh_replace(s, rtmp, remote, err, errlen) != 0) {
		libssh2_sftp_unlink_ex(sftp, tmp, ssh_len(tmp));
		goto out;
	}
	r = 0;
out:
	if (fh != NULL) {
		libssh2_sftp_close(fh);
		libssh2_sftp_unlink_ex(sftp, tmp, ssh_len(tmp));
	}
	if (sftp != NULL)
		libssh2_sftp_shutdown(sftp);
	free(buf);
	close(fd);
	return (r);
}
