/*
 * Claims' verdicts. A claim is decided from the run's primary comparisons
 * of its variant against the reference, each with its interval at the
 * family's level (docs/statistics.md, "Claims"): the claims add no test to
 * the family, so their verdicts share its 5% family-wise error.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/claims.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-text.h"
#include "coordinator/report/report.h"
#include "proto/util.h"

const char *
claims_verdict_name(enum claim_verdict v)
{
	switch (v) {
	case CLAIM_CONFIRMED:
		return ("CONFIRMED");
	case CLAIM_REFUTED:
		return ("REFUTED");
	default:
		return ("UNDECIDED");
	}
}

/* ---- deciding ----------------------------------------------------------- */

/*
 * The side of a threshold a claim's ratio must lie on: below (up 0) or
 * above (up 1) t. A claim holds where the ratio is on the claimed side of
 * every one of its bounds (one, or two for "same").
 */
struct claims_bound {
	double	t;
	int	up;
};

/*
 * Fills b (at most 2) with the bounds claim c sets for a metric where
 * higher is better or not, given min_effect me, and returns how many.
 * *refute_* are the bounds whose far side refutes the claim.
 */
static size_t
claims_bounds(const struct suite_claim *c, int higher, double me,
    struct claims_bound *b, struct claims_bound *rb, size_t *nrb)
{
	/* The direction a better ratio moves: up when higher is better. */
	int	up = c->expect == CLAIM_WORSE ? !higher : higher;

	if (c->expect == CLAIM_SAME) {
		b[0].t = 1 - me;
		b[0].up = 1;
		b[1].t = 1 + me;
		b[1].up = 0;
		rb[0] = b[0];
		rb[1] = b[1];
		*nrb = 2;
		return (2);
	}
	if (c->by > 0) {
		b[0].t = up ? 1 + c->by : 1 - c->by;
		b[0].up = up;
		rb[0] = b[0];
	} else {
		/* Any shift proves it; less than min_effect refutes it. */
		b[0].t = 1;
		b[0].up = up;
		rb[0].t = up ? 1 + me : 1 - me;
		rb[0].up = up;
	}
	*nrb = 1;
	return (1);
}

/* Decides one comparison [lo, hi] against claim c. */
static enum claim_verdict
claims_decide(const struct suite_claim *c, const struct rep_cmp *cmp,
    int higher, double me, double *margin)
{
	struct claims_bound	b[2], rb[2];
	size_t			 nb, nrb, i;
	double			 lo, hi, m;
	int			 ok = 1;

	*margin = INFINITY;
	if (cmp == NULL || cmp->verdict == VERDICT_INVALID ||
	    isnan(cmp->lo) || isnan(cmp->hi) || isnan(cmp->ratio))
		return (CLAIM_UNDECIDED);
	lo = cmp->lo;
	hi = cmp->hi;
	nb = claims_bounds(c, higher, me < 0 ? 0 : me, b, rb, &nrb);
	/* Refuted: the interval lies wholly beyond a refuting bound. */
	for (i = 0; i < nrb; i++) {
		if (rb[i].up ? hi < rb[i].t : lo > rb[i].t)
			return (CLAIM_REFUTED);
	}
	for (i = 0; i < nb; i++) {
		if (b[i].up ? !(lo > b[i].t || (c->by > 0 && lo >= b[i].t)) :
		    !(hi < b[i].t || (c->by > 0 && hi <= b[i].t)))
			ok = 0;
		else {
			m = b[i].up ? log(lo / b[i].t) : log(b[i].t / hi);
			if (m < *margin)
				*margin = m;
		}
	}
	return (ok ? CLAIM_CONFIRMED : CLAIM_UNDECIDED);
}

/* Returns the index of variant name in ds, or -1. */
static long
claims_variant(const struct dataset *ds, const char *name)
{
	size_t	i;

	for (i = 0; i < ds->nvariants; i++) {
		if (strcmp(ds->variants[i], name) == 0)
			return ((long)i);
	}
	return (-1);
}

/* Returns the name of claim c's reference. */
static const char *
claims_ref_name(const struct dataset *ds, const struct suite_claim *c)
{
	return (c->reference[0] != '\0' ? c->reference :
	    ds->variants[ds->ref]);
}

/*
 * Fills logs (ds->rounds of them) with the per-round log ratios of variant
 * v to variant w on (dataset host h, bench b), from the analysis' paired
 * ratios of each to the suite's reference: the reference's own value
 * cancels in each round. Returns how many rounds have both.
 */
static size_t
claims_logs(const struct analysis *a, size_t h, size_t b, size_t v,
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

static int	claims_covers(const struct suite *, const struct suite_claim *,
		    const char *);

size_t
claims_family_extra(const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct suite_claim *c;
	struct suite		*s = NULL;
	char			*cause = NULL;
	double			*logs;
	size_t			 ci, hi, b, m = 0;
	long			 v, w;

	if (ds->suite_text == NULL || strstr(ds->suite_text, "reference") ==
	    NULL || strstr(ds->suite_text, "[claim.") == NULL)
		return (0);
	if (suite_load_names(ds->suite_path != NULL ? ds->suite_path :
	    "suite", ds->suite_text, &s, &cause) != 0) {
		free(cause);
		return (0);
	}
	if ((logs = calloc((size_t)ds->rounds + 1, sizeof *logs)) == NULL) {
		suite_free(s);
		return (0);
	}
	for (ci = 0; ci < s->nclaims; ci++) {
		c = &s->claims[ci];
		v = claims_variant(ds, c->variant);
		w = c->reference[0] != '\0' ? claims_variant(ds,
		    c->reference) : (long)ds->ref;
		if (v < 0 || w < 0 || (size_t)w == ds->ref)
			continue;
		for (hi = 0; hi < a->nhosts; hi++) {
			for (b = 0; b < ds->nbenches; b++) {
				if (ds->benches[b].nmetrics > 0 &&
				    claims_covers(s, c, ds->benches[b].name) &&
				    claims_logs(a, a->hosts[hi].host, b,
				    (size_t)v, (size_t)w, logs) >=
				    STATS_MIN_PAIRS)
					m++;
			}
		}
	}
	free(logs);
	suite_free(s);
	return (m);
}

/*
 * Fills cmp with the comparison of variant v to variant w on (analysis
 * host hi, bench b), tested at the family's level like a primary one.
 * Returns 0, or -1 out of memory.
 */
static int
claims_extra_cmp(const struct analysis *a, size_t hi, size_t b, size_t v,
    size_t w, double *logs, struct rep_cmp *cmp)
{
	const struct dataset	*ds = a->ds;
	const struct rep_host	*rh = &a->hosts[hi];
	struct stats_cmp	 sc;
	size_t			 n;

	memset(cmp, 0, sizeof *cmp);
	cmp->host = rh->host;
	cmp->bench = b;
	cmp->variant = v;
	cmp->family = 1;
	cmp->alpha = a->family_alpha;
	cmp->level = 1 - a->family_alpha;
	cmp->ratio = cmp->lo = cmp->hi = cmp->p = NAN;
	n = claims_logs(a, rh->host, b, v, w, logs);
	cmp->npairs = n;
	if (n < STATS_MIN_PAIRS) {
		cmp->verdict = VERDICT_INVALID;
		snprintf(cmp->reason, sizeof cmp->reason, "%zu good pairs; at "
		    "least %d are needed", n, STATS_MIN_PAIRS);
		return (0);
	}
	if (stats_compare_serial(logs, n, a->family_alpha, ds->min_effect,
	    rh->r1, isnan(rh->r1) ? 0 : rh->r1_n, &sc) != 0)
		return (-1);
	cmp->level = sc.level;
	cmp->ratio = exp(sc.est);
	cmp->lo = exp(sc.lo);
	cmp->hi = exp(sc.hi);
	cmp->p = sc.p;
	cmp->verdict = stats_verdict_test(&sc, a->family_alpha,
	    ds->min_effect, ds->benches[b].higher[0]);
	return (0);
}

/* Returns 1 when claim c covers dataset bench b. */
static int
claims_covers(const struct suite *s, const struct suite_claim *c,
    const char *bench)
{
	size_t	i, j;

	if (strcmp(bench, RECORD_FLOOR) == 0)
		return (0);
	if (c->nbenches == 0)
		return (1);
	for (i = 0; i < c->nbenches; i++) {
		if (strcmp(c->benches[i], bench) == 0)
			return (1);
		/* A sweep's name covers each of its points. */
		for (j = 0; j < s->nbenches; j++) {
			if (strcmp(s->benches[j].name, bench) == 0 &&
			    strcmp(s->benches[j].sweep, c->benches[i]) == 0)
				return (1);
		}
	}
	return (0);
}

/* Sums rows[from, to) into sum: refuted by any, confirmed by all. */
static void
claims_sum(struct claim_sum *sum, const struct claim_row *rows, size_t from,
    size_t to, const double *margin)
{
	const struct claim_row	*r, *und = NULL, *ref = NULL, *conf = NULL;
	size_t			 i;

	for (i = from; i < to; i++) {
		r = &rows[i];
		sum->nrows++;
		sum->count[r->verdict]++;
		if (r->verdict == CLAIM_REFUTED && ref == NULL)
			ref = r;
		else if (r->verdict == CLAIM_UNDECIDED && und == NULL)
			und = r;
		else if (r->verdict == CLAIM_CONFIRMED && (conf == NULL ||
		    margin[i] < margin[conf - rows]))
			conf = r;	/* the one nearest its threshold */
	}
	if (ref != NULL) {
		sum->verdict = CLAIM_REFUTED;
		sum->decider = ref;
	} else if (und != NULL || sum->nrows == 0) {
		sum->verdict = CLAIM_UNDECIDED;
		sum->decider = und;
	} else {
		sum->verdict = CLAIM_CONFIRMED;
		sum->decider = conf;
	}
}

int
claims_build(const struct analysis *a, struct claims **out)
{
	const struct dataset	*ds = a->ds;
	const struct suite_claim *c;
	struct claims		*cs = NULL;
	struct claim_sum	*sum;
	struct suite		*s = NULL;
	char			*cause = NULL;
	double			*margin = NULL, *logs = NULL;
	size_t			 ci, gi, hi, b, cap, ncap, start, gstart;
	long			 v, w;
	int			 r = -1;

	*out = NULL;
	if (ds->suite_text == NULL || strstr(ds->suite_text, "[claim.") ==
	    NULL)
		return (0);
	if ((cs = calloc(1, sizeof *cs)) == NULL)
		goto out;
	if (suite_load_names(ds->suite_path != NULL ? ds->suite_path :
	    "suite", ds->suite_text, &s, &cause) != 0) {
		cs->error = cause != NULL ? cause : strdup("out of memory");
		cause = NULL;
		if (cs->error == NULL)
			goto out;
		*out = cs;
		cs = NULL;
		r = 0;
		goto out;
	}
	cs->suite = s;
	if (s->nclaims == 0) {
		r = 0;
		goto out;
	}
	cap = (size_t)s->nclaims * a->nhosts * (ds->nbenches + 1);
	ncap = s->nclaims * (1 + a->ngroups + a->nhosts);
	if ((cs->rows = calloc(cap + 1, sizeof *cs->rows)) == NULL ||
	    (margin = calloc(cap + 1, sizeof *margin)) == NULL ||
	    (cs->extra = calloc(cap + 1, sizeof *cs->extra)) == NULL ||
	    (logs = calloc((size_t)ds->rounds + 1, sizeof *logs)) == NULL ||
	    (cs->sums = calloc(ncap, sizeof *cs->sums)) == NULL)
		goto out;
	for (ci = 0; ci < s->nclaims; ci++) {
		c = &s->claims[ci];
		if ((v = claims_variant(ds, c->variant)) < 0)
			v = (long)ds->nvariants;	/* not run: no rows */
		w = c->reference[0] != '\0' ? claims_variant(ds,
		    c->reference) : (long)ds->ref;
		if (w < 0)
			v = (long)ds->nvariants;
		start = cs->nrows;
		for (hi = 0; hi < a->nhosts; hi++) {
			for (b = 0; b < ds->nbenches && (size_t)v <
			    ds->nvariants; b++) {
				struct claim_row *row;

				if (!claims_covers(s, c, ds->benches[b].name) ||
				    ds->benches[b].nmetrics == 0)
					continue;
				row = &cs->rows[cs->nrows];
				row->claim = ci;
				row->host = hi;
				row->bench = b;
				if ((size_t)w == ds->ref)
					row->cmp = analysis_cmp(a,
					    a->hosts[hi].host, b, 0, (size_t)v);
				else {
					if (claims_extra_cmp(a, hi, b,
					    (size_t)v, (size_t)w, logs,
					    &cs->extra[cs->nextra]) != 0)
						goto out;
					row->cmp = &cs->extra[cs->nextra++];
				}
				row->verdict = claims_decide(c, row->cmp,
				    ds->benches[b].higher[0], ds->min_effect,
				    &margin[cs->nrows]);
				cs->nrows++;
			}
		}
		sum = &cs->sums[cs->nsums++];
		sum->claim = ci;
		sum->group = sum->host = (size_t)-1;
		claims_sum(sum, cs->rows, start, cs->nrows, margin);
		/* Rows are in host order, and hosts in group order. */
		gstart = start;
		for (gi = 0; gi < a->ngroups; gi++) {
			size_t	gend = gstart, hs;

			while (gend < cs->nrows &&
			    cs->rows[gend].host < a->groups[gi].to)
				gend++;
			sum = &cs->sums[cs->nsums++];
			sum->claim = ci;
			sum->group = gi;
			sum->host = (size_t)-1;
			claims_sum(sum, cs->rows, gstart, gend, margin);
			for (hi = a->groups[gi].from; hi < a->groups[gi].to;
			    hi++) {
				hs = gstart;
				while (hs < gend && cs->rows[hs].host < hi)
					hs++;
				start = hs;
				while (hs < gend && cs->rows[hs].host == hi)
					hs++;
				sum = &cs->sums[cs->nsums++];
				sum->claim = ci;
				sum->group = gi;
				sum->host = hi;
				claims_sum(sum, cs->rows, start, hs, margin);
			}
			gstart = gend;
		}
	}
	*out = cs;
	cs = NULL;
	r = 0;
out:
	free(margin);
	free(logs);
	free(cause);
	claims_free_set(cs);
	return (r);
}

void
claims_free_set(struct claims *cs)
{
	if (cs == NULL)
		return;
	suite_free(cs->suite);
	free(cs->extra);
	free(cs->rows);
	free(cs->sums);
	free(cs->error);
	free(cs);
}

/* ---- rendering ---------------------------------------------------------- */

/* Writes "3.007 [2.988, 3.050]" for a row into buf; "-" when none. */
static void
claims_ratio(const struct claim_row *r, char *buf, size_t len)
{
	const struct rep_cmp	*c = r != NULL ? r->cmp : NULL;

	if (c == NULL)
		snprintf(buf, len, "no comparison");
	else if (c->verdict == VERDICT_INVALID || isnan(c->ratio))
		snprintf(buf, len, "invalid");
	else if (!(c->lo > 0) || !isfinite(c->hi))
		snprintf(buf, len, "%.3f, interval unbounded", c->ratio);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f] at %.2f%%", c->ratio,
		    c->lo, c->hi, c->level * 100);
}

/* Writes one table row of the claims table. */
static void
claims_table_row(FILE *f, const struct report_fmt *fmt, const char *claim,
    const char *expect, const char *where, const char *bench,
    enum claim_verdict v, const struct claim_row *r)
{
	char			 ratio[160];

	claims_ratio(r, ratio, sizeof ratio);
	fputs(fmt->row_open, f);
	fputs(fmt->cell_open, f);
	if (claim[0] != '\0') {
		fputs(fmt->cell_code_open, f);
		fmt->text(f, claim);
		fputs(fmt->cell_code_close, f);
	}
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fmt->text(f, expect);
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fmt->text(f, where);
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fmt->text(f, bench);
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fputs(fmt->bold_open, f);
	fputs(claims_verdict_name(v), f);
	fputs(fmt->bold_close, f);
	fputs(fmt->cell_close, f);
	fputs(fmt->num_open, f);
	fmt->text(f, ratio);
	fputs(fmt->cell_close, f);
	fputs(fmt->row_close, f);
}

/* Returns the deciding row's bench and host as "host bench" in buf. */
static const char *
claims_decider(const struct analysis *a, const struct claim_row *r,
    char *buf, size_t len, int host)
{
	const struct dataset	*ds = a->ds;

	if (r == NULL)
		snprintf(buf, len, "-");
	else if (host)
		snprintf(buf, len, "%s: %s", ds->hosts[a->hosts[r->host].host].
		    name, ds->benches[r->bench].name);
	else
		snprintf(buf, len, "%s", ds->benches[r->bench].name);
	return (buf);
}

void
claims_report(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	const struct claim_row	*r;
	char			 expect[64], what[160], where[512], bench[256];
	size_t			 i, k;

	if (cs == NULL)
		return;
	if (cs->error != NULL) {
		fputs(fmt->note_open, f);
		fmt->prose(f, "The suite's claims could not be read: ");
		fmt->text(f, cs->error);
		fputs(fmt->note_close, f);
		return;
	}
	if (cs->suite == NULL || cs->suite->nclaims == 0)
		return;
	fputs(fmt->para_open, f);
	fputs(fmt->bold_open, f);
	fmt->prose(f, "Claims");
	fputs(fmt->bold_close, f);
	fprintf(f, ": each decided from its variant's primary comparisons "
	    "with %s, whose intervals are at the run's family level (%zu "
	    "test%s, 5%% family-wise", ds->variants[ds->ref], a->family_size,
	    a->family_size == 1 ? "" : "s");
	if (cs->nextra > 0)
		fprintf(f, "; %zu of them the comparisons of claims against "
		    "their own reference", cs->nextra);
	fprintf(f, "): CONFIRMED where every interval lies on the claimed "
	    "side, REFUTED where one lies wholly on the other side, else "
	    "UNDECIDED.");
	fputs(fmt->para_close, f);
	fputs(fmt->table_open, f);
	fputs(fmt->head_open, f);
	{
		static const char *const hd[] = { "claim", "expect", "where",
		    "decided by", "verdict", "ratio [interval]" };

		for (k = 0; k < sizeof hd / sizeof hd[0]; k++) {
			fputs(fmt->th_open, f);
			fputs(hd[k], f);
			fputs(fmt->th_close, f);
		}
	}
	fputs(fmt->head_close, f);
	if (fmt->rule_open != NULL) {
		fputs(fmt->rule_open, f);
		for (k = 0; k < 6; k++)
			fputs(k == 5 ? fmt->rule_right : fmt->rule_left, f);
		fputs(fmt->rule_close, f);
	}
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		c = &cs->suite->claims[sum->claim];
		if (sum->group == (size_t)-1) {
			claims_expect_text(c, expect, sizeof expect);
			snprintf(what, sizeof what, "%s %s vs %s", c->variant,
			    expect, claims_ref_name(ds, c));
			claims_table_row(f, fmt, c->name, what, "every host",
			    claims_decider(a, sum->decider, bench,
			    sizeof bench, 1), sum->verdict, sum->decider);
			continue;
		}
		if (sum->host == (size_t)-1) {
			snprintf(where, sizeof where, "%s",
			    a->groups[sum->group].label);
			claims_table_row(f, fmt, "", "", where,
			    claims_decider(a, sum->decider, bench,
			    sizeof bench, 1), sum->verdict, sum->decider);
			continue;
		}
		snprintf(where, sizeof where, "host %s",
		    ds->hosts[a->hosts[sum->host].host].name);
		claims_table_row(f, fmt, "", "", where, claims_decider(a,
		    sum->decider, bench, sizeof bench, 0), sum->verdict,
		    sum->decider);
		/* Several benchmarks: each one's row under its host. */
		if (sum->nrows < 2)
			continue;
		for (k = 0; k < cs->nrows; k++) {
			r = &cs->rows[k];
			if (r->claim != sum->claim || r->host != sum->host)
				continue;
			snprintf(where, sizeof where, "host %s, bench",
			    ds->hosts[a->hosts[r->host].host].name);
			claims_table_row(f, fmt, "", "", where,
			    ds->benches[r->bench].name, r->verdict, r);
		}
	}
	fputs(fmt->table_close, f);
}

/* Writes a row's deciding comparison as JSON members. */
static void
claims_json_row(FILE *f, const struct analysis *a, const struct claim_row *r)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c = r != NULL ? r->cmp : NULL;

	if (r == NULL) {
		fputs(", \"decided_by\": null", f);
		return;
	}
	fputs(", \"decided_by\": {\"host\": ", f);
	json_str(f, ds->hosts[a->hosts[r->host].host].name);
	fputs(", \"bench\": ", f);
	json_str(f, ds->benches[r->bench].name);
	fputs(", \"metric\": ", f);
	json_str(f, ds->benches[r->bench].metrics[0]);
	fputs(", \"ratio\": ", f);
	json_num(f, c != NULL ? c->ratio : NAN);
	fputs(", \"lo\": ", f);
	json_num(f, c != NULL ? c->lo : NAN);
	fputs(", \"hi\": ", f);
	json_num(f, c != NULL ? c->hi : NAN);
	fputs(", \"level\": ", f);
	json_num(f, c != NULL ? c->level : NAN);
	fputs(", \"comparison\": ", f);
	json_str(f, c != NULL ? stats_verdict_name(c->verdict) : "none");
	fputs("}", f);
}

void
claims_json(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	const struct claim_row	*r;
	char			 expect[64];
	size_t			 i, j, k;
	int			 open_g = 0, open_h = 0;

	if (cs == NULL)
		return;
	if (cs->error != NULL) {
		fputs(",\n  \"claims_error\": ", f);
		json_str(f, cs->error);
		return;
	}
	if (cs->suite == NULL || cs->suite->nclaims == 0)
		return;
	fputs(",\n  \"claims\": [", f);
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		c = &cs->suite->claims[sum->claim];
		if (sum->group == (size_t)-1) {
			if (open_h)
				fputs("]}", f);
			if (open_g)
				fputs("]}]},", f);
			open_g = open_h = 0;
			claims_expect_text(c, expect, sizeof expect);
			fputs("\n    {\"name\": ", f);
			json_str(f, c->name);
			fputs(", \"variant\": ", f);
			json_str(f, c->variant);
			fputs(", \"reference\": ", f);
			json_str(f, claims_ref_name(ds, c));
			fputs(", \"expect\": ", f);
			json_str(f, expect);
			fputs(", \"benchmarks\": ", f);
			if (c->nbenches == 0)
				json_str(f, "all");
			else {
				fputc('[', f);
				for (j = 0; j < c->nbenches; j++) {
					fputs(j ? ", " : "", f);
					json_str(f, c->benches[j]);
				}
				fputc(']', f);
			}
			fputs(", \"verdict\": ", f);
			json_str(f, claims_verdict_name(sum->verdict));
			claims_json_row(f, a, sum->decider);
			fputs(", \"groups\": [", f);
			continue;
		}
		if (sum->host == (size_t)-1) {
			if (open_h)
				fputs("]}", f);
			fputs(open_g ? "]}, {" : "{", f);
			open_g = 1;
			open_h = 0;
			fputs("\"group\": ", f);
			json_str(f, a->groups[sum->group].label);
			fputs(", \"verdict\": ", f);
			json_str(f, claims_verdict_name(sum->verdict));
			claims_json_row(f, a, sum->decider);
			fputs(", \"hosts\": [", f);
			continue;
		}
		fputs(open_h ? "]}, {" : "{", f);
		open_h = 1;
		fputs("\"host\": ", f);
		json_str(f, ds->hosts[a->hosts[sum->host].host].name);
		fputs(", \"verdict\": ", f);
		json_str(f, claims_verdict_name(sum->verdict));
		claims_json_row(f, a, sum->decider);
		fputs(", \"benches\": [", f);
		for (k = 0, j = 0; k < cs->nrows; k++) {
			r = &cs->rows[k];
			if (r->claim != sum->claim || r->host != sum->host)
				continue;
			fputs(j++ ? ", {\"bench\": " : "{\"bench\": ", f);
			json_str(f, ds->benches[r->bench].name);
			fputs(", \"verdict\": ", f);
			json_str(f, claims_verdict_name(r->verdict));
			claims_json_row(f, a, r);
			fputs("}", f);
		}
	}
	if (open_h)
		fputs("]}", f);
	if (open_g)
		fputs("]}", f);
	fputs("]}\n  ]", f);
}

void
claims_text(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	char			 expect[64], ratio[160], who[256];
	size_t			 i;

	if (cs == NULL)
		return;
	if (cs->error != NULL) {
		fputs("claims: could not be read: ", f);
		report_text_tty(f, cs->error);
		fputc('\n', f);
		return;
	}
	if (cs->suite == NULL || cs->suite->nclaims == 0)
		return;
	fprintf(f, "claims (each from its comparisons' intervals at the "
	    "run's family level, 5%% family-wise):\n");
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		c = &cs->suite->claims[sum->claim];
		claims_ratio(sum->decider, ratio, sizeof ratio);
		claims_decider(a, sum->decider, who, sizeof who, 1);
		if (sum->group == (size_t)-1) {
			claims_expect_text(c, expect, sizeof expect);
			fputs("  ", f);
			report_text_tty(f, c->name);
			fputs(": ", f);
			report_text_tty(f, c->variant);
			fprintf(f, " %s vs ", expect);
			report_text_tty(f, claims_ref_name(ds, c));
			fprintf(f, ": %s\n", claims_verdict_name(sum->verdict));
		} else if (sum->host == (size_t)-1) {
			fputs("    ", f);
			report_text_tty(f, a->groups[sum->group].label);
			fprintf(f, ": %s  ", claims_verdict_name(
			    sum->verdict));
			report_text_tty(f, who);
			fprintf(f, "  %s\n", ratio);
		} else {
			fputs("      ", f);
			report_text_tty(f, who);
			fprintf(f, "  %s  %s\n", claims_verdict_name(
			    sum->verdict), ratio);
		}
	}
}

void
claims_answer_md(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	char			 expect[64], ratio[160], who[256];
	size_t			 i;

	if (cs == NULL || cs->error != NULL || cs->suite == NULL ||
	    cs->suite->nclaims == 0)
		return;
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		if (sum->host != (size_t)-1)
			continue;
		c = &cs->suite->claims[sum->claim];
		claims_ratio(sum->decider, ratio, sizeof ratio);
		claims_decider(a, sum->decider, who, sizeof who, 1);
		if (sum->group == (size_t)-1) {
			claims_expect_text(c, expect, sizeof expect);
			fprintf(f, "%s**Claim `%s`** (%s %s vs %s): **%s**\n",
			    i > 0 ? "\n" : "", c->name, c->variant, expect,
			    claims_ref_name(ds, c),
			    claims_verdict_name(sum->verdict));
			continue;
		}
		fputs("- ", f);
		report_md_text(f, a->groups[sum->group].label);
		fprintf(f, ": %s (`%s`, ", claims_verdict_name(sum->verdict),
		    who);
		report_md_text(f, ratio);
		fputs(")\n", f);
	}
	fputc('\n', f);
}

int
claims_gate(const struct analysis *a, size_t *n, char **lines)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	char			 expect[64], ratio[160], who[256], label[256];
	size_t			 i, j;

	if (cs == NULL || cs->suite == NULL)
		return (0);
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		/* One line per architecture group that refutes it. */
		if (sum->group == (size_t)-1 || sum->host != (size_t)-1 ||
		    sum->verdict != CLAIM_REFUTED)
			continue;
		c = &cs->suite->claims[sum->claim];
		claims_expect_text(c, expect, sizeof expect);
		claims_ratio(sum->decider, ratio, sizeof ratio);
		claims_decider(a, sum->decider, who, sizeof who, 1);
		/* The label comes from a host's facts: no control characters. */
		snprintf(label, sizeof label, "%s", a->groups[sum->group].label);
		for (j = 0; label[j] != '\0'; j++) {
			if ((unsigned char)label[j] < 0x20 || label[j] == 0x7f)
				label[j] = '?';
		}
		(*n)++;
		if (util_appendf(lines, "orch: --fail-on: claim %s (%s %s "
		    "vs %s) REFUTED on %s: %s ratio %s\n", c->name,
		    c->variant, expect, claims_ref_name(ds, c), label, who,
		    ratio) != 0)
			return (-1);
	}
	return (0);
}
