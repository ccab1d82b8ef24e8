/*
 * Inventory files (INI, see DESIGN.md "Inventory file"): parsed with inih,
 * checked key by key, every error naming the file and line; then resolving
 * a --hosts list against them.
 *
 * inih does not pass line numbers to its handler, truncates long section
 * names and never reports a section without keys. So, as for suite files,
 * the file is read into memory and handed to inih by our own reader, which
 * counts lines, parses [section] headers itself (inih sees a blank line)
 * and strips leading blanks so that inih's continuation lines never apply.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/inventory.h"

#define INV_FILE_MAX		(1024 * 1024)	/* largest inventory, bytes */
#define INV_HOSTS_MAX		1024
#define INV_GROUPS_MAX		1024
#define INV_MEMBERS_MAX		1024		/* names in one group */
#define INV_CPU_MAX		1023		/* highest CPU in a cpu_set_t */
#define INV_LIST_MAX		32		/* names shown in a message */
#define INV_NAME_RULE		"1 to 63 of A-Z a-z 0-9 _ . -"
#define INV_PW_BUF		16384		/* getpwuid_r buffer */

/* Size of a field of struct host, so copies into it always fit. */
#define HOST_FIELD(f)		sizeof(((struct host *)NULL)->f)

/* What a name in a group or a --hosts list stands for. */
enum inv_kind {
	INV_HOST,
	INV_GROUP,
	INV_LOCAL,
};

/* A [host.NAME] section, or the [host.local] overrides. */
struct inv_host {
	char		 name[HOST_FIELD(name)];
	char		 address[HOST_FIELD(address)];
	int		 port;
	char		 user[HOST_FIELD(user)];
	char		 identity[HOST_FIELD(identity)]; /* ~/ expanded */
	int		 transport;	/* HOST_TRANSPORT_* */
	char		 workdir[HOST_FIELD(workdir)];	/* local: "" unset */
	char		 pin[HOST_FIELD(pin)];		/* "": none */
	double		 max_load;	/* < 0: the suite's */
	int		 line;		/* of the section header */
};

/* One name in a group's hosts list. */
struct inv_member {
	char		 name[HOST_FIELD(name)];
	enum inv_kind	 kind;		/* known once the whole file is read */
	size_t		 idx;		/* into hosts or groups */
};

struct inv_group {
	char		 name[HOST_FIELD(name)];
	int		 line;		/* of the section header */
	int		 hosts_line;	/* of its hosts key */
	struct inv_member *members;
	size_t		 nmembers;
};

/* A host or group name, for lookups by name (sorted by name). */
struct inv_name {
	const char	*name;
	enum inv_kind	 kind;
	size_t		 idx;
};

struct inventory {
	char		*path;
	int		 missing;	/* no file: only `local` */
	struct inv_host	*hosts;		/* in file order */
	size_t		 nhosts;
	struct inv_group *groups;	/* in file order */
	size_t		 ngroups;
	struct inv_host	 local;		/* [host.local] overrides */
	int		 local_line;	/* of [host.local]; 0: none */
	struct inv_name	*index;		/* hosts and groups, sorted */
	size_t		 nindex;
};

enum inv_sect {
	SECT_NONE,
	SECT_HOST,
	SECT_LOCAL,
	SECT_GROUP,
};

static const char *const inv_host_keys[] = {
	"address", "port", "user", "identity", "transport", "workdir", "pin",
	"max_load", NULL
};
enum {
	HK_ADDRESS, HK_PORT, HK_USER, HK_IDENTITY, HK_TRANSPORT, HK_WORKDIR,
	HK_PIN, HK_MAX_LOAD, HK_COUNT
};

static const char *const inv_group_keys[] = { "hosts", NULL };
enum { GK_HOSTS };

struct inv_parse {
	struct inventory *inv;
	const char	*path;		/* as given, for messages */
	char		*text;		/* the whole file */
	size_t		 len;
	size_t		 off;		/* next unread byte of text */
	int		 line;		/* the line inih is working on */
	int		 failed;
	char		*cause;		/* the first error */

	enum inv_sect	 sect;		/* the current section */
	int		 sect_line;
	char		 label[HOST_FIELD(name) + 16];	/* "[host.NAME]" */
	int		 seen[HK_COUNT];	/* line of each key, or 0 */
};

/* A growing string for messages; oom is set when an append failed. */
struct inv_buf {
	char		*s;
	size_t		 len;
	size_t		 cap;
	int		 oom;
};

static char	*inv_vfmt(const char *, va_list)
		    __attribute__((format(printf, 1, 0)));
static char	*inv_fmt(const char *, ...)
		    __attribute__((format(printf, 1, 2)));
static void	 inv_error(struct inv_parse *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
static void	 inv_buf_add(struct inv_buf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

/* Formats into a new string, or returns NULL when out of memory. */
static char *
inv_vfmt(const char *fmt, va_list ap)
{
	va_list	 ap2;
	char	*s;
	int	 n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return (NULL);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return (s);
}

/* Formats into a new string, or returns NULL when out of memory. */
static char *
inv_fmt(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = inv_vfmt(fmt, ap);
	va_end(ap);
	return (s);
}

/*
 * Records the first error as "PATH:LINE: message", or "PATH: message" for
 * line 0. Out of memory leaves cause NULL; the caller reports that.
 */
static void
inv_error(struct inv_parse *p, int line, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	if (p->failed)
		return;
	p->failed = 1;
	va_start(ap, fmt);
	msg = inv_vfmt(fmt, ap);
	va_end(ap);
	if (msg == NULL)
		return;
	if (line > 0)
		p->cause = inv_fmt("%s:%d: %s", p->path, line, msg);
	else
		p->cause = inv_fmt("%s: %s", p->path, msg);
	free(msg);
}

/* Appends to a message buffer; on failure sets b->oom and keeps going. */
static void
inv_buf_add(struct inv_buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*nb;
	size_t	 cap;
	int	 n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		cap = (b->len + (size_t)n + 1) * 2;
		if ((nb = realloc(b->s, cap)) == NULL) {
			b->oom = 1;
			return;
		}
		b->s = nb;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Returns 1 if s[0..len) is a valid host or group name. */
static int
inv_name_ok(const char *s, size_t len)
{
	size_t	i;

	if (len == 0 || len >= HOST_FIELD(name))
		return (0);
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.' && s[i] != '-')
			return (0);
	}
	return (1);
}

/* Returns 1 if s holds no blank or control character. */
static int
inv_no_space(const char *s)
{
	for (; *s != '\0'; s++) {
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return (0);
	}
	return (1);
}

/* Returns 1 if s holds no control character. */
static int
inv_printable(const char *s)
{
	for (; *s != '\0'; s++) {
		if (iscntrl((unsigned char)*s))
			return (0);
	}
	return (1);
}

/*
 * Looks the current user up in the password database: their home directory
 * (home != 0) or login name into out. Returns 0, or -1 when unknown or too
 * long.
 */
static int
inv_passwd(int home, char *out, size_t len)
{
	struct passwd	 pw, *res = NULL;
	char		*buf;
	const char	*v;
	int		 r = -1;

	if ((buf = malloc(INV_PW_BUF)) == NULL)
		return (-1);
	if (getpwuid_r(getuid(), &pw, buf, INV_PW_BUF, &res) == 0 &&
	    res != NULL) {
		v = home ? res->pw_dir : res->pw_name;
		if (v != NULL && *v != '\0' && strlen(v) < len) {
			memcpy(out, v, strlen(v) + 1);
			r = 0;
		}
	}
	free(buf);
	return (r);
}

/*
 * Expands a leading "~/" (or a lone "~") with $HOME, else the password
 * database's home, into out; other values are copied. Returns 0, or -1
 * with the error reported.
 */
static int
inv_tilde(struct inv_parse *p, const char *key, const char *v, char *out,
    size_t len)
{
	char		 pwhome[1024];
	const char	*home;
	int		 n;

	if (v[0] != '~') {
		if (strlen(v) >= len) {
			inv_error(p, p->line, "%s %s: '%s' is too long (at "
			    "most %zu characters)", p->label, key, v, len - 1);
			return (-1);
		}
		memcpy(out, v, strlen(v) + 1);
		return (0);
	}
	if (v[1] != '\0' && v[1] != '/') {
		inv_error(p, p->line, "%s %s: '%s': only ~/ is expanded, "
		    "not ~user", p->label, key, v);
		return (-1);
	}
	home = getenv("HOME");
	if (home == NULL || *home == '\0') {
		if (inv_passwd(1, pwhome, sizeof pwhome) != 0) {
			inv_error(p, p->line, "%s %s: cannot expand '%s': HOME "
			    "is not set", p->label, key, v);
			return (-1);
		}
		home = pwhome;
	}
	/* "~/x" with HOME "/" is "//x": harmless, and rare enough. */
	n = snprintf(out, len, "%s%s", home, v + 1);
	if (n < 0 || (size_t)n >= len) {
		inv_error(p, p->line, "%s %s: '%s' is too long once expanded "
		    "(at most %zu characters)", p->label, key, v, len - 1);
		out[0] = '\0';
		return (-1);
	}
	return (0);
}

/*
 * Returns 1 if v is a CPU list: numbers and ranges LO-HI (LO <= HI) joined
 * by commas, every CPU at most INV_CPU_MAX.
 */
static int
inv_cpus_ok(const char *v)
{
	unsigned long	lo, hi;
	int		digits;

	for (;;) {
		for (lo = 0, digits = 0; isdigit((unsigned char)*v); v++) {
			lo = lo * 10 + (unsigned long)(*v - '0');
			if (++digits > 4)
				return (0);
		}
		if (digits == 0)
			return (0);
		hi = lo;
		if (*v == '-') {
			v++;
			for (hi = 0, digits = 0; isdigit((unsigned char)*v);
			    v++) {
				hi = hi * 10 + (unsigned long)(*v - '0');
				if (++digits > 4)
					return (0);
			}
			if (digits == 0)
				return (0);
		}
		if (lo > hi || hi > INV_CPU_MAX)
			return (0);
		if (*v == '\0')
			return (1);
		if (*v++ != ',')
			return (0);
	}
}

/*
 * Parses a number >= 0 written as digits with an optional fraction (no
 * sign, exponent or locale): up to 6 digits before the point and 9 after,
 * so the value is exact before one correctly rounded division. Returns 0 or
 * -1.
 */
static int
inv_parse_load(const char *v, double *out)
{
	unsigned long long	mant = 0;
	double			scale = 1.0;
	int			idig = 0, fdig = 0, dot = 0;

	for (; *v != '\0'; v++) {
		if (*v == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (!isdigit((unsigned char)*v))
			return (-1);
		if (dot ? ++fdig > 9 : ++idig > 6)
			return (-1);
		mant = mant * 10 + (unsigned long long)(*v - '0');
		if (dot)
			scale *= 10.0;
	}
	if (idig + fdig == 0)
		return (-1);
	*out = (double)mant / scale;
	return (0);
}

/* Parses a TCP port, 1 to 65535 in decimal digits. Returns it, or -1. */
static int
inv_parse_port(const char *v)
{
	long	x = 0;
	int	digits = 0;

	for (; *v != '\0'; v++) {
		if (!isdigit((unsigned char)*v) || ++digits > 5)
			return (-1);
		x = x * 10 + (*v - '0');
	}
	if (digits == 0 || x < 1 || x > 65535)
		return (-1);
	return ((int)x);
}

/* Copies v into a field of size len if it fits. Returns 0 or -1. */
static int
inv_copy(char *dst, size_t len, const char *v)
{
	size_t	n = strlen(v);

	if (n >= len)
		return (-1);
	memcpy(dst, v, n + 1);
	return (0);
}

/* Returns the host the current [host.NAME] or [host.local] section fills. */
static struct inv_host *
inv_cur_host(struct inv_parse *p)
{
	if (p->sect == SECT_LOCAL)
		return (&p->inv->local);
	return (&p->inv->hosts[p->inv->nhosts - 1]);
}

/* Handles one key of a host section (k is an HK_* index). */
static void
inv_key_host(struct inv_parse *p, int k, const char *v)
{
	struct inv_host	*h = inv_cur_host(p);
	double		 d;

	switch (k) {
	case HK_ADDRESS:
		if (*v == '\0' || *v == '-' || !inv_no_space(v) ||
		    inv_copy(h->address, sizeof h->address, v) != 0)
			inv_error(p, p->line, "%s bad address '%s' (want a "
			    "host name or IP address: no spaces, no leading "
			    "'-', at most %zu characters)", p->label, v,
			    sizeof h->address - 1);
		break;
	case HK_PORT:
		if ((h->port = inv_parse_port(v)) == -1)
			inv_error(p, p->line, "%s bad port '%s' (want 1 to "
			    "65535)", p->label, v);
		break;
	case HK_USER:
		if (*v == '\0' || *v == '-' || !inv_no_space(v) ||
		    inv_copy(h->user, sizeof h->user, v) != 0)
			inv_error(p, p->line, "%s bad user '%s' (want a login "
			    "name: no spaces, no leading '-', at most %zu "
			    "characters)", p->label, v, sizeof h->user - 1);
		break;
	case HK_IDENTITY:
		if (!inv_printable(v)) {
			inv_error(p, p->line, "%s bad identity: control "
			    "character in path", p->label);
			break;
		}
		inv_tilde(p, "identity", v, h->identity, sizeof h->identity);
		break;
	case HK_TRANSPORT:
		if (strcmp(v, "tunnel") == 0)
			h->transport = HOST_TRANSPORT_TUNNEL;
		else if (strcmp(v, "direct") == 0)
			h->transport = HOST_TRANSPORT_DIRECT;
		else
			inv_error(p, p->line, "%s bad transport '%s' (want "
			    "tunnel or direct)", p->label, v);
		break;
	case HK_WORKDIR:
		if (*v == '\0' || !inv_printable(v)) {
			inv_error(p, p->line, "%s bad workdir '%s' (want a "
			    "directory path)", p->label, v);
			break;
		}
		/*
		 * A remote workdir is expanded by the SSH backend on the
		 * host; the local agent is started without a shell, so
		 * expand its ~/ here.
		 */
		if (p->sect == SECT_LOCAL)
			inv_tilde(p, "workdir", v, h->workdir,
			    sizeof h->workdir);
		else if (inv_copy(h->workdir, sizeof h->workdir, v) != 0)
			inv_error(p, p->line, "%s workdir: '%s' is too long "
			    "(at most %zu characters)", p->label, v,
			    sizeof h->workdir - 1);
		break;
	case HK_PIN:
		if (!inv_cpus_ok(v) || inv_copy(h->pin, sizeof h->pin, v) != 0)
			inv_error(p, p->line, "%s bad pin '%s' (want a CPU "
			    "list like 0-3,8 with CPUs 0 to %d)", p->label, v,
			    INV_CPU_MAX);
		break;
	case HK_MAX_LOAD:
		if (inv_parse_load(v, &d) != 0)
			inv_error(p, p->line, "%s bad max_load '%s' (want a "
			    "number >= 0, like 0.33)", p->label, v);
		else
			h->max_load = d;
		break;
	}
}

/* Handles a group's hosts key: comma-separated names, checked later. */
static void
inv_key_hosts(struct inv_parse *p, const char *v)
{
	struct inv_group	*g = &p->inv->groups[p->inv->ngroups - 1];
	const char		*a, *e, *end;
	size_t			 n, i;

	g->hosts_line = p->line;
	if (*v == '\0') {
		inv_error(p, p->line, "%s hosts: empty list", p->label);
		return;
	}
	/* Each name takes at least two bytes but the last: an upper bound. */
	n = strlen(v) / 2 + 1;
	if (n > INV_MEMBERS_MAX)
		n = INV_MEMBERS_MAX;
	if ((g->members = calloc(n, sizeof *g->members)) == NULL) {
		inv_error(p, p->line, "out of memory");
		return;
	}
	for (a = v;; a = end + 1) {
		if ((end = strchr(a, ',')) == NULL)
			end = a + strlen(a);
		for (e = end; e > a && isspace((unsigned char)e[-1]); e--)
			;
		while (a < e && isspace((unsigned char)*a))
			a++;
		if (a == e) {
			inv_error(p, p->line, "%s hosts: empty name in '%s'",
			    p->label, v);
			return;
		}
		if (!inv_name_ok(a, (size_t)(e - a))) {
			inv_error(p, p->line, "%s hosts: bad name '%.*s' (want "
			    INV_NAME_RULE ", separated by commas)", p->label,
			    (int)(e - a), a);
			return;
		}
		if (e - a == 3 && memcmp(a, "all", 3) == 0) {
			inv_error(p, p->line, "%s hosts: 'all' cannot be a "
			    "member (name the hosts or groups)", p->label);
			return;
		}
		for (i = 0; i < g->nmembers; i++) {
			if (strlen(g->members[i].name) == (size_t)(e - a) &&
			    memcmp(g->members[i].name, a, (size_t)(e - a)) ==
			    0) {
				inv_error(p, p->line, "%s hosts: '%.*s' listed "
				    "twice", p->label, (int)(e - a), a);
				return;
			}
		}
		if (g->nmembers == n) {
			inv_error(p, p->line, "%s hosts: too many names (at "
			    "most %d)", p->label, INV_MEMBERS_MAX);
			return;
		}
		memcpy(g->members[g->nmembers].name, a, (size_t)(e - a));
		g->nmembers++;
		if (*end == '\0')
			break;
	}
}

/* The inih handler: one key = value line of the current section. */
static int
inv_handler(void *user, const char *section, const char *key, const char *v)
{
	struct inv_parse	*p = user;
	const char *const	*keys;
	int			 k;

	(void)section;	/* truncated by inih; the reader tracks sections */
	if (p->failed)
		return (0);
	switch (p->sect) {
	case SECT_HOST:
	case SECT_LOCAL:
		keys = inv_host_keys;
		break;
	case SECT_GROUP:
		keys = inv_group_keys;
		break;
	default:
		inv_error(p, p->line, "key '%s' outside any section", key);
		return (0);
	}
	for (k = 0; keys[k] != NULL; k++) {
		if (strcmp(keys[k], key) == 0)
			break;
	}
	if (p->sect == SECT_LOCAL && k != HK_WORKDIR && k != HK_PIN &&
	    k != HK_MAX_LOAD) {
		inv_error(p, p->line, "[host.local] the built-in local host "
		    "takes only workdir, pin and max_load");
		return (0);
	}
	if (keys[k] == NULL) {
		inv_error(p, p->line, "%s unknown key '%s'", p->label, key);
		return (0);
	}
	if (p->seen[k] != 0) {
		inv_error(p, p->line, "%s duplicate key '%s' (first on line "
		    "%d)", p->label, key, p->seen[k]);
		return (0);
	}
	p->seen[k] = p->line;
	if (p->sect == SECT_GROUP)
		inv_key_hosts(p, v);
	else
		inv_key_host(p, k, v);
	return (!p->failed);
}

/* Finishes the current section: required keys and defaults. */
static void
inv_section_end(struct inv_parse *p)
{
	struct inv_host	*h;
	const char	*u;
	char		 login[HOST_FIELD(user)];

	if (p->failed)
		goto out;
	if (p->sect == SECT_GROUP && p->seen[GK_HOSTS] == 0)
		inv_error(p, p->sect_line, "%s missing hosts", p->label);
	if (p->sect != SECT_HOST)
		goto out;
	h = inv_cur_host(p);
	if (p->seen[HK_ADDRESS] == 0) {
		inv_error(p, p->sect_line, "%s missing address", p->label);
		goto out;
	}
	if (p->seen[HK_USER] == 0) {
		if ((u = getenv("USER")) == NULL || *u == '\0') {
			if (inv_passwd(0, login, sizeof login) != 0) {
				inv_error(p, p->sect_line, "%s missing user, "
				    "and the login name is unknown", p->label);
				goto out;
			}
			u = login;
		}
		if (*u == '-' || !inv_no_space(u) ||
		    inv_copy(h->user, sizeof h->user, u) != 0)
			inv_error(p, p->sect_line, "%s missing user, and the "
			    "login name '%s' cannot be used", p->label, u);
	}
out:
	memset(p->seen, 0, sizeof p->seen);
	p->sect = SECT_NONE;
}

/*
 * Returns the line of the [host.NAME] or [group.NAME] section named
 * name[0..len), or 0; *kind says which.
 */
static int
inv_find_section(const struct inventory *inv, const char *name, size_t len,
    enum inv_kind *kind)
{
	size_t	i;

	for (i = 0; i < inv->nhosts; i++) {
		if (strlen(inv->hosts[i].name) == len &&
		    memcmp(inv->hosts[i].name, name, len) == 0) {
			*kind = INV_HOST;
			return (inv->hosts[i].line);
		}
	}
	for (i = 0; i < inv->ngroups; i++) {
		if (strlen(inv->groups[i].name) == len &&
		    memcmp(inv->groups[i].name, name, len) == 0) {
			*kind = INV_GROUP;
			return (inv->groups[i].line);
		}
	}
	return (0);
}

/* Starts a [host.NAME] or [group.NAME] section; reports errors. */
static void
inv_section_add(struct inv_parse *p, int group, const char *name, size_t len)
{
	struct inventory	*inv = p->inv;
	struct inv_host		*h;
	struct inv_group	*g;
	const char		*kind = group ? "group" : "host";
	enum inv_kind		 other;
	int			 first;
	void			*na;

	snprintf(p->label, sizeof p->label, "[%s.%.*s]", kind,
	    len < HOST_FIELD(name) ? (int)len : 0, name);
	if (!inv_name_ok(name, len)) {
		inv_error(p, p->line, "[%s.%.*s] bad name '%.*s' (want "
		    INV_NAME_RULE ")", kind, (int)len, name, (int)len, name);
		return;
	}
	if (len == 3 && memcmp(name, "all", 3) == 0) {
		inv_error(p, p->line, "%s 'all' is reserved (it means every "
		    "host)", p->label);
		return;
	}
	if (len == 5 && memcmp(name, "local", 5) == 0) {
		if (group) {
			inv_error(p, p->line, "%s 'local' is reserved (the "
			    "built-in host)", p->label);
			return;
		}
		if (inv->local_line != 0) {
			inv_error(p, p->line, "duplicate section [host.local] "
			    "(first on line %d)", inv->local_line);
			return;
		}
		inv->local_line = inv->local.line = p->line;
		p->sect = SECT_LOCAL;
		p->sect_line = p->line;
		return;
	}
	if ((first = inv_find_section(inv, name, len, &other)) != 0) {
		if ((other == INV_GROUP) == group)
			inv_error(p, p->line, "duplicate section %s (first on "
			    "line %d)", p->label, first);
		else
			inv_error(p, p->line, "%s has the same name as "
			    "[%s.%.*s] (line %d)", p->label, group ? "host" :
			    "group", (int)len, name, first);
		return;
	}
	if (group) {
		if (inv->ngroups >= INV_GROUPS_MAX) {
			inv_error(p, p->line, "too many groups (at most %d)",
			    INV_GROUPS_MAX);
			return;
		}
		if ((na = realloc(inv->groups, (inv->ngroups + 1) *
		    sizeof *g)) == NULL)
			goto nomem;
		inv->groups = na;
		g = &inv->groups[inv->ngroups++];
		memset(g, 0, sizeof *g);
		memcpy(g->name, name, len);
		g->line = p->line;
		p->sect = SECT_GROUP;
	} else {
		if (inv->nhosts >= INV_HOSTS_MAX) {
			inv_error(p, p->line, "too many hosts (at most %d)",
			    INV_HOSTS_MAX);
			return;
		}
		if ((na = realloc(inv->hosts, (inv->nhosts + 1) *
		    sizeof *h)) == NULL)
			goto nomem;
		inv->hosts = na;
		h = &inv->hosts[inv->nhosts++];
		memset(h, 0, sizeof *h);
		memcpy(h->name, name, len);
		h->port = 22;
		h->transport = HOST_TRANSPORT_TUNNEL;
		snprintf(h->workdir, sizeof h->workdir, "~/.orch");
		h->max_load = -1;
		h->line = p->line;
		p->sect = SECT_HOST;
	}
	p->sect_line = p->line;
	return;
nomem:
	inv_error(p, p->line, "out of memory");
}

/* Handles a [section] line, l[0..n) with l[0] == '['. */
static void
inv_section(struct inv_parse *p, const char *l, size_t n)
{
	const char	*close, *a, *e, *after;

	if ((close = memchr(l, ']', n)) == NULL) {
		inv_error(p, p->line, "syntax error: missing ']'");
		return;
	}
	for (after = close + 1; after < l + n &&
	    isspace((unsigned char)*after); after++)
		;
	if (after < l + n && *after != ';' && *after != '#') {
		inv_error(p, p->line, "syntax error: text after ']'");
		return;
	}
	inv_section_end(p);
	if (p->failed)
		return;
	for (a = l + 1; a < close && isspace((unsigned char)*a); a++)
		;
	for (e = close; e > a && isspace((unsigned char)e[-1]); e--)
		;
	if (e - a >= 5 && memcmp(a, "host.", 5) == 0)
		inv_section_add(p, 0, a + 5, (size_t)(e - a - 5));
	else if (e - a >= 6 && memcmp(a, "group.", 6) == 0)
		inv_section_add(p, 1, a + 6, (size_t)(e - a - 6));
	else
		inv_error(p, p->line, "unknown section [%.*s] (want "
		    "[host.NAME] or [group.NAME])", (int)(e - a), a);
}

/* Returns 1 if a key line l[0..n) has '=' or ':' before any comment. */
static int
inv_has_sep(const char *l, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (l[i] == '=' || l[i] == ':')
			return (1);
		/* inih's inline comment: ';' after a blank. */
		if (l[i] == ';' && i > 0 && isspace((unsigned char)l[i - 1]))
			return (0);
	}
	return (0);
}

/*
 * The inih reader: hands over the next line without leading blanks, and
 * handles [section] lines here. Returns NULL at the end or after an error,
 * which stops inih.
 */
static char *
inv_reader(char *str, int num, void *stream)
{
	struct inv_parse	*p = stream;
	const char		*l, *e, *nl;
	size_t			 n;

	if (p->failed || p->off >= p->len || num < 3)
		return (NULL);
	l = p->text + p->off;
	nl = memchr(l, '\n', p->len - p->off);
	e = nl != NULL ? nl : p->text + p->len;
	p->off = (size_t)(e - p->text) + (nl != NULL);
	p->line++;
	if (p->line == 1 && e - l >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0)
		l += 3;
	while (l < e && isspace((unsigned char)*l))
		l++;
	while (e > l && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - l);
	str[0] = '\0';
	if (n == 0 || *l == ';' || *l == '#')
		return (str);
	if (*l == '[') {
		inv_section(p, l, n);
		return (p->failed ? NULL : str);
	}
	if (!inv_has_sep(l, n)) {
		inv_error(p, p->line, "syntax error: expected key = value");
		return (NULL);
	}
	/* Keep the newline: an inih built to grow its buffer looks for it. */
	if (n + 2 > (size_t)num) {
		inv_error(p, p->line, "line too long (at most %d characters)",
		    num - 2);
		return (NULL);
	}
	memcpy(str, l, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	return (str);
}

/*
 * Reads the whole file into p->text. Returns 0, 1 when the file does not
 * exist (nothing reported), or -1 with the error reported.
 */
static int
inv_read(struct inv_parse *p)
{
	size_t		 cap = 0, len = 0;
	ssize_t		 got;
	char		*nb;
	const char	*z, *c;
	int		 fd, r = -1, saved;

	if ((fd = open(p->path, O_RDONLY | O_CLOEXEC)) == -1) {
		saved = errno;
		if (saved == ENOENT || saved == ENOTDIR)
			return (1);
		inv_error(p, 0, "%s", strerror(saved));
		return (-1);
	}
	for (;;) {
		if (len == cap) {
			if (cap > INV_FILE_MAX) {
				inv_error(p, 0, "file too large (over %d "
				    "bytes)", INV_FILE_MAX);
				goto out;
			}
			cap = cap == 0 ? 4096 : cap * 2;
			if ((nb = realloc(p->text, cap + 1)) == NULL) {
				inv_error(p, 0, "out of memory");
				goto out;
			}
			p->text = nb;
		}
		got = read(fd, p->text + len, cap - len);
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1) {
			saved = errno;
			inv_error(p, 0, "%s", strerror(saved));
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	if (len > INV_FILE_MAX) {
		inv_error(p, 0, "file too large (over %d bytes)", INV_FILE_MAX);
		goto out;
	}
	p->text[len] = '\0';
	if ((z = memchr(p->text, '\0', len)) != NULL) {
		p->line = 1;
		for (c = p->text; c < z; c++)
			p->line += *c == '\n';
		inv_error(p, p->line, "NUL byte in file");
		goto out;
	}
	p->len = len;
	r = 0;
out:
	close(fd);
	return (r);
}

/* Orders names for qsort and bsearch. */
static int
inv_name_cmp(const void *a, const void *b)
{
	const struct inv_name	*x = a, *y = b;

	return (strcmp(x->name, y->name));
}

/* Returns the host or group called name, or NULL. */
static const struct inv_name *
inv_lookup(const struct inventory *inv, const char *name)
{
	struct inv_name	key;

	if (inv == NULL || inv->nindex == 0)
		return (NULL);
	key.name = name;
	return (bsearch(&key, inv->index, inv->nindex, sizeof *inv->index,
	    inv_name_cmp));
}

/*
 * Looks for a group that includes itself, depth first from group g, with
 * the path so far in stack[0..depth). color: 0 unseen, 1 on the path, 2
 * done. Returns 0, or -1 with the error reported.
 */
static int
inv_cycle(struct inv_parse *p, size_t g, unsigned char *color, size_t *stack,
    size_t depth)
{
	const struct inventory	*inv = p->inv;
	const struct inv_group	*grp = &inv->groups[g];
	struct inv_buf		 b;
	size_t			 i, j, to;

	color[g] = 1;
	stack[depth++] = g;
	for (i = 0; i < grp->nmembers; i++) {
		if (grp->members[i].kind != INV_GROUP)
			continue;
		to = grp->members[i].idx;
		if (color[to] == 2)
			continue;
		if (color[to] == 0) {
			if (inv_cycle(p, to, color, stack, depth) != 0)
				return (-1);
			continue;
		}
		/* On the path: stack[j..depth) then `to` again is a cycle. */
		for (j = 0; stack[j] != to; j++)
			;
		memset(&b, 0, sizeof b);
		for (; j < depth; j++)
			inv_buf_add(&b, "%s -> ", inv->groups[stack[j]].name);
		inv_buf_add(&b, "%s", inv->groups[to].name);
		if (b.oom)
			inv_error(p, inv->groups[to].hosts_line, "out of "
			    "memory");
		else
			inv_error(p, inv->groups[to].hosts_line, "[group.%s] "
			    "includes itself (%s)", inv->groups[to].name, b.s);
		free(b.s);
		return (-1);
	}
	color[g] = 2;
	return (0);
}

/*
 * Checks across sections once the whole file is read: builds the name
 * index, resolves every group member, then rejects cycles.
 */
static void
inv_finish(struct inv_parse *p)
{
	struct inventory	*inv = p->inv;
	struct inv_member	*m;
	const struct inv_name	*found;
	unsigned char		*color = NULL;
	size_t			*stack = NULL, i, j, n = 0;

	if (inv->nhosts + inv->ngroups > 0 &&
	    (inv->index = calloc(inv->nhosts + inv->ngroups,
	    sizeof *inv->index)) == NULL) {
		inv_error(p, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < inv->nhosts; i++) {
		inv->index[n].name = inv->hosts[i].name;
		inv->index[n].kind = INV_HOST;
		inv->index[n++].idx = i;
	}
	for (i = 0; i < inv->ngroups; i++) {
		inv->index[n].name = inv->groups[i].name;
		inv->index[n].kind = INV_GROUP;
		inv->index[n++].idx = i;
	}
	inv->nindex = n;
	if (n > 0)
		qsort(inv->index, n, sizeof *inv->index, inv_name_cmp);

	for (i = 0; i < inv->ngroups; i++) {
		for (j = 0; j < inv->groups[i].nmembers; j++) {
			m = &inv->groups[i].members[j];
			if (strcmp(m->name, "local") == 0) {
				m->kind = INV_LOCAL;
				continue;
			}
			if ((found = inv_lookup(inv, m->name)) == NULL) {
				inv_error(p, inv->groups[i].hosts_line,
				    "[group.%s] unknown host or group '%s'",
				    inv->groups[i].name, m->name);
				goto out;
			}
			m->kind = found->kind;
			m->idx = found->idx;
		}
	}

	if (inv->ngroups == 0)
		goto out;
	if ((color = calloc(inv->ngroups, 1)) == NULL ||
	    (stack = calloc(inv->ngroups, sizeof *stack)) == NULL) {
		inv_error(p, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < inv->ngroups; i++) {
		if (color[i] == 0 && inv_cycle(p, i, color, stack, 0) != 0)
			goto out;
	}
out:
	free(color);
	free(stack);
}

/* Loads an inventory (see inventory.h). */
int
inventory_load(const char *path, int required, struct inventory **out,
    char **cause)
{
	struct inv_parse	 p;
	struct inventory	*inv = NULL;
	int			 r = -1, rc;

	memset(&p, 0, sizeof p);
	*out = NULL;
	*cause = NULL;
	p.path = path;
	if ((inv = calloc(1, sizeof *inv)) == NULL ||
	    (inv->path = strdup(path)) == NULL) {
		inv_error(&p, 0, "out of memory");
		goto out;
	}
	inv->local.max_load = -1;
	p.inv = inv;
	if ((rc = inv_read(&p)) == 1) {
		if (required) {
			inv_error(&p, 0, "%s", strerror(ENOENT));
			goto out;
		}
		inv->missing = 1;
		goto done;
	}
	if (rc != 0)
		goto out;

	rc = ini_parse_stream(inv_reader, &p, inv_handler, &p);
	if (rc == -2)
		inv_error(&p, p.line, "out of memory");
	else if (rc > 0)	/* only if inih finds what the reader let by */
		inv_error(&p, rc, "syntax error");
	inv_section_end(&p);
	if (p.failed)
		goto out;
	inv_finish(&p);
	if (p.failed)
		goto out;
done:
	*out = inv;
	inv = NULL;
	r = 0;
out:
	if (r != 0) {
		*cause = p.cause;
		p.cause = NULL;
		if (*cause == NULL)
			*cause = strdup("out of memory");
	}
	free(p.text);
	inventory_free(inv);
	return (r);
}

/* Frees an inventory; NULL is ok. */
void
inventory_free(struct inventory *inv)
{
	size_t	i;

	if (inv == NULL)
		return;
	for (i = 0; i < inv->ngroups; i++)
		free(inv->groups[i].members);
	free(inv->groups);
	free(inv->hosts);
	free(inv->index);
	free(inv->path);
	free(inv);
}

/* Picks the inventory path (see inventory.h). */
const char *
inventory_path(const char *opt, int *required)
{
	const char	*env;

	*required = 1;
	if (opt != NULL)
		return (opt);
	if ((env = getenv("ORCH_INVENTORY")) != NULL && *env != '\0')
		return (env);
	*required = 0;
	return (INVENTORY_DEFAULT_PATH);
}

/* Returns the number of inventory hosts, `local` not counted. */
size_t
inventory_nhosts(const struct inventory *inv)
{
	return (inv != NULL ? inv->nhosts : 0);
}

/* Returns the name of host i in file order, or NULL if out of range. */
const char *
inventory_host_name(const struct inventory *inv, size_t i)
{
	if (inv == NULL || i >= inv->nhosts)
		return (NULL);
	return (inv->hosts[i].name);
}

/* What a --hosts list has picked so far, in order, without duplicates. */
struct inv_pick {
	size_t		*order;		/* host index, or nhosts for local */
	size_t		 n;
	unsigned char	*picked;	/* per host index, nhosts + 1 */
	unsigned char	*expanded;	/* per group */
};

/* Adds host i (nhosts: local) unless already picked. */
static void
inv_pick_host(struct inv_pick *pk, size_t i)
{
	if (pk->picked[i])
		return;
	pk->picked[i] = 1;
	pk->order[pk->n++] = i;
}

/* Adds a group's members in order; each group is expanded once. */
static void
inv_pick_group(const struct inventory *inv, struct inv_pick *pk, size_t g)
{
	const struct inv_member	*m;
	size_t			 i;

	if (pk->expanded[g])
		return;
	pk->expanded[g] = 1;
	/* No cycles (inventory_load refuses them), so this ends. */
	for (i = 0; i < inv->groups[g].nmembers; i++) {
		m = &inv->groups[g].members[i];
		if (m->kind == INV_LOCAL)
			inv_pick_host(pk, inv->nhosts);
		else if (m->kind == INV_HOST)
			inv_pick_host(pk, m->idx);
		else
			inv_pick_group(inv, pk, m->idx);
	}
}

/* Adds what one --hosts name stands for. Returns 0, or -1 if unknown. */
static int
inv_pick_name(const struct inventory *inv, struct inv_pick *pk,
    const char *name)
{
	const struct inv_name	*found;
	size_t			 i, nhosts = inv != NULL ? inv->nhosts : 0;

	if (strcmp(name, "local") == 0)
		inv_pick_host(pk, nhosts);
	else if (strcmp(name, "all") == 0) {
		for (i = 0; i < nhosts; i++)
			inv_pick_host(pk, i);
	} else if ((found = inv_lookup(inv, name)) == NULL)
		return (-1);
	else if (found->kind == INV_HOST)
		inv_pick_host(pk, found->idx);
	else
		inv_pick_group(inv, pk, found->idx);
	return (0);
}

/* Returns the message for an unknown --hosts name, or NULL if out of memory. */
static char *
inv_unknown(const struct inventory *inv, const char *name)
{
	struct inv_buf	b;
	size_t		i;

	memset(&b, 0, sizeof b);
	inv_buf_add(&b, "--hosts: unknown host or group '%s' (", name);
	if (inv == NULL)
		inv_buf_add(&b, "no inventory; only 'local' exists");
	else if (inv->missing)
		inv_buf_add(&b, "%s does not exist; only 'local' exists",
		    inv->path);
	else if (inv->nhosts == 0)
		inv_buf_add(&b, "%s has no hosts", inv->path);
	else {
		inv_buf_add(&b, "%s has: ", inv->path);
		for (i = 0; i < inv->nhosts && i < INV_LIST_MAX; i++)
			inv_buf_add(&b, "%s%s", i > 0 ? ", " : "",
			    inv->hosts[i].name);
		if (inv->nhosts > INV_LIST_MAX)
			inv_buf_add(&b, ", ... (%zu more)",
			    inv->nhosts - INV_LIST_MAX);
	}
	if (inv != NULL && inv->ngroups > 0) {
		inv_buf_add(&b, "; groups: ");
		for (i = 0; i < inv->ngroups && i < INV_LIST_MAX; i++)
			inv_buf_add(&b, "%s%s", i > 0 ? ", " : "",
			    inv->groups[i].name);
		if (inv->ngroups > INV_LIST_MAX)
			inv_buf_add(&b, ", ... (%zu more)",
			    inv->ngroups - INV_LIST_MAX);
	}
	inv_buf_add(&b, ")");
	if (b.oom) {
		free(b.s);
		return (NULL);
	}
	return (b.s);
}

/* Fills h from an inventory host, as a remote host without ops yet. */
static void
inv_fill_remote(struct host *h, const struct inv_host *ih)
{
	memset(h, 0, sizeof *h);
	memcpy(h->name, ih->name, sizeof h->name);
	memcpy(h->address, ih->address, sizeof h->address);
	h->port = ih->port;
	memcpy(h->user, ih->user, sizeof h->user);
	memcpy(h->identity, ih->identity, sizeof h->identity);
	h->transport = ih->transport;
	memcpy(h->workdir, ih->workdir, sizeof h->workdir);
	memcpy(h->pin, ih->pin, sizeof h->pin);
	h->max_load = ih->max_load;
	h->line = ih->line;
	h->ops = NULL;
	h->chan.sock = -1;
	h->status = HOST_OK;
}

/* Fills h as the built-in `local`, with the [host.local] overrides. */
static void
inv_fill_local(struct host *h, const struct inventory *inv)
{
	host_local_init(h);
	if (inv == NULL || inv->local_line == 0)
		return;
	if (inv->local.workdir[0] != '\0')
		memcpy(h->workdir, inv->local.workdir, sizeof h->workdir);
	if (inv->local.pin[0] != '\0')
		memcpy(h->pin, inv->local.pin, sizeof h->pin);
	if (inv->local.max_load >= 0)
		h->max_load = inv->local.max_load;
	h->line = inv->local_line;
}

/* Resolves a --hosts list (see inventory.h). */
int
inventory_resolve(const struct inventory *inv, const char *list,
    struct host **hosts, size_t *n, char **cause)
{
	struct inv_pick		 pk;
	struct host		*out = NULL;
	char			*copy = NULL, *a, *e, *end;
	size_t			 nhosts = inv != NULL ? inv->nhosts : 0;
	size_t			 ngroups = inv != NULL ? inv->ngroups : 0;
	size_t			 i, empty = 0, names = 0;
	int			 r = -1, last;

	memset(&pk, 0, sizeof pk);
	*hosts = NULL;
	*n = 0;
	*cause = NULL;
	if (list == NULL)
		list = "local";
	if ((copy = strdup(list)) == NULL ||
	    (pk.order = calloc(nhosts + 1, sizeof *pk.order)) == NULL ||
	    (pk.picked = calloc(nhosts + 1, 1)) == NULL ||
	    (pk.expanded = calloc(ngroups + 1, 1)) == NULL)
		goto nomem;
	for (a = copy;; a = end + 1) {
		if ((end = strchr(a, ',')) == NULL)
			end = a + strlen(a);
		for (e = end; e > a && isspace((unsigned char)e[-1]); e--)
			;
		while (a < e && isspace((unsigned char)*a))
			a++;
		last = *end == '\0';
		*e = '\0';
		if (a == e)
			empty++;
		else {
			names++;
			if (inv_pick_name(inv, &pk, a) != 0) {
				if ((*cause = inv_unknown(inv, a)) == NULL)
					goto nomem;
				goto out;
			}
		}
		if (last)
			break;
	}
	if (names == 0 || empty > 0 || pk.n == 0) {
		if (names == 0)
			*cause = strdup("--hosts: empty list");
		else if (empty > 0)
			*cause = inv_fmt("--hosts: empty name in '%s'", list);
		else {
			/* Only `all` can pick nothing: no group is empty. */
			*cause = inv_fmt("--hosts: '%s' names no hosts (%s %s)",
			    list, inv != NULL ? inv->path : "no inventory",
			    inv == NULL ? "loaded" : inv->missing ?
			    "does not exist" : "has none");
		}
		if (*cause == NULL)
			goto nomem;
		goto out;
	}
	if ((out = calloc(pk.n, sizeof *out)) == NULL)
		goto nomem;
	for (i = 0; i < pk.n; i++) {
		if (pk.order[i] == nhosts)
			inv_fill_local(&out[i], inv);
		else
			inv_fill_remote(&out[i], &inv->hosts[pk.order[i]]);
	}
	*hosts = out;
	*n = pk.n;
	r = 0;
	goto out;
nomem:
	free(*cause);
	*cause = strdup("--hosts: out of memory");
out:
	free(copy);
	free(pk.order);
	free(pk.picked);
	free(pk.expanded);
	return (r);
}
