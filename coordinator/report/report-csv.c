/* samples.csv: one row per metric value, in execution order per host. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE	/* sync_file_range */
#endif
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/report/report.h"
#include "coordinator/store/dataset.h"
#include "proto/xmalloc.h"

/*
 * A million samples are nine million rows: the names are quoted once, each
 * sample's rows are formatted into one buffer with its shared prefix, and
 * the buffer goes out in one fwrite.
 */
struct csv {
	const struct dataset	 *ds;
	char			 *run_id;
	char			**host, **arch, **bench, **variant, **mname;
	char			 *floor;
	char			 *buf;
	size_t			  len, cap;
};

/* Returns s as a CSV field, quoted when it holds a comma, quote or newline. */
static char *
csv_quote(const char *s)
{
	const char	*p;
	char		*q, *out;

	if (strpbrk(s, ",\"\n\r") == NULL)
		return (xstrdup(s));
	out = q = xmalloc(2 * strlen(s) + 3);
	*q++ = '"';
	for (p = s; *p != '\0'; p++) {
		if (*p == '"')
			*q++ = '"';
		*q++ = *p;
	}
	*q++ = '"';
	*q = '\0';
	return (out);
}

static void
csv_free_all(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n && v != NULL; i++)
		free(v[i]);
	free(v);
}

/* Makes room for n more bytes. */
static char *
csv_room(struct csv *c, size_t n)
{
	if (c->cap - c->len < n) {
		while (c->cap - c->len < n)
			c->cap = c->cap ? c->cap * 2 : 4096;
		c->buf = xreallocarray(c->buf, c->cap, 1);
	}
	return (c->buf + c->len);
}

static void
csv_put(struct csv *c, const char *s, size_t n)
{
	memcpy(csv_room(c, n), s, n);
	c->len += n;
}

static void
csv_puts(struct csv *c, const char *s)
{
	csv_put(c, s, strlen(s));
}

/* Appends an unsigned integer in decimal. */
static void
csv_u64(struct csv *c, uint64_t v)
{
	char	tmp[24];
	size_t	n = sizeof tmp;

	do
		tmp[--n] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	csv_put(c, tmp + n, sizeof tmp - n);
}

static void
csv_i64(struct csv *c, int64_t v)
{
	if (v < 0) {
		csv_put(c, "-", 1);
		csv_u64(c, (uint64_t)0 - (uint64_t)v);
	} else
		csv_u64(c, (uint64_t)v);
}

/* Appends printf-formatted text (the few doubles of a sample). */
static void __attribute__((format(printf, 2, 3)))
csv_printf(struct csv *c, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(csv_room(c, 64), 64, fmt, ap);
	va_end(ap);
	if (n >= 64) {
		va_start(ap, fmt);
		vsnprintf(csv_room(c, (size_t)n + 1), (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		c->len += (size_t)n;
}

/*
 * Appends v as printf's "%.2f\n" would (the load): a value well away from
 * a rounding tie rounds the same way from v * 100, the rest go to printf.
 */
static void
csv_fixed2(struct csv *c, double v)
{
	double		x = v * 100, f;
	uint64_t	n;
	char		frac[3];

	f = x - floor(x);
	if (!(v >= 0 && v < 1e9) || fabs(f - 0.5) < 1e-6) {
		csv_printf(c, "%.2f\n", v);
		return;
	}
	n = (uint64_t)llround(x);
	csv_u64(c, n / 100);
	frac[0] = '.';
	frac[1] = (char)('0' + n / 10 % 10);
	frac[2] = (char)('0' + n % 10);
	csv_put(c, frac, 3);
	csv_put(c, "\n", 1);
}

/*
 * Appends v as printf's "%.17g\n" would: a whole number below 2^53 is its
 * digits (programs' counts mostly are), anything else goes to printf.
 */
static void
csv_g17(struct csv *c, double v)
{
	if (v >= 0 && v < 9007199254740992.0 && v == floor(v) &&
	    !(v == 0 && signbit(v))) {
		csv_u64(c, (uint64_t)v);
		csv_put(c, "\n", 1);
	} else if (v < 0 && v > -9007199254740992.0 && v == floor(v)) {
		csv_put(c, "-", 1);
		csv_u64(c, (uint64_t)-v);
		csv_put(c, "\n", 1);
	} else
		csv_printf(c, "%.17g\n", v);
}

/*
 * Ends the row just formatted (its value and "\n") with the env_pad
 * column: the sample's padding in bytes, empty when unknown.
 */
static void
csv_row_end(struct csv *c, const struct ds_sample *s)
{
	c->len--;
	csv_put(c, ",", 1);
	if (s->env_pad >= 0)
		csv_u64(c, (uint64_t)s->env_pad);
	csv_put(c, "\n", 1);
}

/*
 * Formats one sample's rows: the shared prefix, then metric, value and
 * env_pad.
 */
static void
csv_sample_rows(struct csv *c, const struct ds_sample *s, int floor)
{
	size_t			 pre, prelen, j;

	c->len = 0;
	csv_puts(c, c->run_id);
	csv_put(c, ",", 1);
	csv_puts(c, c->host[s->host]);
	csv_put(c, ",", 1);
	csv_puts(c, c->arch[s->host]);
	csv_put(c, ",", 1);
	csv_puts(c, floor ? c->floor : c->bench[s->bench]);
	csv_put(c, ",", 1);
	if (!floor)
		csv_puts(c, c->variant[s->variant]);
	csv_put(c, ",", 1);
	csv_u64(c, s->round);
	csv_put(c, ",", 1);
	csv_u64(c, s->attempt);
	csv_put(c, ",", 1);
	csv_u64(c, s->seq);
	csv_put(c, ",", 1);
	csv_i64(c, s->warmup);
	csv_put(c, ",", 1);
	csv_puts(c, proto_status_name(s->status));
	csv_put(c, ",", 1);
	prelen = c->len;

	/* The first row is the prefix itself; each later row copies it. */
	for (j = 0; j < DS_NBUILTIN; j++) {
		if (j > 0) {
			pre = c->len;
			csv_room(c, prelen);
			memcpy(c->buf + pre, c->buf, prelen);
			c->len += prelen;
		}
		csv_puts(c, ds_builtin_names[j]);
		csv_put(c, ",", 1);
		csv_u64(c, s->builtin[j]);
		csv_put(c, "\n", 1);
		csv_row_end(c, s);
	}
	pre = c->len;
	csv_room(c, prelen);
	memcpy(c->buf + pre, c->buf, prelen);
	c->len += prelen;
	csv_puts(c, "load1,");
	csv_fixed2(c, s->load1);
	csv_row_end(c, s);
	for (j = 0; j < s->nmetrics; j++) {
		pre = c->len;
		csv_room(c, prelen);
		memcpy(c->buf + pre, c->buf, prelen);
		c->len += prelen;
		csv_puts(c, c->mname[s->mkey[j]]);
		csv_put(c, ",", 1);
		csv_g17(c, s->mval[j]);
		csv_row_end(c, s);
	}
}

/* Returns sample i of the samples followed by the floor's runs. */
static const struct ds_sample *
csv_sample(const struct dataset *ds, size_t i)
{
	return (i < ds->nsamples ? &ds->samples[i] :
	    &ds->floors[i - ds->nsamples]);
}

static const struct dataset *csv_ds;

/* Orders host indices by name. */
static int
csv_host_cmp(const void *a, const void *b)
{
	return (strcmp(csv_ds->hosts[*(const size_t *)a].name,
	    csv_ds->hosts[*(const size_t *)b].name));
}

/* Orders one host's samples by execution order. */
static int
csv_seq_cmp(const void *a, const void *b)
{
	const struct ds_sample	*x = csv_sample(csv_ds, *(const size_t *)a);
	const struct ds_sample	*y = csv_sample(csv_ds, *(const size_t *)b);

	return ((x->seq > y->seq) - (x->seq < y->seq));
}

/* Returns 1 when order[0..n) is in execution order. */
static int
csv_in_order(const struct dataset *ds, const size_t *order, size_t n)
{
	size_t	i;

	for (i = 1; i < n; i++) {
		if (csv_sample(ds, order[i - 1])->seq >
		    csv_sample(ds, order[i])->seq)
			return (0);
	}
	return (1);
}

/*
 * Returns every sample's index ordered by host name, then execution order.
 * Each host's samples, then its floor runs, are bucketed in record order,
 * which is execution order for each of the two: they are merged, and only
 * a record out of order (a resumed run may be) is sorted.
 */
static size_t *
csv_order(const struct dataset *ds)
{
	size_t	 n = ds->nsamples + ds->nfloors, nh = ds->nhosts, i, h;
	size_t	*order, *tmp, *hosts, *rank, *start, *fill, *nsmp;
	size_t	 a, b, ea, eb, k;

	order = xcalloc(n + 1, sizeof *order);
	tmp = xcalloc(n + 1, sizeof *tmp);
	hosts = xcalloc(nh + 1, sizeof *hosts);
	rank = xcalloc(nh + 1, sizeof *rank);
	start = xcalloc(nh + 2, sizeof *start);
	fill = xcalloc(nh + 1, sizeof *fill);
	nsmp = xcalloc(nh + 1, sizeof *nsmp);
	for (h = 0; h < nh; h++)
		hosts[h] = h;
	csv_ds = ds;
	qsort(hosts, nh, sizeof *hosts, csv_host_cmp);
	for (h = 0; h < nh; h++)
		rank[hosts[h]] = h;
	for (i = 0; i < n; i++) {
		h = rank[csv_sample(ds, i)->host];
		start[h + 1]++;
		if (i < ds->nsamples)
			nsmp[h]++;
	}
	for (h = 0; h < nh; h++)
		start[h + 1] += start[h];
	for (i = 0; i < n; i++) {
		h = rank[csv_sample(ds, i)->host];
		tmp[start[h] + fill[h]++] = i;
	}
	for (h = 0; h < nh; h++) {
		a = start[h];
		ea = b = start[h] + nsmp[h];
		eb = start[h + 1];
		if (!csv_in_order(ds, tmp + a, ea - a) ||
		    !csv_in_order(ds, tmp + b, eb - b)) {
			memcpy(order + a, tmp + a, (eb - a) * sizeof *order);
			qsort(order + a, eb - a, sizeof *order, csv_seq_cmp);
			continue;
		}
		/* A sample before a floor run of the same seq, as a stable
		 * sort of the record would have them. */
		for (k = a; a < ea || b < eb; k++) {
			if (b == eb || (a < ea && csv_sample(ds, tmp[a])->seq <=
			    csv_sample(ds, tmp[b])->seq))
				order[k] = tmp[a++];
			else
				order[k] = tmp[b++];
		}
	}
	free(tmp);
	free(hosts);
	free(rank);
	free(start);
	free(fill);
	free(nsmp);
	return (order);
}

/*
 * Starts the disk writing what was written so far, without waiting for
 * it: nine million rows are hundreds of MB, and the fsync that makes the
 * file durable then finds little left to do. A hint; Linux only.
 */
static void
csv_writeback(FILE *f, off_t *done)
{
#ifdef SYNC_FILE_RANGE_WRITE
	off_t	now;

	if (fflush(f) != 0 || (now = ftello(f)) <= *done)
		return;
	(void)sync_file_range(fileno(f), *done, now - *done,
	    SYNC_FILE_RANGE_WRITE);
	*done = now;
#else
	(void)f;
	(void)done;
#endif
}

#define CSV_WRITEBACK	(32 << 20)	/* bytes between writeback hints */

int
report_csv(const struct dataset *ds, FILE *f)
{
	struct csv	 c;
	size_t		*order, i, n = ds->nsamples + ds->nfloors, pending = 0;
	off_t		 done = 0;

	memset(&c, 0, sizeof c);
	c.ds = ds;
	c.run_id = csv_quote(ds->run_id);
	c.floor = csv_quote(RECORD_FLOOR);
	c.host = xcalloc(ds->nhosts + 1, sizeof *c.host);
	c.arch = xcalloc(ds->nhosts + 1, sizeof *c.arch);
	for (i = 0; i < ds->nhosts; i++) {
		c.host[i] = csv_quote(ds->hosts[i].name);
		c.arch[i] = csv_quote(ds->hosts[i].facts.arch);
	}
	c.bench = xcalloc(ds->nbenches + 1, sizeof *c.bench);
	for (i = 0; i < ds->nbenches; i++)
		c.bench[i] = csv_quote(ds->benches[i].name);
	c.variant = xcalloc(ds->nvariants + 1, sizeof *c.variant);
	for (i = 0; i < ds->nvariants; i++)
		c.variant[i] = csv_quote(ds->variants[i]);
	c.mname = xcalloc(ds->nmnames + 1, sizeof *c.mname);
	for (i = 0; i < ds->nmnames; i++)
		c.mname[i] = csv_quote(ds->mnames[i]);

	order = csv_order(ds);
	fputs("run_id,host,arch,bench,variant,round,attempt,seq,warmup,status,"
	    "metric,value,env_pad\n", f);
	for (i = 0; i < n; i++) {
		csv_sample_rows(&c, csv_sample(ds, order[i]),
		    order[i] >= ds->nsamples);
		fwrite(c.buf, 1, c.len, f);
		if ((pending += c.len) >= CSV_WRITEBACK) {
			csv_writeback(f, &done);
			pending = 0;
		}
	}
	free(order);
	free(c.run_id);
	free(c.floor);
	csv_free_all(c.host, ds->nhosts);
	csv_free_all(c.arch, ds->nhosts);
	csv_free_all(c.bench, ds->nbenches);
	csv_free_all(c.variant, ds->nvariants);
	csv_free_all(c.mname, ds->nmnames);
	free(c.buf);
	return (ferror(f) ? -1 : 0);
}
