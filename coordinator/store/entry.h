/*
 * The run record's entries (record.h), each described once: a table of
 * its fields, in the order they are written, each with its map key, its
 * kind and where it lives in the entry's struct. The writer (record.c)
 * packs an entry by its table and the loader (dataset.c) reads one by the
 * same table, so the two cannot drift; what the loader checks beyond a
 * field's kind (ranges, names, what refers to what) is dataset.c's.
 * Strings are pointers and lengths: the loader points into the record.
 */
#ifndef COORDINATOR_ENTRY_H
#define COORDINATOR_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "proto/proto.h"

struct host;
struct suite;

/* A sample's built-in metrics: dataset.h's DS_NBUILTIN, in its order. */
#define ENTRY_NBUILTIN	6

/* A string of an entry: len bytes at p (NUL-terminated when written). */
struct entry_str {
	const char	*p;
	size_t		 len;
};

/*
 * A count written as an unsigned integer (u) and read back as any number
 * (d), which the loader then bounds: what older records may hold.
 */
struct entry_count {
	uint64_t	u;
	double		d;
};

enum entry_kind {
	ENTRY_STR,	/* struct entry_str */
	ENTRY_UINT,	/* uint64_t, an unsigned integer */
	ENTRY_INT,	/* int64_t, an integer */
	ENTRY_NUM,	/* double, written as float64, read from any number */
	ENTRY_COUNT,	/* struct entry_count */
	ENTRY_SUB	/* anything else: written by its pack function, read
			   as its object (const msgpack_object *, NULL when
			   absent) for the loader's own code */
};

/* How a field is written and read (struct entry_field.how). */
#define ENTRY_REQ	0x0	/* always written; the loader requires it */
#define ENTRY_LAX	0x1	/* the loader takes it when present and of
				   its kind, else leaves it: older records */
#define ENTRY_OPT	0x2	/* written only when its has is set; the
				   loader takes it when present, refusing
				   another kind unless also ENTRY_LAX */

/* A field's has, when it is ENTRY_LAX or ENTRY_OPT. */
#define ENTRY_ABSENT	0
#define ENTRY_HAS	1
#define ENTRY_OTHER	(-1)	/* present, of another kind (ENTRY_LAX) */

#define ENTRY_NOHAS	SIZE_MAX	/* entry_field.has of an ENTRY_REQ */

struct entry_field {
	const char	*name;		/* the map key */
	enum entry_kind	 kind;
	int		 how;		/* ENTRY_REQ, or ENTRY_LAX, _OPT */
	size_t		 off;		/* of the member */
	size_t		 has;		/* of its int (ENTRY_ABSENT ...), or
					   ENTRY_NOHAS */
	void		(*pack)(msgpack_packer *, const void *); /* SUB */
};

/* A type of entry: its "t", its struct and its fields. */
struct entry_type {
	const char		 *t;
	size_t			  size;
	const struct entry_field *tab;
	size_t			  n;
};

/* "run": the first entry, once. */
struct entry_run {
	uint64_t		 is_auto;	/* "auto": rounds = auto, and
						   "rounds" is max_rounds */
	int			 has_auto;
	uint64_t		 min_rounds, budget_s;
	int			 has_min_rounds, has_budget_s;
	uint64_t		 subtract_floor;
	int			 has_subtract_floor;
	struct entry_str	 counters;
	int			 has_counters;
	uint64_t		 retries;
	int			 has_retries;
	double			 max_load;
	int			 has_max_load;
	struct entry_str	 run_id, orch_version, suite, suite_path;
	struct entry_str	 suite_text, cmdline, started;
	uint64_t		 seed;
	double			 min_effect;
	uint64_t		 rounds, warmup, reference;
	/* Written from: */
	const struct suite	*s;
	const struct host	*hosts;
	size_t			 nhosts;
	/* Read: */
	const msgpack_object	*hosts_o, *variants_o, *benches_o;
};

/* "host": a host's facts, after its hello. */
struct entry_host {
	struct entry_str	 host, agent_version;
	struct entry_str	 os, arch, cpu_model, kernel, hostname, workdir;
	int			 has_os, has_arch, has_cpu_model, has_kernel;
	int			 has_hostname, has_workdir;
	struct entry_count	 cores, mem_kb;
	struct entry_str	 kind;
	int			 has_kind;
	struct entry_str	 machine;	/* the first 16 hex digits of
						   the agent's machine hash */
	int			 has_machine;	/* since protocol 8 */
	const double		*load;		/* written: [3] */
	const struct proto_kv	*extra;		/* written: [nextra] */
	size_t			 nextra;
	const msgpack_object	*load_o, *extra_o;	/* read */
};

/* "file": a file a host ran or read, or its own program (host_prog). */
struct entry_file {
	uint64_t		 fresh;
	int			 has_fresh;
	struct entry_str	 host, variant, role, path, sha256;
	int			 has_role;
	struct entry_str	 host_prog, version;
	int			 has_host_prog, has_version;
};

/* "sample": one run of one program. */
struct entry_sample {
	struct entry_str	 host, bench, variant;
	int			 has_bench, has_variant;
	uint64_t		 round, attempt, seq, warmup;
	struct entry_str	 status;
	int			 has_status;
	int64_t			 exit_code, signal;
	double			 load1;
	int64_t			 start_ns;
	uint64_t		 builtin[ENTRY_NBUILTIN];	/* wall_ns... */
	struct entry_str	 err;
	uint64_t		 step;
	int			 has_step;
	const struct proto_metric *metrics;	/* written: [nmetrics] */
	size_t			 nmetrics;
	const msgpack_object	*metrics_o;	/* read */
	struct entry_str	 checksum;
	int			 has_checksum;
	uint64_t		 env_pad;	/* ORCH_ENV_PAD's length */
	int			 has_env_pad;	/* a padded measured run */
};

/* "state": what an agent said between samples. */
struct entry_state {
	struct entry_str	 host, state, detail;
	double			 load1;
	struct entry_count	 waited_ms;
};

/* "hostend": a host finished. */
struct entry_hostend {
	struct entry_str	 host;
	uint64_t		 pushed_bytes, pushed_files;
	int			 has_pushed_bytes, has_pushed_files;
	struct entry_str	 status, error;
	int			 has_status, has_error;
};

/* "plan": a host's plan settings beyond the suite. */
struct entry_plan {
	struct entry_str	 host, workdir;
	int			 has_workdir;
	double			 max_load;
	struct entry_count	 load_wait_ms;
	struct entry_str	 pin;
};

/* "label": one --label KEY=VALUE. */
struct entry_label {
	struct entry_str	 key, value;
};

/* "opts": the command line's --max-load (-1 none) and --env-pad. */
struct entry_opts {
	double			 max_load;
	uint64_t		 env_pad;
	int			 has_env_pad;	/* --env-pad was given */
};

/* "alloc": the Slurm job behind one host (run-slurm.c). */
struct entry_alloc {
	struct entry_str	 host, cluster, login, job_id, node, node_addr;
	struct entry_str	 partition, constraint, workdir;
	uint64_t		 component, timeout_s, end_s;
	uint64_t		 node_cpus, node_mem_mb;	/* 0 unknown */
	struct entry_str	 node_arch, node_features;
	int			 has_node_cpus, has_node_mem_mb;
	int			 has_node_arch, has_node_features;
};

/* "release": a Slurm job was cancelled and is gone. */
struct entry_release {
	struct entry_str	 cluster, job_id, at;
};

/* "resume", "detach" and "end": when (at, ended). */
struct entry_at {
	struct entry_str	 at;
	int			 has_at;
};

extern const struct entry_type entry_run_type, entry_host_type;
extern const struct entry_type entry_file_type, entry_sample_type;
extern const struct entry_type entry_state_type, entry_hostend_type;
extern const struct entry_type entry_plan_type, entry_label_type;
extern const struct entry_type entry_opts_type, entry_resume_type;
extern const struct entry_type entry_detach_type, entry_end_type;
extern const struct entry_type entry_alloc_type, entry_release_type;

/* Returns s as an entry string; NULL is "". */
struct entry_str entry_s(const char *s);

/* Returns 1 when s holds exactly the string t. */
int	entry_is(const struct entry_str *s, const char *t);

/* Packs entry e of type t as one msgpack map, its "t" first. */
void	entry_pack(msgpack_packer *pk, const struct entry_type *t,
	    const void *e);

/*
 * Returns the value of key in map o, or NULL. Entries of a type share
 * their layout, so where each key was found last is tried first.
 */
const msgpack_object *entry_get(const msgpack_object *o, const char *key);

/*
 * Reads map o into e (zeroed first) by t's table. Returns 0, or -1 with
 * *bad the first field that is required (or ENTRY_OPT) and missing or of
 * another kind.
 */
int	entry_read(const struct entry_type *t, const msgpack_object *o,
	    void *e, const struct entry_field **bad);

/* Returns what a field of kind k must be: "a string", "a number", ... */
const char *entry_want(enum entry_kind k);

#endif
