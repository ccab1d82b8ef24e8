/*
 * Sweeps in the report (see report-sweep.h): where along a parameter a
 * variant starts to win, as one table or one picture per host.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/input/suite.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-sweep.h"
#include "coordinator/report/report-text.h"
#include "proto/xmalloc.h"

/* One sweep: its benchmarks in the record, in the suite's order. */
struct sw_sweep {
	const char	 *base;		/* the [bench.NAME] with params = */
	size_t		  n;
	size_t		 *bench;	/* [n]: index into the dataset */
	const char	**point;	/* [n]: "size=1e3 threads=4" */
};

struct sw_set {
	const struct suite *s;		/* the recorded suite, names only */
	size_t		 n;
	struct sw_sweep	*sw;
};

/* The plot's geometry, in px. */
#define SW_W		720
#define SW_H		300
#define SW_L		70
#define SW_R		150	/* the legend of hosts */
#define SW_T		20
#define SW_B		60

/* Colours of the hosts. */
static const char *const sw_palette[] = {
	"#0969da", "#e16f24", "#8250df", "#1a7f37", "#bf3989", "#57606a"
};

static void
sw_free(struct sw_set *set)
{
	size_t	i;

	for (i = 0; i < set->n; i++) {
		free(set->sw[i].bench);
		free(set->sw[i].point);
	}
	free(set->sw);
}

/*
 * Finds the sweeps of the record's suite whose benchmarks the record
 * holds. A suite text that does not parse (an older or a damaged record)
 * has none: the rest of the report does not need them.
 */
static void
sw_find(const struct dataset *ds, struct sw_set *set)
{
	const struct suite_bench	*sb;
	struct sw_sweep			*w;
	size_t				 i, j, b;

	memset(set, 0, sizeof *set);
	if ((set->s = ds->suite) == NULL)
		return;
	for (i = 0; i < set->s->nbenches; i++) {
		sb = &set->s->benches[i];
		if (sb->sweep[0] == '\0' || sb->point == NULL)
			continue;
		for (b = 0; b < ds->nbenches; b++) {
			if (strcmp(ds->benches[b].name, sb->name) == 0)
				break;
		}
		if (b == ds->nbenches)
			continue;
		for (j = 0; j < set->n; j++) {
			if (strcmp(set->sw[j].base, sb->sweep) == 0)
				break;
		}
		if (j == set->n) {
			set->sw = xreallocarray(set->sw, set->n + 1,
			    sizeof *set->sw);
			memset(&set->sw[set->n], 0, sizeof *set->sw);
			set->sw[set->n++].base = sb->sweep;
		}
		w = &set->sw[j];
		w->bench = xreallocarray(w->bench, w->n + 1, sizeof *w->bench);
		w->point = xreallocarray(w->point, w->n + 1, sizeof *w->point);
		w->bench[w->n] = b;
		w->point[w->n++] = sb->point;
	}
}

/* Returns 1 if c has a ratio and interval to draw. */
static int
sw_drawable(const struct rep_cmp *c)
{
	return (c != NULL && c->verdict != VERDICT_INVALID &&
	    isfinite(c->ratio) && isfinite(c->lo) && isfinite(c->hi) &&
	    c->lo > 0 && c->hi > 0 && c->ratio > 0);
}

/* Writes "0.932 [0.910, 0.951] better" or "invalid" for c. */
static void
sw_cell(FILE *f, const struct rep_cmp *c)
{
	if (c == NULL)
		fputs("no result", f);
	else if (!sw_drawable(c))
		fputs(stats_verdict_name(c->verdict), f);
	else
		fprintf(f, "%.3f [%.3f, %.3f] %s", c->ratio, c->lo, c->hi,
		    stats_verdict_name(c->verdict));
}

void
report_sweep_md(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct sw_sweep	*w;
	struct sw_set		 set;
	size_t			 i, v, k, h;

	sw_find(ds, &set);
	if (set.n == 0 || a->nhosts == 0)
		goto out;
	fputs("## Sweeps\n\nEach benchmark with `params =`: the primary "
	    "metric's ratio = variant / reference (median of per-round "
	    "paired ratios) [95% interval] and verdict at each point, one "
	    "column per host.\n\n", f);
	for (i = 0; i < set.n; i++) {
		w = &set.sw[i];
		for (v = 0; v < ds->nvariants; v++) {
			if (v == ds->ref)
				continue;
			fprintf(f, "### `%s`: %s / %s (%s)\n\n| point |",
			    w->base, ds->variants[v], ds->variants[ds->ref],
			    ds->benches[w->bench[0]].metrics[0]);
			for (h = 0; h < a->nhosts; h++)
				fprintf(f, " `%s` |",
				    ds->hosts[a->hosts[h].host].name);
			fputs("\n|---|", f);
			for (h = 0; h < a->nhosts; h++)
				fputs("---|", f);
			fputc('\n', f);
			for (k = 0; k < w->n; k++) {
				fprintf(f, "| %s |", w->point[k]);
				for (h = 0; h < a->nhosts; h++) {
					fputc(' ', f);
					sw_cell(f, analysis_cmp(a,
					    a->hosts[h].host, w->bench[k], 0,
					    v));
					fputs(" |", f);
				}
				fputc('\n', f);
			}
			fputc('\n', f);
		}
	}
out:
	sw_free(&set);
}

/* The y range of a plot: every drawable interval, 1 and 1 ± min_effect. */
static void
sw_scale(const struct analysis *a, const struct sw_sweep *w, size_t v,
    double *lo, double *hi)
{
	const struct rep_cmp	*c;
	double			 pad;
	size_t			 k, h;

	*lo = 1 - a->ds->min_effect;
	*hi = 1 + a->ds->min_effect;
	for (k = 0; k < w->n; k++) {
		for (h = 0; h < a->nhosts; h++) {
			c = analysis_cmp(a, a->hosts[h].host, w->bench[k],
			    0, v);
			if (!sw_drawable(c))
				continue;
			if (c->lo < *lo)
				*lo = c->lo;
			if (c->hi > *hi)
				*hi = c->hi;
		}
	}
	if (!(*lo > 0) || !(*lo < 1))
		*lo = 0.99;
	if (!(*hi > 1))
		*hi = 1.01;
	pad = (log(*hi) - log(*lo)) * 0.08;
	*lo = exp(log(*lo) - pad);
	*hi = exp(log(*hi) + pad);
}

/* Maps a ratio to y on the log scale [lo, hi]. */
static double
sw_y(double r, double lo, double hi)
{
	return (SW_H - SW_B - (log(r) - log(lo)) / (log(hi) - log(lo)) *
	    (SW_H - SW_T - SW_B));
}

/* Maps point k of n to x. */
static double
sw_x(size_t k, size_t n)
{
	if (n < 2)
		return ((SW_L + SW_W - SW_R) / 2.0);
	return (SW_L + 20 + (double)k / (double)(n - 1) *
	    (SW_W - SW_R - SW_L - 40));
}

/*
 * Writes the y axis's labels: 1, then nice ratios outwards from it, each
 * at least 16 px from the last one drawn on its side.
 */
static void
sw_ticks(FILE *f, double lo, double hi)
{
	static const double	nice[] = {
		0.1, 0.2, 0.25, 0.5, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 1,
		1.01, 1.02, 1.05, 1.1, 1.2, 1.25, 1.5, 2, 4, 5, 10
	};
	const long		one = 10, n = sizeof nice / sizeof nice[0];
	double			y, last;
	long			i, dir;

	for (dir = -1; dir <= 1; dir += 2) {
		last = dir < 0 ? -1000 : 1000;
		for (i = one; i >= 0 && i < n; i += dir) {
			if (nice[i] < lo || nice[i] > hi)
				continue;
			y = sw_y(nice[i], lo, hi);
			if (i != one && fabs(y - last) < 16)
				continue;
			last = y;
			if (i == one && dir > 0)
				continue;	/* 1 is written once */
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			    "y2=\"%.1f\" stroke=\"#8c959f\"/><text x=\"%d\" "
			    "y=\"%.1f\" text-anchor=\"end\" class=\"dim\">%g"
			    "</text>\n", SW_L - 4, y, SW_L, y, SW_L - 6, y + 4,
			    nice[i]);
		}
	}
}

/* The frame of a plot: the band of "same", 1, the axes and their labels. */
static void
sw_frame(FILE *f, const struct analysis *a, const struct sw_sweep *w,
    double lo, double hi)
{
	double	me = a->ds->min_effect, y0, y1;
	size_t	k;

	y0 = sw_y(1 + me, lo, hi);
	y1 = sw_y(1 - me > lo ? 1 - me : lo, lo, hi);
	fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
	    "fill=\"#eaeef2\"/>\n", SW_L, y0, SW_W - SW_R - SW_L, y1 - y0);
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
	    "stroke=\"#57606a\" stroke-width=\"1.2\"/>\n", SW_L,
	    sw_y(1, lo, hi), SW_W - SW_R, sw_y(1, lo, hi));
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#8c959f\"/>\n", SW_L, SW_T, SW_L, SW_H - SW_B);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#8c959f\"/>\n", SW_L, SW_H - SW_B, SW_W - SW_R,
	    SW_H - SW_B);
	sw_ticks(f, lo, hi);
	for (k = 0; k < w->n; k++) {
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
		    "class=\"mono\">", sw_x(k, w->n), SW_H - SW_B + 18);
		report_html_esc(f, w->point[k]);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"dim\">ratio (log "
	    "scale); shaded: 1 ± min_effect %g</text>\n", SW_L, SW_T - 6,
	    me);
}

/* One host's series: a line through its ratios, each with its interval. */
static void
sw_series(FILE *f, const struct analysis *a, const struct sw_sweep *w,
    size_t v, size_t h, double lo, double hi)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c;
	const char		*col = sw_palette[h % 6];
	double			 x, dx = ((double)h -
	    (double)(a->nhosts - 1) / 2.0) * 4;
	size_t			 k;
	int			 open = 0;

	for (k = 0; k < w->n; k++) {
		c = analysis_cmp(a, a->hosts[h].host, w->bench[k], 0, v);
		if (!sw_drawable(c))
			continue;
		x = sw_x(k, w->n) + dx;
		fprintf(f, "%s%.1f,%.1f", open ? " " :
		    "<polyline fill=\"none\" "
		    "stroke-width=\"1.5\" points=\"", x,
		    sw_y(c->ratio, lo, hi));
		open = 1;
	}
	if (open)
		fprintf(f, "\" stroke=\"%s\"/>\n", col);
	for (k = 0; k < w->n; k++) {
		c = analysis_cmp(a, a->hosts[h].host, w->bench[k], 0, v);
		x = sw_x(k, w->n) + dx;
		if (!sw_drawable(c)) {
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"middle\" fill=\"%s\">×<title>", x,
			    sw_y(1, lo, hi) + 4, col);
		} else {
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
			    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			    "fill=\"%s\"><title>", x, sw_y(c->lo, lo, hi), x,
			    sw_y(c->hi, lo, hi), col, x, sw_y(c->ratio, lo,
			    hi), col);
		}
		report_html_esc(f, ds->hosts[a->hosts[h].host].name);
		fputs(", ", f);
		report_html_esc(f, w->point[k]);
		fputs(": ", f);
		sw_cell(f, c);
		fputs(sw_drawable(c) ? "</title></circle>\n" :
		    "</title></text>\n", f);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"10\" height=\"10\" "
	    "fill=\"%s\"/><text x=\"%d\" y=\"%.0f\" class=\"mono\">",
	    SW_W - SW_R + 16, SW_T + 16.0 * (double)h, col, SW_W - SW_R + 32,
	    SW_T + 9 + 16.0 * (double)h);
	report_html_esc(f, ds->hosts[a->hosts[h].host].name);
	fputs("</text>\n", f);
}

void
report_sweep_html(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct sw_sweep	*w;
	struct sw_set		 set;
	double			 lo, hi;
	size_t			 i, v, h;

	sw_find(ds, &set);
	if (set.n == 0 || a->nhosts == 0)
		goto out;
	fputs("<section id=\"sweeps\">\n<h2>Sweeps</h2>\n<p>Each benchmark "
	    "with <code>params =</code>: the primary metric's ratio = variant "
	    "/ reference (median of per-round paired ratios) and its 95% "
	    "interval at each point of the sweep, one line per host. A point "
	    "below the shaded band is lower than the reference there; × marks "
	    "a point with no valid ratio.</p>\n", f);
	for (i = 0; i < set.n; i++) {
		w = &set.sw[i];
		for (v = 0; v < ds->nvariants; v++) {
			if (v == ds->ref)
				continue;
			sw_scale(a, w, v, &lo, &hi);
			fputs("<h3><code>", f);
			report_html_esc(f, w->base);
			fputs("</code>: ", f);
			report_html_esc(f, ds->variants[v]);
			fputs(" / ", f);
			report_html_esc(f, ds->variants[ds->ref]);
			fputs(" (", f);
			report_html_esc(f, ds->benches[w->bench[0]].metrics[0]);
			fputs(")</h3>\n", f);
			fprintf(f, "<figure><svg class=\"sweep\" width=\"%d\" "
			    "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
			    "aria-label=\"ratio against the sweep's "
			    "points\">\n",
			    SW_W, SW_H, SW_W, SW_H);
			sw_frame(f, a, w, lo, hi);
			for (h = 0; h < a->nhosts; h++)
				sw_series(f, a, w, v, h, lo, hi);
			fputs("</svg></figure>\n", f);
		}
	}
	fputs("</section>\n", f);
out:
	sw_free(&set);
}

/* Writes point "n=1000 threads=4" as {"n": "1000", "threads": "4"}. */
static void
sw_json_params(FILE *f, const char *point)
{
	char	*copy, *item, *save = NULL, *eq;
	int	 first = 1;

	copy = xstrdup(point);
	fputc('{', f);
	/* Names and values have no blank and no '=' (suite.c checks). */
	for (item = strtok_r(copy, " ", &save); item != NULL;
	    item = strtok_r(NULL, " ", &save)) {
		if ((eq = strchr(item, '=')) == NULL)
			continue;
		*eq = '\0';
		fputs(first ? "" : ", ", f);
		json_str(f, item);
		fputs(": ", f);
		json_str(f, eq + 1);
		first = 0;
	}
	fputc('}', f);
	free(copy);
}

void
report_sweep_json(FILE *f, const struct analysis *a)
{
	const struct sw_sweep	*w;
	struct sw_set		 set;
	size_t			 i, k;

	sw_find(a->ds, &set);
	if (set.n == 0)
		goto out;
	fputs("  \"sweeps\": [", f);
	for (i = 0; i < set.n; i++) {
		w = &set.sw[i];
		fputs(i ? ",\n    {\"bench\": " : "\n    {\"bench\": ", f);
		json_str(f, w->base);
		fputs(", \"points\": [", f);
		for (k = 0; k < w->n; k++) {
			fputs(k ? ", {\"bench\": " : "{\"bench\": ", f);
			json_str(f, a->ds->benches[w->bench[k]].name);
			fputs(", \"params\": ", f);
			sw_json_params(f, w->point[k]);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("\n  ],\n", f);
out:
	sw_free(&set);
}
