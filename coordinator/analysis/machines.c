/* The Machines section's numbers: hosts compared with a reference host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/hygiene.h"
#include "coordinator/analysis/machines.h"
#include "coordinator/analysis/stats-hl.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "proto/ident.h"
#include "proto/xmalloc.h"

#define MACH_OPT	"--machine-reference"

/* The host named by --machine-reference; "" when none was given. */
static char	mach_ref_opt[PROTO_NAME_MAX];

int
machines_opt(const char *host)
{
	if (!ident_str_ok(host, sizeof mach_ref_opt)) {
		fprintf(stderr, "orch: %s: '%s' is not a host name\n", MACH_OPT,
		    host);
		return (-1);
	}
	snprintf(mach_ref_opt, sizeof mach_ref_opt, "%s", host);
	return (0);
}

int
machines_opt_check(const struct host *hosts, size_t n)
{
	size_t	i;

	if (mach_ref_opt[0] == '\0')
		return (0);
	for (i = 0; i < n; i++)
		if (strcmp(hosts[i].name, mach_ref_opt) == 0)
			return (0);
	fprintf(stderr, "orch: %s: host '%s' is not one of the run's hosts\n",
	    MACH_OPT, mach_ref_opt);
	return (-1);
}

int
machines_check(const struct dataset *ds, char **cause)
{
	char	*list;

	if (mach_ref_opt[0] == '\0' || dataset_host(ds, mach_ref_opt) >= 0)
		return (0);
	list = dataset_host_list(ds, 0);
	xasprintf(cause, "%s: host '%s' is not in the record (its hosts: "
	    "%s)", MACH_OPT, mach_ref_opt, list != NULL ? list : "?");
	free(list);
	return (-1);
}

/*
 * The reference the run itself was given: --machine-reference in the
 * recorded command line, so that `orch report DIR` renders what the run
 * did. Copies it into buf; returns 0, or -1 when the line has none.
 */
static int
machines_cmdline_ref(const char *cmdline, char *buf, size_t len)
{
	const char	*p = cmdline, *q;
	size_t		 n;

	while ((p = strstr(p, MACH_OPT)) != NULL) {
		if (p != cmdline && p[-1] != ' ') {
			p++;
			continue;
		}
		p += strlen(MACH_OPT);
		if (*p != '=' && *p != ' ')
			continue;
		p++;
		for (q = p; *q != '\0' && *q != ' '; q++)
			;
		n = (size_t)(q - p);
		if (n == 0 || n >= len || !ident_ok(p, n, len))
			continue;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return (0);
	}
	return (-1);
}

int
machines_emulated(const struct proto_facts *f)
{
	static const char *const x86[] = { "Intel", "AMD", "x86", NULL };
	static const char *const arm[] = { "Apple", "ARM", "Ampere",
	    "Neoverse", "Cortex", "Graviton", NULL };
	const char *const	*foreign = NULL;
	size_t			 i;

	if (strstr(f->cpu_model, "QEMU") != NULL ||
	    strstr(f->cpu_model, "emulated") != NULL)
		return (1);
	/* qemu-user shows the machine's own cpuinfo to the guest. */
	if (strcmp(f->arch, "aarch64") == 0 || strncmp(f->arch, "arm", 3) == 0)
		foreign = x86;
	else if (strcmp(f->arch, "x86_64") == 0)	/* Rosetta */
		foreign = arm;
	for (i = 0; foreign != NULL && foreign[i] != NULL; i++)
		if (strstr(f->cpu_model, foreign[i]) != NULL)
			return (1);
	return (0);
}

/*
 * Fills threads (per benchmark of ds) with what the suite as run declares
 * of each [bench.NAME] (threads, parallel): SUITE_THREADS_* or 0, not said.
 * The points of a sweep, and every benchmark of a suite that does not
 * parse, are not said.
 */
static void
machines_threads(const struct dataset *ds, uint32_t *threads)
{
	const struct suite	*s = ds->suite;
	size_t			 b, i;

	for (b = 0; s != NULL && b < ds->nbenches; b++) {
		for (i = 0; i < s->nbenches; i++) {
			if (s->benches[i].sweep[0] == '\0' &&
			    strcmp(s->benches[i].name, ds->benches[b].name) ==
			    0)
				threads[b] = s->benches[i].threads;
		}
	}
}

/*
 * Fills vals with the positive values of metric in the final measured
 * attempts of (host, bench, variant) that succeeded; returns their count.
 */
static size_t
machines_values(const struct analysis *a, size_t host, size_t bench,
    size_t variant, const char *metric, const struct ds_sample **best,
    double *vals)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	size_t			 i, hb = host * ds->nbenches + bench, n = 0;
	double			 v;

	/* best[] is all NULL between calls: only the rounds seen are set. */
	for (i = a->hb_start[hb]; i < a->hb_start[hb + 1]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->warmup || s->variant != variant || s->round < 1 ||
		    s->round > ds->rounds)
			continue;
		if (best[s->round] == NULL ||
		    s->attempt > best[s->round]->attempt)
			best[s->round] = s;
	}
	for (i = a->hb_start[hb]; i < a->hb_start[hb + 1]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->warmup || s->variant != variant || s->round < 1 ||
		    s->round > ds->rounds || best[s->round] != s)
			continue;
		best[s->round] = NULL;
		if (s->status != 0)
			continue;
		if (analysis_value(a, host, s, metric, &v) == 0 &&
		    isfinite(v) && v > 0)
			vals[n++] = v;
	}
	return (n);
}

/* Replaces x[0..n) by their logarithms. */
static void
machines_logs(double *x, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		x[i] = log(x[i]);
}

/*
 * The typical value (median) of one metric on the reference host and on
 * host, and exp of the Hodges–Lehmann shift of their logs with its
 * interval. Returns the number of host values; *nref gets the reference's.
 */
struct mach_work {
	const struct ds_sample	**best;
	double			 *x, *y;
};

static int
machines_ratio(const struct analysis *a, struct mach_work *w, size_t ref,
    size_t host, size_t b, size_t v, const char *metric, double *tref,
    double *thost, double *ratio, double *lo, double *hi, size_t *nref,
    size_t *nhost)
{
	double	e, l, h;

	*tref = *thost = *ratio = *lo = *hi = NAN;
	*nref = machines_values(a, ref, b, v, metric, w->best, w->x);
	*nhost = machines_values(a, host, b, v, metric, w->best, w->y);
	if (*nref > 0)
		*tref = stats_median(w->x, *nref);
	if (*nhost > 0)
		*thost = stats_median(w->y, *nhost);
	if (*nref == 0 || *nhost == 0)
		return (0);
	machines_logs(w->x, *nref);
	machines_logs(w->y, *nhost);
	if (stats_hl_shift(w->x, *nref, w->y, *nhost, MACH_LEVEL, &e, &l,
	    &h) != 0)
		return (-1);
	*ratio = exp(e);
	*lo = exp(l);		/* NAN stays NAN */
	*hi = exp(h);
	return (0);
}

/* Returns the name of a time metric for bench b: its primary, or wall_ns. */
static const char *
machines_time_metric(const struct ds_bench *b)
{
	const char	*p = b->metrics[0];
	size_t		 len = strlen(p);

	if (!b->higher[0] && len > 3 && strcmp(p + len - 3, "_ns") == 0)
		return (p);
	return (ds_builtin_names[DS_WALL_NS]);
}

/* Returns the cores host keeps busy running a bench of threads (0 serial). */
static double
machines_cores(const struct ds_host *h, uint32_t threads)
{
	if (threads <= 1)
		return (0);
	if (threads == SUITE_THREADS_ALL)
		return (h->facts.cores > 0 ? (double)h->facts.cores :
		    (double)NAN);
	if (h->facts.cores > 0 && threads > h->facts.cores)
		return ((double)h->facts.cores);
	return ((double)threads);
}

/* Fills one cell: the ratio, the split, per core. Returns 0 or -1. */
static int
machines_cell(struct machines *m, struct mach_work *w, size_t host, size_t b,
    size_t v, struct mach_cell *c)
{
	const struct analysis	*a = m->a;
	const struct dataset	*ds = a->ds;
	const struct ds_bench	*bn = &ds->benches[b];
	double			 lo, hi, r, k;
	size_t			 n0, n1;

	memset(c, 0, sizeof *c);
	c->host = host;
	c->bench = b;
	c->variant = v;
	if (machines_ratio(a, w, m->ref, host, b, v, bn->metrics[0],
	    &c->ref_typical, &c->typical, &c->ratio, &c->lo, &c->hi,
	    &c->ref_n, &c->n) != 0)
		return (-1);
	if (c->ref_n == 0)
		snprintf(c->reason, sizeof c->reason, "no good runs on the "
		    "reference host");
	else if (c->n == 0)
		snprintf(c->reason, sizeof c->reason, "no good runs");
	else if (isnan(c->lo))
		snprintf(c->reason, sizeof c->reason, "too few runs for a "
		    "95%% interval");

	/* Where the time goes: each split from typical ratios. */
	c->time_metric = machines_time_metric(bn);
	c->r_time = c->r_instr = c->r_cycles = c->r_cpi = c->r_clock = NAN;
	c->time = c->instr = c->cycles = c->ipc = c->ghz = NAN;
	c->ref_time = c->ref_instr = c->ref_cycles = c->ref_ipc =
	    c->ref_ghz = NAN;
	if (dataset_metric(ds, "instructions") >= 0 &&
	    dataset_metric(ds, "cycles") >= 0) {
		if (machines_ratio(a, w, m->ref, host, b, v, "instructions",
		    &c->ref_instr, &c->instr, &r, &lo, &hi, &n0, &n1) != 0)
			return (-1);
		c->r_instr = r;
		if (machines_ratio(a, w, m->ref, host, b, v, "cycles",
		    &c->ref_cycles, &c->cycles, &r, &lo, &hi, &n0, &n1) != 0)
			return (-1);
		c->r_cycles = r;
		if (machines_ratio(a, w, m->ref, host, b, v, c->time_metric,
		    &c->ref_time, &c->time, &r, &lo, &hi, &n0, &n1) != 0)
			return (-1);
		c->r_time = r;
		if (c->instr > 0 && c->cycles > 0)
			c->ipc = c->instr / c->cycles;
		if (c->cycles > 0 && c->time > 0)
			c->ghz = c->cycles / c->time;
		if (c->ref_instr > 0 && c->ref_cycles > 0)
			c->ref_ipc = c->ref_instr / c->ref_cycles;
		if (c->ref_cycles > 0 && c->ref_time > 0)
			c->ref_ghz = c->ref_cycles / c->ref_time;
		if (isfinite(c->r_instr) && isfinite(c->r_cycles) &&
		    isfinite(c->r_time)) {
			/* time = instr × (cycles/instr) ÷ (cycles/time). */
			c->r_cpi = c->r_cycles / c->r_instr;
			c->r_clock = c->r_cycles / c->r_time;
			m->counters = 1;
			m->split[b] = 1;
		}
	}

	/* Per core: the value per core busy, for a parallel bench. */
	c->cores = machines_cores(&ds->hosts[host], m->threads[b]);
	c->ref_cores = machines_cores(&ds->hosts[m->ref], m->threads[b]);
	c->pc_ratio = c->pc_lo = c->pc_hi = NAN;
	if (c->cores > 0 && c->ref_cores > 0) {
		/* A time per core grows with cores, a rate per core shrinks. */
		k = bn->higher[0] ? c->ref_cores / c->cores :
		    c->cores / c->ref_cores;
		c->pc_ratio = c->ratio * k;
		c->pc_lo = c->lo * k;
		c->pc_hi = c->hi * k;
	}
	return (0);
}

/*
 * The geometric mean of host's ratios under variant v, each taken
 * time-like (a higher-is-better metric inverted), with an interval that
 * adds the benchmarks' log-scale variances, read off their intervals:
 * the benchmarks are different programs measured apart.
 */
static void
machines_geo(struct machines *m, size_t host, size_t v, struct mach_geo *g)
{
	const struct dataset	*ds = m->a->ds;
	const struct mach_cell	*c;
	double			 z = stats_hl_probit(1 - (1 - MACH_LEVEL) / 2);
	double			 sum = 0, var = 0, lr, se;
	size_t			 i;

	memset(g, 0, sizeof *g);
	g->host = host;
	g->variant = v;
	for (i = 0; i < m->ncells; i++) {
		c = &m->cells[i];
		if (c->host != host || c->variant != v || !isfinite(c->lo) ||
		    !(c->ratio > 0 && c->lo > 0 && c->hi > 0))
			continue;
		lr = log(c->ratio);
		se = (log(c->hi) - log(c->lo)) / (2 * z);
		sum += ds->benches[c->bench].higher[0] ? -lr : lr;
		var += se * se;
		g->nused++;
	}
	g->est = g->lo = g->hi = NAN;
	if (g->nused == 0)
		return;
	sum /= (double)g->nused;
	se = sqrt(var) / (double)g->nused;
	g->est = exp(sum);
	g->lo = exp(sum - z * se);
	g->hi = exp(sum + z * se);
}

/* Writes a fact of host h into buf. */
static void
machines_fact_value(const struct ds_host *h, const char *name, char *buf,
    size_t len)
{
	size_t	i;

	snprintf(buf, len, "—");
	if (strcmp(name, "os") == 0)
		snprintf(buf, len, "%s", h->facts.os);
	else if (strcmp(name, "arch") == 0)
		snprintf(buf, len, "%s", h->facts.arch);
	else if (strcmp(name, "cpu_model") == 0)
		snprintf(buf, len, "%s", h->facts.cpu_model);
	else if (strcmp(name, "cores") == 0)
		snprintf(buf, len, "%u", h->facts.cores);
	else if (strcmp(name, "memory") == 0)
		snprintf(buf, len, "%.1f GiB",
		    (double)h->facts.mem_kb / (1024 * 1024));
	else if (strcmp(name, "kernel") == 0)
		snprintf(buf, len, "%s", h->facts.kernel);
	else {
		for (i = 0; i < h->facts.nextra && i < PROTO_FACTS_EXTRA_MAX;
		    i++)
			if (strcmp(h->facts.extra[i].key, name) == 0)
				snprintf(buf, len, "%s",
				    h->facts.extra[i].value);
	}
}

/* Lists the facts whose values differ between the hosts. Returns 0 or -1. */
static int
machines_facts(struct machines *m)
{
	static const char *const names[] = {
		"os", "arch", "cpu_model", "cores", "memory", "kernel",
		"governor", "boost", "smt", "cpu_max_mhz", "vm", NULL
	};
	const struct dataset	*ds = m->a->ds;
	char			 buf[160], first[160];
	size_t			 i, j, k;
	int			 differ;

	if ((m->facts = calloc(sizeof names / sizeof names[0],
	    sizeof *m->facts)) == NULL)
		return (-1);
	for (i = 0; names[i] != NULL; i++) {
		differ = 0;
		machines_fact_value(&ds->hosts[m->hosts[0]], names[i], first,
		    sizeof first);
		for (j = 1; j < m->nhosts; j++) {
			machines_fact_value(&ds->hosts[m->hosts[j]], names[i],
			    buf, sizeof buf);
			if (strcmp(buf, first) != 0)
				differ = 1;
		}
		if (!differ)
			continue;
		k = m->nfacts++;
		m->facts[k].name = names[i];
		if ((m->facts[k].value = calloc(m->nhosts,
		    sizeof *m->facts[k].value)) == NULL)
			return (-1);
		for (j = 0; j < m->nhosts; j++) {
			machines_fact_value(&ds->hosts[m->hosts[j]], names[i],
			    buf, sizeof buf);
			if ((m->facts[k].value[j] = strdup(buf)) == NULL)
				return (-1);
		}
	}
	return (0);
}

/* Picks the reference host: the option, the run's own, or the first. */
static void
machines_pick_ref(struct machines *m)
{
	const struct dataset	*ds = m->a->ds;
	char			 name[PROTO_NAME_MAX];
	long			 h = -1;

	if (mach_ref_opt[0] != '\0')
		h = dataset_host(ds, mach_ref_opt);
	else if (machines_cmdline_ref(ds->cmdline, name, sizeof name) == 0)
		h = dataset_host(ds, name);
	m->ref_given = h >= 0 && ds->hosts[h].facts.arch[0] != '\0';
	m->ref = m->ref_given ? (size_t)h : m->hosts[0];
}

int
machines_build(const struct analysis *a, struct machines **out)
{
	const struct dataset	*ds = a->ds;
	struct machines		*m;
	struct mach_work	 w;
	size_t			 i, j, b, v, most = 0, hb, n;

	*out = NULL;
	memset(&w, 0, sizeof w);
	if ((m = calloc(1, sizeof *m)) == NULL)
		return (-1);
	m->a = a;
	if ((m->hosts = calloc(ds->nhosts + 1, sizeof *m->hosts)) == NULL ||
	    (m->emulated = calloc(ds->nhosts + 1, sizeof *m->emulated)) ==
	    NULL ||
	    (m->threads = calloc(ds->nbenches + 1, sizeof *m->threads)) ==
	    NULL ||
	    (m->split = calloc(ds->nbenches + 1, sizeof *m->split)) == NULL)
		goto fail;
	/* Hosts that never said hello have no facts to compare. */
	for (i = 0; i < ds->nhosts; i++)
		if (ds->hosts[i].facts.arch[0] != '\0')
			m->hosts[m->nhosts++] = i;
	if (m->nhosts < 2) {
		machines_free(m);
		return (0);
	}
	machines_pick_ref(m);
	/* The reference first, the others in record order. */
	for (i = 0; i < m->nhosts && m->hosts[i] != m->ref; i++)
		;
	memmove(&m->hosts[1], &m->hosts[0], i * sizeof *m->hosts);
	m->hosts[0] = m->ref;
	for (i = 0; i < m->nhosts; i++)
		m->emulated[i] =
		    machines_emulated(&ds->hosts[m->hosts[i]].facts);

	machines_threads(ds, m->threads);
	for (b = 0; b < ds->nbenches; b++)
		if (m->threads[b] > 1)
			m->parallel = 1;

	for (i = 0; i < ds->nhosts; i++) {
		for (b = 0; b < ds->nbenches; b++) {
			hb = i * ds->nbenches + b;
			n = a->hb_start[hb + 1] - a->hb_start[hb];
			if (n > most)
				most = n;
		}
	}
	if ((w.best = calloc((size_t)ds->rounds + 1, sizeof *w.best)) == NULL ||
	    (w.x = calloc(most + 1, sizeof *w.x)) == NULL ||
	    (w.y = calloc(most + 1, sizeof *w.y)) == NULL)
		goto fail;
	if ((m->cells = calloc(ds->nbenches * ds->nvariants * m->nhosts,
	    sizeof *m->cells)) == NULL ||
	    (m->geos = calloc(ds->nvariants * m->nhosts, sizeof *m->geos)) ==
	    NULL)
		goto fail;
	for (b = 0; b < ds->nbenches; b++) {
		for (v = 0; v < ds->nvariants; v++) {
			for (j = 1; j < m->nhosts; j++) {
				if (machines_cell(m, &w, m->hosts[j], b, v,
				    &m->cells[m->ncells]) != 0)
					goto fail;
				m->ncells++;
			}
		}
	}
	for (j = 1; j < m->nhosts; j++)
		for (v = 0; v < ds->nvariants; v++)
			machines_geo(m, m->hosts[j], v, &m->geos[m->ngeos++]);
	if (machines_facts(m) != 0)
		goto fail;
	free(w.best);
	free(w.x);
	free(w.y);
	*out = m;
	return (0);
fail:
	free(w.best);
	free(w.x);
	free(w.y);
	machines_free(m);
	return (-1);
}

int
machines_get(const struct analysis *a, const struct machines **out)
{
	struct analysis_memo	*mo = a->memo;

	if (!mo->machines_built) {
		mo->machines_rc = machines_build(a, &mo->machines);
		mo->free_machines = machines_free;
		mo->machines_built = 1;
	}
	*out = mo->machines;
	return (mo->machines_rc);
}

void
machines_free(struct machines *m)
{
	size_t	i, j;

	if (m == NULL)
		return;
	for (i = 0; i < m->nfacts; i++) {
		for (j = 0; j < m->nhosts && m->facts[i].value != NULL; j++)
			free(m->facts[i].value[j]);
		free(m->facts[i].value);
	}
	free(m->facts);
	free(m->cells);
	free(m->geos);
	free(m->hosts);
	free(m->emulated);
	free(m->threads);
	free(m->split);
	free(m);
}
