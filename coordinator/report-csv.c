/* samples.csv: one row per metric value, in execution order per host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/report.h"
#include "proto/xmalloc.h"

static const struct dataset *csv_ds;

/* Returns sample i of the samples followed by the floor's runs. */
static const struct ds_sample *
csv_sample(const struct dataset *ds, size_t i)
{
	return (i < ds->nsamples ? &ds->samples[i] :
	    &ds->floors[i - ds->nsamples]);
}

/* Orders samples by host name, then execution order. */
static int
csv_cmp(const void *a, const void *b)
{
	const struct ds_sample	*x = csv_sample(csv_ds, *(const size_t *)a);
	const struct ds_sample	*y = csv_sample(csv_ds, *(const size_t *)b);
	int			 c;

	c = strcmp(csv_ds->hosts[x->host].name, csv_ds->hosts[y->host].name);
	if (c != 0)
		return (c);
	return ((x->seq > y->seq) - (x->seq < y->seq));
}

/* Writes a field, quoted when it holds a comma, quote or newline. */
static void
csv_field(FILE *f, const char *s)
{
	const char	*p;

	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* Writes the columns every row of one sample shares. */
static void
csv_prefix(FILE *f, const struct dataset *ds, const struct ds_sample *s,
    int floor)
{
	csv_field(f, ds->run_id);
	fputc(',', f);
	csv_field(f, ds->hosts[s->host].name);
	fputc(',', f);
	csv_field(f, ds->hosts[s->host].facts.arch);
	fputc(',', f);
	csv_field(f, floor ? RECORD_FLOOR : ds->benches[s->bench].name);
	fputc(',', f);
	csv_field(f, floor ? "" : ds->variants[s->variant]);
	fprintf(f, ",%u,%u,%u,%d,%s,", s->round, s->attempt, s->seq,
	    s->warmup, proto_status_name(s->status));
}

int
report_csv(const struct dataset *ds, FILE *f)
{
	const struct ds_sample	*s;
	size_t			*order, i, j, n = ds->nsamples + ds->nfloors;
	int			 fl;

	order = xcalloc(n + 1, sizeof *order);
	for (i = 0; i < n; i++)
		order[i] = i;
	csv_ds = ds;
	qsort(order, n, sizeof *order, csv_cmp);
	fputs("run_id,host,arch,bench,variant,round,attempt,seq,warmup,status,"
	    "metric,value\n", f);
	for (i = 0; i < n; i++) {
		s = csv_sample(ds, order[i]);
		fl = order[i] >= ds->nsamples;
		for (j = 0; j < DS_NBUILTIN; j++) {
			csv_prefix(f, ds, s, fl);
			fprintf(f, "%s,%llu\n", ds_builtin_names[j],
			    (unsigned long long)s->builtin[j]);
		}
		csv_prefix(f, ds, s, fl);
		fprintf(f, "load1,%.2f\n", s->load1);
		for (j = 0; j < s->nmetrics; j++) {
			csv_prefix(f, ds, s, fl);
			csv_field(f, ds->mnames[s->mkey[j]]);
			fprintf(f, ",%.17g\n", s->mval[j]);
		}
	}
	free(order);
	return (ferror(f) ? -1 : 0);
}
