/* Measurement hygiene per host, derived from the record alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/hygiene.h"

const char *
hygiene_bin_sha(const struct dataset *ds, size_t h, size_t v)
{
	size_t	i;

	for (i = 0; i < ds->nfiles; i++) {
		if (ds->files[i].host == h && strcmp(ds->files[i].role,
		    "bin") == 0 && strcmp(ds->files[i].variant,
		    ds->variants[v]) == 0)
			return (ds->files[i].sha);
	}
	return (NULL);
}

int
hygiene_aa(const struct dataset *ds, size_t h, size_t v)
{
	const char	*a, *b;

	if (v == ds->ref)
		return (0);
	a = hygiene_bin_sha(ds, h, v);
	b = hygiene_bin_sha(ds, h, ds->ref);
	return (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Returns 1 when variant v's program on host h was pushed during the run. */
static int
hygiene_fresh(const struct dataset *ds, size_t h, size_t v)
{
	size_t	i;

	for (i = 0; i < ds->nfiles; i++) {
		if (ds->files[i].host == h && strcmp(ds->files[i].role,
		    "bin") == 0 && strcmp(ds->files[i].variant,
		    ds->variants[v]) == 0)
			return (ds->files[i].fresh);
	}
	return (0);
}

/*
 * Long because it is a row of short passes over the record (floors, each
 * variant's program, the first runs, the notes) that fill one struct.
 */
int
hygiene_host(const struct dataset *ds, size_t h, struct hyg_host *out)
{
	const struct ds_sample	*s, *first;
	double			*x;
	size_t			 i, n, v, k;
	const char		*sha, **vsha = NULL;
	int			 seen, *same = NULL;

	memset(out, 0, sizeof *out);
	if ((x = calloc(ds->nfloors + ds->nsamples + 1, sizeof *x)) == NULL)
		return (-1);
	n = 0;
	for (i = 0; i < ds->nfloors; i++) {
		if (ds->floors[i].host == h && ds->floors[i].status == 0)
			x[n++] = (double)ds->floors[i].builtin[0];
	}
	if (stats_summarize(x, n, &out->floor) != 0)
		goto fail;

	/*
	 * A program's first run after it was pushed: once per distinct file
	 * (two variants sharing one file share its first run).
	 */
	/* Each variant's program, looked up once, not per sample. */
	if ((vsha = calloc(ds->nvariants + 1, sizeof *vsha)) == NULL ||
	    (same = calloc(ds->nvariants + 1, sizeof *same)) == NULL)
		goto fail;
	for (v = 0; v < ds->nvariants; v++)
		vsha[v] = hygiene_bin_sha(ds, h, v);
	for (v = 0; v < ds->nvariants && out->nfirst < 16; v++) {
		if (!hygiene_fresh(ds, h, v) || (sha = vsha[v]) == NULL)
			continue;
		seen = 0;
		for (k = 0; k < out->nfirst; k++) {
			if (vsha[out->first[k].variant] != NULL &&
			    strcmp(vsha[out->first[k].variant], sha) == 0)
				seen = 1;
		}
		for (k = 0; k < ds->nvariants; k++)
			same[k] = vsha[k] != NULL && strcmp(vsha[k], sha) == 0;
		first = NULL;
		for (i = 0; i < ds->nsamples && !seen; i++) {
			s = &ds->samples[i];
			if (s->host != h || !same[s->variant])
				continue;
			if (first == NULL || s->seq < first->seq)
				first = s;
		}
		if (first == NULL)
			continue;
		n = 0;
		for (i = 0; i < ds->nsamples; i++) {
			s = &ds->samples[i];
			if (s->host == h && s->bench == first->bench &&
			    s->variant == first->variant && !s->warmup &&
			    s->status == 0)
				x[n++] = (double)s->builtin[0];
		}
		out->first[out->nfirst].variant = first->variant;
		out->first[out->nfirst].bench = first->bench;
		out->first[out->nfirst].seq = first->seq;
		out->first[out->nfirst].first_ns = (double)first->builtin[0];
		out->first[out->nfirst].median_ns = n > 0 ?
		    stats_median(x, n) : NAN;
		out->nfirst++;
	}
	for (i = 0; i < ds->nnotes; i++) {
		if (ds->notes[i].host != h)
			continue;
		if (strcmp(ds->notes[i].state, "waiting-load") == 0) {
			if (ds->notes[i].waited_ms == 0)
				out->nwaits++;
			if (ds->notes[i].waited_ms > out->waited_ms)
				out->waited_ms = ds->notes[i].waited_ms;
		} else
			out->nnotes++;
	}
	free(x);
	free(vsha);
	free(same);
	return (0);
fail:
	free(x);
	free(vsha);
	free(same);
	return (-1);
}
