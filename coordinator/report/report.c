/* Writing every report file of a run atomically (proto/file.h). */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/claims.h"
#include "coordinator/analysis/gate.h"
#include "coordinator/analysis/machines.h"
#include "coordinator/report/report-index.h"
#include "coordinator/report/report.h"
#include "proto/file.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

static void *
rep_write_thread(void *arg)
{
	file_out_write(arg);
	return (NULL);
}

/* The rep_write callbacks, one per file. */
static int
rep_json_cb(const void *a, FILE *f)
{
	return (report_json(a, f));
}

static int
rep_csv_cb(const void *ds, FILE *f)
{
	return (report_csv(ds, f));
}

static int
rep_md_cb(const void *a, FILE *f)
{
	return (report_md(a, f));
}

static int
rep_html_cb(const void *a, FILE *f)
{
	return (report_html(a, f));
}

static int
rep_answer_cb(const void *a, FILE *f)
{
	return (report_answer_md(a, f));
}

int
report_render(const char *dir, int fail_on, char **tripped, size_t *nfailed,
    char **cause)
{
	return (report_render_answer(dir, NULL, fail_on, tripped, nfailed,
	    cause));
}

int
report_render_keep(const char *dir, FILE *tty, int fail_on, char **tripped,
    size_t *nfailed, struct dataset **dsp, struct analysis **ap,
    char **cause)
{
	struct dataset	*ds = NULL;
	struct analysis	*a = NULL;
	struct file_out	 out[] = {
		{ dir, "samples.csv", rep_csv_cb, NULL, NULL, -1, "" },
		{ dir, "summary.json", rep_json_cb, NULL, NULL, -1, "" },
		{ dir, "report.md", rep_md_cb, NULL, NULL, -1, "" },
		{ dir, "report.html", rep_html_cb, NULL, NULL, -1, "" },
		{ dir, "answer.md", rep_answer_cb, NULL, NULL, -1, "" },
	};
	const size_t	 nout = sizeof out / sizeof out[0];
	pthread_t	 csv;
	size_t		 i;
	int		 r = -1, threaded = 0;

	*dsp = NULL;
	*ap = NULL;
	if (record_load(dir, &ds, cause) != 0)
		goto out;
	*dsp = ds;
	if (machines_check(ds, cause) != 0)
		goto out;
	/*
	 * samples.csv needs only the samples: it is written beside the
	 * analysis (a million samples make nine million rows), and when no
	 * thread can be had, after it.
	 */
	out[0].arg = ds;
	threaded = pthread_create(&csv, NULL, rep_write_thread, &out[0]) == 0;
	if (analysis_build(ds, &a, cause) != 0)
		goto out;
	*ap = a;
	if (claims_attach(a, cause) != 0)
		goto out;
	for (i = 1; i < nout; i++) {
		out[i].arg = a;
		file_out_write(&out[i]);
		if (out[i].r != 0)
			break;
	}
	if (threaded) {
		pthread_join(csv, NULL);
		threaded = 0;
	} else
		file_out_write(&out[0]);
	for (i = 0; i < nout; i++) {
		if (out[i].r != 0) {
			*cause = out[i].cause;
			out[i].cause = NULL;
			goto out;
		}
	}
	for (i = 0; i < nout; i++) {
		if (file_out_commit(&out[i]) != 0) {
			*cause = out[i].cause;
			out[i].cause = NULL;
			goto out;
		}
	}
	if (tty != NULL) {
		report_answer_text(a, tty);
		fflush(tty);
	}
	if (tripped != NULL) {
		size_t	ntrip;

		if (gate_check(a, fail_on, &ntrip, tripped) != 0) {
			xasprintf(cause, "--fail-on: out of memory");
			goto out;
		}
	}
	if (nfailed != NULL)
		*nfailed = a->nfailed_samples;
	r = 0;
out:
	if (threaded)
		pthread_join(csv, NULL);
	for (i = 0; i < nout; i++)
		file_out_discard(&out[i]);
	return (r);
}

int
report_render_answer(const char *dir, FILE *tty, int fail_on,
    char **tripped, size_t *nfailed, char **cause)
{
	struct dataset	*ds;
	struct analysis	*a;
	int		 r;

	r = report_render_keep(dir, tty, fail_on, tripped, nfailed, &ds, &a,
	    cause);
	analysis_free(a);
	dataset_free(ds);
	return (r);
}
