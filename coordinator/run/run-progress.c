/*
 * `orch run`'s progress on stderr: on a terminal one redrawn line per
 * host; otherwise plain lines at rounds, looks and each host's end.
 */
#include <sys/ioctl.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/seq.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/tty.h"
#include "coordinator/run/run-int.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

#define RP_LINE		512	/* bytes of one host's line, at most */

/*
 * The lines on the terminal: the last frame drawn, and how many of its
 * lines show now (0 while a log line is written). Their own lock, taken
 * after run->mtx or the log's, never before either.
 */
static pthread_mutex_t	 rp_mtx = PTHREAD_MUTEX_INITIALIZER;
static char		*rp_frame;
static int		 rp_lines, rp_shown;

int
run_progress_tty(void)
{
	const char	*nc = getenv("NO_COLOR"), *term = getenv("TERM");

	return (isatty(2) && (nc == NULL || *nc == '\0') && term != NULL &&
	    *term != '\0' && strcmp(term, "dumb") != 0);
}

/* Returns the columns of the terminal's line, less one: no wrapping. */
static int
run_progress_cols(void)
{
	struct winsize	ws;

	if (ioctl(2, TIOCGWINSZ, &ws) == -1 || ws.ws_col < 40)
		return (79);
	return (ws.ws_col - 1 < RP_LINE - 1 ? ws.ws_col - 1 : RP_LINE - 1);
}

/* Draws the frame again where it stands (rp_mtx held). */
static void
rp_show(void)
{
	if (rp_frame == NULL)
		return;
	if (rp_shown > 0)
		fprintf(stderr, "\033[%dA", rp_shown);
	fprintf(stderr, "\r%s", rp_frame);
	rp_shown = rp_lines;
	fflush(stderr);
}

/* The log's hook: clears the lines before a log line, redraws them after. */
static void
rp_hook(int before)
{
	pthread_mutex_lock(&rp_mtx);
	if (before && rp_shown > 0) {
		fprintf(stderr, "\033[%dA\r\033[J", rp_shown);
		rp_shown = 0;
	} else if (!before)
		rp_show();
	pthread_mutex_unlock(&rp_mtx);
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

/* Writes what x's line says after its name into buf. */
static void
run_progress_line(const struct run *run, const struct run_host *x,
    int64_t now, char *buf, size_t len)
{
	char	eta_s[64];

	if (x->detached)
		snprintf(buf, len, "left to its agent: %zu/%zu measured runs",
		    x->measured, x->measured_total);
	else if (x->h->status != HOST_OK)
		snprintf(buf, len, "failed: %s", x->h->error);
	else if ((x->done >= x->total && x->total > 0) || x->ended)
		snprintf(buf, len, "done: %zu measured runs, %zu failed%s%s",
		    x->measured, x->failed, run->suite->auto_rounds ? ", " : "",
		    run->suite->auto_rounds ?
		    seq_stop_name((enum seq_stop)x->stop) : "");
	else if (run->suite->auto_rounds && x->state[0] == '\0')
		snprintf(buf, len, "round %u/%u  %zu/%zu comparisons decided, "
		    "%zu failed", x->round > 0 ? x->round : 1,
		    run->suite->rounds, x->ndecided, x->nprimary, x->failed);
	else if (!x->opened)
		snprintf(buf, len, "connecting");
	else if (x->state[0] != '\0')
		snprintf(buf, len, "%s", x->state);
	else
		snprintf(buf, len, "round %u/%u  %zu/%zu measured runs, %zu "
		    "failed%s", x->round > 0 ? x->round : 1, run->suite->rounds,
		    x->measured, x->measured_total, x->failed,
		    run_progress_eta(x, now, eta_s, sizeof eta_s));
}

/*
 * Draws one line per host over the last frame (run->mtx held), each made
 * safe and cut to the terminal's width; once every host has ended, leaves
 * the frame on the screen and the log to write below it.
 */
static void
run_progress_draw(struct run *run, int64_t now)
{
	struct run_host	*x;
	char		 line[RP_LINE], what[RP_LINE], *frame, *p;
	size_t		 i, left, n;
	int		 cols = run_progress_cols(), ended = 1;

	left = run->nrh * (RP_LINE + 8) + 1;
	p = frame = xmalloc(left);
	*p = '\0';
	for (i = 0; i < run->nrh; i++) {
		x = &run->rh[i];
		ended = ended && (x->ended || !x->opened);
		run_progress_line(run, x, now, what, sizeof what);
		snprintf(line, (size_t)cols + 1, "  %-12s %s", x->h->name,
		    what);
		tty_clean(line, 0);	/* a host's name, an agent's words */
		n = (size_t)snprintf(p, left, "\033[K%s\n", line);
		p += n;
		left -= n;
	}
	pthread_mutex_lock(&rp_mtx);
	free(rp_frame);
	rp_frame = frame;
	rp_lines = (int)run->nrh;
	rp_show();
	if (ended) {
		free(rp_frame);
		rp_frame = NULL;
		rp_lines = rp_shown = 0;
	}
	pthread_mutex_unlock(&rp_mtx);
	log_set_hook(ended ? NULL : rp_hook);
}

/*
 * Writes the plain line that ev calls for, if any (run->mtx held): the
 * host's name and its error made safe, as on a terminal.
 */
static void
run_progress_plain(const struct run *run, struct run_host *rh, int ev,
    int64_t now)
{
	char		name[sizeof rh->h->name], error[sizeof rh->h->error];
	char		eta_s[64];
	uint32_t	step;

	snprintf(name, sizeof name, "%s", rh->h->name);
	tty_clean(name, 0);
	step = run->suite->rounds / 10 > 0 ? run->suite->rounds / 10 : 1;
	if (ev == RUN_EV_END && rh->h->status == HOST_OK)
		fprintf(stderr, "orch: %s: done, %zu measured runs\n", name,
		    rh->measured);
	else if (ev == RUN_EV_END) {
		snprintf(error, sizeof error, "%s", rh->h->error);
		fprintf(stderr, "orch: %s: failed after %zu of %zu measured "
		    "runs: %s\n", name, rh->measured, rh->measured_total,
		    tty_clean(error, 0));
	} else if (ev == RUN_EV_LOOK)
		fprintf(stderr, "orch: %s: round %u/%u: %zu of %zu primary "
		    "comparisons decided%s%s\n", name, rh->round,
		    run->suite->rounds, rh->ndecided, rh->nprimary,
		    rh->stop != SEQ_GOING ? ": stop, " : "",
		    rh->stop != SEQ_GOING ?
		    seq_stop_name((enum seq_stop)rh->stop) : "");
	else if (ev == RUN_EV_ROUND && !run->suite->auto_rounds &&
	    (rh->round - 1) % step == 0)
		fprintf(stderr, "orch: %s: round %u/%u (%zu/%zu measured "
		    "runs%s)\n", name, rh->round, run->suite->rounds,
		    rh->measured, rh->measured_total,
		    run_progress_eta(rh, now, eta_s, sizeof eta_s));
}

/*
 * Shows progress: on a terminal one redrawn line per host, at most ten
 * times a second but at a host's end; otherwise a plain line every tenth
 * of the rounds, from round 1, and when a host finishes. Counts measured
 * runs only: not warmups, not floor runs.
 */
void
run_progress(struct run *run, struct run_host *rh, int ev)
{
	int64_t		 now = util_now_ms();

	pthread_mutex_lock(&run->mtx);
	if (!run->tty) {
		run_progress_plain(run, rh, ev, now);
		goto out;
	}
	if (ev != RUN_EV_END && now - run->last_draw_ms < 100)
		goto out;
	run->last_draw_ms = now;
	run_progress_draw(run, now);
out:
	pthread_mutex_unlock(&run->mtx);
}
