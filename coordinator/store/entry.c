/*
 * The run record's entries: their tables, and the one walker that packs an
 * entry by its table and the one that reads it back (entry.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <msgpack.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/store/entry.h"

#define ENTRY_NITEMS(a)	(sizeof (a) / sizeof (a)[0])

/* A field of struct t: member m, written and read as kind k, how h. */
#define EF(t, n, k, h, m) \
	{ n, k, h, offsetof(t, m), ENTRY_NOHAS, NULL }
/* The same with its has, for ENTRY_LAX and ENTRY_OPT. */
#define EFH(t, n, k, h, m, hs) \
	{ n, k, h, offsetof(t, m), offsetof(t, hs), NULL }
/* A field packed by fn, read as its object into member m. */
#define ESUB(t, n, m, fn) \
	{ n, ENTRY_SUB, ENTRY_LAX, offsetof(t, m), ENTRY_NOHAS, fn }

#define ENTRY_TYPE(name, t, tab) \
	{ name, sizeof (t), tab, ENTRY_NITEMS(tab) }

static void
entry_pstr(msgpack_packer *pk, const char *s, size_t len)
{
	msgpack_pack_str(pk, len);
	msgpack_pack_str_body(pk, s, len);
}

/* The run's hosts, every one it was started on, by name. */
static void
entry_pack_hosts(msgpack_packer *pk, const void *v)
{
	const struct entry_run	*e = v;
	size_t			 i;

	msgpack_pack_array(pk, e->nhosts);
	for (i = 0; i < e->nhosts; i++)
		entry_pstr(pk, e->hosts[i].name, strlen(e->hosts[i].name));
}

/* The suite's variants, by name, in its order. */
static void
entry_pack_variants(msgpack_packer *pk, const void *v)
{
	const struct entry_run	*e = v;
	size_t			 i;

	msgpack_pack_array(pk, e->s->nvariants);
	for (i = 0; i < e->s->nvariants; i++)
		entry_pstr(pk, e->s->variants[i].name,
		    strlen(e->s->variants[i].name));
}

/* The suite's benchmarks: name, checksum, metrics and which are higher. */
static void
entry_pack_benches(msgpack_packer *pk, const void *v)
{
	const struct entry_run		*e = v;
	const struct suite_bench	*b;
	size_t				 i, j;

	msgpack_pack_array(pk, e->s->nbenches);
	for (i = 0; i < e->s->nbenches; i++) {
		b = &e->s->benches[i];
		msgpack_pack_map(pk, 4);
		entry_pstr(pk, "name", 4);
		entry_pstr(pk, b->name, strlen(b->name));
		entry_pstr(pk, "checksum", 8);
		entry_pstr(pk, b->checksum, strlen(b->checksum));
		entry_pstr(pk, "metrics", 7);
		msgpack_pack_array(pk, b->nmetrics);
		for (j = 0; j < b->nmetrics; j++)
			entry_pstr(pk, b->metrics[j].name,
			    strlen(b->metrics[j].name));
		entry_pstr(pk, "higher", 6);
		msgpack_pack_array(pk, b->nmetrics);
		for (j = 0; j < b->nmetrics; j++) {
			if (b->metrics[j].higher)
				msgpack_pack_true(pk);
			else
				msgpack_pack_false(pk);
		}
	}
}

/* A host's load averages, by position. */
static void
entry_pack_load(msgpack_packer *pk, const void *v)
{
	const struct entry_host	*e = v;
	size_t			 i;

	msgpack_pack_array(pk, 3);
	for (i = 0; i < 3; i++)
		msgpack_pack_double(pk, e->load[i]);
}

/* A host's other facts: a map of names to strings. */
static void
entry_pack_extra(msgpack_packer *pk, const void *v)
{
	const struct entry_host	*e = v;
	size_t			 i;

	msgpack_pack_map(pk, e->nextra);
	for (i = 0; i < e->nextra; i++) {
		entry_pstr(pk, e->extra[i].key, strlen(e->extra[i].key));
		entry_pstr(pk, e->extra[i].value, strlen(e->extra[i].value));
	}
}

/* A sample's own metrics: a map of names to float64. */
static void
entry_pack_metrics(msgpack_packer *pk, const void *v)
{
	const struct entry_sample	*e = v;
	size_t				 i;

	msgpack_pack_map(pk, e->nmetrics);
	for (i = 0; i < e->nmetrics; i++) {
		entry_pstr(pk, e->metrics[i].key, strlen(e->metrics[i].key));
		msgpack_pack_double(pk, e->metrics[i].value);
	}
}

#define R	struct entry_run
static const struct entry_field entry_run_tab[] = {
	EFH(R, "auto", ENTRY_UINT, ENTRY_OPT | ENTRY_LAX, is_auto, has_auto),
	EFH(R, "min_rounds", ENTRY_UINT, ENTRY_OPT | ENTRY_LAX, min_rounds,
	    has_min_rounds),
	EFH(R, "budget_s", ENTRY_UINT, ENTRY_OPT | ENTRY_LAX, budget_s,
	    has_budget_s),
	ESUB(R, "hosts", hosts_o, entry_pack_hosts),
	EFH(R, "subtract_floor", ENTRY_UINT, ENTRY_LAX, subtract_floor,
	    has_subtract_floor),
	EFH(R, "counters", ENTRY_STR, ENTRY_LAX, counters, has_counters),
	EFH(R, "retries", ENTRY_UINT, ENTRY_LAX, retries, has_retries),
	EFH(R, "max_load", ENTRY_NUM, ENTRY_LAX, max_load, has_max_load),
	EF(R, "run_id", ENTRY_STR, ENTRY_REQ, run_id),
	EF(R, "orch_version", ENTRY_STR, ENTRY_REQ, orch_version),
	EF(R, "suite", ENTRY_STR, ENTRY_REQ, suite),
	EF(R, "suite_path", ENTRY_STR, ENTRY_REQ, suite_path),
	EF(R, "suite_text", ENTRY_STR, ENTRY_REQ, suite_text),
	EF(R, "cmdline", ENTRY_STR, ENTRY_REQ, cmdline),
	EF(R, "started", ENTRY_STR, ENTRY_REQ, started),
	EF(R, "seed", ENTRY_UINT, ENTRY_REQ, seed),
	EF(R, "min_effect", ENTRY_NUM, ENTRY_REQ, min_effect),
	EF(R, "rounds", ENTRY_UINT, ENTRY_REQ, rounds),
	EF(R, "warmup", ENTRY_UINT, ENTRY_REQ, warmup),
	EF(R, "reference", ENTRY_UINT, ENTRY_REQ, reference),
	ESUB(R, "variants", variants_o, entry_pack_variants),
	ESUB(R, "benches", benches_o, entry_pack_benches),
};
#undef R

#define H	struct entry_host
static const struct entry_field entry_host_tab[] = {
	EF(H, "host", ENTRY_STR, ENTRY_REQ, host),
	EF(H, "agent_version", ENTRY_STR, ENTRY_REQ, agent_version),
	EFH(H, "os", ENTRY_STR, ENTRY_LAX, os, has_os),
	EFH(H, "arch", ENTRY_STR, ENTRY_LAX, arch, has_arch),
	EFH(H, "cpu_model", ENTRY_STR, ENTRY_LAX, cpu_model, has_cpu_model),
	EFH(H, "kernel", ENTRY_STR, ENTRY_LAX, kernel, has_kernel),
	EFH(H, "hostname", ENTRY_STR, ENTRY_LAX, hostname, has_hostname),
	EFH(H, "workdir", ENTRY_STR, ENTRY_LAX, workdir, has_workdir),
	EF(H, "cores", ENTRY_COUNT, ENTRY_REQ, cores),
	EF(H, "mem_kb", ENTRY_COUNT, ENTRY_REQ, mem_kb),
	ESUB(H, "load", load_o, entry_pack_load),
	EFH(H, "kind", ENTRY_STR, ENTRY_LAX, kind, has_kind),
	EFH(H, "machine", ENTRY_STR, ENTRY_LAX | ENTRY_OPT, machine,
	    has_machine),
	ESUB(H, "extra", extra_o, entry_pack_extra),
};
#undef H

#define F	struct entry_file
static const struct entry_field entry_file_tab[] = {
	EFH(F, "fresh", ENTRY_UINT, ENTRY_LAX, fresh, has_fresh),
	EF(F, "host", ENTRY_STR, ENTRY_REQ, host),
	EF(F, "variant", ENTRY_STR, ENTRY_REQ, variant),
	EFH(F, "role", ENTRY_STR, ENTRY_LAX, role, has_role),
	EF(F, "path", ENTRY_STR, ENTRY_REQ, path),
	EF(F, "sha256", ENTRY_STR, ENTRY_REQ, sha256),
	EFH(F, "host_prog", ENTRY_STR, ENTRY_OPT, host_prog, has_host_prog),
	EFH(F, "version", ENTRY_STR, ENTRY_OPT, version, has_version),
};
#undef F

#define S	struct entry_sample
static const struct entry_field entry_sample_tab[] = {
	EF(S, "host", ENTRY_STR, ENTRY_REQ, host),
	EFH(S, "bench", ENTRY_STR, ENTRY_LAX, bench, has_bench),
	EFH(S, "variant", ENTRY_STR, ENTRY_LAX, variant, has_variant),
	EF(S, "round", ENTRY_UINT, ENTRY_REQ, round),
	EF(S, "attempt", ENTRY_UINT, ENTRY_REQ, attempt),
	EF(S, "seq", ENTRY_UINT, ENTRY_REQ, seq),
	EF(S, "warmup", ENTRY_UINT, ENTRY_REQ, warmup),
	EFH(S, "status", ENTRY_STR, ENTRY_LAX, status, has_status),
	EF(S, "exit", ENTRY_INT, ENTRY_REQ, exit_code),
	EF(S, "signal", ENTRY_INT, ENTRY_REQ, signal),
	EF(S, "load1", ENTRY_NUM, ENTRY_REQ, load1),
	EF(S, "start_ns", ENTRY_INT, ENTRY_REQ, start_ns),
	/* ds_builtin_names, in its order (test-record checks). */
	EF(S, "wall_ns", ENTRY_UINT, ENTRY_REQ, builtin[0]),
	EF(S, "user_ns", ENTRY_UINT, ENTRY_REQ, builtin[1]),
	EF(S, "sys_ns", ENTRY_UINT, ENTRY_REQ, builtin[2]),
	EF(S, "maxrss_kb", ENTRY_UINT, ENTRY_REQ, builtin[3]),
	EF(S, "nvcsw", ENTRY_UINT, ENTRY_REQ, builtin[4]),
	EF(S, "nivcsw", ENTRY_UINT, ENTRY_REQ, builtin[5]),
	EF(S, "err", ENTRY_STR, ENTRY_REQ, err),
	EFH(S, "step", ENTRY_UINT, ENTRY_LAX, step, has_step),
	ESUB(S, "metrics", metrics_o, entry_pack_metrics),
	EFH(S, "checksum", ENTRY_STR, ENTRY_OPT | ENTRY_LAX, checksum,
	    has_checksum),
	EFH(S, "env_pad", ENTRY_UINT, ENTRY_OPT | ENTRY_LAX, env_pad,
	    has_env_pad),
};
#undef S
_Static_assert(ENTRY_NBUILTIN == 6, "the sample table's builtins");

#define T	struct entry_state
static const struct entry_field entry_state_tab[] = {
	EF(T, "host", ENTRY_STR, ENTRY_REQ, host),
	EF(T, "state", ENTRY_STR, ENTRY_REQ, state),
	EF(T, "detail", ENTRY_STR, ENTRY_REQ, detail),
	EF(T, "load1", ENTRY_NUM, ENTRY_REQ, load1),
	EF(T, "waited_ms", ENTRY_COUNT, ENTRY_REQ, waited_ms),
};
#undef T

#define E	struct entry_hostend
static const struct entry_field entry_hostend_tab[] = {
	EF(E, "host", ENTRY_STR, ENTRY_REQ, host),
	EFH(E, "pushed_bytes", ENTRY_UINT, ENTRY_LAX, pushed_bytes,
	    has_pushed_bytes),
	EFH(E, "pushed_files", ENTRY_UINT, ENTRY_LAX, pushed_files,
	    has_pushed_files),
	EFH(E, "status", ENTRY_STR, ENTRY_LAX, status, has_status),
	EFH(E, "error", ENTRY_STR, ENTRY_LAX, error, has_error),
};
#undef E

#define P	struct entry_plan
static const struct entry_field entry_plan_tab[] = {
	EF(P, "host", ENTRY_STR, ENTRY_REQ, host),
	EFH(P, "workdir", ENTRY_STR, ENTRY_OPT, workdir, has_workdir),
	EF(P, "max_load", ENTRY_NUM, ENTRY_REQ, max_load),
	EF(P, "load_wait_ms", ENTRY_COUNT, ENTRY_REQ, load_wait_ms),
	EF(P, "pin", ENTRY_STR, ENTRY_REQ, pin),
};
#undef P

static const struct entry_field entry_label_tab[] = {
	EF(struct entry_label, "key", ENTRY_STR, ENTRY_REQ, key),
	EF(struct entry_label, "value", ENTRY_STR, ENTRY_REQ, value),
};

static const struct entry_field entry_opts_tab[] = {
	EF(struct entry_opts, "max_load", ENTRY_NUM, ENTRY_REQ, max_load),
	EFH(struct entry_opts, "env_pad", ENTRY_UINT, ENTRY_OPT | ENTRY_LAX,
	    env_pad, has_env_pad),
};

#define A	struct entry_alloc
static const struct entry_field entry_alloc_tab[] = {
	EF(A, "host", ENTRY_STR, ENTRY_REQ, host),
	EF(A, "cluster", ENTRY_STR, ENTRY_REQ, cluster),
	EF(A, "login", ENTRY_STR, ENTRY_REQ, login),
	EF(A, "job_id", ENTRY_STR, ENTRY_REQ, job_id),
	EF(A, "component", ENTRY_UINT, ENTRY_REQ, component),
	EF(A, "node", ENTRY_STR, ENTRY_REQ, node),
	EF(A, "node_addr", ENTRY_STR, ENTRY_REQ, node_addr),
	EF(A, "partition", ENTRY_STR, ENTRY_REQ, partition),
	EF(A, "constraint", ENTRY_STR, ENTRY_REQ, constraint),
	EF(A, "workdir", ENTRY_STR, ENTRY_REQ, workdir),
	EF(A, "timeout_s", ENTRY_UINT, ENTRY_REQ, timeout_s),
	EF(A, "end_s", ENTRY_UINT, ENTRY_REQ, end_s),
	EFH(A, "node_cpus", ENTRY_UINT, ENTRY_OPT | ENTRY_LAX, node_cpus,
	    has_node_cpus),
	EFH(A, "node_mem_mb", ENTRY_UINT, ENTRY_OPT | ENTRY_LAX, node_mem_mb,
	    has_node_mem_mb),
	EFH(A, "node_arch", ENTRY_STR, ENTRY_OPT | ENTRY_LAX, node_arch,
	    has_node_arch),
	EFH(A, "node_features", ENTRY_STR, ENTRY_OPT | ENTRY_LAX,
	    node_features, has_node_features),
};
#undef A

static const struct entry_field entry_release_tab[] = {
	EF(struct entry_release, "cluster", ENTRY_STR, ENTRY_REQ, cluster),
	EF(struct entry_release, "job_id", ENTRY_STR, ENTRY_REQ, job_id),
	EF(struct entry_release, "at", ENTRY_STR, ENTRY_REQ, at),
};

/* A resume's time is not read back: only that it happened. */
static const struct entry_field entry_resume_tab[] = {
	EFH(struct entry_at, "at", ENTRY_STR, ENTRY_LAX, at, has_at),
};

static const struct entry_field entry_detach_tab[] = {
	EF(struct entry_at, "at", ENTRY_STR, ENTRY_REQ, at),
};

static const struct entry_field entry_end_tab[] = {
	EF(struct entry_at, "ended", ENTRY_STR, ENTRY_REQ, at),
};

const struct entry_type entry_run_type =
    ENTRY_TYPE("run", struct entry_run, entry_run_tab);
const struct entry_type entry_host_type =
    ENTRY_TYPE("host", struct entry_host, entry_host_tab);
const struct entry_type entry_file_type =
    ENTRY_TYPE("file", struct entry_file, entry_file_tab);
const struct entry_type entry_sample_type =
    ENTRY_TYPE("sample", struct entry_sample, entry_sample_tab);
const struct entry_type entry_state_type =
    ENTRY_TYPE("state", struct entry_state, entry_state_tab);
const struct entry_type entry_hostend_type =
    ENTRY_TYPE("hostend", struct entry_hostend, entry_hostend_tab);
const struct entry_type entry_plan_type =
    ENTRY_TYPE("plan", struct entry_plan, entry_plan_tab);
const struct entry_type entry_label_type =
    ENTRY_TYPE("label", struct entry_label, entry_label_tab);
const struct entry_type entry_opts_type =
    ENTRY_TYPE("opts", struct entry_opts, entry_opts_tab);
const struct entry_type entry_resume_type =
    ENTRY_TYPE("resume", struct entry_at, entry_resume_tab);
const struct entry_type entry_detach_type =
    ENTRY_TYPE("detach", struct entry_at, entry_detach_tab);
const struct entry_type entry_end_type =
    ENTRY_TYPE("end", struct entry_at, entry_end_tab);
const struct entry_type entry_alloc_type =
    ENTRY_TYPE("alloc", struct entry_alloc, entry_alloc_tab);
const struct entry_type entry_release_type =
    ENTRY_TYPE("release", struct entry_release, entry_release_tab);

struct entry_str
entry_s(const char *s)
{
	struct entry_str	r;

	r.p = s != NULL ? s : "";
	r.len = strlen(r.p);
	return (r);
}

int
entry_is(const struct entry_str *s, const char *t)
{
	return (strlen(t) == s->len && memcmp(s->p, t, s->len) == 0);
}

/* Returns 1 when entry e is to be written with field f. */
static int
entry_written(const struct entry_field *f, const void *e)
{
	return (!(f->how & ENTRY_OPT) ||
	    *(const int *)(const void *)((const char *)e + f->has) !=
	    ENTRY_ABSENT);
}

void
entry_pack(msgpack_packer *pk, const struct entry_type *t, const void *e)
{
	const struct entry_field	*f;
	const char			*m;
	const struct entry_str		*s;
	size_t				 i, n = 1;

	for (i = 0; i < t->n; i++)
		n += entry_written(&t->tab[i], e);
	msgpack_pack_map(pk, n);
	entry_pstr(pk, "t", 1);
	entry_pstr(pk, t->t, strlen(t->t));
	for (i = 0; i < t->n; i++) {
		f = &t->tab[i];
		if (!entry_written(f, e))
			continue;
		m = (const char *)e + f->off;
		entry_pstr(pk, f->name, strlen(f->name));
		switch (f->kind) {
		case ENTRY_STR:
			s = (const struct entry_str *)(const void *)m;
			entry_pstr(pk, s->p, s->len);
			break;
		case ENTRY_UINT:
			msgpack_pack_uint64(pk, *(const uint64_t *)(const
			    void *)m);
			break;
		case ENTRY_INT:
			msgpack_pack_int64(pk, *(const int64_t *)(const
			    void *)m);
			break;
		case ENTRY_NUM:
			msgpack_pack_double(pk, *(const double *)(const
			    void *)m);
			break;
		case ENTRY_COUNT:
			msgpack_pack_uint64(pk, ((const struct entry_count *)
			    (const void *)m)->u);
			break;
		case ENTRY_SUB:
			f->pack(pk, e);
			break;
		}
	}
}

const msgpack_object *
entry_get(const msgpack_object *o, const char *key)
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

/* Reads v as f's kind into member m; returns 0, or -1 of another kind. */
static int
entry_take(const struct entry_field *f, const msgpack_object *v, char *m)
{
	struct entry_str	*s;
	double			 d;

	switch (f->kind) {
	case ENTRY_STR:
		if (v->type != MSGPACK_OBJECT_STR)
			return (-1);
		s = (struct entry_str *)(void *)m;
		s->p = v->via.str.ptr;
		s->len = v->via.str.size;
		return (0);
	case ENTRY_UINT:
		if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
			return (-1);
		*(uint64_t *)(void *)m = v->via.u64;
		return (0);
	case ENTRY_INT:
		if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
		    v->via.u64 <= INT64_MAX)
			*(int64_t *)(void *)m = (int64_t)v->via.u64;
		else if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
			*(int64_t *)(void *)m = v->via.i64;
		else
			return (-1);
		return (0);
	case ENTRY_NUM:
	case ENTRY_COUNT:
		if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
			d = (double)v->via.u64;
		else if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
			d = (double)v->via.i64;
		else if (v->type == MSGPACK_OBJECT_FLOAT32 ||
		    v->type == MSGPACK_OBJECT_FLOAT64)
			d = v->via.f64;
		else
			return (-1);
		if (f->kind == ENTRY_NUM)
			*(double *)(void *)m = d;
		else
			((struct entry_count *)(void *)m)->d = d;
		return (0);
	case ENTRY_SUB:
		*(const msgpack_object **)(void *)m = v;
		return (0);
	}
	return (-1);
}

int
entry_read(const struct entry_type *t, const msgpack_object *o, void *e,
    const struct entry_field **bad)
{
	const struct entry_field	*f;
	const msgpack_object		*v;
	int				*has;
	size_t				 i;

	memset(e, 0, t->size);
	*bad = NULL;
	for (i = 0; i < t->n; i++) {
		f = &t->tab[i];
		has = f->has == ENTRY_NOHAS ? NULL :
		    (int *)(void *)((char *)e + f->has);
		if ((v = entry_get(o, f->name)) == NULL) {
			if (f->how == ENTRY_REQ && f->kind != ENTRY_SUB) {
				*bad = f;
				return (-1);
			}
			continue;
		}
		if (entry_take(f, v, (char *)e + f->off) == 0) {
			if (has != NULL)
				*has = ENTRY_HAS;
		} else if (f->how & ENTRY_LAX) {
			if (has != NULL)
				*has = ENTRY_OTHER;
		} else {
			*bad = f;
			return (-1);
		}
	}
	return (0);
}

const char *
entry_want(enum entry_kind k)
{
	switch (k) {
	case ENTRY_STR:
		return ("a string");
	case ENTRY_UINT:
		return ("an unsigned integer");
	case ENTRY_INT:
		return ("an integer");
	default:
		return ("a number");
	}
}
