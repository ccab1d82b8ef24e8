/*
 * `orch run`: resolves every host's files before anything runs anywhere,
 * then runs each host's interleaved plan in its own thread, appending
 * samples to DIR/samples.msgpack as they arrive, and renders the reports.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/seq.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/report-export.h"
#include "coordinator/report/report.h"
#include "coordinator/run/plan.h"
#include "coordinator/run/run.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/history.h"
#include "coordinator/store/record.h"
#include "proto/hash.h"
#include "proto/ident.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

/* A file one host needs, resolved for its os/arch. */
struct run_file {
	char	*path;			/* local path */
	char	 sha[PROTO_SHA_HEX];
	int	 executable;
};

/* Per host: its files, its plan and its progress. */
struct run_host {
	struct host		*h;
	struct run		*run;
	size_t			 nfiles;
	struct run_file		*files;
	size_t			*bin;		/* per variant: index into files,
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
	uint32_t		*seen;		/* per step: attempts stored (bits) */
	int64_t			 max_seq;	/* highest seq stored; -1 none */
	int			 restarts;	/* agents lost and started again */
	int			 detached;	/* left measuring: not ended */
	size_t			 measured;	/* measured runs stored */
	size_t			 measured_now;	/* of them, by this coordinator */
	size_t			 measured_total; /* measured runs in the plan */
	int64_t			 wait_line_ms;	/* last load-wait line shown */
	uint8_t			*told;		/* per command: a failure shown */
	/* rounds = auto (coordinator/analysis/seq.h) */
	uint32_t		*round_end;	/* [R]: steps of rounds <= R */
	uint32_t		 granted;	/* rounds the agent may run */
	size_t			 ndecided;	/* at the last look */
	size_t			 nprimary;
	int			 stop;		/* enum seq_stop, last look */
	int			 ended;		/* host_run returned */
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
	int			 drawn;		/* lines drawn on the tty */
	const struct dataset	*ds;		/* resuming: the record so far */
	double			 opt_max_load;	/* --max-load, or the record's */
	size_t			 stored;	/* samples in the record */
};

static volatile sig_atomic_t	run_stop;	/* the signal that stops us */

#define RUN_MAX_RESTARTS	3	/* agents lost per host before giving up */
#define RUN_ONHOST		SIZE_MAX	/* no file: the host's own */

static const char *const run_hook_names[SUITE_NHOOKS] = {
	"prepare", "setup", "cleanup"
};

static void
run_sigint(int sig)
{
	struct sigaction	sa;

	run_stop = sig;
	/* A second Ctrl-C ends orch at once; the agents carry on still. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
}

/* Formats the current UTC time as ISO 8601. */
static void
run_iso_now(char *buf, size_t len)
{
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Creates dir (mode) and its parents (0755). Returns 0 or -1 (errno). */
static int
run_mkdirs(const char *dir, mode_t mode)
{
	char	tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof tmp, "%s", dir);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) == -1 && errno != EEXIST)
			return (-1);
		*p = '/';
	}
	if (mkdir(tmp, mode) == -1 && errno != EEXIST)
		return (-1);
	return (0);
}

/* ---- progress --------------------------------------------------------- */

/* Returns the room on a terminal line after the host's name: no wrapping. */
static int
run_cols(void)
{
	struct winsize	ws;

	if (ioctl(2, TIOCGWINSZ, &ws) == -1 || ws.ws_col < 40)
		return (60);
	return (ws.ws_col - 16);
}

#define RUN_EV_SAMPLE	0	/* a sample arrived */
#define RUN_EV_ROUND	1	/* a host started a new round */
#define RUN_EV_END	2	/* a host finished */
#define RUN_EV_LOOK	3	/* rounds = auto: a host was looked at */

/*
 * Writes ", ETA 1m05s" from the pace of the measured runs so far (warmups
 * and floor runs are not counted, as they are not what is left), or "".
 */
static const char *
run_eta(const struct run_host *rh, int64_t now, char *buf, size_t len)
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
static void
run_progress(struct run *run, struct run_host *rh, int ev)
{
	struct run_host	*x;
	int64_t		 now = util_now_ms();
	uint32_t	 step;
	size_t		 i;
	char		 eta_s[64];

	pthread_mutex_lock(&run->mtx);
	if (!run->tty) {
		step = run->suite->rounds / 10 > 0 ? run->suite->rounds / 10 : 1;
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
			    run->suite->rounds, rh->measured, rh->measured_total,
			    run_eta(rh, now, eta_s, sizeof eta_s));
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
			fprintf(stderr, "%.*s\n", run_cols(), x->state);
		else
			fprintf(stderr, "round %u/%u  %zu/%zu measured runs"
			    "%s\n", x->round > 0 ? x->round : 1,
			    run->suite->rounds, x->measured, x->measured_total,
			    run_eta(x, now, eta_s, sizeof eta_s));
	}
	run->drawn = (int)run->nrh;
	fflush(stderr);
out:
	pthread_mutex_unlock(&run->mtx);
}

/* ---- files ------------------------------------------------------------ */

/* Copies the hash of path when another host of the run has it. Returns 0 or -1. */
static int
run_known_sha(const struct run *run, const char *path, char sha[PROTO_SHA_HEX])
{
	size_t	i, j;

	for (i = 0; i < run->nrh; i++) {
		for (j = 0; j < run->rh[i].nfiles; j++) {
			if (run->rh[i].files[j].path != NULL &&
			    strcmp(run->rh[i].files[j].path, path) == 0) {
				memcpy(sha, run->rh[i].files[j].sha,
				    PROTO_SHA_HEX);
				return (0);
			}
		}
	}
	return (-1);
}

/* Adds path to rh's files (once), hashing it. Returns its index or -1. */
static long
run_add_file(struct run_host *rh, const char *path, int executable,
    char **cause)
{
	struct run_file	*f;
	size_t		 i;

	for (i = 0; i < rh->nfiles; i++) {
		if (strcmp(rh->files[i].path, path) == 0)
			return ((long)i);
	}
	rh->files = xreallocarray(rh->files, rh->nfiles + 1, sizeof *rh->files);
	f = &rh->files[rh->nfiles];
	memset(f, 0, sizeof *f);
	/* A file several hosts need is hashed once per run. */
	if (run_known_sha(rh->run, path, f->sha) != 0 &&
	    hash_file(path, f->sha) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return (-1);
	}
	f->path = xstrdup(path);
	f->executable = executable;
	return ((long)rh->nfiles++);
}

/*
 * Resolves the hooks' programs that are pushed, for the host's os/arch.
 * Returns 0 or -1 (cause).
 */
static int
run_resolve_hooks(struct run *run, struct run_host *rh, char **cause)
{
	const struct suite	*s = run->suite;
	const struct proto_facts *f = &rh->h->facts;
	const struct suite_hook	*hk;
	struct stat		 st;
	char			 path[PATH_MAX];
	size_t			 b, k;
	long			 idx;

	rh->hook = xcalloc(s->nbenches * SUITE_NHOOKS + 1, sizeof *rh->hook);
	for (b = 0; b < s->nbenches; b++) {
		for (k = 0; k < SUITE_NHOOKS; k++) {
			hk = &s->benches[b].hooks[k];
			rh->hook[b * SUITE_NHOOKS + k] = RUN_ONHOST;
			if (hk->nargv == 0 || hk->host != NULL)
				continue;
			if (suite_expand(hk->bin, f->os, f->arch, path,
			    sizeof path) != 0 || stat(path, &st) == -1 ||
			    !S_ISREG(st.st_mode)) {
				xasprintf(cause, "%s:%d: [bench.%s] %s: no "
				    "program for host %s (%s/%s): %s", s->path,
				    hk->line, s->benches[b].name,
				    run_hook_names[k], rh->h->name, f->os,
				    f->arch, hk->bin);
				return (-1);
			}
			if ((idx = run_add_file(rh, path, 1, cause)) < 0)
				return (-1);
			rh->hook[b * SUITE_NHOOKS + k] = (size_t)idx;
		}
	}
	return (0);
}

/*
 * Resolves a host's files for its os/arch: every variant's program and
 * every benchmark's data file must exist. Returns 0 or -1 (cause).
 */
static int
run_resolve(struct run *run, struct run_host *rh, char **cause)
{
	const struct suite	*s = run->suite;
	const struct proto_facts *f = &rh->h->facts;
	struct stat		 st;
	char			 path[PATH_MAX];
	size_t			 v, b, k, nd = 0;
	long			 idx;

	rh->bin = xcalloc(s->nvariants, sizeof *rh->bin);
	for (b = 0; b < s->nbenches; b++)
		nd += s->benches[b].nfiles;
	rh->data = xcalloc(nd + 1, sizeof *rh->data);
	for (v = 0; v < s->nvariants; v++) {
		const struct suite_variant *sv = &s->variants[v];

		if (sv->host != NULL) {
			rh->bin[v] = RUN_ONHOST;	/* the agent finds it */
			continue;
		}
		if (suite_expand(sv->bin, f->os, f->arch, path,
		    sizeof path) != 0) {
			xasprintf(cause, "%s:%d: [variant.%s] bin path too long",
			    s->path, sv->line, sv->name);
			return (-1);
		}
		if (stat(path, &st) == -1 || !S_ISREG(st.st_mode)) {
			xasprintf(cause, "%s:%d: [variant.%s] no program for "
			    "host %s (%s/%s): %s does not exist", s->path,
			    sv->line, sv->name, rh->h->name, f->os, f->arch,
			    path);
			return (-1);
		}
		if ((idx = run_add_file(rh, path, 1, cause)) < 0)
			return (-1);
		rh->bin[v] = (size_t)idx;
	}
	if (run_resolve_hooks(run, rh, cause) != 0)
		return (-1);
	nd = 0;
	for (b = 0; b < s->nbenches; b++) {
		for (k = 0; k < s->benches[b].nfiles; k++) {
			idx = run_add_file(rh, s->benches[b].files[k].path, 0,
			    cause);
			if (idx < 0)
				return (-1);
			rh->data[nd++] = (size_t)idx;
		}
	}
	return (0);
}

/* Replaces each {file:NAME} in arg with the file's path in the host's cache. */
static char *
run_subst(struct run_host *rh, const struct suite_bench *b, size_t dbase,
    const char *arg)
{
	const char	*p, *end;
	char		*out, *o;
	size_t		 k, cap, need, nlen;

	cap = strlen(arg) + 1;
	out = xmalloc(cap);
	o = out;
	for (p = arg; *p != '\0'; ) {
		if (strncmp(p, "{file:", 6) == 0 &&
		    (end = strchr(p + 6, '}')) != NULL) {
			nlen = (size_t)(end - (p + 6));
			for (k = 0; k < b->nfiles; k++) {
				if (strlen(b->files[k].name) == nlen &&
				    strncmp(b->files[k].name, p + 6, nlen) == 0)
					break;
			}
			if (k < b->nfiles) {
				const struct run_file *rf =
				    &rh->files[rh->data[dbase + k]];

				need = (size_t)(o - out) + strlen(
				    rh->h->facts.workdir) + 8 + PROTO_SHA_HEX +
				    strlen(end + 1) + 1;
				if (need > cap) {
					size_t off = (size_t)(o - out);

					cap = need;
					out = xreallocarray(out, 1, cap);
					o = out + off;
				}
				o += sprintf(o, "%s/cache/%s",
				    rh->h->facts.workdir, rf->sha);
				p = end + 1;
				continue;
			}
		}
		*o++ = *p++;
	}
	*o = '\0';
	return (out);
}

/*
 * Adds each bench's hooks to the host's plan as commands that are never
 * steps, and points the bench's commands at them.
 */
static void
run_build_hooks(struct run *run, struct run_host *rh)
{
	const struct suite	*s = run->suite;
	struct proto_plan	*p = &rh->plan;
	const struct suite_hook	*hk;
	struct proto_cmd	*c;
	size_t			 b, k, v, i, dbase = 0, fi;
	int32_t			 idx[SUITE_NHOOKS];

	for (b = 0; b < s->nbenches; b++) {
		const struct suite_bench *sb = &s->benches[b];

		for (k = 0; k < SUITE_NHOOKS; k++) {
			idx[k] = -1;
			hk = &sb->hooks[k];
			if (hk->nargv == 0)
				continue;
			p->cmds = xreallocarray(p->cmds, p->ncmds + 1,
			    sizeof *p->cmds);
			c = &p->cmds[p->ncmds];
			memset(c, 0, sizeof *c);
			snprintf(c->bench, sizeof c->bench, "%s", sb->name);
			fi = rh->hook[b * SUITE_NHOOKS + k];
			if (hk->host != NULL) {
				c->has_host = 1;
				snprintf(c->host, sizeof c->host, "%s",
				    hk->host);
			} else
				memcpy(c->exe, rh->files[fi].sha,
				    PROTO_SHA_HEX);
			c->nargs = hk->nargv - 1;
			c->args = xcalloc(c->nargs + 1, sizeof *c->args);
			for (i = 0; i < c->nargs; i++)
				c->args[i] = run_subst(rh, sb, dbase,
				    hk->argv[i + 1]);
			c->env = xcalloc(1, sizeof *c->env);
			c->timeout_ms = sb->timeout_ms;
			idx[k] = (int32_t)p->ncmds++;
		}
		for (v = 0; v < s->nvariants; v++) {
			c = &p->cmds[b * s->nvariants + v];
			c->has_hooks = idx[0] != -1 || idx[1] != -1 ||
			    idx[2] != -1;
			for (k = 0; k < SUITE_NHOOKS; k++)
				c->hooks[k] = idx[k];
		}
		dbase += sb->nfiles;
	}
}

/*
 * Resuming, a host's load gate and CPU list are the ones its plan had at
 * the start, whatever the inventory says now: its agent's journal holds
 * that plan, and only that plan carries it on.
 */
static void
run_plan_from_record(struct run *run, struct run_host *rh,
    struct proto_plan *p)
{
	const struct ds_host	*dh;
	long			 hi;

	if (run->ds == NULL || (hi = dataset_host(run->ds, rh->h->name)) < 0)
		return;
	dh = &run->ds->hosts[hi];
	if (!dh->has_plan)
		return;
	if (dh->max_load != p->max_load || strcmp(dh->pin, p->pin) != 0)
		log_info("%s: resuming with the plan's load gate %g and pin "
		    "'%s' of the start (now %g and '%s')", rh->h->name,
		    dh->max_load, dh->pin, p->max_load, p->pin);
	p->max_load = dh->max_load;
	p->load_wait_ms = dh->load_wait_ms;
	snprintf(p->pin, sizeof p->pin, "%s", dh->pin);
}

/*
 * rounds = auto: the plan holds every round up to max_rounds, and the
 * agent may run the first block (a resumed run: up to the block its
 * record reached); each look grants the next (run_look).
 */
static void
run_plan_open(struct run *run, struct run_host *rh)
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
 * rounds = auto, the agent at the end of its grant: looks at the host's
 * primary comparisons in the record so far (the analysis tests each at its
 * look's share of alpha, coordinator/analysis/seq.h) and grants the next block, or
 * ends the plan when they are all decided, at max_rounds, or when another
 * block would pass the budget.
 */
static void
run_look(struct run *run, struct run_host *rh)
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
		if (host_grant(rh->h, rh->round_end[rh->granted], 1) != 0)
			log_warnx("%s: grant: %s", rh->h->name, rh->h->error);
		goto out;
	}
	for (i = 0; i < a->nhosts; i++) {
		if (strcmp(ds->hosts[a->hosts[i].host].name, rh->h->name) == 0)
			ah = &a->hosts[i];
	}
	if (ah == NULL) {
		log_warnx("%s: look: the host is not in the record: ending it",
		    rh->h->name);
		if (host_grant(rh->h, rh->round_end[rh->granted], 1) != 0)
			log_warnx("%s: grant: %s", rh->h->name, rh->h->error);
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
	if (host_grant(rh->h, rh->round_end[next], final) != 0)
		log_warnx("%s: grant: %s", rh->h->name, rh->h->error);
out:
	analysis_free(a);
	dataset_free(ds);
}

/*
 * Builds the host's plan message from the suite and the shared order.
 * Long because the plan's parts (files, commands, the floor, the steps)
 * index each other and are filled in one order.
 */
static void
run_build_plan(struct run *run, struct run_host *rh)
{
	const struct suite	*s = run->suite;
	struct proto_plan	*p = &rh->plan;
	struct proto_cmd	*c;
	const char		*null_sha;
	uint32_t		 floor_cmd = 0;
	size_t			 b, v, i, dbase = 0;
	int			 has_floor = 0;

	memset(p, 0, sizeof *p);
	p->nfiles = rh->nfiles;
	p->files = xcalloc(rh->nfiles + 1, sizeof *p->files);
	for (i = 0; i < rh->nfiles; i++)
		memcpy(p->files[i], rh->files[i].sha, PROTO_SHA_HEX);
	p->ncmds = s->nbenches * s->nvariants;
	p->cmds = xcalloc(p->ncmds, sizeof *p->cmds);
	for (b = 0; b < s->nbenches; b++) {
		const struct suite_bench *sb = &s->benches[b];

		for (v = 0; v < s->nvariants; v++) {
			const struct suite_variant *sv = &s->variants[v];

			c = &p->cmds[b * s->nvariants + v];
			snprintf(c->bench, sizeof c->bench, "%s", sb->name);
			snprintf(c->variant, sizeof c->variant, "%s", sv->name);
			if (sv->host != NULL) {
				c->has_host = 1;
				snprintf(c->host, sizeof c->host, "%s",
				    sv->host);
			} else
				memcpy(c->exe, rh->files[rh->bin[v]].sha,
				    PROTO_SHA_HEX);
			c->nargs = sv->nargs + sb->nargs;
			c->args = xcalloc(c->nargs + 1, sizeof *c->args);
			for (i = 0; i < sv->nargs; i++)
				c->args[i] = xstrdup(sv->args[i]);
			for (i = 0; i < sb->nargs; i++)
				c->args[sv->nargs + i] = run_subst(rh, sb,
				    dbase, sb->args[i]);
			c->nenv = sv->nenv;
			c->env = xcalloc(c->nenv + 1, sizeof *c->env);
			for (i = 0; i < sv->nenv; i++)
				c->env[i] = xstrdup(sv->env[i]);
			c->timeout_ms = sb->timeout_ms;
			snprintf(c->checksum_key, sizeof c->checksum_key, "%s",
			    strcmp(sb->checksum, "stdout") == 0 ?
			    PROTO_CHECKSUM_STDOUT : sb->checksum);
		}
		dbase += sb->nfiles;
	}
	run_build_hooks(run, rh);
	/* The floor: orch-null from the agent's cache, once per round. */
	null_sha = NULL;
	for (i = 0; i < rh->h->facts.nextra; i++) {
		if (strcmp(rh->h->facts.extra[i].key, "null_sha") == 0)
			null_sha = rh->h->facts.extra[i].value;
	}
	if (null_sha != NULL && strlen(null_sha) == PROTO_SHA_HEX - 1) {
		p->files = xreallocarray(p->files, p->nfiles + 1,
		    sizeof *p->files);
		memcpy(p->files[p->nfiles++], null_sha, PROTO_SHA_HEX);
		p->cmds = xreallocarray(p->cmds, p->ncmds + 1, sizeof *p->cmds);
		c = &p->cmds[p->ncmds];
		memset(c, 0, sizeof *c);
		snprintf(c->bench, sizeof c->bench, "%s", PROTO_FLOOR_BENCH);
		memcpy(c->exe, null_sha, PROTO_SHA_HEX);
		c->args = xcalloc(1, sizeof *c->args);
		c->env = xcalloc(1, sizeof *c->env);
		c->timeout_ms = FLOOR_TIMEOUT;
		floor_cmd = (uint32_t)p->ncmds++;
		has_floor = 1;
	}
	p->steps = xcalloc(run->norder + s->rounds + 1, sizeof *p->steps);
	for (i = 0; i < run->norder; i++) {
		if (has_floor && run->order[i].round > 0 && (i == 0 ||
		    run->order[i - 1].round != run->order[i].round)) {
			p->steps[p->nsteps].cmd = floor_cmd;
			p->steps[p->nsteps].round = run->order[i].round;
			p->nsteps++;
		}
		p->steps[p->nsteps].cmd = run->order[i].bench *
		    (uint32_t)s->nvariants + run->order[i].variant;
		p->steps[p->nsteps].round = run->order[i].round;
		p->steps[p->nsteps].warmup = (uint8_t)run->order[i].warmup;
		p->nsteps++;
	}
	snprintf(p->counters, sizeof p->counters, "%s", s->counters);
	p->linger_ms = s->linger_s * 1000;
	p->resume_seq = -1;
	rh->seen = xcalloc(p->nsteps + 1, sizeof *rh->seen);
	rh->told = xcalloc(p->ncmds + 1, sizeof *rh->told);
	p->max_load = rh->h->max_load >= 0 ? rh->h->max_load :
	    run->opt_max_load >= 0 ? run->opt_max_load : s->max_load;
	p->load_wait_ms = s->load_wait_s * 1000;
	p->retries = s->retries;
	snprintf(p->pin, sizeof p->pin, "%s", rh->h->pin[0] ? rh->h->pin :
	    s->pin);
	run_plan_from_record(run, rh, p);
	if (s->auto_rounds)
		run_plan_open(run, rh);
	rh->total = p->nsteps;
	for (i = 0; i < p->nsteps; i++)
		rh->measured_total += !p->steps[i].warmup &&
		    (!has_floor || p->steps[i].cmd != floor_cmd);
}

static void
run_free_plan(struct proto_plan *p)
{
	struct proto_msg	m;

	memset(&m, 0, sizeof m);
	m.type = PROTO_PLAN;
	m.u.plan = *p;
	proto_msg_free(&m);
	memset(p, 0, sizeof *p);
}

/* ---- threads ---------------------------------------------------------- */

static void *
run_open_thread(void *arg)
{
	struct run_host	*rh = arg;

	if (host_open(rh->h, rh->run->run_id) == 0)
		rh->opened = 1;
	return (NULL);
}

/* Returns 1 when name is an item of list ("a,b,c", as suite.c keeps it). */
static int
run_in_list(const char *list, const char *name)
{
	size_t	n = strlen(name);
	const char *p;

	for (p = list; *p != '\0'; p += strcspn(p, ",") + (p[strcspn(p,
	    ",")] == ',')) {
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return (1);
	}
	return (0);
}

/*
 * Returns 1, with why, when a good sample of bench lacks a metric the
 * suite names for it (say elapsed_ns=abc was printed: text, no number);
 * the built-ins and hardware counters, which the agent measures, aside.
 */
static int
run_metric_missing(const struct suite *s, const char *bench,
    const struct proto_sample *smp, char *why, size_t len)
{
	const struct suite_bench	*b = NULL;
	const char			*m;
	size_t				 i, j;

	for (i = 0; i < s->nbenches && b == NULL; i++)
		if (strcmp(s->benches[i].name, bench) == 0)
			b = &s->benches[i];
	if (b == NULL || smp->status != PROTO_ST_OK)
		return (0);
	for (i = 0; i < b->nmetrics; i++) {
		m = b->metrics[i].name;
		for (j = 0; j < DS_NBUILTIN; j++)
			if (strcmp(ds_builtin_names[j], m) == 0)
				break;
		if (j < DS_NBUILTIN || run_in_list(s->counters, m))
			continue;
		for (j = 0; j < smp->nmetrics; j++)
			if (strcmp(smp->metrics[j].key, m) == 0)
				break;
		if (j == smp->nmetrics) {
			snprintf(why, len, "the program printed no %s=NUMBER "
			    "line (bench %s's metric %s)", m, bench, m);
			return (1);
		}
	}
	return (0);
}

/* Stores one sample as it arrives. */
static int
run_sample_cb(struct host *h, const struct proto_sample *smp, void *arg)
{
	struct run_host		*rh = arg;
	struct run		*run = rh->run;
	const struct proto_cmd	*c;
	struct proto_sample	*bad = NULL;
	char			 why[256];
	int			 ev = RUN_EV_SAMPLE, r, first = 0;

	if (smp->cmd >= rh->plan.ncmds)
		return (-1);
	c = &rh->plan.cmds[smp->cmd];
	rh->state[0] = '\0';
	/* A sample re-sent after a reconnect is stored once. */
	if (smp->step < rh->plan.nsteps && smp->attempt < 32) {
		if (rh->seen[smp->step] & (1U << smp->attempt))
			return (0);
		/* A step counts once, however many attempts it takes. */
		first = rh->seen[smp->step] == 0;
		rh->seen[smp->step] |= 1U << smp->attempt;
	}
	if ((int64_t)smp->seq > rh->max_seq)
		rh->max_seq = smp->seq;
	if (run_metric_missing(run->suite, c->bench, smp, why, sizeof why)) {
		/* Failed with the reason, not a result short of a metric. */
		bad = xmalloc(sizeof *bad);
		memcpy(bad, smp, sizeof *bad);
		bad->status = PROTO_ST_FAILED;
		snprintf(bad->err_tail, sizeof bad->err_tail, "%s", why);
		smp = bad;
	}
	r = record_sample(&run->rec, h->name, c->bench, c->variant, smp);
	if (r != 0) {
		log_warnx("%s", run->rec.err);
		free(bad);
		return (-1);
	}
	run->stored++;
	if (first) {
		rh->done++;
		if (!smp->warmup && strcmp(c->bench, PROTO_FLOOR_BENCH) != 0) {
			rh->measured++;
			rh->measured_now++;
		}
	}
	if (smp->round != rh->round && smp->round > 0) {
		ev = RUN_EV_ROUND;
		rh->round = smp->round;
	}
	/* Said once per command: a crash each run is one line, not many. */
	if (smp->status != PROTO_ST_OK && log_level() >= LOG_INFO &&
	    !run->tty && !rh->told[smp->cmd]) {
		rh->told[smp->cmd] = 1;
		log_info("%s: %s/%s round %u: %s (the report counts its "
		    "failures)", h->name, c->bench, c->variant, smp->round,
		    proto_status_name(smp->status));
	}
	free(bad);	/* smp pointed at it until here */
	run_progress(run, rh, ev);
	return (0);
}

#define RUN_WAIT_LINE_MS	30000	/* a waiting host's line, this often */

/* Writes a duration as "4m05s" or "7s". */
static void
run_dur(int64_t ms, char *buf, size_t len)
{
	int64_t	sec = ms > 0 ? (ms + 999) / 1000 : 0;

	if (sec >= 60)
		snprintf(buf, len, "%lldm%02llds", (long long)(sec / 60),
		    (long long)(sec % 60));
	else
		snprintf(buf, len, "%llds", (long long)sec);
}

/*
 * A host waiting for a quiet machine: what it waits for, the time left of
 * load_wait before the host is refused, and how to measure anyway.
 */
static void
run_wait_line(struct run_host *rh, const struct proto_state *st)
{
	char	left[32], all[32];

	run_dur((int64_t)rh->plan.load_wait_ms - st->waited_ms, left,
	    sizeof left);
	run_dur(rh->plan.load_wait_ms, all, sizeof all);
	/* The inventory's max_load of a host wins over --max-load. */
	if (rh->h->max_load >= 0)
		snprintf(rh->state, sizeof rh->state, "%s; %s left of "
		    "load_wait %s; max_load = 0 in [host.%s] of the inventory "
		    "to measure anyway", st->detail, left, all, rh->h->name);
	else
		snprintf(rh->state, sizeof rh->state, "%s; %s left of "
		    "load_wait %s; --max-load=0 to measure anyway", st->detail,
		    left, all);
}

/* Records what an agent says between samples and shows it. */
static void
run_state_cb(struct host *h, const struct proto_state *st, void *arg)
{
	struct run_host	*rh = arg;
	struct run	*run = rh->run;

	if (strcmp(st->state, "waiting-grant") == 0) {
		if (run->suite->auto_rounds && rh->round_end != NULL)
			run_look(run, rh);
		return;
	}
	if (record_state(&run->rec, h->name, st) != 0)
		log_warnx("%s", run->rec.err);
	pthread_mutex_lock(&run->mtx);
	snprintf(rh->state, sizeof rh->state, "%s", st->detail);
	if (strcmp(st->state, "waiting-load") == 0)
		run_wait_line(rh, st);
	if (!run->tty && (strcmp(st->state, "note") == 0 ||
	    st->waited_ms == 0 || rh->wait_line_ms == 0 ||
	    util_now_ms() - rh->wait_line_ms >= RUN_WAIT_LINE_MS)) {
		fprintf(stderr, "orch: %s: %s\n", h->name, rh->state);
		rh->wait_line_ms = util_now_ms();
	}
	pthread_mutex_unlock(&run->mtx);
	run_progress(run, rh, RUN_EV_SAMPLE);
}

/* Returns 1 when two variants pass the same argv and environment. */
static int
run_same_settings(const struct suite_variant *a, const struct suite_variant *b)
{
	size_t	i;

	if (a->nargs != b->nargs || a->nenv != b->nenv)
		return (0);
	for (i = 0; i < a->nargs; i++) {
		if (strcmp(a->args[i], b->args[i]) != 0)
			return (0);
	}
	for (i = 0; i < a->nenv; i++) {
		if (strcmp(a->env[i], b->env[i]) != 0)
			return (0);
	}
	return (1);
}

/*
 * Records the host programs an agent resolved, once per run: for each
 * variant and hook that names one.
 */
static void
run_progs_cb(struct host *h, const struct proto_progs *ps, void *arg)
{
	struct run_host		*rh = arg;
	const struct suite	*s = rh->run->suite;
	const struct suite_hook	*hk;
	size_t			 i, v, b, k;

	for (i = 0; i < ps->n; i++) {
		/* An agent started again says it again: new findings only. */
		for (k = 0; k < rh->nprogs; k++) {
			if (strcmp(rh->progs[k].prog, ps->v[i].prog) == 0 &&
			    strcmp(rh->progs[k].path, ps->v[i].path) == 0 &&
			    strcmp(rh->progs[k].sha, ps->v[i].sha) == 0)
				break;
		}
		if (k < rh->nprogs)
			continue;
		rh->progs = xreallocarray(rh->progs, rh->nprogs + 1,
		    sizeof *rh->progs);
		rh->progs[rh->nprogs++] = ps->v[i];
		for (v = 0; v < s->nvariants; v++) {
			if (s->variants[v].host != NULL && strcmp(
			    s->variants[v].host, ps->v[i].prog) == 0)
				record_hostprog(&rh->run->rec, h->name,
				    s->variants[v].name, "bin", &ps->v[i]);
		}
		for (b = 0; b < s->nbenches; b++) {
			for (k = 0; k < SUITE_NHOOKS; k++) {
				hk = &s->benches[b].hooks[k];
				if (hk->host != NULL &&
				    strcmp(hk->host, ps->v[i].prog) == 0)
					record_hostprog(&rh->run->rec, h->name,
					    "", run_hook_names[k], &ps->v[i]);
			}
		}
		log_info("%s: host program %s is %s (SHA-256 %.12s...)%s%s",
		    h->name, ps->v[i].prog, ps->v[i].path, ps->v[i].sha,
		    ps->v[i].version[0] ? ": " : "", ps->v[i].version);
	}
}

/* Records the files a host runs, saying which were pushed just now. */
static void
run_record_files(struct run *run, struct run_host *rh, const int *fresh)
{
	size_t	v, i;

	size_t	b, k, fi;

	for (v = 0; v < run->suite->nvariants; v++) {
		if (rh->bin[v] == RUN_ONHOST)
			continue;	/* recorded as its agent found it */
		record_file(&run->rec, rh->h->name, run->suite->variants[v].name,
		    "bin", rh->files[rh->bin[v]].path,
		    rh->files[rh->bin[v]].sha, fresh[rh->bin[v]]);
	}
	for (b = 0; b < run->suite->nbenches; b++) {
		for (k = 0; k < SUITE_NHOOKS; k++) {
			if ((fi = rh->hook[b * SUITE_NHOOKS + k]) == RUN_ONHOST)
				continue;
			record_file(&run->rec, rh->h->name, "",
			    run_hook_names[k], rh->files[fi].path,
			    rh->files[fi].sha, fresh[fi]);
		}
	}
	for (i = 0; i < rh->nfiles; i++) {
		if (!rh->files[i].executable)
			record_file(&run->rec, rh->h->name, "", "data",
			    rh->files[i].path, rh->files[i].sha, fresh[i]);
	}
}

static void *
run_host_thread(void *arg)
{
	struct run_host	*rh = arg;
	struct run	*run = rh->run;
	char		**paths;
	char		(*shas)[PROTO_SHA_HEX];
	char		 err[HOST_ERR_LEN], why[HOST_ERR_LEN];
	int		*exe, *fresh, ok = 0;
	size_t		 i;

	if (!rh->opened)
		return (NULL);	/* it failed to open: nothing to run */

	paths = xcalloc(rh->nfiles + 1, sizeof *paths);
	fresh = xcalloc(rh->nfiles + 1, sizeof *fresh);
	shas = xcalloc(rh->nfiles + 1, sizeof *shas);
	exe = xcalloc(rh->nfiles + 1, sizeof *exe);
	for (i = 0; i < rh->nfiles; i++) {
		paths[i] = rh->files[i].path;
		memcpy(shas[i], rh->files[i].sha, PROTO_SHA_HEX);
		exe[i] = rh->files[i].executable;
	}
	rh->started_ms = util_now_ms();
	for (;;) {
		/* Interrupted before its plan went: nothing runs there. */
		if (run_stop)
			break;
		rh->plan.resume_seq = rh->max_seq;
		if (host_sync(rh->h, rh->nfiles, paths,
		    (const char (*)[PROTO_SHA_HEX])shas, exe, fresh,
		    &rh->pushed) == 0) {
			rh->h->pushed += rh->pushed;
			log_debug("%s: pushed %u files, %llu bytes",
			    rh->h->name, rh->h->npushed,
			    (unsigned long long)rh->pushed);
			if (rh->restarts == 0)
				run_record_files(run, rh, fresh);
			rh->h->progs_cb = run_progs_cb;
			if (host_run(rh->h, &rh->plan, run_sample_cb,
			    run_state_cb, rh, &run_stop) == 0) {
				ok = 1;
				break;
			}
		}
		/* A lost agent is started again; its journal carries on. */
		if (!rh->h->retryable || run_stop ||
		    rh->restarts >= RUN_MAX_RESTARTS)
			break;
		rh->restarts++;
		log_warnx("%s: %s: starting its agent again (%d of %d)",
		    rh->h->name, rh->h->error, rh->restarts, RUN_MAX_RESTARTS);
		snprintf(err, sizeof err, "%s", rh->h->error);
		host_close(rh->h);
		sleep(1);
		if (host_open(rh->h, run->run_id) != 0) {
			snprintf(why, sizeof why, "%s", rh->h->error);
			snprintf(rh->h->error, sizeof rh->h->error, "%s; then: "
			    "%s", err, why);
			break;
		}
	}
	/*
	 * Interrupted, its agent carries on as if we were lost; or its agent
	 * refused a plan that its journal does not hold, and kept both the
	 * journal and the agent measuring it. Either way the host is left
	 * for a resume, never ended.
	 */
	if (!ok && run_stop) {
		rh->detached = 1;
		rh->h->detach = 1;
	} else if (!ok && strcmp(rh->h->errcode, "plan") == 0)
		rh->detached = 1;	/* the agent that refused goes */
	else if (record_hostend(&run->rec, rh->h) != 0)
		log_warnx("%s", run->rec.err);
	host_close(rh->h);
	rh->ended = 1;
	if (!rh->detached || run->tty)
		run_progress(run, rh, RUN_EV_END);
	free(paths);
	free(shas);
	free(exe);
	free(fresh);
	return (NULL);
}

/* ---- the run ---------------------------------------------------------- */

static int	run_make_id(char *, size_t);
static int	run_mkdirs(const char *, mode_t);

/*
 * Creates DIR and DIR/logs, 0700 when new: the record and the logs carry
 * the suite's settings and environment. Returns 0 or -1 (cause).
 */
static int
run_make_dirs(const char *dir, char **cause)
{
	struct stat	st;
	char		logs[PATH_MAX + 8];

	snprintf(logs, sizeof logs, "%s/logs", dir);
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		xasprintf(cause, "%s exists and is not a directory", dir);
		return (-1);
	}
	if (run_mkdirs(dir, 0700) == -1) {
		xasprintf(cause, "cannot create the directory %s: %s", dir,
		    strerror(errno));
		return (-1);
	}
	if (run_mkdirs(logs, 0700) == -1) {
		xasprintf(cause, "cannot create %s: %s", logs, strerror(errno));
		return (-1);
	}
	/* A link planted at DIR/logs would put the logs anywhere. */
	if (lstat(logs, &st) == -1 || !S_ISDIR(st.st_mode)) {
		xasprintf(cause, "%s: not a directory", logs);
		return (-1);
	}
	return (0);
}

/* A new run: the suite, the seed, the order, the run id and DIR. */
static int
run_prepare_new(struct run *run, char **cause)
{
	const struct run_opts	*opts = run->opts;
	char			 probe[PATH_MAX + 32];

	if (suite_load_text(opts->suite, opts->suite_text, &run->suite,
	    cause) != 0)
		return (-1);
	if (opts->has_warmup)
		run->suite->warmup = opts->warmup;
	if (opts->rounds > 0) {
		run->suite->rounds = opts->rounds;
		run->suite->auto_rounds = 0;
	}
	if (opts->auto_rounds) {
		run->suite->auto_rounds = 1;
		if (run->suite->min_rounds > run->suite->max_rounds) {
			xasprintf(cause, "--rounds=auto: %s: min_rounds %u is "
			    "above max_rounds %u", opts->suite,
			    run->suite->min_rounds, run->suite->max_rounds);
			return (-1);
		}
		run->suite->rounds = run->suite->max_rounds;
	}
	if (opts->budget_s > 0) {
		if (!run->suite->auto_rounds) {
			xasprintf(cause, "--budget=%us needs rounds = auto "
			    "(--rounds=auto, or in the suite)", opts->budget_s);
			return (-1);
		}
		run->suite->budget_s = opts->budget_s;
	}
	if (opts->has_seed)
		run->suite->seed = opts->seed;
	else if (!run->suite->has_seed) {
		if (RAND_bytes((unsigned char *)&run->suite->seed,
		    sizeof run->suite->seed) != 1)
			fatalx("RAND_bytes failed");
		run->suite->seed &= (1ULL << 53) - 1;	/* exact in JSON */
	}
	if (plan_order(run->suite, run->suite->seed, &run->order,
	    &run->norder) != 0)
		fatalx("out of memory planning");
	if (run_make_id(run->run_id, sizeof run->run_id) != 0)
		fatalx("RAND_bytes failed");
	if (opts->out != NULL)
		snprintf(run->dir, sizeof run->dir, "%s", opts->out);
	else
		snprintf(run->dir, sizeof run->dir, "reports/%s", run->run_id);
	snprintf(probe, sizeof probe, "%s/%s", run->dir, RECORD_FILE);
	if (access(probe, F_OK) == 0) {
		xasprintf(cause, "%s already holds a run; choose another --out "
		    "(or orch run --resume %s)", run->dir, run->dir);
		return (-1);
	}
	if (run_make_dirs(run->dir, cause) != 0) {
		/* Name the option and the path as given. */
		if (opts->out != NULL) {
			char	*c = *cause;

			xasprintf(cause, "--out=%s: %s", opts->out, c);
			free(c);
		}
		return (-1);
	}
	/* A one-line run's suite: a file in DIR, for the record and resume. */
	if (opts->suite_text != NULL && oneline_save(run->dir, run->suite,
	    cause) != 0) {
		snprintf(probe, sizeof probe, "%s/logs", run->dir);
		rmdir(probe);	/* nothing ran: leave nothing behind */
		rmdir(run->dir);
		return (-1);
	}
	return (0);
}

/*
 * A resumed run: everything from DIR/samples.msgpack — the run id, the
 * seed and rounds, and the suite, which must not have changed since.
 */
static int
run_prepare_resume(struct run *run, const char *dir, struct dataset **dsp,
    char **cause)
{
	struct dataset	*ds;

	if (record_load(dir, dsp, cause) != 0)
		return (-1);
	ds = *dsp;
	/* The run id names the agents' run directories and key lines. */
	if (!ident_str_ok(ds->run_id, sizeof run->run_id)) {
		xasprintf(cause, "%s: run id '%.*s' is not a valid identifier "
		    "([A-Za-z0-9_.-], not starting with '-' or '.')", dir,
		    (int)strcspn(ds->run_id, "\n"), ds->run_id);
		return (-1);
	}
	if (ds->ended[0] != '\0') {
		xasprintf(cause, "%s: the run is complete (ended %s); orch "
		    "report %s renders it", dir, ds->ended, dir);
		return (-1);
	}
	if (run_resume_suite(ds, &run->suite, cause) != 0)
		return (-1);
	run->suite->rounds = ds->rounds;
	run->suite->warmup = ds->warmup;
	run->suite->seed = ds->seed;
	run->suite->auto_rounds = ds->auto_rounds;
	run->suite->max_rounds = ds->rounds;
	run->suite->min_rounds = ds->min_rounds;
	run->suite->budget_s = ds->budget_s;
	if (plan_order(run->suite, run->suite->seed, &run->order,
	    &run->norder) != 0)
		fatalx("out of memory planning");
	snprintf(run->run_id, sizeof run->run_id, "%s", ds->run_id);
	snprintf(run->dir, sizeof run->dir, "%s", dir);
	return (run_make_dirs(run->dir, cause));
}

int
run_resume_suite(const struct dataset *ds, struct suite **out, char **cause)
{
	struct stat	st;
	char		was[PROTO_SHA_HEX], now[PROTO_SHA_HEX];

	*out = NULL;
	/*
	 * The path is the record's, and the record may come from anyone:
	 * a FIFO or a device there would block or never end. What runs is
	 * only ever the suite the run started with, checked byte for byte.
	 */
	if (stat(ds->suite_path, &st) == -1) {
		xasprintf(cause, "%s: %s (the suite run %s started with)",
		    ds->suite_path, strerror(errno), ds->run_id);
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		xasprintf(cause, "%s: not a regular file (the suite run %s "
		    "started with)", ds->suite_path, ds->run_id);
		return (-1);
	}
	if (suite_load(ds->suite_path, out, cause) != 0)
		return (-1);
	if (strcmp((*out)->text, ds->suite_text) != 0) {
		if (hash_buf(ds->suite_text, strlen(ds->suite_text), was) != 0 ||
		    hash_buf((*out)->text, strlen((*out)->text), now) != 0)
			fatalx("SHA-256 failed");
		xasprintf(cause, "%s changed since run %s started (SHA-256 "
		    "now %s, at the start %s): restore it to resume",
		    ds->suite_path, ds->run_id, now, was);
		suite_free(*out);
		*out = NULL;
		return (-1);
	}
	return (0);
}

/* Marks what a resumed host already stored: those samples are not taken twice. */
static void
run_resume_host(struct run_host *rh, const struct dataset *ds)
{
	const struct ds_sample	*s;
	long			 h = dataset_host(ds, rh->h->name);
	size_t			 i;

	if (h < 0)
		return;
	for (i = 0; i < ds->nsamples + ds->nfloors; i++) {
		s = i < ds->nsamples ? &ds->samples[i] :
		    &ds->floors[i - ds->nsamples];
		if (s->host != (size_t)h)
			continue;
		if ((int64_t)s->seq > rh->max_seq)
			rh->max_seq = s->seq;
		if (s->step >= rh->plan.nsteps || s->attempt >= 32)
			continue;
		if (rh->seen[s->step] == 0) {
			rh->done++;
			if (i < ds->nsamples && !s->warmup)
				rh->measured++;
		}
		rh->seen[s->step] |= 1U << s->attempt;
	}
}

/* Returns the hosts of an unfinished run in DIR, comma separated (free). */
char *
run_resume_hosts(const char *dir, char **cause)
{
	struct dataset	*ds;
	char		*list;

	if (record_load(dir, &ds, cause) != 0)
		return (NULL);
	list = dataset_host_list(ds, 1);
	dataset_free(ds);
	if (list[0] == '\0') {
		xasprintf(cause, "%s: every host of this run has finished; "
		    "orch report %s renders it", dir, dir);
		free(list);
		return (NULL);
	}
	return (list);
}

/* Returns 1 when paths a and b name the same file (or are equal). */
static int
run_same_path(const char *a, const char *b)
{
	char	ra[PATH_MAX], rb[PATH_MAX];

	if (strcmp(a, b) == 0)
		return (1);
	if (realpath(a, ra) == NULL || realpath(b, rb) == NULL)
		return (0);
	return (strcmp(ra, rb) == 0);
}

/* Returns 1 when the hosts given are the hosts of the record, as a set. */
static int
run_same_hosts(const struct dataset *ds, const struct host *hosts,
    size_t nhosts)
{
	size_t	i, j;

	if (nhosts != ds->nhosts)
		return (0);
	for (i = 0; i < nhosts; i++) {
		if (dataset_host(ds, hosts[i].name) < 0)
			return (0);
		for (j = 0; j < i; j++) {
			if (strcmp(hosts[i].name, hosts[j].name) == 0)
				return (0);
		}
	}
	return (1);
}

/* Writes how a run was started with respect to --max-load. */
static void
run_show_max_load(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "without --max-load (the suite's and the "
		    "inventory's load gates)");
	else
		snprintf(buf, len, "with --max-load=%g", v);
}

/* Says that flag contradicts the record, which holds was. */
static void
run_contra(char **cause, const char *flag, const char *drop,
    const struct dataset *ds, const char *dir, const char *was)
{
	xasprintf(cause, "%s contradicts the record of run %s in %s: it was "
	    "started %s; --resume takes every setting from the record (drop "
	    "%s)", flag, ds->run_id, dir, was, drop);
}

int
run_resume_flags(struct run_opts *opts, const char *suite,
    const struct host *hosts, size_t nhosts, char **cause)
{
	struct dataset	*ds;
	const char	*dir = opts->resume;
	char		 was[160], flag[64], *list;
	int		 r = -1;

	if (record_load(dir, &ds, cause) != 0)
		return (-1);
	if (record_busy(dir)) {
		xasprintf(cause, "%s: another orch is running this run now "
		    "(orch status %s tells its progress)", dir, dir);
		goto out;
	}
	if (suite != NULL && !run_same_path(suite, ds->suite_path)) {
		snprintf(was, sizeof was, "with the suite %s", ds->suite_path);
		run_contra(cause, suite, "the suite", ds, dir, was);
		goto out;
	}
	if (opts->out != NULL && !run_same_path(opts->out, dir)) {
		xasprintf(cause, "--out=%s contradicts --resume=%s: a resumed "
		    "run writes where it started (drop --out)", opts->out, dir);
		goto out;
	}
	if (opts->rounds > 0 && (opts->rounds != ds->rounds ||
	    ds->auto_rounds)) {
		snprintf(flag, sizeof flag, "--rounds=%u", opts->rounds);
		snprintf(was, sizeof was, ds->auto_rounds ? "with rounds = "
		    "auto" : "with %u rounds", ds->rounds);
		run_contra(cause, flag, "--rounds", ds, dir, was);
		goto out;
	}
	if (opts->auto_rounds && !ds->auto_rounds) {
		snprintf(was, sizeof was, "with %u rounds", ds->rounds);
		run_contra(cause, "--rounds=auto", "--rounds", ds, dir, was);
		goto out;
	}
	if (opts->budget_s > 0 && opts->budget_s != ds->budget_s) {
		snprintf(flag, sizeof flag, "--budget=%us", opts->budget_s);
		snprintf(was, sizeof was, ds->budget_s > 0 ? "with a budget "
		    "of %us" : "without a budget", ds->budget_s);
		run_contra(cause, flag, "--budget", ds, dir, was);
		goto out;
	}
	if (opts->has_seed && opts->seed != ds->seed) {
		snprintf(flag, sizeof flag, "--seed=%llu",
		    (unsigned long long)opts->seed);
		snprintf(was, sizeof was, "with seed %llu",
		    (unsigned long long)ds->seed);
		run_contra(cause, flag, "--seed", ds, dir, was);
		goto out;
	}
	if (opts->max_load >= 0 && opts->max_load != ds->opt_max_load) {
		snprintf(flag, sizeof flag, "--max-load=%g", opts->max_load);
		run_show_max_load(ds->opt_max_load, was, sizeof was);
		run_contra(cause, flag, "--max-load", ds, dir, was);
		goto out;
	}
	if (hosts != NULL && !run_same_hosts(ds, hosts, nhosts)) {
		list = dataset_host_list(ds, 0);
		snprintf(was, sizeof was, "on hosts %s", list);
		free(list);
		run_contra(cause, "--hosts", "--hosts", ds, dir, was);
		goto out;
	}
	/* What the record says, the resume does. */
	opts->max_load = ds->opt_max_load;
	r = 0;
out:
	dataset_free(ds);
	return (r);
}

/* Makes the run id: UTC time and 4 random hex digits. */
static int
run_make_id(char *buf, size_t len)
{
	unsigned char	rnd[2];
	time_t		now = time(NULL);
	struct tm	tm;
	char		ts[32];

	if (RAND_bytes(rnd, sizeof rnd) != 1)
		return (-1);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%02x%02x", ts, rnd[0], rnd[1]);
	return (0);
}

/* Points reports/latest at DIR when DIR is reports/<name>. */
static void
run_latest(const char *dir)
{
	const char	*base;

	if (strncmp(dir, "reports/", 8) != 0)
		return;
	base = dir + 8;
	if (strchr(base, '/') != NULL)
		return;
	unlink("reports/.latest.tmp");
	if (symlink(base, "reports/.latest.tmp") == -1 ||
	    rename("reports/.latest.tmp", "reports/latest") == -1)
		log_warn("reports/latest");
}

/* Prints the primary verdicts for the terminal. */
static void
run_print_summary(const char *dir)
{
	char	path[PATH_MAX];

	snprintf(path, sizeof path, "%s/report.md", dir);
	printf("report: %s\n", path);
	printf("        %s/answer.md, %s/report.html, %s/summary.json, "
	    "%s/samples.csv\n", dir, dir, dir, dir);
}

/* Stops the run on SIGINT/SIGTERM (run_stop); a lost peer is no signal. */
static void
run_signals(void)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = run_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/*
 * Resuming, a host's agent starts in the workdir the run started with,
 * whatever the inventory (or $ORCH_WORKDIR) says now: the journal is
 * there, and so is the agent carrying the run on.
 */
static void
run_workdir_from_record(const struct run *run, struct host *h)
{
	const struct ds_host	*dh;
	long			 hi;

	if (run->ds == NULL || (hi = dataset_host(run->ds, h->name)) < 0)
		return;
	dh = &run->ds->hosts[hi];
	if (!dh->has_plan || dh->workdir == NULL ||
	    strcmp(dh->workdir, h->workdir) == 0)
		return;
	if (strlen(dh->workdir) >= sizeof h->workdir)
		return;		/* it came from a host of this size: cannot be */
	log_info("%s: resuming in the workdir the run started with, %s "
	    "(now %s)", h->name, dh->workdir[0] != '\0' ? dh->workdir :
	    "the default", h->workdir[0] != '\0' ? h->workdir : "the default");
	snprintf(h->workdir, sizeof h->workdir, "%s", dh->workdir);
}

/* Connects to every host at once; rh->opened says which answered. */
static void
run_open_hosts(struct run *run)
{
	const struct run_opts	*opts = run->opts;
	struct run_host		*rh;
	size_t			 i;

	run->nrh = opts->nhosts;
	run->rh = xcalloc(run->nrh, sizeof *run->rh);
	for (i = 0; i < run->nrh; i++) {
		rh = &run->rh[i];
		rh->h = &opts->hosts[i];
		rh->run = run;
		rh->h->verbose = opts->verbose;
		rh->max_seq = -1;
		snprintf(rh->h->logpath, sizeof rh->h->logpath,
		    "%s/logs/%s.log", run->dir, rh->h->name);
		run_workdir_from_record(run, rh->h);
	}
	host_each(run->rh, run->nrh, sizeof *run->rh, run_open_thread);
}

/*
 * Resolves every opened host's files and builds its plan (and, resuming,
 * skips what ds already holds): every host's files must exist before
 * anything runs anywhere. Returns 0, or -1 with *cause.
 */
static int
run_plan_hosts(struct run *run, const struct dataset *ds, char **cause)
{
	struct run_host	*rh;
	size_t		 i;

	for (i = 0; i < run->nrh; i++) {
		rh = &run->rh[i];
		if (!rh->opened)
			continue;
		if (run_resolve(run, rh, cause) != 0)
			return (-1);
		run_build_plan(run, rh);
		if (ds != NULL)
			run_resume_host(rh, ds);
	}
	return (0);
}

/* Records the run's labels (main checked them). Returns 0 or -1 (cause). */
static int
run_labels(struct run *run, char **cause)
{
	char	*k, *v;
	size_t	 i;

	for (i = 0; i < run->opts->nlabels; i++) {
		if (dataset_label_parse(run->opts->labels[i], &k, &v,
		    cause) != 0)
			return (-1);
		record_label(&run->rec, k, v);
		free(k);
	}
	return (0);
}

/*
 * Opens the run record: reopened after its last good byte when resuming
 * ds, else new with the run's header. Returns 0, or -1 with *cause.
 */
static int
run_open_record(struct run *run, const struct dataset *ds,
    const char *started, char **cause)
{
	char	*cmdline;

	if (ds != NULL) {
		if (record_reopen(&run->rec, run->dir, ds->good_len,
		    cause) != 0)
			return (-1);
		record_resume(&run->rec, started);
		return (0);
	}
	if (record_open(&run->rec, run->dir, cause) != 0)
		return (-1);
	xasprintf(&cmdline, "%s", run->opts->cmdline);
	record_run(&run->rec, run->run_id, run->suite, run->suite->seed,
	    cmdline, started, run->opts->hosts, run->opts->nhosts);
	record_opts(&run->rec, run->opt_max_load);
	free(cmdline);
	return (run_labels(run, cause));
}

/* Warns of each variant that runs the reference's file with its settings. */
static void
run_warn_aa(const struct run *run, const struct run_host *rh)
{
	const struct suite	*su = run->suite;
	size_t			 v;

	for (v = 0; v < su->nvariants; v++) {
		if (v == su->ref || rh->bin[v] == RUN_ONHOST ||
		    rh->bin[v] != rh->bin[su->ref] ||
		    !run_same_settings(&su->variants[v],
		    &su->variants[su->ref]))
			continue;
		fprintf(stderr, "orch: %s: variant %s runs the very file "
		    "of reference %s with the same settings (%s, SHA-256 "
		    "%.12s...): an A/A comparison\n", rh->h->name,
		    su->variants[v].name, su->variants[su->ref].name,
		    rh->files[rh->bin[v]].path, rh->files[rh->bin[v]].sha);
	}
}

/*
 * Records each host: one that did not open as ended (its error said and
 * its backend's state closed), the others with their facts.
 */
static void
run_record_hosts(struct run *run)
{
	struct run_host	*rh;
	size_t		 i;
	long		 hi;

	for (i = 0; i < run->nrh; i++) {
		rh = &run->rh[i];
		if (!rh->opened) {
			fprintf(stderr, "orch: %s: %s\n", rh->h->name,
			    rh->h->error);
			record_hostend(&run->rec, rh->h);
			host_close(rh->h);	/* what the backend set up */
			continue;
		}
		record_host(&run->rec, rh->h);
		hi = run->ds != NULL ? dataset_host(run->ds, rh->h->name) : -1;
		if (hi < 0 || !run->ds->hosts[hi].has_plan)
			record_plan(&run->rec, rh->h, &rh->plan);
		run_warn_aa(run, rh);
	}
}

/*
 * After every host has run: says which failed, writes the reports and
 * the summary. Returns the exit code (0, 1 when --fail-on trips, 3).
 */
static int
run_finish(struct run *run, char **cause)
{
	size_t	i, nfailed = 0, failed_hosts = 0;
	char	*tripped = NULL;

	for (i = 0; i < run->nrh; i++) {
		if (run->rh[i].h->status != HOST_OK) {
			failed_hosts++;
			fprintf(stderr, "orch: %s failed: %s\n",
			    run->rh[i].h->name, run->rh[i].h->error);
		}
	}
	/* Nothing measured: a report would only say nothing, and look done. */
	if (run->stored == 0) {
		fprintf(stderr, "orch: no sample was taken: %s; no report "
		    "written (the record is %s/%s)\n", failed_hosts ==
		    run->nrh ? (run->nrh == 1 ? "the host failed" :
		    "every host failed") : "no host ran a benchmark",
		    run->dir, RECORD_FILE);
		return (3);
	}
	if (report_render_answer(run->dir, run->opts->quiet ? NULL : stdout,
	    run->opts->fail_on, &tripped, &nfailed, cause) != 0) {
		fprintf(stderr, "orch: %s\n", *cause);
		return (3);
	}
	run_latest(run->dir);
	run_print_summary(run->dir);
	history_index_run(run->dir, run->opts->quiet);
	if (run->opts->exports != NULL &&
	    report_export(run->dir, run->opts->exports, cause) != 0) {
		fprintf(stderr, "orch: %s (the run's reports are in %s)\n",
		    *cause, run->dir);
		return (3);
	}
	if (nfailed > 0)
		fprintf(stderr, "orch: %zu measured run%s failed (see the "
		    "report)\n", nfailed, nfailed == 1 ? "" : "s");
	/* The gate's lines even when a failure makes the exit code 3. */
	if (tripped != NULL) {
		fputs(tripped, stderr);
		free(tripped);
	}
	if (failed_hosts > 0 || nfailed > 0)
		return (3);
	return (tripped != NULL ? 1 : 0);
}

/* Returns 1 when a host was left measuring: the run is not over. */
static int
run_detached(const struct run *run)
{
	size_t	i;

	for (i = 0; i < run->nrh; i++) {
		if (run->rh[i].detached)
			return (1);
	}
	return (0);
}

/*
 * Leaves the run to its agents (interrupted, or an agent that kept its
 * journal against another plan): the record gets no end, so the run
 * stays resumable; says how to collect it or stop it. Returns the exit
 * code: 128 + the signal when interrupted, else 3.
 */
static int
run_detach(struct run *run, const char *at)
{
	size_t	i, measured = 0, total = 0;

	if (record_detach(&run->rec, at) != 0)
		fprintf(stderr, "orch: %s\n", run->rec.err);
	for (i = 0; i < run->nrh; i++) {
		measured += run->rh[i].measured;
		total += run->rh[i].measured_total;
		if (run->rh[i].detached && !run_stop)
			fprintf(stderr, "orch: %s: %s\n", run->rh[i].h->name,
			    run->rh[i].h->error);
	}
	fprintf(stderr, "orch: %s: run %s left to its agents, which carry "
	    "on measuring (%zu of %zu measured runs stored)\n"
	    "  collect it and finish it: orch run --resume=%s\n"
	    "  or stop its agents:       orch stop %s\n"
	    "  its state:                orch status %s\n",
	    run_stop == SIGINT ? "interrupted" : run_stop == SIGTERM ?
	    "terminated" : "not finished", run->run_id, measured, total,
	    run->dir, run->dir, run->dir);
	return (run_stop != 0 ? 128 + (int)run_stop : 3);
}

/*
 * Ends a run that did not start: closes every host, and closes the record
 * when one was opened, else removes the run's directory (nothing was
 * recorded: leave nothing behind).
 */
static void
run_abandon(struct run *run, int record_ok)
{
	char	p[PATH_MAX + 8];
	size_t	i;

	for (i = 0; i < run->nrh; i++)
		host_close(run->rh[i].h);
	if (record_ok) {
		record_close(&run->rec, "");
		return;
	}
	for (i = 0; i < run->nrh; i++)
		unlink(run->rh[i].h->logpath);
	snprintf(p, sizeof p, "%s/logs", run->dir);
	rmdir(p);
	rmdir(run->dir);
}

/* Frees what run_main's steps allocated. */
static void
run_free(struct run *run)
{
	struct run_host	*rh;
	size_t		 i, v;

	for (i = 0; i < run->nrh; i++) {
		rh = &run->rh[i];
		for (v = 0; v < rh->nfiles; v++)
			free(rh->files[v].path);
		free(rh->files);
		free(rh->bin);
		free(rh->hook);
		free(rh->progs);
		free(rh->data);
		free(rh->seen);
		free(rh->round_end);
		free(rh->told);
		run_free_plan(&rh->plan);
	}
	free(run->rh);
	free(run->order);
	suite_free(run->suite);
}

int
run_main(const struct run_opts *opts)
{
	struct run	 run;
	struct dataset	*ds = NULL;
	char		*cause = NULL, started[32], ended[32];
	int		 code = 3, record_ok = 0;

	memset(&run, 0, sizeof run);
	run.opts = opts;
	run.opt_max_load = opts->max_load;
	pthread_mutex_init(&run.mtx, NULL);
	run.tty = isatty(2);
	run_iso_now(started, sizeof started);

	if (opts->resume != NULL ?
	    run_prepare_resume(&run, opts->resume, &ds, &cause) != 0 :
	    run_prepare_new(&run, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		code = 2;
		goto out;
	}
	if (ds != NULL) {
		run.ds = ds;
		run.stored = ds->nsamples + ds->nfloors;
		if (run.opt_max_load < 0)
			run.opt_max_load = ds->opt_max_load;
	}
	run_signals();
	run_open_hosts(&run);
	if (run_plan_hosts(&run, ds, &cause) != 0) {
		fprintf(stderr, "orch: %s\nnothing ran.\n", cause);
		code = 2;
		goto close;
	}
	if (run_open_record(&run, ds, started, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		code = 2;
		goto close;
	}
	record_ok = 1;
	run_record_hosts(&run);
	if (run.rec.failed) {
		fprintf(stderr, "orch: %s\n", run.rec.err);
		code = 3;
		goto close;
	}
	if (!run.tty)
		fprintf(stderr, "orch: run %s: %s on %zu host%s, %u rounds, "
		    "seed %llu\n", run.run_id, run.suite->name, run.nrh,
		    run.nrh == 1 ? "" : "s", run.suite->rounds,
		    (unsigned long long)run.suite->seed);

	host_each(run.rh, run.nrh, sizeof *run.rh, run_host_thread);
	run_iso_now(ended, sizeof ended);
	record_ok = 0;
	if (run_detached(&run)) {
		code = run_detach(&run, ended);
		goto out;
	}
	if (record_close(&run.rec, ended) != 0) {
		fprintf(stderr, "orch: %s\n", run.rec.err);
		code = 3;
		goto out;
	}
	code = run_finish(&run, &cause);
	goto out;
close:
	run_abandon(&run, record_ok);
out:
	run_free(&run);
	dataset_free(ds);
	free(cause);
	pthread_mutex_destroy(&run.mtx);
	return (code);
}
