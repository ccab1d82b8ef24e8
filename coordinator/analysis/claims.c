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
#include "proto/util.h"
#include "proto/xmalloc.h"

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

const char *
claims_ref_name(const struct dataset *ds, const struct suite_claim *c)
{
	return (c->reference[0] != '\0' ? c->reference :
	    ds->variants[ds->ref]);
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
	n = analysis_pair_logs(a, rh->host, b, v, w, logs);
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

/*
 * Adds the rows of claim ci to cs, one per (host, bench) it covers, each
 * with its margin. Returns 0, or -1 out of memory.
 */
static int
claims_rows(const struct analysis *a, struct claims *cs, size_t ci,
    double *margin, double *logs)
{
	const struct dataset	 *ds = a->ds;
	const struct suite_claim *c = &cs->suite->claims[ci];
	struct claim_row	 *row;
	size_t			  hi, b;
	long			  v, w;

	if ((v = claims_variant(ds, c->variant)) < 0)
		v = (long)ds->nvariants;	/* not run: no rows */
	w = c->reference[0] != '\0' ? claims_variant(ds, c->reference) :
	    (long)ds->ref;
	if (w < 0)
		v = (long)ds->nvariants;
	for (hi = 0; hi < a->nhosts; hi++) {
		for (b = 0; b < ds->nbenches && (size_t)v < ds->nvariants;
		    b++) {
			if (!claims_covers(cs->suite, c,
			    ds->benches[b].name) ||
			    ds->benches[b].nmetrics == 0)
				continue;
			row = &cs->rows[cs->nrows];
			row->claim = ci;
			row->host = hi;
			row->bench = b;
			if ((size_t)w == ds->ref)
				row->cmp = analysis_cmp(a, a->hosts[hi].host,
				    b, 0, (size_t)v);
			else {
				if (claims_extra_cmp(a, hi, b, (size_t)v,
				    (size_t)w, logs,
				    &cs->extra[cs->nextra]) != 0)
					return (-1);
				row->cmp = &cs->extra[cs->nextra++];
			}
			row->verdict = claims_decide(c, row->cmp,
			    ds->benches[b].higher[0], ds->min_effect,
			    &margin[cs->nrows]);
			cs->nrows++;
		}
	}
	return (0);
}

/*
 * Sums the rows of claim ci, from start on: over the run, then per group
 * the group and each of its hosts.
 */
static void
claims_sums(const struct analysis *a, struct claims *cs, size_t ci,
    size_t start, const double *margin)
{
	struct claim_sum	*sum;
	size_t			 gi, hi, gstart, gend, hs, from;

	sum = &cs->sums[cs->nsums++];
	sum->claim = ci;
	sum->group = sum->host = (size_t)-1;
	claims_sum(sum, cs->rows, start, cs->nrows, margin);
	/* Rows are in host order, and hosts in group order. */
	gstart = start;
	for (gi = 0; gi < a->ngroups; gi++) {
		gend = gstart;
		while (gend < cs->nrows && cs->rows[gend].host <
		    a->groups[gi].to)
			gend++;
		sum = &cs->sums[cs->nsums++];
		sum->claim = ci;
		sum->group = gi;
		sum->host = (size_t)-1;
		claims_sum(sum, cs->rows, gstart, gend, margin);
		for (hi = a->groups[gi].from; hi < a->groups[gi].to; hi++) {
			hs = gstart;
			while (hs < gend && cs->rows[hs].host < hi)
				hs++;
			from = hs;
			while (hs < gend && cs->rows[hs].host == hi)
				hs++;
			sum = &cs->sums[cs->nsums++];
			sum->claim = ci;
			sum->group = gi;
			sum->host = hi;
			claims_sum(sum, cs->rows, from, hs, margin);
		}
		gstart = gend;
	}
}

/* Frees a set of claims; NULL is ok. */
static void
claims_free_set(struct claims *cs)
{
	if (cs == NULL)
		return;
	free(cs->extra);
	free(cs->rows);
	free(cs->sums);
	free(cs->error);
	free(cs);
}

/*
 * Decides the claims of the suite recorded in a's dataset. Returns 0 with
 * *out set (NULL when the suite states none), or -1 out of memory.
 */
static int
claims_build(const struct analysis *a, struct claims **out)
{
	const struct dataset	*ds = a->ds;
	const struct suite	*s = ds->suite;
	struct claims		*cs = NULL;
	double			*margin = NULL, *logs = NULL;
	size_t			 ci, cap, ncap, start;
	int			 r = -1;

	*out = NULL;
	if (!ds->suite_claims || (s != NULL && s->nclaims == 0))
		return (0);
	if ((cs = calloc(1, sizeof *cs)) == NULL)
		return (-1);
	if (s == NULL) {
		/* The claims of a suite that does not parse: say why. */
		cs->error = strdup(ds->suite_error != NULL ? ds->suite_error :
		    "out of memory");
		if (cs->error == NULL)
			goto out;
		*out = cs;
		return (0);
	}
	cs->suite = s;
	cap = (size_t)s->nclaims * a->nhosts * (ds->nbenches + 1);
	ncap = s->nclaims * (1 + a->ngroups + a->nhosts);
	if ((cs->rows = calloc(cap + 1, sizeof *cs->rows)) == NULL ||
	    (margin = calloc(cap + 1, sizeof *margin)) == NULL ||
	    (cs->extra = calloc(cap + 1, sizeof *cs->extra)) == NULL ||
	    (logs = calloc((size_t)ds->rounds + 1, sizeof *logs)) == NULL ||
	    (cs->sums = calloc(ncap, sizeof *cs->sums)) == NULL)
		goto out;
	for (ci = 0; ci < s->nclaims; ci++) {
		start = cs->nrows;
		if (claims_rows(a, cs, ci, margin, logs) != 0)
			goto out;
		claims_sums(a, cs, ci, start, margin);
	}
	*out = cs;
	cs = NULL;
	r = 0;
out:
	free(margin);
	free(logs);
	claims_free_set(cs);
	return (r);
}

int
claims_attach(struct analysis *a, char **cause)
{
	struct claims	*cs;

	if (claims_build(a, &cs) != 0) {
		xasprintf(cause, "analysis: out of memory");
		return (-1);
	}
	a->claims = cs;
	a->free_claims = claims_free_set;
	return (0);
}

/* ---- text ------------------------------------------------------------- */

void
claims_ratio_text(const struct claim_row *r, char *buf, size_t len)
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

const char *
claims_decider_text(const struct analysis *a, const struct claim_row *r,
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
		claims_ratio_text(sum->decider, ratio, sizeof ratio);
		claims_decider_text(a, sum->decider, who, sizeof who, 1);
		/*
		 * The label comes from a host's facts: no control characters.
		 */
		snprintf(label, sizeof label, "%s",
		    a->groups[sum->group].label);
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
