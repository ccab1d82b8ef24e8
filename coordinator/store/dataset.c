/*
 * The run record's loader, DIR/samples.msgpack into a struct dataset, and
 * the queries over a loaded dataset.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
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
#include "coordinator/store/entry.h"
#include "proto/ident.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

#define RECORD_MAX	(4UL << 30)	/* refuse to load a
					   record above 4 GiB */
#define RECORD_DROP_STEP (16UL << 20)	/* release parsed pages
					   in 16 MiB steps */

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

_Static_assert(DS_NBUILTIN == ENTRY_NBUILTIN, "a sample's built-in metrics");

const char *const ds_builtin_names[DS_NBUILTIN] = {
	"wall_ns", "user_ns", "sys_ns", "maxrss_kb", "nvcsw", "nivcsw"
};

/* ---- loading ---------------------------------------------------------- */

struct rec_ctx {
	struct dataset	*ds;
	const char	*path;
	size_t		 index;		/* record number, for messages */
	char		*cause;
	size_t		 skipped;	/* samples beyond the run's rounds */
};

#define REC_SKIP_TOLD	10	/* skipped samples named one by one */

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
			for (j = g & (cap - 1); t[j] != NULL;
			    j = (j + 1) & (cap - 1))
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

/* Returns a copy of the len bytes at p as a string. */
static char *
rec_strdup(const char *p, size_t len)
{
	char	*s;

	s = xmalloc(len + 1);
	memcpy(s, p, len);
	s[len] = '\0';
	return (s);
}

static char *
rec_strdup_obj(const msgpack_object *v)
{
	return (rec_strdup(v->via.str.ptr, v->via.str.size));
}

/* Returns a copy of an entry's string. */
static char *
rec_dupe(const struct entry_str *s)
{
	return (rec_strdup(s->p, s->len));
}

/* Copies an entry's string into a fixed buffer ("" when it has none). */
static void
rec_sbuf(const struct entry_str *s, int has, char *buf, size_t len)
{
	size_t	n;

	buf[0] = '\0';
	if (has != ENTRY_HAS)
		return;
	n = s->len < len - 1 ? s->len : len - 1;
	memcpy(buf, s->p, n);
	buf[n] = '\0';
}

/* Sets the cause for field key, missing or not of kind k; returns -1. */
static int
rec_want(struct rec_ctx *c, const char *key, enum entry_kind k)
{
	if (c->cause == NULL)
		xasprintf(&c->cause, "%s: record %zu: field '%s' missing or "
		    "not %s", c->path, c->index, key, entry_want(k));
	return (-1);
}

/*
 * Reads record o into entry e by type t (entry.h). Returns 0, or -1 with
 * the cause naming the first field missing or of another kind.
 */
static int
rec_read(struct rec_ctx *c, const struct entry_type *t,
    const msgpack_object *o, void *e)
{
	const struct entry_field	*bad;

	if (entry_read(t, o, e, &bad) == 0)
		return (0);
	return (rec_want(c, bad->name, bad->kind));
}

/* Checks that an unsigned field key is at most max; returns 0 or -1. */
static int
rec_max(struct rec_ctx *c, const char *key, uint64_t v, uint64_t max)
{
	if (v > max) {
		if (c->cause == NULL)
			xasprintf(&c->cause, "%s: record %zu: field '%s' %llu "
			    "is out of range (at most %llu)", c->path,
			    c->index, key, (unsigned long long)v,
			    (unsigned long long)max);
		return (-1);
	}
	return (0);
}

/* Checks that a number field key lies in [min, max]; returns 0 or -1. */
static int
rec_in(struct rec_ctx *c, const char *key, double v, double min, double max)
{
	if (!(v >= min && v <= max)) {
		if (c->cause == NULL)
			xasprintf(&c->cause, "%s: record %zu: field '%s' %g "
			    "is out of range (%g to %g)", c->path, c->index,
			    key, v, min, max);
		return (-1);
	}
	return (0);
}

/* Checks that an integer field key fits an int; returns 0 or -1. */
static int
rec_int(struct rec_ctx *c, const char *key, int64_t v, int *out)
{
	if (v < INT_MIN || v > INT_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field '%s' %lld is "
		    "out of range", c->path, c->index, key, (long long)v);
		return (-1);
	}
	*out = (int)v;
	return (0);
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

/*
 * Checks that the entry string s of field (has: ENTRY_HAS, or it has
 * none) is an identifier shorter than size and copies it into buf[size].
 * Returns 0, or -1 with the cause naming field.
 */
static int
rec_name(struct rec_ctx *c, const char *field, const struct entry_str *s,
    int has, char *buf, size_t size)
{
	if (has != ENTRY_HAS)
		return (rec_want(c, field, ENTRY_STR));
	if (!ident_ok(s->p, s->len, size)) {
		rec_bad_name(c, field, s->p, s->len, size);
		return (-1);
	}
	memcpy(buf, s->p, s->len);
	buf[s->len] = '\0';
	return (0);
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
 * Looks up or adds the host named by the entry string s of field key,
 * which must be an identifier; returns 0 with its index in *idx, or -1
 * (cause set).
 */
static int
rec_ghost(struct rec_ctx *c, struct dataset *ds, const struct entry_str *s,
    const char *key, size_t *idx)
{
	char	name[RECORD_HOST_NAME];

	if (rec_name(c, key, s, ENTRY_HAS, name, sizeof name) != 0)
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

/* Sets the cause for a run record that is not one; returns -1. */
static int
rec_malformed(struct rec_ctx *c)
{
	xasprintf(&c->cause, "%s: record %zu: malformed run record", c->path,
	    c->index);
	return (-1);
}

/* The run's variants, v: 1 to RECORD_VARIANTS_MAX distinct names. */
static int
rec_run_variants(struct rec_ctx *c, struct dataset *ds,
    const msgpack_object *v)
{
	size_t	i;

	if (v == NULL || v->type != MSGPACK_OBJECT_ARRAY ||
	    v->via.array.size < 1)
		return (rec_malformed(c));
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
		return (rec_malformed(c));
	return (0);
}

/* Every host the run started on, v, whether or not it said hello. */
static int
rec_run_hosts(struct rec_ctx *c, struct dataset *ds, const msgpack_object *v)
{
	char	*hn;
	size_t	 i;

	if (v == NULL || v->type != MSGPACK_OBJECT_ARRAY)
		return (0);
	if (v->via.array.size > RECORD_HOSTS_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'hosts': %u hosts "
		    "(at most %d)", c->path, c->index, v->via.array.size,
		    RECORD_HOSTS_MAX);
		return (-1);
	}
	for (i = 0; i < v->via.array.size; i++) {
		if (rec_ident(c, &v->via.array.ptr[i], "hosts",
		    RECORD_HOST_NAME) != 0)
			return (-1);
		hn = rec_strdup_obj(&v->via.array.ptr[i]);
		rec_host(ds, hn);
		free(hn);
	}
	return (0);
}

/* Benchmark i of the run, b: its name, checksum and metrics. */
static int
rec_run_bench(struct rec_ctx *c, struct dataset *ds, const msgpack_object *b,
    size_t i)
{
	struct ds_bench		*db = &ds->benches[i];
	const msgpack_object	*m, *hi, *v;
	size_t			 j;

	if (rec_ident(c, entry_get(b, "name"), "benches.name",
	    PROTO_NAME_MAX) != 0)
		return (-1);
	db->name = rec_strdup_obj(entry_get(b, "name"));
	if ((v = entry_get(b, "checksum")) == NULL ||
	    v->type != MSGPACK_OBJECT_STR)
		return (rec_want(c, "checksum", ENTRY_STR));
	db->checksum = rec_strdup_obj(v);
	for (j = 0; j < i; j++) {
		if (strcmp(ds->benches[j].name, db->name) == 0) {
			xasprintf(&c->cause, "%s: record %zu: field 'benches': "
			    "'%s' twice", c->path, c->index, db->name);
			return (-1);
		}
	}
	m = entry_get(b, "metrics");
	hi = entry_get(b, "higher");
	if (m == NULL || hi == NULL || m->type != MSGPACK_OBJECT_ARRAY ||
	    hi->type != MSGPACK_OBJECT_ARRAY ||
	    m->via.array.size != hi->via.array.size)
		return (rec_malformed(c));
	/* metrics[0], the primary one, is what every report shows. */
	if (m->via.array.size < 1 || m->via.array.size > PROTO_METRICS_MAX) {
		xasprintf(&c->cause, "%s: record %zu: benchmark '%s': %u "
		    "metrics (1 to %d)", c->path, c->index, db->name,
		    m->via.array.size, PROTO_METRICS_MAX);
		return (-1);
	}
	db->metrics = xcalloc((size_t)m->via.array.size + 1, sizeof (char *));
	db->higher = xcalloc((size_t)m->via.array.size + 1, sizeof (int));
	for (j = 0; j < m->via.array.size; j++) {
		if (rec_ident(c, &m->via.array.ptr[j], "benches.metrics",
		    PROTO_NAME_MAX) != 0)
			return (-1);
		if (hi->via.array.ptr[j].type != MSGPACK_OBJECT_BOOLEAN)
			return (rec_malformed(c));
		db->metrics[j] = rec_strdup_obj(&m->via.array.ptr[j]);
		db->nmetrics++;
		db->higher[j] = hi->via.array.ptr[j].via.boolean;
		if (rec_dup(db->metrics, j, db->metrics[j])) {
			xasprintf(&c->cause, "%s: record %zu: benchmark '%s': "
			    "metric '%s' twice", c->path, c->index, db->name,
			    db->metrics[j]);
			return (-1);
		}
	}
	return (0);
}

/* The run's benchmarks, v: at most RECORD_BENCHES_MAX distinct ones. */
static int
rec_run_benches(struct rec_ctx *c, struct dataset *ds,
    const msgpack_object *v)
{
	size_t	i;

	if (v == NULL || v->type != MSGPACK_OBJECT_ARRAY)
		return (rec_malformed(c));
	if (v->via.array.size > RECORD_BENCHES_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'benches': %u "
		    "benchmarks (at most %d)", c->path, c->index,
		    v->via.array.size, RECORD_BENCHES_MAX);
		return (-1);
	}
	ds->benches = xcalloc((size_t)v->via.array.size + 1,
	    sizeof *ds->benches);
	for (i = 0; i < v->via.array.size; i++) {
		/* Counted first: dataset_free frees what is filled in. */
		ds->nbenches++;
		if (rec_run_bench(c, ds, &v->via.array.ptr[i], i) != 0)
			return (-1);
	}
	return (0);
}

/* rounds = auto (e has "auto"): its first look and its budget. */
static int
rec_run_auto(struct rec_ctx *c, struct dataset *ds, const struct entry_run *e)
{
	if (e->has_min_rounds != ENTRY_HAS)
		return (rec_want(c, "min_rounds", ENTRY_UINT));
	if (rec_max(c, "min_rounds", e->min_rounds, ds->rounds) != 0)
		return (-1);
	if (e->min_rounds < 2) {
		xasprintf(&c->cause, "%s: record %zu: field 'min_rounds' is "
		    "below 2", c->path, c->index);
		return (-1);
	}
	ds->min_rounds = (uint32_t)e->min_rounds;
	if (e->has_budget_s != ENTRY_HAS)
		return (rec_want(c, "budget_s", ENTRY_UINT));
	if (rec_max(c, "budget_s", e->budget_s, 30 * 86400) != 0)
		return (-1);
	ds->budget_s = (uint32_t)e->budget_s;
	ds->auto_rounds = 1;
	return (0);
}

/* The run record, first and once: the run, its suite and its settings. */
static int
rec_load_run(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_run	e;
	char			id[RECORD_RUN_ID];

	if (rec_read(c, &entry_run_type, o, &e) != 0 ||
	    rec_name(c, "run_id", &e.run_id, ENTRY_HAS, id, sizeof id) != 0)
		return (-1);
	ds->run_id = rec_dupe(&e.run_id);
	ds->orch_version = rec_dupe(&e.orch_version);
	ds->suite_name = rec_dupe(&e.suite);
	ds->suite_path = rec_dupe(&e.suite_path);
	ds->suite_text = rec_dupe(&e.suite_text);
	ds->cmdline = rec_dupe(&e.cmdline);
	ds->started = rec_dupe(&e.started);
	ds->seed = e.seed;
	ds->min_effect = e.min_effect;
	/* Opened by --resume, and shown on the terminal. */
	if (rec_plain(c, "suite_path", ds->suite_path, PATH_MAX) != 0 ||
	    rec_plain(c, "started", ds->started, 64) != 0 ||
	    rec_max(c, "rounds", e.rounds, RECORD_ROUNDS_MAX) != 0)
		return (-1);
	if (e.rounds < 1) {
		xasprintf(&c->cause, "%s: record %zu: field 'rounds' is 0",
		    c->path, c->index);
		return (-1);
	}
	ds->rounds = (uint32_t)e.rounds;
	if (e.has_auto != ENTRY_ABSENT && rec_run_auto(c, ds, &e) != 0)
		return (-1);
	if (rec_max(c, "warmup", e.warmup, RECORD_WARMUP_MAX) != 0 ||
	    rec_max(c, "reference", e.reference, RECORD_VARIANTS_MAX) != 0)
		return (-1);
	ds->warmup = (uint32_t)e.warmup;
	ds->ref = (size_t)e.reference;
	if (e.has_subtract_floor == ENTRY_HAS)
		ds->subtract_floor = e.subtract_floor != 0;
	free(ds->counters);
	ds->counters = e.has_counters == ENTRY_HAS ? rec_dupe(&e.counters) :
	    xstrdup("");
	if (rec_run_variants(c, ds, e.variants_o) != 0 ||
	    rec_run_hosts(c, ds, e.hosts_o) != 0 ||
	    rec_run_benches(c, ds, e.benches_o) != 0)
		return (-1);
	return (0);
}

/* Takes a host's other facts from the map v: strings to strings. */
static void
rec_host_extra(struct proto_facts *f, const msgpack_object *v)
{
	const msgpack_object_kv	*kv;
	struct proto_kv		*e;
	size_t			 i, n;

	for (i = 0; i < v->via.map.size && f->nextra < PROTO_FACTS_EXTRA_MAX;
	    i++) {
		kv = &v->via.map.ptr[i];
		if (kv->key.type != MSGPACK_OBJECT_STR ||
		    kv->val.type != MSGPACK_OBJECT_STR)
			continue;
		e = &f->extra[f->nextra++];
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

/* A host's facts, after its hello. */
static int
rec_load_host(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_host	 e;
	struct ds_host		*h;
	struct proto_facts	*f;
	const msgpack_object	*v;
	size_t			 i, hi;

	if (rec_read(c, &entry_host_type, o, &e) != 0 ||
	    rec_ghost(c, ds, &e.host, "host", &hi) != 0)
		return (-1);
	h = &ds->hosts[hi];
	f = &h->facts;
	free(h->agent_version);
	h->agent_version = rec_dupe(&e.agent_version);
	rec_sbuf(&e.os, e.has_os, f->os, sizeof f->os);
	rec_sbuf(&e.arch, e.has_arch, f->arch, sizeof f->arch);
	rec_sbuf(&e.cpu_model, e.has_cpu_model, f->cpu_model,
	    sizeof f->cpu_model);
	rec_sbuf(&e.kernel, e.has_kernel, f->kernel, sizeof f->kernel);
	rec_sbuf(&e.hostname, e.has_hostname, f->hostname, sizeof f->hostname);
	rec_sbuf(&e.workdir, e.has_workdir, f->workdir, sizeof f->workdir);
	/* Optional (since protocol 8): hosts that share a machine. */
	rec_sbuf(&e.machine, e.has_machine, f->machine, sizeof f->machine);
	/* In range before the conversion: out of range it is undefined. */
	if (rec_in(c, "cores", e.cores.d, 0, UINT32_MAX) != 0 ||
	    rec_in(c, "mem_kb", e.mem_kb.d, 0, 0x1p63) != 0)
		return (-1);
	f->cores = (uint32_t)e.cores.d;
	f->mem_kb = (uint64_t)e.mem_kb.d;
	if ((v = e.load_o) != NULL && v->type == MSGPACK_OBJECT_ARRAY &&
	    v->via.array.size == 3) {
		for (i = 0; i < 3; i++) {
			if (v->via.array.ptr[i].type ==
			    MSGPACK_OBJECT_FLOAT64 ||
			    v->via.array.ptr[i].type == MSGPACK_OBJECT_FLOAT32)
				f->load[i] = v->via.array.ptr[i].via.f64;
		}
	}
	if ((v = e.extra_o) != NULL && v->type == MSGPACK_OBJECT_MAP)
		rec_host_extra(f, v);
	return (0);
}

/*
 * A host's plan settings, what a resume must send again and the report
 * says of the load gate. Returns 0 or -1 (cause set).
 */
static int
rec_load_plan(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_plan	 e;
	struct ds_host		*h;
	char			*pin;
	size_t			 hi;

	if (rec_read(c, &entry_plan_type, o, &e) != 0 ||
	    rec_ghost(c, ds, &e.host, "host", &hi) != 0)
		return (-1);
	h = &ds->hosts[hi];
	if (rec_in(c, "max_load", e.max_load, 0, 1e6) != 0 ||
	    rec_in(c, "load_wait_ms", e.load_wait_ms.d, 0, UINT32_MAX) != 0)
		return (-1);
	h->max_load = e.max_load;
	h->load_wait_ms = (uint32_t)e.load_wait_ms.d;
	pin = rec_dupe(&e.pin);
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
	if (e.has_workdir == ENTRY_HAS) {
		h->workdir = rec_dupe(&e.workdir);
		if (h->workdir[0] != '\0' &&
		    rec_plain(c, "workdir", h->workdir, 512) != 0)
			return (-1);
	}
	h->has_plan = 1;
	return (0);
}

static int	rec_sample_fields(struct rec_ctx *, const struct entry_sample *,
		    struct ds_sample *);

/* One sample: of a benchmark and variant of the run, or of the floor. */
static int
rec_load_sample(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_sample	 e;
	struct ds_sample	*s;
	char			 bench[PROTO_NAME_MAX];
	char			 variant[PROTO_NAME_MAX];
	long			 b, vr;
	size_t			 i, hidx;

	if (rec_read(c, &entry_sample_type, o, &e) != 0 ||
	    rec_ghost(c, ds, &e.host, "host", &hidx) != 0)
		return (-1);
	/*
	 * A sample beyond the run's rounds (a hostile agent's, stored by an
	 * older orch) is no evidence: skipped, the rest of the record stays.
	 */
	if (e.round > ds->rounds) {
		if (c->skipped++ < REC_SKIP_TOLD)
			log_warnx("%s: record %zu: a sample of host %s for "
			    "round %llu, beyond the run's rounds (%u): "
			    "skipped", c->path, c->index, ds->hosts[hidx].name,
			    (unsigned long long)e.round, ds->rounds);
		return (0);
	}
	rec_sbuf(&e.bench, e.has_bench, bench, sizeof bench);
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
		return (rec_sample_fields(c, &e, s));
	}
	if (rec_name(c, "bench", &e.bench, e.has_bench, bench,
	    sizeof bench) != 0 || rec_name(c, "variant", &e.variant,
	    e.has_variant, variant, sizeof variant) != 0)
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
	return (rec_sample_fields(c, &e, s));
}

/* A sample's own metrics, the map v: names into ds->mnames. */
static int
rec_sample_metrics(struct rec_ctx *c, const msgpack_object *v,
    struct ds_sample *s)
{
	struct dataset		*ds = c->ds;
	const msgpack_object_kv	*kv;
	const char		*kp;
	size_t			 i, kl;
	long			 k;

	if (v == NULL || v->type != MSGPACK_OBJECT_MAP || v->via.map.size == 0)
		return (0);
	if (v->via.map.size > PROTO_METRICS_MAX) {
		xasprintf(&c->cause, "%s: record %zu: field 'metrics': %u "
		    "metrics (at most %d)", c->path, c->index, v->via.map.size,
		    PROTO_METRICS_MAX);
		return (-1);
	}
	s->mkey = ds_alloc(ds, v->via.map.size * sizeof *s->mkey);
	s->mval = ds_alloc(ds, v->via.map.size * sizeof *s->mval);
	for (i = 0; i < v->via.map.size; i++) {
		kv = &v->via.map.ptr[i];
		kp = kv->key.via.str.ptr;
		kl = kv->key.via.str.size;
		if (kv->key.type != MSGPACK_OBJECT_STR ||
		    (kv->val.type != MSGPACK_OBJECT_FLOAT64 &&
		    kv->val.type != MSGPACK_OBJECT_FLOAT32))
			continue;
		if (!ident_ok(kp, kl, PROTO_NAME_MAX)) {
			rec_bad_name(c, "metrics", kp, kl, PROTO_NAME_MAX);
			return (-1);
		}
		for (k = 0; k < (long)ds->nmnames; k++) {
			if (strncmp(ds->mnames[k], kp, kl) == 0 &&
			    ds->mnames[k][kl] == '\0')
				break;
		}
		if (k == (long)ds->nmnames) {
			ds->mnames = xreallocarray(ds->mnames, ds->nmnames + 1,
			    sizeof *ds->mnames);
			ds->mnames[ds->nmnames++] = rec_strdup_obj(&kv->key);
		}
		s->mkey[s->nmetrics] = (size_t)k;
		s->mval[s->nmetrics++] = kv->val.via.f64;
	}
	return (0);
}

/* Takes the fields every sample has, floor or not, from e into s. */
static int
rec_sample_fields(struct rec_ctx *c, const struct entry_sample *e,
    struct ds_sample *s)
{
	struct dataset	*ds = c->ds;
	char		 status[16];
	size_t		 i;

	rec_sbuf(&e->status, e->has_status, status, sizeof status);
	for (i = 0; i < 4; i++) {
		if (strcmp(status, proto_status_name((int)i)) == 0)
			s->status = (int)i;
	}
	/* The analysis indexes its per-round arrays by it. */
	if (e->round > ds->rounds) {
		xasprintf(&c->cause, "%s: record %zu: field 'round' %llu is "
		    "beyond the run's rounds (%u)", c->path, c->index,
		    (unsigned long long)e->round, ds->rounds);
		return (-1);
	}
	if (rec_max(c, "attempt", e->attempt, UINT32_MAX) != 0 ||
	    rec_max(c, "seq", e->seq, UINT32_MAX) != 0 ||
	    rec_int(c, "exit", e->exit_code, &s->exit_code) != 0 ||
	    rec_int(c, "signal", e->signal, &s->signal) != 0 ||
	    (e->has_step == ENTRY_HAS &&
	    rec_max(c, "step", e->step, UINT32_MAX) != 0))
		return (-1);
	s->round = (uint32_t)e->round;
	s->attempt = (uint32_t)e->attempt;
	s->seq = (uint32_t)e->seq;
	s->warmup = e->warmup != 0;
	s->start_ns = e->start_ns;
	if (e->has_step == ENTRY_HAS)
		s->step = (uint32_t)e->step;
	s->load1 = e->load1;
	memcpy(s->builtin, e->builtin, sizeof s->builtin);
	s->err = ds_intern(ds, e->err.p, e->err.len);
	if (e->has_checksum == ENTRY_HAS)
		s->checksum = ds_intern(ds, e->checksum.p, e->checksum.len);
	s->env_pad = -1;
	if (e->has_env_pad == ENTRY_HAS) {
		if (rec_max(c, "env_pad", e->env_pad, PROTO_ENV_PAD_MAX) != 0)
			return (-1);
		s->env_pad = (int32_t)e->env_pad;
	}
	return (rec_sample_metrics(c, e->metrics_o, s));
}

/* A file a host ran or read, or its own program. */
static int
rec_load_file(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_file	 e;
	struct ds_file		*f;
	char			 role[128];
	size_t			 hidx;

	if (rec_read(c, &entry_file_type, o, &e) != 0 ||
	    rec_ghost(c, ds, &e.host, "host", &hidx) != 0)
		return (-1);
	if (e.has_host_prog == ENTRY_HAS && e.has_version != ENTRY_HAS)
		return (rec_want(c, "version", ENTRY_STR));
	rec_sbuf(&e.role, e.has_role, role, sizeof role);
	ds->files = xreallocarray(ds->files, ds->nfiles + 1, sizeof *ds->files);
	f = &ds->files[ds->nfiles++];
	memset(f, 0, sizeof *f);
	f->host = hidx;
	f->role = xstrdup(role);
	f->fresh = e.has_fresh == ENTRY_HAS && e.fresh != 0;
	f->variant = rec_dupe(&e.variant);
	f->path = rec_dupe(&e.path);
	f->sha = rec_dupe(&e.sha256);
	if (e.has_host_prog == ENTRY_HAS) {
		f->host_prog = rec_dupe(&e.host_prog);
		f->version = rec_dupe(&e.version);
	}
	if (f->variant[0] != '\0' &&
	    !ident_str_ok(f->variant, PROTO_NAME_MAX)) {
		rec_bad_name(c, "variant", f->variant, strlen(f->variant),
		    PROTO_NAME_MAX);
		return (-1);
	}
	return (0);
}

/* A host finished: its status and error, what was pushed to it. */
static int
rec_load_hostend(struct rec_ctx *c, struct dataset *ds,
    const msgpack_object *o)
{
	struct entry_hostend	 e;
	struct ds_host		*h;
	char			 status[128];
	size_t			 hidx;

	if (rec_read(c, &entry_hostend_type, o, &e) != 0 ||
	    rec_ghost(c, ds, &e.host, "host", &hidx) != 0)
		return (-1);
	h = &ds->hosts[hidx];
	h->ended = 1;
	if (e.has_pushed_bytes == ENTRY_HAS)
		h->pushed_bytes = e.pushed_bytes;
	if (e.has_pushed_files == ENTRY_HAS)
		h->pushed_files = e.pushed_files;
	rec_sbuf(&e.status, e.has_status, status, sizeof status);
	h->failed = strcmp(status, "ok") != 0;
	free(h->error);
	h->error = e.has_error == ENTRY_HAS ? rec_dupe(&e.error) : xstrdup("");
	return (0);
}

/* What an agent said between samples: a load wait, a note. */
static int
rec_load_state(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_state	 e;
	struct ds_note		*nt;
	size_t			 hidx;

	if (rec_read(c, &entry_state_type, o, &e) != 0 ||
	    rec_ghost(c, ds, &e.host, "host", &hidx) != 0 ||
	    rec_in(c, "waited_ms", e.waited_ms.d, 0, UINT32_MAX) != 0)
		return (-1);
	ds->notes = xreallocarray(ds->notes, ds->nnotes + 1,
	    sizeof *ds->notes);
	nt = &ds->notes[ds->nnotes++];
	memset(nt, 0, sizeof *nt);
	nt->host = hidx;
	nt->state = rec_dupe(&e.state);
	nt->detail = rec_dupe(&e.detail);
	nt->load1 = e.load1;
	nt->waited_ms = (uint32_t)e.waited_ms.d;
	return (0);
}

/* The run was resumed: counted. */
static int
rec_load_resume(struct rec_ctx *c, struct dataset *ds,
    const msgpack_object *o)
{
	struct entry_at	e;

	if (rec_read(c, &entry_resume_type, o, &e) != 0)
		return (-1);
	ds->resumed++;
	return (0);
}

/* The command line's options that shape the plan: --max-load, --env-pad. */
static int
rec_load_opts(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_opts	e;

	if (rec_read(c, &entry_opts_type, o, &e) != 0 ||
	    rec_in(c, "max_load", e.max_load, -1, 1e6) != 0 ||
	    (e.has_env_pad == ENTRY_HAS &&
	    rec_max(c, "env_pad", e.env_pad, PROTO_ENV_PAD_MAX) != 0))
		return (-1);
	ds->opt_max_load = e.max_load;
	if (e.has_env_pad == ENTRY_HAS)
		ds->opt_env_pad = (int64_t)e.env_pad;
	return (0);
}

/* The coordinator was interrupted: when, the last time. */
static int
rec_load_detach(struct rec_ctx *c, struct dataset *ds,
    const msgpack_object *o)
{
	struct entry_at	e;

	if (rec_read(c, &entry_detach_type, o, &e) != 0)
		return (-1);
	ds->detached++;
	free(ds->detached_at);
	ds->detached_at = rec_dupe(&e.at);
	return (rec_plain(c, "at", ds->detached_at, 64));
}

/* The run's end. */
static int
rec_load_end(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_at	e;

	if (rec_read(c, &entry_end_type, o, &e) != 0)
		return (-1);
	free(ds->ended);
	ds->ended = rec_dupe(&e.at);
	/* "" is the end of a run that ended before it began. */
	if (ds->ended[0] == '\0')
		return (0);
	return (rec_plain(c, "ended", ds->ended, 64));
}

/*
 * Copies a Slurm word of an alloc record into buf[size]: 1 to size - 1
 * bytes of A-Z a-z 0-9 _ . - and those of extra, not starting with '-'
 * (a name orch passes to Slurm's commands again); empty only when
 * may_empty. Returns 0, or -1 with the cause naming field.
 */
static int
rec_slurm_word(struct rec_ctx *c, const char *field, const struct entry_str *s,
    const char *extra, int may_empty, char *buf, size_t size)
{
	size_t	i;

	for (i = 0; i < s->len; i++) {
		if (!isalnum((unsigned char)s->p[i]) && s->p[i] != '_' &&
		    s->p[i] != '.' && s->p[i] != '-' && (s->p[i] == '\0' ||
		    strchr(extra, s->p[i]) == NULL))
			break;
	}
	if (i != s->len || s->len >= size || (s->len == 0 && !may_empty) ||
	    (s->len > 0 && s->p[0] == '-')) {
		xasprintf(&c->cause, "%s: record %zu: field '%s' is not a "
		    "Slurm word (A-Z a-z 0-9 _ . -%s, at most %zu bytes)",
		    c->path, c->index, field, extra, size - 1);
		return (-1);
	}
	memcpy(buf, s->p, s->len);
	buf[s->len] = '\0';
	return (0);
}

/* The Slurm job behind a host: every field checked, once a host. */
static int
rec_load_alloc(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_alloc	 e;
	struct ds_slurm		*sl;
	size_t			 hidx;

	if (rec_read(c, &entry_alloc_type, o, &e) != 0 ||
	    rec_ghost(c, ds, &e.host, "host", &hidx) != 0)
		return (-1);
	if (ds->hosts[hidx].slurm != NULL) {
		xasprintf(&c->cause, "%s: record %zu: a second alloc for host "
		    "%s", c->path, c->index, ds->hosts[hidx].name);
		return (-1);
	}
	sl = xcalloc(1, sizeof *sl);
	ds->hosts[hidx].slurm = sl;
	if (rec_name(c, "cluster", &e.cluster, ENTRY_HAS, sl->cluster,
	    sizeof sl->cluster) != 0 ||
	    rec_slurm_word(c, "login", &e.login, "", 0, sl->login,
	    sizeof sl->login) != 0 ||
	    rec_slurm_word(c, "job_id", &e.job_id, "", 0, sl->job_id,
	    19) != 0 || strspn(sl->job_id, "0123456789") !=
	    strlen(sl->job_id) ||
	    rec_in(c, "component", (double)e.component, 0, 63) != 0 ||
	    rec_slurm_word(c, "node", &e.node, "", 0, sl->node,
	    sizeof sl->node) != 0 ||
	    rec_slurm_word(c, "node_addr", &e.node_addr, ":", 0,
	    sl->node_addr, sizeof sl->node_addr) != 0 ||
	    rec_slurm_word(c, "partition", &e.partition, "", 0, sl->partition,
	    sizeof sl->partition) != 0 ||
	    rec_slurm_word(c, "constraint", &e.constraint, "&|,*[]():", 1,
	    sl->constraint, sizeof sl->constraint) != 0 ||
	    rec_in(c, "timeout_s", (double)e.timeout_s, 1, 30 * 86400) != 0) {
		if (c->cause == NULL)
			xasprintf(&c->cause, "%s: record %zu: bad job_id",
			    c->path, c->index);
		return (-1);
	}
	rec_sbuf(&e.workdir, ENTRY_HAS, sl->workdir, sizeof sl->workdir);
	if (rec_plain(c, "workdir", sl->workdir, sizeof sl->workdir) != 0 ||
	    e.workdir.len >= sizeof sl->workdir)
		return (-1);
	sl->component = (uint32_t)e.component;
	sl->timeout_s = (uint32_t)e.timeout_s;
	sl->end_s = e.end_s;
	if (e.has_node_cpus == ENTRY_HAS && e.node_cpus <= UINT32_MAX)
		sl->node_cpus = (uint32_t)e.node_cpus;
	if (e.has_node_mem_mb == ENTRY_HAS)
		sl->node_mem_mb = e.node_mem_mb;
	if ((e.has_node_arch == ENTRY_HAS && rec_slurm_word(c, "node_arch",
	    &e.node_arch, "", 0, sl->node_arch, sizeof sl->node_arch) != 0) ||
	    (e.has_node_features == ENTRY_HAS && rec_slurm_word(c,
	    "node_features", &e.node_features, ",", 0, sl->node_features,
	    sizeof sl->node_features) != 0))
		return (-1);
	return (0);
}

/* A Slurm job was given back: every host of it is released. */
static int
rec_load_release(struct rec_ctx *c, struct dataset *ds,
    const msgpack_object *o)
{
	struct entry_release	 e;
	char			 cl[64], job[32], at[64];
	size_t			 i;

	if (rec_read(c, &entry_release_type, o, &e) != 0 ||
	    rec_name(c, "cluster", &e.cluster, ENTRY_HAS, cl, sizeof cl) != 0 ||
	    rec_slurm_word(c, "job_id", &e.job_id, "", 0, job, 19) != 0 ||
	    rec_slurm_word(c, "at", &e.at, ":", 0, at, sizeof at) != 0)
		return (-1);
	for (i = 0; i < ds->nhosts; i++) {
		if (ds->hosts[i].slurm != NULL &&
		    strcmp(ds->hosts[i].slurm->cluster, cl) == 0 &&
		    strcmp(ds->hosts[i].slurm->job_id, job) == 0)
			ds->hosts[i].slurm->released = 1;
	}
	return (0);
}

/* A label record: a key (a name), a printable value, at most LABELS_MAX. */
static int
rec_load_label(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	struct entry_label	 e;
	char			*k, *v;
	size_t			 i;

	if (rec_read(c, &entry_label_type, o, &e) != 0)
		return (-1);
	k = rec_dupe(&e.key);
	v = rec_dupe(&e.value);
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
		xasprintf(cause, "--label '%.80s': the key '%.80s' is not "
		    "a name (1 to %d of A-Z a-z 0-9 _ . -, not starting "
		    "with - or .)",
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

/* Each type of record and its loader; "run" first. */
static const struct {
	const struct entry_type	*type;
	int			(*load)(struct rec_ctx *, struct dataset *,
				    const msgpack_object *);
} rec_loaders[] = {
	{ &entry_run_type, rec_load_run },
	{ &entry_host_type, rec_load_host },
	{ &entry_sample_type, rec_load_sample },
	{ &entry_file_type, rec_load_file },
	{ &entry_hostend_type, rec_load_hostend },
	{ &entry_state_type, rec_load_state },
	{ &entry_resume_type, rec_load_resume },
	{ &entry_opts_type, rec_load_opts },
	{ &entry_plan_type, rec_load_plan },
	{ &entry_label_type, rec_load_label },
	{ &entry_detach_type, rec_load_detach },
	{ &entry_end_type, rec_load_end },
	{ &entry_alloc_type, rec_load_alloc },
	{ &entry_release_type, rec_load_release },
};

/* Loads one record by its type, "t"; a type orch does not know is skipped. */
static int
rec_load_one(struct rec_ctx *c, struct dataset *ds, const msgpack_object *o)
{
	const msgpack_object	*v = entry_get(o, "t");
	struct entry_str	 ts = { "", 0 };
	char			 t[16];
	size_t			 i;

	if (v != NULL && v->type == MSGPACK_OBJECT_STR) {
		ts.p = v->via.str.ptr;
		ts.len = v->via.str.size;
	}
	rec_sbuf(&ts, ENTRY_HAS, t, sizeof t);
	if (c->index == 0 && strcmp(t, "run") != 0) {
		xasprintf(&c->cause, "%s: the first record is not a run "
		    "record: not an orch record", c->path);
		return (-1);
	}
	if (c->index != 0 && strcmp(t, "run") == 0) {
		xasprintf(&c->cause, "%s: record %zu: a second run record",
		    c->path, c->index);
		return (-1);
	}
	for (i = 0; i < sizeof rec_loaders / sizeof rec_loaders[0]; i++) {
		if (strcmp(t, rec_loaders[i].type->t) == 0)
			return (rec_loaders[i].load(c, ds, o));
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
 * Opens and maps the record at c->path: *map (NULL when it is empty) and
 * its *len bytes. Returns 0, or -1 with the cause set.
 */
static int
rec_map(struct rec_ctx *c, char **map, size_t *len)
{
	struct stat	 st;
	void		*m = NULL;
	int		 fd, r = -1;

	*map = NULL;
	*len = 0;
	/* Non-blocking: a FIFO planted there must not hang orch. */
	if ((fd = open(c->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		xasprintf(&c->cause, "%s: %s", c->path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		xasprintf(&c->cause, "%s: not a regular file", c->path);
		goto out;
	}
	if ((uint64_t)st.st_size > RECORD_MAX) {
		xasprintf(&c->cause, "%s: larger than 4 GiB", c->path);
		goto out;
	}
	/*
	 * Mapped, not read: pages behind the parser are dropped as it goes,
	 * so a record of a million samples is never held twice in memory.
	 */
	if (st.st_size > 0 && (m = mmap(NULL, (size_t)st.st_size, PROT_READ,
	    MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		xasprintf(&c->cause, "%s: %s", c->path, strerror(errno));
		goto out;
	}
	if (st.st_size > 0) {
		*map = m;
		*len = (size_t)st.st_size;
	}
	r = 0;
out:
	if (fd != -1)
		close(fd);
	return (r);
}

/*
 * Parses the record buf[0..got) into c->ds, record by record, releasing
 * what is parsed as it goes. Returns 0, or -1 with the cause set.
 */
static int
rec_walk(struct rec_ctx *c, char *buf, size_t got)
{
	struct dataset		*ds = c->ds;
	msgpack_unpacked	 u;
	msgpack_unpack_return	 ur;
	size_t			 off = 0, dropped = 0, objlen = 0, to, pagesz;
	int			 sr, r = -1;

	msgpack_unpacked_init(&u);
	pagesz = (size_t)sysconf(_SC_PAGESIZE);
	while (off < got) {
		sr = proto_scan((const uint8_t *)buf + off, got - off,
		    REC_DEPTH_MAX, &objlen);
		if (sr == -1) {
			xasprintf(&c->cause, "%s: record %zu: not valid "
			    "msgpack", c->path, c->index);
			goto out;
		}
		/* Only what proto_scan found whole is handed to msgpack-c. */
		ur = sr == 1 ? MSGPACK_UNPACK_CONTINUE :
		    msgpack_unpack_next(&u, buf, off + objlen, &off);
		if (ur == MSGPACK_UNPACK_CONTINUE) {
			log_warnx("%s: the last record is cut short (%zu "
			    "bytes): ignored", c->path, got - off);
			ds->truncated = 1;
			break;
		}
		if (ur != MSGPACK_UNPACK_SUCCESS) {
			xasprintf(&c->cause, "%s: record %zu: not valid "
			    "msgpack", c->path, c->index);
			goto out;
		}
		if (u.data.type != MSGPACK_OBJECT_MAP) {
			xasprintf(&c->cause, "%s: record %zu: not a map",
			    c->path, c->index);
			goto out;
		}
		if (rec_load_one(c, ds, &u.data) != 0)
			goto out;
		c->index++;
		ds->good_len = off;
		/* Everything before this record is copied out: let it go. */
		to = (off / pagesz) * pagesz;
		if (off - dropped >= RECORD_DROP_STEP && to > dropped) {
			madvise(buf + dropped, to - dropped, MADV_DONTNEED);
			dropped = to;
		}
	}
	r = 0;
out:
	msgpack_unpacked_destroy(&u);
	return (r);
}

int
record_load(const char *dir, struct dataset **out, char **cause)
{
	struct dataset	*ds;
	struct rec_ctx	 c;
	char		 path[PATH_MAX], *map = NULL;
	size_t		 got = 0;
	int		 r = -1;

	*out = NULL;
	memset(&c, 0, sizeof c);
	c.path = path;
	snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
	ds = xcalloc(1, sizeof *ds);
	ds->ended = xstrdup("");
	ds->counters = xstrdup("");
	ds->detached_at = xstrdup("");
	ds->opt_max_load = -1;
	ds->opt_env_pad = -1;
	c.ds = ds;
	if (rec_map(&c, &map, &got) != 0 || rec_walk(&c, map, got) != 0)
		goto out;
	if (c.index == 0) {
		xasprintf(&c.cause, "%s: empty record", path);
		goto out;
	}
	if (c.skipped > REC_SKIP_TOLD)
		log_warnx("%s: %zu samples beyond the run's rounds skipped in "
		    "all", path, c.skipped);
	if (rec_check_size(&c, ds) != 0)
		goto out;
	rec_suite(ds);
	*out = ds;
	ds = NULL;
	r = 0;
out:
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
		free(ds->hosts[i].slurm);
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
