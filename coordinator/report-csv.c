/* samples.csv: one row per metric value, in execution order per host. */
#include <stdint.h>
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

/* Writes the columns every row of one sample shares into a memory stream. */
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

/* Formats an unsigned integer; returns its length. */
static size_t
csv_u64(char *buf, uint64_t v)
{
	char	tmp[24];
	size_t	n = 0, i;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return (n);
}

/*
 * Writes one sample's rows: the shared prefix is formatted once, then each
 * row is prefix, metric and value (a million samples are nine million rows).
 */
static void
csv_sample_rows(FILE *f, const struct dataset *ds, const struct ds_sample *s,
    int floor)
{
	static char	*pre;
	static size_t	 prelen;
	FILE		*m;
	char		 row[128];
	size_t		 j, n, k;

	free(pre);
	pre = NULL;
	if ((m = open_memstream(&pre, &prelen)) == NULL) {
		prelen = 0;
		return;
	}
	csv_prefix(m, ds, s, floor);
	fclose(m);
	for (j = 0; j < DS_NBUILTIN; j++) {
		fwrite(pre, 1, prelen, f);
		k = strlen(ds_builtin_names[j]);
		memcpy(row, ds_builtin_names[j], k);
		row[k++] = ',';
		n = k + csv_u64(row + k, s->builtin[j]);
		row[n++] = '\n';
		fwrite(row, 1, n, f);
	}
	fwrite(pre, 1, prelen, f);
	fprintf(f, "load1,%.2f\n", s->load1);
	for (j = 0; j < s->nmetrics; j++) {
		fwrite(pre, 1, prelen, f);
		csv_field(f, ds->mnames[s->mkey[j]]);
		fprintf(f, ",%.17g\n", s->mval[j]);
	}
}

int
report_csv(const struct dataset *ds, FILE *f)
{
	size_t	*order, i, n = ds->nsamples + ds->nfloors;

	order = xcalloc(n + 1, sizeof *order);
	for (i = 0; i < n; i++)
		order[i] = i;
	csv_ds = ds;
	qsort(order, n, sizeof *order, csv_cmp);
	fputs("run_id,host,arch,bench,variant,round,attempt,seq,warmup,status,"
	    "metric,value\n", f);
	for (i = 0; i < n; i++)
		csv_sample_rows(f, ds, csv_sample(ds, order[i]),
		    order[i] >= ds->nsamples);
	free(order);
	return (ferror(f) ? -1 : 0);
}
