/*
 * The analysis of a dataset: statistics per host, benchmark, metric and
 * variant; the architecture groups, their matrix and geometric means. Every
 * report file is rendered from it (report.h), and it from the dataset alone.
 */
#ifndef COORDINATOR_ANALYSIS_H
#define COORDINATOR_ANALYSIS_H

#include <stddef.h>

#include "coordinator/analysis/hygiene.h"
#include "coordinator/analysis/stats.h"
#include "coordinator/store/dataset.h"

struct claims;

struct rep_result {
	size_t			 host, bench, metric, variant;
	struct stats_summary	 sum;		/* over good measured runs */
	size_t			 failed;	/* measured runs that failed */
	size_t			 retried;	/* extra attempts */
	size_t			 runs;		/* measured runs (rounds with a
						   final attempt) */
	size_t			 runs_retried;	/* of those, the ones that
						   needed a retry */
	int			 retry_flag;	/* retried in more than
						   REP_RETRY_FLAG of its runs:
						   a crash rate it hides */
};

/* The share of a variant's runs retried above which it is flagged. */
#define REP_RETRY_FLAG		0.10

/* How a variant's files on a host relate to the reference variant's. */
#define REP_FILES_DIFFER	0	/* different bin, or not recorded */
#define REP_FILES_SAME		1	/* same bin SHA-256, other settings */
#define REP_FILES_AA		2	/* same bin and settings: A/A */

struct rep_cmp {
	size_t			 host, bench, metric, variant;
	double			 ratio, lo, hi;	/* NAN when invalid */
	double			 p;		/* Wilcoxon on log ratios */
	size_t			 npairs;
	enum stats_verdict	 verdict;
	char			 reason[256];	/* why invalid */
	int			 stopped;	/* the agent stopped its bench
						   on the host after round 1 */
	int			 files;		/* REP_FILES_* */
	int			 family;	/* primary: in the family */
	double			 alpha;		/* the test's level: 0.05, or
						   0.05 / family size */
	double			 level;		/* of [lo, hi]: 1 - alpha */
	double			 p_adj;		/* p times the family size */
	double			 r1;		/* lag-1 autocorrelation of the
						   log ratios; NAN unknown */
	double			 widen;		/* variance factor; 1 none */
	double			 scale;		/* interval factor for it;
						   1 none */
	double			 mde;		/* ratio - 1 found at 80%
						   power; inf: none; NAN */
	size_t			 decide_rounds;	/* rounds finding min_effect
						   at 80% power; 0 unknown */
	double			*rratio;	/* [rounds]: round r+1's paired
						   ratio, NAN when no good pair;
						   NULL when invalid */
};

struct rep_host {
	size_t		 host;		/* index into the dataset */
	size_t		 samples;	/* measured, all attempts */
	size_t		 failed;	/* final attempts that failed */
	size_t		 retries;
	double		 load_med, load_max;
	size_t		 group;		/* index into analysis.groups */
	struct hyg_host	 hyg;		/* floor, first runs, load waits */
	double		 floor_sub;	/* subtracted from wall_ns; 0 none */
	double		 mde;		/* median over its primary
					   comparisons of rep_cmp.mde; NAN */
	double		 r1;		/* mean lag-1 autocorrelation of its
					   primary comparisons; NAN */
	size_t		 r1_n;		/* over this many rounds */
	double		 widen;		/* largest variance factor it gave */
	/*
	 * rounds = auto (coordinator/analysis/seq.h); also filled for fixed
	 * rounds.
	 */
	uint32_t	 rounds_used;	/* its highest measured round */
	double		 seq_alpha;	/* its primary tests' level at its
					   last look; family_alpha when fixed */
	int		 stop;		/* enum seq_stop */
	size_t		 nprimary;	/* its primary comparisons */
	size_t		 ndecided;	/* of them better, worse, same or
					   invalid (more rounds mend none) */
	int64_t		 spent_ns;	/* first start to last end */
	int64_t		 pace_ns;	/* its longest block */
};

/* Hosts of one architecture and CPU model: a section of the report. */
struct rep_group {
	size_t		 from, to;	/* its hosts:
					   analysis.hosts[from, to) */
	char		*label;		/* "x86_64 · AMD EPYC 9654" */
	int		 known;		/* 0: hosts that never gave facts */
};

/* The geometric mean of one variant's primary ratios in one group. */
struct rep_geo {
	size_t			 group, variant;
	size_t			 nused;		/* (host, bench)
						   comparisons in it */
	size_t			 nbenches;	/* distinct benchmarks
						   among them */
	size_t			 nhosts;	/* distinct hosts among them */
	size_t			 ninvalid;	/* left out: invalid */
	size_t			 count[VERDICT_INVALID + 1]; /* per verdict */
	double			 est, lo, hi;	/* NAN when nused is 0 */
	enum stats_verdict	 verdict;
	int			 aa;		/* every host ran
						   identical files */
	double			 level;		/* of [lo, hi] */
	double			 widen;		/* variance factor for serial
						   correlation; 1 none */
};

/* One row of the matrix: a benchmark's primary metric under one variant. */
struct rep_row {
	size_t		 bench, variant;
	int		 differs;	/* conclusive verdicts differ by host */
	char		*agreement;	/* "better on aarch64 ·
					   Apple M2, same on …" */
};

/* The one-line answer for one variant against the reference. */
struct rep_answer {
	size_t		 variant;
	char		*headline;	/* "better on all architectures", … */
	char		*detail;	/* per group: verdict and geomean */
};

struct analysis {
	const struct dataset	*ds;
	size_t			 nhosts;	/* sorted by arch, cpu, name */
	struct rep_host		*hosts;
	size_t			 nresults;
	struct rep_result	*results;
	size_t			 ncmps;
	struct rep_cmp		*cmps;
	size_t			 ngroups;	/* in host order */
	struct rep_group	*groups;
	size_t			 ngeos;		/* per known group
						   and variant */
	struct rep_geo		*geos;
	size_t			 nrows;		/* per bench and variant */
	struct rep_row		*rows;
	size_t			 nanswers;	/* per non-reference variant */
	struct rep_answer	*answers;
	int			 inverted;	/* a primary metric
						   is higher-better */
	size_t			 nworse;	/* primary-metric
						   worse verdicts */
	size_t			 family_size;	/* primary tests: comparisons
						   and geometric means */
	double			 family_alpha;	/* STATS_ALPHA / family_size */
	size_t			 nfailed_hosts;
	size_t			 nfailed_samples;
	/* The samples of (host h, bench b), in record order: indices
	 * by_hb[hb_start[h * nbenches + b] ..
	 * hb_start[h * nbenches + b + 1]). */
	size_t			*hb_start;
	size_t			*by_hb;
	/* Where (host h, bench b)'s results and comparisons start in
	 * results and cmps: res_start[h * nbenches + b], cmp_start[...]. */
	size_t			*res_start;
	size_t			*cmp_start;
	/* The suite's claims decided, and their destructor: set by
	 * claims_attach (claims.h), which the analysis does not call;
	 * NULL: none. */
	struct claims		*claims;
	void			(*free_claims)(struct claims *);
	/* What the renderers share, built once on first use: allocated
	 * with the analysis, so that a const analysis keeps it. */
	struct analysis_memo	*memo;
};

/*
 * The Machines section (machines.h: machines_get builds it once, whichever
 * report asks first; analysis_free frees it through free_machines).
 */
struct analysis_memo {
	int			 machines_built;
	int			 machines_rc;
	struct machines		*machines;
	void			(*free_machines)(struct machines *);
};

/*
 * Analyses ds (all but the claims: claims_attach). Returns 0, or -1 with
 * *cause set (caller frees) when the record is too large to analyse or
 * memory runs out.
 */
int	analysis_build(const struct dataset *ds, struct analysis **out,
	    char **cause);
void	analysis_free(struct analysis *a);

/* Returns the comparison of (host, bench, metric, variant), or NULL. */
const struct rep_cmp *analysis_cmp(const struct analysis *a, size_t host,
	    size_t bench, size_t metric, size_t variant);

/* Returns the result of (host, bench, metric, variant), or NULL. */
const struct rep_result *analysis_result(const struct analysis *a,
	    size_t host, size_t bench, size_t metric, size_t variant);

/*
 * Fills logs (ds->rounds of them) with the per-round log ratios of variant
 * v to variant w on (dataset host h, bench b), from the analysis' paired
 * ratios of each to the suite's reference: the reference's own value
 * cancels in each round. Returns how many rounds have both.
 */
size_t	analysis_pair_logs(const struct analysis *a, size_t h, size_t b,
	    size_t v, size_t w, double *logs);

/*
 * Returns 1 when dataset hosts i and j (i != j) said they are one machine
 * (the same machine hash: docs/architecture.md); their comparisons are
 * not independent, and a geometric mean counts them as one.
 */
int	analysis_same_machine(const struct dataset *ds, size_t i, size_t j);

/* Returns the geometric mean of variant in group, or NULL. */
const struct rep_geo *analysis_geo(const struct analysis *a, size_t group,
	    size_t variant);

/*
 * Returns the headline for one variant given its verdict in each of n
 * architecture groups: "better on all architectures", "worse on some
 * architectures", "mixed", "inconclusive", "invalid", … (see docs/report.md).
 */
const char *analysis_headline(const enum stats_verdict *v, size_t n);

/*
 * The value of metric in sample s of host hostidx as the analysis uses it
 * (wall_ns net of a subtracted harness floor). Returns 0, or -1 when the
 * sample lacks the metric.
 */
int	analysis_value(const struct analysis *a, size_t hostidx,
	    const struct ds_sample *s, const char *metric, double *v);

#endif
