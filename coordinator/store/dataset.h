/*
 * The in-memory image of a run record (struct dataset) that every report is
 * rendered from: its loader and the queries over it. The record itself,
 * DIR/samples.msgpack, and its writer are in record.h.
 */
#ifndef COORDINATOR_DATASET_H
#define COORDINATOR_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"

struct suite;

#define RECORD_FILE	"samples.msgpack"

/* The pseudo-benchmark of the harness floor's samples. */
#define RECORD_FLOOR	"(floor)"

/* A run's labels (orch run --label KEY=VALUE): at most this many, each
 * key a name (proto/ident.h) shorter than LABEL_KEY_MAX, each value 1 to
 * LABEL_VALUE_MAX - 1 printable bytes. */
#define LABELS_MAX	32
#define LABEL_KEY_MAX	64
#define LABEL_VALUE_MAX	256

/*
 * Checks one KEY=VALUE label; returns 0 with *key and *value pointing into
 * a copy the caller frees (*key), or -1 with *cause saying why.
 */
int	dataset_label_parse(const char *s, char **key, char **value,
	    char **cause);

/* Built-in metrics of every sample, in this order. */
#define DS_NBUILTIN	6
#define DS_WALL_NS	0	/* ds_builtin_names[DS_WALL_NS] is "wall_ns" */
extern const char *const ds_builtin_names[DS_NBUILTIN];

struct ds_bench {
	char		*name;
	size_t		 nmetrics;	/* reported metrics; [0] is primary */
	char		**metrics;
	int		*higher;	/* per metric: 1 higher is better */
	char		*checksum;	/* "" none */
};

/* The Slurm job behind a host (an "alloc" record), field sizes slurm.h's. */
struct ds_slurm {
	char		 cluster[64];
	char		 login[256];
	char		 job_id[32];	/* digits: the job as Slurm prints it */
	uint32_t	 component;	/* of a heterogeneous job; 0 */
	char		 node[64];
	char		 node_addr[256];
	char		 partition[128];
	char		 constraint[256];	/* "" none */
	char		 workdir[512];	/* where its agent ran */
	uint32_t	 timeout_s;	/* the bound on each Slurm command */
	uint64_t	 end_s;		/* its time limit's end, epoch s */
	uint32_t	 node_cpus;	/* scontrol's CPUTot; 0 unknown */
	uint64_t	 node_mem_mb;	/* its RealMemory; 0 unknown */
	char		 node_arch[32];	/* its Arch; "" unknown */
	char		 node_features[256];	/* "" none */
	int		 released;	/* a release record names its job */
};

struct ds_host {
	char		*name;
	char		*agent_version;
	struct proto_facts facts;
	int		 ended;		/* a hostend record was seen */
	int		 failed;
	char		*error;
	uint64_t	 pushed_bytes;	/* to its cache during the run */
	uint64_t	 pushed_files;
	int		 has_plan;	/* a plan record was seen */
	double		 max_load;	/* its plan's load gate
					   per core; 0 off */
	char		*pin;		/* its plan's CPU list, "" none */
	uint32_t	 load_wait_ms;	/* its plan's wait for
					   a quiet machine */
	char		*workdir;	/* as configured at the
					   start; NULL unknown */
	struct ds_slurm	*slurm;		/* its Slurm job; NULL none */
};

struct ds_file {
	size_t		 host;
	char		*variant;	/* "" for data files */
	char		*role;		/* "bin" or "file:NAME" */
	char		*path;		/* local path */
	char		*sha;
	int		 fresh;		/* pushed during this run */
	char		*host_prog;	/* the host's own (host:NAME): NAME;
					   NULL for a pushed file */
	char		*version;	/* its --version line, or NULL */
};

/* What an agent said between samples: load waits and notes. */
struct ds_note {
	size_t		 host;
	char		*state;		/* "waiting-load", "note" */
	char		*detail;
	double		 load1;
	uint32_t	 waited_ms;
};

struct ds_sample {
	size_t		 host, bench, variant;
	uint32_t	 round, attempt, seq;
	uint32_t	 step;		/* index into the host's plan */
	int		 warmup, status, exit_code, signal;
	double		 load1;
	int64_t		 start_ns;
	uint64_t	 builtin[DS_NBUILTIN];	/* wall_ns ... nivcsw */
	size_t		 nmetrics;		/* the program's own */
	size_t		*mkey;			/* index into dataset.mnames */
	double		*mval;
	const char	*checksum;		/* NULL when none */
	const char	*err;			/* "" when none */
	int32_t		 env_pad;		/* its environment's padding,
						   bytes; -1 unknown (none, or
						   an older record) */
};

struct dataset {
	char		*run_id;
	char		*orch_version;
	char		*suite_name;
	char		*suite_path;
	char		*suite_text;
	struct suite	*suite;		/* suite_text parsed for its names,
					   sweeps and claims (suite_load_names);
					   NULL when it does not parse */
	char		*suite_error;	/* why it does not; NULL when it does */
	int		 suite_claims;	/* suite_text has a [claim. header */
	char		*cmdline;
	char		*started;	/* ISO 8601 UTC */
	char		*ended;		/* "" when the record has no end */
	uint64_t	 seed;
	double		 min_effect;
	uint32_t	 rounds;	/* max_rounds when auto_rounds */
	uint32_t	 warmup;
	int		 auto_rounds;	/* rounds = auto (seq.h) */
	uint32_t	 min_rounds;	/* its first look and block size */
	uint32_t	 budget_s;	/* per host; 0 none */
	size_t		 ref;		/* reference variant */
	size_t		 nvariants;
	char		**variants;
	size_t		 nbenches;
	struct ds_bench	*benches;
	size_t		 nhosts;
	struct ds_host	*hosts;
	size_t		 nfiles;
	struct ds_file	*files;
	size_t		 nsamples;
	struct ds_sample *samples;
	size_t		 samples_cap;
	size_t		 nfloors;	/* runs of the floor
					   program, "(floor)" */
	size_t		 floors_cap;
	struct ds_sample *floors;
	size_t		 nnotes;
	struct ds_note	*notes;
	int		 subtract_floor;
	char		*counters;	/* "" none */
	size_t		 nmnames;	/* program metric names seen */
	char		**mnames;
	int		 truncated;	/* the last record was cut short */
	uint64_t	 good_len;	/* bytes of whole records */
	int		 resumed;	/* times the run was resumed */
	double		 opt_max_load;	/* --max-load of the run; < 0 none */
	int64_t		 opt_env_pad;	/* --env-pad of the run; < 0 none */
	int		 detached;	/* times its coordinator
					   was interrupted */
	char		*detached_at;	/* the last of them, "" never */
	size_t		 nlabels;	/* --label KEY=VALUE, in order */
	char		**label_keys;
	char		**label_values;
	/* Owned by the dataset: samples' mkey, mval, checksum and err. */
	struct ds_chunk	*arena;
	char		**strs;		/* interned strings, open addressing */
	size_t		 nstrs, strs_cap;
};

/*
 * Loads DIR/samples.msgpack. A truncated last record is ignored (and
 * flagged); anything else malformed is an error. Returns 0, or -1 with
 * *cause set (caller frees).
 */
int	record_load(const char *dir, struct dataset **out, char **cause);

/* Frees a dataset; NULL is ok. */
/*
 * Returns the names of ds's hosts, comma separated, in record order (free
 * it); with unfinished, only those whose end the record does not hold.
 * "" when there are none.
 */
char	*dataset_host_list(const struct dataset *ds, int unfinished);

void	dataset_free(struct dataset *ds);

/* Returns the index of name among the dataset's hosts / metric names, or -1. */
long	dataset_host(const struct dataset *ds, const char *name);

/*
 * A metric's key (a builtin's index, or DS_NBUILTIN + its index in mnames;
 * -1 when no sample has it), for dataset_get: a name resolved once, then
 * looked up per sample without comparing strings.
 */
long	dataset_metric(const struct dataset *ds, const char *name);
int	dataset_get(const struct ds_sample *s, long key, double *v);

/*
 * Returns the value of metric name in sample s (a built-in or the
 * program's own) in *v; returns 0, or -1 when the sample lacks it.
 */
int	dataset_value(const struct dataset *ds, const struct ds_sample *s,
	    const char *name, double *v);

#endif
