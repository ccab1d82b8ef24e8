/*
 * The run record's loader, DIR/samples.msgpack into a struct dataset, and
 * the queries over a loaded dataset.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <msgpack.h>

#include "coordinator/input/suite.h"
#include "coordinator/store/dataset.h"
#include "proto/ident.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

#define RECORD_MAX	(4UL << 30)	/* refuse to load a record above 4 GiB */
#define RECORD_DROP_STEP (16UL << 20)	/* release parsed pages in 16 MiB steps */

/*
 * What a record may claim: no more than a suite or an inventory can ask
 * for (suite.c, main.c), so a valid record always loads and a crafted one
 * cannot make the analysis allocate for billions of rounds or cells.
 */
#define RECORD_ROUNDS_MAX	100000	/* suite "rounds", --rounds */
#define RECORD_WARMUP_MAX	1000	/* suite "warmup" */
#define RECORD_VARIANTS_MAX	64	/* SUITE_VARIANTS_MAX */
#define RECORD_BENCHES_MAX	1024	/* SUITE_BENCHES_MAX */
#define RECORD_HOSTS_MAX	1024
#define RECORD_HOST_NAME	64	/* sizeof host.name, with its NUL */
#define RECORD_RUN_ID		64	/* sizeof run.run_id, with its NUL */
/* Hosts x (benchmark, metric) pairs x variants: the analysis' results. */
#define RECORD_RESULTS_MAX	(1UL << 18)

const char *const ds_builtin_names[DS_NBUILTIN] = {
	"wall_ns", "user_ns", "sys_ns", "maxrss_kb", "nvcsw", "nivcsw"
};

/* ---- loading ---------------------------------------------------------- */

struct rec_ctx {
	struct dataset	*ds;
	const char	*path;
	size_t		 index;		/* record number, for messages */
	char		*cause;
};

/*
 * The dataset's arena: what a million samples own (their metrics and
 * strings) comes from a few large chunks, freed together, instead of
 * millions of mallocs.
 */
struct ds_chunk {
	struct ds_chunk	*next;
	size_t		 used, size;
	max_align_t	 data[];
};

#define DS_CHUNK	(1024 * 1024)

static void *
ds_alloc(struct dataset *ds, size_t n)
{
	struct ds_chunk	*c = ds->arena;
	size_t		 size;
	void		*p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (c == NULL || c->size - c->used < n) {
		size = n > DS_CHUNK ? n : DS_CHUNK;
		c = xmalloc(sizeof *c + size);
		c->used = 0;
		c->size = size;
		c->next = ds->arena;
		ds->arena = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return (p);
}

/*
 * Returns the dataset's copy of the len bytes at p as a string, one copy
 * per distinct value: samples repeat the same few checksums and errors.
 */
static const char *
ds_intern(struct dataset *ds, const char *p, size_t len)
{
	uint64_t	 h = 1469598103934665603ULL;
	size_t		 i, j, cap;
	char		**t, *s;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	if (ds->nstrs + 1 > ds->strs_cap / 2) {
		cap = ds->strs_cap ? ds->strs_cap * 2 : 64;
		t = xcalloc(cap, sizeof *t);
		for (i = 0; i < ds->strs_cap; i++) {
			uint64_t	g = 1469598103934665603ULL;
			const char	*q;

			if ((s = ds->strs[i]) == NULL)
				continue;
			for (q = s; *q != '\0'; q++)
				g = (g ^ (unsigned char)*q) * 1099511628211ULL;
			for (j = g & (cap - 1); t[j] != NULL; j = (j + 1) & (cap - 1))
				;
			t[j] = s;
		}
		free(ds->strs);
		ds->strs = t;
		ds->strs_cap = cap;
	}
	for (j = h & (ds->strs_cap - 1); (s = ds->strs[j]) != NULL;
	    j = (j + 1) & (ds->strs_cap - 1)) {
		if (strncmp(s, p, len) == 0 && s[len] == '\0')
			return (s);
	}
	s = ds_alloc(ds, len + 1);
	memcpy(s, p, len);
	s[len] = '\0';
	ds->strs[j] = s;
	ds->nstrs++;
	return (s);
}

/*
 * Returns the value of key in map o, or NULL. Records of a kind share
 * their layout, so where each key was found last is tried first: a
 * million samples' lookups cost one comparison each, not a scan.
 */
static const msgpack_object *
rec_get(const msgpack_object *o, const char *key)
{
	static _Thread_local uint32_t	 hint[128];
	const msgpack_object		*k;
	size_t				 i, len = strlen(key);
	uint32_t			*h = &hint[(uintptr_t)key % 127];

	if (o->type != MSGPACK_OBJECT_MAP)
		return (NULL);
	if (*h < o->via.map.size) {
		k = &o->via.map.ptr[*h].key;
		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == len &&
		    memcmp(k->via.str.ptr, key, len) == 0)
			return (&o->via.map.ptr[*h].val);
	}
	for (i = 0; i < o->via.map.size; i++) {
		k = &o->via.map.ptr[i].key;
		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == len &&
		    memcmp(k->via.str.ptr, key, len) == 0) {
			*h = (uint32_t)i;
			return (&o->via.map.ptr[i].val);
		}
	}
	return (NULL);
}

static char *
rec_strdup_obj(const msgpack_object *v)
{
	char	*s;

	s = xmalloc(v->via.str.size + 1);
	memcpy(s, v->via.str.ptr, v->via.str.size);
	s[v->via.str.size] = '\0';
	return (s);
}

/* Fetches a string field; sets the cause and returns NULL when absent. */
static char *
rec_gstr(struct rec_ctx *c, const msgpack_object *o, const char *key)
{
	const msgpack_object	*v = rec_get(o, key);

	if (v == NULL || v->type != MSGPACK_OBJECT_STR) {
		if (c->cause == NULL)
			xasprintf(&c->cause, "%s: record %zu: field '%s' "
			    "missing or not a string", c->path, c->index, key);
		return (NULL);
	}
	return (rec_strdup_obj(v));
}

/* Fetches a string field into a fixed buffer ("" when absent). */
static void
rec_gbuf(const msgpack_object *o, const char *key, char *buf, size_t len)
{
	const msgpack_object	*v = rec_get(o, key);
	size_t			 n;

	buf[0] = '\0';
	if (v == NULL || v->type != MSGPACK_OBJECT_STR)
		return;
	n = v->via.str.size < len - 1 ? v->via.str.size : len - 1;
	memcpy(buf, v->via.str.ptr, n);
	buf[n] = '\0';
}

/*
 * Writes a string from the record into buf for a message: at most 64
 * bytes, anything but printable ASCII as '?', so that a hostile name
 * cannot put control sequences on the user's terminal.
 */
static void
rec_show(const char *p, size_t len, char *buf, size_t size)
{
	size_t	i, n = 0;

	for (i = 0; i < len && i < 64 && n + 4 < size; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\'')
			buf[n++] = p[i];
		else
			buf[n++] = '?';
	}
	if (i < len && n + 4 < size) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
}

/* Sets the cause for a name field that is not an identifier. */
static void
rec_bad_name(struct rec_ctx *c, const char *field, const char *p, size_t len,
    size_t size)
{
	char	shown[80];

	rec_show(p, len, shown, sizeof shown);
	if (c->cause == NULL)
		xasprintf(&c->cause, "%s: record %zu: field '%s' '%s' is not "
		    "a valid name (1 to %zu of A-Z a-z 0-9 _ . -, not "
		    "starting with - or .)", c->path, c->index, field, shown,
		    size - 1);
}

/*
 * Checks that v is a string holding an identifier shorter than size
 * (ident.h). Returns 0, or -1 with the cause naming field.
 */
static int
rec_ident(struct rec_ctx *c, const msgpack_object *v, const char *field,
    size_t size)
{
	if (v == NULL || v->type != MSGPACK_OBJECT_STR) {
		if (c->cause == NULL)
			xasprintf(&c->cause, "%s: record %zu: field '%s' "
			    "missing or not a string", c->path, c->index,
			    field);
		return (-1);
	}
	if (!ident_ok(v->via.str.ptr, v->via.str.size, size)) {
		rec_bad_name(c, field, v->via.str.ptr, v->via.str.size, size);
		return (-1);
	}
	return (0);
}

/*
 * Checks that the text of field is 1 to size-1 bytes without control
 * characters (it is shown on the terminal). Returns 0 or -1 (cause).
 */
static int
rec_plain(struct rec_ctx *c, const char *field, const char *s, size_t size)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			break;
	}
	if (i == 0 || s[i] != '\0' || i >= size) {
		xasprintf(&c->cause, "%s: record %zu: field '%s' is empty, "
		    "too long or has control characters", c->path, c->index,
		    field);
		return (-1);
	}
	return (0);
}

/* Fetches an identifier field into buf[size]; returns 0 or -1 (cause). */
static int
rec_gident(struct rec_ctx *c, const msgpack_object *o, const char *key,
    char *buf, size_t size)
{
	const msgpack_object	*v = rec_get(o, key);

	if (rec_ident(c, v, key, size) != 0)
		return (-1);
	memcpy(buf, v->via.str.ptr, v->via.str.size);
	buf[v->via.str.size] = '\0';
	return (0);
}

/* Fetches a number field as a double; returns 0 or -1 (cause set). */
static int
rec_gnum(struct rec_ctx *c, const msgpack_object *o, const char *key,
    double *out)
{
	const msgpack_object	*v = rec_get(o, key);

	if (v != NULL) {
		switch (v->type) {
		case MSGPACK_OBJECT_POSITIVE_INTEGER:
			*out = (double)v->via.u64;
			return (0);
		case MSGPACK_OBJECT_NEGATIVE_INTEGER:
			*out = (double)v->via.i64;
			return (0);
		case MSGPACK_OBJECT_FLOAT32:
		case MSGPACK_OBJECT_FLOAT64:
			*out = v->via.f64;
			return (0);
		default:
			break;
		}
	}
	if (c->cause == NULL)
		xasprintf(&c->cause, "%s: record %zu: field '%s' missing or "
		    "not a number", c->path, c->index, key);
	return (-1);
}

/* Fetches an unsigned integer field; returns 0 or -1 (cause set). */
static int
rec_guint(struct rec_ctx *c, const msgpack_object *o, const char *key,
    uint64_t *out)
{
	const msgpack_object	*v = rec_get(o, key);

	if (v != NULL && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		*out = v->via.u64;
		return (0);
	}
	if (c->cause == NULL)
		xasprintf(&c->cause, "%s: record %zu: field '%s' missing or "
		    "not an unsigned integer", c->path, c->index, key);
	return (-1);
}

/*
 * Fetches an unsigned integer field of at most max; returns 0 or -1 with
 * the cause naming the field and its value.
 */
static int
rec_gmax(struct rec_ctx *c, const msgpack_object *o, const char *key,
    uint64_t max, uint64_t *out)
{
	if (rec_guint(c, o, key, out) != 0)
		return (-1);
	if (*out > max) {
		if (c->cause == NULL)
			xasprintf(&c->cause, "%s: record %zu: field '%s' %llu "
			    "is out of range (at most %llu)", c->path,
			    c->index, key, (unsigned long long)*out,
			    (unsigned long long)max);
		return (-1);
	}
	return (0);
}

/* Fetches a number field that must lie in [min, max]; returns 0 or -1. */
static int
rec_gnum_in(struct rec_ctx *c, const msgpack_object *o, const char *key,
    double min, double max, double *out)
{
	if (rec_gnum(c, o, key, out) != 0)
		return (-1);
	if (!(*out >= min && *out <= max)) {
		if (c->cause == NULL)
			xasprintf(&c->cause, "%s: record %zu: field '%s' %g "
			    "is out of range (%g to %g)", c->path, c->index,
			    key, *out, min, max);
		return (-1);
	}
	return (0);
}

static int
rec_gint(struct rec_ctx *c, const msgpack_object *o, const char *key,
    int64_t *out)
{
	const msgpack_object	*v = rec_get(o, key);

	if (v != NULL && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    v->via.u64 <= INT64_MAX) {
		*out = (int64_t)v->via.u64;
		return (0);
	}
	if (v != NULL && v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*out = v->via.i64;
		return (0);
	}
	if (c->cause == NULL)
		xasprintf(&c->cause, "%s: record %zu: field '%s' missing or "
		    "not an integer", c->path, c->index, key);
	return (-1);
}

/* Returns the index of s in names[n], or -1. */
static long
rec_find(char **names, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return ((long)i);
	}
	return (-1);
}

long
dataset_host(const struct dataset *ds, const char *name)
{
	size_t	i;

	for (i = 0; i < ds->nhosts; i++) {
		if (strcmp(ds->hosts[i].name, name) == 0)
			return ((long)i);
	}
	return (-1);
}

long
dataset_metric(const struct dataset *ds, const char *name)
{
	size_t	i;

	for (i = 0; i < DS_NBUILTIN; i++) {
		if (strcmp(ds_builtin_names[i], name) == 0)
			return ((long)i);
	}
	for (i = 0; i < ds->nmnames; i++) {
		if (strcmp(ds->mnames[i], name) == 0)
			return ((long)(DS_NBUILTIN + i));
	}
	return (-1);
}

int
dataset_get(const struct ds_sample *s, long key, double *v)
{
	size_t	i;

	if (key < 0)
		return (-1);
	if (key < DS_NBUILTIN) {
		*v = (double)s->builtin[key];
		return (0);
	}
	for (i = 0; i < s->nmetrics; i++) {
		if (s->mkey[i] == (size_t)key - DS_NBUILTIN) {
			*v = s->mval[i];
			return (0);
		}
	}
	return (-1);
}

int
dataset_value(const struct dataset *ds, const struct ds_sample *s,
    const char *name, double *v)
{
	return (dataset_get(s, dataset_metric(ds, name), v));
}

/* Returns the host index for name, adding a host without facts if new. */
static size_t
rec_host(struct dataset *ds, const char *name)
{
	long		 i = dataset_host(ds, name);
	struct ds_host	*h;

	if (i >= 0)
		return ((size_t)i);
	ds->hosts = xreallocarray(ds->hosts, ds->nhosts + 1, sizeof *ds->hosts);
	h = &ds->hosts[ds->nhosts];
	memset(h, 0, sizeof *h);
	h->name = xstrdup(name);
	h->agent_version = xstrdup("");
	h->error = xstrdup("");
	h->pin = xstrdup("");
	h->max_load = -1;
	return (ds->nhosts++);
}

/*
 * Looks up or adds the host named by field key of o, which must be an
 * identifier; returns 0 with its index in *idx, or -1 (cause set).
 */
static int
rec_ghost(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o,
    const char *key, size_t *idx)
{
	char	name[RECORD_HOST_NAME];

	if (rec_gident(c, o, key, name, sizeof name) != 0)
		return (-1);
	if (dataset_host(ds, name) < 0 && ds->nhosts >= RECORD_HOSTS_MAX) {
		xasprintf(&c->cause, "%s: record %zu: more than %d hosts",
		    c->path, c->index, RECORD_HOSTS_MAX);
		return (-1);
	}
	*idx = rec_host(ds, name);
	return (0);
}

/* Returns 1 when names[0..n) holds s. */
static int
rec_dup(char *const *names, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return (1);
	}
	return (0);
}

/*
 * Long: a flat list of the run record's fields, each read and checked
 * where it enters; splitting it would only scatter the list.
 */
static int
rec_load_run(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	const msgpack_object	*v, *b, *m, *hi;
	uint64_t		 u;
	size_t			 i, j;

	if (rec_ident(c, rec_get(o, "run_id"), "run_id", RECORD_RUN_ID) != 0)
		return (-1);
	if ((ds->run_id = rec_gstr(c, o, "run_id")) == NULL ||
	    (ds->orch_version = rec_gstr(c, o, "orch_version")) == NULL ||
	    (ds->suite_name = rec_gstr(c, o, "suite")) == NULL ||
	    (ds->suite_path = rec_gstr(c, o, "suite_path")) == NULL ||
	    (ds->suite_text = rec_gstr(c, o, "suite_text")) == NULL ||
	    (ds->cmdline = rec_gstr(c, o, "cmdline")) == NULL ||
	    (ds->started = rec_gstr(c, o, "started")) == NULL ||
	    rec_guint(c, o, "seed", &ds->seed) != 0 ||
	    rec_gnum(c, o, "min_effect", &ds->min_effect) != 0)
		return (-1);
	/* Opened by --resume, and shown on the terminal. */
	if (rec_plain(c, "suite_path", ds->suite_path, PATH_MAX) != 0 ||
	    rec_plain(c, "started", ds->started, 64) != 0)
		return (-1);
	if (rec_gmax(c, o, "rounds", RECORD_ROUNDS_MAX, &u) != 0)
		return (-1);
	if (u < 1) {
		xasprintf(&c->cause, "%s: record %zu: field 'rounds' is 0",
		    c->path, c->index);
		return (-1);
	}
	ds->rounds = (uint32_t)u;
	if ((v = rec_get(o, "auto")) != NULL) {
		if (rec_gmax(c, o, "min_rounds", ds->rounds, &u) != 0)
			return (-1);
		if (u < 2) {
			xasprintf(&c->cause, "%s: record %zu: field "
			    "'min_rounds' is below 2", c->path, c->index);
			return (-1);
		}
		ds->min_rounds = (uint32_t)u;
		if (rec_gmax(c, o, "budget_s", 30 * 86400, &u) != 0)
			return (-1);
		ds->budget_s = (uint32_t)u;
		ds->auto_rounds = 1;
	}
	if (rec_gmax(c, o, "warmup", RECORD_WARMUP_MAX, &u) != 0)
		return (-1);
	ds->warmup = (uint32_t)u;
	if (rec_gmax(c, o, "reference", RECORD_VARIANTS_MAX, &u) != 0)
		return (-1);
	ds->ref = (size_t)u;
	if ((v = rec_get(o, "subtract_floor")) != NULL &&
	    v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		ds->subtract_floor = v->via.u64 != 0;
	free(ds->counters);
	if ((v = rec_get(o, "counters")) != NULL && v->type == MSGPACK_OBJECT_STR)
		ds->counters = rec_strdup_obj(v);
	else
		ds->counters = xstrdup("");
	v = rec_get(o, "variants");
	if (v == NULL || v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size < 1)
		goto bad;
	if (v->via.array.size > RECORD_VARIANTS_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'variants': %u "
		    "variants (at most %d)", c->path, c->index,
		    v->via.array.size, RECORD_VARIANTS_MAX);
		return (-1);
	}
	ds->variants = xcalloc(v->via.array.size, sizeof *ds->variants);
	for (i = 0; i < v->via.array.size; i++) {
		if (rec_ident(c, &v->via.array.ptr[i], "variants",
		    PROTO_NAME_MAX) != 0)
			return (-1);
		ds->variants[i] = rec_strdup_obj(&v->via.array.ptr[i]);
		ds->nvariants++;
		if (rec_dup(ds->variants, i, ds->variants[i])) {
			xasprintf(&c->cause, "%s: record %zu: field 'variants':"
			    " '%s' twice", c->path, c->index, ds->variants[i]);
			return (-1);
		}
	}
	if (ds->ref >= ds->nvariants)
		goto bad;
	/* Every host the run started on, whether or not it said hello. */
	v = rec_get(o, "hosts");
	if (v != NULL && v->type == MSGPACK_OBJECT_ARRAY) {
		if (v->via.array.size > RECORD_HOSTS_MAX) {
			xasprintf(&c->cause, "%s: record %zu: field 'hosts': "
			    "%u hosts (at most %d)", c->path, c->index,
			    v->via.array.size, RECORD_HOSTS_MAX);
			return (-1);
		}
		for (i = 0; i < v->via.array.size; i++) {
			char	*hn;

			if (rec_ident(c, &v->via.array.ptr[i], "hosts",
			    RECORD_HOST_NAME) != 0)
				return (-1);
			hn = rec_strdup_obj(&v->via.array.ptr[i]);
			rec_host(ds, hn);
			free(hn);
		}
	}
	v = rec_get(o, "benches");
	if (v == NULL || v->type != MSGPACK_OBJECT_ARRAY)
		goto bad;
	if (v->via.array.size > RECORD_BENCHES_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'benches': %u "
		    "benchmarks (at most %d)", c->path, c->index,
		    v->via.array.size, RECORD_BENCHES_MAX);
		return (-1);
	}
	ds->benches = xcalloc((size_t)v->via.array.size + 1,
	    sizeof *ds->benches);
	for (i = 0; i < v->via.array.size; i++) {
		struct ds_bench	*db = &ds->benches[i];

		b = &v->via.array.ptr[i];
		/* Counted first: dataset_free frees what is filled in. */
		ds->nbenches++;
		if (rec_ident(c, rec_get(b, "name"), "benches.name",
		    PROTO_NAME_MAX) != 0 ||
		    (db->name = rec_gstr(c, b, "name")) == NULL ||
		    (db->checksum = rec_gstr(c, b, "checksum")) == NULL)
			return (-1);
		for (j = 0; j < i; j++) {
			if (strcmp(ds->benches[j].name, db->name) == 0) {
				xasprintf(&c->cause, "%s: record %zu: field "
				    "'benches': '%s' twice", c->path, c->index,
				    db->name);
				return (-1);
			}
		}
		m = rec_get(b, "metrics");
		hi = rec_get(b, "higher");
		if (m == NULL || hi == NULL || m->type != MSGPACK_OBJECT_ARRAY ||
		    hi->type != MSGPACK_OBJECT_ARRAY ||
		    m->via.array.size != hi->via.array.size)
			goto bad;
		/* metrics[0], the primary one, is what every report shows. */
		if (m->via.array.size < 1 ||
		    m->via.array.size > PROTO_METRICS_MAX) {
			xasprintf(&c->cause, "%s: record %zu: benchmark '%s': "
			    "%u metrics (1 to %d)", c->path, c->index,
			    db->name, m->via.array.size, PROTO_METRICS_MAX);
			return (-1);
		}
		db->metrics = xcalloc((size_t)m->via.array.size + 1,
		    sizeof (char *));
		db->higher = xcalloc((size_t)m->via.array.size + 1,
		    sizeof (int));
		for (j = 0; j < m->via.array.size; j++) {
			if (rec_ident(c, &m->via.array.ptr[j],
			    "benches.metrics", PROTO_NAME_MAX) != 0)
				return (-1);
			if (hi->via.array.ptr[j].type != MSGPACK_OBJECT_BOOLEAN)
				goto bad;
			db->metrics[j] = rec_strdup_obj(&m->via.array.ptr[j]);
			db->nmetrics++;
			db->higher[j] = hi->via.array.ptr[j].via.boolean;
			if (rec_dup(db->metrics, j, db->metrics[j])) {
				xasprintf(&c->cause, "%s: record %zu: "
				    "benchmark '%s': metric '%s' twice",
				    c->path, c->index, db->name,
				    db->metrics[j]);
				return (-1);
			}
		}
	}
	return (0);
bad:
	xasprintf(&c->cause, "%s: record %zu: malformed run record", c->path,
	    c->index);
	return (-1);
}

static int
rec_load_host(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct ds_host		*h;
	const msgpack_object	*v;
	double			 d;
	size_t			 i, hi;

	if (rec_ghost(c, ds, o, "host", &hi) != 0)
		return (-1);
	h = &ds->hosts[hi];
	free(h->agent_version);
	h->agent_version = rec_gstr(c, o, "agent_version");
	if (h->agent_version == NULL) {
		h->agent_version = xstrdup("");
		return (-1);
	}
	rec_gbuf(o, "os", h->facts.os, sizeof h->facts.os);
	rec_gbuf(o, "arch", h->facts.arch, sizeof h->facts.arch);
	rec_gbuf(o, "cpu_model", h->facts.cpu_model, sizeof h->facts.cpu_model);
	rec_gbuf(o, "kernel", h->facts.kernel, sizeof h->facts.kernel);
	rec_gbuf(o, "hostname", h->facts.hostname, sizeof h->facts.hostname);
	rec_gbuf(o, "workdir", h->facts.workdir, sizeof h->facts.workdir);
	/* In range before the conversion: out of range it is undefined. */
	if (rec_gnum_in(c, o, "cores", 0, UINT32_MAX, &d) != 0)
		return (-1);
	h->facts.cores = (uint32_t)d;
	if (rec_gnum_in(c, o, "mem_kb", 0, 0x1p63, &d) != 0)
		return (-1);
	h->facts.mem_kb = (uint64_t)d;
	v = rec_get(o, "load");
	if (v != NULL && v->type == MSGPACK_OBJECT_ARRAY && v->via.array.size == 3) {
		for (i = 0; i < 3; i++) {
			if (v->via.array.ptr[i].type == MSGPACK_OBJECT_FLOAT64 ||
			    v->via.array.ptr[i].type == MSGPACK_OBJECT_FLOAT32)
				h->facts.load[i] = v->via.array.ptr[i].via.f64;
		}
	}
	v = rec_get(o, "extra");
	if (v != NULL && v->type == MSGPACK_OBJECT_MAP) {
		for (i = 0; i < v->via.map.size &&
		    h->facts.nextra < PROTO_FACTS_EXTRA_MAX; i++) {
			const msgpack_object_kv	*kv = &v->via.map.ptr[i];
			struct proto_kv		*e;
			size_t			 n;

			if (kv->key.type != MSGPACK_OBJECT_STR ||
			    kv->val.type != MSGPACK_OBJECT_STR)
				continue;
			e = &h->facts.extra[h->facts.nextra++];
			n = kv->key.via.str.size < sizeof e->key - 1 ?
			    kv->key.via.str.size : sizeof e->key - 1;
			memcpy(e->key, kv->key.via.str.ptr, n);
			e->key[n] = '\0';
			n = kv->val.via.str.size < sizeof e->value - 1 ?
			    kv->val.via.str.size : sizeof e->value - 1;
			memcpy(e->value, kv->val.via.str.ptr, n);
			e->value[n] = '\0';
		}
	}
	return (0);
}

static int	rec_sample_fields(struct rec_ctx *, const msgpack_object *,
		    struct ds_sample *, const char *);

/*
 * A host's plan settings, what a resume must send again and the report
 * says of the load gate. Returns 0 or -1 (cause set).
 */
static int
rec_load_plan(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct ds_host	*h;
	char		*pin;
	double		 d;
	size_t		 hi;

	if (rec_ghost(c, ds, o, "host", &hi) != 0)
		return (-1);
	h = &ds->hosts[hi];
	if (rec_gnum_in(c, o, "max_load", 0, 1e6, &h->max_load) != 0 ||
	    rec_gnum_in(c, o, "load_wait_ms", 0, UINT32_MAX, &d) != 0)
		return (-1);
	h->load_wait_ms = (uint32_t)d;
	if ((pin = rec_gstr(c, o, "pin")) == NULL)
		return (-1);
	/* It goes back on the wire (str[128]) when the run is resumed. */
	if (pin[0] != '\0' && rec_plain(c, "pin", pin, 128) != 0) {
		free(pin);
		return (-1);
	}
	free(h->pin);
	h->pin = pin;
	/* Optional; a resume starts the host's agent in it again. */
	free(h->workdir);
	h->workdir = NULL;
	if (rec_get(o, "workdir") != NULL) {
		if ((h->workdir = rec_gstr(c, o, "workdir")) == NULL)
			return (-1);
		if (h->workdir[0] != '\0' &&
		    rec_plain(c, "workdir", h->workdir, 512) != 0)
			return (-1);
	}
	h->has_plan = 1;
	return (0);
}

static int
rec_load_sample(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct ds_sample	*s;
	char			 bench[PROTO_NAME_MAX];
	char			 variant[PROTO_NAME_MAX], status[16];
	long			 b, vr;
	size_t			 i, hidx;

	if (rec_ghost(c, ds, o, "host", &hidx) != 0)
		return (-1);
	rec_gbuf(o, "bench", bench, sizeof bench);
	rec_gbuf(o, "status", status, sizeof status);
	if (strcmp(bench, RECORD_FLOOR) == 0) {
		if (ds->nfloors == ds->floors_cap) {
			ds->floors_cap = ds->floors_cap ?
			    ds->floors_cap * 2 : 256;
			ds->floors = xreallocarray(ds->floors, ds->floors_cap,
			    sizeof *ds->floors);
		}
		s = &ds->floors[ds->nfloors++];
		memset(s, 0, sizeof *s);
		s->err = "";
		s->host = hidx;
		return (rec_sample_fields(c, o, s, status));
	}
	if (rec_gident(c, o, "bench", bench, sizeof bench) != 0 ||
	    rec_gident(c, o, "variant", variant, sizeof variant) != 0)
		return (-1);
	b = -1;
	for (i = 0; i < ds->nbenches; i++) {
		if (strcmp(ds->benches[i].name, bench) == 0)
			b = (long)i;
	}
	vr = rec_find(ds->variants, ds->nvariants, variant);
	if (b < 0 || vr < 0) {
		xasprintf(&c->cause, "%s: record %zu: sample of unknown host, "
		    "bench or variant ('%s', '%s', '%s')", c->path, c->index,
		    ds->hosts[hidx].name, bench, variant);
		return (-1);
	}
	if (ds->nsamples == ds->samples_cap) {
		ds->samples_cap = ds->samples_cap ? ds->samples_cap * 2 : 1024;
		ds->samples = xreallocarray(ds->samples, ds->samples_cap,
		    sizeof *ds->samples);
	}
	s = &ds->samples[ds->nsamples];
	memset(s, 0, sizeof *s);
	s->host = hidx;
	s->bench = (size_t)b;
	s->variant = (size_t)vr;
	ds->nsamples++;
	s->err = "";
	return (rec_sample_fields(c, o, s, status));
}

/*
 * Reads the fields every sample has, floor or not.
 * Long: a flat list of a sample's fields, each checked (range, type) as it
 * is read.
 */
static int
rec_sample_fields(struct rec_ctx *c, const msgpack_object *o,
    struct ds_sample *s, const char *status)
{
	const msgpack_object	*v;
	uint64_t		 u;
	int64_t			 i64;
	long			 k;
	size_t			 i;
	struct dataset		*ds = c->ds;

	for (i = 0; i < 4; i++) {
		if (strcmp(status, proto_status_name((int)i)) == 0)
			s->status = (int)i;
	}
	if (rec_guint(c, o, "round", &u) != 0)
		return (-1);
	/* The analysis indexes its per-round arrays by it. */
	if (u > ds->rounds) {
		xasprintf(&c->cause, "%s: record %zu: field 'round' %llu is "
		    "beyond the run's rounds (%u)", c->path, c->index,
		    (unsigned long long)u, ds->rounds);
		return (-1);
	}
	s->round = (uint32_t)u;
	if (rec_gmax(c, o, "attempt", UINT32_MAX, &u) != 0)
		return (-1);
	s->attempt = (uint32_t)u;
	if (rec_gmax(c, o, "seq", UINT32_MAX, &u) != 0)
		return (-1);
	s->seq = (uint32_t)u;
	if (rec_guint(c, o, "warmup", &u) != 0)
		return (-1);
	s->warmup = u != 0;
	if (rec_gint(c, o, "exit", &i64) != 0)
		return (-1);
	if (i64 < INT_MIN || i64 > INT_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'exit' %lld is "
		    "out of range", c->path, c->index, (long long)i64);
		return (-1);
	}
	s->exit_code = (int)i64;
	if (rec_gint(c, o, "signal", &i64) != 0)
		return (-1);
	if (i64 < INT_MIN || i64 > INT_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'signal' %lld is "
		    "out of range", c->path, c->index, (long long)i64);
		return (-1);
	}
	s->signal = (int)i64;
	if (rec_gint(c, o, "start_ns", &s->start_ns) != 0)
		return (-1);
	if ((v = rec_get(o, "step")) != NULL &&
	    v->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		if (rec_gmax(c, o, "step", UINT32_MAX, &u) != 0)
			return (-1);
		s->step = (uint32_t)u;
	}
	if (rec_gnum(c, o, "load1", &s->load1) != 0)
		return (-1);
	for (i = 0; i < DS_NBUILTIN; i++) {
		if (rec_guint(c, o, ds_builtin_names[i], &s->builtin[i]) != 0)
			return (-1);
	}
	v = rec_get(o, "err");
	if (v == NULL || v->type != MSGPACK_OBJECT_STR) {
		xasprintf(&c->cause, "%s: record %zu: field 'err' missing or "
		    "not a string", c->path, c->index);
		return (-1);
	}
	s->err = ds_intern(ds, v->via.str.ptr, v->via.str.size);
	v = rec_get(o, "checksum");
	if (v != NULL && v->type == MSGPACK_OBJECT_STR)
		s->checksum = ds_intern(ds, v->via.str.ptr, v->via.str.size);
	v = rec_get(o, "metrics");
	if (v != NULL && v->type == MSGPACK_OBJECT_MAP &&
	    v->via.map.size > PROTO_METRICS_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'metrics': %u "
		    "metrics (at most %d)", c->path, c->index, v->via.map.size,
		    PROTO_METRICS_MAX);
		return (-1);
	}
	if (v != NULL && v->type == MSGPACK_OBJECT_MAP && v->via.map.size > 0) {
		s->mkey = ds_alloc(ds, v->via.map.size * sizeof *s->mkey);
		s->mval = ds_alloc(ds, v->via.map.size * sizeof *s->mval);
		for (i = 0; i < v->via.map.size; i++) {
			const msgpack_object_kv	*kv = &v->via.map.ptr[i];
			const char		*kp = kv->key.via.str.ptr;
			size_t			 kl = kv->key.via.str.size;

			if (kv->key.type != MSGPACK_OBJECT_STR ||
			    (kv->val.type != MSGPACK_OBJECT_FLOAT64 &&
			    kv->val.type != MSGPACK_OBJECT_FLOAT32))
				continue;
			if (!ident_ok(kp, kl, PROTO_NAME_MAX)) {
				rec_bad_name(c, "metrics", kp, kl,
				    PROTO_NAME_MAX);
				return (-1);
			}
			for (k = 0; k < (long)ds->nmnames; k++) {
				if (strncmp(ds->mnames[k], kp, kl) == 0 &&
				    ds->mnames[k][kl] == '\0')
					break;
			}
			if (k == (long)ds->nmnames) {
				ds->mnames = xreallocarray(ds->mnames,
				    ds->nmnames + 1, sizeof *ds->mnames);
				ds->mnames[ds->nmnames++] =
				    rec_strdup_obj(&kv->key);
			}
			s->mkey[s->nmetrics] = (size_t)k;
			s->mval[s->nmetrics++] = kv->val.via.f64;
		}
	}
	return (0);
}

/* A label record: a key (a name), a printable value, at most LABELS_MAX. */
static int
rec_load_label(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	char	*k, *v;
	size_t	 i;

	if ((k = rec_gstr(c, o, "key")) == NULL)
		return (-1);
	if ((v = rec_gstr(c, o, "value")) == NULL) {
		free(k);
		return (-1);
	}
	if (!ident_str_ok(k, LABEL_KEY_MAX)) {
		rec_bad_name(c, "key", k, strlen(k), LABEL_KEY_MAX);
		goto bad;
	}
	if (rec_plain(c, "value", v, LABEL_VALUE_MAX) != 0)
		goto bad;
	for (i = 0; i < ds->nlabels; i++) {
		if (strcmp(ds->label_keys[i], k) == 0) {
			xasprintf(&c->cause, "%s: record %zu: label '%s' "
			    "given twice", c->path, c->index, k);
			goto bad;
		}
	}
	if (ds->nlabels == LABELS_MAX) {
		xasprintf(&c->cause, "%s: record %zu: more than %d labels",
		    c->path, c->index, LABELS_MAX);
		goto bad;
	}
	ds->label_keys = xreallocarray(ds->label_keys, ds->nlabels + 1,
	    sizeof *ds->label_keys);
	ds->label_values = xreallocarray(ds->label_values, ds->nlabels + 1,
	    sizeof *ds->label_values);
	ds->label_keys[ds->nlabels] = k;
	ds->label_values[ds->nlabels++] = v;
	return (0);
bad:
	free(k);
	free(v);
	return (-1);
}

int
dataset_label_parse(const char *s, char **key, char **value, char **cause)
{
	char	*k, *eq;
	size_t	 i;

	*key = *value = NULL;
	k = xstrdup(s);
	if ((eq = strchr(k, '=')) == NULL) {
		xasprintf(cause, "--label '%.80s': not KEY=VALUE", s);
		goto bad;
	}
	*eq = '\0';
	if (!ident_str_ok(k, LABEL_KEY_MAX)) {
		xasprintf(cause, "--label '%.80s': the key '%.80s' is not a name "
		    "(1 to %d of A-Z a-z 0-9 _ . -, not starting with - or .)",
		    s, k, LABEL_KEY_MAX - 1);
		goto bad;
	}
	for (i = 0; eq[1 + i] != '\0'; i++) {
		if ((unsigned char)eq[1 + i] < 0x20 || eq[1 + i] == 0x7f)
			break;
	}
	if (i == 0 || eq[1 + i] != '\0' || i >= LABEL_VALUE_MAX) {
		xasprintf(cause, "--label %s: the value must be 1 to %d "
		    "printable bytes", k, LABEL_VALUE_MAX - 1);
		goto bad;
	}
	*key = k;
	*value = eq + 1;
	return (0);
bad:
	free(k);
	return (-1);
}

/* Long: the dispatch on a record's kind, with the checks every kind shares. */
static int
rec_load_one(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	char			 t[16], role[128];
	const msgpack_object	*v;
	struct ds_file		*f;
	struct ds_host		*h;
	size_t			 hidx;

	rec_gbuf(o, "t", t, sizeof t);
	if (c->index == 0 && strcmp(t, "run") != 0) {
		xasprintf(&c->cause, "%s: the first record is not a run "
		    "record: not an orch record", c->path);
		return (-1);
	}
	if (strcmp(t, "run") == 0) {
		if (c->index != 0) {
			xasprintf(&c->cause, "%s: record %zu: a second run "
			    "record", c->path, c->index);
			return (-1);
		}
		return (rec_load_run(c, ds, o));
	}
	if (strcmp(t, "host") == 0)
		return (rec_load_host(c, ds, o));
	if (strcmp(t, "sample") == 0)
		return (rec_load_sample(c, ds, o));
	if (strcmp(t, "file") == 0) {
		if (rec_ghost(c, ds, o, "host", &hidx) != 0)
			return (-1);
		rec_gbuf(o, "role", role, sizeof role);
		ds->files = xreallocarray(ds->files, ds->nfiles + 1,
		    sizeof *ds->files);
		f = &ds->files[ds->nfiles];
		memset(f, 0, sizeof *f);
		f->host = hidx;
		f->role = xstrdup(role);
		if ((v = rec_get(o, "fresh")) != NULL &&
		    v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
			f->fresh = v->via.u64 != 0;
		if ((f->variant = rec_gstr(c, o, "variant")) == NULL ||
		    (f->path = rec_gstr(c, o, "path")) == NULL ||
		    (f->sha = rec_gstr(c, o, "sha256")) == NULL ||
		    (rec_get(o, "host_prog") != NULL && ((f->host_prog =
		    rec_gstr(c, o, "host_prog")) == NULL ||
		    (f->version = rec_gstr(c, o, "version")) == NULL))) {
			ds->nfiles++;
			return (-1);
		}
		ds->nfiles++;
		if (f->variant[0] != '\0' &&
		    !ident_str_ok(f->variant, PROTO_NAME_MAX)) {
			rec_bad_name(c, "variant", f->variant,
			    strlen(f->variant), PROTO_NAME_MAX);
			return (-1);
		}
		return (0);
	}
	if (strcmp(t, "hostend") == 0) {
		if (rec_ghost(c, ds, o, "host", &hidx) != 0)
			return (-1);
		h = &ds->hosts[hidx];
		h->ended = 1;
		if ((v = rec_get(o, "pushed_bytes")) != NULL &&
		    v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
			h->pushed_bytes = v->via.u64;
		if ((v = rec_get(o, "pushed_files")) != NULL &&
		    v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
			h->pushed_files = v->via.u64;
		rec_gbuf(o, "status", role, sizeof role);
		h->failed = strcmp(role, "ok") != 0;
		free(h->error);
		if ((v = rec_get(o, "error")) != NULL &&
		    v->type == MSGPACK_OBJECT_STR)
			h->error = rec_strdup_obj(v);
		else
			h->error = xstrdup("");
		return (0);
	}
	if (strcmp(t, "state") == 0) {
		struct ds_note	*nt;
		double		 d = 0;

		if (rec_ghost(c, ds, o, "host", &hidx) != 0)
			return (-1);
		ds->notes = xreallocarray(ds->notes, ds->nnotes + 1,
		    sizeof *ds->notes);
		nt = &ds->notes[ds->nnotes++];
		memset(nt, 0, sizeof *nt);
		nt->host = hidx;
		if ((nt->state = rec_gstr(c, o, "state")) == NULL)
			nt->state = xstrdup("");
		if ((nt->detail = rec_gstr(c, o, "detail")) == NULL)
			nt->detail = xstrdup("");
		if (rec_gnum(c, o, "load1", &nt->load1) != 0 ||
		    rec_gnum_in(c, o, "waited_ms", 0, UINT32_MAX, &d) != 0)
			return (-1);
		nt->waited_ms = (uint32_t)d;
		return (c->cause != NULL ? -1 : 0);
	}
	if (strcmp(t, "resume") == 0) {
		ds->resumed++;
		return (0);
	}
	if (strcmp(t, "opts") == 0)
		return (rec_gnum_in(c, o, "max_load", -1, 1e6,
		    &ds->opt_max_load));
	if (strcmp(t, "plan") == 0)
		return (rec_load_plan(c, ds, o));
	if (strcmp(t, "label") == 0)
		return (rec_load_label(c, ds, o));
	if (strcmp(t, "detach") == 0) {
		ds->detached++;
		free(ds->detached_at);
		if ((ds->detached_at = rec_gstr(c, o, "at")) == NULL) {
			ds->detached_at = xstrdup("");
			return (-1);
		}
		return (rec_plain(c, "at", ds->detached_at, 64));
	}
	if (strcmp(t, "end") == 0) {
		free(ds->ended);
		if ((ds->ended = rec_gstr(c, o, "ended")) == NULL)
			return (-1);
		/* "" is the end of a run that ended before it began. */
		if (ds->ended[0] == '\0')
			return (0);
		return (rec_plain(c, "ended", ds->ended, 64));
	}
	log_debug("%s: record %zu: unknown type '%s' ignored", c->path,
	    c->index, t);
	return (0);
}

/*
 * Checks that the analysis of ds has a size orch can render: hosts x
 * (benchmark, metric) pairs x variants results. Returns 0 or -1 (cause).
 */
static int
rec_check_size(struct rec_ctx *c, const struct dataset *ds)
{
	size_t	i, nm = 0;

	for (i = 0; i < ds->nbenches; i++)
		nm += ds->benches[i].nmetrics;
	/* Each factor is capped above: the product fits in 64 bits. */
	if ((uint64_t)ds->nhosts * nm * ds->nvariants > RECORD_RESULTS_MAX) {
		xasprintf(&c->cause, "%s: %zu hosts x %zu benchmark metrics x "
		    "%zu variants: more than %lu results to analyse", c->path,
		    ds->nhosts, nm, ds->nvariants, RECORD_RESULTS_MAX);
		return (-1);
	}
	return (0);
}

/*
 * Parses the recorded suite's text, once, for what the reports read of it
 * (its benchmarks' sweeps and threads, its variants' settings, its
 * claims). A text that does not parse (an older or a damaged record)
 * leaves ds->suite NULL and says why in ds->suite_error: the record
 * itself still loads.
 */
static void
rec_suite(struct dataset *ds)
{
	ds->suite_claims = strstr(ds->suite_text, "[claim.") != NULL;
	if (suite_load_names(ds->suite_path, ds->suite_text, &ds->suite,
	    &ds->suite_error) != 0) {
		ds->suite = NULL;
		if (ds->suite_error == NULL)
			ds->suite_error = xstrdup("out of memory");
	}
}

/* How deep a record may nest (see proto_scan). */
#define REC_DEPTH_MAX	16

/*
 * Long: open, map, walk and parse are one loop over the file, with one
 * exit that frees what any step took.
 */
int
record_load(const char *dir, struct dataset **out, char **cause)
{
	struct dataset		*ds = NULL;
	struct rec_ctx		 c;
	msgpack_unpacked	 u;
	struct stat		 st;
	char			 path[PATH_MAX], *buf = NULL;
	void			*map = NULL;
	size_t			 off = 0, got = 0, dropped = 0, pagesz;
	size_t			 objlen = 0;
	int			 fd = -1, r = -1, sr;
	msgpack_unpack_return	 ur;

	*out = NULL;
	memset(&c, 0, sizeof c);
	c.path = path;
	msgpack_unpacked_init(&u);
	snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
	/* Non-blocking: a FIFO planted there must not hang orch. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		xasprintf(&c.cause, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		xasprintf(&c.cause, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > RECORD_MAX) {
		xasprintf(&c.cause, "%s: larger than 4 GiB", path);
		goto out;
	}
	/*
	 * Mapped, not read: pages behind the parser are dropped as it goes,
	 * so a record of a million samples is never held twice in memory.
	 */
	got = (size_t)st.st_size;
	if (got > 0 && (map = mmap(NULL, got, PROT_READ, MAP_PRIVATE, fd,
	    0)) == MAP_FAILED) {
		map = NULL;
		xasprintf(&c.cause, "%s: %s", path, strerror(errno));
		goto out;
	}
	buf = map;
	pagesz = (size_t)sysconf(_SC_PAGESIZE);
	ds = xcalloc(1, sizeof *ds);
	ds->ended = xstrdup("");
	ds->counters = xstrdup("");
	ds->detached_at = xstrdup("");
	ds->opt_max_load = -1;
	c.ds = ds;
	while (off < got) {
		sr = proto_scan((const uint8_t *)buf + off, got - off,
		    REC_DEPTH_MAX, &objlen);
		if (sr == -1) {
			xasprintf(&c.cause, "%s: record %zu: not valid msgpack",
			    path, c.index);
			goto out;
		}
		/* Only what proto_scan found whole is handed to msgpack-c. */
		ur = sr == 1 ? MSGPACK_UNPACK_CONTINUE :
		    msgpack_unpack_next(&u, buf, off + objlen, &off);
		if (ur == MSGPACK_UNPACK_CONTINUE) {
			log_warnx("%s: the last record is cut short (%zu "
			    "bytes): ignored", path, got - off);
			ds->truncated = 1;
			break;
		}
		if (ur != MSGPACK_UNPACK_SUCCESS) {
			xasprintf(&c.cause, "%s: record %zu: not valid msgpack",
			    path, c.index);
			goto out;
		}
		if (u.data.type != MSGPACK_OBJECT_MAP) {
			xasprintf(&c.cause, "%s: record %zu: not a map", path,
			    c.index);
			goto out;
		}
		if (rec_load_one(&c, ds, &u.data) != 0)
			goto out;
		c.index++;
		ds->good_len = off;
		/* Everything before this record is copied out: let it go. */
		if (off - dropped >= RECORD_DROP_STEP) {
			size_t	to = (off / pagesz) * pagesz;

			if (to > dropped) {
				madvise(buf + dropped, to - dropped,
				    MADV_DONTNEED);
				dropped = to;
			}
		}
	}
	if (c.index == 0) {
		xasprintf(&c.cause, "%s: empty record", path);
		goto out;
	}
	if (rec_check_size(&c, ds) != 0)
		goto out;
	rec_suite(ds);
	*out = ds;
	ds = NULL;
	r = 0;
out:
	msgpack_unpacked_destroy(&u);
	if (fd != -1)
		close(fd);
	if (map != NULL)
		munmap(map, got);
	dataset_free(ds);
	if (r != 0)
		*cause = c.cause;
	return (r);
}

void
dataset_free(struct dataset *ds)
{
	size_t	i, j;

	if (ds == NULL)
		return;
	free(ds->run_id);
	free(ds->orch_version);
	free(ds->suite_name);
	free(ds->suite_path);
	free(ds->suite_text);
	suite_free(ds->suite);
	free(ds->suite_error);
	free(ds->cmdline);
	free(ds->started);
	free(ds->ended);
	free(ds->detached_at);
	for (i = 0; i < ds->nlabels; i++) {
		free(ds->label_keys[i]);
		free(ds->label_values[i]);
	}
	free(ds->label_keys);
	free(ds->label_values);
	for (i = 0; i < ds->nvariants; i++)
		free(ds->variants[i]);
	free(ds->variants);
	for (i = 0; i < ds->nbenches; i++) {
		free(ds->benches[i].name);
		free(ds->benches[i].checksum);
		for (j = 0; j < ds->benches[i].nmetrics; j++)
			free(ds->benches[i].metrics[j]);
		free(ds->benches[i].metrics);
		free(ds->benches[i].higher);
	}
	free(ds->benches);
	for (i = 0; i < ds->nhosts; i++) {
		free(ds->hosts[i].name);
		free(ds->hosts[i].agent_version);
		free(ds->hosts[i].error);
		free(ds->hosts[i].pin);
		free(ds->hosts[i].workdir);
	}
	free(ds->hosts);
	for (i = 0; i < ds->nfiles; i++) {
		free(ds->files[i].variant);
		free(ds->files[i].role);
		free(ds->files[i].path);
		free(ds->files[i].sha);
		free(ds->files[i].host_prog);
		free(ds->files[i].version);
	}
	free(ds->files);
	free(ds->samples);
	free(ds->floors);
	while (ds->arena != NULL) {
		struct ds_chunk	*c = ds->arena;

		ds->arena = c->next;
		free(c);
	}
	free(ds->strs);
	for (i = 0; i < ds->nnotes; i++) {
		free(ds->notes[i].state);
		free(ds->notes[i].detail);
	}
	free(ds->notes);
	free(ds->counters);
	for (i = 0; i < ds->nmnames; i++)
		free(ds->mnames[i]);
	free(ds->mnames);
	free(ds);
}

char *
dataset_host_list(const struct dataset *ds, int unfinished)
{
	char	*list;
	size_t	 i, len = 1;

	for (i = 0; i < ds->nhosts; i++)
		len += strlen(ds->hosts[i].name) + 1;
	list = xcalloc(1, len);
	for (i = 0; i < ds->nhosts; i++) {
		if (unfinished && ds->hosts[i].ended)
			continue;
		if (list[0] != '\0')
			strcat(list, ",");
		strcat(list, ds->hosts[i].name);
	}
	return (list);
}
