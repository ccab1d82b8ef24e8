/*
 * The sweep of a benchmark's descendants: every process whose chain of
 * parents leads to the agent is killed, and the agent's own children among
 * them reaped. With a subreaper (Linux) a double-forked daemon is the
 * agent's child once its parent exits; elsewhere it is found while its
 * chain still leads here.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/proc.h"
#include "proto/log.h"

#define PROC_SWEEP_ROUNDS	200	/* rounds of at most ... */
#define PROC_SWEEP_PAUSE_NS	5000000L	/* ... 5 ms: about a second */

/* Orders entries by pid, for bsearch. */
static int
proc_cmp(const void *a, const void *b)
{
	const struct proc_entry	*x = a, *y = b;

	return (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/* Returns the entry of pid in the sorted list, or NULL. */
static struct proc_entry *
proc_find(struct proc_entry *list, size_t n, pid_t pid)
{
	struct proc_entry	key;

	key.pid = pid;
	return (bsearch(&key, list, n, sizeof *list, proc_cmp));
}

/*
 * Marks in mark[] the descendants of self in the sorted list. Returns how
 * many there are.
 */
static size_t
proc_mark(struct proc_entry *list, size_t n, pid_t self, unsigned char *mark)
{
	struct proc_entry	*p;
	size_t			 i, found = 0;
	int			 changed = 1;

	while (changed) {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (mark[i] || list[i].pid == self)
				continue;
			if (list[i].ppid == self ||
			    ((p = proc_find(list, n, list[i].ppid)) != NULL &&
			    mark[p - list])) {
				mark[i] = 1;
				found++;
				changed = 1;
			}
		}
	}
	return (found);
}

/*
 * Returns 1 when this process has no child at all, live or zombie (and so
 * no descendant: every chain of parents to it passes through a child).
 * Reaps nothing.
 */
static int
proc_childless(void)
{
	siginfo_t	si;

	memset(&si, 0, sizeof si);
	return (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == -1 &&
	    errno == ECHILD);
}

int
proc_sweep(pid_t keep)
{
	struct timespec		 ts = { 0, PROC_SWEEP_PAUSE_NS };
	struct proc_entry	*list = NULL;
	unsigned char		*mark = NULL;
	pid_t			 self = getpid();
	size_t			 n, i, left = 0;
	int			 round, killed = 0;

	for (round = 0; round < PROC_SWEEP_ROUNDS; round++) {
		/* The usual case, and cheap: no process list to read. */
		if (keep == 0 && proc_childless()) {
			left = 0;
			break;
		}
		if (proc_list(&list, &n) == -1) {
			log_warn("cannot list processes to end the "
			    "benchmark's");
			return (-1);
		}
		qsort(list, n, sizeof *list, proc_cmp);
		if ((mark = calloc(n + 1, 1)) == NULL) {
			free(list);
			return (-1);
		}
		proc_mark(list, n, self, mark);
		left = 0;
		for (i = 0; i < n; i++) {
			if (!mark[i])
				continue;
			if (!list[i].zombie) {
				if (kill(list[i].pid, SIGKILL) == 0)
					killed++;
				left++;
			} else if (list[i].pid != keep)
				left++;
			/* Zombies of ours are reaped; others reparent here. */
			if (list[i].ppid == self && list[i].pid != keep &&
			    waitpid(list[i].pid, NULL, WNOHANG) > 0 &&
			    list[i].zombie)
				left--;
		}
		free(mark);
		free(list);
		mark = NULL;
		list = NULL;
		if (left == 0)
			break;
		nanosleep(&ts, NULL);
	}
	if (left != 0)
		log_warnx("%zu processes of the benchmark are still there",
		    left);
	else if (killed > 0)
		log_debug("killed %d processes the benchmark left", killed);
	return (killed);
}
