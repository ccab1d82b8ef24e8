/* Analysis of a dataset, and writing every report file atomically. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/report.h"
#include "coordinator/rng.h"
#include "coordinator/stats.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

/* Per (host, bench, variant, round): the final measured attempt. */
struct rep_cell {
	const struct ds_sample	*s;
};

static const struct dataset *rep_sort_ds;

/* Orders hosts by architecture, CPU model, then name. */
static int
rep_host_cmp(const void *a, const void *b)
{
	const struct ds_host	*x = &rep_sort_ds->hosts[((const struct rep_host *)a)->host];
	const struct ds_host	*y = &rep_sort_ds->hosts[((const struct rep_host *)b)->host];
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

static int
rep_double_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* Derives a bootstrap seed from the run seed and what is compared. */
static uint64_t
rep_seed(const struct dataset *ds, size_t host, size_t bench, size_t metric,
    size_t variant)
{
	struct rng	r;
	char		key[512];

	snprintf(key, sizeof key, "%s/%s/%s/%s", ds->hosts[host].name,
	    ds->benches[bench].name, ds->benches[bench].metrics[metric],
	    ds->variants[variant]);
	rng_seed_str(&r, ds->seed, key);
	return (rng_next(&r));
}

/*
 * Checks that every successful run of a benchmark on a host printed the
 * same checksum. Returns 1 when they agree, else 0 with the reason.
 */
static int
rep_checksums(const struct dataset *ds, size_t host, size_t bench,
    char *reason, size_t len)
{
	const struct ds_sample	*s, *first = NULL;
	const char		*key = ds->benches[bench].checksum;
	size_t			 i;

	if (key[0] == '\0')
		return (1);
	for (i = 0; i < ds->nsamples; i++) {
		s = &ds->samples[i];
		if (s->host != host || s->bench != bench ||
		    s->status != 0)
			continue;
		if (s->checksum == NULL) {
			snprintf(reason, len, "run seq %u (%s, round %u) "
			    "printed no %s", s->seq, ds->variants[s->variant],
			    s->round, key);
			return (0);
		}
		if (first == NULL) {
			first = s;
			continue;
		}
		if (strcmp(first->checksum, s->checksum) != 0) {
			snprintf(reason, len, "checksums disagree: %s "
			    "round %u gave %.40s, %s round %u gave %.40s",
			    ds->variants[first->variant], first->round,
			    first->checksum, ds->variants[s->variant],
			    s->round, s->checksum);
			return (0);
		}
	}
	return (1);
}

/* Fills cells[variant * (rounds+1) + round] with final measured attempts. */
static void
rep_cells(const struct dataset *ds, size_t host, size_t bench,
    struct rep_cell *cells, uint32_t rounds)
{
	const struct ds_sample	*s;
	struct rep_cell		*c;
	size_t			 i;

	memset(cells, 0, ds->nvariants * (rounds + 1) * sizeof *cells);
	for (i = 0; i < ds->nsamples; i++) {
		s = &ds->samples[i];
		if (s->host != host || s->bench != bench || s->warmup ||
		    s->round < 1 || s->round > rounds)
			continue;
		c = &cells[s->variant * (rounds + 1) + s->round];
		if (c->s == NULL || s->attempt > c->s->attempt)
			c->s = s;
	}
}

int
analysis_build(const struct dataset *ds, struct analysis **out, char **cause)
{
	struct analysis		*a;
	struct rep_cell		*cells;
	struct rep_result	*res;
	struct rep_cmp		*cmp;
	const struct ds_sample	*s, *rs;
	double			*vals, *ratios, *logs, v, rv, *loads;
	uint32_t		 R = ds->rounds;
	size_t			 h, hi, b, m, vr, r, i, n, nl;
	char			 reason[256];
	int			 ck;

	(void)cause;
	a = xcalloc(1, sizeof *a);
	a->ds = ds;
	a->nhosts = ds->nhosts;
	a->hosts = xcalloc(ds->nhosts + 1, sizeof *a->hosts);
	for (h = 0; h < ds->nhosts; h++)
		a->hosts[h].host = h;
	rep_sort_ds = ds;
	qsort(a->hosts, a->nhosts, sizeof *a->hosts, rep_host_cmp);

	cells = xcalloc(ds->nvariants * (R + 1) + 1, sizeof *cells);
	vals = xcalloc(R + 1, sizeof *vals);
	ratios = xcalloc(R + 1, sizeof *ratios);
	logs = xcalloc(R + 1, sizeof *logs);
	loads = xcalloc(ds->nsamples + 1, sizeof *loads);
	for (hi = 0; hi < a->nhosts; hi++) {
		struct rep_host	*rh = &a->hosts[hi];

		h = rh->host;
		if (ds->hosts[h].failed)
			a->nfailed_hosts++;
		nl = 0;
		for (i = 0; i < ds->nsamples; i++) {
			s = &ds->samples[i];
			if (s->host != h || s->warmup)
				continue;
			rh->samples++;
			if (s->attempt > 1)
				rh->retries++;
			if (s->load1 >= 0)
				loads[nl++] = s->load1;
		}
		if (nl > 0) {
			qsort(loads, nl, sizeof *loads, rep_double_cmp);
			rh->load_med = stats_quantile(loads, nl, 0.5);
			rh->load_max = loads[nl - 1];
		}
		for (b = 0; b < ds->nbenches; b++) {
			rep_cells(ds, h, b, cells, R);
			for (vr = 0; vr < ds->nvariants; vr++) {
				for (r = 1; r <= R; r++) {
					s = cells[vr * (R + 1) + r].s;
					if (s != NULL && s->status != 0) {
						rh->failed++;
						a->nfailed_samples++;
					}
				}
			}
			ck = rep_checksums(ds, h, b, reason, sizeof reason);
			for (m = 0; m < ds->benches[b].nmetrics; m++) {
				const char *mn = ds->benches[b].metrics[m];

				for (vr = 0; vr < ds->nvariants; vr++) {
					a->results = xreallocarray(a->results,
					    a->nresults + 1, sizeof *a->results);
					res = &a->results[a->nresults++];
					memset(res, 0, sizeof *res);
					res->host = h;
					res->bench = b;
					res->metric = m;
					res->variant = vr;
					n = 0;
					for (r = 1; r <= R; r++) {
						s = cells[vr * (R + 1) + r].s;
						if (s == NULL)
							continue;
						res->retried += s->attempt - 1;
						if (s->status != 0) {
							res->failed++;
							continue;
						}
						if (dataset_value(ds, s, mn, &v) == 0)
							vals[n++] = v;
					}
					if (stats_summarize(vals, n, &res->sum) != 0)
						fatalx("out of memory");
				}
				for (vr = 0; vr < ds->nvariants; vr++) {
					if (vr == ds->ref)
						continue;
					a->cmps = xreallocarray(a->cmps,
					    a->ncmps + 1, sizeof *a->cmps);
					cmp = &a->cmps[a->ncmps++];
					memset(cmp, 0, sizeof *cmp);
					cmp->host = h;
					cmp->bench = b;
					cmp->metric = m;
					cmp->variant = vr;
					cmp->ratio = cmp->lo = cmp->hi = NAN;
					cmp->p = NAN;
					n = 0;
					for (r = 1; r <= R; r++) {
						s = cells[vr * (R + 1) + r].s;
						rs = cells[ds->ref * (R + 1) + r].s;
						if (s == NULL || rs == NULL ||
						    s->status != 0 || rs->status != 0)
							continue;
						if (dataset_value(ds, s, mn, &v) != 0 ||
						    dataset_value(ds, rs, mn, &rv) != 0 ||
						    !(rv > 0) || !(v > 0))
							continue;
						ratios[n] = v / rv;
						logs[n] = log(v / rv);
						n++;
					}
					cmp->npairs = n;
					if (!ck) {
						snprintf(cmp->reason,
						    sizeof cmp->reason, "%s", reason);
					} else if (n < STATS_MIN_PAIRS) {
						snprintf(cmp->reason,
						    sizeof cmp->reason, "%zu good "
						    "pairs; at least %d are needed",
						    n, STATS_MIN_PAIRS);
					} else {
						cmp->ratio = stats_median(ratios, n);
						if (stats_boot_median(ratios, n,
						    rep_seed(ds, h, b, m, vr), 0.95,
						    &cmp->lo, &cmp->hi) != 0)
							fatalx("out of memory");
						cmp->p = stats_wilcoxon_p(logs, n);
					}
					cmp->verdict = stats_verdict(cmp->ratio,
					    cmp->lo, cmp->hi, ds->min_effect,
					    ds->benches[b].higher[m], n, ck);
					if (cmp->verdict == VERDICT_INVALID) {
						cmp->ratio = cmp->lo = cmp->hi = NAN;
						cmp->p = NAN;
					}
					if (m == 0 &&
					    cmp->verdict == VERDICT_WORSE)
						a->nworse++;
				}
			}
		}
	}
	free(cells);
	free(vals);
	free(ratios);
	free(logs);
	free(loads);
	*out = a;
	return (0);
}

void
analysis_free(struct analysis *a)
{
	if (a == NULL)
		return;
	free(a->hosts);
	free(a->results);
	free(a->cmps);
	free(a);
}

void
report_fmt_value(const char *metric, double v, char *buf, size_t len)
{
	size_t	n = strlen(metric);

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (n > 3 && strcmp(metric + n - 3, "_ns") == 0) {
		if (v >= 1e9)
			snprintf(buf, len, "%.3f s", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, len, "%.3f ms", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, len, "%.3f us", v / 1e3);
		else
			snprintf(buf, len, "%.0f ns", v);
		return;
	}
	if (n > 3 && strcmp(metric + n - 3, "_kb") == 0) {
		if (v >= 1024 * 1024)
			snprintf(buf, len, "%.2f GiB", v / (1024 * 1024));
		else if (v >= 1024)
			snprintf(buf, len, "%.2f MiB", v / 1024);
		else
			snprintf(buf, len, "%.0f KiB", v);
		return;
	}
	if ((v == floor(v) && fabs(v) < 1e15) || fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

typedef int (*rep_writer)(const void *, FILE *);

/* Writes DIR/name through DIR/.name.tmp and a rename. */
static int
rep_write(const char *dir, const char *name, int (*fn)(const void *, FILE *),
    const void *arg, char **cause)
{
	char	tmp[PATH_MAX], dst[PATH_MAX];
	FILE	*f;
	int	 r;

	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	snprintf(dst, sizeof dst, "%s/%s", dir, name);
	if ((f = fopen(tmp, "w")) == NULL) {
		xasprintf(cause, "%s: %s", tmp, strerror(errno));
		return (-1);
	}
	r = fn(arg, f);
	if (ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0)
		r = -1;
	if (fclose(f) != 0)
		r = -1;
	if (r != 0) {
		xasprintf(cause, "cannot write %s: %s", dst, strerror(errno));
		unlink(tmp);
		return (-1);
	}
	if (rename(tmp, dst) == -1) {
		xasprintf(cause, "rename %s: %s", dst, strerror(errno));
		unlink(tmp);
		return (-1);
	}
	return (0);
}

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

int
report_render(const char *dir, size_t *nworse, size_t *nfailed, char **cause)
{
	struct dataset	*ds = NULL;
	struct analysis	*a = NULL;
	int		 r = -1;

	if (record_load(dir, &ds, cause) != 0)
		goto out;
	if (analysis_build(ds, &a, cause) != 0)
		goto out;
	if (rep_write(dir, "samples.csv", rep_csv_cb, ds, cause) != 0 ||
	    rep_write(dir, "summary.json", rep_json_cb, a, cause) != 0 ||
	    rep_write(dir, "report.md", rep_md_cb, a, cause) != 0)
		goto out;
	if (nworse != NULL)
		*nworse = a->nworse;
	if (nfailed != NULL)
		*nfailed = a->nfailed_samples;
	r = 0;
out:
	analysis_free(a);
	dataset_free(ds);
	return (r);
}
