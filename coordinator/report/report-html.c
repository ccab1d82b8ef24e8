/*
 * report.html: one self-contained page (inline CSS and SVG, no scripts, no
 * fetches) with the sections of report.md, a forest plot of the ratios per
 * architecture and each benchmark's samples by round. Every number is
 * printed with a fixed format, so re-rendering gives the same bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/report/report-claims.h"
#include "coordinator/report/report-layout.h"
#include "coordinator/report/report-machines.h"
#include "coordinator/report/report-sweep.h"
#include "coordinator/report/report-text.h"
#include "coordinator/report/report.h"
#include "proto/xmalloc.h"

/* Colours of the verdicts, in enum stats_verdict order. */
static const char *const html_vcolour[] = {
	"#1a7f37", "#cf222e", "#0969da", "#9a6700", "#6e7781"
};

/* Colours of the variants: the reference first. */
static const char *const html_palette[] = {
	"#0969da", "#e16f24", "#8250df", "#1a7f37", "#bf3989", "#57606a"
};

/* The forest plot's geometry, in px. */
#define FP_W		1100
#define FP_LABEL	330	/* left column: what the row compares */
#define FP_X0		340
#define FP_X1		770
#define FP_TEXT		790	/* right column: numbers and verdict */
#define FP_ROW		24
#define FP_TOP		30
#define FP_AXIS		44

/* The rounds plot's geometry, in px. */
#define RP_W		1100
#define RP_H		250
#define RP_L		92
#define RP_R		20
#define RP_T		34
#define RP_B		40
/*
 * Past this many rounds a dot per round only overdraws (and a million
 * samples made a 110 MB page): consecutive rounds are drawn in bins.
 */
#define RP_MAXDOTS	400

static const char html_css[] =
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:#fff;color:#1f2328;font:14px/1.5 -apple-system,"
    "BlinkMacSystemFont,\"Segoe UI\",\"Noto Sans\",Helvetica,Arial,"
    "sans-serif}\n"
    "main{max-width:1240px;margin:0 auto;padding:24px 28px 48px}\n"
    "h1{font-size:26px;margin:0 0 4px}\n"
    "h2{font-size:21px;margin:36px 0 12px;padding-bottom:6px;"
    "border-bottom:1px solid #d0d7de}\n"
    "h3{font-size:17px;margin:26px 0 8px}\n"
    "h4{font-size:15px;margin:22px 0 6px}\n"
    "code,pre{font-family:ui-monospace,SFMono-Regular,\"SF Mono\",Menlo,"
    "Consolas,\"Liberation Mono\",monospace;font-size:12.5px}\n"
    "code{background:#f6f8fa;padding:1px 4px;border-radius:4px}\n"
    "pre{background:#f6f8fa;padding:12px;border-radius:6px;overflow:auto}\n"
    ".meta{color:#57606a;margin:0 0 16px}\n"
    ".banner{border-left:4px solid #cf222e;background:#fff5f5;"
    "padding:8px 14px;margin:12px 0;border-radius:0 6px 6px 0}\n"
    ".banner.warn{border-color:#9a6700;background:#fff8c5}\n"
    ".banner ul{margin:4px 0 0;padding-left:20px}\n"
    ".note{border-left:4px solid #0969da;background:#f1f8ff;"
    "padding:6px 14px;margin:10px 0;border-radius:0 6px 6px 0}\n"
    ".small{color:#57606a;font-size:12.5px}\n"
    "ul.answers{list-style:none;padding:0;margin:0}\n"
    "ul.answers li{margin:0 0 10px;padding:10px 14px;border:1px solid "
    "#d0d7de;border-radius:6px}\n"
    "ul.answers .head{font-size:16px;font-weight:600}\n"
    ".scroll{overflow-x:auto}\n"
    "table{border-collapse:collapse;margin:8px 0 14px;font-size:13px}\n"
    "th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#f6f8fa;font-weight:600}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}\n"
    "td.c{white-space:nowrap}\n"
    "table.matrix td.c{white-space:normal;min-width:140px}\n"
    ".r{white-space:nowrap;font-variant-numeric:tabular-nums}\n"
    "tr.primary td:first-child{font-weight:600}\n"
    ".v{display:inline-block;padding:0 7px;border-radius:10px;"
    "font-weight:600;font-size:12px;line-height:18px;white-space:nowrap}\n"
    ".v-better{background:#dafbe1;color:#116329}\n"
    ".v-worse{background:#ffebe9;color:#a40e26}\n"
    ".v-same{background:#ddf4ff;color:#0a3069}\n"
    ".v-inconclusive{background:#fff8c5;color:#7d4e00}\n"
    ".v-invalid{background:#eaeef2;color:#424a53}\n"
    ".aa{display:inline-block;margin-top:2px;font-size:11.5px;"
    "color:#6639ba;font-weight:600}\n"
    ".differs{color:#a40e26;font-weight:600}\n"
    "td.agree{min-width:240px;font-size:12.5px}\n"
    "tr.flag td.agree{background:#fff5f5}\n"
    ".why{color:#57606a;font-size:12px}\n"
    "figure{margin:8px 0 18px}\n"
    "figcaption{color:#57606a;font-size:12.5px}\n"
    "svg{display:block;max-width:100%;height:auto}\n"
    "svg text{font-family:-apple-system,BlinkMacSystemFont,\"Segoe UI\","
    "\"Noto Sans\",Helvetica,Arial,sans-serif;font-size:12px;fill:#1f2328}\n"
    "svg text.dim{fill:#57606a}\n"
    "svg text.mono{font-family:ui-monospace,Menlo,Consolas,\"Liberation "
    "Mono\",monospace;font-size:11.5px}\n"
    "details{margin:10px 0}\n"
    "summary{cursor:pointer;font-weight:600}\n"
    "footer{margin-top:40px;color:#57606a;font-size:12px}\n";

/* Writes at most max (> 0) characters of s, escaped, "…" ending a cut. */
static void
html_esc_cut(FILE *f, const char *s, size_t max)
{
	char	*copy;
	size_t	 n = 0, i, keep = 0;

	/* Count UTF-8 characters, not bytes, and cut between them. */
	for (i = 0; s[i] != '\0'; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (n == max - 1)
			keep = i;
		n++;
	}
	if (n <= max) {
		report_html_esc(f, s);
		return;
	}
	copy = xmalloc(keep + 1);
	memcpy(copy, s, keep);
	copy[keep] = '\0';
	report_html_esc(f, copy);
	fputs("…", f);
	free(copy);
}

/* Writes the last line of a run's stderr: up to 200 characters, escaped. */
static void
html_err_tail(FILE *f, const char *s, size_t len)
{
	char	*tail;

	tail = xmalloc(len + 1);
	memcpy(tail, s, len);
	tail[len] = '\0';
	html_esc_cut(f, tail, 200);
	free(tail);
}

/* Writes a verdict badge, with the size of the effect when proven. */
static void
html_badge(FILE *f, enum stats_verdict v, double ratio)
{
	fprintf(f, "<span class=\"v v-%s\">%s", stats_verdict_name(v),
	    stats_verdict_name(v));
	if ((v == VERDICT_BETTER || v == VERDICT_WORSE) && isfinite(ratio))
		fprintf(f, " %+.1f%%", (ratio - 1) * 100);
	fputs("</span>", f);
}

static const struct report_fmt html_fmt = {
	.text = report_html_esc,
	.name = report_html_esc,
	.code_open = "<code>", .code_close = "</code>",
	.bold_open = "<b>", .bold_close = "</b>",
	.item_open = "<li>", .item_close = "</li>\n",
	.para_open = "<p>", .para_close = "</p>\n",
	.note_open = "<div class=\"note\">", .note_close = "</div>\n",
	.small_open = "<p class=\"small\">",
	.list_open = "<ul>\n", .list_close = "</ul>\n",
	.stops_open = "<ul class=\"stops\">\n",
	.alert_open = "<div class=\"banner\">", .alert_close = "</div>\n",
	.prose = report_html_esc,
	.table_open = "<div class=\"scroll\"><table>\n",
	.table_close = "</table></div>\n",
	.head_open = "<tr>", .th_open = "<th>", .th_close = "</th>",
	.head_close = "</tr>\n",
	.rule_open = "", .rule_left = "", .rule_right = "", .rule_close = "",
	.row_open = "<tr>", .row_close = "</tr>\n",
	.cell_open = "<td>", .num_open = "<td class=\"n\">",
	.cell_close = "</td>",
	.cell_code_open = "<code>", .cell_code_close = "</code>",
	.failed_open = "<span class=\"v v-worse\">", .failed_close = "</span> ",
	.verdict = html_badge,
	.ratio_open = "<span class=\"r\">", .ratio_close = "</span>",
	.why_open = "<span class=\"why\">", .aa_open = "<span class=\"aa\">",
	.aside_close = "</span>",
	.reason_open = "<span class=\"why\">", .reason_close = "</span>",
	.answers_open = "<section id=\"answer\">\n<h2>Answer</h2>\n"
	    "<ul class=\"answers\">\n",
	.answers_close = "</ul>\n",
	.lead_open = "<span class=\"head\">", .lead_close = "</span> ",
	.verdict_open = "<span class=\"v v-",
	.verdict_mid = "\" style=\"font-size:14px;white-space:normal\">",
	.verdict_close = "</span>",
	.detail_open = "<br><span class=\"small\">", .detail_close = "</span>",
	.section_close = "</section>\n",
	.warn_open = "<div class=\"banner warn\">", .warn_close = "</div>\n",
	.banner_open = "<div class=\"banner\">", .banner_list = "<ul>\n",
	.banner_item = "<li>", .banner_close = "</ul></div>\n",
	.fail_open = "<h4>", .fail_close = "</h4>\n",
	.more_open = "<tr><td colspan=\"7\">… ", .more_close = "</td></tr>\n",
	.err_tail = html_err_tail,
};

/* Returns the colour of variant v. */
static const char *
html_vcol(const struct dataset *ds, size_t v)
{
	size_t	k = v == ds->ref ? 0 : 1 + v - (v > ds->ref);

	return (html_palette[k % (sizeof html_palette /
	    sizeof html_palette[0])]);
}

/* ---- across architectures ---------------------------------------------- */

/* The benchmark × host matrix, hosts grouped under their architecture. */
static void
html_matrix(FILE *f, const struct analysis *a, size_t ncols)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	const struct rep_row	*row;
	size_t			 i, j;

	fputs("<div class=\"scroll\"><table class=\"matrix\">\n<tr><th rowspan"
	    "=\"2\">bench</th><th rowspan=\"2\">metric</th><th rowspan=\"2\">"
	    "variant</th>", f);
	for (i = 0; i < a->ngroups; i++) {
		g = &a->groups[i];
		if (!g->known)
			continue;
		fprintf(f, "<th colspan=\"%zu\">", g->to - g->from);
		report_html_esc(f, g->label);
		fputs("</th>", f);
	}
	if (ncols > 1)
		fputs("<th rowspan=\"2\">agreement</th>", f);
	fputs("</tr>\n<tr>", f);
	for (i = 0; i < a->nhosts; i++) {
		if (!a->groups[a->hosts[i].group].known)
			continue;
		fputs("<th><code>", f);
		report_html_esc(f, ds->hosts[a->hosts[i].host].name);
		fputs("</code></th>", f);
	}
	fputs("</tr>\n", f);
	for (j = 0; j < a->nrows; j++) {
		row = &a->rows[j];
		fputs(row->differs ? "<tr class=\"flag\"><td><code>" :
		    "<tr><td><code>", f);
		report_html_esc(f, ds->benches[row->bench].name);
		fputs("</code></td><td>", f);
		report_html_esc(f, ds->benches[row->bench].metrics[0]);
		fputs("</td><td>", f);
		report_html_esc(f, ds->variants[row->variant]);
		fputs("</td>", f);
		for (i = 0; i < a->nhosts; i++) {
			if (!a->groups[a->hosts[i].group].known)
				continue;
			fputs("<td class=\"c\">", f);
			report_text_matrix_cell(f, &html_fmt, analysis_cmp(a,
			    a->hosts[i].host, row->bench, 0, row->variant));
			fputs("</td>", f);
		}
		if (ncols > 1) {
			fputs("<td class=\"agree\">", f);
			if (row->differs)
				fputs("<span class=\"differs\">⚠ differs:"
				    "</span> ", f);
			report_html_esc(f, row->agreement);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

/* The geometric means per architecture group and variant. */
static void
html_geomeans(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct rep_geo	*geo;
	const struct rep_group	*g;
	size_t			 i, j;

	report_text_geo_intro(f, &html_fmt, a, ".");
	fputs("<div class=\"scroll\"><table>\n<tr><th>architecture</th><th>"
	    "hosts</th><th>variant</th><th>comparisons</th><th>geomean [CI]"
	    "</th><th>verdict</th><th>per comparison</th></tr>\n", f);
	for (i = 0; i < a->ngeos; i++) {
		geo = &a->geos[i];
		g = &a->groups[geo->group];
		fputs("<tr><td>", f);
		report_html_esc(f, g->label);
		fputs("</td><td>", f);
		for (j = g->from; j < g->to; j++) {
			if (j > g->from)
				fputs(", ", f);
			report_html_esc(f, ds->hosts[a->hosts[j].host].name);
		}
		fputs("</td><td>", f);
		report_html_esc(f, ds->variants[geo->variant]);
		fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">",
		    geo->nused);
		report_text_interval(f, geo->est, geo->lo, geo->hi,
		    geo->nused > 0);
		fputs("</td><td class=\"c\">", f);
		html_badge(f, geo->verdict, geo->est);
		if (geo->aa)
			report_text_aa(f, &html_fmt);
		fputs("</td><td>", f);
		report_text_geo_counts(f, geo);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

/* ---- the forest plot ---------------------------------------------------- */

struct fp_row {
	const struct rep_cmp	*c;		/* NULL: a geometric mean */
	const struct rep_geo	*geo;
};

/* Maps a ratio to x on the log scale [lo, hi]. */
static double
fp_x(double r, double lo, double hi)
{
	const struct report_scale	sc = { lo, hi, FP_X0, FP_X1 };

	return (report_scale_x(&sc, r));
}

/* Writes the ticks of the log axis: nice ratios, kept apart by 44 px. */
static void
fp_ticks(FILE *f, double lo, double hi, double ybase)
{
	static const double		 nice[] = {
		0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9,
		0.95, 0.97, 0.98, 0.99, 0.995, 1, 1.005, 1.01, 1.02, 1.03,
		1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.4, 1.5, 1.75, 2, 2.5, 3, 4,
		5, 7.5, 10
	};
	const struct report_scale	 sc = { lo, hi, FP_X0, FP_X1 };

	report_scale_ticks(f, &sc, nice, sizeof nice / sizeof nice[0], 17,
	    ybase);
}

/*
 * Fills rows with every primary comparison of group gi (by bench, variant,
 * host), then its geometric means. Returns the number of rows; *ngeo gets
 * that of the means.
 */
static size_t
fp_rows(const struct analysis *a, size_t gi, struct fp_row *rows,
    size_t *ngeo)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g = &a->groups[gi];
	const struct rep_cmp	*c;
	const struct rep_geo	*geo;
	size_t			 n = 0, i, b, v;

	*ngeo = 0;
	for (b = 0; b < ds->nbenches; b++) {
		for (v = 0; v < ds->nvariants; v++) {
			for (i = g->from; i < g->to; i++) {
				c = analysis_cmp(a, a->hosts[i].host, b, 0, v);
				if (c != NULL)
					rows[n++].c = c;
			}
		}
	}
	for (v = 0; v < ds->nvariants; v++) {
		if ((geo = analysis_geo(a, gi, v)) != NULL) {
			rows[n++].geo = geo;
			(*ngeo)++;
		}
	}
	return (n);
}

/*
 * What a forest plot's row draws: returns 1 with its estimate *r and its
 * interval's ends *rl and *rh (NAN where unbounded: drawn to the axis's
 * edge), or 0 when it draws no ratio (fp_draw_row's "no ratio").
 */
static int
fp_drawn(const struct fp_row *row, double *r, double *rl, double *rh)
{
	enum stats_verdict	vd;

	if (row->c != NULL) {
		vd = row->c->verdict;
		*r = row->c->ratio;
		*rl = row->c->lo;
		*rh = row->c->hi;
	} else {
		vd = row->geo->verdict;
		*r = row->geo->nused > 0 ? row->geo->est : NAN;
		*rl = row->geo->lo;
		*rh = row->geo->hi;
	}
	if (!isfinite(*r) || !(*r > 0) || vd == VERDICT_INVALID)
		return (0);
	if (!(*rl > 0) || !isfinite(*rl))
		*rl = NAN;
	if (!(*rh > 0) || !isfinite(*rh))
		*rh = NAN;
	return (1);
}

/*
 * The scale of a forest plot: every estimate and bounded interval end
 * that rows[n] draw, 1 and the band 1 ± me around it, with a margin,
 * into *lo and *hi.
 */
static void
fp_scale(const struct fp_row *rows, size_t n, double me, double *lo,
    double *hi)
{
	double	v[3], pad;
	size_t	k, j;

	*lo = 1 - me;
	*hi = 1 + me;
	for (k = 0; k < n; k++) {
		if (!fp_drawn(&rows[k], &v[0], &v[1], &v[2]))
			continue;
		for (j = 0; j < 3; j++) {
			if (v[j] < *lo)
				*lo = v[j];
			if (v[j] > *hi)
				*hi = v[j];
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

/*
 * Opens a forest plot of group g whose rows end at y: the band of "same",
 * the line at 1, the axis and its ticks, and the column heads.
 */
static void
fp_head(FILE *f, const struct rep_group *g, double me, double lo, double hi,
    double y)
{
	const struct report_scale	sc = { lo, hi, FP_X0, FP_X1 };
	double				xl, xh;

	fprintf(f, "<figure><svg class=\"forest\" width=\"%d\" "
	    "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
	    "role=\"img\" aria-label=\"ratios and intervals on ",
	    FP_W, y + FP_AXIS, FP_W, y + FP_AXIS);
	report_html_esc(f, g->label);
	fputs("\">\n", f);
	xl = fp_x(1 - me, lo, hi);
	xh = fp_x(1 + me, lo, hi);
	fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" "
	    "fill=\"#eaeef2\"/>\n", xl, FP_TOP - 6, xh - xl, y - FP_TOP + 6);
	report_scale_axis(f, &sc, FP_TOP - 6, y);
	fprintf(f, "<text x=\"0\" y=\"16\" class=\"dim\">benchmark · metric · "
	    "variant%s</text>", g->to - g->from > 1 ? " · host" : "");
	fprintf(f, "<text x=\"%d\" y=\"16\" class=\"dim\">ratio (log scale), "
	    "shaded: 1 ± min_effect %g</text>", FP_X0, me);
	fprintf(f, "<text x=\"%d\" y=\"16\" class=\"dim\">ratio [CI] "
	    "verdict</text>\n", FP_TEXT);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"dim\" "
	    "text-anchor=\"end\">ratio = variant / reference</text>\n", FP_X1,
	    y + 34);
	fp_ticks(f, lo, hi, y);
}

/*
 * One row of a forest plot at y: its label, then the ratio and interval
 * (a dot on a line, or a mean's diamond) or why there is none, and the
 * verdict.
 */
static void
fp_draw_row(FILE *f, const struct analysis *a, const struct rep_group *g,
    const struct fp_row *row, double lo, double hi, double y)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c = row->c;
	const struct rep_geo	*geo = row->geo;
	char			 reason[256], label[512];
	double			 r, rl, rh, x, xl, xh;
	enum stats_verdict	 vd;

	if (c != NULL) {
		snprintf(label, sizeof label, "%s · %s%s · %s%s%s%s",
		    ds->benches[c->bench].name,
		    ds->benches[c->bench].metrics[0],
		    ds->benches[c->bench].higher[0] ? " ↑" : "",
		    ds->variants[c->variant],
		    c->files == REP_FILES_AA ? " (A/A)" : "",
		    g->to - g->from > 1 ? " · " : "",
		    g->to - g->from > 1 ? ds->hosts[c->host].name : "");
		vd = c->verdict;
		r = c->ratio;
		rl = c->lo;
		rh = c->hi;
	} else {
		snprintf(label, sizeof label, "geometric mean · %s%s",
		    ds->variants[geo->variant], geo->aa ? " (A/A)" : "");
		vd = geo->verdict;
		r = geo->nused > 0 ? geo->est : NAN;
		rl = geo->lo;
		rh = geo->hi;
	}
	fprintf(f, "<text x=\"0\" y=\"%.1f\"%s>", y + 4,
	    geo != NULL ? " font-weight=\"600\"" : "");
	html_esc_cut(f, label, 48);
	fputs("</text>", f);
	if (!fp_drawn(row, &x, &xl, &xh)) {
		if (c != NULL)
			report_text_reason(c->reason, reason, sizeof reason);
		else
			snprintf(reason, sizeof reason, "no valid comparison");
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"dim\" "
		    "font-style=\"italic\">no ratio: ", FP_X0 + 6, y + 4);
		html_esc_cut(f, reason, 60);
		fprintf(f, "</text><text x=\"%d\" y=\"%.1f\" "
		    "class=\"mono\">—</text>", FP_TEXT, y + 4);
	} else {
		/* An unbounded interval runs to the edge of the axis. */
		xl = fp_x(rl > lo ? rl : lo, lo, hi);
		xh = fp_x(rh < hi ? rh : hi, lo, hi);
		x = fp_x(r, lo, hi);
		if (geo != NULL)
			fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f "
			    "%.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>", xl - 3, y, x,
			    y - 7, xh + 3, y, x, y + 7, html_vcolour[vd]);
		else
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" "
			    "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			    "stroke-width=\"2.5\" stroke-linecap=\"round\"/>"
			    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			    "fill=\"%s\" stroke=\"#fff\" "
			    "stroke-width=\"1.5\"/>", xl, y, xh, y,
			    html_vcolour[vd], x, y, html_vcolour[vd]);
		if (!(rl > 0) || !isfinite(rh))
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"mono\">"
			    "%.3f [unbounded]</text>", FP_TEXT, y + 4, r);
		else
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"mono\">"
			    "%.3f [%.3f, %.3f]</text>", FP_TEXT, y + 4, r, rl,
			    rh);
	}
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\" "
	    "font-weight=\"600\">%s</text>\n", FP_TEXT + 200, y + 4,
	    html_vcolour[vd], stats_verdict_name(vd));
}

/* One forest plot: every primary comparison of a group, then its means. */
static void
html_forest(FILE *f, const struct analysis *a, size_t gi)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g = &a->groups[gi];
	struct fp_row		*rows;
	double			 lo, hi, y;
	size_t			 n, k, ngeo;

	rows = xcalloc((g->to - g->from) * ds->nbenches * ds->nvariants +
	    ds->nvariants + 1, sizeof *rows);
	n = fp_rows(a, gi, rows, &ngeo);
	fp_scale(rows, n, ds->min_effect, &lo, &hi);
	fp_head(f, g, ds->min_effect, lo, hi,
	    FP_TOP + (double)n * FP_ROW + (ngeo > 0 ? 8 : 0));
	for (k = 0; k < n; k++) {
		y = FP_TOP + (double)k * FP_ROW + FP_ROW / 2.0 +
		    (rows[k].geo != NULL ? 8 : 0);
		/* A rule above the means; every other comparison shaded. */
		if (rows[k].geo != NULL && (k == 0 || rows[k - 1].geo == NULL))
			fprintf(f, "<line x1=\"0\" y1=\"%.1f\" x2=\"%d\" "
			    "y2=\"%.1f\" stroke=\"#d0d7de\"/>\n", y - 16, FP_W,
			    y - 16);
		if (k % 2 == 0 && rows[k].geo == NULL)
			fprintf(f, "<rect x=\"0\" y=\"%.1f\" width=\"%d\" "
			    "height=\"%d\" fill=\"#f6f8fa\" "
			    "fill-opacity=\"0.6\"/>", y - FP_ROW / 2.0, FP_W,
			    FP_ROW);
		fp_draw_row(f, a, g, &rows[k], lo, hi, y);
	}
	fputs("</svg><figcaption>Each row: the Hodges–Lehmann estimate of the "
	    "per-round paired ratios (dot) and its interval at the family's "
	    "level (line), coloured by verdict; diamonds: the geometric "
	    "means. ↑ marks a higher-is-better metric.</figcaption>"
	    "</figure>\n", f);
	free(rows);
}

/* ---- the samples by round ----------------------------------------------- */

/* Returns a tick step of about range/4: 1, 2 or 5 times a power of ten. */
static double
rp_step(double range)
{
	double	raw = range / 4, mag, norm;

	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	if (norm < 1.5)
		return (mag);
	if (norm < 3)
		return (2 * mag);
	if (norm < 7)
		return (5 * mag);
	return (10 * mag);
}

/* Formats a tick of metric, in the unit that suits top, to step's precision. */
static void
rp_tick(const char *metric, double v, double step, double top, char *buf,
    size_t len)
{
	size_t		 n = strlen(metric);
	double		 unit = 1;
	const char	*u = "";
	int		 dec;

	if (n > 3 && strcmp(metric + n - 3, "_ns") == 0) {
		unit = top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e3 ?
		    1e3 : 1;
		u = top >= 1e9 ? " s" : top >= 1e6 ? " ms" : top >= 1e3 ?
		    " us" : " ns";
	} else if (n > 3 && strcmp(metric + n - 3, "_kb") == 0) {
		unit = top >= 1048576 ? 1048576 : top >= 1024 ? 1024 : 1;
		u = top >= 1048576 ? " GiB" : top >= 1024 ? " MiB" : " KiB";
	} else if (top >= 1e9) {
		unit = 1e9;
		u = "G";
	} else if (top >= 1e6) {
		unit = 1e6;
		u = "M";
	} else if (top >= 1e4) {
		unit = 1e3;
		u = "k";
	}
	dec = (int)ceil(-log10(step / unit) - 1e-9);
	if (dec < 0)
		dec = 0;
	if (dec > 4)
		dec = 4;
	snprintf(buf, len, "%.*f%s", dec, v / unit, u);
}

/* Returns a label step that leaves about 20 round labels on the axis. */
static size_t
rp_every(size_t nslots)
{
	static const size_t	steps[] = { 10, 20, 25, 50, 100, 200, 250, 500,
	    1000, 2000, 2500, 5000, 10000, 20000, 25000, 50000, 100000 };
	size_t			i;

	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (nslots / steps[i] <= 20)
			return (steps[i]);
	}
	return (nslots / 20 + 1);
}

/* Where a rounds plot draws: its benchmark, scale and slots. */
struct rp_frame {
	size_t	bench;
	double	lo, hi, ph, slotw;
	int	warm;
	double	pw;		/* plot width */
	double	step, top;	/* y tick step; largest magnitude shown */
	double	dx;		/* offset between variants within a slot */
	size_t	nslots;		/* the warmup slot, then the rounds */
	size_t	per, nb;	/* rounds per bin (1: not binned); bins */
	const size_t *mine;	/* this host's runs of the bench */
	size_t	nmine;
	double	fs;		/* the floor subtracted from its wall_ns;
				   0 none or another metric */
};

/* The y of value v in frame fr. */
static double
rp_y(const struct rp_frame *fr, double v)
{
	return (RP_T + (fr->hi - v) / (fr->hi - fr->lo) * fr->ph);
}

/* The x of slot position pos (in slots, from the left edge), plus off. */
static double
rp_x(const struct rp_frame *fr, double pos, double off)
{
	return (RP_L + pos * fr->slotw + off);
}

/*
 * Opens a failed-run mark (a red cross at the bottom, at x) and its title
 * with variant vr's name; the caller ends the title and the path.
 */
static void
rp_fail_mark(FILE *f, const struct dataset *ds, const struct rp_frame *fr,
    double x, size_t vr)
{
	double	y = RP_T + fr->ph - 7;

	fprintf(f, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" "
	    "stroke=\"#cf222e\" stroke-width=\"2\"><title>", x - 4, y - 4);
	report_html_esc(f, ds->variants[vr]);
}

/*
 * A variant's measured rounds in bins of fr->per rounds (good[r]: round
 * r's final successful run): a band from each bin's lowest to its highest
 * run and a line through the bins' medians.
 */
static void
html_round_bins(FILE *f, const struct analysis *a, size_t host,
    const struct ds_sample **good, const struct rp_frame *fr, double off,
    const char *col)
{
	const struct dataset	*ds = a->ds;
	const char		*mn = ds->benches[fr->bench].metrics[0];
	size_t			 per = fr->per, nb = fr->nb;
	size_t			 bi, r, n, k;
	double			*v, *med, *bmin, *bmax, x, y;
	int			 first;

	v = xcalloc(per, sizeof *v);
	med = xcalloc(nb, sizeof *med);
	bmin = xcalloc(nb, sizeof *bmin);
	bmax = xcalloc(nb, sizeof *bmax);
	for (bi = 0; bi < nb; bi++) {
		for (n = 0, r = bi * per + 1; r <= (bi + 1) * per &&
		    r <= ds->rounds; r++) {
			if (good[r] != NULL &&
			    analysis_value(a, host, good[r], mn, &v[n]) == 0)
				n++;
		}
		med[bi] = NAN;
		if (n == 0)
			continue;
		stats_sort(v, n);
		med[bi] = stats_quantile(v, n, 0.5);
		bmin[bi] = v[0];
		bmax[bi] = v[n - 1];
	}
#define RP_X(bi) rp_x(fr, (double)(bi) * (double)per + (double)per / 2 + \
    (double)fr->warm, off)
	fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.16\" stroke=\"none\" "
	    "d=\"", col);
	/* One closed shape per run of bins with data. */
	for (bi = 0; bi < nb; bi = k) {
		for (; bi < nb && isnan(med[bi]); bi++)
			;
		for (k = bi; k < nb && !isnan(med[k]); k++)
			fprintf(f, "%c%.1f %.1f", k == bi ? 'M' : 'L', RP_X(k),
			    rp_y(fr, bmax[k]));
		for (r = k; r > bi; r--)
			fprintf(f, "L%.1f %.1f", RP_X(r - 1),
			    rp_y(fr, bmin[r - 1]));
		if (k > bi)
			fputc('Z', f);
	}
	fprintf(f, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" "
	    "stroke-width=\"1.6\" points=\"", col);
	for (first = 1, bi = 0; bi < nb; bi++) {
		if (isnan(med[bi]))
			continue;
		x = RP_X(bi);
		y = rp_y(fr, med[bi]);
		fprintf(f, "%s%.1f,%.1f", first ? "" : " ", x, y);
		first = 0;
	}
	fputs("\"/>\n", f);
#undef RP_X
	free(v);
	free(med);
	free(bmin);
	free(bmax);
}

/*
 * Sets up fr for the primary metric of (host, bench b): its scale from the
 * good runs, with a margin, and its slots. Returns 0, or -1 when no run
 * has a value (nothing to draw).
 */
static int
html_rounds_frame(const struct analysis *a, size_t host, size_t b,
    struct rp_frame *fr)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	const char		*mn = ds->benches[b].metrics[0];
	size_t			 hb = host * ds->nbenches + b, mi;
	double			 lo = INFINITY, hi = -INFINITY, v, t;

	memset(fr, 0, sizeof *fr);
	fr->bench = b;
	if (strcmp(mn, "wall_ns") == 0)
		fr->fs = report_text_floor_sub(a, host);
	/* This host's runs of this benchmark, once: the plots walk them. */
	fr->mine = a->by_hb + a->hb_start[hb];
	fr->nmine = a->hb_start[hb + 1] - a->hb_start[hb];
	for (mi = 0; mi < fr->nmine; mi++) {
		s = &ds->samples[fr->mine[mi]];
		if (s->warmup)
			fr->warm = 1;
		if (s->warmup || s->status != 0 ||
		    analysis_value(a, host, s, mn, &v) != 0)
			continue;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (!isfinite(lo))
		return (-1);
	if (hi - lo < fabs(hi) * 1e-6 + 1e-12) {
		t = fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
		lo -= t;
		hi += t;
	} else {
		t = (hi - lo) * 0.08;
		lo -= t;
		hi += t;
	}
	fr->lo = lo;
	fr->hi = hi;
	fr->step = rp_step(hi - lo);
	fr->top = fmax(fabs(lo), fabs(hi));
	fr->pw = RP_W - RP_L - RP_R;
	fr->ph = RP_H - RP_T - RP_B;
	fr->nslots = ds->rounds + (size_t)fr->warm;
	fr->slotw = fr->pw / (double)(fr->nslots > 0 ? fr->nslots : 1);
	fr->dx = fmin(6, fr->slotw / (double)(ds->nvariants + 1));
	fr->per = ds->rounds > RP_MAXDOTS ?
	    ((size_t)ds->rounds + RP_MAXDOTS - 1) / RP_MAXDOTS : 1;
	fr->nb = ((size_t)ds->rounds + fr->per - 1) / fr->per;
	return (0);
}

/* The grid, the y ticks and the x labels of a rounds plot. */
static void
html_rounds_axes(FILE *f, const struct rp_frame *fr, const char *mn)
{
	char	buf[64];
	double	t, x, y;
	size_t	i, round, every;

	for (t = ceil(fr->lo / fr->step) * fr->step;
	    t <= fr->hi + fr->step * 1e-9; t += fr->step) {
		y = rp_y(fr, t);
		rp_tick(mn, fabs(t) < fr->step * 1e-9 ? 0 : t, fr->step,
		    fr->top, buf, sizeof buf);
		/* Net of the floor, no time is below 0: the floor's line. */
		if (fr->fs > 0 && t < fr->step * 1e-9)
			snprintf(buf, sizeof buf, "%s", t > -fr->step * 1e-9 ?
			    "floor" : "");
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#eaeef2\"/><text x=\"%d\" y=\"%.1f\" "
		    "text-anchor=\"end\" class=\"dim\">%s</text>\n", RP_L, y,
		    RP_W - RP_R, y, RP_L - 8, y + 4, buf);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"none\" stroke=\"#d0d7de\"/>\n", RP_L, RP_T, fr->pw,
	    fr->ph);
	/* X labels: the warmup slot, then rounds (thinned to fit). */
	every = fr->slotw >= 22 ? 1 : fr->slotw >= 11 ? 2 :
	    fr->slotw >= 5 ? 5 : rp_every(fr->nslots);
	for (i = 0; i < fr->nslots; i++) {
		round = i + 1 - (size_t)fr->warm;
		x = RP_L + ((double)i + 0.5) * fr->slotw;
		if (fr->warm && i == 0)
			snprintf(buf, sizeof buf, "w");
		else if (round == 1 || round % every == 0)
			snprintf(buf, sizeof buf, "%zu", round);
		else
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
		    "class=\"dim\">%s</text>", x, RP_H - RP_B + 16, buf);
	}
	if (fr->warm)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		    "stroke=\"#d0d7de\" stroke-dasharray=\"3 3\"/>",
		    RP_L + fr->slotw, RP_T, RP_L + fr->slotw,
		    RP_T + (int)fr->ph);
	fprintf(f, "\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
	    "class=\"dim\">round%s</text>\n", RP_L + fr->pw / 2, RP_H - 6,
	    fr->warm ? " (w: warmup, not counted)" : "");
}

/* Fills good[round] with variant vr's final successful measured runs. */
static void
html_rounds_good(const struct dataset *ds, const struct rp_frame *fr,
    size_t vr, const struct ds_sample **good)
{
	const struct ds_sample	*s;
	size_t			 np, mi;

	for (np = 0; np <= ds->rounds; np++)
		good[np] = NULL;
	for (mi = 0; mi < fr->nmine; mi++) {
		s = &ds->samples[fr->mine[mi]];
		if (s->variant != vr || s->warmup || s->status != 0 ||
		    s->round < 1 || s->round > ds->rounds)
			continue;
		if (good[s->round] == NULL ||
		    s->attempt > good[s->round]->attempt)
			good[s->round] = s;
	}
}

/* A line through a variant's good measured runs, in round order. */
static void
html_rounds_line(FILE *f, const struct analysis *a, size_t host,
    const struct ds_sample **good, const struct rp_frame *fr, double off,
    const char *col)
{
	const char	*mn = a->ds->benches[fr->bench].metrics[0];
	double		 v, x, y;
	size_t		 np;
	int		 first = 1;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
	    "stroke-opacity=\"0.45\" stroke-width=\"1.2\" points=\"", col);
	for (np = 1; np <= a->ds->rounds; np++) {
		if (good[np] == NULL ||
		    analysis_value(a, host, good[np], mn, &v) != 0)
			continue;
		x = rp_x(fr, (double)(np - 1) + (double)fr->warm + 0.5, off);
		y = rp_y(fr, v);
		fprintf(f, "%s%.1f,%.1f", first ? "" : " ", x, y);
		first = 0;
	}
	fputs("\"/>\n", f);
}

/*
 * One good run's dot (a warmup's hollow, or a triangle at the edge when
 * off the scale, noted in offscale) with its value as title.
 */
static void
html_rounds_dot(FILE *f, const struct dataset *ds, const struct rp_frame *fr,
    const struct ds_sample *s, double x, double v, const char *col,
    char *offscale, size_t offlen)
{
	const char	*mn = ds->benches[fr->bench].metrics[0];
	char		 buf[64];
	double		 y = rp_y(fr, v);
	size_t		 k;
	int		 clip = 0;

	report_text_net_value(mn, v, fr->fs, buf, sizeof buf);
	/* A warmup off the scale: a triangle at the edge. */
	if (y < RP_T + 5) {
		y = RP_T + 5;
		clip = 1;
	} else if (y > RP_T + fr->ph - 5) {
		y = RP_T + fr->ph - 5;
		clip = -1;
	}
	if (s->warmup && clip) {
		fprintf(f, "<path d=\"M%.1f %.1fl4.5 %dh-9z\" fill=\"#fff\" "
		    "stroke=\"%s\" stroke-width=\"1.5\">", x, y - 3.5 * clip,
		    7 * clip, col);
		k = strlen(offscale);
		snprintf(offscale + k, offlen - k, "%s%s %s", k ? ", " : "",
		    ds->variants[s->variant], buf);
	} else if (s->warmup)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
		    "fill=\"#fff\" stroke=\"%s\" stroke-width=\"1.5\">", x, y,
		    col);
	else
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
		    "fill=\"%s\">", x, y, col);
	fputs("<title>", f);
	report_html_esc(f, ds->variants[s->variant]);
	if (s->warmup)
		fprintf(f, " warmup: %s%s</title>", buf,
		    clip ? " (off the scale)" : "");
	else
		fprintf(f, " round %u: %s</title>", s->round, buf);
	fputs(s->warmup && clip ? "</path>\n" : "</circle>\n", f);
}

/*
 * Variant vr's runs one by one: a dot per final good run (warmups too), a
 * cross per failed one; binned, failures are counted in fails instead.
 */
static void
html_rounds_runs(FILE *f, const struct analysis *a, size_t host,
    const struct rp_frame *fr, size_t vr, double off, const char *col,
    uint32_t *last, size_t *fails, char *offscale, size_t offlen)
{
	const struct dataset	*ds = a->ds;
	const char		*mn = ds->benches[fr->bench].metrics[0];
	const struct ds_sample	*s;
	double			 v, x;
	size_t			 np, mi;

	/* The last attempt of each measured round. */
	for (np = 0; np <= ds->rounds; np++)
		last[np] = 0;
	for (mi = 0; mi < fr->nmine; mi++) {
		s = &ds->samples[fr->mine[mi]];
		if (s->variant == vr && !s->warmup &&
		    s->round <= ds->rounds && s->attempt > last[s->round])
			last[s->round] = s->attempt;
	}
	for (mi = 0; mi < fr->nmine; mi++) {
		s = &ds->samples[fr->mine[mi]];
		if (s->variant != vr)
			continue;
		/* Binned: a bin's failures are counted, not drawn. */
		if (fr->per > 1 && !s->warmup) {
			if (s->status != 0 && s->round >= 1 &&
			    s->round <= ds->rounds)
				fails[(s->round - 1) / fr->per]++;
			continue;
		}
		x = rp_x(fr, (double)(s->warmup ? 0 : s->round - 1 +
		    (uint32_t)fr->warm) + 0.5, off);
		if (s->status != 0) {
			rp_fail_mark(f, ds, fr, x, vr);
			fprintf(f, " %s %u attempt %u: %s</title></path>\n",
			    s->warmup ? "warmup" : "round", s->round,
			    s->attempt, proto_status_name(s->status));
			continue;
		}
		if (analysis_value(a, host, s, mn, &v) != 0 ||
		    (!s->warmup && s->round <= ds->rounds &&
		    s->attempt < last[s->round]))
			continue;
		html_rounds_dot(f, ds, fr, s, x, v, col, offscale, offlen);
	}
}

/* Binned: one mark per bin of variant vr that had failed runs. */
static void
html_rounds_bin_fails(FILE *f, const struct dataset *ds,
    const struct rp_frame *fr, size_t vr, double off, size_t *fails)
{
	size_t	bi, per = fr->per;
	double	x;

	for (bi = 0; bi < fr->nb && per > 1; bi++) {
		if (fails[bi] == 0)
			continue;
		x = rp_x(fr, (double)bi * (double)per + (double)per / 2 +
		    (double)fr->warm, off);
		rp_fail_mark(f, ds, fr, x, vr);
		fprintf(f, " rounds %zu to %zu: %zu failed run%s"
		    "</title></path>\n", bi * per + 1,
		    (bi + 1) * per < ds->rounds ? (bi + 1) * per :
		    (size_t)ds->rounds, fails[bi], fails[bi] == 1 ? "" : "s");
		fails[bi] = 0;
	}
}

/* The legend of a rounds plot, across the top. */
static void
html_rounds_legend(FILE *f, const struct dataset *ds)
{
	double	x = RP_L;
	size_t	vr;

	for (vr = 0; vr < ds->nvariants; vr++) {
		fprintf(f, "<circle cx=\"%.1f\" cy=\"14\" r=\"4\" fill=\"%s\"/>"
		    "<text x=\"%.1f\" y=\"18\">", x + 4, html_vcol(ds, vr),
		    x + 13);
		html_esc_cut(f, ds->variants[vr], 16);
		fprintf(f, "%s</text>", vr == ds->ref ? " (ref)" : "");
		x += 30 + 7.5 * (double)(strlen(ds->variants[vr]) > 16 ? 17 :
		    strlen(ds->variants[vr])) + (vr == ds->ref ? 36 : 0);
	}
	fprintf(f, "<circle cx=\"%.1f\" cy=\"14\" r=\"4\" fill=\"#fff\" "
	    "stroke=\"#57606a\" stroke-width=\"1.5\"/><text x=\"%.1f\" "
	    "y=\"18\" class=\"dim\">warmup</text>", x + 12, x + 21);
	x += 86;
	fprintf(f, "<path d=\"M%.1f 10l8 8m0 -8l-8 8\" stroke=\"#cf222e\" "
	    "stroke-width=\"2\"/><text x=\"%.1f\" y=\"18\" class=\"dim\">"
	    "failed run</text>", x + 8, x + 21);
	x += 100;
	fprintf(f, "<line x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"14\" "
	    "stroke=\"#57606a\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" "
	    "y=\"18\" class=\"dim\">median</text>\n", x + 6, x + 30, x + 36);
}

/* The caption of a rounds plot: what it shows, and warmups off scale. */
static void
html_rounds_caption(FILE *f, const struct analysis *a, size_t host,
    const char *mn, size_t per, const char *offscale)
{
	size_t	i;

	fputs("</svg><figcaption>", f);
	report_html_esc(f, mn);
	for (i = 0; i < a->nhosts; i++) {
		if (a->hosts[i].host == host && a->hosts[i].floor_sub > 0 &&
		    strcmp(mn, "wall_ns") == 0)
			fputs(" (net of the harness floor)", f);
	}
	if (per > 1)
		fprintf(f, " by round, in bins of %zu rounds: the line joins "
		    "each bin's median, the band spans its lowest to its "
		    "highest run; a drift shows as a slope.", per);
	else
		fputs(" of every run, by round; a drift shows as a slope, an "
		    "outlier as a lone point.", f);
	if (offscale[0] != '\0') {
		fputs(" Warmups off the scale (triangles at the edge): ", f);
		report_html_esc(f, offscale);
		fputc('.', f);
	}
	fputs("</figcaption></figure>\n", f);
}

/* The primary metric of one benchmark on one host, by round and variant. */
static void
html_rounds(FILE *f, const struct analysis *a, size_t host, size_t b)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	const char		*mn = ds->benches[b].metrics[0], *col;
	const struct ds_sample	**good;
	struct rp_frame		 fr;
	char			 offscale[1024];
	uint32_t		*last;
	size_t			 vr, nv = ds->nvariants, *fails;
	double			 off, y;

	if (html_rounds_frame(a, host, b, &fr) != 0)
		return;
	offscale[0] = '\0';
	/* In size_t: the loader caps rounds, but never wrap here either. */
	good = xcalloc((size_t)ds->rounds + 1, sizeof *good);
	last = xcalloc((size_t)ds->rounds + 1, sizeof *last);
	fails = xcalloc(fr.nb + 1, sizeof *fails);

	fprintf(f, "<figure><svg class=\"rounds\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "role=\"img\" aria-label=\"", RP_W, RP_H, RP_W, RP_H);
	report_html_esc(f, mn);
	fputs(" by round\">\n", f);
	html_rounds_axes(f, &fr, mn);
	for (vr = 0; vr < nv; vr++) {
		col = html_vcol(ds, vr);
		off = ((double)vr - (double)(nv - 1) / 2) * fr.dx;
		/* The median of the measured runs, dashed. */
		res = analysis_result(a, host, b, 0, vr);
		if (res != NULL && res->sum.n > 0) {
			y = rp_y(&fr, res->sum.median);
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			    "y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"0.55\" "
			    "stroke-dasharray=\"6 4\"/>\n", RP_L, y,
			    RP_W - RP_R, y, col);
		}
		html_rounds_good(ds, &fr, vr, good);
		if (fr.per > 1)
			html_round_bins(f, a, host, good, &fr, off, col);
		else
			html_rounds_line(f, a, host, good, &fr, off, col);
		html_rounds_runs(f, a, host, &fr, vr, off, col, last, fails,
		    offscale, sizeof offscale);
		html_rounds_bin_fails(f, ds, &fr, vr, off, fails);
	}
	html_rounds_legend(f, ds);
	html_rounds_caption(f, a, host, mn, fr.per, offscale);
	free(good);
	free(last);
	free(fails);
}

/* ---- per-architecture sections ------------------------------------------ */

/* One benchmark on one host: its table, refusals, counts and plot. */
static void
html_bench(FILE *f, const struct analysis *a, size_t host, size_t b)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	const struct rep_cmp	*c;
	char			 med[64], lo[64], hi[64], iqr[16], cv[16];
	size_t			 i;
	const char		*mn;

	fputs("<h4><code>", f);
	report_html_esc(f, ds->benches[b].name);
	fputs("</code> on <code>", f);
	report_html_esc(f, ds->hosts[host].name);
	fputs("</code></h4>\n<div class=\"scroll\"><table>\n<tr><th>metric"
	    "</th><th>variant</th><th>n</th><th>median</th><th>min … max</th>"
	    "<th>IQR %</th><th>CV %</th><th>ratio [CI]</th><th>p</th>"
	    "<th>verdict</th></tr>\n", f);
	for (i = 0; i < a->nresults; i++) {
		res = &a->results[i];
		if (res->host != host || res->bench != b)
			continue;
		mn = ds->benches[b].metrics[res->metric];
		report_text_range(a, mn, res, med, lo, hi, sizeof med);
		c = analysis_cmp(a, host, b, res->metric, res->variant);
		fprintf(f, "<tr%s><td>", res->metric == 0 ?
		    " class=\"primary\"" : "");
		report_html_esc(f, mn);
		fprintf(f, "</td><td><span style=\"color:%s\">●</span> ",
		    html_vcol(ds, res->variant));
		report_html_esc(f, ds->variants[res->variant]);
		fputs(res->variant == ds->ref ? " (ref)" : c != NULL &&
		    c->files == REP_FILES_AA ?
		    " <span class=\"aa\">A/A</span>" : "", f);
		fprintf(f, "</td><td class=\"n\">%zu", res->sum.n);
		if (res->failed > 0)
			fprintf(f, " (+%zu failed)", res->failed);
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s … %s"
		    "</td>", med, lo, hi);
		report_text_spread(res, iqr, cv, sizeof iqr);
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td>",
		    iqr, cv);
		if (c == NULL) {
			fputs("<td>reference</td><td></td><td></td></tr>\n", f);
			continue;
		}
		fputs("<td class=\"n\">", f);
		report_text_ratio(f, c);
		fputs("</td><td class=\"n\">", f);
		if (isfinite(c->p))
			fprintf(f, "%.2g", c->p);
		fputs("</td><td class=\"c\">", f);
		html_badge(f, c->verdict, c->ratio);
		if (!c->family && c->verdict != VERDICT_INVALID)
			fputs(" <span class=\"why\">(per comparison, "
			    "95%)</span>", f);
		report_text_cmp_notes(f, &html_fmt, c);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
	report_text_no_ratio(f, &html_fmt, a, host, b);
	report_text_bench_counts(f, &html_fmt, a, host, b, 0);
	html_rounds(f, a, host, b);
}

/* The section of one architecture group. */
static void
html_group(FILE *f, const struct analysis *a, size_t gi)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g = &a->groups[gi];
	size_t			 j, b;

	fprintf(f, "<section id=\"group-%zu\">\n<h2>", gi);
	report_html_esc(f, g->known ? g->label : "Hosts that gave no facts");
	fputs("</h2>\n", f);
	if (!g->known) {
		report_text_no_facts(f, &html_fmt, a, g);
		fputs("</section>\n", f);
		return;
	}
	report_text_host_table(f, &html_fmt, a, g->from, g->to);
	report_text_measures(f, &html_fmt, a, g);
	report_text_files_notes(f, &html_fmt, a, g);
	for (j = g->from; j < g->to; j++) {
		for (b = 0; b < ds->nbenches; b++)
			html_bench(f, a, a->hosts[j].host, b);
		report_text_failures(f, &html_fmt, a, a->hosts[j].host);
	}
	fputs("</section>\n", f);
}

/* ---- the run ------------------------------------------------------------ */

/* The metadata that lets the evidence stand alone. */
static void
html_run(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	size_t			 i;

	fputs("<section id=\"run\">\n<h2>Run</h2>\n<ul>\n", f);
	report_text_versions(f, &html_fmt, ds);
	report_text_resumed(f, &html_fmt, ds);
	for (i = 0; i < ds->nlabels; i++) {
		fputs(i == 0 ? "<li>labels: <code>" : ", <code>", f);
		report_html_esc(f, ds->label_keys[i]);
		fputc('=', f);
		report_html_esc(f, ds->label_values[i]);
		fputs(i + 1 == ds->nlabels ? "</code></li>\n" : "</code>", f);
	}
	fputs("<li>command: <code>", f);
	report_html_esc(f, ds->cmdline);
	fprintf(f, "</code></li>\n<li>seed: %llu (the plan's order and every "
	    "bootstrap interval follow from it)</li>\n",
	    (unsigned long long)ds->seed);
	report_text_benches(f, &html_fmt, ds);
	fputs("</ul>\n", f);
	if (ds->nfiles > 0) {
		fputs("<p>Files run, per host (SHA-256):</p>\n"
		    "<div class=\"scroll\"><table>\n"
		    "<tr><th>host</th><th>variant</th><th>role</th>"
		    "<th>path</th><th>sha256</th></tr>\n", f);
		for (i = 0; i < ds->nfiles; i++) {
			fputs("<tr><td>", f);
			report_html_esc(f, ds->hosts[ds->files[i].host].name);
			fputs("</td><td>", f);
			report_html_esc(f, ds->files[i].variant);
			fputs("</td><td>", f);
			report_html_esc(f, ds->files[i].role);
			fputs("</td><td><code>", f);
			report_html_esc(f, ds->files[i].path);
			fputs("</code>", f);
			report_text_host_prog(f, &html_fmt, &ds->files[i]);
			fputs("</td><td><code>", f);
			report_html_esc(f, ds->files[i].sha);
			fputs("</code></td></tr>\n", f);
		}
		fputs("</table></div>\n", f);
	}
	fputs("<details><summary>Suite file as run</summary>\n<pre>", f);
	report_html_esc(f, ds->suite_text);
	fputs("</pre>\n</details>\n</section>\n", f);
}

int
report_html(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	size_t			 i, ncols = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\""
	    "utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\">\n<title>orch report: ", f);
	report_html_esc(f, ds->suite_name);
	fputs(" — ", f);
	report_html_esc(f, ds->run_id);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n",
	    html_css);
	fputs("<h1>orch report: ", f);
	report_html_esc(f, ds->suite_name);
	fputs("</h1>\n<p class=\"meta\">Run <code>", f);
	report_html_esc(f, ds->run_id);
	fputs("</code> of suite <code>", f);
	report_html_esc(f, ds->suite_name);
	fputs("</code>", f);
	report_text_plan(f, &html_fmt, a);
	fputs("; started ", f);
	report_html_esc(f, ds->started);
	fputs(".</p>\n", f);
	report_text_banners(f, &html_fmt, a);
	report_machines_shared(f, a, &html_fmt);
	report_claims_table(f, &html_fmt, a);
	report_text_answers(f, &html_fmt, a);

	for (i = 0; i < a->nhosts; i++)
		ncols += a->groups[a->hosts[i].group].known;
	fputs("<section id=\"across\">\n<h2>Across architectures</h2>\n", f);
	report_text_across(f, &html_fmt, a, ncols);
	if (ncols > 0) {
		html_matrix(f, a, ncols);
		html_geomeans(f, a);
		for (i = 0; i < a->ngroups; i++) {
			if (!a->groups[i].known)
				continue;
			fputs("<h3>", f);
			report_html_esc(f, a->groups[i].label);
			fputs("</h3>\n", f);
			html_forest(f, a, i);
		}
	}
	fputs("</section>\n", f);
	if (report_layout_html(f, a) != 0)
		return (-1);
	report_sweep_html(f, a);
	for (i = 0; i < a->ngroups; i++)
		html_group(f, a, i);
	if (report_machines_html(f, a, &html_fmt) != 0)
		return (-1);
	html_run(f, a);
	fputs("<footer>Recorded by orch ", f);
	report_html_esc(f, ds->orch_version);
	fputs("; rendered from samples.msgpack alone: <code>orch report "
	    "DIR</code> renders it again, byte for byte.</footer>\n"
	    "</main>\n</body>\n</html>\n", f);
	return (ferror(f) ? -1 : 0);
}
