/*
 * Reports: the analysis of a dataset (statistics per host, benchmark,
 * metric and variant) and its renderers. Every file is rendered from the
 * dataset alone, so `orch report DIR` reproduces them byte for byte.
 */
#ifndef COORDINATOR_REPORT_H
#define COORDINATOR_REPORT_H

#include <stdio.h>

#include "coordinator/record.h"
#include "coordinator/stats.h"

struct rep_result {
	size_t			 host, bench, metric, variant;
	struct stats_summary	 sum;		/* over good measured runs */
	size_t			 failed;	/* measured runs that failed */
	size_t			 retried;	/* extra attempts */
};

struct rep_cmp {
	size_t			 host, bench, metric, variant;
	double			 ratio, lo, hi;	/* NAN when invalid */
	double			 p;		/* Wilcoxon on log ratios */
	size_t			 npairs;
	enum stats_verdict	 verdict;
	char			 reason[256];	/* why invalid */
};

struct rep_host {
	size_t		 host;		/* index into the dataset */
	size_t		 samples;	/* measured, all attempts */
	size_t		 failed;	/* final attempts that failed */
	size_t		 retries;
	double		 load_med, load_max;
};

struct analysis {
	const struct dataset	*ds;
	size_t			 nhosts;	/* sorted by arch, cpu, name */
	struct rep_host		*hosts;
	size_t			 nresults;
	struct rep_result	*results;
	size_t			 ncmps;
	struct rep_cmp		*cmps;
	size_t			 nworse;	/* primary-metric worse verdicts */
	size_t			 nfailed_hosts;
	size_t			 nfailed_samples;
};

/* Analyses ds. Returns 0, or -1 (out of memory: cause set). */
int	analysis_build(const struct dataset *ds, struct analysis **out,
	    char **cause);
void	analysis_free(struct analysis *a);

/* Renderers, each writing one file's content to f. Return 0 or -1. */
int	report_json(const struct analysis *a, FILE *f);
int	report_csv(const struct dataset *ds, FILE *f);
int	report_md(const struct analysis *a, FILE *f);

/*
 * Loads DIR/samples.msgpack and writes samples.csv, summary.json and
 * report.md into DIR, each through a temporary file renamed into place.
 * *nworse and *nfailed, when not NULL, receive the number of worse
 * primary verdicts and of measured runs that failed.
 * Returns 0, or -1 with *cause set.
 */
int	report_render(const char *dir, size_t *nworse, size_t *nfailed,
	    char **cause);

/* Formats a duration or value of a metric for people ("12.3 ms"). */
void	report_fmt_value(const char *metric, double v, char *buf, size_t len);

#endif
