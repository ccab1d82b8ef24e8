/* report.md: GitHub-flavoured Markdown, a section per architecture. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/analysis.h"
#include "coordinator/report-sweep.h"
#include "coordinator/report-text.h"
#include "coordinator/machines.h"
#include "coordinator/claims.h"
#include "coordinator/report.h"

/* Escapes text for a table cell or a line: pipes, newlines and tags. */
static void
md_cell(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '<')
			fputs("\\<", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/*
 * As md_cell, for text from the record (anyone's): what would start a
 * link, an image or a code span is escaped too, so that viewing the
 * report fetches nothing and no line is spoofed.
 */
static void
md_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|' || *s == '<' || *s == '[' || *s == ']' ||
		    *s == '`' || *s == '\\') {
			fputc('\\', f);
			fputc(*s, f);
		} else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

void
report_md_text(FILE *f, const char *s)
{
	md_text(f, s);
}

/* Returns the longest run of backticks in s. */
static size_t
md_ticks(const char *s)
{
	size_t	n = 0, run = 0;

	for (; *s != '\0'; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > n)
			n = run;
	}
	return (n);
}

/*
 * Writes s as a code span: delimited by more backticks than it holds, so
 * record text cannot end it; newlines become spaces.
 */
static void
md_code(FILE *f, const char *s)
{
	size_t	n = md_ticks(s) + 1, i;
	int	pad = s[0] == '`' || (s[0] != '\0' && s[strlen(s) - 1] == '`');

	for (i = 0; i < n; i++)
		fputc('`', f);
	if (pad)
		fputc(' ', f);
	for (; *s != '\0'; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	if (pad)
		fputc(' ', f);
	for (i = 0; i < n; i++)
		fputc('`', f);
}

/* Writes a name (an identifier: nothing to escape) as it is. */
static void
md_name(FILE *f, const char *s)
{
	fputs(s, f);
}

/* Writes the last line of a run's stderr: its first 159 bytes, escaped. */
static void
md_err_tail(FILE *f, const char *s, size_t len)
{
	char	tail[160];

	snprintf(tail, sizeof tail, "%.*s", (int)len, s);
	md_text(f, tail);
}

static const struct report_fmt md_fmt = {
	.text = md_text,
	.name = md_name,
	.code_open = "`", .code_close = "`",
	.bold_open = "**", .bold_close = "**",
	.item_open = "- ", .item_close = "\n",
	.para_open = "", .para_close = "\n\n",
	.note_open = "> ", .note_close = "\n\n",
	.small_open = "",
	.prose = md_cell,
	.table_open = "", .table_close = "\n",
	.head_open = "|", .th_open = " ", .th_close = " |", .head_close = "\n",
	.rule_open = "|", .rule_left = "---|", .rule_right = "---:|",
	.rule_close = "\n",
	.row_open = "|", .row_close = "\n",
	.cell_open = " ", .num_open = " ", .cell_close = " |",
	.cell_code_open = "", .cell_code_close = "",
	.failed_open = "**", .failed_close = "**: ",
	.answers_open = "## Answer\n\n", .answers_close = "\n",
	.lead_open = "**", .lead_close = " ",
	.verdict_open = NULL, .verdict_mid = "", .verdict_close = "**",
	.detail_open = " — ", .detail_close = "",
	.section_close = "",
	.warn_open = "> ", .warn_close = "\n\n",
	.banner_open = "> ", .banner_list = "\n>\n", .banner_item = "> - ",
	.banner_close = "\n",
	.fail_open = "", .fail_close = ":\n\n",
	.more_open = "| … | ", .more_close = " | | | | | |\n",
	.err_tail = md_err_tail,
};

/* Writes a ratio with its interval, or why there is none. */
static void
md_ratio(FILE *f, const struct rep_cmp *c)
{
	if (c->verdict == VERDICT_INVALID || !isfinite(c->ratio)) {
		fputs("—", f);
		return;
	}
	if (!(c->lo > 0) || !isfinite(c->hi))
		fprintf(f, "%.3f [unbounded: too few rounds]", c->ratio);
	else
		fprintf(f, "%.3f [%.3f, %.3f]", c->ratio, c->lo, c->hi);
}

/* Writes a verdict in words, with the size of the effect when proven. */
static void
md_verdict_of(FILE *f, enum stats_verdict v, double ratio)
{
	switch (v) {
	case VERDICT_BETTER:
	case VERDICT_WORSE:
		fprintf(f, "**%s** (%+.1f%%)", stats_verdict_name(v),
		    (ratio - 1) * 100);
		break;
	default:
		fputs(stats_verdict_name(v), f);
	}
}

/* Writes a comparison's verdict in words. */
static void
md_verdict(FILE *f, const struct rep_cmp *c)
{
	md_verdict_of(f, c->verdict, c->ratio);
}

/*
 * Writes what qualifies a comparison's interval: serially correlated
 * rounds that widened it, and for an inconclusive one the rounds that
 * would decide it at min_effect (docs/statistics.md).
 */
static void
md_cmp_notes(FILE *f, const struct rep_cmp *c)
{
	if (c->verdict == VERDICT_INVALID)
		return;
	if (c->widen > 1)
		fprintf(f, "<br>*rounds serially correlated (lag-1 r %.2f): "
		    "interval widened, variance ×%.1f*", c->r1, c->widen);
	if (c->verdict == VERDICT_INCONCLUSIVE && c->decide_rounds > 0)
		fprintf(f, "<br>*about %zu rounds would decide it at "
		    "min_effect*", c->decide_rounds);
}

/*
 * Writes the guarantee of the primary verdicts and what each host can
 * resolve: the median over its primary comparisons of the effect found
 * with 80% power at its rounds and noise.
 */
static void
md_family(FILE *f, const struct analysis *a)
{
	const struct rep_host	*rh;
	char			 stop[2048];
	size_t			 i, k;

	if (a->family_size == 0) {
		fputs("No primary comparison could be tested: each is invalid "
		    "(the matrix says why).\n\n", f);
		return;
	}
	fprintf(f, "Primary verdicts (this matrix, the geometric means, the "
	    "answer and `--fail-on`) are one family of %zu test%s held to a "
	    "%.0f%% family-wise error rate: each is tested at p ≤ %.2g "
	    "(Bonferroni), its interval at %.2f%%. Secondary metrics are "
	    "judged one comparison at a time (95%%). See "
	    "docs/statistics.md.\n\n", a->family_size,
	    a->family_size == 1 ? "" : "s", STATS_ALPHA * 100,
	    a->family_alpha, (1 - a->family_alpha) * 100);
	for (k = 0, i = 0; i < a->nhosts; i++) {
		rh = &a->hosts[i];
		if (isnan(rh->mde))
			continue;
		fputs(k++ ? ", " : "Resolution (effect found with 80% power, "
		    "median over the host's primary comparisons): ", f);
		if (isfinite(rh->mde))
			fprintf(f, "`%s` resolves %.1f%%",
			    a->ds->hosts[rh->host].name, rh->mde * 100);
		else
			fprintf(f, "`%s` cannot prove an effect at %u rounds",
			    a->ds->hosts[rh->host].name, a->ds->rounds);
	}
	if (k > 0)
		fputs(".\n\n", f);
	for (i = 0; a->ds->auto_rounds && i < a->nhosts; i++) {
		rh = &a->hosts[i];
		report_text_stop(a, rh, stop, sizeof stop);
		fprintf(f, "%s`%s`", i == 0 ? "Adaptive rounds (rounds = "
		    "auto, alpha spent over the looks: docs/statistics.md):"
		    "\n\n- " : "- ", a->ds->hosts[rh->host].name);
		report_md_text(f, stop);
		fputs(i + 1 == a->nhosts ? "\n\n" : "\n", f);
	}
	for (i = 0; i < a->nhosts; i++) {
		rh = &a->hosts[i];
		if (rh->widen > 1)
			fprintf(f, "> Rounds on `%s` are serially correlated "
			    "(mean lag-1 r %.2f over %zu rounds): its primary "
			    "intervals are widened (variance up to ×%.1f).\n\n",
			    a->ds->hosts[rh->host].name, rh->r1, rh->r1_n,
			    rh->widen);
	}
}

/* Writes one matrix cell: verdict, ratio and interval, or the refusal. */
static void
md_matrix_cell(FILE *f, const struct rep_cmp *c)
{
	char	reason[256];

	if (c == NULL) {
		fputs("—", f);
		return;
	}
	md_verdict(f, c);
	if (c->verdict == VERDICT_INVALID) {
		report_text_reason(c->reason, reason, sizeof reason);
		fputs("<br>", f);
		md_text(f, reason);
	} else {
		fputs("<br>", f);
		md_ratio(f, c);
	}
	if (c->files == REP_FILES_AA)
		fputs("<br>*A/A comparison (identical files)*", f);
	md_cmp_notes(f, c);
}

/*
 * The benchmark × host matrix and the geometric means.
 * Long: one Markdown table after another, in the order the report reads.
 */
static void
md_across(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	const struct rep_geo	*geo;
	const struct rep_row	*row;
	size_t			 i, j, k, vd, ncols = 0;

	for (i = 0; i < a->nhosts; i++)
		ncols += a->groups[a->hosts[i].group].known;
	fputs("## Across architectures\n\n", f);
	if (ncols == 0) {
		fputs("No host gave results.\n\n", f);
		return;
	}
	fputs("Primary metric of each benchmark; ratio = variant / reference "
	    "(Hodges–Lehmann estimate from the per-round paired ratios) with "
	    "the interval of its Wilcoxon signed-rank test. One column per "
	    "host, under its architecture and CPU model.\n\n", f);
	md_family(f, a);
	fputs("| bench | metric | variant |", f);
	for (i = 0; i < a->nhosts; i++) {
		g = &a->groups[a->hosts[i].group];
		if (!g->known)
			continue;
		fputc(' ', f);
		md_text(f, g->label);
		fprintf(f, "<br>`%s` |", ds->hosts[a->hosts[i].host].name);
	}
	if (ncols > 1)
		fputs(" agreement |", f);
	fputs("\n|---|---|---|", f);
	for (i = 0; i < ncols + (ncols > 1); i++)
		fputs("---|", f);
	fputc('\n', f);
	for (j = 0; j < a->nrows; j++) {
		row = &a->rows[j];
		fprintf(f, "| %s | %s | %s |", ds->benches[row->bench].name,
		    ds->benches[row->bench].metrics[0],
		    ds->variants[row->variant]);
		for (i = 0; i < a->nhosts; i++) {
			if (!a->groups[a->hosts[i].group].known)
				continue;
			fputc(' ', f);
			md_matrix_cell(f, analysis_cmp(a, a->hosts[i].host,
			    row->bench, 0, row->variant));
			fputs(" |", f);
		}
		if (ncols > 1) {
			fputc(' ', f);
			if (row->differs)
				fputs("⚠ **differs:** ", f);
			md_text(f, row->agreement);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);

	fprintf(f, "Geometric mean of each variant's primary-metric ratios per "
	    "architecture, over every valid comparison of its hosts, with a "
	    "bootstrap interval at the family's level that resamples rounds "
	    "jointly across benchmarks%s:\n\n", a->inverted ? "; ratios of "
	    "higher-is-better metrics are inverted, so below 1 is better" :
	    "");
	/* A comparison is a (host, benchmark): 3 hosts x 1 bench make 3. */
	fputs("| architecture | hosts | variant | comparisons | geomean [CI] "
	    "| verdict | per comparison |\n", f);
	fputs("|---|---|---|---:|---|---|---|\n", f);
	for (i = 0; i < a->ngeos; i++) {
		geo = &a->geos[i];
		g = &a->groups[geo->group];
		fputs("| ", f);
		md_text(f, g->label);
		fputs(" | ", f);
		for (j = g->from; j < g->to; j++)
			fprintf(f, "%s%s", j > g->from ? ", " : "",
			    ds->hosts[a->hosts[j].host].name);
		fprintf(f, " | %s | %zu | ", ds->variants[geo->variant],
		    geo->nused);
		if (geo->nused > 0 && (!(geo->lo > 0) || !isfinite(geo->hi)))
			fprintf(f, "%.3f [unbounded: too few rounds]", geo->est);
		else if (geo->nused > 0)
			fprintf(f, "%.3f [%.3f, %.3f]", geo->est, geo->lo,
			    geo->hi);
		else
			fputs("—", f);
		fputs(" | ", f);
		md_verdict_of(f, geo->verdict, geo->est);
		if (geo->aa)
			fputs("<br>*A/A comparison (identical files)*", f);
		fputs(" | ", f);
		for (k = 0, vd = 0; vd <= VERDICT_INVALID; vd++) {
			if (geo->count[vd] > 0)
				fprintf(f, "%s%zu %s", k++ ? ", " : "",
				    geo->count[vd],
				    stats_verdict_name((enum stats_verdict)vd));
		}
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

/* The benchmark tables of one host. */
static void
md_host_benches(FILE *f, const struct analysis *a, size_t hostidx)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	const struct rep_cmp	*c;
	char			 med[64], lo[64], hi[64];
	size_t			 b, i, j;

	for (b = 0; b < ds->nbenches; b++) {
		fprintf(f, "#### `%s` on %s\n\n", ds->benches[b].name,
		    ds->hosts[hostidx].name);
		fputs("| metric | variant | n | median | min … max | IQR % | "
		    "CV % | ratio [CI] | p | verdict |\n", f);
		fputs("|---|---|---:|---:|---|---:|---:|---|---:|---|\n", f);
		for (i = 0; i < a->nresults; i++) {
			res = &a->results[i];
			if (res->host != hostidx || res->bench != b)
				continue;
			const char *mn = ds->benches[b].metrics[res->metric];
			report_text_value(mn, res->sum.n ? res->sum.median : NAN,
			    med, sizeof med);
			report_text_value(mn, res->sum.n ? res->sum.min : NAN,
			    lo, sizeof lo);
			report_text_value(mn, res->sum.n ? res->sum.max : NAN,
			    hi, sizeof hi);
			c = analysis_cmp(a, hostidx, b, res->metric,
			    res->variant);
			fprintf(f, "| %s%s%s | %s%s | %zu", res->metric == 0 ?
			    "**" : "", mn, res->metric == 0 ? "**" : "",
			    ds->variants[res->variant],
			    res->variant == ds->ref ? " (ref)" :
			    c != NULL && c->files == REP_FILES_AA ? " (A/A)" :
			    "", res->sum.n);
			if (res->failed > 0)
				fprintf(f, " (+%zu failed)", res->failed);
			fprintf(f, " | %s | %s … %s | ", med, lo, hi);
			if (res->sum.n)
				fprintf(f, "%.1f | %.1f", res->sum.iqr_pct,
				    res->sum.cv * 100);
			else
				fputs("- | -", f);
			fputs(" | ", f);
			if (c == NULL) {
				fputs("reference | | |\n", f);
				continue;
			}
			md_ratio(f, c);
			fputs(" | ", f);
			if (isfinite(c->p))
				fprintf(f, "%.2g", c->p);
			fputs(" | ", f);
			md_verdict(f, c);
			if (!c->family && c->verdict != VERDICT_INVALID)
				fputs(" *(per comparison, 95%)*", f);
			md_cmp_notes(f, c);
			fputs(" |\n", f);
		}
		fputc('\n', f);
		for (j = 0; j < a->ncmps; j++) {
			c = &a->cmps[j];
			if (c->host == hostidx && c->bench == b &&
			    c->metric == 0 && c->verdict == VERDICT_INVALID) {
				fprintf(f, "> **No ratio for %s vs %s:** ",
				    ds->variants[c->variant],
				    ds->variants[ds->ref]);
				md_text(f, c->reason);
				fputs("\n\n", f);
			}
		}
		report_text_bench_counts(f, &md_fmt, a, hostidx, b, 1);
	}
}

/* The metadata that lets the evidence stand alone. */
static void
md_run(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	size_t			 i, b, v, n;

	fputs("## Run\n\n", f);
	fputs("- orch ", f);
	md_text(f, ds->orch_version);
	fputs("; started ", f);
	md_text(f, ds->started);
	fputs(", ended ", f);
	md_text(f, ds->ended[0] ? ds->ended : "(not recorded)");
	fputs("\n- command: ", f);
	md_code(f, ds->cmdline);
	fputc('\n', f);
	/* Only with labels: a run without them renders as it always did. */
	for (i = 0; i < ds->nlabels; i++) {
		fputs(i == 0 ? "- labels: " : ", ", f);
		md_text(f, ds->label_keys[i]);
		fputc('=', f);
		md_code(f, ds->label_values[i]);
		if (i + 1 == ds->nlabels)
			fputc('\n', f);
	}
	if (ds->resumed > 0)
		fprintf(f, "- resumed %d time%s after an interruption (`orch "
		    "run --resume`)\n", ds->resumed, ds->resumed == 1 ? "" : "s");
	fprintf(f, "- seed: %llu (the plan's order and the geometric means' "
	    "bootstrap intervals follow from it)\n",
	    (unsigned long long)ds->seed);
	fputs("- benchmarks: ", f);
	for (b = 0; b < ds->nbenches; b++) {
		fprintf(f, "%s`%s` (", b ? ", " : "", ds->benches[b].name);
		for (v = 0; v < ds->benches[b].nmetrics; v++)
			fprintf(f, "%s%s %s", v ? ", " : "",
			    ds->benches[b].metrics[v],
			    ds->benches[b].higher[v] ? "higher is better" :
			    "lower is better");
		fputs(")", f);
	}
	fputs("\n", f);
	if (ds->nfiles > 0) {
		fputs("\nFiles run, per host (SHA-256):\n\n| host | variant | "
		    "role | path | sha256 |\n|---|---|---|---|---|\n", f);
		for (i = 0; i < ds->nfiles; i++) {
			fprintf(f, "| %s | %s | ",
			    ds->hosts[ds->files[i].host].name,
			    ds->files[i].variant);
			md_text(f, ds->files[i].role);
			fputs(" | ", f);
			md_text(f, ds->files[i].path);
			if (ds->files[i].host_prog != NULL) {
				fputs(" (the host's own `host:", f);
				md_text(f, ds->files[i].host_prog);
				fputs("`", f);
				if (ds->files[i].version[0] != '\0') {
					fputs("; --version: ", f);
					md_text(f, ds->files[i].version);
				}
				fputs(")", f);
			}
			fputs(" | ", f);
			md_code(f, ds->files[i].sha);
			fputs(" |\n", f);
		}
	}
	/* A fence longer than any run of backticks in the text ends it. */
	n = md_ticks(ds->suite_text) + 1;
	n = n < 3 ? 3 : n;
	fputs("\n<details><summary>Suite file as run</summary>\n\n", f);
	for (i = 0; i < n; i++)
		fputc('`', f);
	fputs("ini\n", f);
	fputs(ds->suite_text, f);
	if (ds->suite_text[0] != '\0' &&
	    ds->suite_text[strlen(ds->suite_text) - 1] != '\n')
		fputc('\n', f);
	for (i = 0; i < n; i++)
		fputc('`', f);
	fputs("\n\n</details>\n", f);
}

int
report_md(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	const struct ds_host	*h;
	size_t			 i, j;

	fputs("# orch report: ", f);
	md_text(f, ds->suite_name);
	fprintf(f, "\n\nRun `%s` of suite ", ds->run_id);
	md_code(f, ds->suite_name);
	fputs(" (", f);
	md_text(f, ds->suite_path);
	fprintf(f, "): %zu variants over %u interleaved rounds (%u warmup "
	    "run%s each first), reference `%s`, min_effect %.3g.\n\n",
	    ds->nvariants, ds->rounds, ds->warmup, ds->warmup == 1 ? "" : "s",
	    ds->variants[ds->ref], ds->min_effect);
	report_text_banners(f, &md_fmt, a);
	claims_report(f, &md_fmt, a);
	report_text_answers(f, &md_fmt, a);
	md_across(f, a);
	report_sweep_md(f, a);

	for (i = 0; i < a->ngroups; i++) {
		g = &a->groups[i];
		fputs("## ", f);
		md_text(f, g->known ? g->label : "Hosts that gave no facts");
		fputs("\n\n", f);
		if (!g->known) {
			/* Never said hello: nothing but the error to show. */
			for (j = g->from; j < g->to; j++) {
				h = &ds->hosts[a->hosts[j].host];
				fprintf(f, "- `%s`: no facts and no runs; ",
				    h->name);
				md_text(f, h->error[0] ? h->error :
				    "it never started");
				fputc('\n', f);
			}
			fputc('\n', f);
			continue;
		}
		report_text_host_table(f, &md_fmt, a, g->from, g->to);
		fputs("Measurement:\n\n", f);
		for (j = g->from; j < g->to; j++)
			report_text_measure(f, &md_fmt, a, j);
		fputc('\n', f);
		report_text_files_notes(f, &md_fmt, a, g);
		for (j = g->from; j < g->to; j++) {
			md_host_benches(f, a, a->hosts[j].host);
			report_text_failures(f, &md_fmt, a, a->hosts[j].host);
		}
	}
	if (report_machines_md(f, a, &md_fmt) != 0)
		return (-1);
	md_run(f, a);
	return (ferror(f) ? -1 : 0);
}
