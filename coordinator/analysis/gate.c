/* The --fail-on gate: its list, and the comparisons that trip it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/claims.h"
#include "coordinator/analysis/gate.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

static const struct {
	const char	*word;
	int		 bits;
} gate_words[] = {
	{ "worse", GATE_WORSE },
	{ "invalid", GATE_INVALID },
	{ "inconclusive", GATE_INCONCLUSIVE },
	{ "refuted", GATE_REFUTED },
	{ "any", GATE_ANY },
};

int
gate_parse(const char *list, int *mask, char **cause)
{
	const char	*p = list, *e;
	size_t		 i, len;

	if (*p == '\0')
		goto bad;
	for (;;) {
		e = strchr(p, ',');
		len = e != NULL ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < sizeof gate_words / sizeof gate_words[0];
		    i++) {
			if (strlen(gate_words[i].word) == len &&
			    strncmp(gate_words[i].word, p, len) == 0)
				break;
		}
		if (i == sizeof gate_words / sizeof gate_words[0]) {
			xasprintf(cause, "--fail-on: '%.*s' is not one of "
			    "worse, invalid, inconclusive, refuted, any "
			    "(a comma list)",
			    (int)(len > 64 ? 64 : len), p);
			return (-1);
		}
		*mask |= gate_words[i].bits;
		if (e == NULL)
			return (0);
		p = e + 1;
	}
bad:
	xasprintf(cause, "--fail-on: empty; give worse, invalid, inconclusive, "
	    "refuted or any (a comma list)");
	return (-1);
}

/*
 * With --fail-on=invalid, a variant retried in more than REP_RETRY_FLAG
 * of its runs on a host trips the gate too: its ratio hides a crash rate.
 * Appends a line for each to *lines and counts it in *n. Returns 0 or -1.
 */
static int
gate_retries(const struct analysis *a, size_t *n, char **lines)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	size_t			 i;
	int			 r = 0;

	for (i = 0; i < a->nresults && r == 0; i++) {
		res = &a->results[i];
		if (res->metric != 0 || !res->retry_flag)
			continue;
		(*n)++;
		r = util_appendf(lines, "orch: --fail-on: %s %s: %s retried in "
		    "%zu of %zu runs (%.0f%%, over %.0f%%): a crash rate its "
		    "ratio hides\n", ds->hosts[res->host].name,
		    ds->benches[res->bench].name, ds->variants[res->variant],
		    res->runs_retried, res->runs, 100.0 *
		    (double)res->runs_retried / (double)res->runs,
		    100 * REP_RETRY_FLAG);
	}
	return (r);
}

int
gate_check(const struct analysis *a, int mask, size_t *n, char **lines)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c;
	size_t			 i;
	int			 bit, r = 0;

	*n = 0;
	*lines = NULL;
	for (i = 0; i < a->ncmps && r == 0; i++) {
		c = &a->cmps[i];
		if (!c->family)
			continue;
		bit = c->verdict == VERDICT_WORSE ? GATE_WORSE :
		    c->verdict == VERDICT_INVALID ? GATE_INVALID :
		    c->verdict == VERDICT_INCONCLUSIVE ? GATE_INCONCLUSIVE : 0;
		if ((bit & mask) == 0)
			continue;
		(*n)++;
		r = util_appendf(lines, "orch: --fail-on: %s %s %s: %s vs %s "
		    "%s", ds->hosts[c->host].name, ds->benches[c->bench].name,
		    ds->benches[c->bench].metrics[c->metric],
		    ds->variants[c->variant], ds->variants[ds->ref],
		    stats_verdict_name(c->verdict));
		if (r == 0 && c->verdict == VERDICT_INVALID)
			r = util_appendf(lines, ": %s\n", c->reason);
		else if (r == 0 && (!(c->lo > 0) || !isfinite(c->hi)))
			r = util_appendf(lines, ": ratio %.3f, interval "
			    "unbounded: %zu rounds cannot reach p <= %.2g "
			    "(family of %zu)\n", c->ratio, c->npairs, c->alpha,
			    a->family_size);
		else if (r == 0)
			r = util_appendf(lines, ": ratio %.3f [%.3f, %.3f] "
			    "at %.2f%%, p %.2g (family of %zu: p <= %.2g "
			    "decides)%s\n", c->ratio, c->lo, c->hi,
			    c->level * 100, c->p, a->family_size,
			    c->alpha, c->verdict == VERDICT_INCONCLUSIVE ?
			    "; neither proven different nor within "
			    "min_effect" : "");
	}
	if (r == 0 && (mask & GATE_INVALID))
		r = gate_retries(a, n, lines);
	if (r == 0 && (mask & GATE_REFUTED))
		r = claims_gate(a, n, lines);
	if (r != 0) {
		free(*lines);
		*lines = NULL;
	}
	return (r);
}
