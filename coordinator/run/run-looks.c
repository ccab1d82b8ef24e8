/*
 * rounds = auto: an open plan's first grant, and the looks at a host's
 * record so far that grant it the next block or end it
 * (coordinator/analysis/seq.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/seq.h"
#include "coordinator/hosts/host.h"
#include "coordinator/run/run-int.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

/*
 * rounds = auto: the plan holds every round up to max_rounds, and the
 * agent may run the first block (a resumed run: up to the block its
 * record reached); each look grants the next (run_looks_grant).
 */
void
run_looks_open(struct run *run, struct run_host *rh)
{
	const struct suite	*s = run->suite;
	struct proto_plan	*p = &rh->plan;
	const struct ds_sample	*smp;
	uint32_t		 r, maxr = 0;
	size_t			 i;
	long			 hi;

	rh->round_end = xcalloc((size_t)s->rounds + 1, sizeof *rh->round_end);
	for (i = 0; i < p->nsteps; i++) {
		r = p->steps[i].round;
		if (r <= s->rounds)
			rh->round_end[r] = (uint32_t)i + 1;
	}
	for (r = 1; r <= s->rounds; r++) {
		if (rh->round_end[r] < rh->round_end[r - 1])
			rh->round_end[r] = rh->round_end[r - 1];
	}
	if (run->ds != NULL &&
	    (hi = dataset_host(run->ds, rh->h->name)) >= 0) {
		for (i = 0; i < run->ds->nsamples; i++) {
			smp = &run->ds->samples[i];
			if (smp->host == (size_t)hi && smp->round > maxr &&
			    smp->round <= s->rounds)
				maxr = smp->round;
		}
	}
	rh->granted = s->min_rounds;
	if (maxr > rh->granted)
		rh->granted = maxr % s->min_rounds == 0 ? maxr :
		    seq_next(maxr, s->min_rounds, s->rounds);
	if (rh->granted > s->rounds)
		rh->granted = s->rounds;
	p->granted = rh->round_end[rh->granted];
	if (p->granted == 0)
		p->granted = (uint32_t)p->nsteps;
}

/*
 * Sends rh's agent a GRANT of steps [0, steps), final or not, and keeps
 * it as the answer to a repeated waiting-grant (run-peer.c).
 */
static void
run_looks_send(struct run_host *rh, uint32_t steps, int final)
{
	rh->peer.grant = steps;
	rh->peer.final = final;
	if (steps > rh->peer.steps)
		rh->peer.steps = steps;
	if (host_grant(rh->h, steps, final) != 0)
		log_warnx("%s: grant: %s", rh->h->name, rh->h->error);
}

/*
 * rounds = auto, the agent at the end of its grant: looks at the host's
 * primary comparisons in the record so far (the analysis tests each at its
 * look's share of alpha, coordinator/analysis/seq.h) and grants the next
 * block, or ends the plan when they are all decided, at max_rounds, or
 * when another block would pass the budget.
 */
void
run_looks_grant(struct run *run, struct run_host *rh)
{
	struct dataset		*ds = NULL;
	struct analysis		*a = NULL;
	const struct rep_host	*ah = NULL;
	char			*cause = NULL;
	uint32_t		 next;
	size_t			 i;
	int			 final = 0;

	/*
	 * A look that cannot be made ends the host where it is: its agent
	 * would otherwise wait for a grant that never comes.
	 */
	if (record_load(run->dir, &ds, &cause) != 0 ||
	    analysis_build(ds, &a, &cause) != 0) {
		log_warnx("%s: look: %s: ending the host at %u rounds",
		    rh->h->name, cause, rh->granted);
		free(cause);
		run_looks_send(rh, rh->round_end[rh->granted], 1);
		goto out;
	}
	for (i = 0; i < a->nhosts; i++) {
		if (strcmp(ds->hosts[a->hosts[i].host].name, rh->h->name) == 0)
			ah = &a->hosts[i];
	}
	if (ah == NULL) {
		log_warnx("%s: look: the host is not in the record: ending it",
		    rh->h->name);
		run_looks_send(rh, rh->round_end[rh->granted], 1);
		goto out;
	}
	pthread_mutex_lock(&run->mtx);
	rh->ndecided = ah->ndecided;
	rh->nprimary = ah->nprimary;
	rh->stop = ah->stop;
	pthread_mutex_unlock(&run->mtx);
	run_progress(run, rh, RUN_EV_LOOK);
	next = rh->granted;
	if (ah->stop != SEQ_GOING)
		final = 1;
	else {
		next = seq_next(ah->rounds_used > rh->granted ?
		    ah->rounds_used : rh->granted, run->suite->min_rounds,
		    run->suite->rounds);
		rh->granted = next;
	}
	log_debug("%s: look at %u rounds: %zu of %zu decided%s%s", rh->h->name,
	    ah->rounds_used, ah->ndecided, ah->nprimary,
	    final ? ": stop, " : "", final ? seq_stop_name(ah->stop) : "");
	run_looks_send(rh, rh->round_end[next], final);
out:
	analysis_free(a);
	dataset_free(ds);
}
