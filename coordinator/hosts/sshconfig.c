/*
 * Hosts from ssh_config through `ssh -G`: OpenSSH resolves the name (its
 * Include, Match, wildcards and defaults), we read the answer as untrusted
 * text and keep the few keys that say how to reach the host.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/sshconfig.h"
#include "coordinator/input/address.h"
#include "proto/util.h"

extern char **environ;

#define SSHCFG_ERR_MAX		1024	/* ssh's stderr kept for messages */
#define SSHCFG_TIMEOUT_MAX	3600	/* ConnectTimeout taken, seconds */
#define SSHCFG_SHOWN		201	/* bytes of a bad value in a message */

static const char	*sshcfg_path;		/* --ssh-config */

void
sshcfg_set_file(const char *path)
{
	sshcfg_path = path;
}

const char *
sshcfg_file(void)
{
	const char	*e;

	if (sshcfg_path != NULL)
		return (sshcfg_path);
	if ((e = getenv("ORCH_SSH_CONFIG")) != NULL && *e != '\0')
		return (e);
	return (NULL);
}

/*
 * Copies at most n bytes of untrusted s into out for a message, each
 * control or non-ASCII byte shown as '?', so that no answer of ssh can
 * drive the terminal the message is printed on.
 */
static const char *
sshcfg_shown(const char *s, size_t n, char *out, size_t len)
{
	size_t	i;

	for (i = 0; i < n && s[i] != '\0' && i + 1 < len; i++)
		out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	out[i] = '\0';
	return (out);
}

/* Returns 1 if s is a usable login name: no blank, control or leading '-'. */
static int
sshcfg_user_ok(const char *s, size_t len)
{
	size_t	i;

	if (len == 0 || s[0] == '-')
		return (0);
	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)s[i]) ||
		    iscntrl((unsigned char)s[i]) || s[i] == '@')
			return (0);
	}
	return (1);
}

/* Parses a port, 1 to 65535 in decimal digits, from s[0..len). */
static int
sshcfg_port(const char *s, size_t len)
{
	long	x = 0;
	size_t	i;

	if (len == 0 || len > 5)
		return (-1);
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return (-1);
		x = x * 10 + (s[i] - '0');
	}
	return (x >= 1 && x <= 65535 ? (int)x : -1);
}

/* Returns $HOME, or the passwd entry's home, or NULL. */
static const char *
sshcfg_home(void)
{
	const char	*h = getenv("HOME");
	struct passwd	*pw;

	if (h != NULL && *h != '\0')
		return (h);
	if ((pw = getpwuid(getuid())) != NULL)
		return (pw->pw_dir);
	return (NULL);
}

/* Returns the local login name, or NULL. */
static const char *
sshcfg_login(void)
{
	const char	*u = getenv("USER");
	struct passwd	*pw;

	if (u != NULL && *u != '\0')
		return (u);
	if ((pw = getpwuid(getuid())) != NULL)
		return (pw->pw_name);
	return (NULL);
}

/*
 * Expands a path as ssh expands IdentityFile: a leading ~/ and the tokens
 * %% %d %u %h %r %p %n %i. Returns 0, or -1 with words in err.
 */
static int
sshcfg_expand(const char *name, const char *key, const char *in,
    const struct sshcfg *c, char *out, size_t len, char *err, size_t errlen)
{
	const char	*home = sshcfg_home(), *login = sshcfg_login(), *v;
	char		 num[32], sv[SSHCFG_SHOWN];
	size_t		 o = 0, n;

	if (*in == '\0') {
		snprintf(err, errlen, "ssh_config host %s: empty %s", name,
		    key);
		return (-1);
	}
	if (in[0] == '~' && (in[1] == '/' || in[1] == '\0')) {
		if (home == NULL)
			goto nohome;
		if ((n = strlen(home)) >= len)
			goto toolong;
		memcpy(out, home, n);
		o = n;
		in++;
	} else if (in[0] == '~') {
		snprintf(err, errlen, "ssh_config host %s: %s '%s': only "
		    "~/ is expanded, not ~user", name, key, sshcfg_shown(in,
		    strlen(in), sv, sizeof sv));
		return (-1);
	}
	for (; *in != '\0'; in++) {
		if (iscntrl((unsigned char)*in)) {
			snprintf(err, errlen, "ssh_config host %s: %s holds a "
			    "control character", name, key);
			return (-1);
		}
		v = NULL;
		if (*in == '%') {
			in++;
			switch (*in) {
			case '%': v = "%"; break;
			case 'd': v = home; break;
			case 'u': v = login; break;
			case 'h': v = c->hostname; break;
			case 'r': v = c->user; break;
			case 'n': v = name; break;
			case 'p':
				snprintf(num, sizeof num, "%d", c->port);
				v = num;
				break;
			case 'i':
				snprintf(num, sizeof num, "%ld",
				    (long)getuid());
				v = num;
				break;
			default:
				snprintf(err, errlen, "ssh_config host %s: %s "
				    "has %%%c, a token orch does not expand "
				    "(it knows %%%% %%d %%u %%h %%r %%p %%n "
				    "%%i)", name, key, isprint((unsigned char)
				    *in) ? *in : '?');
				return (-1);
			}
			if (v == NULL)
				goto nohome;
			if ((n = strlen(v)) >= len - o)
				goto toolong;
			memcpy(out + o, v, n);
			o += n;
			continue;
		}
		if (o + 1 >= len)
			goto toolong;
		out[o++] = *in;
	}
	out[o] = '\0';
	return (0);
nohome:
	snprintf(err, errlen, "ssh_config host %s: cannot expand %s: no home "
	    "directory or login name", name, key);
	return (-1);
toolong:
	snprintf(err, errlen, "ssh_config host %s: %s is too long (at most "
	    "%zu characters)", name, key, len - 1);
	return (-1);
}

int
sshcfg_next_hop(const char **spec, char *user, size_t ulen, char *host,
    size_t hlen, int *port, char *err, size_t errlen)
{
	const char	*s = *spec, *seg = *spec, *end, *at, *h, *he, *p = NULL;
	char		 shown[SSHCFG_SHOWN];
	size_t		 n;

	user[0] = host[0] = '\0';
	*port = 0;
	if (*s == '\0')
		return (0);
	if ((end = strchr(s, ',')) == NULL)
		end = s + strlen(s);
	*spec = *end == ',' ? end + 1 : end;
	if (end == s || (*end == ',' && end[1] == '\0'))
		goto bad;
	if ((size_t)(end - s) > 6 && strncmp(s, "ssh://", 6) == 0)
		s += 6;
	at = NULL;
	for (h = s; h < end; h++) {
		if (*h == '@')
			at = h;
	}
	if (at != NULL) {
		n = (size_t)(at - s);
		if (!sshcfg_user_ok(s, n) || n >= ulen)
			goto bad;
		memcpy(user, s, n);
		user[n] = '\0';
		s = at + 1;
	}
	if (*s == '[') {
		h = s + 1;
		if ((he = memchr(h, ']', (size_t)(end - h))) == NULL)
			goto bad;
		if (he + 1 < end) {
			if (he[1] != ':')
				goto bad;
			p = he + 2;
		}
	} else {
		h = s;
		if ((he = memchr(h, ':', (size_t)(end - h))) != NULL)
			p = he + 1;
		else
			he = end;
	}
	n = (size_t)(he - h);
	if (n == 0 || n >= hlen)
		goto bad;
	memcpy(host, h, n);
	host[n] = '\0';
	if (!address_ok(host))
		goto bad;
	if (p != NULL && (*port = sshcfg_port(p, (size_t)(end - p))) == -1)
		goto bad;
	return (1);
bad:
	snprintf(err, errlen, "bad jump host '%s' (want [user@]host[:port], "
	    "hosts separated by commas)", sshcfg_shown(seg, (size_t)(end - seg),
	    shown, sizeof shown));
	return (-1);
}

/* Checks a whole ProxyJump list. Returns 0, or -1 with words in err. */
static int
sshcfg_check_jumps(const char *name, const char *v, char *err, size_t errlen)
{
	char	 user[64], host[256], why[512];
	int	 port, r, n = 0;

	while ((r = sshcfg_next_hop(&v, user, sizeof user, host, sizeof host,
	    &port, why, sizeof why)) == 1) {
		if (++n > HOST_HOPS_MAX) {
			snprintf(err, errlen, "ssh_config host %s: ProxyJump "
			    "has more than %d hops", name, HOST_HOPS_MAX);
			return (-1);
		}
	}
	if (r < 0) {
		snprintf(err, errlen, "ssh_config host %s: ProxyJump: %s", name,
		    why);
		return (-1);
	}
	return (0);
}

/* Keeps one known_hosts file of ssh_config's UserKnownHostsFile list. */
static int
sshcfg_known_hosts(const char *name, const char *v, struct sshcfg *c,
    char *err, size_t errlen)
{
	char	 word[HOST_PATH_LEN];
	size_t	 n;

	c->reach.nkh = 0;
	while (*v != '\0') {
		while (*v == ' ')
			v++;
		n = strcspn(v, " ");
		if (n == 0)
			break;
		if (n >= sizeof word) {
			snprintf(err, errlen, "ssh_config host %s: a "
			    "UserKnownHostsFile path is too long", name);
			return (-1);
		}
		memcpy(word, v, n);
		word[n] = '\0';
		v += n;
		/* "none": no file; the list then falls back to orch's own. */
		if (strcmp(word, "none") == 0 || c->reach.nkh == HOST_KH_MAX)
			continue;
		if (sshcfg_expand(name, "UserKnownHostsFile", word, c,
		    c->reach.known_hosts[c->reach.nkh], HOST_PATH_LEN, err,
		    errlen) != 0)
			return (-1);
		c->reach.nkh++;
	}
	return (0);
}

/*
 * Checks one line's value for key. identityfile values wait for the
 * hostname, user and port they may name, so they are expanded afterwards.
 */
static int
sshcfg_key(const char *name, const char *key, const char *v, struct sshcfg *c,
    char *err, size_t errlen)
{
	long	 t;
	char	*end, sv[SSHCFG_SHOWN];

	sshcfg_shown(v, strlen(v), sv, sizeof sv);
	if (strcmp(key, "hostname") == 0) {
		if (!address_ok(v) ||
		    strlen(v) >= sizeof c->hostname) {
			snprintf(err, errlen, "ssh_config host %s: bad "
			    "HostName '%s' (want a host name or IP address)",
			    name, sv);
			return (-1);
		}
		snprintf(c->hostname, sizeof c->hostname, "%s", v);
	} else if (strcmp(key, "user") == 0) {
		if (!sshcfg_user_ok(v, strlen(v)) ||
		    strlen(v) >= sizeof c->user) {
			snprintf(err, errlen, "ssh_config host %s: bad User "
			    "'%s' (want a login name: no spaces, no leading "
			    "'-', at most %zu characters)", name, sv,
			    sizeof c->user - 1);
			return (-1);
		}
		snprintf(c->user, sizeof c->user, "%s", v);
	} else if (strcmp(key, "port") == 0) {
		if ((c->port = sshcfg_port(v, strlen(v))) == -1) {
			snprintf(err, errlen, "ssh_config host %s: bad Port "
			    "'%s' (want 1 to 65535)", name, sv);
			return (-1);
		}
	} else if (strcmp(key, "proxyjump") == 0) {
		if (strcmp(v, "none") == 0)
			return (0);
		if (strlen(v) >= sizeof c->proxyjump) {
			snprintf(err, errlen, "ssh_config host %s: ProxyJump "
			    "is too long", name);
			return (-1);
		}
		if (sshcfg_check_jumps(name, v, err, errlen) != 0)
			return (-1);
		snprintf(c->proxyjump, sizeof c->proxyjump, "%s", v);
	} else if (strcmp(key, "proxycommand") == 0) {
		if (strcmp(v, "none") == 0)
			return (0);
		snprintf(err, errlen, "ssh_config host %s: ProxyCommand is not "
		    "supported (orch speaks SSH itself); use ProxyJump, or an "
		    "inventory entry with jump =", name);
		return (-1);
	} else if (strcmp(key, "hostkeyalias") == 0) {
		if (!address_ok(v) ||
		    strlen(v) >= sizeof c->reach.hostkey_alias) {
			snprintf(err, errlen, "ssh_config host %s: bad "
			    "HostKeyAlias '%s'", name, sv);
			return (-1);
		}
		snprintf(c->reach.hostkey_alias, sizeof c->reach.hostkey_alias,
		    "%s", v);
	} else if (strcmp(key, "connecttimeout") == 0) {
		if (strcmp(v, "none") == 0)
			return (0);
		errno = 0;
		t = strtol(v, &end, 10);
		if (!isdigit((unsigned char)*v) || *end != '\0' || errno != 0 ||
		    t < 1 || t > SSHCFG_TIMEOUT_MAX) {
			snprintf(err, errlen, "ssh_config host %s: bad "
			    "ConnectTimeout '%s' (want 1 to %d seconds)",
			    name, sv, SSHCFG_TIMEOUT_MAX);
			return (-1);
		}
		c->reach.timeout_ms = (int)t * 1000;
	} else if (strcmp(key, "identitiesonly") == 0)
		c->reach.identities_only = strcmp(v, "yes") == 0 ||
		    strcmp(v, "true") == 0;
	else if (strcmp(key, "userknownhostsfile") == 0)
		return (sshcfg_known_hosts(name, v, c, err, errlen));
	return (0);
}

/*
 * Long because it is one pass over the lines with the identity files kept
 * aside until the hostname, user and port they may name are known.
 */
int
sshcfg_parse(const char *name, const char *text, size_t len, struct sshcfg *c,
    char *err, size_t errlen)
{
	const char	*p = text, *end = text + len, *nl;
	char		 line[4096], *v, ids[HOST_IDS_MAX][HOST_PATH_LEN];
	size_t		 n, nids = 0, i;

	memset(c, 0, sizeof *c);
	if (memchr(text, '\0', len) != NULL) {
		snprintf(err, errlen, "ssh_config host %s: ssh -G printed a "
		    "NUL byte", name);
		return (-1);
	}
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n >= sizeof line) {
			/* Long lines are algorithm lists we do not use. */
			continue;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		if ((v = strchr(line, ' ')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "identityfile") == 0) {
			if (nids == HOST_IDS_MAX)
				continue;
			if (strlen(v) >= HOST_PATH_LEN) {
				snprintf(err, errlen, "ssh_config host %s: an "
				    "IdentityFile path is too long", name);
				return (-1);
			}
			snprintf(ids[nids++], HOST_PATH_LEN, "%s", v);
			continue;
		}
		if (sshcfg_key(name, line, v, c, err, errlen) != 0)
			return (-1);
	}
	if (c->hostname[0] == '\0') {
		snprintf(err, errlen, "ssh_config host %s: ssh -G gave no "
		    "hostname", name);
		return (-1);
	}
	if (c->port == 0)
		c->port = 22;
	for (i = 0; i < nids; i++) {
		if (sshcfg_expand(name, "IdentityFile", ids[i], c,
		    c->reach.ids[c->reach.nids], HOST_PATH_LEN, err,
		    errlen) != 0)
			return (-1);
		c->reach.nids++;
	}
	return (0);
}

/* Appends up to len-1-*got bytes of fd's data to buf. Returns read()'s. */
static ssize_t
sshcfg_read(int fd, char *buf, size_t len, size_t *got)
{
	char	tmp[4096];
	ssize_t	n;
	size_t	k;

	if ((n = read(fd, tmp, sizeof tmp)) <= 0)
		return (n);
	k = (size_t)n < len - 1 - *got ? (size_t)n : len - 1 - *got;
	memcpy(buf + *got, tmp, k);
	*got += k;
	buf[*got] = '\0';
	return (n);
}

/*
 * Spawns ssh -G and collects its stdout (at most SSHCFG_OUT_MAX) and
 * stderr, bounded by SSHCFG_TIMEOUT. Returns its exit status, 256 when it
 * died or timed out, -2 when ssh is missing, -1 with err.
 */
static int
sshcfg_spawn(char *const argv[], char *out, size_t *outlen, char *msg,
    size_t msglen, char *err, size_t errlen)
{
	posix_spawn_file_actions_t	 fa;
	struct pollfd			 pfd[2];
	int64_t				 deadline;
	size_t				 got = 0, mgot = 0;
	pid_t				 pid, w = 0;
	int				 po[2], pe[2], e, st = 0, left, nfd;

	if (pipe(po) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return (-1);
	}
	if (pipe(pe) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(po[0]);
		close(po[1]);
		return (-1);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawn_file_actions_addclose(&fa, po[0]);
	posix_spawn_file_actions_addclose(&fa, po[1]);
	posix_spawn_file_actions_addclose(&fa, pe[0]);
	posix_spawn_file_actions_addclose(&fa, pe[1]);
	e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (e != 0) {
		close(po[0]);
		close(pe[0]);
		if (e == ENOENT)
			return (-2);
		snprintf(err, errlen, "cannot run ssh -G: %s", strerror(e));
		return (-1);
	}
	out[0] = msg[0] = '\0';
	deadline = util_now_ms() + SSHCFG_TIMEOUT;
	pfd[0].fd = po[0];
	pfd[1].fd = pe[0];
	pfd[0].events = pfd[1].events = POLLIN;
	nfd = 2;
	while (pfd[0].fd != -1 || pfd[1].fd != -1) {
		if ((left = (int)(deadline - util_now_ms())) <= 0 ||
		    poll(pfd, (nfds_t)nfd, left) <= 0)
			break;
		if (pfd[0].revents != 0 && sshcfg_read(po[0], out,
		    SSHCFG_OUT_MAX + 1, &got) <= 0)
			pfd[0].fd = -1;
		if (pfd[1].revents != 0 && sshcfg_read(pe[0], msg, msglen,
		    &mgot) <= 0)
			pfd[1].fd = -1;
	}
	close(po[0]);
	close(pe[0]);
	*outlen = got;
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 &&
	    util_now_ms() < deadline)
		poll(NULL, 0, 10);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return (256);
	}
	if (!WIFEXITED(st))
		return (256);
	if (WEXITSTATUS(st) == 127 && got == 0)
		return (-2);	/* a shell wrapper that found no ssh */
	return (WEXITSTATUS(st));
}

int
sshcfg_query(const char *file, const char *name, struct sshcfg *c, char *err,
    size_t errlen)
{
	char	*argv[7], *out, msg[SSHCFG_ERR_MAX];
	size_t	 n = 0, outlen = 0;
	int	 r;

	if (file != NULL && *file == '\0') {
		snprintf(err, errlen, "ssh_config host %s: --ssh-config= "
		    "names no file", name);
		return (-1);
	}
	argv[n++] = (char *)(uintptr_t)"ssh";
	argv[n++] = (char *)(uintptr_t)"-G";
	if (file != NULL) {
		argv[n++] = (char *)(uintptr_t)"-F";
		argv[n++] = (char *)(uintptr_t)file;
	}
	argv[n++] = (char *)(uintptr_t)"--";
	argv[n++] = (char *)(uintptr_t)name;
	argv[n] = NULL;
	if ((out = malloc(SSHCFG_OUT_MAX + 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return (-1);
	}
	r = sshcfg_spawn(argv, out, &outlen, msg, sizeof msg, err, errlen);
	if (r == -2) {
		free(out);
		return (1);
	}
	if (r == -1)
		goto out;
	if (r != 0) {
		msg[strcspn(msg, "\n")] = '\0';
		sshcfg_shown(msg, strlen(msg), msg, sizeof msg);
		snprintf(err, errlen, "ssh_config host %s: ssh -G%s%s failed "
		    "(%s%.300s)", name, file != NULL ? " -F " : "",
		    file != NULL ? file : "", r == 256 ? "no answer" : "",
		    r == 256 ? "" : msg[0] != '\0' ? msg : "no message");
		r = -1;
		goto out;
	}
	if (outlen > SSHCFG_OUT_MAX) {
		snprintf(err, errlen, "ssh_config host %s: ssh -G printed more "
		    "than %d bytes", name, SSHCFG_OUT_MAX);
		r = -1;
		goto out;
	}
	r = sshcfg_parse(name, out, outlen, c, err, errlen) == 0 ? 0 : -1;
out:
	free(out);
	return (r);
}
