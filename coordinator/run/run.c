/*
 * `orch run`: resolves every host's files before anything runs anywhere,
 * then runs each host's interleaved plan in its own thread, appending
 * samples to DIR/samples.msgpack as they arrive, and renders the reports.
 * This file is the session: it starts the run, opens its hosts and its
 * record, runs the host threads and joins them.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/plan.h"
#include "coordinator/run/run-bind.h"
#include "coordinator/run/run-int.h"
#include "coordinator/run/run.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

/*
 * The signal that stops us: set by the handler on the main thread, read by
 * every host thread, so atomic (lock-free, hence safe in a handler).
 */
atomic_int		run_stop;

/* Formats the current UTC time as ISO 8601. */
static void
run_iso_now(char *buf, size_t len)
{
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Stops the run on SIGINT/SIGTERM (run_stop); a lost peer is no signal. */
static void
run_signals(void)
{
	struct sigaction	sa;

	/* A second Ctrl-C ends orch at once; the agents carry on still. */
	util_stop_signals(&run_stop);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Connects to one host (a struct run_host *), in its own thread. */
static void *
run_open_thread(void *arg)
{
	struct run_host	*rh = arg;

	if (host_open(rh->h, rh->run->run_id) == 0)
		rh->opened = 1;
	return (NULL);
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
		if (run_files_resolve(run, rh, cause) != 0)
			return (-1);
		run_plan_build(run, rh);
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
 * Binds a new run to its user (DIR/run.mac, run-bind.c), so that only
 * they resume it without --resume-foreign; a failure is only a warning.
 */
static void
run_open_bind(const struct run *run)
{
	struct run_bind	 b;
	const char	**names;
	char		*cause = NULL;
	size_t		 i;

	names = xcalloc(run->opts->nhosts + 1, sizeof *names);
	for (i = 0; i < run->opts->nhosts; i++)
		names[i] = run->opts->hosts[i].name;
	b.run_id = run->run_id;
	b.suite_path = run->suite->path;
	b.suite_text = run->suite->text;
	b.hosts = names;
	b.nhosts = run->opts->nhosts;
	if (run_bind_write(run->dir, &b, &cause) != 0) {
		log_warnx("%s: cannot bind the run to you (%s): resuming it "
		    "will need --resume-foreign", run->dir, cause);
		free(cause);
	}
	free(names);
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
	record_opts(&run->rec, run->opt_max_load, run->opts->has_env_pad ?
	    (int64_t)run->opts->env_pad : -1);
	free(cmdline);
	run_open_bind(run);
	return (run_labels(run, cause));
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
		run_plan_free(&rh->plan);
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
	int		 code = 3, record_ok = 0, slurm_left;

	memset(&run, 0, sizeof run);
	run.opts = opts;
	run.opt_max_load = opts->max_load;
	pthread_mutex_init(&run.mtx, NULL);
	run.tty = run_progress_tty();
	run_iso_now(started, sizeof started);

	if (opts->resume != NULL ?
	    run_resume_prepare(&run, opts->resume, &ds, &cause) != 0 :
	    run_new_prepare(&run, &cause) != 0) {
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
	/* Slurm hosts get their nodes before any host is connected. */
	if (run_slurm_prepare(&run, ds, &cause) != 0) {
		fprintf(stderr, "orch: %s\nnothing ran.\n", cause);
		code = run_stop ? 128 + (int)run_stop : 3;
		goto close;
	}
	if (run_stop) {
		fprintf(stderr, "orch: interrupted before any host was "
		    "connected\nnothing ran.\n");
		code = 128 + (int)run_stop;
		goto close;
	}
	run_open_hosts(&run);
	if (run_ident_check(&run, &cause) != 0 ||
	    run_plan_hosts(&run, ds, &cause) != 0) {
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
	run_slurm_record(&run);
	run_record_hosts(&run);
	if (run.rec.failed) {
		fprintf(stderr, "orch: %s\n", run.rec.err);
		code = 3;
		goto close;
	}
	/* rounds = auto stops when decided: its bound is no count. */
	if (!run.tty)
		fprintf(stderr, "orch: run %s: %s on %zu host%s, %s%u "
		    "rounds%s, seed %llu\n", run.run_id, run.suite->name,
		    run.nrh, run.nrh == 1 ? "" : "s", run.suite->auto_rounds ?
		    "auto (at most " : "", run.suite->auto_rounds ?
		    run.suite->max_rounds : run.suite->rounds,
		    run.suite->auto_rounds ? ")" : "",
		    (unsigned long long)run.suite->seed);

	host_each(run.rh, run.nrh, sizeof *run.rh, run_host_thread);
	run_iso_now(ended, sizeof ended);
	record_ok = 0;
	if (run_finish_detached(&run)) {
		code = run_finish_detach(&run, ended);
		run_slurm_detach(&run);
		goto out;
	}
	/* The agents have stopped: their nodes go back to Slurm. */
	slurm_left = run_slurm_release(&run, 1, ended) != 0;
	if (record_close(&run.rec, ended) != 0) {
		fprintf(stderr, "orch: %s\n", run.rec.err);
		code = 3;
		goto out;
	}
	code = run_finish(&run, &cause);
	if (slurm_left && code == 0)
		code = 3;
	goto out;
close:
	run_finish_abandon(&run, record_ok);
	run_slurm_abandon(&run);
out:
	run_slurm_free(&run);
	run_free(&run);
	dataset_free(ds);
	free(cause);
	pthread_mutex_destroy(&run.mtx);
	return (code);
}
