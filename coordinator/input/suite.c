/*
 * Suite files (INI, see docs/suites.md): parsed with inih, checked
 * key by key, every error naming the file and line. The file is read and
 * fed to inih by coordinator/input/ini.c, which counts lines and hands
 * [section] lines to suite_section().
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "coordinator/input/defaults.h"
#include "coordinator/input/ini.h"
#include "coordinator/input/suite.h"

#define SUITE_FILE_MAX		(1024 * 1024)	/* largest suite file, bytes */
#define SUITE_VARIANTS_MAX	64
#define SUITE_BENCHES_MAX	1024
#define SUITE_FILES_MAX		64		/* extra files per benchmark */
#define SUITE_TIMEOUT_MAX	86400		/* seconds */
#define SUITE_TIMEOUT_UNSET	UINT32_MAX	/* bench without its own */
#define SUITE_FRAC_MAX		22		/* digits after a point */
#define SUITE_PARAMS_MAX	8		/* params of one sweep */
#define SUITE_PARAM_NAME_MAX	32		/* a param's name, with NUL */
#define SUITE_SWEEP_MAX		1000		/* benchmarks of one sweep */
#define SUITE_NAME_RULE \
	"1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or ."

enum suite_sect {
	SECT_NONE,
	SECT_SUITE,
	SECT_VARIANT,
	SECT_BENCH,
	SECT_CLAIM,
};

static const char *const suite_suite_keys[] = {
	"name", "rounds", "warmup", "seed", "min_effect", "reference",
	"max_load", "load_wait", "retries", "pin", "subtract_floor", "timeout",
	"counters", "linger", "min_rounds", "max_rounds", "budget", "env_pad",
	"settle", NULL
};
enum {
	SK_NAME, SK_ROUNDS, SK_WARMUP, SK_SEED, SK_MIN_EFFECT, SK_REFERENCE,
	SK_MAX_LOAD, SK_LOAD_WAIT, SK_RETRIES, SK_PIN, SK_SUBTRACT_FLOOR,
	SK_TIMEOUT, SK_COUNTERS, SK_LINGER, SK_MIN_ROUNDS, SK_MAX_ROUNDS,
	SK_BUDGET, SK_ENV_PAD, SK_SETTLE,
};

/* Counters the agent can read (agent/facts-linux.c has the same list). */
static const char *const suite_counter_names[] = {
	"instructions", "cycles", "branches", "branch-misses", "cache-misses",
	"context-switches", "task-clock", "page-faults", "cpu-migrations", NULL
};

struct suite_parse;
static void	suite_counters(struct suite_parse *, const char *);
static void	suite_params(struct suite_parse *, const char *);

static const char *const suite_variant_keys[] = {
	"bin", "env", "args", NULL
};
enum { VK_BIN, VK_ENV, VK_ARGS };

static const char *const suite_bench_keys[] = {
	"args", "files", "metrics", "better", "checksum", "timeout", "threads",
	"parallel", "prepare", "setup", "cleanup", "params", NULL
};
enum {
	BK_ARGS, BK_FILES, BK_METRICS, BK_BETTER, BK_CHECKSUM, BK_TIMEOUT,
	BK_THREADS, BK_PARALLEL, BK_PREPARE, BK_SETUP, BK_CLEANUP, BK_PARAMS
};

/* One parameter of a sweep: params = NAME=v1,v2,... */
struct suite_param {
	char		  name[SUITE_PARAM_NAME_MAX];
	size_t		  nvals;
	char		**vals;
};

struct suite_parse {
	struct suite	*s;
	struct ini_src	 src;		/* the file, line and first error */
	char		*dir;		/* of the suite file; NULL: cwd */

	enum suite_sect	 sect;		/* the current section */
	size_t		 idx;		/* its variant or bench index */
	int		 sect_line;
	char		 label[PROTO_NAME_MAX + 16];	/* "[bench.NAME]" */
	int		 seen[24];	/* line of each key seen, or 0 */

	int		 suite_line;	/* of [suite]; 0: none */
	char		 ref[PROTO_NAME_MAX];
	int		 ref_line;	/* of reference; 0: none */
	uint32_t	 timeout_ms;	/* [suite] timeout: benches' default */
	int		 suite_seen[24];	/* [suite]'s keys: line, or 0 */

	/* [bench.NAME] checks that need two keys, done once both are known. */
	char		*better;	/* not yet checked against metrics */
	int		 better_line;
	int		 args_line;	/* args not yet checked against files */
	int		 names_only;	/* suite_load_names: no file checks */

	/* [bench.NAME] params: the sweep, expanded when the section ends. */
	size_t		 nparams;
	struct suite_param params[SUITE_PARAMS_MAX];
	int		 params_line;
};

/* Returns 1 if s[0..len) is a valid environment variable name. */
static int
suite_env_name_ok(const char *s, size_t len)
{
	size_t	i;

	if (len == 0 || isdigit((unsigned char)s[0]))
		return (0);
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return (0);
	}
	return (1);
}

/* Trims blanks from both ends of s in place and returns it. */
static char *
suite_trim(char *s)
{
	char	*e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return (s);
}

/*
 * Parses an unsigned decimal integer. Returns 0, -1 when malformed, or -2
 * when it does not fit in 64 bits.
 */
static int
suite_parse_u64(const char *v, uint64_t *out)
{
	uint64_t	x = 0;
	unsigned	d;

	if (*v == '\0')
		return (-1);
	for (; *v != '\0'; v++) {
		if (!isdigit((unsigned char)*v))
			return (-1);
		d = (unsigned)(*v - '0');
		if (x > (UINT64_MAX - d) / 10)
			return (-2);
		x = x * 10 + d;
	}
	*out = x;
	return (0);
}

int
suite_parse_settle(const char *v, uint32_t *out)
{
	uint64_t	x, mul = 1;
	char		num[32];
	size_t		n = strlen(v);

	if (strcmp(v, "0") == 0) {
		*out = 0;
		return (0);
	}
	if (n < 2 || n >= sizeof num)
		return (-1);
	memcpy(num, v, n + 1);
	if (n > 2 && strcmp(num + n - 2, "ms") == 0)
		num[n - 2] = '\0';
	else if (num[n - 1] == 's') {
		mul = 1000;
		num[n - 1] = '\0';
	} else
		return (-1);	/* a bare number: seconds or milliseconds? */
	if (suite_parse_u64(num, &x) != 0 || x > PROTO_SETTLE_MAX / mul)
		return (-1);
	*out = (uint32_t)(x * mul);
	return (0);
}

int
suite_parse_budget(const char *v, uint32_t *out)
{
	uint64_t	x, mul = 1;
	char		num[32];
	size_t		n = strlen(v);

	if (n == 0 || n >= sizeof num)
		return (-1);
	memcpy(num, v, n + 1);
	switch (num[n - 1]) {
	case 's':
		num[--n] = '\0';
		break;
	case 'm':
		mul = 60;
		num[--n] = '\0';
		break;
	case 'h':
		mul = 3600;
		num[--n] = '\0';
		break;
	case 'd':
		mul = 86400;
		num[--n] = '\0';
		break;
	}
	if (suite_parse_u64(num, &x) != 0 || x == 0 || x > SUITE_BUDGET_MAX ||
	    x * mul > SUITE_BUDGET_MAX)
		return (-1);
	*out = (uint32_t)(x * mul);
	return (0);
}

/* Parses an integer key within [min, max]; reports the error. */
static int
suite_uint(struct suite_parse *p, const char *key, const char *v,
    uint64_t min, uint64_t max, uint64_t *out)
{
	int	rc;

	if ((rc = suite_parse_u64(v, out)) == -1) {
		ini_error(&p->src, p->src.line, "%s %s: '%s' is not an integer",
		    p->label, key, v);
		return (-1);
	}
	if (rc == -2 || *out < min || *out > max) {
		ini_error(&p->src, p->src.line, "%s %s: %s is out of range "
		    "%llu..%llu", p->label, key, v, (unsigned long long)min,
		    (unsigned long long)max);
		return (-1);
	}
	return (0);
}

/* Parses a timeout in seconds (0: none) into milliseconds; reports errors. */
static int
suite_timeout(struct suite_parse *p, const char *v, uint32_t *ms)
{
	double	x;

	if (ini_decimal(v, INT_MAX, SUITE_FRAC_MAX, &x) != 0) {
		ini_error(&p->src, p->src.line, "%s timeout: '%s' is not a "
		    "number of seconds", p->label, v);
		return (-1);
	}
	if (x > SUITE_TIMEOUT_MAX) {
		ini_error(&p->src, p->src.line, "%s timeout: %s is out of "
		    "range 0..%d", p->label, v, SUITE_TIMEOUT_MAX);
		return (-1);
	}
	*ms = (uint32_t)(x * 1000.0 + 0.5);
	if (*ms == 0 && x > 0)
		*ms = 1;
	return (0);
}

/* Returns a new string "dir/rel", or NULL when out of memory. */
static char *
suite_join(const char *dir, const char *rel)
{
	size_t	 dl = strlen(dir), n = dl + strlen(rel) + 2;
	char	*s;

	if ((s = malloc(n)) == NULL)
		return (NULL);
	snprintf(s, n, "%s%s%s", dir, dl > 0 && dir[dl - 1] == '/' ? "" : "/",
	    rel);
	return (s);
}

/* Returns 1 if path names something that exists. */
static int
suite_exists(const char *path)
{
	struct stat	st;

	return (stat(path, &st) == 0);
}

/* Returns the first {os} or {arch} in path, or NULL. */
static const char *
suite_placeholder(const char *path)
{
	const char	*a = strstr(path, "{os}"), *b = strstr(path, "{arch}");

	if (a == NULL || (b != NULL && b < a))
		return (b);
	return (a);
}

/*
 * Resolves a path as written: kept if it exists from the current directory,
 * joined to the suite's directory if it exists from there, else kept. For a
 * path with placeholders the directory before the first one is tested.
 * Returns the new string, or NULL when out of memory (error reported).
 */
static char *
suite_resolve(struct suite_parse *p, const char *written)
{
	const char	*ph;
	char		*probe = NULL, *joined = NULL, *r = NULL;
	size_t		 plen = strlen(written);

	if ((ph = suite_placeholder(written)) != NULL) {
		for (plen = (size_t)(ph - written); plen > 0 &&
		    written[plen - 1] != '/'; plen--)
			;
	}
	if (written[0] == '/' || p->dir == NULL || plen == 0) {
		r = strdup(written);
		goto out;
	}
	if ((probe = strndup(written, plen)) == NULL)
		goto out;
	if (suite_exists(probe)) {
		r = strdup(written);
		goto out;
	}
	free(probe);
	probe = NULL;
	if ((joined = suite_join(p->dir, written)) == NULL ||
	    (probe = strndup(joined, strlen(joined) - strlen(written) +
	    plen)) == NULL)
		goto out;
	if (suite_exists(probe)) {
		r = joined;
		joined = NULL;
	} else
		r = strdup(written);
out:
	free(probe);
	free(joined);
	if (r == NULL)
		ini_error(&p->src, p->src.line, "out of memory");
	return (r);
}

/* Frees a NULL-terminated word array of n words. */
static void
suite_free_words(char **w, size_t n)
{
	size_t	i;

	if (w == NULL)
		return;
	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

/*
 * Splits words like sh without expansion (see suite.h). Long because one
 * loop reads blanks, both kinds of quote and backslashes, word by word.
 */
int
suite_split(const char *value, char ***words, size_t *nwords, char **cause)
{
	const char	 *p = value;
	char		**w = NULL, **nw, *buf = NULL;
	const char	 *err = NULL;
	size_t		  n = 0, len;
	int		  r = -1;

	*words = NULL;
	*nwords = 0;
	if (cause != NULL)
		*cause = NULL;
	/* No word is longer than the value, and there are at most ARGS_MAX. */
	if ((buf = malloc(strlen(value) + 1)) == NULL ||
	    (w = calloc(PROTO_ARGS_MAX + 1, sizeof *w)) == NULL) {
		err = "out of memory";
		goto out;
	}
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '\0')
			break;
		len = 0;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' &&
		    *p != '\r') {
			if (*p == '\'') {
				for (p++; *p != '\''; p++) {
					if (*p == '\0') {
						err = "unterminated ' quote";
						goto out;
					}
					buf[len++] = *p;
				}
				p++;
			} else if (*p == '"') {
				for (p++; *p != '"'; p++) {
					if (*p == '\0') {
						err = "unterminated \" quote";
						goto out;
					}
					if (*p == '\\' && p[1] == '\n') {
						p++;	/* line continuation */
						continue;
					}
					if (*p == '\\' && p[1] != '\0' &&
					    strchr("\"\\$`", p[1]) != NULL)
						p++;
					buf[len++] = *p;
				}
				p++;
			} else if (*p == '\\' && p[1] == '\n') {
				p += 2;
			} else {
				/* A lone trailing backslash stays, as in sh. */
				if (*p == '\\' && p[1] != '\0')
					p++;
				buf[len++] = *p++;
			}
		}
		if (n == PROTO_ARGS_MAX) {
			err = "too many words (at most 256)";
			goto out;
		}
		if ((w[n] = strndup(buf, len)) == NULL) {
			err = "out of memory";
			goto out;
		}
		n++;
	}
	if ((nw = realloc(w, (n + 1) * sizeof *w)) != NULL)
		w = nw;
	*words = w;
	*nwords = n;
	w = NULL;
	r = 0;
out:
	if (err != NULL && cause != NULL)
		*cause = strdup(err);
	suite_free_words(w, n);
	free(buf);
	return (r);
}

/* Expands {os} and {arch} (see suite.h). */
int
suite_expand(const char *tmpl, const char *os, const char *arch, char *out,
    size_t outlen)
{
	const char	*rep;
	size_t		 o = 0, rlen;
	char		 c;

	if (outlen == 0)
		return (-1);
	while (*tmpl != '\0') {
		if (strncmp(tmpl, "{os}", 4) == 0) {
			rep = os;
			rlen = strlen(os);
			tmpl += 4;
		} else if (strncmp(tmpl, "{arch}", 6) == 0) {
			rep = arch;
			rlen = strlen(arch);
			tmpl += 6;
		} else {
			c = *tmpl++;
			rep = &c;
			rlen = 1;
		}
		if (rlen >= outlen - o) {
			out[0] = '\0';
			return (-1);
		}
		memcpy(out + o, rep, rlen);
		o += rlen;
	}
	out[o] = '\0';
	return (0);
}

/* Returns the current variant. */
static struct suite_variant *
suite_cur_variant(struct suite_parse *p)
{
	return (&p->s->variants[p->idx]);
}

/* Returns the current benchmark. */
static struct suite_bench *
suite_cur_bench(struct suite_parse *p)
{
	return (&p->s->benches[p->idx]);
}

/* Handles a count key of [suite]: rounds, warmup, seed, retries and such. */
static void
suite_key_count(struct suite_parse *p, int k, const char *v)
{
	struct suite	*s = p->s;
	uint64_t	 u;

	switch (k) {
	case SK_ROUNDS:
		if (strcmp(v, "auto") == 0)
			s->auto_rounds = 1;
		else if (suite_uint(p, "rounds", v, 1, 100000, &u) == 0)
			s->rounds = (uint32_t)u;
		break;
	case SK_MIN_ROUNDS:
		if (suite_uint(p, "min_rounds", v, 2, 100000, &u) == 0)
			s->min_rounds = (uint32_t)u;
		break;
	case SK_MAX_ROUNDS:
		if (suite_uint(p, "max_rounds", v, 2, 100000, &u) == 0)
			s->max_rounds = (uint32_t)u;
		break;
	case SK_WARMUP:
		if (suite_uint(p, "warmup", v, 0, 1000, &u) == 0)
			s->warmup = (uint32_t)u;
		break;
	case SK_SEED:
		if (suite_uint(p, "seed", v, 0, UINT64_MAX, &u) == 0) {
			s->seed = u;
			s->has_seed = 1;
		}
		break;
	case SK_LOAD_WAIT:
		if (suite_uint(p, "load_wait", v, 0, 86400, &u) == 0)
			s->load_wait_s = (uint32_t)u;
		break;
	case SK_RETRIES:
		if (suite_uint(p, "retries", v, 0, 10, &u) == 0)
			s->retries = (uint32_t)u;
		break;
	case SK_LINGER:
		if (suite_uint(p, "linger", v, 0, 7 * 86400, &u) == 0)
			s->linger_s = (uint32_t)u;
		break;
	case SK_ENV_PAD:
		if (suite_uint(p, "env_pad", v, 0, PROTO_ENV_PAD_MAX, &u) == 0)
			s->env_pad = (uint32_t)u;
		break;
	}
}

/* Handles a name key of [suite]: name or reference. */
static void
suite_key_name(struct suite_parse *p, int k, const char *v)
{
	struct suite	*s = p->s;

	switch (k) {
	case SK_NAME:
		if (!ini_name_ok(v, strlen(v), PROTO_NAME_MAX)) {
			ini_error(&p->src, p->src.line, "%s name: bad name "
			    "'%s' (want " SUITE_NAME_RULE ")", p->label, v);
			return;
		}
		snprintf(s->name, sizeof s->name, "%s", v);
		break;
	case SK_REFERENCE:
		if (!ini_name_ok(v, strlen(v), PROTO_NAME_MAX)) {
			ini_error(&p->src, p->src.line, "%s reference: bad "
			    "name '%s' (want " SUITE_NAME_RULE ")", p->label,
			    v);
			return;
		}
		snprintf(p->ref, sizeof p->ref, "%s", v);
		p->ref_line = p->src.line;
		break;
	}
}

/* Handles a decimal key of [suite]: min_effect or max_load. */
static void
suite_key_decimal(struct suite_parse *p, int k, const char *v)
{
	struct suite	*s = p->s;
	double		 d;

	switch (k) {
	case SK_MIN_EFFECT:
		if (ini_decimal(v, INT_MAX, SUITE_FRAC_MAX, &d) != 0) {
			ini_error(&p->src, p->src.line, "%s min_effect: '%s' "
			    "is not a number", p->label, v);
			return;
		}
		if (d >= 1) {
			ini_error(&p->src, p->src.line, "%s min_effect: %s is "
			    "out of range (want 0 <= x < 1)", p->label, v);
			return;
		}
		s->min_effect = d;
		break;
	case SK_MAX_LOAD:
		if (ini_decimal(v, INT_MAX, SUITE_FRAC_MAX, &d) != 0) {
			ini_error(&p->src, p->src.line, "%s max_load: '%s' is "
			    "not a number", p->label, v);
			return;
		}
		s->max_load = d;
		break;
	}
}

/* Handles one key of [suite]: a switch, one case a key or kind of key. */
static void
suite_key_suite(struct suite_parse *p, int k, const char *v)
{
	struct suite	*s = p->s;

	switch (k) {
	case SK_NAME:
	case SK_REFERENCE:
		suite_key_name(p, k, v);
		break;
	case SK_ROUNDS:
	case SK_MIN_ROUNDS:
	case SK_MAX_ROUNDS:
	case SK_WARMUP:
	case SK_SEED:
	case SK_LOAD_WAIT:
	case SK_RETRIES:
	case SK_LINGER:
	case SK_ENV_PAD:
		suite_key_count(p, k, v);
		break;
	case SK_MIN_EFFECT:
	case SK_MAX_LOAD:
		suite_key_decimal(p, k, v);
		break;
	case SK_SETTLE:
		if (suite_parse_settle(v, &s->settle_ms) != 0)
			ini_error(&p->src, p->src.line, "%s settle: '%s' is "
			    "not a pause (want e.g. 50ms or 2s, at most 10s; "
			    "0: none)", p->label, v);
		break;
	case SK_BUDGET:
		if (suite_parse_budget(v, &s->budget_s) != 0)
			ini_error(&p->src, p->src.line, "%s budget: '%s' is "
			    "not a duration (want e.g. 90s, 20m, 2h; at most "
			    "30d)", p->label, v);
		break;
	case SK_PIN:
		if (!ini_cpus_ok(v, -1) || strlen(v) >= sizeof s->pin) {
			ini_error(&p->src, p->src.line, "%s pin: bad CPU list "
			    "'%s' (want e.g. 2,3 or 0-3)", p->label, v);
			return;
		}
		snprintf(s->pin, sizeof s->pin, "%s", v);
		break;
	case SK_SUBTRACT_FLOOR:
		if (strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0 ||
		    strcmp(v, "1") == 0)
			s->subtract_floor = 1;
		else if (strcasecmp(v, "no") == 0 ||
		    strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0)
			s->subtract_floor = 0;
		else
			ini_error(&p->src, p->src.line, "%s subtract_floor: "
			    "'%s' is not yes or no", p->label, v);
		break;
	case SK_TIMEOUT:
		suite_timeout(p, v, &p->timeout_ms);
		break;
	case SK_COUNTERS:
		suite_counters(p, v);
		break;
	}
}

/* Checks and stores a counters list: known names, comma separated. */
static void
suite_counters(struct suite_parse *p, const char *v)
{
	struct suite	*s = p->s;
	char		 buf[256], *tok, *save = NULL;
	size_t		 i, n = 0;

	if (strlen(v) >= sizeof s->counters || strlen(v) >= sizeof buf) {
		ini_error(&p->src, p->src.line, "%s counters: list too long",
		    p->label);
		return;
	}
	snprintf(buf, sizeof buf, "%s", v);
	s->counters[0] = '\0';
	for (tok = strtok_r(buf, ", \t", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t", &save)) {
		for (i = 0; suite_counter_names[i] != NULL; i++) {
			if (strcmp(tok, suite_counter_names[i]) == 0)
				break;
		}
		if (suite_counter_names[i] == NULL) {
			ini_error(&p->src, p->src.line, "%s counters: unknown "
			    "counter '%s' (known: instructions, cycles, "
			    "branches, branch-misses, cache-misses, "
			    "context-switches, task-clock, page-faults, "
			    "cpu-migrations)", p->label, tok);
			return;
		}
		if (n++ > 0)
			strcat(s->counters, ",");
		strcat(s->counters, tok);
	}
}

/* Checks a bin without placeholders: it must be an executable file. */
static void
suite_check_bin(struct suite_parse *p, const char *written,
    const char *resolved)
{
	struct stat	st;

	if (stat(resolved, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			ini_error(&p->src, p->src.line, "%s bin '%s' does not "
			    "exist", p->label, written);
		else
			ini_error(&p->src, p->src.line, "%s bin '%s': %s",
			    p->label, written, strerror(errno));
	} else if (!S_ISREG(st.st_mode))
		ini_error(&p->src, p->src.line, "%s bin '%s' is not a regular "
		    "file", p->label, written);
	else if (access(resolved, X_OK) != 0)
		ini_error(&p->src, p->src.line, "%s bin '%s' is not executable",
		    p->label, written);
}

/*
 * Checks the NAME of `host:NAME` (key: "bin", "prepare", ...): a name
 * without '/' looked up in the host's PATH, or an absolute path. Returns
 * a copy of NAME, or NULL (error reported).
 */
static char *
suite_hostprog(struct suite_parse *p, const char *key, const char *v)
{
	const char	*name = v + 5;
	size_t		 i, len = strlen(name);
	char		*r;

	if (len == 0) {
		ini_error(&p->src, p->src.line, "%s %s: 'host:' names no "
		    "program", p->label, key);
		return (NULL);
	}
	if (len >= PROTO_PROG_MAX) {
		ini_error(&p->src, p->src.line, "%s %s: host program name "
		    "longer than %d bytes", p->label, key, PROTO_PROG_MAX - 1);
		return (NULL);
	}
	for (i = 0; i < len; i++) {
		if ((unsigned char)name[i] <= ' ' ||
		    (unsigned char)name[i] == 0x7f) {
			ini_error(&p->src, p->src.line, "%s %s: host program "
			    "'%s' has a blank or control character", p->label,
			    key, name);
			return (NULL);
		}
	}
	if (name[0] != '/' && strchr(name, '/') != NULL) {
		ini_error(&p->src, p->src.line, "%s %s: host program '%s' is "
		    "neither a name (looked up in the host's PATH) nor an "
		    "absolute path", p->label, key, name);
		return (NULL);
	}
	if ((r = strdup(name)) == NULL)
		ini_error(&p->src, p->src.line, "out of memory");
	return (r);
}

/* Splits an args or env value; reports errors. */
static int
suite_words(struct suite_parse *p, const char *key, const char *v,
    char ***w, size_t *n)
{
	char	*cause = NULL;

	if (suite_split(v, w, n, &cause) != 0) {
		ini_error(&p->src, p->src.line, "%s %s: %s", p->label, key,
		    cause != NULL ? cause : "out of memory");
		free(cause);
		return (-1);
	}
	return (0);
}

/* Handles one key of [variant.NAME]. */
static void
suite_key_variant(struct suite_parse *p, int k, const char *v)
{
	struct suite_variant	*var = suite_cur_variant(p);
	const char		*eq;
	size_t			 i;

	switch (k) {
	case VK_BIN:
		if (*v == '\0') {
			ini_error(&p->src, p->src.line, "%s empty bin",
			    p->label);
			return;
		}
		if (strncmp(v, "host:", 5) == 0) {
			if ((var->host = suite_hostprog(p, "bin", v)) != NULL &&
			    (var->bin = strdup(v)) == NULL)
				ini_error(&p->src, p->src.line,
				    "out of memory");
			return;
		}
		if ((var->bin = suite_resolve(p, v)) == NULL)
			return;
		if (suite_placeholder(v) == NULL && !p->names_only)
			suite_check_bin(p, v, var->bin);
		break;
	case VK_ENV:
		if (suite_words(p, "env", v, &var->env, &var->nenv) != 0)
			return;
		for (i = 0; i < var->nenv; i++) {
			eq = strchr(var->env[i], '=');
			if (eq == NULL || !suite_env_name_ok(var->env[i],
			    (size_t)(eq - var->env[i]))) {
				ini_error(&p->src, p->src.line, "%s env: bad "
				    "item '%s' (want NAME=value)", p->label,
				    var->env[i]);
				return;
			}
		}
		break;
	case VK_ARGS:
		suite_words(p, "args", v, &var->args, &var->nargs);
		break;
	}
}

/* Checks every {file:NAME} in the current bench's args; error at line. */
static void
suite_check_refs(struct suite_parse *p, int line)
{
	struct suite_bench	*b = suite_cur_bench(p);
	const char		*a, *end;
	size_t			 i, j, len;

	for (i = 0; i < b->nargs; i++) {
		for (a = b->args[i]; (a = strstr(a, "{file:")) != NULL;
		    a = end + 1) {
			a += 6;
			if ((end = strchr(a, '}')) == NULL) {
				ini_error(&p->src, line, "%s args: "
				    "unterminated '{file:' in '%s'", p->label,
				    b->args[i]);
				return;
			}
			len = (size_t)(end - a);
			for (j = 0; j < b->nfiles; j++) {
				if (strlen(b->files[j].name) == len &&
				    strncmp(b->files[j].name, a, len) == 0)
					break;
			}
			if (j == b->nfiles) {
				ini_error(&p->src, line, "%s args: unknown "
				    "file '%.*s' in {file:%.*s}", p->label,
				    (int)len, a, (int)len, a);
				return;
			}
		}
	}
}

/*
 * Applies a better value to the current bench: "lower" or "higher" alone
 * for every metric, "metric:lower|higher" for one. With check_only, checks
 * the items' form but neither the metrics named nor applies anything.
 */
static void
suite_better(struct suite_parse *p, const char *v, int line, int check_only)
{
	struct suite_bench	*b = suite_cur_bench(p);
	char			*copy, *item, *next, *colon, *m, *dir;
	unsigned char		*set = NULL;
	int			 dflt = -1, hi;
	size_t			 i;

	if ((copy = strdup(v)) == NULL ||
	    (set = calloc(b->nmetrics + 1, 1)) == NULL) {
		ini_error(&p->src, line, "out of memory");
		goto out;
	}
	/* Two passes: the default first, so items may come in any order. */
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		item = suite_trim(item);
		if ((colon = strchr(item, ':')) != NULL) {
			*colon = '\0';
			m = suite_trim(item);
			dir = suite_trim(colon + 1);
		} else {
			m = NULL;
			dir = item;
		}
		if (strcmp(dir, "lower") == 0)
			hi = 0;
		else if (strcmp(dir, "higher") == 0)
			hi = 1;
		else {
			ini_error(&p->src, line, "%s better: bad item '%s%s%s' "
			    "(want lower, higher or METRIC:lower|higher)",
			    p->label, m != NULL ? m : "", m != NULL ? ":" : "",
			    dir);
			goto out;
		}
		if (m == NULL) {
			if (dflt != -1) {
				ini_error(&p->src, line, "%s better: more than "
				    "one default", p->label);
				goto out;
			}
			dflt = hi;
		} else if (!ini_name_ok(m, strlen(m), PROTO_NAME_MAX)) {
			ini_error(&p->src, line, "%s better: bad metric name "
			    "'%s'", p->label, m);
			goto out;
		}
		if (check_only || m == NULL)
			continue;
		for (i = 0; i < b->nmetrics; i++) {
			if (strcmp(b->metrics[i].name, m) == 0)
				break;
		}
		if (i == b->nmetrics) {
			ini_error(&p->src, line, "%s better: '%s' is not in "
			    "metrics", p->label, m);
			goto out;
		}
		if (set[i]) {
			ini_error(&p->src, line, "%s better: '%s' given twice",
			    p->label, m);
			goto out;
		}
		set[i] = (unsigned char)(hi + 1);
	}
	if (check_only)
		goto out;
	for (i = 0; i < b->nmetrics; i++) {
		if (set[i])
			b->metrics[i].higher = set[i] - 1;
		else if (dflt != -1)
			b->metrics[i].higher = dflt;
	}
out:
	free(set);
	free(copy);
}

/* Parses a files value: comma-separated NAME=path items. */
static void
suite_files(struct suite_parse *p, const char *v)
{
	struct suite_bench	*b = suite_cur_bench(p);
	struct suite_file	*f;
	struct stat		 st;
	char			*copy, *item, *next, *eq, *name, *path;
	size_t			 i, n = 1;

	for (item = strchr(v, ','); item != NULL; item = strchr(item + 1, ','))
		n++;
	if (n > SUITE_FILES_MAX) {
		ini_error(&p->src, p->src.line, "%s files: too many (at most "
		    "%d)", p->label, SUITE_FILES_MAX);
		return;
	}
	if ((copy = strdup(v)) == NULL ||
	    (b->files = calloc(n, sizeof *b->files)) == NULL) {
		ini_error(&p->src, p->src.line, "out of memory");
		goto out;
	}
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		item = suite_trim(item);
		if ((eq = strchr(item, '=')) == NULL) {
			ini_error(&p->src, p->src.line, "%s files: bad item "
			    "'%s' (want NAME=path)", p->label, item);
			goto out;
		}
		*eq = '\0';
		name = suite_trim(item);
		path = suite_trim(eq + 1);
		if (!ini_name_ok(name, strlen(name), PROTO_NAME_MAX)) {
			ini_error(&p->src, p->src.line, "%s files: bad name "
			    "'%s' (want " SUITE_NAME_RULE ")", p->label, name);
			goto out;
		}
		if (*path == '\0') {
			ini_error(&p->src, p->src.line, "%s files: empty path "
			    "for '%s'", p->label, name);
			goto out;
		}
		for (i = 0; i < b->nfiles; i++) {
			if (strcmp(b->files[i].name, name) == 0) {
				ini_error(&p->src, p->src.line, "%s files: "
				    "duplicate name '%s'", p->label, name);
				goto out;
			}
		}
		f = &b->files[b->nfiles++];
		snprintf(f->name, sizeof f->name, "%s", name);
		f->line = p->src.line;
		if ((f->path = suite_resolve(p, path)) == NULL)
			goto out;
		if (p->names_only)
			continue;
		if (stat(f->path, &st) != 0) {
			ini_error(&p->src, p->src.line, "%s files: '%s' %s",
			    p->label, path, errno == ENOENT || errno == ENOTDIR
			    ? "does not exist" : strerror(errno));
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			ini_error(&p->src, p->src.line, "%s files: '%s' is not "
			    "a regular file", p->label, path);
			goto out;
		}
	}
out:
	free(copy);
}

/* Parses a metrics value: comma-separated names, no duplicates. */
static void
suite_metrics(struct suite_parse *p, const char *v)
{
	struct suite_bench	*b = suite_cur_bench(p);
	char			*copy, *item, *next;
	size_t			 i, n = 1;

	for (item = strchr(v, ','); item != NULL; item = strchr(item + 1, ','))
		n++;
	if (n > PROTO_METRICS_MAX) {
		ini_error(&p->src, p->src.line, "%s metrics: too many (at most "
		    "%d)", p->label, PROTO_METRICS_MAX);
		return;
	}
	if ((copy = strdup(v)) == NULL ||
	    (b->metrics = calloc(n, sizeof *b->metrics)) == NULL) {
		ini_error(&p->src, p->src.line, "out of memory");
		goto out;
	}
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		item = suite_trim(item);
		if (!ini_name_ok(item, strlen(item), PROTO_NAME_MAX)) {
			ini_error(&p->src, p->src.line, "%s metrics: bad name "
			    "'%s' (want " SUITE_NAME_RULE ")", p->label, item);
			goto out;
		}
		for (i = 0; i < b->nmetrics; i++) {
			if (strcmp(b->metrics[i].name, item) == 0) {
				ini_error(&p->src, p->src.line, "%s metrics: "
				    "duplicate metric '%s'", p->label, item);
				goto out;
			}
		}
		snprintf(b->metrics[b->nmetrics].name, PROTO_NAME_MAX, "%s",
		    item);
		b->nmetrics++;
	}
out:
	free(copy);
}

/*
 * Stores threads = N (1..SUITE_THREADS_MAX) or parallel = yes|no: how many
 * cores a benchmark keeps busy, for the per-core view of the report's
 * Machines section. The two say the same thing: one of them per bench.
 */
static void
suite_bench_threads(struct suite_parse *p, struct suite_bench *b,
    int parallel, const char *v)
{
	uint64_t	u;

	if (p->seen[parallel ? BK_THREADS : BK_PARALLEL]) {
		ini_error(&p->src, p->src.line, "%s: give threads or parallel, "
		    "not both", p->label);
		return;
	}
	if (!parallel) {
		if (suite_uint(p, "threads", v, 1, SUITE_THREADS_MAX, &u) == 0)
			b->threads = (uint32_t)u;
		return;
	}
	if (strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0 ||
	    strcmp(v, "1") == 0)
		b->threads = SUITE_THREADS_ALL;
	else if (strcasecmp(v, "no") == 0 || strcasecmp(v, "false") == 0 ||
	    strcmp(v, "0") == 0)
		b->threads = 1;
	else
		ini_error(&p->src, p->src.line, "%s parallel: '%s' is not yes "
		    "or no", p->label, v);
}

/*
 * Parses a hook (prepare, setup, cleanup): an argv split like args, whose
 * program is host:NAME or a path resolved and checked like a bin.
 */
static void
suite_hook(struct suite_parse *p, const char *key, const char *v,
    struct suite_hook *h)
{
	h->line = p->src.line;
	if (suite_words(p, key, v, &h->argv, &h->nargv) != 0)
		return;
	if (h->nargv == 0) {
		ini_error(&p->src, p->src.line, "%s %s: no command", p->label,
		    key);
		return;
	}
	if (strncmp(h->argv[0], "host:", 5) == 0) {
		h->host = suite_hostprog(p, key, h->argv[0]);
		return;
	}
	if ((h->bin = suite_resolve(p, h->argv[0])) == NULL)
		return;
	if (suite_placeholder(h->argv[0]) == NULL)
		suite_check_bin(p, h->argv[0], h->bin);
}

/* ---- sweeps: params = NAME=v1,v2,... (docs/suites.md, "Sweeps") -------- */

/* Returns 1 if s[0..len) is a parameter name: a letter or _, then alnum/_. */
static int
suite_param_name_ok(const char *s, size_t len)
{
	size_t	i;

	if (len == 0 || len >= SUITE_PARAM_NAME_MAX ||
	    isdigit((unsigned char)s[0]))
		return (0);
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return (0);
	}
	return (1);
}

/* Returns 1 if v is a parameter value: 1 to 63 of A-Z a-z 0-9 _ . -. */
static int
suite_param_value_ok(const char *v)
{
	size_t	i, len = strlen(v);

	if (len == 0 || len >= PROTO_NAME_MAX)
		return (0);
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)v[i]) && strchr("_.-", v[i]) ==
		    NULL)
			return (0);
	}
	return (1);
}

/* Frees the current section's parameters. */
static void
suite_params_clear(struct suite_parse *p)
{
	size_t	i;

	for (i = 0; i < p->nparams; i++)
		suite_free_words(p->params[i].vals, p->params[i].nvals);
	memset(p->params, 0, sizeof p->params);
	p->nparams = 0;
	p->params_line = 0;
}

/* Parses one NAME=v1,v2,... item into a new parameter; reports errors. */
static int
suite_param_item(struct suite_parse *p, char *item, size_t *total)
{
	struct suite_param	*pp;
	char			*eq, *val, *next;
	size_t			 i, n = 1;

	if ((eq = strchr(item, '=')) == NULL) {
		ini_error(&p->src, p->src.line, "%s params: bad item '%s' "
		    "(want NAME=v1,v2,...)", p->label, item);
		return (-1);
	}
	*eq = '\0';
	if (!suite_param_name_ok(item, strlen(item))) {
		ini_error(&p->src, p->src.line, "%s params: bad parameter name "
		    "'%s' (want a letter or _, then letters, digits or _, at "
		    "most %d)", p->label, item, SUITE_PARAM_NAME_MAX - 1);
		return (-1);
	}
	for (i = 0; i < p->nparams; i++) {
		if (strcmp(p->params[i].name, item) == 0) {
			ini_error(&p->src, p->src.line, "%s params: parameter "
			    "'%s' given twice", p->label, item);
			return (-1);
		}
	}
	if (p->nparams == SUITE_PARAMS_MAX) {
		ini_error(&p->src, p->src.line, "%s params: too many "
		    "parameters (at most %d)", p->label, SUITE_PARAMS_MAX);
		return (-1);
	}
	for (val = eq + 1; (val = strchr(val, ',')) != NULL; val++)
		n++;
	pp = &p->params[p->nparams++];
	snprintf(pp->name, sizeof pp->name, "%s", item);
	if ((pp->vals = calloc(n + 1, sizeof *pp->vals)) == NULL) {
		ini_error(&p->src, p->src.line, "out of memory");
		return (-1);
	}
	for (val = eq + 1; val != NULL; val = next) {
		if ((next = strchr(val, ',')) != NULL)
			*next++ = '\0';
		if (!suite_param_value_ok(val)) {
			ini_error(&p->src, p->src.line, "%s params: bad value "
			    "'%s' for '%s' (want 1 to 63 of A-Z a-z 0-9 _ . -)",
			    p->label, val, pp->name);
			return (-1);
		}
		for (i = 0; i < pp->nvals; i++) {
			if (strcmp(pp->vals[i], val) == 0) {
				ini_error(&p->src, p->src.line, "%s params: "
				    "duplicate value '%s' for '%s'", p->label,
				    val, pp->name);
				return (-1);
			}
		}
		if ((pp->vals[pp->nvals] = strdup(val)) == NULL) {
			ini_error(&p->src, p->src.line, "out of memory");
			return (-1);
		}
		pp->nvals++;
	}
	*total *= pp->nvals;
	if (*total > SUITE_SWEEP_MAX) {
		ini_error(&p->src, p->src.line, "%s params: over %d "
		    "benchmarks (the values' product)", p->label,
		    SUITE_SWEEP_MAX);
		return (-1);
	}
	return (0);
}

/* Parses a params value: NAME=v1,v2,... items separated by blanks. */
static void
suite_params(struct suite_parse *p, const char *v)
{
	char	*copy, *item, *save = NULL;
	size_t	 total = 1;

	if ((copy = strdup(v)) == NULL) {
		ini_error(&p->src, p->src.line, "out of memory");
		return;
	}
	for (item = strtok_r(copy, " \t", &save); item != NULL;
	    item = strtok_r(NULL, " \t", &save)) {
		if (suite_param_item(p, item, &total) != 0)
			break;
	}
	if (!p->src.failed && p->nparams == 0)
		ini_error(&p->src, p->src.line, "%s params: empty (want "
		    "NAME=v1,v2,...)", p->label);
	p->params_line = p->src.line;
	free(copy);
}

/*
 * Returns arg with each {param:NAME} replaced by NAME's value at point
 * idx (idx NULL: only checks), or NULL with an unknown or unterminated
 * reference reported at line.
 */
static char *
suite_param_subst(struct suite_parse *p, const char *arg, const size_t *idx,
    int line)
{
	const char	*a, *end;
	char		*out, *o;
	size_t		 i, len, need = strlen(arg) + 1;

	/* Each reference is at least 8 bytes, each value at most 63. */
	for (a = arg; (a = strstr(a, "{param:")) != NULL; a++)
		need += PROTO_NAME_MAX;
	if ((out = malloc(need)) == NULL) {
		ini_error(&p->src, line, "out of memory");
		return (NULL);
	}
	for (a = arg, o = out; *a != '\0'; ) {
		if (strncmp(a, "{param:", 7) != 0) {
			*o++ = *a++;
			continue;
		}
		a += 7;
		if ((end = strchr(a, '}')) == NULL) {
			ini_error(&p->src, line, "%s args: unterminated "
			    "'{param:' in '%s'", p->label, arg);
			goto bad;
		}
		len = (size_t)(end - a);
		for (i = 0; i < p->nparams; i++) {
			if (strlen(p->params[i].name) == len &&
			    strncmp(p->params[i].name, a, len) == 0)
				break;
		}
		if (i == p->nparams) {
			ini_error(&p->src, line, "%s args: unknown parameter "
			    "'%.*s' in {param:%.*s}%s", p->label, (int)len, a,
			    (int)len, a, p->nparams == 0 ? " (no params = in "
			    "this benchmark)" : "");
			goto bad;
		}
		if (idx != NULL)
			o = stpcpy(o, p->params[i].vals[idx[i]]);
		a = end + 1;
	}
	*o = '\0';
	return (out);
bad:
	free(out);
	return (NULL);
}

/*
 * Copies hook t into nb for the sweep's point idx: its words with each
 * {param:NAME} replaced, its program as resolved.
 */
static int
suite_sweep_hook(struct suite_parse *p, const struct suite_hook *t,
    const size_t *idx, struct suite_hook *nb)
{
	size_t	i;

	nb->line = t->line;
	if (t->nargv == 0)
		return (0);
	if ((nb->argv = calloc(t->nargv + 1, sizeof *nb->argv)) == NULL ||
	    (t->bin != NULL && (nb->bin = strdup(t->bin)) == NULL) ||
	    (t->host != NULL && (nb->host = strdup(t->host)) == NULL)) {
		ini_error(&p->src, t->line, "out of memory");
		return (-1);
	}
	for (i = 0; i < t->nargv; i++) {
		if ((nb->argv[i] = suite_param_subst(p, t->argv[i], idx,
		    t->line)) == NULL)
			return (-1);
		nb->nargv = i + 1;
	}
	return (0);
}

/* Fills nb, a new benchmark at point idx of the sweep of template t. */
static int
suite_sweep_one(struct suite_parse *p, const struct suite_bench *t,
    const size_t *idx, struct suite_bench *nb)
{
	char	name[PROTO_NAME_MAX * 2], point[SUITE_PARAMS_MAX *
		    (SUITE_PARAM_NAME_MAX + PROTO_NAME_MAX + 2)];
	size_t	i, k, o = 0, q = 0;

	/* freed with the suite, even half-made */
	memset(nb, 0, sizeof *nb);
	point[0] = '\0';
	o = (size_t)snprintf(name, sizeof name, "%s", t->name);
	for (i = 0; i < p->nparams && o < sizeof name; i++) {
		o += (size_t)snprintf(name + o, sizeof name - o, ".%s-%s",
		    p->params[i].name, p->params[i].vals[idx[i]]);
		q += (size_t)snprintf(point + q, sizeof point - q, "%s%s=%s",
		    i > 0 ? " " : "", p->params[i].name,
		    p->params[i].vals[idx[i]]);
	}
	if (o >= PROTO_NAME_MAX) {
		ini_error(&p->src, p->params_line, "%s params: benchmark name "
		    "'%.*s' too long (at most %d characters: shorten the "
		    "benchmark's, the parameters' or the values' names)",
		    p->label, (int)(o < sizeof name ? o : sizeof name - 1),
		    name, PROTO_NAME_MAX - 1);
		return (-1);
	}
	for (i = 0; i < p->s->nbenches; i++) {
		if (strcmp(p->s->benches[i].name, name) == 0) {
			ini_error(&p->src, p->params_line, "%s params: "
			    "benchmark '%s' is also [bench.%s] (line %d)",
			    p->label, name, name, p->s->benches[i].line);
			return (-1);
		}
	}
	snprintf(nb->name, sizeof nb->name, "%s", name);
	snprintf(nb->sweep, sizeof nb->sweep, "%s", t->name);
	snprintf(nb->checksum, sizeof nb->checksum, "%s", t->checksum);
	nb->timeout_ms = t->timeout_ms;
	nb->line = t->line;
	if ((nb->point = strdup(point)) == NULL ||
	    (nb->args = calloc(t->nargs + 1, sizeof *nb->args)) == NULL ||
	    (nb->metrics = calloc(t->nmetrics, sizeof *nb->metrics)) ==
	    NULL || (t->nfiles > 0 && (nb->files = calloc(t->nfiles,
	    sizeof *nb->files)) == NULL)) {
		ini_error(&p->src, p->params_line, "out of memory");
		return (-1);
	}
	memcpy(nb->metrics, t->metrics, t->nmetrics * sizeof *nb->metrics);
	nb->nmetrics = t->nmetrics;
	for (nb->nargs = 0; nb->nargs < t->nargs; nb->nargs++) {
		nb->args[nb->nargs] = suite_param_subst(p, t->args[nb->nargs],
		    idx, p->seen[BK_ARGS]);
		if (nb->args[nb->nargs] == NULL)
			return (-1);
	}
	nb->threads = t->threads;
	for (k = 0; k < SUITE_NHOOKS; k++) {
		if (suite_sweep_hook(p, &t->hooks[k], idx, &nb->hooks[k]) != 0)
			return (-1);
	}
	for (nb->nfiles = 0; nb->nfiles < t->nfiles; nb->nfiles++) {
		nb->files[nb->nfiles] = t->files[nb->nfiles];
		if ((nb->files[nb->nfiles].path = strdup(
		    t->files[nb->nfiles].path)) == NULL) {
			ini_error(&p->src, p->params_line, "out of memory");
			return (-1);
		}
	}
	return (0);
}

/*
 * Ends the current benchmark's section: checks its {param:NAME}
 * references and, with params =, replaces it by one benchmark per point
 * of the sweep, NAME.P1-V1.P2-V2 (the name rule of proto/ident.h has no
 * '[' or '='), the last parameter changing fastest.
 */
static void
suite_sweep(struct suite_parse *p)
{
	struct suite		*s = p->s;
	struct suite_bench	 t;
	size_t			 idx[SUITE_PARAMS_MAX], total = 1, k, i, r;
	char			*chk;
	void			*na;

	for (i = 0; i < suite_cur_bench(p)->nargs; i++) {
		chk = suite_param_subst(p, suite_cur_bench(p)->args[i], NULL,
		    p->seen[BK_ARGS]);
		if (chk == NULL)
			return;
		free(chk);
	}
	if (p->nparams == 0)
		return;
	for (i = 0; i < p->nparams; i++)
		total *= p->params[i].nvals;
	if (s->nbenches - 1 + total > SUITE_BENCHES_MAX) {
		ini_error(&p->src, p->params_line, "%s params: too many "
		    "benchmarks in the suite (at most %d)", p->label,
		    SUITE_BENCHES_MAX);
		return;
	}
	if ((na = realloc(s->benches, (s->nbenches - 1 + total) *
	    sizeof *s->benches)) == NULL) {
		ini_error(&p->src, p->params_line, "out of memory");
		return;
	}
	s->benches = na;
	/* The template is the last benchmark; its points take its place. */
	t = s->benches[--s->nbenches];
	for (k = 0; k < total; k++) {
		for (r = k, i = p->nparams; i-- > 0; ) {
			idx[i] = r % p->params[i].nvals;
			r /= p->params[i].nvals;
		}
		if (suite_sweep_one(p, &t, idx, &s->benches[s->nbenches]) !=
		    0) {
			s->nbenches++;	/* freed with the suite */
			break;
		}
		s->nbenches++;
	}
	suite_free_words(t.args, t.nargs);
	for (i = 0; i < t.nfiles; i++)
		free(t.files[i].path);
	free(t.files);
	free(t.metrics);
	free(t.point);
	for (i = 0; i < SUITE_NHOOKS; i++) {
		suite_free_words(t.hooks[i].argv, t.hooks[i].nargv);
		free(t.hooks[i].bin);
		free(t.hooks[i].host);
	}
}

/* Handles one key of [bench.NAME]. */
static void
suite_key_bench(struct suite_parse *p, int k, const char *v)
{
	struct suite_bench	*b = suite_cur_bench(p);

	switch (k) {
	case BK_ARGS:
		if (suite_words(p, "args", v, &b->args, &b->nargs) != 0)
			return;
		if (p->seen[BK_FILES])
			suite_check_refs(p, p->src.line);
		else
			p->args_line = p->src.line;
		break;
	case BK_FILES:
		suite_files(p, v);
		if (!p->src.failed && p->args_line != 0) {
			suite_check_refs(p, p->args_line);
			p->args_line = 0;
		}
		break;
	case BK_METRICS:
		suite_metrics(p, v);
		if (!p->src.failed && p->better != NULL) {
			suite_better(p, p->better, p->better_line, 0);
			free(p->better);
			p->better = NULL;
		}
		break;
	case BK_BETTER:
		if (p->seen[BK_METRICS]) {
			suite_better(p, v, p->src.line, 0);
			break;
		}
		suite_better(p, v, p->src.line, 1);
		if (!p->src.failed && (p->better = strdup(v)) == NULL)
			ini_error(&p->src, p->src.line, "out of memory");
		p->better_line = p->src.line;
		break;
	case BK_CHECKSUM:
		if (!ini_name_ok(v, strlen(v), PROTO_NAME_MAX)) {
			ini_error(&p->src, p->src.line, "%s checksum: bad name "
			    "'%s' (want " SUITE_NAME_RULE ")", p->label, v);
			return;
		}
		snprintf(b->checksum, sizeof b->checksum, "%s", v);
		break;
	case BK_TIMEOUT:
		suite_timeout(p, v, &b->timeout_ms);
		break;
	case BK_THREADS:
	case BK_PARALLEL:
		suite_bench_threads(p, b, k == BK_PARALLEL, v);
		break;
	case BK_PREPARE:
		suite_hook(p, "prepare", v, &b->hooks[SUITE_HOOK_PREPARE]);
		break;
	case BK_SETUP:
		suite_hook(p, "setup", v, &b->hooks[SUITE_HOOK_SETUP]);
		break;
	case BK_CLEANUP:
		suite_hook(p, "cleanup", v, &b->hooks[SUITE_HOOK_CLEANUP]);
		break;
	case BK_PARAMS:
		suite_params(p, v);
		break;
	}
}

/* Appends KEY=VALUE to the current variant's settings; reports errors. */
static void
suite_setting(struct suite_parse *p, const char *key, const char *v)
{
	struct suite_variant	*var = suite_cur_variant(p);
	size_t			 have, add;
	char			*na;

	have = var->settings != NULL ? strlen(var->settings) : 0;
	add = strlen(key) + 1 + strlen(v) + 1;
	if ((na = realloc(var->settings, have + add + 1)) == NULL) {
		ini_error(&p->src, p->src.line, "out of memory");
		return;
	}
	snprintf(na + have, add + 1, "%s=%s\n", key, v);
	var->settings = na;
}

/* The inih handler: one key = value line of the current section. */
static int
suite_handler(void *user, const char *section, const char *key,
    const char *v)
{
	struct suite_parse	*p = user;
	const char *const	*keys;
	int			 k;

	(void)section;	/* truncated by inih; the reader tracks sections */
	if (p->src.failed)
		return (0);
	switch (p->sect) {
	case SECT_SUITE:
		keys = suite_suite_keys;
		break;
	case SECT_VARIANT:
		keys = suite_variant_keys;
		break;
	case SECT_BENCH:
		keys = suite_bench_keys;
		break;
	case SECT_CLAIM:
		keys = claims_keys;
		break;
	default:
		keys = NULL;	/* outside any section */
		break;
	}
	if ((k = ini_key(&p->src, p->label, keys, p->seen, key)) < 0)
		return (0);
	if (p->sect == SECT_VARIANT && k != VK_BIN)
		suite_setting(p, key, v);
	if (p->sect == SECT_SUITE) {
		p->suite_seen[k] = p->src.line;
		suite_key_suite(p, k, v);
	} else if (p->sect == SECT_VARIANT)
		suite_key_variant(p, k, v);
	else if (p->sect == SECT_CLAIM)
		claims_key(&p->src, &p->s->claims[p->idx], k, v);
	else
		suite_key_bench(p, k, v);
	return (!p->src.failed);
}

/* Finishes the current section: defaults and checks across its keys. */
static void
suite_section_end(void *arg)
{
	struct suite_parse	*p = arg;
	struct suite_bench	*b;

	if (p->src.failed)
		goto out;
	if (p->sect == SECT_CLAIM)
		claims_end(&p->src, &p->s->claims[p->idx]);
	if (p->sect == SECT_VARIANT && suite_cur_variant(p)->bin == NULL)
		ini_error(&p->src, p->sect_line, "%s missing bin", p->label);
	if (p->sect == SECT_BENCH) {
		b = suite_cur_bench(p);
		if (b->nmetrics == 0) {
			if ((b->metrics = calloc(1, sizeof *b->metrics)) ==
			    NULL) {
				ini_error(&p->src, p->sect_line, "out of "
				    "memory");
				goto out;
			}
			snprintf(b->metrics[0].name, PROTO_NAME_MAX, "wall_ns");
			b->nmetrics = 1;
		}
		if (p->args_line != 0)
			suite_check_refs(p, p->args_line);
		if (p->better != NULL)
			suite_better(p, p->better, p->better_line, 0);
		if (!p->src.failed)
			suite_sweep(p);
	}
out:
	suite_params_clear(p);
	free(p->better);
	p->better = NULL;
	p->better_line = p->args_line = 0;
	memset(p->seen, 0, sizeof p->seen);
	p->sect = SECT_NONE;
}

/* Starts a variant or bench section named name[0..len); reports errors. */
static void
suite_section_add(struct suite_parse *p, enum suite_sect sect,
    const char *name, size_t len)
{
	struct suite		*s = p->s;
	struct suite_variant	*v;
	struct suite_bench	*b;
	const char		*kind = sect == SECT_VARIANT ? "variant" :
				    "bench";
	size_t			 i, n = sect == SECT_VARIANT ? s->nvariants :
				    s->nbenches;
	int			 first = 0;
	void			*na;

	if (!ini_name_ok(name, len, PROTO_NAME_MAX)) {
		ini_error(&p->src, p->src.line, "[%s.%.*s] bad name '%.*s' "
		    "(want " SUITE_NAME_RULE ")", kind, (int)len, name,
		    (int)len, name);
		return;
	}
	for (i = 0; i < n; i++) {
		if (sect == SECT_VARIANT &&
		    strlen(s->variants[i].name) == len &&
		    memcmp(s->variants[i].name, name, len) == 0)
			first = s->variants[i].line;
		if (sect == SECT_BENCH && strlen(s->benches[i].name) == len &&
		    memcmp(s->benches[i].name, name, len) == 0)
			first = s->benches[i].line;
		/*
		 * A sweep's [bench.NAME] is taken, though NAME is not a bench.
		 */
		if (sect == SECT_BENCH && strlen(s->benches[i].sweep) == len &&
		    memcmp(s->benches[i].sweep, name, len) == 0)
			first = s->benches[i].line;
	}
	if (first != 0) {
		ini_error(&p->src, p->src.line, "duplicate section [%s.%.*s] "
		    "(first on line %d)", kind, (int)len, name, first);
		return;
	}
	if (n >= (sect == SECT_VARIANT ? SUITE_VARIANTS_MAX :
	    SUITE_BENCHES_MAX)) {
		ini_error(&p->src, p->src.line, "too many %s sections (at most "
		    "%d)", kind, sect == SECT_VARIANT ? SUITE_VARIANTS_MAX :
		    SUITE_BENCHES_MAX);
		return;
	}
	if (sect == SECT_VARIANT) {
		if ((na = realloc(s->variants, (n + 1) * sizeof *v)) == NULL)
			goto nomem;
		s->variants = na;
		v = &s->variants[s->nvariants++];
		memset(v, 0, sizeof *v);
		memcpy(v->name, name, len);
		v->line = p->src.line;
	} else {
		if ((na = realloc(s->benches, (n + 1) * sizeof *b)) == NULL)
			goto nomem;
		s->benches = na;
		b = &s->benches[s->nbenches++];
		memset(b, 0, sizeof *b);
		memcpy(b->name, name, len);
		b->timeout_ms = SUITE_TIMEOUT_UNSET;
		b->line = p->src.line;
	}
	p->sect = sect;
	p->idx = n;
	p->sect_line = p->src.line;
	snprintf(p->label, sizeof p->label, "[%s.%.*s]", kind, (int)len, name);
	return;
nomem:
	ini_error(&p->src, p->src.line, "out of memory");
}

/* Starts [suite], [variant.NAME] or [bench.NAME] from its name a[0..n). */
static void
suite_section(void *arg, const char *a, size_t n)
{
	struct suite_parse	*p = arg;

	if (n == 5 && memcmp(a, "suite", 5) == 0) {
		if (p->suite_line != 0) {
			ini_error(&p->src, p->src.line, "duplicate section "
			    "[suite] (first on line %d)", p->suite_line);
			return;
		}
		p->suite_line = p->sect_line = p->src.line;
		p->sect = SECT_SUITE;
		snprintf(p->label, sizeof p->label, "[suite]");
	} else if (n >= 8 && memcmp(a, "variant.", 8) == 0)
		suite_section_add(p, SECT_VARIANT, a + 8, n - 8);
	else if (n >= 6 && memcmp(a, "bench.", 6) == 0)
		suite_section_add(p, SECT_BENCH, a + 6, n - 6);
	else if (n >= 6 && memcmp(a, "claim.", 6) == 0) {
		if (claims_add(&p->src, p->s, a + 6, n - 6) != NULL) {
			p->sect = SECT_CLAIM;
			p->idx = p->s->nclaims - 1;
			p->sect_line = p->src.line;
			snprintf(p->label, sizeof p->label, "[claim.%s]",
			    p->s->claims[p->idx].name);
		}
	} else
		ini_error(&p->src, p->src.line, "unknown section [%.*s] (want "
		    "[suite], [variant.NAME], [bench.NAME] or [claim.NAME])",
		    (int)n, a);
}

/* Sets the suite's default name: the file's basename without ".ini". */
static void
suite_default_name(struct suite *s, const char *path)
{
	const char	*b = strrchr(path, '/');
	size_t		 n, i;

	b = b != NULL ? b + 1 : path;
	n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".ini") == 0)
		n -= 4;
	if (n >= sizeof s->name)
		n = sizeof s->name - 1;
	/* Each byte as the second of a name: '-' and '.' stay but first. */
	for (i = 0; i < n; i++) {
		char	two[2] = { 'a', b[i] };

		s->name[i] = ini_name_ok(two, 2, PROTO_NAME_MAX) &&
		    (i > 0 || (b[i] != '-' && b[i] != '.')) ? b[i] : '_';
	}
	s->name[n] = '\0';
	if (n == 0)
		snprintf(s->name, sizeof s->name, "suite");
}

/* Returns the file's last line (1 for an empty file), for messages. */
static int
suite_last_line(const struct suite_parse *p)
{
	size_t	i;
	int	n = 1;

	for (i = 0; p->src.text != NULL && i < p->src.len; i++) {
		if (p->src.text[i] == '\n' && i + 1 < p->src.len)
			n++;
	}
	return (n);
}

/*
 * Checks the adaptive keys together: min_rounds, max_rounds and budget
 * belong to rounds = auto, and min_rounds may not pass max_rounds. An
 * adaptive suite plans up to max_rounds (s->rounds).
 */
static void
suite_finish_auto(struct suite_parse *p)
{
	struct suite	*s = p->s;
	static const int keys[] = { SK_MIN_ROUNDS, SK_MAX_ROUNDS, SK_BUDGET };
	size_t		 i;

	if (!s->auto_rounds) {
		for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			if (p->suite_seen[keys[i]] == 0)
				continue;
			ini_error(&p->src, p->suite_seen[keys[i]], "[suite] %s "
			    "needs rounds = auto (rounds is %u)",
			    suite_suite_keys[keys[i]], s->rounds);
			return;
		}
		return;
	}
	if (s->min_rounds > s->max_rounds) {
		ini_error(&p->src, p->suite_seen[SK_MIN_ROUNDS] != 0 ?
		    p->suite_seen[SK_MIN_ROUNDS] : p->suite_seen[SK_MAX_ROUNDS],
		    "[suite] min_rounds %u is above max_rounds %u",
		    s->min_rounds, s->max_rounds);
		return;
	}
	s->rounds = s->max_rounds;
}

/*
 * Returns the value of parameter name[0..len) at bench b's point, or
 * NULL when b does not sweep it; *vlen gets its length.
 */
static const char *
suite_point_value(const struct suite_bench *b, const char *name, size_t len,
    size_t *vlen)
{
	const char	*p;

	for (p = b->point; p != NULL && *p != '\0'; p += strcspn(p, " ")) {
		p += strspn(p, " ");
		if (strncmp(p, name, len) == 0 && p[len] == '=') {
			*vlen = strcspn(p + len + 1, " ");
			return (p + len + 1);
		}
	}
	return (NULL);
}

char *
suite_point_subst(const struct suite_bench *b, const char *arg)
{
	const char	*a, *end, *v;
	char		*out, *o;
	size_t		 vlen, need = strlen(arg) + 1;

	for (a = arg; (a = strstr(a, "{param:")) != NULL; a++)
		need += PROTO_NAME_MAX;
	if ((out = malloc(need)) == NULL)
		return (NULL);
	for (a = arg, o = out; *a != '\0'; ) {
		if (strncmp(a, "{param:", 7) == 0 &&
		    (end = strchr(a + 7, '}')) != NULL &&
		    (v = suite_point_value(b, a + 7, (size_t)(end - a - 7),
		    &vlen)) != NULL) {
			memcpy(o, v, vlen);
			o += vlen;
			a = end + 1;
		} else
			*o++ = *a++;
	}
	*o = '\0';
	return (out);
}

/*
 * Checks each {param:NAME} in a variant's args: every benchmark must
 * sweep NAME (params =), which then gives its value at each point.
 * Returns 0, or -1 with the error reported at the variant's line.
 */
static int
suite_variant_params(struct suite_parse *p)
{
	const struct suite		*s = p->s;
	const struct suite_variant	*sv;
	const char			*a, *end;
	size_t				 v, i, b, vlen;

	for (v = 0; v < s->nvariants; v++) {
		sv = &s->variants[v];
		for (i = 0; i < sv->nargs; i++) {
			for (a = sv->args[i]; (a = strstr(a, "{param:")) !=
			    NULL; a++) {
				if ((end = strchr(a + 7, '}')) == NULL) {
					ini_error(&p->src, sv->line, "%s args: "
					    "unterminated '{param:' in '%s'",
					    p->label, sv->args[i]);
					return (-1);
				}
				for (b = 0; b < s->nbenches; b++) {
					if (suite_point_value(&s->benches[b],
					    a + 7, (size_t)(end - a - 7),
					    &vlen) == NULL)
						break;
				}
				if (b == s->nbenches)
					continue;
				ini_error(&p->src, sv->line, "[variant.%s] "
				    "args: {param:%.*s} is no parameter of "
				    "[bench.%s] (a variant's {param:NAME} "
				    "needs every benchmark to sweep NAME)",
				    sv->name, (int)(end - a - 7), a + 7,
				    s->benches[b].sweep[0] != '\0' ?
				    s->benches[b].sweep : s->benches[b].name);
				return (-1);
			}
		}
	}
	return (0);
}

/* Checks across sections once the whole file is read. */
static void
suite_finish(struct suite_parse *p)
{
	struct suite	*s = p->s;
	size_t		 i;

	for (i = 0; i < s->nbenches; i++) {
		if (s->benches[i].timeout_ms == SUITE_TIMEOUT_UNSET)
			s->benches[i].timeout_ms = p->timeout_ms;
	}
	if (p->ref_line != 0) {
		for (i = 0; i < s->nvariants; i++) {
			if (strcmp(s->variants[i].name, p->ref) == 0)
				break;
		}
		if (i == s->nvariants) {
			ini_error(&p->src, p->ref_line, "[suite] reference "
			    "'%s' is not a variant", p->ref);
			return;
		}
		s->ref = i;
	}
	suite_finish_auto(p);
	/* [suite] is optional: every one of its keys has a default. */
	if (s->nvariants == 0)
		ini_error(&p->src, suite_last_line(p), "no [variant.NAME] "
		    "section: a suite compares at least 2 variants");
	else if (s->nvariants == 1)
		ini_error(&p->src, s->variants[0].line, "[variant.%s] is the "
		    "only variant: a suite compares at least 2",
		    s->variants[0].name);
	else if (s->nbenches == 0)
		ini_error(&p->src, suite_last_line(p), "no [bench.NAME] "
		    "section: a suite runs at least one benchmark");
	else if (suite_variant_params(p) == 0)
		claims_finish(&p->src, s);
}

/*
 * Takes text as the suite's instead of reading path: a copy, checked as
 * ini_read checks a file. Returns 0, or -1 with the error reported.
 */
static int
suite_use_text(struct ini_src *src, const char *text)
{
	size_t	len = strlen(text);

	if (len > SUITE_FILE_MAX) {
		ini_error(src, 0, "file too large (over %d bytes)",
		    SUITE_FILE_MAX);
		return (-1);
	}
	if ((src->text = strdup(text)) == NULL) {
		ini_error(src, 0, "out of memory");
		return (-1);
	}
	src->len = len;
	return (0);
}

static int	suite_parse(const char *, const char *, int, struct suite **,
		    char **);

/* Loads and checks a suite file (see suite.h). */
int
suite_load(const char *path, struct suite **out, char **cause)
{
	return (suite_parse(path, NULL, 0, out, cause));
}

/* Loads and checks a suite given as text (see suite.h). */
int
suite_load_text(const char *path, const char *text, struct suite **out,
    char **cause)
{
	return (suite_parse(path, text, 0, out, cause));
}

/* Loads a recorded suite's names and sweeps (see suite.h). */
int
suite_load_names(const char *path, const char *text, struct suite **out,
    char **cause)
{
	return (suite_parse(path, text, 1, out, cause));
}

/* Loads a suite from its file or its text, checking files unless names_only. */
static int
suite_parse(const char *path, const char *text, int names_only,
    struct suite **out, char **cause)
{
	struct suite_parse	 p;
	struct suite		*s = NULL;
	const char		*slash;
	int			 r = -1, rc;

	memset(&p, 0, sizeof p);
	*out = NULL;
	*cause = NULL;
	ini_init(&p.src, path, suite_section_end, suite_section, &p);
	if ((s = calloc(1, sizeof *s)) == NULL ||
	    (s->path = strdup(path)) == NULL) {
		ini_error(&p.src, 0, "out of memory");
		goto out;
	}
	p.s = s;
	p.names_only = names_only;
	s->rounds = 10;
	s->warmup = 1;
	s->min_effect = 0.01;
	s->max_load = DEFAULT_MAX_LOAD;
	s->load_wait_s = 600;
	s->retries = 2;
	s->subtract_floor = 1;
	s->linger_s = 3600;
	s->env_pad = SUITE_ENV_PAD_DEFAULT;
	s->settle_ms = SUITE_SETTLE_DEFAULT;
	s->min_rounds = SUITE_MIN_ROUNDS;
	s->max_rounds = SUITE_MAX_ROUNDS;
	suite_default_name(s, path);
	if ((slash = strrchr(path, '/')) != NULL &&
	    (p.dir = strndup(path, slash == path ? 1 : (size_t)(slash -
	    path))) == NULL) {
		ini_error(&p.src, 0, "out of memory");
		goto out;
	}
	rc = text != NULL ? suite_use_text(&p.src, text) :
	    ini_read(&p.src, SUITE_FILE_MAX, 0);
	s->text = p.src.text;	/* kept, as run; suite_free() frees it */
	if (rc != 0)
		goto out;

	if (ini_run(&p.src, suite_handler, &p) != 0)
		goto out;
	suite_finish(&p);
	if (p.src.failed)
		goto out;
	*out = s;
	s = NULL;
	r = 0;
out:
	if (r != 0)
		*cause = ini_cause(&p.src);
	free(p.src.cause);
	free(p.better);
	free(p.dir);
	suite_params_clear(&p);
	suite_free(s);
	return (r);
}

/* Frees a suite and everything it owns; NULL is ok. */
void
suite_free(struct suite *s)
{
	size_t	i, j;

	if (s == NULL)
		return;
	for (i = 0; i < s->nvariants; i++) {
		free(s->variants[i].bin);
		free(s->variants[i].host);
		free(s->variants[i].settings);
		suite_free_words(s->variants[i].args, s->variants[i].nargs);
		suite_free_words(s->variants[i].env, s->variants[i].nenv);
	}
	free(s->variants);
	for (i = 0; i < s->nbenches; i++) {
		suite_free_words(s->benches[i].args, s->benches[i].nargs);
		for (j = 0; j < s->benches[i].nfiles; j++)
			free(s->benches[i].files[j].path);
		free(s->benches[i].files);
		free(s->benches[i].metrics);
		for (j = 0; j < SUITE_NHOOKS; j++) {
			suite_free_words(s->benches[i].hooks[j].argv,
			    s->benches[i].hooks[j].nargv);
			free(s->benches[i].hooks[j].bin);
			free(s->benches[i].hooks[j].host);
		}
		free(s->benches[i].point);
	}
	free(s->benches);
	claims_free(s);
	free(s->path);
	free(s->text);
	free(s);
}
