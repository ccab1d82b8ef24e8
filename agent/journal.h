/*
 * The journal, WORKDIR/runs/ID/journal: what this host did for a run,
 * written and flushed before it is sent, so a lost coordinator loses
 * nothing and a resumed run goes on where its lost agent stopped.
 */
#ifndef AGENT_JOURNAL_H
#define AGENT_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "agent/proc.h"
#include "proto/proto.h"

#define JOURNAL_STOP_WHY	256	/* the words of a 'K' record, at most */

/* What a journal read back says of a plan's steps. */
struct journal_progress {
	uint32_t	*started;	/* per step: last attempt started */
	uint32_t	*pid;		/* per step: its benchmark's pid */
	/* per step: and who it was */
	char		(*ident)[PROC_IDENT_LEN];
	uint32_t	*ended;		/* per step: last attempt ended */
	uint8_t		*status;	/* per step: status of that attempt */
	uint32_t	 nsamples;
	int64_t		 last_seq;	/* -1: none */
	int		 resumed;	/* the journal held records already */
	uint32_t	 granted;	/* the largest 'G' record; 0 none */
	int		 final;		/* a 'G' record ended the plan */
	uint8_t		*stopped;	/* per cmd: its bench stopped after
					   round 1 ('K' records) */
	/* per cmd: why, "" none */
	char		(*stop_why)[JOURNAL_STOP_WHY];
};

/* Called for each journaled sample the coordinator does not have. */
typedef void	(*journal_resend_cb)(const struct proto_msg *, void *);

/*
 * Opens RUNDIR/journal for plan, for the host named host ("" unknown): a
 * new one, or the one a lost agent of run_id for that host left, whose
 * records fill pr (free with journal_progress_free, also on failure); the
 * journal of another host name is refused. A record cut short by a crash
 * is dropped. Calls resend for each sample with seq > plan->resume_seq.
 * Returns the journal's fd, open for appending, or -1 with a reason in
 * why.
 */
int	journal_open(const char *rundir, const char *run_id, const char *host,
	    const struct proto_plan *plan, struct journal_progress *pr,
	    journal_resend_cb resend, void *arg, char *why, size_t len);

/*
 * Returns 0 when RUNDIR/journal was started for another plan than plan,
 * else 1 (the same plan, no journal, or one too short to tell): checked
 * before a resume stops the agent measuring that journal.
 */
int	journal_same_plan(const char *rundir, const struct proto_plan *plan);

/* Frees what journal_open allocated in pr. */
void	journal_progress_free(struct journal_progress *pr);

/* Returns 1 when step i of plan needs no further attempt. */
int	journal_step_done(const struct proto_plan *plan,
	    const struct journal_progress *pr, uint32_t i);

/*
 * Journals that an attempt started, without flushing it: lost, its attempt
 * simply never happened. Returns 0 or -1 (errno).
 */
/*
 * Journals, flushed, a GRANT of an open plan: steps [0, granted) may run,
 * and final says the plan ends there. Returns 0 or -1 (errno).
 */
int	journal_granted(int fd, uint32_t granted, int final);

int	journal_started(int fd, uint32_t step, uint32_t attempt);

/*
 * Journals, flushed, that the bench of command cmd stopped after its
 * first round, and why (cut to JOURNAL_STOP_WHY - 1 bytes): a resumed
 * agent skips its steps too. Returns 0 or -1 (errno).
 */
int	journal_stopped(int fd, uint32_t cmd, const char *why);

/*
 * Journals the pid of an attempt's benchmark, just started, and ident,
 * what identifies that process ("" when unknown), without flushing it.
 * Returns 0 or -1 (errno).
 */
int	journal_running(int fd, uint32_t step, uint32_t attempt, uint32_t pid,
	    const char *ident);

/*
 * Journals a SAMPLE message, encoded by proto_encode (buf, len: the very
 * bytes the SAMPLE frame seals), without flushing it: the samples of a
 * batch are flushed once, by journal_sync, once they are sent.
 * Returns 0 or -1 (errno).
 */
int	journal_result(int fd, const uint8_t *buf, size_t len);

/* Flushes what was journaled to disk. Returns 0 or -1 (errno). */
int	journal_sync(int fd);

/* Counts the samples in run_id's journal; -1 when there is none. */
long	journal_count(const char *workdir, const char *run_id);

#endif
