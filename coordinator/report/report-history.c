/*
 * orch index and orch history. The series of one (host, bench, metric) are
 * the ratio of each variant to the reference and each variant's typical
 * value (its median), run after run; their change points come from
 * changepoint.c on log values, so a shift is a factor. Every number is
 * printed with a fixed format: the same store gives the same bytes.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/changepoint.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report-history.h"
#include "coordinator/report/report-index.h"
#include "coordinator/report/report-text.h"
#include "coordinator/store/history.h"
#include "proto/file.h"
#include "proto/xmalloc.h"

/* One series: a variant's ratio (ratio set) or typical value, in runs. */
struct hs_series {
	const char	*variant;
	int		 ratio;		/* the ratio to the reference */
	size_t		 n;
	size_t		*run;		/* [n] index into the runs */
	size_t		*pt;		/* [n] index into the points */
	double		*v;		/* [n] log values */
	struct cp_point	*cps;
	size_t		 ncps;
};

/* One (host, bench, metric): its points and series. */
struct hs_group {
	size_t		 first;		/* a point of it (names) */
	size_t		 nseries;
	struct hs_series *series;
};

/* A host name whose Slurm node changed between two of its runs. */
struct hs_move {
	const char	*host, *from, *to;	/* into the points */
	size_t		 run_from, run_to;	/* index into the runs */
};

struct hs_ctx {
	struct hist_run		*runs;
	size_t			 nruns;
	struct hist_point	*pts;
	size_t			 npts;
	size_t			 ngroups;
	struct hs_group		*groups;
	size_t			 nmoves;
	struct hs_move		*moves;
};

static int
hs_same_group(const struct hist_point *a, const struct hist_point *b)
{
	return (strcmp(a->host, b->host) == 0 &&
	    strcmp(a->bench, b->bench) == 0 &&
	    strcmp(a->metric, b->metric) == 0);
}

/* Adds point p (index i) to the series of its variant, kind ratio. */
static void
hs_add(struct hs_group *g, const struct hist_point *p, size_t i, int ratio)
{
	struct hs_series	*s = NULL;
	double			 v = ratio ? p->ratio : p->typical;
	size_t			 k;

	if (!isfinite(v) || v <= 0)
		return;
	for (k = 0; k < g->nseries; k++) {
		if (g->series[k].ratio == ratio &&
		    strcmp(g->series[k].variant, p->variant) == 0)
			s = &g->series[k];
	}
	if (s == NULL) {
		g->series = xreallocarray(g->series, g->nseries + 1,
		    sizeof *g->series);
		s = &g->series[g->nseries++];
		memset(s, 0, sizeof *s);
		s->variant = p->variant;
		s->ratio = ratio;
	}
	/* A run gives one value per series (the store's key is unique). */
	if (s->n > 0 && s->run[s->n - 1] == p->run)
		return;
	s->run = xreallocarray(s->run, s->n + 1, sizeof *s->run);
	s->pt = xreallocarray(s->pt, s->n + 1, sizeof *s->pt);
	s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
	s->run[s->n] = p->run;
	s->pt[s->n] = i;
	s->v[s->n++] = log(v);
}

static int
hs_series_cmp(const void *a, const void *b)
{
	const struct hs_series	*x = a, *y = b;
	int			 c = strcmp(x->variant, y->variant);

	return (c != 0 ? c : x->ratio - y->ratio);
}

static int
hs_point_cmp(const void *a, const void *b)
{
	const struct hist_point	*x = a, *y = b;
	int			 c;

	if ((c = strcmp(x->host, y->host)) != 0 ||
	    (c = strcmp(x->bench, y->bench)) != 0 ||
	    (c = strcmp(x->metric, y->metric)) != 0)
		return (c);
	if (x->run != y->run)
		return (x->run < y->run ? -1 : 1);
	return (strcmp(x->variant, y->variant));
}

/*
 * Groups the points, builds every series and finds its change points.
 * Only primary metrics unless one was asked for. Returns 0 or -1 (cause).
 */
static int
hs_build(struct hs_ctx *c, const struct hist_filter *f, char **cause)
{
	struct hs_group		*g = NULL;
	struct hs_series	*s;
	char			*key;
	size_t			 i, k, j, off;
	int			 r;

	if (c->npts > 0)
		qsort(c->pts, c->npts, sizeof *c->pts, hs_point_cmp);
	for (i = 0; i < c->npts; i++) {
		if (f->metric == NULL && !c->pts[i].primary)
			continue;
		if (g == NULL || !hs_same_group(&c->pts[g->first],
		    &c->pts[i])) {
			c->groups = xreallocarray(c->groups, c->ngroups + 1,
			    sizeof *c->groups);
			g = &c->groups[c->ngroups++];
			memset(g, 0, sizeof *g);
			g->first = i;
		}
		if (strcmp(c->pts[i].variant, c->pts[i].reference) != 0)
			hs_add(g, &c->pts[i], i, 1);
		if (f->variant == NULL || strcmp(c->pts[i].variant,
		    f->variant) == 0)
			hs_add(g, &c->pts[i], i, 0);
	}
	for (i = 0; i < c->ngroups; i++) {
		g = &c->groups[i];
		if (g->nseries > 0)
			qsort(g->series, g->nseries, sizeof *g->series,
			    hs_series_cmp);
		for (k = 0; k < g->nseries; k++) {
			s = &g->series[k];
			xasprintf(&key, "%s/%s/%s/%s/%s", c->pts[g->first].host,
			    c->pts[g->first].bench, c->pts[g->first].metric,
			    s->variant, s->ratio ? "ratio" : "typical");
			/* A longer series: its last CP_MAX_N runs. */
			off = s->n > CP_MAX_N ? s->n - CP_MAX_N : 0;
			r = changepoint_find(s->v + off, s->n - off, CP_MIN_SEG,
			    CP_PERMS, CP_ALPHA, CP_SEED, key, &s->cps,
			    &s->ncps);
			free(key);
			for (j = 0; r == 0 && j < s->ncps; j++)
				s->cps[j].at += off;
			if (r != 0) {
				xasprintf(cause, "the change points of a "
				    "series of %zu runs: out of memory", s->n);
				return (-1);
			}
		}
	}
	return (0);
}

/*
 * Finds each host whose Slurm node differs between two consecutive runs
 * of it that name one (of the points shown: primary metrics unless one
 * was asked for). A run where the host was no Slurm host is skipped.
 * The points are sorted by host (hs_build).
 */
static void
hs_moves(struct hs_ctx *c, const struct hist_filter *f)
{
	const struct hist_point	 *p;
	const char		**node;
	size_t			  i, j, end, r, last;

	node = xcalloc(c->nruns + 1, sizeof *node);
	for (i = 0; i < c->npts; i = end) {
		for (end = i; end < c->npts && strcmp(c->pts[end].host,
		    c->pts[i].host) == 0; end++)
			;
		memset(node, 0, (c->nruns + 1) * sizeof *node);
		for (j = i; j < end; j++) {
			p = &c->pts[j];
			if ((f->metric != NULL || p->primary) &&
			    p->node[0] != '\0' && p->run < c->nruns)
				node[p->run] = p->node;
		}
		last = (size_t)-1;
		for (r = 0; r < c->nruns; r++) {
			if (node[r] == NULL)
				continue;
			if (last != (size_t)-1 && strcmp(node[last],
			    node[r]) != 0) {
				c->moves = xreallocarray(c->moves,
				    c->nmoves + 1, sizeof *c->moves);
				c->moves[c->nmoves].host = c->pts[i].host;
				c->moves[c->nmoves].from = node[last];
				c->moves[c->nmoves].to = node[r];
				c->moves[c->nmoves].run_from = last;
				c->moves[c->nmoves++].run_to = r;
			}
			last = r;
		}
	}
	free(node);
}

/* Says each move of a host between Slurm nodes, node names sanitized. */
static void
hs_print_moves(FILE *f, const struct hs_ctx *c)
{
	const struct hs_move	*m;
	size_t			 i;

	for (i = 0; i < c->nmoves; i++) {
		m = &c->moves[i];
		fputs("warning: host ", f);
		tty_write(f, m->host);
		fputs(" ran on node ", f);
		tty_write(f, m->from);
		fprintf(f, " in run %zu and on node ", m->run_from + 1);
		tty_write(f, m->to);
		fprintf(f, " in run %zu: its series compares different "
		    "machines\n", m->run_to + 1);
	}
}

static void
hs_free(struct hs_ctx *c)
{
	size_t	i, k;

	for (i = 0; i < c->ngroups; i++) {
		for (k = 0; k < c->groups[i].nseries; k++) {
			free(c->groups[i].series[k].run);
			free(c->groups[i].series[k].pt);
			free(c->groups[i].series[k].v);
			free(c->groups[i].series[k].cps);
		}
		free(c->groups[i].series);
	}
	free(c->groups);
	free(c->moves);
	history_query_free(c->runs, c->nruns, c->pts, c->npts);
}

/* "×0.850 [0.845, 0.856]" of a change point (logs to factors). */
static void
hs_shift(char *buf, size_t len, const struct cp_point *cp)
{
	if (isfinite(cp->lo))
		snprintf(buf, len, "x%.3f [%.3f, %.3f]", exp(cp->shift),
		    exp(cp->lo), exp(cp->hi));
	else
		snprintf(buf, len, "x%.3f [too few runs for an interval]",
		    exp(cp->shift));
}

/* What a change point's series is, for a line: "B/A ratio", "B typical". */
static void
hs_what(char *buf, size_t len, const struct hs_ctx *c,
    const struct hs_group *g, const struct hs_series *s)
{
	if (s->ratio)
		snprintf(buf, len, "ratio %s/%s", s->variant,
		    c->pts[g->first].reference);
	else
		snprintf(buf, len, "%s typical %s", s->variant,
		    c->pts[g->first].metric);
}

static const char *
hs_labels(const struct hist_run *r)
{
	return (r->labels[0] != '\0' ? r->labels : "(no labels)");
}

/* The terminal's text: per group its runs, then its change points. */
static size_t
hs_print(FILE *f, const struct hs_ctx *c)
{
	const struct hs_group	*g;
	const struct hs_series	*s;
	const struct hist_point	*p;
	const struct cp_point	*cp;
	char			 what[160], sh[96];
	size_t			 i, k, j, m, n = 0, last;

	for (i = 0; i < c->ngroups; i++) {
		g = &c->groups[i];
		p = &c->pts[g->first];
		fprintf(f, "\n%s · %s · %s (%s · %s)\n", p->host, p->bench,
		    p->metric, p->arch, p->cpu);
		last = (size_t)-1;
		for (j = g->first; j < c->npts && hs_same_group(&c->pts[j],
		    p); j++) {
			const struct hist_point	*q = &c->pts[j];

			if (q->run != last) {
				if (last != (size_t)-1)
					fputc('\n', f);
				fprintf(f, "  run %3zu  %-20s  %-28s",
				    q->run + 1, c->runs[q->run].started,
				    hs_labels(&c->runs[q->run]));
				last = q->run;
			}
			if (isfinite(q->ratio))
				fprintf(f, "  %s/%s %.3f [%.3f, %.3f] %s",
				    q->variant, q->reference, q->ratio, q->lo,
				    q->hi, q->verdict);
			else if (strcmp(q->variant, q->reference) != 0)
				fprintf(f, "  %s/%s invalid", q->variant,
				    q->reference);
			if (isfinite(q->typical))
				fprintf(f, "  %s %.4g", q->variant, q->typical);
		}
		if (last != (size_t)-1)
			fputc('\n', f);
		m = 0;
		for (k = 0; k < g->nseries; k++) {
			s = &g->series[k];
			hs_what(what, sizeof what, c, g, s);
			for (j = 0; j < s->ncps; j++) {
				cp = &s->cps[j];
				hs_shift(sh, sizeof sh, cp);
				fprintf(f, "  change at run %zu: %s %s "
				    "(p %.3f); before: run %zu %s; "
				    "after: run %zu %s\n",
				    s->run[cp->at] + 1, what, sh, cp->p,
				    s->run[cp->at - 1] + 1,
				    hs_labels(&c->runs[s->run[cp->at - 1]]),
				    s->run[cp->at] + 1,
				    hs_labels(&c->runs[s->run[cp->at]]));
				m++;
			}
		}
		if (m == 0)
			fprintf(f, "  no change point (%d or more runs on each "
			    "side, permutation test at %.2f)\n", CP_MIN_SEG,
			    CP_ALPHA);
		n += m;
	}
	return (n);
}

/* The trend plot's geometry, in px. */
#define HP_W	1100
#define HP_H	260
#define HP_L	70
#define HP_R	20
#define HP_T	20
#define HP_B	40

static const char *const hs_palette[] = {
	"#e16f24", "#8250df", "#1a7f37", "#bf3989", "#0969da", "#57606a"
};

/* The trend plot's scale: runs 0..nx across, ymin..ymax (span) up. */
struct hs_scale {
	double	ymin, ymax, span;
	size_t	nx;
};

/* Returns the x of run r on the scale sc. */
static double
hs_x(const struct hs_scale *sc, size_t r)
{
	return (HP_L + (double)r * (HP_W - HP_L - HP_R) / (double)sc->nx);
}

/* Returns the y of the ratio v on the scale sc. */
static double
hs_y(const struct hs_scale *sc, double v)
{
	return (HP_T + (sc->ymax - v) * (HP_H - HP_T - HP_B) / sc->span);
}

/* Sets sc to the runs of c and the ratios and intervals of g, padded. */
static void
hs_svg_scale(const struct hs_ctx *c, const struct hs_group *g,
    struct hs_scale *sc)
{
	const struct hs_series	*s;
	const struct hist_point	*p;
	double			 ymin = 1, ymax = 1, span;
	size_t			 k, j;

	for (k = 0; k < g->nseries; k++) {
		s = &g->series[k];
		if (!s->ratio)
			continue;
		for (j = 0; j < s->n; j++) {
			p = &c->pts[s->pt[j]];
			ymin = fmin(ymin, isfinite(p->lo) ? p->lo : p->ratio);
			ymax = fmax(ymax, isfinite(p->hi) ? p->hi : p->ratio);
		}
	}
	span = ymax - ymin;
	if (span < 0.02)
		span = 0.02;
	ymin -= span * 0.05;
	ymax += span * 0.05;
	sc->ymin = ymin;
	sc->ymax = ymax;
	sc->span = ymax - ymin;
	sc->nx = c->nruns > 1 ? c->nruns - 1 : 1;
}

/* Opens the trend plot: its frame, the axes' labels and the line at 1. */
static void
hs_svg_axes(FILE *f, const struct hs_ctx *c, const struct hs_scale *sc)
{
	double	y;
	size_t	j;

	fprintf(f, "<svg class=\"trend\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\" role=\"img\">\n", HP_W, HP_H, HP_W, HP_H);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
	    "fill=\"#f6f8fa\"/>\n", HP_L, HP_T, HP_W - HP_L - HP_R,
	    HP_H - HP_T - HP_B);
	for (j = 0; j <= 4; j++) {
		y = sc->ymin + sc->span * (double)j / 4;
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
		    "text-anchor=\"end\">%.3f</text>\n", HP_L - 6,
		    hs_y(sc, y) + 4, y);
	}
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
	    "stroke=\"#57606a\" stroke-width=\"1\"/>\n", HP_L, HP_W - HP_R,
	    hs_y(sc, 1.0), hs_y(sc, 1.0));
	for (j = 0; j < c->nruns; j++) {
		if (c->nruns > 40 && j % 5 != 0 && j + 1 != c->nruns)
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" "
		    "text-anchor=\"middle\">%zu</text>\n", hs_x(sc, j),
		    HP_H - HP_B + 14, j + 1);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
	    "text-anchor=\"middle\">run</text>\n", (HP_W + HP_L) / 2,
	    HP_H - 6);
}

/* The series s in colour col_s: its interval band, its line and points. */
static void
hs_svg_points(FILE *f, const struct hs_ctx *c, const struct hs_series *s,
    const char *col_s, const struct hs_scale *sc)
{
	const struct hist_point	*p;
	size_t			 j;

	/* The band: lo along, hi back. */
	fprintf(f, "<polygon class=\"band\" fill=\"%s\" "
	    "fill-opacity=\"0.18\" points=\"", col_s);
	for (j = 0; j < s->n; j++) {
		p = &c->pts[s->pt[j]];
		fprintf(f, "%.1f,%.1f ", hs_x(sc, s->run[j]), hs_y(sc,
		    isfinite(p->lo) ? p->lo : p->ratio));
	}
	for (j = s->n; j-- > 0;) {
		p = &c->pts[s->pt[j]];
		fprintf(f, "%.1f,%.1f ", hs_x(sc, s->run[j]), hs_y(sc,
		    isfinite(p->hi) ? p->hi : p->ratio));
	}
	fputs("\"/>\n", f);
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
	    "stroke-width=\"1.5\" points=\"", col_s);
	for (j = 0; j < s->n; j++)
		fprintf(f, "%.1f,%.1f ", hs_x(sc, s->run[j]),
		    hs_y(sc, c->pts[s->pt[j]].ratio));
	fputs("\"/>\n", f);
	for (j = 0; j < s->n; j++) {
		p = &c->pts[s->pt[j]];
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
		    "fill=\"%s\"><title>run %zu ", hs_x(sc, s->run[j]),
		    hs_y(sc, p->ratio), col_s, s->run[j] + 1);
		report_html_esc(f, hs_labels(&c->runs[s->run[j]]));
		fprintf(f, ": %s/%s %.3f [%.3f, %.3f]</title></circle>\n",
		    p->variant, p->reference, p->ratio, p->lo, p->hi);
	}
}

/* Each change point of s as a dashed line, with its run and shift. */
static void
hs_svg_changes(FILE *f, const struct hs_series *s, const struct hs_scale *sc)
{
	double	x;
	size_t	j;

	for (j = 0; j < s->ncps; j++) {
		x = (hs_x(sc, s->run[s->cps[j].at - 1]) +
		    hs_x(sc, s->run[s->cps[j].at])) / 2;
		fprintf(f, "<line class=\"change\" x1=\"%.1f\" "
		    "x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#cf222e\" "
		    "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n"
		    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
		    "fill=\"#cf222e\">change at run %zu: %s x%.3f"
		    "</text>\n", x, x, HP_T, HP_H - HP_B, x + 4,
		    HP_T + 12 + 14 * (int)(j % 4),
		    s->run[s->cps[j].at] + 1, s->variant,
		    exp(s->cps[j].shift));
	}
}

/*
 * One group's trend: per ratio series its interval band, its points and
 * line, the line at 1 and each change point as a dashed line with its run.
 */
static void
hs_svg(FILE *f, const struct hs_ctx *c, const struct hs_group *g)
{
	const struct hs_series	*s;
	struct hs_scale		 sc;
	size_t			 k, col = 0;

	hs_svg_scale(c, g, &sc);
	hs_svg_axes(f, c, &sc);
	for (k = 0; k < g->nseries; k++) {
		const char	*col_s;

		s = &g->series[k];
		if (!s->ratio)
			continue;
		col_s = hs_palette[col++ % (sizeof hs_palette /
		    sizeof hs_palette[0])];
		hs_svg_points(f, c, s, col_s, &sc);
		hs_svg_changes(f, s, &sc);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" "
		    "fill=\"%s\">%s/%s</text>\n",
		    HP_L + 6 + 90 * (int)(col - 1), HP_T - 6, col_s, s->variant,
		    c->pts[g->first].reference);
	}
	fputs("</svg>\n", f);
}

/* history.html's head and its first paragraph: the store and its runs. */
static void
hs_html_head(FILE *f, const char *store, const struct hs_ctx *c)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
	    "\"utf-8\">\n<title>orch history</title>\n<style>\n"
	    "body{margin:0;font:14px/1.5 -apple-system,\"Segoe UI\",Helvetica,"
	    "Arial,sans-serif;color:#1f2328}\n"
	    "main{max-width:1160px;margin:0 auto;padding:24px}\n"
	    "h2{font-size:19px;border-bottom:1px solid #d0d7de;"
	    "margin-top:32px}\n"
	    "table{border-collapse:collapse;margin:8px 0}\n"
	    "td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left}\n"
	    "svg{display:block;max-width:100%;height:auto}\n"
	    "</style>\n</head>\n<body>\n<main>\n<h1>orch history</h1>\n", f);
	fputs("<p>From <code>", f);
	report_html_esc(f, store);
	fprintf(f, "</code>: %zu runs", c->nruns);
	if (c->nruns > 0) {
		fputs(", ", f);
		report_html_esc(f, c->runs[0].started);
		fputs(" to ", f);
		report_html_esc(f, c->runs[c->nruns - 1].started);
	}
	fprintf(f, ". Each plot: the ratio of each variant to the reference "
	    "per run (Hodges–Lehmann estimate) with its interval as a band; "
	    "a dashed red line where the level changed (e-divisive means, "
	    "at least %d runs a side, %d permutations, level %.2f).</p>\n",
	    CP_MIN_SEG, CP_PERMS, CP_ALPHA);
}

/* The change points of group g in a table, or a line that it has none. */
static void
hs_html_changes(FILE *f, const struct hs_ctx *c, const struct hs_group *g)
{
	const struct hs_series	*s;
	const struct cp_point	*cp;
	char			 what[160], sh[96];
	size_t			 k, j, m = 0;

	for (k = 0; k < g->nseries; k++) {
		s = &g->series[k];
		hs_what(what, sizeof what, c, g, s);
		for (j = 0; j < s->ncps; j++) {
			cp = &s->cps[j];
			if (m++ == 0)
				fputs("<table class=\"changes\">\n<tr>"
				    "<th>change at run</th><th>series"
				    "</th><th>shift [95%]</th><th>p"
				    "</th><th>before</th><th>after"
				    "</th></tr>\n", f);
			hs_shift(sh, sizeof sh, cp);
			fprintf(f, "<tr><td>%zu</td><td>", s->run[cp->at] + 1);
			report_html_esc(f, what);
			fprintf(f, "</td><td>%s</td><td>%.3f</td><td>"
			    "run %zu ", sh, cp->p, s->run[cp->at - 1] + 1);
			report_html_esc(f, hs_labels(&c->runs[s->run[cp->at -
			    1]]));
			fprintf(f, "</td><td>run %zu ", s->run[cp->at] + 1);
			report_html_esc(f, hs_labels(&c->runs[s->run[cp->at]]));
			fputs("</td></tr>\n", f);
		}
	}
	fputs(m > 0 ? "</table>\n" : "<p>No change point.</p>\n", f);
}

/* One group's section of history.html: its names, plot and changes. */
static void
hs_html_group(FILE *f, const struct hs_ctx *c, const struct hs_group *g)
{
	const struct hist_point	*p = &c->pts[g->first];

	fputs("<section>\n<h2>", f);
	report_html_esc(f, p->host);
	fputs(" · ", f);
	report_html_esc(f, p->bench);
	fputs(" · ", f);
	report_html_esc(f, p->metric);
	fputs("</h2>\n<p>", f);
	report_html_esc(f, p->arch);
	fputs(" · ", f);
	report_html_esc(f, p->cpu);
	fputs("</p>\n", f);
	hs_svg(f, c, g);
	hs_html_changes(f, c, g);
	fputs("</section>\n", f);
}

/* Each move of a host between Slurm nodes, as under the head. */
static void
hs_html_moves(FILE *f, const struct hs_ctx *c)
{
	const struct hs_move	*m;
	size_t			 i;

	for (i = 0; i < c->nmoves; i++) {
		m = &c->moves[i];
		fputs("<p class=\"warning\">warning: host <code>", f);
		report_html_esc(f, m->host);
		fputs("</code> ran on node <code>", f);
		report_html_esc(f, m->from);
		fprintf(f, "</code> in run %zu and on node <code>",
		    m->run_from + 1);
		report_html_esc(f, m->to);
		fprintf(f, "</code> in run %zu: its series compares different "
		    "machines</p>\n", m->run_to + 1);
	}
}

/* What hs_html_write writes: the query's context and the store's path. */
struct hs_html_arg {
	const char		*store;
	const struct hs_ctx	*c;
};

/* history.html's text, through file_write: 0, or -1 (errno). */
static int
hs_html_write(const void *v, FILE *f)
{
	const struct hs_html_arg	*a = v;
	const struct hs_ctx		*c = a->c;
	size_t				 i;

	hs_html_head(f, a->store, c);
	hs_html_moves(f, c);
	if (c->ngroups == 0)
		fputs("<p>No run matches.</p>\n", f);
	for (i = 0; i < c->ngroups; i++)
		hs_html_group(f, c, &c->groups[i]);
	fputs("<section>\n<h2>Runs</h2>\n<table>\n<tr><th>run</th><th>id"
	    "</th><th>started</th><th>labels</th></tr>\n", f);
	for (i = 0; i < c->nruns; i++) {
		fprintf(f, "<tr><td>%zu</td><td>", i + 1);
		report_html_esc(f, c->runs[i].run_id);
		fputs("</td><td>", f);
		report_html_esc(f, c->runs[i].started);
		fputs("</td><td>", f);
		report_html_esc(f, c->runs[i].labels);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</section>\n</main>\n</body>\n</html>\n", f);
	return (ferror(f) ? -1 : 0);
}

/*
 * history.html: per group its plot, then its change points in a table,
 * written through the one writer (a new 0600 temporary beside path,
 * renamed into place: a link planted at the name or its temporary is
 * never written through).
 */
static int
hs_html(const char *path, const char *store, const struct hs_ctx *c,
    char **cause)
{
	struct hs_html_arg	 a = { store, c };
	char			*dir, *slash;
	const char		*name;
	int			 r;

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL) {
		name = path;
		free(dir);
		dir = xstrdup(".");
	} else {
		name = path + (slash - dir) + 1;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (*name == '\0') {
		xasprintf(cause, "%s: not a file name", path);
		free(dir);
		return (-1);
	}
	r = file_write(dir, name, hs_html_write, &a, cause);
	free(dir);
	return (r);
}

int
history_main(const struct history_opts *o)
{
	struct history	*h = NULL;
	struct hs_ctx	 c;
	const char	*reports = o->reports != NULL ? o->reports : "reports";
	char		*store, *html, *cause = NULL;
	size_t		 n;
	int		 r = 2;

	memset(&c, 0, sizeof c);
	xasprintf(&store, "%s/%s", reports, HISTORY_FILE);
	if (o->out != NULL)
		html = xstrdup(o->out);
	else
		xasprintf(&html, "%s/history.html", reports);
	if (history_open(store, 0, &h, NULL, &cause) != 0 ||
	    history_query(h, &o->f, &c.runs, &c.nruns, &c.pts, &c.npts,
	    &cause) != 0 || hs_build(&c, &o->f, &cause) != 0)
		goto out;
	hs_moves(&c, &o->f);
	if (c.ngroups == 0) {
		xasprintf(&cause, "%s: no run matches (%zu run%s%s)", store,
		    c.nruns, c.nruns == 1 ? "" : "s", c.nruns > 0 ?
		    " since the date, none with that host, bench, metric and "
		    "variant" : "");
		goto out;
	}
	if (!o->quiet) {
		printf("history: %s: %zu runs, %s to %s\n", store, c.nruns,
		    c.runs[0].started, c.runs[c.nruns - 1].started);
		hs_print_moves(stdout, &c);
		n = hs_print(stdout, &c);
		printf("\n%zu change point%s\n", n, n == 1 ? "" : "s");
	}
	if (hs_html(html, store, &c, &cause) != 0)
		goto out;
	printf("history: %s\n", html);
	r = 0;
out:
	if (cause != NULL) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
	}
	hs_free(&c);
	history_close(h);
	free(store);
	free(html);
	return (r);
}

int
history_index_main(const char *reports, int rebuild, char **dirs,
    size_t ndirs)
{
	struct history	*h = NULL;
	char		*store = NULL, *other, *cause = NULL;
	size_t		 i, n = 0, nbad = 0;
	int		 rebuilt = 0, r = 2;

	if (reports != NULL)
		xasprintf(&store, "%s/%s", reports, HISTORY_FILE);
	else if (rebuild)
		xasprintf(&store, "reports/%s", HISTORY_FILE);
	for (i = 0; reports == NULL && !rebuild && i < ndirs; i++) {
		other = history_path_of(dirs[i]);
		if (i == 0) {
			store = other;
			continue;
		}
		/* The same store for every run, or say which to use. */
		if (strcmp(other, store) != 0) {
			xasprintf(&cause, "%s and %s are in different reports "
			    "directories: give --reports=DIR", dirs[0],
			    dirs[i]);
			free(other);
			goto out;
		}
		free(other);
	}
	if (store == NULL)
		store = history_path_of(dirs[0]);
	if (history_open(store, 1, &h, &rebuilt, &cause) != 0)
		goto out;
	if (rebuilt)
		fprintf(stderr, "orch: %s had an older schema: rebuilt at "
		    "version %d\n", store, HISTORY_SCHEMA);
	if (ndirs > 0 && report_index_list(h, dirs, ndirs, &cause) != 0)
		goto out;
	if (rebuild || rebuilt) {
		char	*rdir = xstrdup(store), *slash = strrchr(rdir, '/');

		if (slash == NULL) {
			free(rdir);
			rdir = xstrdup(".");
		} else
			*slash = '\0';
		if (report_index_rebuild(h, rdir, &n, &nbad, &cause) != 0) {
			free(rdir);
			goto out;
		}
		free(rdir);
		/* A named run beside the store was indexed again by it. */
		for (i = 0; i < ndirs && n > 0; i++) {
			other = history_path_of(dirs[i]);
			if (strcmp(other, store) == 0)
				n--;
			free(other);
		}
	}
	printf("index: %s: %zu run%s indexed%s\n", store, ndirs + n,
	    ndirs + n == 1 ? "" : "s", nbad > 0 ? " (some skipped: above)" :
	    "");
	r = 0;
out:
	if (cause != NULL) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
	}
	history_close(h);
	free(store);
	return (r);
}
