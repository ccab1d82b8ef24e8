/*
 * `orch run`'s progress on stderr: on a terminal one redrawn line per
 * host; otherwise plain lines at rounds, looks and each host's end.
 */
#include <sys/ioctl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>

#include "coordinator/analysis/seq.h"
#include "coordinator/hosts/host.h"
#include "coordinator/run/run-int.h"
#include "proto/util.h"

/* Returns the room on a terminal line after the host's name: no wrapping. */
static int
run_progress_cols(void)
{
	struct winsize	ws;

	if (ioctl(2, TIOCGWINSZ, &ws) == -1 || ws.ws_col < 40)
		return (60);
	return (ws.ws_col - 16);
}

/*
 * Writes ", ETA 1m05s" from the pace of the measured runs so far (warmups
 * and floor runs are not counted, as they are not what is left), or "".
 */
static const char *
run_progress_eta(const struct run_host *rh, int64_t now, char *buf, size_t len)
{
	int64_t	el = now - rh->started_ms, eta;

	buf[0] = '\0';
	if (rh->measured_now == 0 || rh->measured >= rh->measured_total)
		return (buf);
	eta = el * (int64_t)(rh->measured_total - rh->measured) /
	    (int64_t)rh->measured_now / 1000;
	if (eta >= 60)
		snprintf(buf, len, ", ETA %lldm%02llds", (long long)(eta / 60),
		    (long long)(eta % 60));
	else
		snprintf(buf, len, ", ETA %llds", (long long)eta);
	return (buf);
}

/*
 * Shows progress: on a terminal one redrawn line per host; otherwise a
 * plain line every tenth of the rounds, from round 1, and when a host
 * finishes. Counts measured runs only: not warmups, not floor runs.
 */
void
run_progress(struct run *run, struct run_host *rh, int ev)
{
	struct run_host	*x;
	int64_t		 now = util_now_ms();
	uint32_t	 step;
	size_t		 i;
	char		 eta_s[64];

	pthread_mutex_lock(&run->mtx);
	if (!run->tty) {
		step = run->suite->rounds / 10 > 0 ?
		    run->suite->rounds / 10 : 1;
		if (ev == RUN_EV_END && rh->h->status == HOST_OK)
			fprintf(stderr, "orch: %s: done, %zu measured runs\n",
			    rh->h->name, rh->measured);
		else if (ev == RUN_EV_END)
			fprintf(stderr, "orch: %s: failed after %zu of %zu "
			    "measured runs: %s\n", rh->h->name, rh->measured,
			    rh->measured_total, rh->h->error);
		else if (ev == RUN_EV_LOOK)
			fprintf(stderr, "orch: %s: round %u/%u: %zu of %zu "
			    "primary comparisons decided%s%s\n", rh->h->name,
			    rh->round, run->suite->rounds, rh->ndecided,
			    rh->nprimary, rh->stop != SEQ_GOING ? ": stop, " :
			    "", rh->stop != SEQ_GOING ?
			    seq_stop_name((enum seq_stop)rh->stop) : "");
		else if (ev == RUN_EV_ROUND && !run->suite->auto_rounds &&
		    (rh->round - 1) % step == 0)
			fprintf(stderr, "orch: %s: round %u/%u (%zu/%zu "
			    "measured runs%s)\n", rh->h->name, rh->round,
			    run->suite->rounds, rh->measured,
			    rh->measured_total,
			    run_progress_eta(rh, now, eta_s, sizeof eta_s));
		goto out;
	}
	if (ev == RUN_EV_SAMPLE && now - run->last_draw_ms < 100)
		goto out;
	run->last_draw_ms = now;
	if (run->drawn > 0)
		fprintf(stderr, "\033[%dA", run->drawn);
	for (i = 0; i < run->nrh; i++) {
		x = &run->rh[i];
		fprintf(stderr, "\r\033[K  %-12s ", x->h->name);
		if (x->detached)
			fprintf(stderr, "left to its agent: %zu/%zu measured "
			    "runs\n", x->measured, x->measured_total);
		else if (x->h->status != HOST_OK)
			fprintf(stderr, "failed: %.60s\n", x->h->error);
		else if ((x->done >= x->total && x->total > 0) ||
		    (x->ended && run->suite->auto_rounds))
			fprintf(stderr, "done: %zu measured runs%s%s\n",
			    x->measured, run->suite->auto_rounds ? ", " : "",
			    run->suite->auto_rounds ?
			    seq_stop_name((enum seq_stop)x->stop) : "");
		else if (run->suite->auto_rounds && x->state[0] == '\0')
			fprintf(stderr, "round %u/%u  %zu/%zu comparisons "
			    "decided\n", x->round > 0 ? x->round : 1,
			    run->suite->rounds, x->ndecided, x->nprimary);
		else if (!x->opened)
			fprintf(stderr, "connecting\n");
		else if (x->state[0] != '\0')
			fprintf(stderr, "%.*s\n", run_progress_cols(),
			    x->state);
		else
			fprintf(stderr, "round %u/%u  %zu/%zu measured runs"
			    "%s\n", x->round > 0 ? x->round : 1,
			    run->suite->rounds, x->measured, x->measured_total,
			    run_progress_eta(x, now, eta_s, sizeof eta_s));
	}
	run->drawn = (int)run->nrh;
	fflush(stderr);
out:
	pthread_mutex_unlock(&run->mtx);
}
