/*
 * Inside `orch-agent serve`: the session's state, shared by the files of
 * agent/serve*.c. main.c sees serve.h only.
 */
#ifndef AGENT_SERVE_INT_H
#define AGENT_SERVE_INT_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/cache.h"
#include "proto/chan.h"
#include "proto/proto.h"

struct serve_opts;

#define SERVE_GONE		-2	/* serve_msg_wait: stdin closed */
#define SERVE_STOP		-3	/* SIGTERM, SIGINT or BYE: stop now */

/* A host program of the plan, resolved on this host. */
struct serve_prog {
	char			 name[PROTO_PROG_MAX];	/* as the plan says */
	struct cache_file	 f;		/* found, hashed, open */
	char			 version[PROTO_VERSION_LINE];
};

/* A sample journaled (not yet flushed) and not yet sent: a batch's. */
struct serve_pend {
	uint8_t			*buf;		/* its encoding; flush frees */
	size_t			 len;
	uint32_t		 seq;
};

/* What became of a hook command in this session. */
enum serve_hook_state { HOOK_NOT_RUN, HOOK_OK, HOOK_FAILED };

struct serve {
	const struct serve_opts	*opts;
	char			 workdir[PATH_MAX];
	char			 rundir[PATH_MAX];
	char			 sockpath[PATH_MAX];	/* our socket, or "" */
	char			 sockdir[PATH_MAX];	/* its own dir, or "" */
	char			 run_id[64];
	char			 host[64];	/* the inventory name served
						   (HELLO), "" unknown */
	struct chan		 chan;
	uint32_t		 seq;		/* next sample's seq */
	int64_t			 sent;		/* last seq sent this session,
						   or -1 */
	int64_t			 acked;		/* highest seq acknowledged,
						   or -1 */
	int			 bye;		/* BYE received */
	int			 lockfd;	/* WORKDIR/run.lock, held while
						   a plan runs */
	struct cache		 cache;		/* WORKDIR/cache, and what it
						   verified */
	char			 null_sha[PROTO_SHA_HEX];	/* orch-null in
						   the cache, or "" */
	double			 self_load;	/* our own share of the load
						   average */
	int64_t			 self_at;	/* when self_load was last
						   brought up to date */
	int			 self_running;	/* a benchmark of ours runs */
	const char		*counters;	/* the plan's, when the kernel
						   allows */
	char			 ctrlist[128];	/* those the kernel accepted */
	const char		*pin;		/* the plan's, where the OS
						   pins */
	int			 detached;	/* stdin closed: no peer */
	int			 journal;	/* WORKDIR/runs/ID/journal */
	int			 plan_done;	/* every step ran (or was
						   refused) */
	uint32_t		 granted;	/* an open plan runs steps
						   [0, granted); 0: all */
	int			 final;		/* it ends at granted */
	uint32_t		 linger_ms;	/* the plan's */
	uint32_t		 cur_step;	/* what runs now, for the
						   journal */
	uint32_t		 cur_attempt;
	struct serve_prog	*progs;		/* the plan's host programs */
	size_t			 nprogs;
	uint8_t			*hook_state;	/* per cmd: enum
						   serve_hook_state */
	char			(*hook_why)[PROTO_TAIL_MAX];	/* per cmd */
	uint8_t			*cleanup_due;	/* per cmd: a cleanup to run */
	uint32_t		*cleanup_last;	/* per cmd: its last step */
	char			 hook_failed[256];	/* a cleanup failed */
	uint8_t			*cmd_ran;	/* per cmd: a step ended */
	uint8_t			*no_retry;	/* per cmd: its first step
						   failed every attempt: no
						   more retries */
	uint8_t			*stopped;	/* per cmd: its bench stopped
						   after round 1 */
	struct serve_pend	*pend;		/* the batch: journaled, not
						   flushed nor sent */
	size_t			 npend;
	size_t			 pend_cap;
	int64_t			 pend_since;	/* when its first was added */
	uint32_t		 nunsynced;	/* samples journaled since the
						   last fsync */
	int64_t			 unsynced_since;	/* when the first of
							   them was */
};

/*
 * serve.c: closed by SIGTERM and SIGINT (its read end then polls EOF); its
 * write end is serve.c's own once set up.
 */
extern int			serve_stop_pipe[2];
extern volatile sig_atomic_t	serve_stopped;

/*
 * serve.c: an attempt's bounds, from before its journal record to after
 * its sample's. A handover (SIGUSR1) that comes inside waits for the end
 * (then the stop pipe closes); begin returns SERVE_STOP, nothing started,
 * when one came before, else 0.
 */
int	serve_attempt_begin(void);
void	serve_attempt_end(void);

/*
 * serve-msg.c: waits at most timeout_ms for the next message, watching
 * the lifeline and the stop pipe (returns 0 with msg filled, CHAN_TIMEOUT,
 * SERVE_GONE once when stdin closes, SERVE_STOP, or -1); sends msg, an
 * ERROR, a STATUS or a "note" STATUS.
 */
int	serve_msg_wait(struct serve *s, struct proto_msg *msg, int timeout_ms);
int	serve_msg_send(struct serve *s, const struct proto_msg *msg);
int	serve_msg_error(struct serve *s, const char *code, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));
void	serve_msg_status(struct serve *s, const char *state, double load,
	    double limit, uint32_t waited_ms, const char *detail);
void	serve_msg_note(struct serve *s, const char *what, const char *why);

/*
 * serve-msg.c, while a plan runs: handles one message that arrived (frees
 * it; returns -1 at BYE, else 0); handles those waiting, waits for the
 * last sample's ACK (both return 0 or SERVE_STOP); journals a sample into
 * the batch (returns 0 or -1); sends the batch, then flushes the journal
 * to disk once its oldest unflushed sample is SERVE_SYNC_MS old, or
 * always (both return 0 or -1); says whether the batch is old enough to
 * send, at a round's end or before it (1), or not (0); resends a
 * journaled one (journal_resend_cb).
 */
int	serve_msg_between(struct serve *s, struct proto_msg *msg);
int	serve_msg_poll(struct serve *s);
int	serve_msg_settle(struct serve *s);
int	serve_msg_sample(struct serve *s, const struct proto_msg *msg);
int	serve_msg_flush(struct serve *s);
int	serve_msg_flush_sync(struct serve *s);
int	serve_msg_batch_due(const struct serve *s, int round_end);
void	serve_msg_resend(const struct proto_msg *msg, void *arg);

/*
 * serve-gate.c: our own share of the load, brought up to date; the wait
 * for a GRANT at the end of a grant (returns 0 when step i may run, 1
 * when the plan ends before it, SERVE_STOP or -1); the wait
 * for a quiet host (returns 0 when quiet, 1 when still busy with reason
 * filled, SERVE_STOP or -1).
 */
void	serve_gate_self_load(struct serve *s, int running);
int	serve_gate_wait_grant(struct serve *s, uint32_t i);
int	serve_gate_settle(struct serve *s, const struct proto_plan *plan);
int	serve_gate_quiet(struct serve *s, const struct proto_plan *plan,
	    char *reason, size_t len);

/*
 * serve-exec.c: a command's environment (free the array, not its
 * strings); one run of cmd into smp (hook: a hook's, neither pinned,
 * counted nor journaled); one attempt of a step into smp. Both return 0
 * or SERVE_STOP.
 */
char	**serve_exec_envp(const struct proto_cmd *cmd);
int	serve_exec_run(struct serve *s, const struct proto_plan *plan,
	    const struct cache_file *files, const struct proto_cmd *cmd,
	    struct proto_sample *smp, int hook);
int	serve_exec_step(struct serve *s, const struct proto_plan *plan,
	    const struct cache_file *files, uint32_t stepno, uint32_t attempt,
	    struct proto_sample *smp);

/*
 * serve-hook.c: command c's hook k (PROTO_HOOK_*) or -1; the bookkeeping
 * of a plan's hooks, set up and freed; a bench's setup and cleanup; one
 * attempt of step i with its hooks. Those that run return 0 or
 * SERVE_STOP.
 */
int32_t	serve_hook_of(const struct proto_cmd *c, int k);
void	serve_hook_init(struct serve *s, const struct proto_plan *plan);
void	serve_hook_free(struct serve *s);
int	serve_hook_setup(struct serve *s, const struct proto_plan *plan,
	    const struct cache_file *files, const struct proto_cmd *cmd);
int	serve_hook_cleanup(struct serve *s, const struct proto_plan *plan,
	    const struct cache_file *files, int32_t k);
int	serve_hook_attempt(struct serve *s, const struct proto_plan *plan,
	    const struct cache_file *files, uint32_t i, uint32_t attempt,
	    struct proto_sample *smp);

/*
 * serve-busy.c: takes the host's run lock, waiting while another run's
 * agent holds it, at most the plan's load_wait_ms, with a STATUS
 * "waiting-host" every few seconds. Returns the lock's fd, or -1 with
 * the error's code ("busy", "workdir") and words in why.
 */
int	serve_busy_lock(struct serve *s, const struct proto_plan *plan,
	    const char **code, char *why, size_t len);

/* serve-plan.c: runs a PLAN to its DONE. Returns 0, SERVE_STOP, or -1. */
int	serve_plan(struct serve *s, const struct proto_plan *plan);

#endif
