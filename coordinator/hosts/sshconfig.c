/*
 * Hosts from ssh_config through `ssh -G`: OpenSSH resolves the name (its
 * Include, Match, wildcards and defaults), we read the answer as untrusted
 * text and keep the few keys that say how to reach the host.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
	return (0);
}

/* Returns 1 if line[0..n) sets one of the known_hosts file lists. */
static int
sshcfg_is_kh(const char *line, size_t n)
{
	return ((n > 19 && strncmp(line, "userknownhostsfile ", 19) == 0) ||
	    (n > 21 && strncmp(line, "globalknownhostsfile ", 21) == 0));
}

/*
 * Takes the known_hosts file lists (ukh, gkh: as printed, "" when not)
 * into c. "none" for the user's list falls back to orch's own file; for
 * the global list it is no file. Returns 0, or -1 with words in err.
 */
static int
sshcfg_kh(const char *name, const char *ukh, const char *gkh,
    struct sshcfg *c, char *err, size_t errlen)
{
	if (ukh[0] != '\0' && sshcfg_kh_list(name, "UserKnownHostsFile", ukh,
	    c, c->reach.known_hosts, &c->reach.nkh, err, errlen) != 0)
		return (-1);
	if (gkh[0] == '\0')
		return (0);
	c->reach.global_set = 1;
	return (sshcfg_kh_list(name, "GlobalKnownHostsFile", gkh, c,
	    c->reach.global_kh, &c->reach.nglobal, err, errlen));
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
	char		 ukh[sizeof line], gkh[sizeof line];
	size_t		 n, nids = 0, i;

	memset(c, 0, sizeof *c);
	ukh[0] = gkh[0] = '\0';
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
		if (n >= sizeof line && sshcfg_is_kh(p, n)) {
			snprintf(err, errlen, "ssh_config host %s: a known "
			    "hosts file list is too long", name);
			return (-1);
		}
		if (n >= sizeof line) {
			/* Long lines are algorithm lists we do not use. */
			continue;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		if ((v = strchr(line, ' ')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "userknownhostsfile") == 0 ||
		    strcmp(line, "globalknownhostsfile") == 0) {
			snprintf(line[0] == 'u' ? ukh : gkh, sizeof ukh, "%s",
			    v);
			continue;
		}
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
	return (sshcfg_kh(name, ukh, gkh, c, err, errlen));
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

/*
 * The known_hosts file lists, UserKnownHostsFile and GlobalKnownHostsFile,
 * taken whole. `ssh -G` prints a list with its paths joined by blanks and no
 * quotes, so a path with a blank cannot be told from two paths; the line
 * it came from can: the config files (with their Include lines) are read
 * for the line whose words, split as OpenSSH splits them ("..." and '...'
 * quotes, backslash escapes) and expanded, print as ssh -G printed them.
 * A list whose written form disagrees with the files there (an unquoted
 * run of words that names a file only when joined, a quoted path with a
 * blank that names none while its parts do), and a printed list with no
 * line found that could be read either way, are refused, naming the line
 * and saying to quote the path. A relative path is refused: OpenSSH would
 * read it from the current directory.
 */

#define SKH_WORDS	32	/* words of one list */
#define SKH_FILES	64	/* config files read for the line */
#define SKH_DEPTH	8	/* Include levels */

/* One list as written on a line: its paths, expanded, and their quoting. */
struct skh_list {
	char	 path[SKH_WORDS][HOST_PATH_LEN];
	int	 quoted[SKH_WORDS];	/* a blank of it was quoted */
	size_t	 n;
};

/* The search for the line a printed list came from. */
struct skh_find {
	const char		*name;		/* the ssh_config host */
	const char		*key;		/* "UserKnownHostsFile" */
	const char		*value;		/* as ssh -G printed it */
	const struct sshcfg	*c;
	int			 nfiles;
	int			 found;		/* a line matched */
	struct skh_list		 list;		/* its list */
	char			 where[HOST_PATH_LEN + 16];	/* FILE:LINE */
	int			 clash;		/* two lines, two readings */
	char			 where2[HOST_PATH_LEN + 16];
};

/* Returns 1 if path names something (a file, a link, a directory). */
static int
skh_exists(const char *path)
{
	struct stat	sb;

	return (lstat(path, &sb) == 0);
}

/*
 * Splits s as OpenSSH's argv_split does into l (quoted words kept whole,
 * \" \' \\ and an escaped blank taken literally, # ends the line at a
 * word's start), unexpanded. Returns 0, or -1 when a word is too long, a
 * quote is left open or there are too many words.
 */
static int
skh_split(const char *s, struct skh_list *l)
{
	size_t	j;
	int	q;

	l->n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#')
			return (0);
		if (l->n == SKH_WORDS)
			return (-1);
		l->quoted[l->n] = 0;
		for (j = 0, q = 0; *s != '\0'; s++) {
			if (j + 1 >= HOST_PATH_LEN)
				return (-1);
			if (*s == '\\' && (s[1] == '"' || s[1] == '\'' ||
			    s[1] == '\\' || (q == 0 && s[1] == ' '))) {
				if (*++s == ' ')
					l->quoted[l->n] = 1;
				l->path[l->n][j++] = *s;
			} else if (q == 0 && (*s == ' ' || *s == '\t'))
				break;
			else if (q == 0 && (*s == '"' || *s == '\'')) {
				q = *s;
				l->quoted[l->n] = 1;
			} else if (q != 0 && *s == q)
				q = 0;
			else
				l->path[l->n][j++] = *s;
		}
		if (q != 0)
			return (-1);
		l->path[l->n++][j] = '\0';
	}
}

/* Joins words a..b of the list with single blanks into out; -1: too long. */
static int
skh_join(const struct skh_list *l, size_t a, size_t b, char *out,
    size_t len)
{
	size_t	i, o = 0, n;

	for (i = a; i <= b; i++) {
		n = strlen(l->path[i]);
		if (o + n + 2 > len)
			return (-1);
		if (i > a)
			out[o++] = ' ';
		memcpy(out + o, l->path[i], n);
		o += n;
	}
	out[o] = '\0';
	return (0);
}

/* Records a line whose list prints as the value. */
static void
skh_match(struct skh_find *f, const char *file, int line,
    const struct skh_list *l)
{
	size_t	i;
	int	same = f->found && f->list.n == l->n;

	for (i = 0; same && i < l->n; i++)
		same = strcmp(f->list.path[i], l->path[i]) == 0;
	if (!f->found) {
		f->found = 1;
		f->list = *l;
		snprintf(f->where, sizeof f->where, "%s:%d", file, line);
	} else if (!same && !f->clash) {
		f->clash = 1;
		snprintf(f->where2, sizeof f->where2, "%s:%d", file, line);
	}
}

static void	skh_file(struct skh_find *, const char *, int, int);

/* Reads the files an Include line names (args, unexpanded). */
static void
skh_include(struct skh_find *f, const char *args, int user, int depth)
{
	struct skh_list	*l;
	glob_t		 g;
	char		 pat[HOST_PATH_LEN * 2], raw[HOST_PATH_LEN + 16];
	char		 why[256];
	size_t		 i, k;

	if ((l = calloc(1, sizeof *l)) == NULL || skh_split(args, l) != 0) {
		free(l);
		return;
	}
	for (i = 0; i < l->n; i++) {
		if (l->path[i][0] != '/' && l->path[i][0] != '~')
			snprintf(raw, sizeof raw, "%s%s", user ? "~/.ssh/" :
			    "/etc/ssh/", l->path[i]);
		else
			snprintf(raw, sizeof raw, "%s", l->path[i]);
		if (sshcfg_expand(f->name, "Include", raw, f->c, pat,
		    sizeof pat, why, sizeof why) != 0)
			continue;
		memset(&g, 0, sizeof g);
		if (glob(pat, 0, NULL, &g) != 0)
			continue;
		for (k = 0; k < g.gl_pathc; k++)
			skh_file(f, g.gl_pathv[k], user, depth + 1);
		globfree(&g);
	}
	free(l);
}

/* Handles one config line: an Include, or a line of the key. */
static void
skh_line(struct skh_find *f, const char *file, int lineno, char *s, int user,
    int depth)
{
	struct skh_list	*l, *e;
	char		*kw, joined[HOST_PATH_LEN * 2], why[256];
	size_t		 n, i;
	int		 ok = 1;

	while (*s == ' ' || *s == '\t')
		s++;
	kw = s;
	n = strcspn(s, " \t=");
	if (n == 0 || *kw == '#')
		return;
	s += n;
	if (*s != '\0')
		*s++ = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '=')
		s++;
	if (strcasecmp(kw, "Include") == 0) {
		skh_include(f, s, user, depth);
		return;
	}
	if (strcasecmp(kw, f->key) != 0)
		return;
	l = calloc(1, sizeof *l);
	e = calloc(1, sizeof *e);
	if (l == NULL || e == NULL || skh_split(s, l) != 0)
		ok = 0;
	for (i = 0; ok && i < l->n; i++) {
		e->quoted[i] = l->quoted[i];
		ok = sshcfg_expand(f->name, f->key, l->path[i], f->c,
		    e->path[i], HOST_PATH_LEN, why, sizeof why) == 0;
	}
	if (ok) {
		e->n = l->n;
		if (e->n > 0 && skh_join(e, 0, e->n - 1, joined,
		    sizeof joined) == 0 && strcmp(joined, f->value) == 0)
			skh_match(f, file, lineno, e);
	}
	free(l);
	free(e);
}

/* Reads one config file (user: relative Includes are under ~/.ssh). */
static void
skh_file(struct skh_find *f, const char *path, int user, int depth)
{
	FILE	*fp;
	char	*line = NULL;
	size_t	 size = 0;
	ssize_t	 len;
	int	 lineno = 0;

	if (depth > SKH_DEPTH || f->nfiles >= SKH_FILES ||
	    (fp = fopen(path, "r")) == NULL)
		return;
	f->nfiles++;
	while ((len = getline(&line, &size, fp)) != -1) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (strlen(line) == (size_t)len)
			skh_line(f, path, lineno, line, user, depth);
	}
	free(line);
	fclose(fp);
}

/*
 * Checks a list as written on a line: an unquoted run of words that names
 * a file only when joined, or a quoted path with a blank that names none
 * while each of its parts does, is refused. Returns 0 or -1 (err).
 */
static int
skh_check_written(const struct skh_find *f, const struct skh_list *l,
    char *err, size_t errlen)
{
	struct skh_list	*parts;
	char		 joined[HOST_PATH_LEN * 2];
	size_t		 a, b, i;
	int		 all, r = 0;

	for (a = 0; a < l->n; a++) {
		for (b = a + 1; b < l->n && !l->quoted[b] && !l->quoted[a];
		    b++) {
			if (skh_join(l, a, b, joined, sizeof joined) != 0 ||
			    !skh_exists(joined))
				continue;
			for (i = a, all = 1; i <= b; i++)
				all = all && skh_exists(l->path[i]);
			if (all)
				continue;
			snprintf(err, errlen, "%s: %s: '%s' names a file, but "
			    "unquoted it is read as %zu paths; quote it: "
			    "%s \"%s\"", f->where, f->key, joined, b - a + 1,
			    f->key, joined);
			return (-1);
		}
	}
	if ((parts = calloc(1, sizeof *parts)) == NULL)
		return (0);
	for (a = 0; a < l->n && r == 0; a++) {
		if (!l->quoted[a] || strchr(l->path[a], ' ') == NULL ||
		    skh_exists(l->path[a]) || skh_split(l->path[a], parts) != 0)
			continue;
		for (i = 0, all = 1; i < parts->n; i++)
			all = all && skh_exists(parts->path[i]);
		if (all) {
			snprintf(err, errlen, "%s: %s: the quoted path '%s' "
			    "names no file, but each of its blank-separated "
			    "parts does; write them unquoted if they are %zu "
			    "files, or fix the path", f->where, f->key,
			    l->path[a], parts->n);
			r = -1;
		}
	}
	free(parts);
	return (r);
}

/*
 * The printed value split at its blanks when no line was found: refused
 * when some run of its words names a file when joined (it could be one
 * path with blanks). Returns 0 or -1 (err).
 */
static int
skh_check_printed(const struct skh_find *f, const struct skh_list *l,
    const char *searched, char *err, size_t errlen)
{
	char	joined[HOST_PATH_LEN * 2];
	size_t	a, b;

	for (a = 0; a < l->n; a++) {
		for (b = a + 1; b < l->n; b++) {
			if (skh_join(l, a, b, joined, sizeof joined) != 0 ||
			    !skh_exists(joined))
				continue;
			snprintf(err, errlen, "ssh_config host %s: %s is "
			    "ambiguous: ssh -G prints it unquoted ('%s'), and "
			    "'%s' names a file though it reads as %zu paths; "
			    "no line of %s writes it: quote the path in the "
			    "ssh_config line that sets it (%s \"%s\")",
			    f->name, f->key, f->value, joined, b - a + 1,
			    searched, f->key, joined);
			return (-1);
		}
	}
	return (0);
}

/* Takes the printed value's words as they are (split at blanks). */
static int
skh_printed(const char *value, struct skh_list *l)
{
	size_t	n;

	l->n = 0;
	while (*value != '\0') {
		while (*value == ' ' || *value == '\t')
			value++;
		if ((n = strcspn(value, " \t")) == 0)
			break;
		if (l->n == SKH_WORDS || n >= HOST_PATH_LEN)
			return (-1);
		memcpy(l->path[l->n], value, n);
		l->path[l->n][n] = '\0';
		l->quoted[l->n++] = 0;
		value += n;
	}
	return (0);
}

/*
 * Copies the list's paths out ("none" words left out), each absolute;
 * printed words (no line found) are checked and expanded as before.
 * Returns 0 or -1 (err).
 */
static int
skh_out(const struct skh_find *f, const struct skh_list *l,
    char out[][HOST_PATH_LEN], size_t *nout, char *err, size_t errlen)
{
	char	p[HOST_PATH_LEN];
	size_t	i;

	*nout = 0;
	for (i = 0; i < l->n; i++) {
		if (strcmp(l->path[i], "none") == 0)
			continue;
		if (f->found)
			snprintf(p, sizeof p, "%s", l->path[i]);
		else if (sshcfg_expand(f->name, f->key, l->path[i], f->c, p,
		    sizeof p, err, errlen) != 0)
			return (-1);
		if (p[0] != '/') {
			snprintf(err, errlen, "ssh_config host %s%s%s: %s "
			    "'%s' is a relative path (ssh would read it from "
			    "the current directory); write it as ~/%s or in "
			    "full", f->name, f->found ? " at " : "",
			    f->found ? f->where : "", f->key, p, p);
			return (-1);
		}
		if (*nout == HOST_KH_MAX) {
			snprintf(err, errlen, "ssh_config host %s: %s names "
			    "more than %d files", f->name, f->key,
			    HOST_KH_MAX);
			return (-1);
		}
		snprintf(out[(*nout)++], HOST_PATH_LEN, "%s", p);
	}
	return (0);
}

/* The config files ssh reads: --ssh-config's, else ~/.ssh/config and /etc. */
static void
skh_search(struct skh_find *f, char *searched, size_t len)
{
	const char	*file = sshcfg_file(), *home = getenv("HOME");
	char		 user[HOST_PATH_LEN];

	if (file != NULL) {
		skh_file(f, file, 1, 0);
		snprintf(searched, len, "%s", file);
		return;
	}
	snprintf(user, sizeof user, "%s/.ssh/config", home != NULL ? home :
	    "");
	skh_file(f, user, 1, 0);
	skh_file(f, "/etc/ssh/ssh_config", 0, 0);
	snprintf(searched, len, "%s or /etc/ssh/ssh_config", user);
}

int
sshcfg_kh_list(const char *name, const char *key, const char *value,
    const struct sshcfg *c, char out[][HOST_PATH_LEN], size_t *nout,
    char *err, size_t errlen)
{
	struct skh_find	*f;
	struct skh_list	*l;
	char		 searched[HOST_PATH_LEN + 64];
	size_t		 i;
	int		 r = -1;

	*nout = 0;
	if ((f = calloc(1, sizeof *f)) == NULL ||
	    (l = calloc(1, sizeof *l)) == NULL) {
		free(f);
		snprintf(err, errlen, "out of memory");
		return (-1);
	}
	f->name = name;
	f->key = key;
	f->value = value;
	f->c = c;
	for (i = 0; value[i] != '\0'; i++) {
		if (iscntrl((unsigned char)value[i]) && value[i] != '\t') {
			snprintf(err, errlen, "ssh_config host %s: %s holds a "
			    "control character", name, key);
			goto out;
		}
	}
	if (skh_printed(value, l) != 0) {
		snprintf(err, errlen, "ssh_config host %s: %s is too long (at "
		    "most %d paths of %d characters)", name, key, SKH_WORDS,
		    HOST_PATH_LEN - 1);
		goto out;
	}
	if (l->n > 1) {
		skh_search(f, searched, sizeof searched);
		if (f->clash) {
			snprintf(err, errlen, "ssh_config host %s: %s: %s and "
			    "%s print alike but split into other paths; "
			    "quote the paths with blanks", name, key, f->where,
			    f->where2);
			goto out;
		}
		if (f->found) {
			*l = f->list;
			if (skh_check_written(f, l, err, errlen) != 0)
				goto out;
		} else if (skh_check_printed(f, l, searched, err,
		    errlen) != 0)
			goto out;
	}
	r = skh_out(f, l, out, nout, err, errlen);
out:
	free(f);
	free(l);
	return (r);
}
