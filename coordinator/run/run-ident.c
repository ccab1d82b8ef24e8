/*
 * One machine, one host: before anything is measured, two hosts of a run
 * that are one machine and one workdir are refused (their agents would
 * share a run lock and a journal, and the evidence would count twice);
 * two hosts of one machine with their own workdirs are said to share it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/tty.h"
#include "coordinator/run/run-int.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

/* The agent says it every 5 s: a line every 25 s is one at least every 30. */
#define RUN_IDENT_LINE_MS	25000

/* Returns 1 when opened hosts a and b said they are one machine. */
static int
run_ident_machine(const struct host *a, const struct host *b)
{
	return (a->facts.machine[0] != '\0' &&
	    strcmp(a->facts.machine, b->facts.machine) == 0);
}

/* Refuses two hosts of one machine and workdir; says who share one. */
int
run_ident_check(const struct run *run, char **cause)
{
	const struct host	*a, *b;
	char			 wa[512], wb[512];
	size_t			 i, j;

	for (i = 0; i < run->nrh; i++) {
		a = run->rh[i].h;
		for (j = i + 1; j < run->nrh && run->rh[i].opened; j++) {
			b = run->rh[j].h;
			if (!run->rh[j].opened || !run_ident_machine(a, b))
				continue;
			/* An agent's path is its own bytes: made plain. */
			snprintf(wa, sizeof wa, "%s", a->facts.workdir);
			snprintf(wb, sizeof wb, "%s", b->facts.workdir);
			tty_clean(wa, 0);
			tty_clean(wb, 0);
			if (a->facts.workdir_dev == b->facts.workdir_dev &&
			    a->facts.workdir_ino == b->facts.workdir_ino) {
				xasprintf(cause, "hosts %s and %s are the same "
				    "machine and workdir (%s): their agents "
				    "would share one run lock and one journal, "
				    "and each result would count twice; name "
				    "the machine once in --hosts, or give one "
				    "of them its own workdir (workdir = in its "
				    "[host.NAME] of the inventory)", a->name,
				    b->name, wa);
				return (-1);
			}
			fprintf(stderr, "orch: hosts %s and %s share a machine "
			    "(workdirs %s and %s): their comparisons are not "
			    "independent, and the geometric mean counts them "
			    "as one machine\n", a->name, b->name, wa, wb);
		}
	}
	return (0);
}

/* Writes a duration as "4m05s" or "7s". */
static void
run_ident_dur(int64_t ms, char *buf, size_t len)
{
	int64_t	sec = ms > 0 ? (ms + 999) / 1000 : 0;

	if (sec >= 60)
		snprintf(buf, len, "%lldm%02llds", (long long)(sec / 60),
		    (long long)(sec % 60));
	else
		snprintf(buf, len, "%llds", (long long)sec);
}

/* Shows a host waiting for another run's lock, every RUN_IDENT_LINE_MS. */
void
run_ident_wait(struct run *run, struct run_host *rh,
    const struct proto_state *st)
{
	char	detail[sizeof st->detail], left[32], all[32], line[512];

	snprintf(detail, sizeof detail, "%s", st->detail);
	tty_clean(detail, 0);	/* the lock's words are the holder's */
	run_ident_dur((int64_t)rh->plan.load_wait_ms - st->waited_ms, left,
	    sizeof left);
	run_ident_dur(rh->plan.load_wait_ms, all, sizeof all);
	snprintf(line, sizeof line, "waiting: %s; %s left of load_wait %s: "
	    "it starts once that run lets go", detail, left, all);
	pthread_mutex_lock(&run->mtx);
	snprintf(rh->state, sizeof rh->state, "%s", line);
	if (!run->tty && (rh->wait_line_ms == 0 ||
	    util_now_ms() - rh->wait_line_ms >= RUN_IDENT_LINE_MS)) {
		fprintf(stderr, "orch: %s: %s\n", rh->h->name, line);
		rh->wait_line_ms = util_now_ms();
	}
	pthread_mutex_unlock(&run->mtx);
	run_progress(run, rh, RUN_EV_SAMPLE);
}
