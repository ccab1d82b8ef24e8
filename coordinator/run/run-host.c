/*
 * One host of a run, in its own thread: pushes its files, hands its agent
 * the plan, stores each sample in the record as it arrives, shows what
 * the agent says between samples, and starts a lost agent again.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report-text.h"
#include "coordinator/run/run-int.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

#define RUN_MAX_RESTARTS	3	/* agents lost per host, at most */
#define RUN_WAIT_LINE_MS	30000	/* a waiting host's line, this often */

/* Returns 1 when name is an item of list ("a,b,c", as suite.c keeps it). */
static int
run_host_in_list(const char *list, const char *name)
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
run_host_metric_missing(const struct suite *s, const char *bench,
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
		if (j < DS_NBUILTIN || run_host_in_list(s->counters, m))
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
run_host_sample(struct host *h, const struct proto_sample *smp, void *arg)
{
	struct run_host		*rh = arg;
	struct run		*run = rh->run;
	const struct proto_cmd	*c;
	struct proto_sample	*bad = NULL;
	const char		*last;
	char			 why[256], tail[204];
	size_t			 len;
	int			 ev = RUN_EV_SAMPLE, r, first = 0;

	/* Outside the plan: the host fails, nothing of it is stored. */
	if (run_peer_sample(rh, smp) != 0)
		return (-1);
	c = &rh->plan.cmds[smp->cmd];
	rh->state[0] = '\0';
	/* A sample re-sent after a reconnect, or of a step run again after
	 * it ended, is stored once. */
	if (rh->seen[smp->step] & (1U << smp->attempt | RUN_STEP_ENDED))
		return (run_peer_duplicate(rh));
	/* A step counts once, however many attempts it takes. */
	first = rh->seen[smp->step] == 0;
	rh->seen[smp->step] |= 1U << smp->attempt;
	if (smp->status != PROTO_ST_SIGNAL)
		rh->seen[smp->step] |= RUN_STEP_ENDED;
	if ((int64_t)smp->seq > rh->max_seq)
		rh->max_seq = smp->seq;
	if (run_host_metric_missing(run->suite, c->bench, smp, why,
	    sizeof why)) {
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
	rh->peer.nstored++;
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
	/*
	 * Said once per command, with its reason (the last line of its
	 * stderr or the agent's words): a crash each run is one line.
	 */
	if (smp->status != PROTO_ST_OK && log_level() >= LOG_INFO &&
	    !run->tty && !rh->told[smp->cmd]) {
		rh->told[smp->cmd] = 1;
		last = report_text_last_line(smp->err_tail, &len);
		/* A benchmark's or an agent's words: made safe. */
		snprintf(tail, sizeof tail, "%.*s%s", len > 200 ? 200 :
		    (int)len, last, len > 200 ? "..." : "");
		log_info("%s: %s/%s round %u: %s%s%s", h->name, c->bench,
		    c->variant, smp->round, proto_status_name(smp->status),
		    len > 0 ? ": " : "", tty_clean(tail, 0));
	}
	rh->failed += smp->status != PROTO_ST_OK;	/* for the progress */
	free(bad);	/* smp pointed at it until here */
	run_progress(run, rh, ev);
	return (0);
}

/* Writes a duration as "4m05s" or "7s". */
static void
run_host_dur(int64_t ms, char *buf, size_t len)
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
run_host_wait_line(struct run_host *rh, const struct proto_state *st)
{
	char	left[32], all[32];

	run_host_dur((int64_t)rh->plan.load_wait_ms - st->waited_ms, left,
	    sizeof left);
	run_host_dur(rh->plan.load_wait_ms, all, sizeof all);
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
run_host_state(struct host *h, const struct proto_state *st, void *arg)
{
	struct run_host		*rh = arg;
	struct run		*run = rh->run;
	struct proto_state	 clean;

	if (strcmp(st->state, "waiting-grant") == 0) {
		run_peer_grant(run, rh);
		return;
	}
	if (run_peer_status(rh) != 0)
		return;
	if (strcmp(st->state, "waiting-host") == 0) {
		run_ident_wait(run, rh, st);	/* another run holds it */
		return;
	}
	if (record_state(&run->rec, h->name, st) != 0)
		log_warnx("%s", run->rec.err);
	/* The agent's words reach the terminal made safe. */
	clean = *st;
	tty_clean(clean.detail, 0);
	st = &clean;
	pthread_mutex_lock(&run->mtx);
	snprintf(rh->state, sizeof rh->state, "%s", st->detail);
	if (strcmp(st->state, "waiting-load") == 0)
		run_host_wait_line(rh, st);
	if (!run->tty && (strcmp(st->state, "note") == 0 ||
	    st->waited_ms == 0 || rh->wait_line_ms == 0 ||
	    util_now_ms() - rh->wait_line_ms >= RUN_WAIT_LINE_MS)) {
		fprintf(stderr, "orch: %s: %s\n", h->name, rh->state);
		rh->wait_line_ms = util_now_ms();
	}
	pthread_mutex_unlock(&run->mtx);
	run_progress(run, rh, RUN_EV_SAMPLE);
}

/*
 * Records the host programs an agent resolved, once per run: for each
 * variant and hook that names one.
 */
static void
run_host_progs(struct host *h, const struct proto_progs *ps, void *arg)
{
	struct run_host		*rh = arg;
	const struct suite	*s = rh->run->suite;
	const struct suite_hook	*hk;
	char			 path[PROTO_PATH_MAX];
	char			 version[PROTO_VERSION_LINE];
	size_t			 i, v, b, k;

	if (run_peer_progs(rh, ps) != 0)
		return;
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
					    "", run_files_hook_names[k],
					    &ps->v[i]);
			}
		}
		/* A PATH directory's name is anyone's bytes: sanitized. */
		snprintf(path, sizeof path, "%s", ps->v[i].path);
		snprintf(version, sizeof version, "%s", ps->v[i].version);
		log_info("%s: host program %s is %s (SHA-256 %.12s...)%s%s",
		    h->name, ps->v[i].prog, tty_clean(path, 0), ps->v[i].sha,
		    version[0] ? ": " : "", tty_clean(version, 0));
	}
}

/* Runs one host to its end; an agent lost is started again. */
void *
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
				run_files_record(run, rh, fresh);
			rh->h->progs_cb = run_host_progs;
			run_peer_session(rh);
			if (host_run(rh->h, &rh->plan, run_host_sample,
			    run_host_state, rh, &run_stop) == 0) {
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
