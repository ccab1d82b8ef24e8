/*
 * The end of a run: the reports, the history and the exit status once
 * every host has run; or the run left to its agents; or, when it never
 * started, nothing left behind.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/host.h"
#include "coordinator/hosts/shell.h"
#include "coordinator/report/report-export.h"
#include "coordinator/report/report-index.h"
#include "coordinator/report/report.h"
#include "coordinator/run/run-int.h"
#include "coordinator/run/run.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "proto/log.h"

/* Points reports/latest at DIR when DIR is reports/<name>. */
static void
run_finish_latest(const char *dir)
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
run_finish_summary(const char *dir)
{
	char	path[PATH_MAX];

	snprintf(path, sizeof path, "%s/report.md", dir);
	printf("report: %s\n", path);
	printf("        %s/answer.md, %s/report.html, %s/summary.json, "
	    "%s/samples.csv\n", dir, dir, dir, dir);
}

/*
 * After every host has run: says which failed, writes the reports and
 * the summary. Returns the exit code (0, 1 when --fail-on trips, 3).
 */
int
run_finish(struct run *run, char **cause)
{
	struct dataset	*ds = NULL;
	struct analysis	*a = NULL;
	size_t		 i, nfailed = 0, failed_hosts = 0;
	char		*tripped = NULL;

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
	/* Loaded and analysed once, for the reports and the history. */
	if (report_render_keep(run->dir, run->opts->quiet ? NULL : stdout,
	    run->opts->fail_on, &tripped, &nfailed, &ds, &a, cause) != 0) {
		fprintf(stderr, "orch: %s\n", *cause);
		analysis_free(a);
		dataset_free(ds);
		return (3);
	}
	run_finish_latest(run->dir);
	run_finish_summary(run->dir);
	report_index_run(run->dir, ds, a, run->opts->quiet);
	analysis_free(a);
	dataset_free(ds);
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
int
run_finish_detached(const struct run *run)
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
int
run_finish_detach(struct run *run, const char *at)
{
	const char	*again = run->opts->again != NULL ? run->opts->again :
	    "", *env = run->opts->again_env != NULL ? run->opts->again_env :
	    "";
	char		 dir[4 * PATH_MAX + 8] = "";
	size_t		 i, measured = 0, total = 0;

	if (record_detach(&run->rec, at) != 0)
		fprintf(stderr, "orch: %s\n", run->rec.err);
	for (i = 0; i < run->nrh; i++) {
		measured += run->rh[i].measured;
		total += run->rh[i].measured_total;
		if (run->rh[i].detached && !run_stop)
			fprintf(stderr, "orch: %s: %s\n", run->rh[i].h->name,
			    run->rh[i].h->error);
	}
	/* Lines to follow as printed: quoted, with the options they need. */
	if (shell_quote(dir, sizeof dir, run->dir) != 0)
		snprintf(dir, sizeof dir, "%s", run->dir);
	fprintf(stderr, "orch: %s: run %s left to its agents, which carry "
	    "on measuring (%zu of %zu measured runs stored)\n"
	    "  collect it and finish it: %sorch run%s --resume=%s\n"
	    "  or stop its agents:       %sorch stop%s %s\n"
	    "  its state:                %sorch status%s %s\n",
	    run_stop == SIGINT ? "interrupted" : run_stop == SIGTERM ?
	    "terminated" : "not finished", run->run_id, measured, total,
	    env, again, dir, env, again, dir, env, again, dir);
	return (run_stop != 0 ? 128 + (int)run_stop : 3);
}

/*
 * Ends a run that did not start: closes every host, and closes the record
 * when one was opened, else removes the run's directory (nothing was
 * recorded: leave nothing behind).
 */
void
run_finish_abandon(struct run *run, int record_ok)
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
