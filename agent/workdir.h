/*
 * The workdir, WORKDIR: the directories the agent makes and trusts, and
 * the host's run lock, WORKDIR/run.lock.
 */
#ifndef AGENT_WORKDIR_H
#define AGENT_WORKDIR_H

#include <stddef.h>

#define WORKDIR_LOCK_WAIT	10000	/* ms for a lock holder to stop */

/* Creates dir and its parents, mode 0700. Returns 0 or -1 (errno). */
int	workdir_mkdirs(const char *dir);

/*
 * Refuses a directory that is not this user's or that others may write to,
 * and takes away others' read and search rights from one that is. Returns
 * 0, or -1 with the reason in why.
 */
int	workdir_check(const char *dir, char *why, size_t len);

/* How a run lock held by an agent of the same run and host is taken. */
enum workdir_take {
	WORKDIR_TAKE_STOP,	/* stop it (SIGTERM): an attempt in flight
				   is killed, to be run again */
	WORKDIR_TAKE_ASK,	/* ask it (SIGUSR1) to end its attempt in
				   flight, journal it and go */
	WORKDIR_TAKE_WAIT	/* asked before: see whether it went */
};

/*
 * Takes the host's run lock for run_id, serving inventory name host (""
 * unknown): one run per host at a time. When an agent of run_id for the
 * same host holds it (a resume after the coordinator was lost), takes it
 * over as how says; one that serves another host name is never taken
 * over. Returns the lock's fd (closing it lets go), or -1 (busy; -2:
 * held for another host name of run_id; -3: the agent asked to hand over
 * holds it still) with who holds it in why.
 */
int	workdir_lock(const char *workdir, const char *run_id,
	    const char *host, enum workdir_take how, char *why, size_t len);

/*
 * Reads who holds the run lock into held. Returns 1 when an agent holds
 * it, 0 when nobody does, -1 on error.
 */
int	workdir_lock_holder(const char *workdir, char *held, size_t len);

/*
 * Returns 1 with its pid in *pid when held, the lock's first line, names
 * an agent of run_id; 0 when it names another run.
 */
int	workdir_holder_of(const char *held, const char *run_id, long *pid);

#endif
