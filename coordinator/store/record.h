/*
 * DIR/samples.msgpack: the raw record of a run, appended as samples arrive,
 * and its writer; the loader and its image, struct dataset, are in
 * dataset.h (included here for the callers of record_load). The record is
 * a sequence of msgpack maps, each with "t":
 *   "run"    once, first: run id, versions, suite (text and parsed), seed
 *   "host"   when a host has said hello: its facts
 *   "file"   a file a host ran, with its SHA-256
 *   "sample" one run of one program
 *   "opts"   after "run": the command line's --max-load
 *   "plan"   a host's plan settings beyond the suite (load gate, pin)
 *   "hostend" a host finished: status and error
 *   "detach" the coordinator was interrupted, its agents carry on
 *   "alloc"  a Slurm host's job: cluster, job, node, its address
 *   "release" a Slurm job was cancelled and is gone
 *   "end"    the run finished
 */
#ifndef COORDINATOR_RECORD_H
#define COORDINATOR_RECORD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "coordinator/store/dataset.h"
#include "proto/proto.h"

/* The writer: serialized by its mutex, each record one write(). */
struct record {
	int		 fd;
	pthread_mutex_t	 mtx;
	char		 path[1024];
	int		 failed;	/* a write failed: errno in err */
	char		 err[256];
};

struct suite;
struct host;

/* Creates DIR/samples.msgpack (must not exist). Returns 0 or -1 (cause). */
int	record_open(struct record *r, const char *dir, char **cause);

/*
 * Reopens DIR/samples.msgpack to append, cutting it back to good_len
 * bytes (dropping a record a crash cut short). Returns 0 or -1 (cause).
 */
int	record_reopen(struct record *r, const char *dir, uint64_t good_len,
	    char **cause);

/*
 * Returns 1 when a coordinator holds DIR's record open (the writer locks
 * it while the run goes), else 0.
 */
int	record_busy(const char *dir);

/* Appends a resume record. */
int	record_resume(struct record *r, const char *at);

/* Appends the run record, naming every host the run was started on. */
int	record_run(struct record *r, const char *run_id, const struct suite *s,
	    uint64_t seed, const char *cmdline, const char *started,
	    const struct host *hosts, size_t nhosts);

/*
 * Appends the options of the command line that shape the plan and are not
 * in the run record (--max-load, < 0 when not given; --env-pad, < 0 when
 * not given): a resume takes them.
 */
int	record_opts(struct record *r, double max_load, int64_t env_pad);

/* Appends one label of the run (checked by dataset_label_parse). */
int	record_label(struct record *r, const char *key, const char *value);

/*
 * Appends a host's plan settings that do not come from the suite (its
 * load gate, CPU list) and its workdir as configured (where its journal
 * is): a resume uses them again, the report tells of the load gate.
 */
int	record_plan(struct record *r, const struct host *h,
	    const struct proto_plan *p);

/*
 * Appends a detach record (the coordinator was interrupted; the agents
 * carry on) and closes without an end: the run stays resumable.
 */
int	record_detach(struct record *r, const char *at);

/* Appends a host's facts after its hello. */
int	record_host(struct record *r, const struct host *h);

/* Appends a file a host runs or reads; fresh: pushed during this run. */
int	record_file(struct record *r, const char *host, const char *variant,
	    const char *role, const char *path, const char *sha, int fresh);

/*
 * Appends a host's own program it ran (bin = host:NAME, or a hook's):
 * NAME as the suite gave it, the path the agent found, its SHA-256 and
 * its --version line ("" none).
 */
int	record_hostprog(struct record *r, const char *host, const char *variant,
	    const char *role, const struct proto_prog *pg);

/* Appends what an agent said between samples. */
int	record_state(struct record *r, const char *host,
	    const struct proto_state *st);

/* Appends one sample, naming its bench and variant. */
int	record_sample(struct record *r, const char *host, const char *bench,
	    const char *variant, const struct proto_sample *smp);

/* Appends a host's outcome. */
int	record_hostend(struct record *r, const struct host *h);

/* Appends the Slurm job behind host (an alloc record). */
int	record_alloc(struct record *r, const char *host,
	    const struct ds_slurm *s);

/* Appends that cluster's job job_id was cancelled and is gone. */
int	record_release(struct record *r, const char *cluster,
	    const char *job_id, const char *at);

/* Appends the end record and closes. */
int	record_close(struct record *r, const char *ended);

#endif
