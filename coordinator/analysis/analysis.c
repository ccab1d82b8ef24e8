/* Statistics over a dataset: the analysis every report is rendered from. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/analysis/seq.h"
#include "coordinator/analysis/stats.h"
#include "coordinator/input/suite.h"
#include "proto/util.h"
#include "proto/xmalloc.h"
/*
 * The value of metric key (dataset_metric) in sample s as the analysis uses
 * it: wall_ns net of the host's harness floor when one is subtracted (never
 * a program's own metrics). Returns 0, or -1 when the sample lacks it.
 */
static int
rep_get(const struct ds_sample *s, long key, double floor_sub, double *v)
{
	if (dataset_get(s, key, v) != 0)
		return (-1);
	if (floor_sub > 0 && key == DS_WALL_NS)
		*v -= floor_sub;
	return (0);
}

/* Per (host, bench, variant, round): the final measured attempt. */
struct rep_cell {
	const struct ds_sample	*s;
};

static const struct dataset *rep_sort_ds;

/* Orders hosts by architecture, CPU model, then name. */
static int
rep_host_cmp(const void *a, const void *b)
{
	const struct ds_host	*x =
	    &rep_sort_ds->hosts[((const struct rep_host *)a)->host];
	const struct ds_host	*y =
	    &rep_sort_ds->hosts[((const struct rep_host *)b)->host];
	int			 c;

	/* Hosts that never said hello (no facts) come last. */
	if ((x->facts.arch[0] == '\0') != (y->facts.arch[0] == '\0'))
		return (x->facts.arch[0] == '\0' ? 1 : -1);
	if ((c = strcmp(x->facts.arch, y->facts.arch)) != 0)
		return (c);
	if ((c = strcmp(x->facts.cpu_model, y->facts.cpu_model)) != 0)
		return (c);
	return (strcmp(x->name, y->name));
}

/* Per variant of (host, bench): whether its runs agree on the checksum. */
struct rep_ck {
	int			 ok;	/* every good run printed
					   one checksum */
	const struct ds_sample	*first;	/* the first that printed it */
	char			 why[256];	/* when not ok */
};

/*
 * Checks, variant by variant, that every successful run of a benchmark on
 * a host printed the checksum, the same one: ck[v] for each variant.
 */
static void
rep_checksums(const struct analysis *a, size_t host, size_t bench,
    struct rep_ck *ck)
{
	const struct dataset	*ds = a->ds;
	size_t			 hb = host * ds->nbenches + bench;
	const struct ds_sample	*s;
	const char		*key = ds->benches[bench].checksum;
	struct rep_ck		*c;
	size_t			 i, v;

	for (v = 0; v < ds->nvariants; v++) {
		ck[v].ok = 1;
		ck[v].first = NULL;
		ck[v].why[0] = '\0';
	}
	if (key[0] == '\0')
		return;
	for (i = a->hb_start[hb]; i < a->hb_start[hb + 1]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->status != 0 || s->variant >= ds->nvariants)
			continue;
		c = &ck[s->variant];
		if (!c->ok)
			continue;
		if (s->checksum == NULL) {
			snprintf(c->why, sizeof c->why, "run seq %u (%s, "
			    "round %u) %s", s->seq, ds->variants[s->variant],
			    s->round, strcmp(key, "stdout") == 0 ? "has no "
			    "stdout checksum (its stdout was not read to its "
			    "end)" : "printed no ");
			if (strcmp(key, "stdout") != 0)
				snprintf(c->why + strlen(c->why),
				    sizeof c->why - strlen(c->why),
				    "%s (the checksum key)", key);
			c->ok = 0;
			continue;
		}
		if (c->first == NULL) {
			c->first = s;
			continue;
		}
		/* Loaded strings are interned: equal ones are one string. */
		if (c->first->checksum != s->checksum &&
		    strcmp(c->first->checksum, s->checksum) != 0) {
			snprintf(c->why, sizeof c->why, "%schecksums disagree: "
			    "%s round %u gave %.40s, %s round %u gave %.40s",
			    strcmp(key, "stdout") == 0 ? "stdout " : "",
			    ds->variants[c->first->variant], c->first->round,
			    c->first->checksum, ds->variants[s->variant],
			    s->round, s->checksum);
			c->ok = 0;
		}
	}
}

/*
 * Whether the checksums allow comparing variant vr with ref: each agrees
 * with itself and with the other. Returns 1, or 0 with the reason; a
 * mismatch in a third variant touches neither.
 */
static int
rep_ck_pair(const struct dataset *ds, const struct rep_ck *ck, size_t vr,
    int out, char *reason, size_t len)
{
	const struct rep_ck	*r = &ck[ds->ref], *v = &ck[vr];

	if (!r->ok || !v->ok) {
		snprintf(reason, len, "%s", !r->ok ? r->why : v->why);
		return (0);
	}
	if (r->first != NULL && v->first != NULL &&
	    r->first->checksum != v->first->checksum &&
	    strcmp(r->first->checksum, v->first->checksum) != 0) {
		snprintf(reason, len, "%schecksums disagree: %s round %u gave "
		    "%.40s, %s round %u gave %.40s", out ? "stdout " : "",
		    ds->variants[ds->ref],
		    r->first->round, r->first->checksum, ds->variants[vr],
		    v->first->round, v->first->checksum);
		return (0);
	}
	return (1);
}

/*
 * Fills cells[variant * (rounds+1) + round], all clear, with the final
 * measured attempts of (host, bench), or with NULL when clear is set.
 * Returns the highest round filled (0: none): the rounds past it need no
 * look, so the work follows the samples, not the rounds a record claims.
 */
static uint32_t
rep_cells(const struct analysis *a, size_t host, size_t bench,
    struct rep_cell *cells, uint32_t rounds, int clear)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	struct rep_cell		*c;
	size_t			 i, hb = host * ds->nbenches + bench;
	uint32_t		 top = 0;

	for (i = a->hb_start[hb]; i < a->hb_start[hb + 1]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->warmup || s->round < 1 || s->round > rounds ||
		    s->variant >= ds->nvariants)
			continue;
		c = &cells[s->variant * ((size_t)rounds + 1) + s->round];
		if (clear)
			c->s = NULL;
		else if (c->s == NULL || s->attempt > c->s->attempt)
			c->s = s;
		if (s->round > top)
			top = s->round;
	}
	return (top);
}

/*
 * Buckets the samples by (host, bench), keeping record order. Returns 0 or
 * -1 (out of memory).
 */
static int
rep_index(struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	size_t			 nhb = ds->nhosts * ds->nbenches, i, k, *fill;

	a->hb_start = calloc(nhb + 2, sizeof *a->hb_start);
	a->by_hb = calloc(ds->nsamples + 1, sizeof *a->by_hb);
	fill = calloc(nhb + 1, sizeof *fill);
	if (a->hb_start == NULL || a->by_hb == NULL || fill == NULL) {
		free(fill);
		return (-1);
	}
	for (i = 0; i < ds->nsamples; i++) {
		k = ds->samples[i].host * ds->nbenches + ds->samples[i].bench;
		a->hb_start[k + 1]++;
	}
	for (k = 0; k < nhb; k++)
		a->hb_start[k + 1] += a->hb_start[k];
	for (i = 0; i < ds->nsamples; i++) {
		k = ds->samples[i].host * ds->nbenches + ds->samples[i].bench;
		a->by_hb[a->hb_start[k] + fill[k]++] = i;
	}
	free(fill);
	return (0);
}

int
analysis_value(const struct analysis *a, size_t hostidx,
    const struct ds_sample *s, const char *metric, double *v)
{
	size_t	i;

	for (i = 0; i < a->nhosts; i++) {
		if (a->hosts[i].host == hostidx)
			return (rep_get(s, dataset_metric(a->ds, metric),
			    a->hosts[i].floor_sub, v));
	}
	return (dataset_value(a->ds, s, metric, v));
}

/*
 * Sets *out to each variant's settings in the suite as run (suite.h: its
 * keys but bin, as text to compare; "" when none), or to NULL when the
 * recorded suite did not parse. Returns 0, or -1 out of memory.
 */
static int
rep_settings(const struct dataset *ds, const char ***out)
{
	const struct suite	*s = ds->suite;
	size_t			 v, i;

	*out = NULL;
	if (s == NULL)
		return (0);
	if ((*out = calloc(ds->nvariants + 1, sizeof **out)) == NULL)
		return (-1);
	for (v = 0; v < ds->nvariants; v++) {
		(*out)[v] = "";
		for (i = 0; i < s->nvariants; i++) {
			if (strcmp(s->variants[i].name, ds->variants[v]) == 0 &&
			    s->variants[i].settings != NULL)
				(*out)[v] = s->variants[i].settings;
		}
	}
	return (0);
}

/*
 * Fills files[variant] with how each variant's files on host relate to the
 * reference's (REP_FILES_*). Same files with unknown settings (settings
 * NULL) count as REP_FILES_SAME: A/A is claimed only when known.
 */
static void
rep_files(const struct dataset *ds, size_t host, const char **settings,
    int *files)
{
	const char	*rsha, *sha;
	size_t		 v;

	rsha = hygiene_bin_sha(ds, host, ds->ref);
	for (v = 0; v < ds->nvariants; v++) {
		files[v] = REP_FILES_DIFFER;
		sha = hygiene_bin_sha(ds, host, v);
		if (v == ds->ref || rsha == NULL || sha == NULL ||
		    strcmp(rsha, sha) != 0)
			continue;
		files[v] = REP_FILES_SAME;
		if (settings != NULL &&
		    strcmp(settings[v], settings[ds->ref]) == 0)
			files[v] = REP_FILES_AA;
	}
}

static int	rep_groups(struct analysis *);
static int	rep_family(struct analysis *);
static double	rep_seq_alpha(const struct analysis *, struct rep_host *);
static void	rep_seq_times(const struct analysis *, struct rep_host *);
static void	rep_seq_stop(const struct analysis *, struct rep_host *);
static int	rep_geos(struct analysis *);
static int	rep_rows(struct analysis *);
static int	rep_answers(struct analysis *);

/*
 * The scratch of analysis_build, sized once for the whole dataset and
 * reused for every (host, bench, metric, variant).
 */
struct rep_work {
	size_t		 nvariants;
	size_t		 rounds1;	/* rounds + 1: a round indexes as is */
	const char	**settings;	/* per variant (rep_settings); NULL */
	int		*files;		/* per variant: REP_FILES_* */
	struct rep_cell	*cells;		/* [variant * rounds1 + round] */
	double		*vals;		/* [rounds1]: one result's values */
	double		*ratios;	/* [rounds1]: one comparison's pairs */
	double		*logs;		/* [rounds1]: their logarithms */
	double		*rr;		/* [rounds1]: ratio by
					   round, NAN none */
	double		*loads;		/* [nsamples]: one host's load1 */
	uint32_t	 top;		/* highest round of (host, bench) */
	struct rep_ck	*ck;		/* per variant (rep_checksums) */
	char		 bad[256];	/* rep_pairs: why no comparison */
};

/* Frees the scratch of analysis_build. */
static void
rep_work_free(struct rep_work *w)
{
	free(w->settings);
	free(w->files);
	free(w->cells);
	free(w->vals);
	free(w->ratios);
	free(w->logs);
	free(w->rr);
	free(w->loads);
	free(w->ck);
}

/* Allocates the scratch of analysis_build for ds. Returns 0 or -1. */
static int
rep_work_new(struct rep_work *w, const struct dataset *ds)
{
	size_t	r;

	memset(w, 0, sizeof *w);
	w->nvariants = ds->nvariants;
	w->rounds1 = (size_t)ds->rounds + 1;
	if (rep_settings(ds, &w->settings) != 0)
		return (-1);
	w->files = calloc(ds->nvariants + 1, sizeof *w->files);
	w->cells = calloc(ds->nvariants * w->rounds1 + 1, sizeof *w->cells);
	w->vals = calloc(w->rounds1, sizeof *w->vals);
	w->ratios = calloc(w->rounds1, sizeof *w->ratios);
	w->logs = calloc(w->rounds1, sizeof *w->logs);
	w->rr = calloc(w->rounds1, sizeof *w->rr);
	w->loads = calloc(ds->nsamples + 1, sizeof *w->loads);
	w->ck = calloc(ds->nvariants + 1, sizeof *w->ck);
	if (w->ck == NULL || w->files == NULL || w->cells == NULL ||
	    w->vals == NULL || w->ratios == NULL || w->logs == NULL ||
	    w->rr == NULL || w->loads == NULL)
		return (-1);
	for (r = 0; r < ds->rounds; r++)
		w->rr[r] = NAN;
	return (0);
}

/*
 * Counts the primary metrics of ds into *nm and checks that the results
 * and comparisons of every (host, bench, metric, variant) can be sized.
 * Returns 0, or -1 with *cause set.
 */
static int
rep_check_size(const struct dataset *ds, size_t *nm, char **cause)
{
	size_t	b, nv = ds->nvariants, R1 = (size_t)ds->rounds + 1;

	for (*nm = 0, b = 0; b < ds->nbenches; b++)
		*nm += ds->benches[b].nmetrics;
	if (nv == 0 || ds->ref >= nv || R1 > SIZE_MAX / (nv + 1) ||
	    (ds->nhosts > 0 && *nm > SIZE_MAX / 2 / ds->nhosts / nv)) {
		xasprintf(cause, "analysis: record too large");
		return (-1);
	}
	return (0);
}

/*
 * Allocates a's hosts (sorted), sample index, results and comparisons:
 * every (host, bench, metric, variant) has a result, and each but the
 * reference's a comparison, sized once and found by index. Returns 0 or -1.
 */
static int
rep_alloc(struct analysis *a, size_t nm)
{
	const struct dataset	*ds = a->ds;
	size_t			 h, nv = ds->nvariants;
	size_t			 nhb = ds->nhosts * ds->nbenches;

	a->nhosts = ds->nhosts;
	if ((a->hosts = calloc(ds->nhosts + 1, sizeof *a->hosts)) == NULL)
		return (-1);
	for (h = 0; h < ds->nhosts; h++) {
		a->hosts[h].host = h;
		a->hosts[h].widen = 1;
		a->hosts[h].mde = a->hosts[h].r1 = NAN;
	}
	rep_sort_ds = ds;
	qsort(a->hosts, a->nhosts, sizeof *a->hosts, rep_host_cmp);
	if (rep_index(a) != 0)
		return (-1);
	a->results = calloc(ds->nhosts * nm * nv + 1, sizeof *a->results);
	a->cmps = calloc(ds->nhosts * nm * (nv - 1) + 1, sizeof *a->cmps);
	a->res_start = calloc(nhb + 1, sizeof *a->res_start);
	a->cmp_start = calloc(nhb + 1, sizeof *a->cmp_start);
	if (a->results == NULL || a->cmps == NULL || a->res_start == NULL ||
	    a->cmp_start == NULL)
		return (-1);
	return (0);
}

/* Counts host rh's measured samples and retries, and sums up its load. */
static void
rep_host_load(struct analysis *a, struct rep_host *rh, struct rep_work *w)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	size_t			 i, nl = 0, h = rh->host;

	for (i = a->hb_start[h * ds->nbenches];
	    i < a->hb_start[(h + 1) * ds->nbenches]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->warmup)
			continue;
		rh->samples++;
		if (s->attempt > 1)
			rh->retries++;
		if (s->load1 >= 0)
			w->loads[nl++] = s->load1;
	}
	if (nl > 0) {
		stats_sort(w->loads, nl);
		rh->load_med = stats_quantile(w->loads, nl, 0.5);
		rh->load_max = w->loads[nl - 1];
	}
}

/* Counts the failed final attempts of (host rh, bench) in w->cells. */
static void
rep_failures(struct analysis *a, struct rep_host *rh, struct rep_work *w)
{
	const struct ds_sample	*s;
	size_t			 vr, r;

	for (vr = 0; vr < a->ds->nvariants; vr++) {
		for (r = 1; r <= w->top; r++) {
			s = w->cells[vr * w->rounds1 + r].s;
			if (s != NULL && s->status != 0) {
				rh->failed++;
				a->nfailed_samples++;
			}
		}
	}
}

/*
 * Counts res's measured runs and those that needed a retry (a final
 * attempt past the first: a run killed by a signal, then good), and flags
 * res when more than REP_RETRY_FLAG of its runs did: its good values hide
 * a crash rate.
 */
static void
rep_retry_rate(struct rep_result *res, const struct rep_work *w)
{
	const struct ds_sample	*s;
	size_t			 r;

	for (r = 1; r <= w->top; r++) {
		s = w->cells[res->variant * w->rounds1 + r].s;
		if (s == NULL)
			continue;
		res->runs++;
		if (s->attempt > 1)
			res->runs_retried++;
	}
	res->retry_flag = res->runs > 0 &&
	    (double)res->runs_retried > REP_RETRY_FLAG * (double)res->runs;
}

/*
 * Appends the result of (host rh, bench b, metric m, variant vr): the
 * summary of its good final attempts. Returns 0 or -1 (out of memory).
 */
static int
rep_result(struct analysis *a, const struct rep_host *rh, size_t b,
    size_t m, long key, size_t vr, struct rep_work *w)
{
	struct rep_result	*res = &a->results[a->nresults++];
	const struct ds_sample	*s;
	double			 v;
	size_t			 r, n = 0;

	memset(res, 0, sizeof *res);
	res->host = rh->host;
	res->bench = b;
	res->metric = m;
	res->variant = vr;
	for (r = 1; r <= w->top; r++) {
		s = w->cells[vr * w->rounds1 + r].s;
		if (s == NULL)
			continue;
		res->retried += s->attempt - 1;
		if (s->status != 0) {
			res->failed++;
			continue;
		}
		if (rep_get(s, key, rh->floor_sub, &v) == 0)
			w->vals[n++] = v;
	}
	rep_retry_rate(res, w);
	return (stats_summarize(w->vals, n, &res->sum));
}

/*
 * Fills w->ratios, w->logs and w->rr with the paired ratios of variant vr
 * to the reference, round by round, for metric key. Returns their number;
 * sets w->bad when a good run lacks the metric or its value has no
 * logarithm (a pair dropped in silence would bias the estimate).
 */
static size_t
rep_pairs(const struct analysis *a, const struct rep_host *rh, size_t b,
    size_t m, long key, size_t vr, struct rep_work *w)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s, *rs, *one[2];
	const char		*mn = ds->benches[b].metrics[m];
	double			 v, rv, x;
	size_t			 r, n = 0, i;

	w->bad[0] = '\0';
	for (r = 1; r <= w->top; r++) {
		s = w->cells[vr * w->rounds1 + r].s;
		rs = w->cells[ds->ref * w->rounds1 + r].s;
		one[0] = rs;
		one[1] = s;
		for (i = 0; i < 2 && w->bad[0] == '\0'; i++) {
			if (one[i] == NULL || one[i]->status != 0)
				continue;
			if (rep_get(one[i], key, rh->floor_sub, &x) != 0)
				snprintf(w->bad, sizeof w->bad, "run seq %u "
				    "(%s, round %u) printed no %s (the %s "
				    "metric)", one[i]->seq,
				    ds->variants[one[i]->variant],
				    one[i]->round, mn, m == 0 ? "primary" :
				    "secondary");
			else if (!(x > 0) && key == DS_WALL_NS &&
			    rh->floor_sub > 0)
				snprintf(w->bad, sizeof w->bad, "round %u: %s "
				    "took %.0f ns, at or below the harness "
				    "floor (%.0f ns): lengthen the benchmark, "
				    "or set subtract_floor = no",
				    one[i]->round,
				    ds->variants[one[i]->variant],
				    x + rh->floor_sub, rh->floor_sub);
			else if (!(x > 0))
				snprintf(w->bad, sizeof w->bad, "round %u: %s "
				    "gave %s = %g; a ratio needs values above "
				    "0", one[i]->round,
				    ds->variants[one[i]->variant], mn, x);
		}
		if (s == NULL || rs == NULL || s->status != 0 ||
		    rs->status != 0)
			continue;
		if (rep_get(s, key, rh->floor_sub, &v) != 0 ||
		    rep_get(rs, key, rh->floor_sub, &rv) != 0 ||
		    !(rv > 0) || !(v > 0))
			continue;
		if (!isfinite(log(v / rv))) {
			/* Only a hostile or broken record gets here. */
			if (w->bad[0] == '\0')
				snprintf(w->bad, sizeof w->bad, "round %zu: "
				    "%s's %s over %s's (%g / %g) has no finite "
				    "logarithm", r, ds->variants[vr], mn,
				    ds->variants[ds->ref], v, rv);
			continue;
		}
		w->ratios[n] = v / rv;
		w->logs[n] = log(v / rv);
		w->rr[r - 1] = v / rv;
		n++;
	}
	return (n);
}

/*
 * Sets cmp's estimate, interval, p and verdict from the n log ratios
 * logs, tested at alpha (docs/statistics.md). Returns 0 or -1.
 */
static int
rep_test(const struct dataset *ds, struct rep_cmp *cmp, const double *logs,
    size_t n, double alpha, double pooled_r1, size_t pooled_n)
{
	struct stats_cmp	sc;

	if (stats_compare_serial(logs, n, alpha, ds->min_effect, pooled_r1,
	    pooled_n, &sc) != 0)
		return (-1);
	cmp->alpha = alpha;
	cmp->level = sc.level;
	cmp->ratio = exp(sc.est);
	cmp->lo = exp(sc.lo);
	cmp->hi = exp(sc.hi);
	cmp->p = sc.p;
	cmp->p_adj = fmin(1.0, sc.p * (STATS_ALPHA / alpha));
	cmp->r1 = sc.r1;
	cmp->widen = sc.widen;
	cmp->scale = sc.scale;
	cmp->mde = isfinite(sc.mde) ? exp(sc.mde) - 1 : sc.mde;
	cmp->decide_rounds = sc.decide_rounds;
	cmp->verdict = stats_verdict_test(&sc, alpha, ds->min_effect,
	    ds->benches[cmp->bench].higher[cmp->metric]);
	return (0);
}

/*
 * Appends the comparison of variant vr to the reference for (host rh,
 * bench b, metric m): paired ratios, the Hodges-Lehmann estimate with the
 * interval and p of one Wilcoxon signed-rank test (at 5%; rep_family
 * tests the primary ones again at the family's level), and the verdict.
 * Returns 0 or -1 (out of memory).
 */
/*
 * Says why a comparison has too few pairs: the count and, when runs of
 * its two variants failed, the first failure's own reason (a metric the
 * program never printed names the key there).
 */
static void
rep_few_pairs(const struct analysis *a, const struct rep_host *rh, size_t b,
    size_t vr, size_t n, char *reason, size_t len)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	size_t			 hb = rh->host * ds->nbenches + b, i;

	snprintf(reason, len, "%zu good pairs; at least %d are needed", n,
	    STATS_MIN_PAIRS);
	for (i = a->hb_start[hb]; i < a->hb_start[hb + 1]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->warmup || s->status == 0 || s->err == NULL ||
		    s->err[0] == '\0' || (s->variant != ds->ref &&
		    s->variant != vr))
			continue;
		snprintf(reason + strlen(reason), len - strlen(reason),
		    " (runs failed: %s round %u: %.160s)",
		    ds->variants[s->variant], s->round, s->err);
		break;
	}
	/* A stderr tail may hold line breaks: one line, for every format. */
	for (i = 0; reason[i] != '\0'; i++) {
		if ((unsigned char)reason[i] < 0x20 || reason[i] == 0x7f)
			reason[i] = ' ';
	}
}

/*
 * Fills reason with why the agent stopped bench b on host h after its
 * first round (its STATUS "stopped", whose detail starts with the bench's
 * name and ": "); returns 1, or 0 when it did not stop it.
 */
static int
rep_stopped(const struct dataset *ds, size_t h, size_t b, char *reason,
    size_t len)
{
	const char	*name = ds->benches[b].name;
	size_t		 i, n = strlen(name);

	for (i = 0; i < ds->nnotes; i++) {
		if (ds->notes[i].host != h ||
		    strcmp(ds->notes[i].state, "stopped") != 0 ||
		    strncmp(ds->notes[i].detail, name, n) != 0 ||
		    strncmp(ds->notes[i].detail + n, ": ", 2) != 0)
			continue;
		snprintf(reason, len, "%s", ds->notes[i].detail + n + 2);
		return (1);
	}
	return (0);
}

static int
rep_compare(struct analysis *a, const struct rep_host *rh, size_t b,
    size_t m, long key, size_t vr, struct rep_work *w)
{
	const struct dataset	*ds = a->ds;
	struct rep_cmp		*cmp = &a->cmps[a->ncmps++];
	size_t			 r, n;
	int			 rc = 0;

	memset(cmp, 0, sizeof *cmp);
	cmp->host = rh->host;
	cmp->bench = b;
	cmp->metric = m;
	cmp->variant = vr;
	cmp->ratio = cmp->lo = cmp->hi = NAN;
	cmp->p = cmp->p_adj = cmp->r1 = cmp->mde = NAN;
	cmp->widen = 1;
	cmp->scale = 1;
	cmp->alpha = STATS_ALPHA;
	cmp->level = 1 - STATS_ALPHA;
	cmp->family = m == 0;
	cmp->files = w->files[vr];
	cmp->npairs = n = rep_pairs(a, rh, b, m, key, vr, w);
	cmp->verdict = VERDICT_INVALID;
	if (!rep_ck_pair(ds, w->ck, vr, strcmp(ds->benches[b].checksum,
	    "stdout") == 0, cmp->reason, sizeof cmp->reason))
		;
	else if (w->bad[0] != '\0')
		snprintf(cmp->reason, sizeof cmp->reason, "%s", w->bad);
	else if (n < STATS_MIN_PAIRS) {
		if (!(cmp->stopped = rep_stopped(ds, rh->host, b,
		    cmp->reason, sizeof cmp->reason)))
			rep_few_pairs(a, rh, b, vr, n, cmp->reason,
			    sizeof cmp->reason);
	}
	else if (rep_test(ds, cmp, w->logs, n, STATS_ALPHA, NAN, 0) != 0)
		rc = -1;
	if (cmp->verdict == VERDICT_INVALID) {
		cmp->ratio = cmp->lo = cmp->hi = NAN;
		cmp->p = cmp->p_adj = NAN;
	} else {
		/* Kept for rep_family and rep_geos. */
		if ((cmp->rratio = calloc(w->rounds1,
		    sizeof *cmp->rratio)) == NULL)
			rc = -1;
		else
			memcpy(cmp->rratio, w->rr, w->rounds1 * sizeof *w->rr);
	}
	for (r = 0; r < w->top; r++)
		w->rr[r] = NAN;
	return (rc);
}

size_t
analysis_pair_logs(const struct analysis *a, size_t h, size_t b, size_t v,
    size_t w, double *logs)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*cv = NULL, *cw = NULL;
	double			 x, y;
	size_t			 r, n = 0;

	if (v != ds->ref && ((cv = analysis_cmp(a, h, b, 0, v)) == NULL ||
	    cv->rratio == NULL))
		return (0);
	if (w != ds->ref && ((cw = analysis_cmp(a, h, b, 0, w)) == NULL ||
	    cw->rratio == NULL))
		return (0);
	for (r = 0; r < ds->rounds; r++) {
		x = cv != NULL ? cv->rratio[r] : 1;
		y = cw != NULL ? cw->rratio[r] : 1;
		if (isfinite(x) && isfinite(y) && x > 0 && y > 0)
			logs[n++] = log(x) - log(y);
	}
	return (n);
}

/* Returns the index of variant name in ds, or -1. */
static long
rep_variant(const struct dataset *ds, const char *name)
{
	size_t	i;

	for (i = 0; i < ds->nvariants; i++) {
		if (strcmp(ds->variants[i], name) == 0)
			return ((long)i);
	}
	return (-1);
}

/*
 * Returns how many tests the claims of the recorded suite add to the
 * run's family: their comparisons against a reference other than the
 * suite's, with enough pairs (docs/statistics.md, "Claims"). 0 when none
 * or unreadable.
 */
static size_t
rep_claims_extra(const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct suite	*s = ds->suite;
	const struct suite_claim *c;
	double			*logs;
	size_t			 ci, hi, b, m = 0;
	long			 v, w;

	if (s == NULL || s->nclaims == 0 ||
	    (logs = calloc((size_t)ds->rounds + 1, sizeof *logs)) == NULL)
		return (0);
	for (ci = 0; ci < s->nclaims; ci++) {
		c = &s->claims[ci];
		v = rep_variant(ds, c->variant);
		w = c->reference[0] != '\0' ? rep_variant(ds, c->reference) :
		    (long)ds->ref;
		if (v < 0 || w < 0 || (size_t)w == ds->ref)
			continue;
		for (hi = 0; hi < a->nhosts; hi++) {
			for (b = 0; b < ds->nbenches; b++) {
				if (ds->benches[b].nmetrics > 0 &&
				    claims_covers(s, c, ds->benches[b].name) &&
				    analysis_pair_logs(a, a->hosts[hi].host, b,
				    (size_t)v, (size_t)w, logs) >=
				    STATS_MIN_PAIRS)
					m++;
			}
		}
	}
	free(logs);
	return (m);
}

/*
 * The family of docs/statistics.md: every valid primary comparison and
 * every geometric mean of two or more. Each is tested again at
 * STATS_ALPHA over their number (Bonferroni: the chance of any false
 * verdict among them stays under STATS_ALPHA), and each host's median
 * detectable effect is taken. Returns 0 or -1.
 * Long: four passes over the comparisons that share their buffers (count
 * the family, pool each host's serial correlation, test again, take each
 * host's resolution), in the order each needs the last.
 */
static int
rep_family(struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	struct rep_cmp		*c;
	double			*logs, *mdes;
	size_t			 i, j, r, n, m = 0, g, v, b, k;
	size_t			 any;
	int			 rc = -1;

	logs = calloc((size_t)ds->rounds + 1, sizeof *logs);
	mdes = calloc(ds->nbenches * ds->nvariants + 1, sizeof *mdes);
	if (logs == NULL || mdes == NULL)
		goto out;
	/*
	 * rounds = auto counts every planned test, valid or not yet: the
	 * family, and so each look's level, must not grow as hosts' early
	 * rounds become valid comparisons.
	 */
	for (i = 0; i < a->ncmps; i++) {
		if (a->cmps[i].family && (ds->auto_rounds ||
		    a->cmps[i].verdict != VERDICT_INVALID))
			m++;
	}
	for (g = 0; g < a->ngroups; g++) {
		for (v = 0; a->groups[g].known && v < ds->nvariants; v++) {
			for (any = 0, j = a->groups[g].from;
			    v != ds->ref && j < a->groups[g].to; j++) {
				for (b = 0; b < ds->nbenches; b++) {
					c = (struct rep_cmp *)(uintptr_t)
					    analysis_cmp(a, a->hosts[j].host,
					    b, 0, v);
					if (c != NULL && (ds->auto_rounds ||
					    c->verdict != VERDICT_INVALID))
						any++;
				}
			}
			/* A mean of one comparison is that comparison. */
			m += any > 1;
		}
	}
	/* A claim against another reference tests in the family too. */
	m += rep_claims_extra(a);
	a->family_size = m;
	a->family_alpha = m > 0 ? STATS_ALPHA / (double)m : STATS_ALPHA;
	/*
	 * The serial correlation of a host's rounds is its machine's: it is
	 * judged from all its primary comparisons together (their mean
	 * lag-1 autocorrelation over all their rounds), far more precisely
	 * than from one comparison's few dozen rounds.
	 */
	for (j = 0; j < a->nhosts; j++) {
		a->hosts[j].r1 = 0;
		a->hosts[j].r1_n = 0;
		for (i = 0; i < a->ncmps; i++) {
			c = &a->cmps[i];
			if (c->host == a->hosts[j].host && c->family &&
			    c->verdict != VERDICT_INVALID && isfinite(c->r1)) {
				a->hosts[j].r1 += c->r1 * (double)c->npairs;
				a->hosts[j].r1_n += c->npairs;
			}
		}
		a->hosts[j].r1 = a->hosts[j].r1_n > 0 ? a->hosts[j].r1 /
		    (double)a->hosts[j].r1_n : NAN;
	}
	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		if (!c->family || c->verdict == VERDICT_INVALID)
			continue;
		for (n = 0, r = 0; r < ds->rounds; r++) {
			if (!isnan(c->rratio[r]))
				logs[n++] = log(c->rratio[r]);
		}
		for (j = 0; a->hosts[j].host != c->host; j++)
			;
		if (rep_test(ds, c, logs, n, rep_seq_alpha(a, &a->hosts[j]),
		    a->hosts[j].r1, a->hosts[j].r1_n) != 0)
			goto out;
		if (c->widen > a->hosts[j].widen)
			a->hosts[j].widen = c->widen;
		if (c->verdict == VERDICT_WORSE)
			a->nworse++;
	}
	for (j = 0; j < a->nhosts; j++) {
		for (k = 0, i = 0; i < a->ncmps; i++) {
			c = &a->cmps[i];
			if (c->host == a->hosts[j].host && c->family &&
			    c->verdict != VERDICT_INVALID && !isnan(c->mde))
				mdes[k++] = c->mde;
		}
		a->hosts[j].mde = k > 0 ? stats_median(mdes, k) : NAN;
	}
	rc = 0;
out:
	free(logs);
	free(mdes);
	return (rc);
}

/*
 * Analyses (host rh, bench b): its failures, then a result per metric and
 * variant and a comparison per metric and non-reference variant. Returns 0
 * or -1 (out of memory).
 */
static int
rep_bench(struct analysis *a, struct rep_host *rh, size_t b,
    struct rep_work *w)
{
	const struct dataset	*ds = a->ds;
	size_t			 m, vr, hb = rh->host * ds->nbenches + b;
	long			 key;
	int			 rc = 0;

	w->top = rep_cells(a, rh->host, b, w->cells, ds->rounds, 0);
	a->res_start[hb] = a->nresults;
	a->cmp_start[hb] = a->ncmps;
	rep_failures(a, rh, w);
	rep_checksums(a, rh->host, b, w->ck);
	for (m = 0; m < ds->benches[b].nmetrics && rc == 0; m++) {
		key = dataset_metric(ds, ds->benches[b].metrics[m]);
		for (vr = 0; vr < ds->nvariants && rc == 0; vr++)
			rc = rep_result(a, rh, b, m, key, vr, w);
		for (vr = 0; vr < ds->nvariants && rc == 0; vr++) {
			if (vr != ds->ref)
				rc = rep_compare(a, rh, b, m, key, vr, w);
		}
	}
	rep_cells(a, rh->host, b, w->cells, ds->rounds, 1);
	return (rc);
}

/*
 * Analyses host rh: its counts and load, how its variants' files relate,
 * its hygiene and harness floor, then each bench. Returns 0 or -1.
 */
static int
rep_host(struct analysis *a, struct rep_host *rh, struct rep_work *w)
{
	const struct dataset	*ds = a->ds;
	size_t			 b;

	if (ds->hosts[rh->host].failed)
		a->nfailed_hosts++;
	rep_host_load(a, rh, w);
	rep_files(ds, rh->host, w->settings, w->files);
	if (hygiene_host(ds, rh->host, &rh->hyg) != 0)
		return (-1);
	/* The harness floor is not the program's: take it off wall_ns. */
	if (ds->subtract_floor && rh->hyg.floor.n > 0)
		rh->floor_sub = rh->hyg.floor.median;
	for (b = 0; b < ds->nbenches; b++) {
		if (rep_bench(a, rh, b, w) != 0)
			return (-1);
	}
	return (0);
}

int
analysis_build(const struct dataset *ds, struct analysis **out, char **cause)
{
	struct analysis	*a = NULL;
	struct rep_work	 w;
	size_t		 nm, hi;
	int		 r = -1;

	memset(&w, 0, sizeof w);
	*out = NULL;
	if (rep_check_size(ds, &nm, cause) != 0)
		return (-1);
	if ((a = calloc(1, sizeof *a)) == NULL ||
	    (a->memo = calloc(1, sizeof *a->memo)) == NULL)
		goto oom;
	a->ds = ds;
	if (rep_alloc(a, nm) != 0 || rep_work_new(&w, ds) != 0)
		goto oom;
	for (hi = 0; hi < a->nhosts; hi++) {
		if (rep_host(a, &a->hosts[hi], &w) != 0)
			goto oom;
	}
	for (hi = 0; hi < a->nhosts; hi++)
		rep_seq_times(a, &a->hosts[hi]);
	if (rep_groups(a) != 0 || rep_family(a) != 0)
		goto oom;
	for (hi = 0; hi < a->nhosts; hi++)
		rep_seq_stop(a, &a->hosts[hi]);
	if (rep_geos(a) != 0 ||
	    rep_rows(a) != 0 ||
	    rep_answers(a) != 0)
		goto oom;
	*out = a;
	a = NULL;
	r = 0;
	goto out;
oom:
	xasprintf(cause, "analysis: out of memory");
out:
	rep_work_free(&w);
	analysis_free(a);
	return (r);
}

/*
 * A host's rounds and times from its samples: the highest measured round,
 * the time from its first start to its last end, and its longest block of
 * min_rounds rounds (warmups count in the first), the pace a budget is
 * checked against.
 */
static void
rep_seq_times(const struct analysis *a, struct rep_host *rh)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*smp;
	int64_t			 first = INT64_MAX, last = INT64_MIN, end;
	int64_t			*bend;
	uint32_t		 nb, blk, k;
	size_t			 i;

	rh->rounds_used = 0;
	rh->spent_ns = rh->pace_ns = 0;
	nb = ds->min_rounds > 0 ? ds->rounds / ds->min_rounds + 2 : 2;
	if ((bend = calloc(nb, sizeof *bend)) == NULL)
		return;
	for (i = 0; i < ds->nsamples; i++) {
		smp = &ds->samples[i];
		if (smp->host != rh->host)
			continue;
		if (!smp->warmup && smp->round > rh->rounds_used)
			rh->rounds_used = smp->round;
		/* A record's times are untrusted: none may overflow. */
		if (smp->start_ns < 0 || smp->start_ns > INT64_MAX / 4 ||
		    smp->builtin[DS_WALL_NS] > INT64_MAX / 4)
			continue;
		end = smp->start_ns + (int64_t)smp->builtin[DS_WALL_NS];
		if (smp->start_ns < first)
			first = smp->start_ns;
		if (end > last)
			last = end;
		blk = ds->min_rounds > 0 && smp->round > 0 ?
		    (smp->round - 1) / ds->min_rounds : 0;
		if (blk < nb && end > bend[blk])
			bend[blk] = end;
	}
	if (last > first) {
		rh->spent_ns = last - first;
		for (k = 0, end = first; k < nb && bend[k] > 0; k++) {
			if (bend[k] - end > rh->pace_ns)
				rh->pace_ns = bend[k] - end;
			end = bend[k];
		}
	}
	free(bend);
}

/*
 * The level of host rh's primary tests: its last look's nominal level on
 * the exact boundaries of its schedule (seq_level).
 */
static double
rep_seq_alpha(const struct analysis *a, struct rep_host *rh)
{
	const struct dataset	*ds = a->ds;

	rh->seq_alpha = a->family_alpha;
	if (ds->auto_rounds)
		rh->seq_alpha = seq_level(rh->rounds_used, ds->min_rounds,
		    ds->rounds, a->family_alpha);
	if (!(rh->seq_alpha > 0))
		rh->seq_alpha = a->family_alpha;
	return (rh->seq_alpha);
}

/*
 * Returns 1 when every primary comparison of host rh is of a bench its
 * agent stopped after round 1: no later round will come to count.
 */
static int
rep_seq_all_stopped(const struct analysis *a, const struct rep_host *rh)
{
	size_t	i;

	for (i = 0; i < a->ncmps; i++) {
		if (a->cmps[i].host == rh->host && a->cmps[i].family &&
		    !a->cmps[i].stopped)
			return (0);
	}
	return (1);
}

/*
 * How host rh stopped, from its primary verdicts, rounds and times (the
 * coordinator's look after each block is this): decided when every
 * primary comparison is, else at max_rounds, else when another block of
 * its longest so far would pass its budget.
 */
static void
rep_seq_stop(const struct analysis *a, struct rep_host *rh)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c;
	size_t			 i;

	rh->nprimary = rh->ndecided = 0;
	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		if (c->host != rh->host || !c->family)
			continue;
		rh->nprimary++;
		rh->ndecided += c->verdict != VERDICT_INCONCLUSIVE;
	}
	rh->stop = SEQ_GOING;
	if (!ds->auto_rounds)
		return;
	/*
	 * A comparison of fewer than STATS_MIN_PAIRS rounds is invalid only
	 * for want of rounds, which more rounds mend: no stop before them,
	 * unless every one was stopped after a round that always failed.
	 */
	if (rh->nprimary > 0 && rh->ndecided == rh->nprimary &&
	    ((rh->rounds_used >= ds->min_rounds &&
	    rh->rounds_used >= STATS_MIN_PAIRS) ||
	    rep_seq_all_stopped(a, rh)))
		rh->stop = SEQ_DECIDED;
	else if (rh->rounds_used >= ds->rounds)
		rh->stop = SEQ_MAX;
	else if (seq_over_budget(rh->spent_ns, rh->pace_ns, ds->budget_s))
		rh->stop = SEQ_BUDGET;
}

/* Returns the index of (host, bench) in res_start and cmp_start, or -1. */
static long
rep_hb(const struct analysis *a, size_t host, size_t bench, size_t metric,
    size_t variant)
{
	const struct dataset	*ds = a->ds;

	if (a->res_start == NULL || host >= ds->nhosts ||
	    bench >= ds->nbenches || metric >= ds->benches[bench].nmetrics ||
	    variant >= ds->nvariants)
		return (-1);
	return ((long)(host * ds->nbenches + bench));
}

const struct rep_cmp *
analysis_cmp(const struct analysis *a, size_t host, size_t bench,
    size_t metric, size_t variant)
{
	const struct rep_cmp	*c;
	size_t			 i, nv = a->ds->nvariants;
	long			 hb = rep_hb(a, host, bench, metric, variant);

	if (hb < 0 || variant == a->ds->ref)
		return (NULL);
	/* analysis_build lays them out metric by metric, reference left out. */
	i = a->cmp_start[hb] + metric * (nv - 1) +
	    (variant > a->ds->ref ? variant - 1 : variant);
	if (i >= a->ncmps)
		return (NULL);
	c = &a->cmps[i];
	if (c->host != host || c->bench != bench || c->metric != metric ||
	    c->variant != variant)
		return (NULL);
	return (c);
}

const struct rep_result *
analysis_result(const struct analysis *a, size_t host, size_t bench,
    size_t metric, size_t variant)
{
	const struct rep_result	*r;
	size_t			 i;
	long			 hb = rep_hb(a, host, bench, metric, variant);

	if (hb < 0)
		return (NULL);
	i = a->res_start[hb] + metric * a->ds->nvariants + variant;
	if (i >= a->nresults)
		return (NULL);
	r = &a->results[i];
	if (r->host != host || r->bench != bench || r->metric != metric ||
	    r->variant != variant)
		return (NULL);
	return (r);
}

const struct rep_geo *
analysis_geo(const struct analysis *a, size_t group, size_t variant)
{
	size_t	i;

	for (i = 0; i < a->ngeos; i++) {
		if (a->geos[i].group == group && a->geos[i].variant == variant)
			return (&a->geos[i]);
	}
	return (NULL);
}

const char *
analysis_headline(const enum stats_verdict *v, size_t n)
{
	size_t	c[VERDICT_INVALID + 1], i;

	memset(c, 0, sizeof c);
	for (i = 0; i < n; i++)
		c[v[i]]++;
	if (c[VERDICT_INVALID] == n)
		return ("invalid");
	if (c[VERDICT_BETTER] > 0 && c[VERDICT_WORSE] > 0)
		return ("mixed");
	if (c[VERDICT_WORSE] > 0)
		return (c[VERDICT_WORSE] == n ? "worse on all architectures" :
		    "worse on some architectures");
	if (c[VERDICT_BETTER] > 0) {
		if (c[VERDICT_BETTER] == n)
			return ("better on all architectures");
		/* Proven better here and proven the same there. */
		if (c[VERDICT_SAME] > 0)
			return ("mixed");
		return ("better on some architectures");
	}
	if (c[VERDICT_SAME] == n)
		return ("same on all architectures");
	if (c[VERDICT_INCONCLUSIVE] > 0)
		return ("inconclusive");
	return ("same on some architectures");
}


/* Returns 1 when hosts i and j (indices into a->hosts) share a group. */
static int
rep_same_group(const struct analysis *a, size_t i, size_t j)
{
	const struct ds_host	*x = &a->ds->hosts[a->hosts[i].host];
	const struct ds_host	*y = &a->ds->hosts[a->hosts[j].host];

	return (strcmp(x->facts.arch, y->facts.arch) == 0 &&
	    strcmp(x->facts.cpu_model, y->facts.cpu_model) == 0);
}

/*
 * Splits the sorted hosts into groups of one architecture and CPU model.
 * Returns 0, or -1 out of memory.
 */
static int
rep_groups(struct analysis *a)
{
	const struct ds_host	*h;
	struct rep_group	*g;
	size_t			 i, j;

	if ((a->groups = calloc(a->nhosts + 1, sizeof *a->groups)) == NULL)
		return (-1);
	for (i = 0; i < a->nhosts; i = j) {
		for (j = i + 1; j < a->nhosts && rep_same_group(a, i, j); j++)
			;
		g = &a->groups[a->ngroups];
		g->from = i;
		g->to = j;
		h = &a->ds->hosts[a->hosts[i].host];
		g->known = h->facts.arch[0] != '\0';
		if (util_appendf(&g->label, "%s · %s", h->facts.arch[0] ?
		    h->facts.arch : "unknown arch", h->facts.cpu_model[0] ?
		    h->facts.cpu_model : "unknown CPU") != 0)
			return (-1);
		for (; i < j; i++)
			a->hosts[i].group = a->ngroups;
		a->ngroups++;
	}
	return (0);
}

/*
 * The level a group's geometric means are tested at: the family's; with
 * rounds = auto the smallest last-look share among the group's hosts,
 * since each of its comparisons was tested at no more.
 */
static double
rep_geo_alpha(const struct analysis *a, size_t g)
{
	double	alpha = a->family_alpha;
	size_t	i;

	if (!a->ds->auto_rounds)
		return (alpha);
	for (i = a->groups[g].from; i < a->groups[g].to; i++) {
		if (a->hosts[i].seq_alpha > 0 && a->hosts[i].seq_alpha < alpha)
			alpha = a->hosts[i].seq_alpha;
	}
	return (alpha);
}

/* The buffers of rep_geos, shared by every group and variant. */
struct rep_geo_work {
	const double		**rr;	/* the comparisons' ratios by round */
	double			**inv;	/* inverted copies, ninv of them */
	size_t			 ninv;
	size_t			*n;	/* rounds of each */
	char			*bused;	/* per bench: in the mean */
	const struct rep_cmp	*one;	/* the last valid comparison */
	size_t			 minpairs;
	size_t			 nbounded;	/* comparisons with a bounded
						   interval */
	double			 estlo, esthi;	/* their smallest and largest
						   log estimates */
	double			 r1sum;	/* the hosts' lag-1 r times rounds */
	size_t			 r1n;	/* and their rounds */
	size_t			*unit;	/* per comparison: the first of
					   its bench on its machine */
	size_t			*kh, *kb;	/* per comparison: dataset
						   host, bench */
	size_t			 nworse, nbetter;	/* their verdicts */
	double			 pmax;		/* their largest p */
	double			 lomin, himax;	/* their widest log bounds */
};

/* Frees the inverted ratios of the last group and variant. */
static void
rep_geo_drop(struct rep_geo_work *w)
{
	size_t	i;

	for (i = 0; i < w->ninv; i++)
		free(w->inv[i]);
	w->ninv = 0;
}

/*
 * Notes comparison k, of dataset host h and bench b: its unit is the
 * first comparison gathered of b on a host of the same machine (hosts
 * sharing a machine are not independent evidence: they count as one).
 */
static void
rep_geo_unit(const struct analysis *a, struct rep_geo_work *w, size_t k,
    size_t h, size_t b)
{
	size_t	j;

	w->kh[k] = h;
	w->kb[k] = b;
	w->unit[k] = k;
	for (j = 0; j < k; j++) {
		if (w->kb[j] == b && analysis_same_machine(a->ds, w->kh[j],
		    h)) {
			w->unit[k] = w->unit[j];
			return;
		}
	}
}

/*
 * The mean of round r's log ratios over the k comparisons of w, those of
 * one unit (one bench on one machine) averaged first. Returns how many
 * units had a ratio in round r (0: none), the mean in *mean.
 */
static size_t
rep_geo_round(const struct rep_geo_work *w, size_t k, size_t r, double *mean)
{
	double	sum = 0, us;
	size_t	j, l, m = 0, um;

	for (j = 0; j < k; j++) {
		if (w->unit[j] != j)
			continue;
		for (us = 0, um = 0, l = j; l < k; l++) {
			if (w->unit[l] == j && w->rr[l][r] > 0 &&
			    isfinite(w->rr[l][r])) {
				us += log(w->rr[l][r]);
				um++;
			}
		}
		if (um > 0) {
			sum += us / (double)um;
			m++;
		}
	}
	*mean = m > 0 ? sum / (double)m : 0;
	return (m);
}

/*
 * Counts comparison c's verdict, p and bounds (on the log scale, below 0
 * better: a higher-is-better metric's inverted) for rep_geo_iut.
 */
static void
rep_geo_rows(struct rep_geo_work *w, const struct rep_cmp *c, int higher)
{
	double	lo = c->lo > 0 ? log(c->lo) : -INFINITY;
	double	hi = isfinite(c->hi) ? log(c->hi) : INFINITY;

	w->nworse += c->verdict == VERDICT_WORSE;
	w->nbetter += c->verdict == VERDICT_BETTER;
	w->pmax = fmax(w->pmax, isfinite(c->p) ? c->p : 1);
	w->lomin = fmin(w->lomin, higher ? -hi : lo);
	w->himax = fmax(w->himax, higher ? -lo : hi);
}

/*
 * Gathers into w the valid primary comparisons of variant v in group g
 * for geo, counting its verdicts, hosts and benchmarks. Returns how many
 * (geo->nused), or -1 out of memory.
 */
static long
rep_geo_gather(const struct analysis *a, struct rep_geo_work *w,
    struct rep_geo *geo, size_t g, size_t v)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c;
	size_t			 i, b, r, k = 0, kh, naa = 0, nhosts = 0;
	double			 e;

	w->minpairs = SIZE_MAX;
	w->nbounded = 0;
	w->estlo = INFINITY;
	w->esthi = -INFINITY;
	w->r1sum = 0;
	w->r1n = 0;
	w->nworse = w->nbetter = 0;
	w->pmax = 0;
	w->lomin = INFINITY;
	w->himax = -INFINITY;
	memset(w->bused, 0, ds->nbenches);
	for (i = a->groups[g].from; i < a->groups[g].to; i++) {
		nhosts++;
		kh = k;
		if (isfinite(a->hosts[i].r1) && a->hosts[i].r1_n > 0) {
			w->r1sum += a->hosts[i].r1 * (double)a->hosts[i].r1_n;
			w->r1n += a->hosts[i].r1_n;
		}
		for (b = 0; b < ds->nbenches; b++) {
			if ((c = analysis_cmp(a, a->hosts[i].host, b, 0,
			    v)) == NULL)
				continue;
			if (b == 0 && c->files == REP_FILES_AA)
				naa++;
			geo->count[c->verdict]++;
			if (c->verdict == VERDICT_INVALID) {
				geo->ninvalid++;
				continue;
			}
			w->one = c;
			if (c->npairs < w->minpairs)
				w->minpairs = c->npairs;
			w->nbounded += c->lo > 0 && isfinite(c->hi);
			e = log(c->ratio) * (ds->benches[b].higher[0] ? -1 : 1);
			w->estlo = fmin(w->estlo, e);
			w->esthi = fmax(w->esthi, e);
			rep_geo_rows(w, c, ds->benches[b].higher[0]);
			w->n[k] = ds->rounds;
			rep_geo_unit(a, w, k, a->hosts[i].host, b);
			geo->nbenches += !w->bused[b];
			w->bused[b] = 1;
			if (!ds->benches[b].higher[0]) {
				w->rr[k++] = c->rratio;
				continue;
			}
			if ((w->inv[w->ninv] = calloc((size_t)ds->rounds + 1,
			    sizeof **w->inv)) == NULL)
				return (-1);
			for (r = 0; r < ds->rounds; r++)
				w->inv[w->ninv][r] = 1 / c->rratio[r];
			w->rr[k++] = w->inv[w->ninv++];
		}
		geo->nhosts += k > kh;
	}
	geo->nused = k;
	geo->aa = nhosts > 0 && naa == nhosts;
	return ((long)k);
}

/*
 * Every comparison under geo worse (or better) at p <= alpha rejects the
 * null "not worse on one of them", which holds whenever the mean is not
 * worse: an intersection-union test of the mean at alpha. The mean is
 * then worse too, its interval kept within the rows' widest bounds (the
 * mean of the truths lies between the smallest and largest of them).
 */
static void
rep_geo_iut(const struct rep_geo_work *w, struct rep_geo *geo, size_t k,
    double alpha)
{
	int	worse;

	if (k < 2 || w->pmax > alpha || (w->nworse != k && w->nbetter != k))
		return;
	worse = w->nworse == k;
	geo->verdict = worse ? VERDICT_WORSE : VERDICT_BETTER;
	if (worse && !(geo->lo > exp(w->lomin)))
		geo->lo = exp(w->lomin);
	if (!worse && !(geo->hi < exp(w->himax)))
		geo->hi = exp(w->himax);
}

/*
 * Estimates and judges geo, the mean of the k comparisons gathered in w
 * for variant v in group g, by the procedure of a comparison: on the
 * per-round mean of their log ratios, rounds lined up by index (a round
 * some comparisons lack is the mean of those it has: under no change it
 * is still symmetric about 0, so hosts that ran different rounds combine).
 * Returns 0, or -1 out of memory.
 */
static int
rep_geo_judge(const struct analysis *a, struct rep_geo_work *w,
    struct rep_geo *geo, size_t g, size_t k)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*one = w->one;
	struct stats_cmp	 sc;
	double			*logs, sum, alpha = rep_geo_alpha(a, g);
	size_t			 r, n = 0;

	geo->level = 1 - alpha;
	geo->verdict = VERDICT_INVALID;
	if (k == 1) {
		/* A mean of one comparison is that one. */
		geo->est = w->rr[0] == one->rratio ? one->ratio :
		    1 / one->ratio;
		geo->lo = w->rr[0] == one->rratio ? one->lo : 1 / one->hi;
		geo->hi = w->rr[0] == one->rratio ? one->hi : 1 / one->lo;
		geo->level = one->level;
		geo->widen = one->widen;
		/* Better or worse reads the same inverted. */
		geo->verdict = one->verdict;
		return (0);
	}
	if (k == 0)
		return (0);
	if ((logs = calloc((size_t)ds->rounds + 1, sizeof *logs)) == NULL)
		return (-1);
	for (r = 0; r < ds->rounds; r++) {
		if (rep_geo_round(w, k, r, &sum) > 0)
			logs[n++] = sum;
	}
	if (n < STATS_MIN_PAIRS || stats_compare_serial(logs, n, alpha,
	    ds->min_effect, w->r1n > 0 ? w->r1sum / (double)w->r1n : NAN,
	    w->r1n, &sc) != 0) {
		free(logs);
		return (n < STATS_MIN_PAIRS ? 0 : -1);
	}
	free(logs);
	/* Between the smallest and the largest estimate it summarises. */
	sc.est = fmin(fmax(sc.est, w->estlo), w->esthi);
	geo->est = exp(sc.est);
	geo->lo = exp(sc.lo);
	geo->hi = exp(sc.hi);
	geo->widen = sc.widen;
	geo->verdict = stats_verdict_test(&sc, alpha, ds->min_effect, 0);
	/*
	 * Never better or worse over comparisons none of which is bounded;
	 * and with rounds = auto, a mean decides only when each of its
	 * comparisons could at its level.
	 */
	if ((geo->verdict == VERDICT_BETTER || geo->verdict ==
	    VERDICT_WORSE) && (w->nbounded == 0 || (ds->auto_rounds &&
	    ldexp(2.0, -(int)(w->minpairs < 60 ? w->minpairs : 60)) >
	    alpha)))
		geo->verdict = VERDICT_INCONCLUSIVE;
	rep_geo_iut(w, geo, k, alpha);
	return (0);
}

/*
 * The geometric mean of each variant's primary ratios per known group,
 * over every valid (host, bench) comparison; ratios of a higher-is-better
 * primary metric are inverted so that below 1 always means better.
 * Returns 0, or -1 out of memory.
 */
static int
rep_geos(struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	struct rep_geo_work	 w;
	struct rep_geo		*geo;
	size_t			 g, v, b, nhb = a->nhosts * ds->nbenches + 1;
	long			 k;
	int			 ret = -1;

	memset(&w, 0, sizeof w);
	a->geos = calloc(a->ngroups * ds->nvariants + 1, sizeof *a->geos);
	w.bused = calloc(ds->nbenches + 1, 1);
	w.rr = calloc(nhb, sizeof *w.rr);
	w.inv = calloc(nhb, sizeof *w.inv);
	w.n = calloc(nhb, sizeof *w.n);
	w.unit = calloc(nhb, sizeof *w.unit);
	w.kh = calloc(nhb, sizeof *w.kh);
	w.kb = calloc(nhb, sizeof *w.kb);
	if (a->geos == NULL || w.rr == NULL || w.inv == NULL || w.n == NULL ||
	    w.bused == NULL || w.unit == NULL || w.kh == NULL || w.kb == NULL)
		goto out;
	for (b = 0; b < ds->nbenches; b++) {
		if (ds->benches[b].nmetrics > 0 && ds->benches[b].higher[0])
			a->inverted = 1;
	}
	for (g = 0; g < a->ngroups; g++) {
		for (v = 0; a->groups[g].known && v < ds->nvariants; v++) {
			if (v == ds->ref)
				continue;
			geo = &a->geos[a->ngeos++];
			geo->group = g;
			geo->variant = v;
			geo->est = geo->lo = geo->hi = NAN;
			geo->widen = 1;
			if ((k = rep_geo_gather(a, &w, geo, g, v)) < 0 ||
			    rep_geo_judge(a, &w, geo, g, (size_t)k) != 0)
				goto out;
			rep_geo_drop(&w);
		}
	}
	ret = 0;
out:
	rep_geo_drop(&w);
	free(w.rr);
	free(w.inv);
	free(w.n);
	free(w.bused);
	free(w.unit);
	free(w.kh);
	free(w.kb);
	return (ret);
}

/*
 * Appends to *s the groups (a list joined by " and ") where the primary
 * comparison of (bench, variant) has verdict vd; a group whose hosts do
 * not all share it names the hosts that do. Returns 0, or -1 out of memory.
 */
static int
rep_where(const struct analysis *a, size_t bench, size_t variant,
    enum stats_verdict vd, char **s)
{
	const struct rep_group	*grp;
	const struct rep_cmp	*c;
	char			*hosts;
	size_t			 g, i, k = 0, nin, t;
	int			 r = 0;

	for (g = 0; g < a->ngroups && r == 0; g++) {
		grp = &a->groups[g];
		if (!grp->known)
			continue;
		hosts = NULL;
		nin = t = 0;
		for (i = grp->from; i < grp->to; i++) {
			c = analysis_cmp(a, a->hosts[i].host, bench, 0,
			    variant);
			if (c == NULL)
				continue;
			t++;
			if (c->verdict != vd)
				continue;
			if (util_appendf(&hosts, "%s%s", nin++ ? ", " : "",
			    a->ds->hosts[a->hosts[i].host].name) != 0)
				r = -1;
		}
		if (r == 0 && nin > 0) {
			if (util_appendf(s, "%s%s", k++ ? " and " : "",
			    grp->label) != 0 ||
			    (nin < t && util_appendf(s, " (%s)", hosts) != 0))
				r = -1;
		}
		free(hosts);
	}
	return (r);
}

/*
 * The matrix rows: per bench and variant, where the verdicts agree.
 * Returns 0, or -1 out of memory.
 */
static int
rep_rows(struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c;
	struct rep_row		*row;
	size_t			 b, v, i, ncells, ndistinct, nclause;
	int			 vd, seen[VERDICT_INVALID + 1];

	a->rows = calloc(ds->nbenches * ds->nvariants + 1, sizeof *a->rows);
	if (a->rows == NULL)
		return (-1);
	for (b = 0; b < ds->nbenches; b++) {
		for (v = 0; v < ds->nvariants; v++) {
			if (v == ds->ref)
				continue;
			row = &a->rows[a->nrows++];
			row->bench = b;
			row->variant = v;
			memset(seen, 0, sizeof seen);
			ncells = 0;
			for (i = 0; i < a->nhosts; i++) {
				if (!a->groups[a->hosts[i].group].known ||
				    (c = analysis_cmp(a, a->hosts[i].host, b,
				    0, v)) == NULL)
					continue;
				seen[c->verdict] = 1;
				ncells++;
			}
			/* Only proven verdicts can contradict each other. */
			row->differs = seen[VERDICT_BETTER] +
			    seen[VERDICT_WORSE] + seen[VERDICT_SAME] >= 2;
			for (ndistinct = 0, vd = 0; vd <= VERDICT_INVALID; vd++)
				ndistinct += (size_t)seen[vd];
			if (ncells < 2) {
				if (util_appendf(&row->agreement, "%s",
				    "") != 0)
					return (-1);
				continue;
			}
			if (ndistinct == 1) {
				for (vd = 0; !seen[vd]; vd++)
					;
				if (util_appendf(&row->agreement,
				    "%s on every host", stats_verdict_name(
				    (enum stats_verdict)vd)) != 0)
					return (-1);
				continue;
			}
			for (nclause = 0, vd = 0; vd <= VERDICT_INVALID; vd++) {
				if (!seen[vd])
					continue;
				if (util_appendf(&row->agreement, "%s%s on ",
				    nclause++ ? ", " : "",
				    stats_verdict_name((enum stats_verdict)vd))
				    != 0 || rep_where(a, b, v,
				    (enum stats_verdict)vd, &row->agreement)
				    != 0)
					return (-1);
			}
		}
	}
	return (0);
}

/*
 * Writes the headline of variant v over n known groups with verdicts vs:
 * analysis_headline's words, naming the groups behind "some" and "mixed"
 * ("worse on some architectures (x86_64 · AMD EPYC)"). Returns 0, or -1
 * out of memory.
 */
static int
rep_headline(const struct analysis *a, size_t v, const enum stats_verdict *vs,
    size_t n, char **out)
{
	static const enum stats_verdict	 shown[] = {
		VERDICT_BETTER, VERDICT_WORSE, VERDICT_SAME
	};
	const char			*word = analysis_headline(vs, n);
	size_t				 g, k, i, nclause = 0;
	int				 r = 0;

	if (util_appendf(out, "%s", word) != 0)
		return (-1);
	if (strstr(word, " some ") == NULL && strcmp(word, "mixed") != 0)
		return (0);
	r |= util_appendf(out, " (");
	for (i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		if (strncmp(word, stats_verdict_name(shown[i]),
		    strlen(stats_verdict_name(shown[i]))) != 0 &&
		    strcmp(word, "mixed") != 0)
			continue;
		for (k = 0, g = 0; g < a->ngroups; g++) {
			const struct rep_geo	*geo = analysis_geo(a, g, v);

			if (geo == NULL || geo->verdict != shown[i])
				continue;
			if (k++ == 0 && strcmp(word, "mixed") == 0)
				r |= util_appendf(out, "%s%s on ",
				    nclause ? "; " : "",
				    stats_verdict_name(shown[i]));
			else if (k > 1)
				r |= util_appendf(out, ", ");
			r |= util_appendf(out, "%s", a->groups[g].label);
		}
		nclause += k > 0;
	}
	r |= util_appendf(out, ")");
	return (r);
}

/*
 * The one-line answers: per variant, its verdict in every known group.
 * Returns 0, or -1 out of memory.
 */
static int
rep_answers(struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct rep_geo	*geo;
	struct rep_answer	*ans;
	enum stats_verdict	*vs;
	size_t			 v, g, n, vd, k;
	int			 r = 0;

	a->answers = calloc(ds->nvariants + 1, sizeof *a->answers);
	vs = calloc(a->ngroups + 1, sizeof *vs);
	if (a->answers == NULL || vs == NULL) {
		free(vs);
		return (-1);
	}
	for (v = 0; v < ds->nvariants && r == 0; v++) {
		if (v == ds->ref)
			continue;
		ans = &a->answers[a->nanswers++];
		ans->variant = v;
		n = 0;
		for (g = 0; g < a->ngroups; g++) {
			if ((geo = analysis_geo(a, g, v)) == NULL)
				continue;
			vs[n] = geo->verdict;
			if (n > 0)
				r |= util_appendf(&ans->detail, "; ");
			r |= util_appendf(&ans->detail, "%s: %s",
			    a->groups[g].label,
			    stats_verdict_name(geo->verdict));
			if (geo->nused > 0) {
				char	ci[64];

				if (!(geo->lo > 0) || !isfinite(geo->hi))
					snprintf(ci, sizeof ci, "[unbounded: "
					    "too few rounds]");
				else
					snprintf(ci, sizeof ci, "[%.3f, %.3f]",
					    geo->lo, geo->hi);
				/* Several hosts: counted per comparison. */
				if (geo->nhosts > 1)
					r |= util_appendf(&ans->detail,
					    ", geomean %.3f %s over %zu "
					    "comparisons, %zu benchmark%s on "
					    "%zu hosts (", geo->est, ci,
					    geo->nused, geo->nbenches,
					    geo->nbenches == 1 ? "" : "s",
					    geo->nhosts);
				else
					r |= util_appendf(&ans->detail,
					    ", geomean %.3f %s over %zu "
					    "benchmark%s (", geo->est, ci,
					    geo->nused,
					    geo->nused == 1 ? "" : "s");
			} else
				r |= util_appendf(&ans->detail, ", no valid "
				    "comparison (");
			for (k = 0, vd = 0; vd <= VERDICT_INVALID; vd++) {
				if (geo->count[vd] == 0)
					continue;
				r |= util_appendf(&ans->detail, "%s%zu %s",
				    k++ ? ", " : "", geo->count[vd],
				    stats_verdict_name((enum stats_verdict)vd));
			}
			r |= util_appendf(&ans->detail, ")");
			if (geo->aa)
				r |= util_appendf(&ans->detail, ", A/A "
				    "comparison (identical files)");
			n++;
		}
		if (n == 0) {
			r |= util_appendf(&ans->headline, "invalid");
			r |= util_appendf(&ans->detail, "no host gave results");
		} else if (n == 1) {
			/* One architecture: name it rather than say "all". */
			for (g = 0; analysis_geo(a, g, v) == NULL; g++)
				;
			r |= util_appendf(&ans->headline, "%s on %s",
			    stats_verdict_name(vs[0]), a->groups[g].label);
		} else
			r |= rep_headline(a, v, vs, n, &ans->headline);
	}
	free(vs);
	return (r);
}

void
analysis_free(struct analysis *a)
{
	size_t	i;

	if (a == NULL)
		return;
	for (i = 0; i < a->ncmps; i++)
		free(a->cmps[i].rratio);
	for (i = 0; i < a->ngroups; i++)
		free(a->groups[i].label);
	for (i = 0; i < a->nrows; i++)
		free(a->rows[i].agreement);
	for (i = 0; i < a->nanswers; i++) {
		free(a->answers[i].headline);
		free(a->answers[i].detail);
	}
	free(a->hosts);
	free(a->results);
	free(a->cmps);
	free(a->groups);
	free(a->geos);
	free(a->rows);
	free(a->answers);
	free(a->hb_start);
	free(a->by_hb);
	free(a->res_start);
	free(a->cmp_start);
	if (a->free_claims != NULL)
		a->free_claims(a->claims);
	if (a->memo != NULL && a->memo->free_machines != NULL)
		a->memo->free_machines(a->memo->machines);
	free(a->memo);
	free(a);
}

/* Returns 1 when two hosts of ds gave one machine hash. */
int
analysis_same_machine(const struct dataset *ds, size_t i, size_t j)
{
	const char	*x = ds->hosts[i].facts.machine;

	return (i != j && x[0] != '\0' &&
	    strcmp(x, ds->hosts[j].facts.machine) == 0);
}
