/*
 * Inside `orch run`: the run and its hosts, shared by the files of
 * coordinator/run/run*.c. The command line sees run.h only.
 */
#ifndef COORDINATOR_RUN_INT_H
#define COORDINATOR_RUN_INT_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/slurm.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/plan.h"
#include "coordinator/store/record.h"
#include "proto/proto.h"

struct dataset;
struct host;
struct run_opts;

/* A Slurm host's job (run-slurm.c). */
struct run_slurm {
	size_t			 host;		/* in opts->hosts */
	struct inventory_slurm	 cluster;	/* its bounds (args: none) */
	struct slurm_job	 job;
	struct ds_slurm		 rec;		/* as recorded */
	int			 made;		/* by this coordinator */
	int			 released;
};

/* A file one host needs, resolved for its os/arch. */
struct run_file {
	char	*path;			/* local path */
	char	 sha[PROTO_SHA_HEX];
	int	 executable;
};

/*
 * What one host's agent sent, counted against the limits of run-peer.c,
 * and the last look's answer to a waiting-grant (rounds = auto).
 */
struct run_peer {
	size_t		 nstored;	/* samples stored for it */
	size_t		 nstatus;	/* STATUS recorded, this run */
	size_t		 nprogs;	/* PROGS in this agent's session */
	size_t		 ndups;		/* samples stored before, re-sent in
					   this session */
	size_t		 repeats;	/* waiting-grants, no sample between */
	uint32_t	 steps;		/* steps granted so far */
	int		 looked;	/* a look was made; its answer: */
	size_t		 looked_at;	/* nstored then */
	uint32_t	 grant;		/* steps granted */
	int		 final;
};

/* Per host: its files, its plan and its progress. */
/*
 * seen[] bit 0: the step ended (an attempt not killed by a signal is
 * stored; the agent re-runs only those), so that any later sample of it
 * is a duplicate: a step the agent ran again because its machine's crash
 * took the record from the journal after the coordinator had stored it.
 */
#define RUN_STEP_ENDED	1U

struct run_host {
	struct host		*h;
	struct run		*run;
	size_t			 nfiles;
	struct run_file		*files;
	size_t			*bin;		/* per variant: a file's index,
						   RUN_ONHOST: a host program */
	size_t			*hook;		/* per bench and hook, likewise;
						   RUN_ONHOST also for none */
	struct proto_prog	*progs;		/* host programs recorded */
	size_t			 nprogs;
	size_t			*data;		/* per bench file, flattened */
	struct proto_plan	 plan;
	size_t			 done;		/* samples received */
	size_t			 total;		/* steps in the plan */
	uint32_t		 round;		/* last round seen */
	int64_t			 started_ms;
	uint64_t		 pushed;	/* bytes */
	int			 opened;
	char			 state[256];	/* the agent's last STATUS */
	uint32_t		*seen;		/* per step: attempt bits, and
					   RUN_STEP_ENDED */
	int64_t			 max_seq;	/* highest seq stored, or -1 */
	int			 restarts;	/* agents started again */
	int			 detached;	/* left measuring: not ended */
	size_t			 measured;	/* measured runs stored */
	size_t			 measured_now;	/* of them, stored by us */
	size_t			 measured_total; /* measured runs in the plan */
	size_t			 failed;	/* samples stored that failed */
	int64_t			 wait_line_ms;	/* last load-wait line shown */
	uint8_t			*told;		/* per cmd: a failure shown */
	/* rounds = auto (coordinator/analysis/seq.h) */
	uint32_t		*round_end;	/* [R]: steps of rounds <= R */
	uint32_t		 granted;	/* rounds the agent may run */
	size_t			 ndecided;	/* at the last look */
	size_t			 nprimary;
	int			 stop;		/* enum seq_stop, last look */
	int			 ended;		/* host_run returned */
	struct run_peer		 peer;		/* run-peer.c */
};

struct run {
	const struct run_opts	*opts;
	struct suite		*suite;
	char			 run_id[64];
	char			 dir[PATH_MAX];
	struct record		 rec;
	struct plan_entry	*order;
	size_t			 norder;
	struct run_host		*rh;
	size_t			 nrh;
	pthread_mutex_t		 mtx;		/* progress output */
	int			 tty;
	int64_t			 last_draw_ms;
	const struct dataset	*ds;		/* resuming: the record */
	double			 opt_max_load;	/* --max-load or the record's */
	atomic_size_t		 stored;	/* samples in the record; every
						   host thread adds */
	struct run_slurm	*slurm;		/* the Slurm hosts' jobs */
	size_t			 nslurm;
};

#define RUN_ONHOST		SIZE_MAX	/* no file: the host's own */

#define RUN_EV_SAMPLE	0	/* a sample arrived */
#define RUN_EV_ROUND	1	/* a host started a new round */
#define RUN_EV_END	2	/* a host finished */
#define RUN_EV_LOOK	3	/* rounds = auto: a host was looked at */

/* The signal that stops the run (run.c), 0 until one comes. */
extern atomic_int		run_stop;

/* The hooks' names, by SUITE_HOOK_* (run-files.c). */
extern const char *const	run_files_hook_names[SUITE_NHOOKS];

/*
 * run-progress.c: shows what ev (RUN_EV_*) changed of rh. run_progress_tty
 * says whether stderr takes the redrawn lines: a terminal, NO_COLOR empty
 * or unset, TERM set and not "dumb"; else plain lines.
 */
void	run_progress(struct run *run, struct run_host *rh, int ev);
int	run_progress_tty(void);

/*
 * run-files.c: resolves rh's files for its os/arch, every one of which
 * must exist; returns 0 or -1 (cause). run_files_record records them,
 * fresh saying which were pushed just now.
 */
int	run_files_resolve(struct run *run, struct run_host *rh, char **cause);
void	run_files_record(struct run *run, struct run_host *rh,
	    const int *fresh);

/* run-plan.c: builds rh's plan message; run_plan_free frees one. */
void	run_plan_build(struct run *run, struct run_host *rh);
void	run_plan_free(struct proto_plan *p);

/*
 * run-looks.c, rounds = auto: opens rh's plan at its first grant; at the
 * end of a grant, looks at the host's record and grants it the next block
 * or ends it.
 */
void	run_looks_open(struct run *run, struct run_host *rh);
void	run_looks_grant(struct run *run, struct run_host *rh);

/*
 * run-peer.c: what an agent sends, checked against its host's plan and
 * bounded. run_peer_sample: 0 when smp is in the plan, else -1 with the
 * host refused (host_refuse). run_peer_status: 0 when a STATUS may be
 * recorded. run_peer_duplicate: 0 while re-sent samples stay within what
 * a journal holds. run_peer_grant: answers a waiting-grant, by a look at most
 * once per block. run_peer_progs: 0 when a PROGS is of the plan.
 * run_peer_session: an agent (started again) is handed the plan.
 */
int	run_peer_sample(struct run_host *rh, const struct proto_sample *smp);
int	run_peer_duplicate(struct run_host *rh);
int	run_peer_status(struct run_host *rh);
void	run_peer_grant(struct run *run, struct run_host *rh);
int	run_peer_progs(struct run_host *rh, const struct proto_progs *ps);
void	run_peer_session(struct run_host *rh);

/*
 * run-ident.c: refuses two opened hosts that are one machine and one
 * workdir (returns -1, cause naming both) and says which share a machine
 * with workdirs of their own (returns 0).
 */
int	run_ident_check(const struct run *run, char **cause);

/*
 * run-ident.c: shows that rh's agent waits for the host's run lock, which
 * another run holds (a STATUS "waiting-host"): a line at least every 30 s
 * naming that run, with the time left of load_wait.
 */
void	run_ident_wait(struct run *run, struct run_host *rh,
	    const struct proto_state *st);

/* run-host.c: runs one host (a struct run_host *) to its end. */
void	*run_host_thread(void *arg);

/*
 * run-resume.c: takes a run up from DIR's record (returns 0 or -1, cause);
 * marks what a host already stored.
 */
int	run_resume_prepare(struct run *run, const char *dir,
	    struct dataset **dsp, char **cause);
void	run_resume_host(struct run_host *rh, const struct dataset *ds);

/*
 * run-new.c: prepares a new run (returns 0 or -1, cause); creates DIR and
 * DIR/logs, 0700 when new (returns 0 or -1, cause).
 */
int	run_new_prepare(struct run *run, char **cause);
int	run_new_dirs(const char *dir, char **cause);

/*
 * run-finish.c: the end of a run that ran (returns the exit code); whether
 * a host was left measuring; leaving the run to its agents (returns the
 * exit code); ending a run that did not start.
 */
int	run_finish(struct run *run, char **cause);
int	run_finish_detached(const struct run *run);
int	run_finish_detach(struct run *run, const char *at);
void	run_finish_abandon(struct run *run, int record_ok);

/*
 * run-slurm.c: before any host is connected, allocates (new run) or finds
 * again (ds: resuming) each Slurm host's job, checks its node is held
 * alone, and points the host at it (returns 0 or -1, cause; the jobs made
 * stay in run->slurm for run_slurm_abandon). run_slurm_record writes the
 * alloc records of the jobs made; run_slurm_release cancels every job and
 * (record) writes its release record (returns 0, or -1 having said which
 * job is left); run_slurm_abandon cancels only the jobs this coordinator
 * made; run_slurm_detach says which jobs stay allocated, until when.
 * run_slurm_point_hosts points hosts at their recorded nodes and
 * run_slurm_stop cancels ds's jobs not yet released (orch stop; returns
 * 0 or -1).
 */
int	run_slurm_prepare(struct run *run, const struct dataset *ds,
	    char **cause);
void	run_slurm_record(struct run *run);
int	run_slurm_release(struct run *run, int record, const char *at);
void	run_slurm_abandon(struct run *run);
void	run_slurm_detach(const struct run *run);
void	run_slurm_point_hosts(const struct dataset *ds, struct host *hosts,
	    size_t n);
int	run_slurm_stop(const struct dataset *ds);
void	run_slurm_free(struct run *run);

#endif
