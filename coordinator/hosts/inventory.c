/*
 * Inventory files (INI, see docs/inventory.md): parsed with inih,
 * checked key by key, every error naming the file and line; then resolving
 * a --hosts list against them.
 *
 * As for suite files, the file is read and fed to inih by
 * coordinator/input/ini.c, which counts lines and hands [section] lines to
 * inv_section().
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/host-backend.h"
#include "coordinator/hosts/host-route.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/sshconfig.h"
#include "coordinator/input/address.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/ini.h"
#include "proto/xmalloc.h"

#define INV_FILE_MAX		(1024 * 1024)	/* largest inventory, bytes */
#define INV_HOSTS_MAX		1024
#define INV_GROUPS_MAX		1024
#define INV_MEMBERS_MAX		1024		/* names in one group */
#define INV_CPU_MAX		1023		/* highest CPU in a cpu_set_t */
#define INV_LIST_MAX		32		/* names shown in a message */
#define INV_LOAD_INT		6		/* max_load: digits before . */
#define INV_LOAD_FRAC		9		/* and after it */
#define INV_NAME_RULE \
	"1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or ."
#define INV_PW_BUF		16384		/* getpwuid_r buffer */
#define INV_SLURM_MAX		64		/* [slurm.NAME] sections */
#define INV_SLURM_ARGS_MAX	64		/* words of args */
#define INV_SLURM_SECS_MAX	(30 * 86400)	/* time, wait, timeout */
#define INV_SLURM_PLAIN		"A-Z a-z 0-9 _ . / , : + = @ % ^ -"

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
	char		 jump[1024];	/* jump hosts, "" none, "none" */
	int		 ssh_config;	/* also ask ssh -G (ssh_config = yes) */
	int		 has_port;	/* port given */
	int		 has_user;	/* user given */
	char		 slurm[HOST_FIELD(name)];	/* "": no Slurm */
	int		 slurm_line;	/* of its slurm key */
	char		 partition[128];
	char		 constraint[256];	/* "": none */
	char		 nodelist[256];		/* "": none */
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
	struct inventory_slurm *slurm;	/* [slurm.NAME], in file order */
	size_t		 nslurm;
};

enum inv_sect {
	SECT_NONE,
	SECT_HOST,
	SECT_LOCAL,
	SECT_GROUP,
	SECT_SLURM,
};

static const char *const inv_host_keys[] = {
	"address", "port", "user", "identity", "transport", "workdir", "pin",
	"max_load", "jump", "ssh_config", "slurm", "partition", "constraint",
	"nodelist", NULL
};
enum {
	HK_ADDRESS, HK_PORT, HK_USER, HK_IDENTITY, HK_TRANSPORT, HK_WORKDIR,
	HK_PIN, HK_MAX_LOAD, HK_JUMP, HK_SSH_CONFIG, HK_SLURM, HK_PARTITION,
	HK_CONSTRAINT, HK_NODELIST, HK_COUNT
};

/* The keys of [slurm.NAME] (fewer than HK_COUNT: they share seen[]). */
static const char *const inv_slurm_keys[] = {
	"login", "account", "qos", "time", "wait", "timeout", "args", NULL
};
enum {
	SK_LOGIN, SK_ACCOUNT, SK_QOS, SK_TIME, SK_WAIT, SK_TIMEOUT, SK_ARGS
};

static const char *const inv_group_keys[] = { "hosts", NULL };
enum { GK_HOSTS };

struct inv_parse {
	struct inventory *inv;
	struct ini_src	 src;		/* the file, line and first error */

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

static void	 inv_key_slurm_host(struct inv_parse *, struct inv_host *,
	    int, const char *);
static const struct inv_name *inv_lookup(const struct inventory *,
	    const char *);
static void	 inv_buf_add(struct inv_buf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

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
			ini_error(&p->src, p->src.line, "%s %s: '%s' is too "
			    "long (at most %zu characters)", p->label, key, v,
			    len - 1);
			return (-1);
		}
		memcpy(out, v, strlen(v) + 1);
		return (0);
	}
	if (v[1] != '\0' && v[1] != '/') {
		ini_error(&p->src, p->src.line, "%s %s: '%s': only ~/ is "
		    "expanded, not ~user", p->label, key, v);
		return (-1);
	}
	home = getenv("HOME");
	if (home == NULL || *home == '\0') {
		if (inv_passwd(1, pwhome, sizeof pwhome) != 0) {
			ini_error(&p->src, p->src.line, "%s %s: cannot expand "
			    "'%s': HOME is not set", p->label, key, v);
			return (-1);
		}
		home = pwhome;
	}
	/* "~/x" with HOME "/" is "//x": harmless, and rare enough. */
	n = snprintf(out, len, "%s%s", home, v + 1);
	if (n < 0 || (size_t)n >= len) {
		ini_error(&p->src, p->src.line, "%s %s: '%s' is too long once "
		    "expanded (at most %zu characters)", p->label, key, v, len -
		    1);
		out[0] = '\0';
		return (-1);
	}
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

/*
 * Checks a jump list: "none", or hops [user@]name[:port] separated by
 * commas, each name an inventory host or an ssh_config one (looked up
 * when the host is picked).
 */
static void
inv_key_jump(struct inv_parse *p, struct inv_host *h, const char *v)
{
	const char	*spec = v;
	char		 user[64], host[256], why[512];
	int		 port, r, n = 0;

	if (strcmp(v, "none") != 0) {
		while ((r = sshcfg_next_hop(&spec, user, sizeof user, host,
		    sizeof host, &port, why, sizeof why)) == 1)
			n++;
		if (r < 0 || n == 0) {
			ini_error(&p->src, p->src.line, "%s jump: %s",
			    p->label, r < 0 ? why : "empty list");
			return;
		}
		if (n > HOST_HOPS_MAX) {
			ini_error(&p->src, p->src.line, "%s jump: more than %d "
			    "hops", p->label, HOST_HOPS_MAX);
			return;
		}
	}
	if (inv_copy(h->jump, sizeof h->jump, v) != 0)
		ini_error(&p->src, p->src.line, "%s jump: too long (at most "
		    "%zu characters)", p->label, sizeof h->jump - 1);
}

/* Handles one key of a host section (k is an HK_* index). */
static void
inv_key_host(struct inv_parse *p, int k, const char *v)
{
	struct inv_host	*h = inv_cur_host(p);
	double		 d;

	switch (k) {
	case HK_ADDRESS:
		if (!address_ok(v) ||
		    inv_copy(h->address, sizeof h->address, v) != 0)
			ini_error(&p->src, p->src.line, "%s bad address '%s' "
			    "(want a host name of letters, digits, '-', '_' "
			    "and '.', or an IP address; at most %zu "
			    "characters)", p->label, v, sizeof h->address - 1);
		break;
	case HK_PORT:
		if ((h->port = inv_parse_port(v)) == -1)
			ini_error(&p->src, p->src.line, "%s bad port '%s' "
			    "(want 1 to 65535)", p->label, v);
		h->has_port = 1;
		break;
	case HK_USER:
		if (*v == '\0' || *v == '-' || !inv_no_space(v) ||
		    inv_copy(h->user, sizeof h->user, v) != 0)
			ini_error(&p->src, p->src.line, "%s bad user '%s' "
			    "(want a login name: no spaces, no leading '-', at "
			    "most %zu characters)", p->label, v, sizeof h->user
			    - 1);
		h->has_user = 1;
		break;
	case HK_IDENTITY:
		if (!inv_printable(v)) {
			ini_error(&p->src, p->src.line, "%s bad identity: "
			    "control character in path", p->label);
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
			ini_error(&p->src, p->src.line, "%s bad transport '%s' "
			    "(want tunnel or direct)", p->label, v);
		break;
	case HK_WORKDIR:
		if (*v == '\0' || !inv_printable(v)) {
			ini_error(&p->src, p->src.line, "%s bad workdir '%s' "
			    "(want a directory path)", p->label, v);
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
			ini_error(&p->src, p->src.line, "%s workdir: '%s' is "
			    "too long (at most %zu characters)", p->label, v,
			    sizeof h->workdir - 1);
		break;
	case HK_PIN:
		if (!ini_cpus_ok(v, INV_CPU_MAX) ||
		    inv_copy(h->pin, sizeof h->pin, v) != 0)
			ini_error(&p->src, p->src.line, "%s bad pin '%s' (want "
			    "a CPU list like 0-3,8 with CPUs 0 to %d)",
			    p->label, v, INV_CPU_MAX);
		break;
	case HK_MAX_LOAD:
		if (ini_decimal(v, INV_LOAD_INT, INV_LOAD_FRAC, &d) != 0)
			ini_error(&p->src, p->src.line, "%s bad max_load '%s' "
			    "(want a number >= 0, like 0.33)", p->label, v);
		else
			h->max_load = d;
		break;
	case HK_JUMP:
		inv_key_jump(p, h, v);
		break;
	case HK_SSH_CONFIG:
		if (strcmp(v, "yes") == 0)
			h->ssh_config = 1;
		else if (strcmp(v, "no") == 0)
			h->ssh_config = 0;
		else
			ini_error(&p->src, p->src.line, "%s bad "
			    "ssh_config '%s' (want yes or no)", p->label, v);
		break;
	default:
		inv_key_slurm_host(p, h, k, v);
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

	g->hosts_line = p->src.line;
	if (*v == '\0') {
		ini_error(&p->src, p->src.line, "%s hosts: empty list",
		    p->label);
		return;
	}
	/* Each name takes at least two bytes but the last: an upper bound. */
	n = strlen(v) / 2 + 1;
	if (n > INV_MEMBERS_MAX)
		n = INV_MEMBERS_MAX;
	if ((g->members = calloc(n, sizeof *g->members)) == NULL) {
		ini_error(&p->src, p->src.line, "out of memory");
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
			ini_error(&p->src, p->src.line, "%s hosts: empty name "
			    "in '%s'", p->label, v);
			return;
		}
		if (!ini_name_ok(a, (size_t)(e - a), HOST_FIELD(name))) {
			ini_error(&p->src, p->src.line, "%s hosts: bad name "
			    "'%.*s' (want " INV_NAME_RULE ", separated by "
			    "commas)", p->label, (int)(e - a), a);
			return;
		}
		if (e - a == 3 && memcmp(a, "all", 3) == 0) {
			ini_error(&p->src, p->src.line, "%s hosts: 'all' "
			    "cannot be a member (name the hosts or groups)",
			    p->label);
			return;
		}
		for (i = 0; i < g->nmembers; i++) {
			if (strlen(g->members[i].name) == (size_t)(e - a) &&
			    memcmp(g->members[i].name, a, (size_t)(e - a)) ==
			    0) {
				ini_error(&p->src, p->src.line, "%s hosts: "
				    "'%.*s' listed twice", p->label, (int)(e -
				    a), a);
				return;
			}
		}
		if (g->nmembers == n) {
			ini_error(&p->src, p->src.line, "%s hosts: too many "
			    "names (at most %d)", p->label, INV_MEMBERS_MAX);
			return;
		}
		memcpy(g->members[g->nmembers].name, a, (size_t)(e - a));
		g->nmembers++;
		if (*end == '\0')
			break;
	}
}

/*
 * True when v is 1 to size - 1 characters of A-Z a-z 0-9 _ . - and those
 * of extra, not starting with '-' (a word Slurm takes as a value, never
 * as an option).
 */
static int
inv_slurm_word(const char *v, const char *extra, size_t size)
{
	const char	*c;

	if (*v == '\0' || *v == '-' || strlen(v) >= size)
		return (0);
	for (c = v; *c != '\0'; c++) {
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' &&
		    *c != '-' && strchr(extra, *c) == NULL)
			return (0);
	}
	return (1);
}

/* Handles slurm, partition, constraint and nodelist of a host section. */
static void
inv_key_slurm_host(struct inv_parse *p, struct inv_host *h, int k,
    const char *v)
{
	switch (k) {
	case HK_SLURM:
		if (!ini_name_ok(v, strlen(v), sizeof h->slurm))
			ini_error(&p->src, p->src.line, "%s bad slurm '%s' "
			    "(want the NAME of a [slurm.NAME] section)",
			    p->label, v);
		else
			memcpy(h->slurm, v, strlen(v) + 1);
		h->slurm_line = p->src.line;
		break;
	case HK_PARTITION:
		if (!inv_slurm_word(v, "", sizeof h->partition))
			ini_error(&p->src, p->src.line, "%s bad partition '%s' "
			    "(want a Slurm partition: A-Z a-z 0-9 _ . -, not "
			    "starting with -, at most %zu characters)",
			    p->label, v, sizeof h->partition - 1);
		else
			memcpy(h->partition, v, strlen(v) + 1);
		break;
	case HK_CONSTRAINT:
		if (!inv_slurm_word(v, "&|,*[]():", sizeof h->constraint))
			ini_error(&p->src, p->src.line, "%s bad constraint "
			    "'%s' (want Slurm features like a&b or [x|y]: no "
			    "spaces, not starting with -, at most %zu "
			    "characters)", p->label, v, sizeof h->constraint
			    - 1);
		else
			memcpy(h->constraint, v, strlen(v) + 1);
		break;
	case HK_NODELIST:
		if (!inv_slurm_word(v, ",[]", sizeof h->nodelist))
			ini_error(&p->src, p->src.line, "%s bad nodelist '%s' "
			    "(want Slurm node names like n1 or n[1-3],m2: no "
			    "spaces, not starting with -, at most %zu "
			    "characters)", p->label, v, sizeof h->nodelist - 1);
		else
			memcpy(h->nodelist, v, strlen(v) + 1);
		break;
	}
}

/*
 * Parses time, wait or timeout into *out: orch's durations ("90s", "20m",
 * "2h", "1d" or "600" seconds, 1 s to 30 days), the syntax of
 * suite_parse_budget (suite.h; the unit test holds the two equal), parsed
 * here so that the inventory parser links alone (its fuzz target).
 */
static void
inv_slurm_duration(struct inv_parse *p, const char *key, const char *v,
    uint32_t *out)
{
	uint64_t	 x = 0, mul = 1;
	size_t		 n = strlen(v), i;

	if (n > 0 && strchr("smhd", v[n - 1]) != NULL) {
		mul = v[n - 1] == 'm' ? 60 : v[n - 1] == 'h' ? 3600 :
		    v[n - 1] == 'd' ? 86400 : 1;
		n--;
	}
	for (i = 0; i < n && i < 12 && isdigit((unsigned char)v[i]); i++)
		x = x * 10 + (uint64_t)(v[i] - '0');
	if (n == 0 || i != n || x == 0 || x * mul > INV_SLURM_SECS_MAX) {
		ini_error(&p->src, p->src.line, "%s bad %s '%s' (want a "
		    "duration like 90s, 20m or 2h, at most 30d)", p->label,
		    key, v);
		return;
	}
	*out = (uint32_t)(x * mul);
}

/*
 * Splits args at blanks into c->args. Each word is an option of salloc
 * (it starts with '-', a value joined by '=') of the characters a one-line
 * run passes on unquoted (oneline.h), so that oneline_split would split
 * the text the same way; no quote, no shell. Returns 0, or -1 with the
 * error reported.
 */
static int
inv_slurm_args(struct inv_parse *p, struct inventory_slurm *c, const char *v)
{
	const char	*a, *e;
	size_t		 len;

	for (a = v; *a != '\0'; a = e) {
		while (*a == ' ' || *a == '\t')
			a++;
		if (*a == '\0')
			break;
		for (e = a; *e != '\0' && *e != ' ' && *e != '\t'; e++)
			;
		len = (size_t)(e - a);
		if (*a != '-' || strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_./,:+=@%^-") < len) {
			ini_error(&p->src, p->src.line, "%s args: bad word "
			    "'%.*s' (want salloc options separated by blanks, "
			    "each starting with - and its value after =, of "
			    "%s; no quotes, no shell)", p->label, (int)len, a,
			    INV_SLURM_PLAIN);
			return (-1);
		}
		if (c->nargs == INV_SLURM_ARGS_MAX) {
			ini_error(&p->src, p->src.line, "%s args: too many "
			    "words (at most %d)", p->label, INV_SLURM_ARGS_MAX);
			return (-1);
		}
		if (c->args == NULL && (c->args = calloc(INV_SLURM_ARGS_MAX,
		    sizeof *c->args)) == NULL)
			goto nomem;
		if ((c->args[c->nargs] = strndup(a, len)) == NULL)
			goto nomem;
		c->nargs++;
	}
	return (0);
nomem:
	ini_error(&p->src, p->src.line, "out of memory");
	return (-1);
}

/* Handles one key of a [slurm.NAME] section (k is an SK_* index). */
static void
inv_key_slurm(struct inv_parse *p, int k, const char *v)
{
	struct inventory_slurm	*c = &p->inv->slurm[p->inv->nslurm - 1];

	switch (k) {
	case SK_LOGIN:
		/* One host: `all` is every host, never a login host. */
		if ((strcmp(v, "local") != 0 && !address_ok(v)) ||
		    strcmp(v, "all") == 0 ||
		    inv_copy(c->login, sizeof c->login, v) != 0)
			ini_error(&p->src, p->src.line, "%s bad login '%s' "
			    "(want local, or a host of the inventory or of "
			    "ssh_config)", p->label, v);
		break;
	case SK_ACCOUNT:
	case SK_QOS:
		if (!inv_slurm_word(v, "", sizeof c->account))
			ini_error(&p->src, p->src.line, "%s bad %s '%s' (want "
			    "A-Z a-z 0-9 _ . -, not starting with -, at most "
			    "%zu characters)", p->label, inv_slurm_keys[k], v,
			    sizeof c->account - 1);
		else
			memcpy(k == SK_QOS ? c->qos : c->account, v,
			    strlen(v) + 1);
		break;
	case SK_TIME:
		inv_slurm_duration(p, "time", v, &c->time_s);
		break;
	case SK_WAIT:
		inv_slurm_duration(p, "wait", v, &c->wait_s);
		break;
	case SK_TIMEOUT:
		inv_slurm_duration(p, "timeout", v, &c->timeout_s);
		break;
	case SK_ARGS:
		(void)inv_slurm_args(p, c, v);
		break;
	}
}

/* Starts a [slurm.NAME] section from its name a[0..n); reports errors. */
static void
inv_slurm_add(struct inv_parse *p, const char *name, size_t len)
{
	struct inventory	*inv = p->inv;
	struct inventory_slurm	*c;
	size_t			 i;
	void			*na;

	snprintf(p->label, sizeof p->label, "[slurm.%.*s]",
	    len < sizeof c->name ? (int)len : 0, name);
	if (!ini_name_ok(name, len, sizeof c->name)) {
		ini_error(&p->src, p->src.line, "[slurm.%.*s] bad name '%.*s' "
		    "(want " INV_NAME_RULE ")", (int)len, name, (int)len,
		    name);
		return;
	}
	for (i = 0; i < inv->nslurm; i++) {
		if (strlen(inv->slurm[i].name) == len &&
		    memcmp(inv->slurm[i].name, name, len) == 0) {
			ini_error(&p->src, p->src.line, "duplicate section %s "
			    "(first on line %d)", p->label, inv->slurm[i].line);
			return;
		}
	}
	if (inv->nslurm >= INV_SLURM_MAX) {
		ini_error(&p->src, p->src.line, "too many [slurm.NAME] "
		    "sections (at most %d)", INV_SLURM_MAX);
		return;
	}
	if ((na = realloc(inv->slurm, (inv->nslurm + 1) * sizeof *c)) ==
	    NULL) {
		ini_error(&p->src, p->src.line, "out of memory");
		return;
	}
	inv->slurm = na;
	c = &inv->slurm[inv->nslurm++];
	memset(c, 0, sizeof *c);
	memcpy(c->name, name, len);
	c->time_s = INVENTORY_SLURM_TIME;
	c->wait_s = INVENTORY_SLURM_WAIT;
	c->timeout_s = INVENTORY_SLURM_TIMEOUT;
	c->line = p->src.line;
	p->sect = SECT_SLURM;
	p->sect_line = p->src.line;
}

/*
 * Checks a host section's Slurm keys at its end: partition, constraint
 * and nodelist only with slurm, slurm with partition and without address.
 * Returns 1 when the host is a Slurm one (it needs no address).
 */
static int
inv_slurm_host_end(struct inv_parse *p)
{
	static const int	 only[] = { HK_PARTITION, HK_CONSTRAINT,
				    HK_NODELIST };
	size_t			 i;

	if (p->seen[HK_SLURM] == 0) {
		for (i = 0; i < sizeof only / sizeof only[0]; i++) {
			if (p->seen[only[i]] != 0) {
				ini_error(&p->src, p->seen[only[i]], "%s %s "
				    "without slurm (it is a key of a Slurm "
				    "host)", p->label, inv_host_keys[only[i]]);
				return (0);
			}
		}
		return (0);
	}
	if (p->seen[HK_PARTITION] == 0)
		ini_error(&p->src, p->sect_line, "%s missing partition (a "
		    "host with slurm = names its partition)", p->label);
	else if (p->seen[HK_ADDRESS] != 0)
		ini_error(&p->src, p->seen[HK_ADDRESS], "%s address and slurm "
		    "exclude each other (a Slurm host is the node allocated "
		    "for the run)", p->label);
	else if (inv_cur_host(p)->ssh_config)
		ini_error(&p->src, p->seen[HK_SSH_CONFIG], "%s ssh_config and "
		    "slurm exclude each other (a Slurm host is the node "
		    "allocated for the run)", p->label);
	/* Its default workdir is its node's, known once allocated. */
	if (p->seen[HK_WORKDIR] == 0)
		inv_cur_host(p)->workdir[0] = '\0';
	return (1);
}

/*
 * After the whole file: each host's slurm names a [slurm.NAME], and no
 * cluster's login is a Slurm host itself or a group (a name of neither
 * is looked up in ssh_config when the cluster is used).
 */
static void
inv_slurm_finish(struct inv_parse *p)
{
	struct inventory	*inv = p->inv;
	const struct inv_name	*found;
	size_t			 i, j;

	for (i = 0; i < inv->nhosts; i++) {
		if (inv->hosts[i].slurm[0] == '\0' ||
		    inventory_slurm(inv, inv->hosts[i].slurm) != NULL)
			continue;
		ini_error(&p->src, inv->hosts[i].slurm_line, "[host.%s] "
		    "unknown slurm '%s' (no [slurm.%s] section)",
		    inv->hosts[i].name, inv->hosts[i].slurm,
		    inv->hosts[i].slurm);
		return;
	}
	for (i = 0; i < inv->nslurm; i++) {
		for (j = 0; j < inv->nhosts; j++) {
			if (inv->hosts[j].slurm[0] == '\0' ||
			    strcmp(inv->hosts[j].name, inv->slurm[i].login) !=
			    0)
				continue;
			ini_error(&p->src, inv->slurm[i].line, "[slurm.%s] "
			    "login '%s' is a Slurm host itself (line %d)",
			    inv->slurm[i].name, inv->slurm[i].login,
			    inv->hosts[j].line);
			return;
		}
		if ((found = inv_lookup(inv, inv->slurm[i].login)) != NULL &&
		    found->kind == INV_GROUP) {
			ini_error(&p->src, inv->slurm[i].line, "[slurm.%s] "
			    "login '%s' is a group (want one host, or local)",
			    inv->slurm[i].name, inv->slurm[i].login);
			return;
		}
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
	if (p->src.failed)
		return (0);
	switch (p->sect) {
	case SECT_HOST:
	case SECT_LOCAL:
		keys = inv_host_keys;
		break;
	case SECT_GROUP:
		keys = inv_group_keys;
		break;
	case SECT_SLURM:
		keys = inv_slurm_keys;
		break;
	default:
		keys = NULL;	/* outside any section */
		break;
	}
	/* Checked before the key is known: an unknown key gets this too. */
	if (p->sect == SECT_LOCAL && strcmp(key, "workdir") != 0 &&
	    strcmp(key, "pin") != 0 && strcmp(key, "max_load") != 0) {
		ini_error(&p->src, p->src.line, "[host.local] the built-in "
		    "local host takes only workdir, pin and max_load");
		return (0);
	}
	if ((k = ini_key(&p->src, p->label, keys, p->seen, key)) < 0)
		return (0);
	if (p->sect == SECT_GROUP)
		inv_key_hosts(p, v);
	else if (p->sect == SECT_SLURM)
		inv_key_slurm(p, k, v);
	else
		inv_key_host(p, k, v);
	return (!p->src.failed);
}

/* Finishes the current section: required keys and defaults. */
static void
inv_section_end(void *arg)
{
	struct inv_parse	*p = arg;
	struct inv_host		*h;
	const char		*u;
	char			 login[HOST_FIELD(user)];
	int			 slurm;

	if (p->src.failed)
		goto out;
	if (p->sect == SECT_GROUP && p->seen[GK_HOSTS] == 0)
		ini_error(&p->src, p->sect_line, "%s missing hosts", p->label);
	if (p->sect == SECT_SLURM && p->seen[SK_LOGIN] == 0)
		ini_error(&p->src, p->sect_line, "%s missing login (a host "
		    "where Slurm's commands run, or local)", p->label);
	if (p->sect != SECT_HOST)
		goto out;
	h = inv_cur_host(p);
	slurm = inv_slurm_host_end(p);
	/* ssh_config = yes: ssh -G fills what the section leaves out. */
	if (h->ssh_config || p->src.failed)
		goto out;
	if (p->seen[HK_ADDRESS] == 0 && !slurm) {
		ini_error(&p->src, p->sect_line, "%s missing address",
		    p->label);
		goto out;
	}
	if (p->seen[HK_USER] == 0) {
		if ((u = getenv("USER")) == NULL || *u == '\0') {
			if (inv_passwd(0, login, sizeof login) != 0) {
				ini_error(&p->src, p->sect_line, "%s missing "
				    "user, and the login name is unknown",
				    p->label);
				goto out;
			}
			u = login;
		}
		if (*u == '-' || !inv_no_space(u) ||
		    inv_copy(h->user, sizeof h->user, u) != 0)
			ini_error(&p->src, p->sect_line, "%s missing user, and "
			    "the login name '%s' cannot be used", p->label, u);
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

/*
 * Starts a [host.NAME] or [group.NAME] section; reports errors. Long
 * because each refusal (bad name, reserved, duplicate, too many) names
 * its line in words of its own.
 */
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
	if (!ini_name_ok(name, len, HOST_FIELD(name))) {
		ini_error(&p->src, p->src.line, "[%s.%.*s] bad name '%.*s' "
		    "(want " INV_NAME_RULE ")", kind, (int)len, name, (int)len,
		    name);
		return;
	}
	if (len == 3 && memcmp(name, "all", 3) == 0) {
		ini_error(&p->src, p->src.line, "%s 'all' is reserved (it "
		    "means every host)", p->label);
		return;
	}
	if (len == 5 && memcmp(name, "local", 5) == 0) {
		if (group) {
			ini_error(&p->src, p->src.line, "%s 'local' is "
			    "reserved (the built-in host)", p->label);
			return;
		}
		if (inv->local_line != 0) {
			ini_error(&p->src, p->src.line, "duplicate section "
			    "[host.local] (first on line %d)", inv->local_line);
			return;
		}
		inv->local_line = inv->local.line = p->src.line;
		p->sect = SECT_LOCAL;
		p->sect_line = p->src.line;
		return;
	}
	if ((first = inv_find_section(inv, name, len, &other)) != 0) {
		if ((other == INV_GROUP) == group)
			ini_error(&p->src, p->src.line, "duplicate section %s "
			    "(first on line %d)", p->label, first);
		else
			ini_error(&p->src, p->src.line, "%s has the same name "
			    "as [%s.%.*s] (line %d)", p->label, group ? "host" :
			    "group", (int)len, name, first);
		return;
	}
	if (group) {
		if (inv->ngroups >= INV_GROUPS_MAX) {
			ini_error(&p->src, p->src.line, "too many groups (at "
			    "most %d)", INV_GROUPS_MAX);
			return;
		}
		if ((na = realloc(inv->groups, (inv->ngroups + 1) *
		    sizeof *g)) == NULL)
			goto nomem;
		inv->groups = na;
		g = &inv->groups[inv->ngroups++];
		memset(g, 0, sizeof *g);
		memcpy(g->name, name, len);
		g->line = p->src.line;
		p->sect = SECT_GROUP;
	} else {
		if (inv->nhosts >= INV_HOSTS_MAX) {
			ini_error(&p->src, p->src.line, "too many hosts (at "
			    "most %d)", INV_HOSTS_MAX);
			return;
		}
		if ((na = realloc(inv->hosts, (inv->nhosts + 1) *
		    sizeof *h)) == NULL)
			goto nomem;
		inv->hosts = na;
		h = &inv->hosts[inv->nhosts++];
		memset(h, 0, sizeof *h);
		memcpy(h->name, name, len);
		h->port = DEFAULT_SSH_PORT;
		h->transport = HOST_TRANSPORT_TUNNEL;
		snprintf(h->workdir, sizeof h->workdir, "%s", DEFAULT_WORKDIR);
		h->max_load = -1;
		h->line = p->src.line;
		p->sect = SECT_HOST;
	}
	p->sect_line = p->src.line;
	return;
nomem:
	ini_error(&p->src, p->src.line, "out of memory");
}

/* Starts [host.NAME] or [group.NAME] from its name a[0..n). */
static void
inv_section(void *arg, const char *a, size_t n)
{
	struct inv_parse	*p = arg;

	if (n >= 5 && memcmp(a, "host.", 5) == 0)
		inv_section_add(p, 0, a + 5, n - 5);
	else if (n >= 6 && memcmp(a, "group.", 6) == 0)
		inv_section_add(p, 1, a + 6, n - 6);
	else if (n >= 6 && memcmp(a, "slurm.", 6) == 0)
		inv_slurm_add(p, a + 6, n - 6);
	else
		ini_error(&p->src, p->src.line, "unknown section [%.*s] (want "
		    "[host.NAME], [group.NAME] or [slurm.NAME])", (int)n, a);
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
			ini_error(&p->src, inv->groups[to].hosts_line, "out of "
			    "memory");
		else
			ini_error(&p->src, inv->groups[to].hosts_line,
			    "[group.%s] includes itself (%s)",
			    inv->groups[to].name, b.s);
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
		ini_error(&p->src, 0, "out of memory");
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
				ini_error(&p->src, inv->groups[i].hosts_line,
				    "[group.%s] unknown host or group '%s'",
				    inv->groups[i].name, m->name);
				goto out;
			}
			m->kind = found->kind;
			m->idx = found->idx;
		}
	}

	inv_slurm_finish(p);
	if (inv->ngroups == 0 || p->src.failed)
		goto out;
	if ((color = calloc(inv->ngroups, 1)) == NULL ||
	    (stack = calloc(inv->ngroups, sizeof *stack)) == NULL) {
		ini_error(&p->src, 0, "out of memory");
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
	ini_init(&p.src, path, inv_section_end, inv_section, &p);
	if ((inv = calloc(1, sizeof *inv)) == NULL ||
	    (inv->path = strdup(path)) == NULL) {
		ini_error(&p.src, 0, "out of memory");
		goto out;
	}
	inv->local.max_load = -1;
	p.inv = inv;
	if ((rc = ini_read(&p.src, INV_FILE_MAX, 1)) == 1) {
		if (required) {
			ini_error(&p.src, 0, "%s", strerror(ENOENT));
			goto out;
		}
		inv->missing = 1;
		goto done;
	}
	if (rc != 0)
		goto out;

	if (ini_run(&p.src, inv_handler, &p) != 0)
		goto out;
	inv_finish(&p);
	if (p.src.failed)
		goto out;
done:
	*out = inv;
	inv = NULL;
	r = 0;
out:
	if (r != 0)
		*cause = ini_cause(&p.src);
	free(p.src.cause);
	free(p.src.text);
	inventory_free(inv);
	return (r);
}

/* Frees an inventory; NULL is ok. */
void
inventory_free(struct inventory *inv)
{
	size_t	i, j;

	if (inv == NULL)
		return;
	for (i = 0; i < inv->ngroups; i++)
		free(inv->groups[i].members);
	for (i = 0; i < inv->nslurm; i++) {
		for (j = 0; j < inv->slurm[i].nargs; j++)
			free(inv->slurm[i].args[j]);
		free(inv->slurm[i].args);
	}
	free(inv->slurm);
	free(inv->groups);
	free(inv->hosts);
	free(inv->index);
	free(inv->path);
	free(inv);
}

/*
 * The inventories inventory_get loaded, one for each path and requirement,
 * kept until inventory_forget: every part of one command reads one.
 */
struct inv_kept {
	struct inventory	*inv;
	int			 required;
	struct inv_kept		*next;
};
static struct inv_kept	*inv_kept;
static pthread_mutex_t	 inv_kept_mtx = PTHREAD_MUTEX_INITIALIZER;

/* Loads path once (see inventory.h). */
int
inventory_get(const char *path, int required, const struct inventory **out,
    char **cause)
{
	struct inv_kept		*k;
	struct inventory	*inv;
	int			 r = 0;

	*out = NULL;
	*cause = NULL;
	pthread_mutex_lock(&inv_kept_mtx);
	for (k = inv_kept; k != NULL; k = k->next) {
		if (k->required == required && strcmp(k->inv->path, path) == 0)
			break;
	}
	if (k != NULL)
		*out = k->inv;
	else if ((r = inventory_load(path, required, &inv, cause)) == 0) {
		k = xmalloc(sizeof *k);
		k->inv = inv;
		k->required = required;
		k->next = inv_kept;
		inv_kept = k;
		*out = inv;
	}
	pthread_mutex_unlock(&inv_kept_mtx);
	return (r);
}

/* Frees what inventory_get kept. */
void
inventory_forget(void)
{
	struct inv_kept	*k;

	pthread_mutex_lock(&inv_kept_mtx);
	while ((k = inv_kept) != NULL) {
		inv_kept = k->next;
		inventory_free(k->inv);
		free(k);
	}
	pthread_mutex_unlock(&inv_kept_mtx);
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
	size_t		*order;		/* host index, nhosts for local, or
					   nhosts + 1 + k for extra[k] */
	size_t		 n;
	unsigned char	*picked;	/* per host index, nhosts + 1 */
	unsigned char	*expanded;	/* per group */
	const char	**extra;	/* names for ssh_config, in the list */
	size_t		 nextra;
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

/*
 * Adds what one --hosts name stands for; with use_ssh an unknown name is
 * kept for ssh_config. Returns 0, or -1 if unknown.
 */
static int
inv_pick_name(const struct inventory *inv, struct inv_pick *pk,
    const char *name, int use_ssh)
{
	const struct inv_name	*found;
	size_t			 i, nhosts = inv != NULL ? inv->nhosts : 0;

	if (strcmp(name, "local") == 0)
		inv_pick_host(pk, nhosts);
	else if (strcmp(name, "all") == 0) {
		for (i = 0; i < nhosts; i++)
			inv_pick_host(pk, i);
	} else if ((found = inv_lookup(inv, name)) == NULL) {
		if (!use_ssh || !ini_name_ok(name, strlen(name),
		    HOST_FIELD(name)))
			return (-1);
		for (i = 0; i < pk->nextra; i++) {
			if (strcmp(pk->extra[i], name) == 0)
				return (0);
		}
		pk->extra[pk->nextra] = name;
		pk->order[pk->n++] = nhosts + 1 + pk->nextra++;
	} else if (found->kind == INV_HOST)
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

/* Returns 1 if name resolves as a host name here (as ssh would try it). */
static int
inv_resolves(const char *name)
{
	struct addrinfo	 hints, *res = NULL;

	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(name, NULL, &hints, &res) != 0)
		return (0);
	freeaddrinfo(res);
	return (1);
}

/* Returns the [host.NAME] entry called name, or NULL. */
static const struct inv_host *
inv_find_host(const struct inventory *inv, const char *name)
{
	const struct inv_name	*found = inv_lookup(inv, name);

	if (found == NULL || found->kind != INV_HOST)
		return (NULL);
	return (&inv->hosts[found->idx]);
}

/*
 * How to reach the host called name: its inventory entry, ssh_config's
 * answer (when it has no entry, or its entry says ssh_config = yes and
 * use_ssh is set), the inventory's keys overriding. through is set for a
 * hop reached through the one before it, whose name need not resolve
 * here. Writes its jump list ("" none) to jumps. Returns 0, or -1 with
 * *cause. Long because each way of not finding the host has words of its
 * own.
 */
static int
inv_reach(const struct inventory *inv, const char *name, int use_ssh,
    int through, struct host_hop *hop, char *jumps, size_t jlen,
    char **cause)
{
	const struct inv_host	*ih = inv_find_host(inv, name);
	struct sshcfg		*c = NULL;
	char			 err[1024], *unk;
	int			 r = -1, q;

	memset(hop, 0, sizeof *hop);
	jumps[0] = '\0';
	snprintf(hop->name, sizeof hop->name, "%s", name);
	if (ih != NULL) {
		memcpy(hop->address, ih->address, sizeof hop->address);
		hop->port = ih->port;
		memcpy(hop->user, ih->user, sizeof hop->user);
		memcpy(hop->identity, ih->identity, sizeof hop->identity);
		snprintf(jumps, jlen, "%s", ih->jump);
		if (!ih->ssh_config)
			goto done;
	}
	if (!use_ssh) {
		if (ih == NULL) {
			*cause = inv_unknown(inv, name);
			goto out;
		}
		*cause = ini_fmt("%s:%d: [host.%s] ssh_config = yes, but "
		    "ssh_config is not read here", inv->path, ih->line, name);
		goto out;
	}
	if ((c = calloc(1, sizeof *c)) == NULL)
		goto out;
	if ((q = sshcfg_query(sshcfg_file(), name, c, err, sizeof err)) == 1) {
		if (ih != NULL)
			*cause = ini_fmt("%s:%d: [host.%s] ssh_config = yes, "
			    "but no ssh client is installed to read it",
			    inv->path, ih->line, name);
		else if ((unk = inv_unknown(inv, name)) != NULL) {
			*cause = ini_fmt("%s; no ssh client is installed to "
			    "look it up in ssh_config", unk);
			free(unk);
		}
		goto out;
	}
	if (q != 0) {
		*cause = ini_fmt("%s", err);
		goto out;
	}
	/*
	 * ssh -G answers for any name; one that ssh_config does not rename,
	 * that does not resolve and is reached directly is a typo.
	 */
	if (ih == NULL && !through && strcmp(c->hostname, name) == 0 &&
	    c->proxyjump[0] == '\0' && !inv_resolves(name)) {
		if ((unk = inv_unknown(inv, name)) != NULL) {
			*cause = ini_fmt("%s; ssh_config%s%s has no HostName "
			    "for it, and the name does not resolve", unk,
			    sshcfg_file() != NULL ? " " : "",
			    sshcfg_file() != NULL ? sshcfg_file() : "");
			free(unk);
		}
		goto out;
	}
	if (hop->address[0] == '\0')
		snprintf(hop->address, sizeof hop->address, "%s", c->hostname);
	if (ih == NULL || !ih->has_port)
		hop->port = c->port;
	if (ih == NULL || !ih->has_user)
		snprintf(hop->user, sizeof hop->user, "%s", c->user);
	hop->reach = c->reach;
	if (jumps[0] == '\0')
		snprintf(jumps, jlen, "%s", c->proxyjump);
done:
	if (strcmp(jumps, "none") == 0)
		jumps[0] = '\0';
	if (hop->user[0] == '\0' && inv_passwd(0, hop->user,
	    sizeof hop->user) != 0) {
		*cause = ini_fmt("host %s: no user, and the login name is "
		    "unknown", name);
		goto out;
	}
	r = 0;
out:
	if (r != 0 && *cause == NULL)
		*cause = strdup("--hosts: out of memory");
	free(c);
	return (r);
}

/* Returns 1 if name is one of path[0..n). */
static int
inv_on_path(const char *const *path, size_t n, const char *name)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strcmp(path[i], name) == 0)
			return (1);
	}
	return (0);
}

/* Writes "a -> b -> ... -> name" for a jump loop into a new string. */
static char *
inv_loop(const char *const *path, size_t n, const char *name)
{
	struct inv_buf	b;
	size_t		i;

	memset(&b, 0, sizeof b);
	inv_buf_add(&b, "--hosts: %s: jump loop: ", path[0]);
	for (i = 0; i < n; i++)
		inv_buf_add(&b, "%s -> ", path[i]);
	inv_buf_add(&b, "%s", name);
	if (b.oom) {
		free(b.s);
		return (NULL);
	}
	return (b.s);
}

/*
 * Appends the hops on the way to path[depth-1], whose jump list is jumps,
 * to hops[*nhops]: as OpenSSH's ProxyJump, the first hop is reached by its
 * own jump hosts, and the others each through the one before. path holds
 * the names being resolved, to refuse loops. Returns 0, or -1 with *cause.
 * Long because each refusal (local, loop, self, twice, too many) is spelled
 * out.
 */
static int
inv_chain(const struct inventory *inv, int use_ssh, const char *jumps,
    const char **path, size_t depth, struct host_hop *hops, size_t *nhops,
    char **cause)
{
	struct host_hop	 hop;
	const char	*spec = jumps;
	char		 user[64], name[256], why[512], sub[1024];
	int		 port, r, first = 1;
	size_t		 i;

	while ((r = sshcfg_next_hop(&spec, user, sizeof user, name,
	    sizeof name, &port, why, sizeof why)) == 1) {
		if (strcmp(name, "local") == 0) {
			*cause = ini_fmt("--hosts: %s: 'local' cannot be a "
			    "jump host", path[depth - 1]);
			return (-1);
		}
		if (inv_on_path(path, depth, name)) {
			if (depth == 1 && strcmp(name, path[0]) == 0)
				*cause = ini_fmt("--hosts: %s: jumps through "
				    "itself", path[0]);
			else
				*cause = inv_loop(path, depth, name);
			return (-1);
		}
		for (i = 0; i < *nhops; i++) {
			if (strcmp(hops[i].name, name) == 0) {
				*cause = ini_fmt("--hosts: %s: jump host %s "
				    "is on the way twice", path[0], name);
				return (-1);
			}
		}
		if (strlen(name) >= sizeof hop.name) {
			*cause = ini_fmt("--hosts: %s: jump host name '%s' is "
			    "too long", path[depth - 1], name);
			return (-1);
		}
		if (inv_reach(inv, name, use_ssh, !first, &hop, sub,
		    sizeof sub, cause) != 0)
			return (-1);
		if (user[0] != '\0')
			snprintf(hop.user, sizeof hop.user, "%s", user);
		if (port != 0)
			hop.port = port;
		if (first && sub[0] != '\0') {
			if (depth > HOST_HOPS_MAX) {
				*cause = ini_fmt("--hosts: %s: more than %d "
				    "jump hosts", path[0], HOST_HOPS_MAX);
				return (-1);
			}
			path[depth] = hop.name;
			if (inv_chain(inv, use_ssh, sub, path, depth + 1, hops,
			    nhops, cause) != 0)
				return (-1);
		}
		first = 0;
		if (*nhops == HOST_HOPS_MAX) {
			*cause = ini_fmt("--hosts: %s: more than %d jump hosts",
			    path[0], HOST_HOPS_MAX);
			return (-1);
		}
		hops[(*nhops)++] = hop;
	}
	if (r < 0) {
		*cause = ini_fmt("--hosts: %s: %s", path[depth - 1], why);
		return (-1);
	}
	return (0);
}

/*
 * Fills remote host h (its name set, and its inventory entry's settings
 * when it has one) with what ssh_config adds and its jump hosts, into its
 * route. Returns 0, or -1 with *cause.
 */
static int
inv_fill_ssh(const struct inventory *inv, int use_ssh, struct host *h,
    char **cause)
{
	struct host_hop	*t;
	const char	*path[HOST_HOPS_MAX + 2];
	char		 jumps[1024];
	int		 r = -1;

	if ((t = calloc(1, sizeof *t)) == NULL) {
		*cause = strdup("--hosts: out of memory");
		return (-1);
	}
	if (inv_reach(inv, h->name, use_ssh, 0, t, jumps, sizeof jumps,
	    cause) != 0)
		goto out;
	memcpy(h->address, t->address, sizeof h->address);
	h->port = t->port;
	memcpy(h->user, t->user, sizeof h->user);
	memcpy(h->identity, t->identity, sizeof h->identity);
	h->route->reach = t->reach;
	h->route->nhops = 0;
	path[0] = h->name;
	if (inv_chain(inv, use_ssh, jumps, path, 1, h->route->hops,
	    &h->route->nhops, cause) != 0)
		goto out;
	if (h->route->nhops > 0 && h->transport == HOST_TRANSPORT_DIRECT) {
		*cause = ini_fmt("--hosts: %s: transport = direct cannot go "
		    "through a jump host (the agent's port is not reachable "
		    "from here); use transport = tunnel", h->name);
		goto out;
	}
	r = 0;
out:
	free(t);
	return (r);
}

/* Fills h as a host known only from ssh_config, with the defaults. */
static void
inv_fill_extra(struct host *h, const char *name)
{
	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "%s", name);
	h->port = DEFAULT_SSH_PORT;
	h->transport = HOST_TRANSPORT_TUNNEL;
	snprintf(h->workdir, sizeof h->workdir, "%s", DEFAULT_WORKDIR);
	h->max_load = -1;
	h->ops = NULL;
	h->chan.sock = -1;
	h->status = HOST_OK;
}

/* The routes follow the hosts in their block, aligned. */
_Static_assert(_Alignof(struct host) % _Alignof(struct host_route) == 0,
    "a host_route cannot follow an array of hosts");

/*
 * Resolves a --hosts list (see inventory.h). Long because names, groups
 * and 'all' are picked, checked and copied in one pass over the list.
 */
static int
inv_resolve(const struct inventory *inv, const char *list, int use_ssh,
    struct host **hosts, size_t *n, char **cause)
{
	struct inv_pick		 pk;
	struct host		*out = NULL;
	struct host_route	*route;
	char			*copy = NULL, *a, *e, *end;
	size_t			 nhosts = inv != NULL ? inv->nhosts : 0;
	size_t			 ngroups = inv != NULL ? inv->ngroups : 0;
	size_t			 i, empty = 0, names = 0, nmax, nroute;
	int			 r = -1, last;

	memset(&pk, 0, sizeof pk);
	*hosts = NULL;
	*n = 0;
	*cause = NULL;
	if (list == NULL)
		list = "local";
	/* Each name of the list may be one for ssh_config: a bound. */
	nmax = strlen(list) / 2 + 1;
	if ((copy = strdup(list)) == NULL ||
	    (pk.extra = calloc(nmax, sizeof *pk.extra)) == NULL ||
	    (pk.order = calloc(nhosts + 1 + nmax, sizeof *pk.order)) == NULL ||
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
			if (inv_pick_name(inv, &pk, a, use_ssh) != 0) {
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
			*cause = ini_fmt("--hosts: empty name in '%s'", list);
		else {
			/* Only `all` can pick nothing: no group is empty. */
			*cause = ini_fmt("--hosts: '%s' names no hosts (%s %s)",
			    list, inv != NULL ? inv->path : "no inventory",
			    inv == NULL ? "loaded" : inv->missing ?
			    "does not exist" : "has none");
		}
		if (*cause == NULL)
			goto nomem;
		goto out;
	}
	/* One block: free() frees the hosts and the remote ones' routes. */
	for (i = 0, nroute = 0; i < pk.n; i++)
		nroute += pk.order[i] != nhosts;
	if ((out = calloc(1, pk.n * sizeof *out + nroute *
	    sizeof *route)) == NULL)
		goto nomem;
	route = (struct host_route *)(void *)(out + pk.n);
	for (i = 0; i < pk.n; i++) {
		if (pk.order[i] == nhosts) {
			inv_fill_local(&out[i], inv);
			continue;
		}
		if (pk.order[i] > nhosts)
			inv_fill_extra(&out[i], pk.extra[pk.order[i] - nhosts -
			    1]);
		else
			inv_fill_remote(&out[i], &inv->hosts[pk.order[i]]);
		out[i].route = route++;
		if (inv_fill_ssh(inv, use_ssh, &out[i], cause) != 0) {
			free(out);
			goto out;
		}
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
	free(pk.extra);
	free(pk.order);
	free(pk.picked);
	free(pk.expanded);
	return (r);
}

/* Returns the [slurm.NAME] section called name, or NULL. */
const struct inventory_slurm *
inventory_slurm(const struct inventory *inv, const char *name)
{
	size_t	i;

	for (i = 0; inv != NULL && i < inv->nslurm; i++) {
		if (strcmp(inv->slurm[i].name, name) == 0)
			return (&inv->slurm[i]);
	}
	return (NULL);
}

/* Fills *node for a host with slurm = ... (see inventory.h). */
int
inventory_slurm_host(const struct inventory *inv, const char *name,
    struct inventory_slurm_node *node)
{
	const struct inv_name	*f = inv_lookup(inv, name);
	const struct inv_host	*h;

	memset(node, 0, sizeof *node);
	if (f == NULL || f->kind != INV_HOST)
		return (0);
	h = &inv->hosts[f->idx];
	if (h->slurm[0] == '\0')
		return (0);
	node->cluster = inventory_slurm(inv, h->slurm);
	node->partition = h->partition;
	node->constraint = h->constraint[0] != '\0' ? h->constraint : NULL;
	node->nodelist = h->nodelist[0] != '\0' ? h->nodelist : NULL;
	node->line = h->line;
	return (1);
}

int
inventory_resolve(const struct inventory *inv, const char *list,
    struct host **hosts, size_t *n, char **cause)
{
	return (inv_resolve(inv, list, 0, hosts, n, cause));
}

int
inventory_resolve_ssh(const struct inventory *inv, const char *list,
    struct host **hosts, size_t *n, char **cause)
{
	return (inv_resolve(inv, list, 1, hosts, n, cause));
}
