/* report.md: GitHub-flavoured Markdown, a section per architecture. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/report/report-claims.h"
#include "coordinator/report/report-layout.h"
#include "coordinator/report/report-machines.h"
#include "coordinator/report/report-quantity.h"
#include "coordinator/report/report-sweep.h"
#include "coordinator/report/report-text.h"
#include "coordinator/report/report.h"

/*
 * Escapes text for a table cell or a line: pipes, newlines, tags, and a
 * ']' before '(' or '[', so that a host's CPU model in an answer's
 * detail is never a link or an image (issue 27); an interval's brackets
 * stay as they are.
 */
static void
md_cell(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '<')
			fputs("\\<", f);
		else if (*s == ']' && (s[1] == '(' || s[1] == '['))
			fputs("\\]", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
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
	report_md_text(f, tail);
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

static const struct report_fmt md_fmt = {
	.text = report_md_text,
	.name = md_name,
	.code_open = "`", .code_close = "`",
	.bold_open = "**", .bold_close = "**",
	.item_open = "- ", .item_close = "\n",
	.para_open = "", .para_close = "\n\n",
	.note_open = "> ", .note_close = "\n\n",
	.small_open = "",
	.list_open = "", .list_close = "\n",
	.stops_open = "",
	.alert_open = "> ", .alert_close = "\n\n",
	.prose = md_cell,
	.table_open = "", .table_close = "\n",
	.head_open = "|", .th_open = " ", .th_close = " |", .head_close = "\n",
	.rule_open = "|", .rule_left = "---|", .rule_right = "---:|",
	.rule_close = "\n",
	.row_open = "|", .row_close = "\n",
	.cell_open = " ", .num_open = " ", .cell_close = " |",
	.cell_code_open = "", .cell_code_close = "",
	.failed_open = "**", .failed_close = "**: ",
	.verdict = md_verdict_of,
	.ratio_open = "", .ratio_close = "",
	.why_open = "*", .aa_open = "*", .aside_close = "*",
	.reason_open = "", .reason_close = "",
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

/* Returns 1 when the matrix shows a->hosts[i]: known, and host if any. */
static int
md_shown(const struct analysis *a, size_t i, const char *host)
{
	return (a->groups[a->hosts[i].group].known && (host == NULL ||
	    strcmp(a->ds->hosts[a->hosts[i].host].name, host) == 0));
}

int
report_md_matrix(FILE *f, const struct analysis *a, const char *host)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	const struct rep_row	*row;
	size_t			 i, j, ncols = 0;

	for (i = 0; i < a->nhosts; i++)
		ncols += md_shown(a, i, host);
	if (ncols == 0)
		return (-1);
	fputs("| bench | metric | variant |", f);
	for (i = 0; i < a->nhosts; i++) {
		g = &a->groups[a->hosts[i].group];
		if (!md_shown(a, i, host))
			continue;
		fputc(' ', f);
		report_md_text(f, g->label);
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
			if (!md_shown(a, i, host))
				continue;
			fputc(' ', f);
			report_text_matrix_cell(f, &md_fmt, analysis_cmp(a,
			    a->hosts[i].host, row->bench, 0, row->variant));
			fputs(" |", f);
		}
		if (ncols > 1) {
			fputc(' ', f);
			if (row->differs)
				fputs("⚠ **differs:** ", f);
			report_md_text(f, row->agreement);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	return (0);
}

void
report_md_geomeans(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	const struct rep_geo	*geo;
	size_t			 i, j;

	/* A comparison is a (host, benchmark): 3 hosts x 1 bench make 3. */
	fputs("| architecture | hosts | variant | comparisons | geomean [CI] "
	    "| verdict | per comparison |\n", f);
	fputs("|---|---|---|---:|---|---|---|\n", f);
	for (i = 0; i < a->ngeos; i++) {
		geo = &a->geos[i];
		g = &a->groups[geo->group];
		fputs("| ", f);
		report_md_text(f, g->label);
		fputs(" | ", f);
		for (j = g->from; j < g->to; j++)
			fprintf(f, "%s%s", j > g->from ? ", " : "",
			    ds->hosts[a->hosts[j].host].name);
		fprintf(f, " | %s | %zu | ", ds->variants[geo->variant],
		    geo->nused);
		report_text_interval(f, geo->est, geo->lo, geo->hi,
		    geo->nused > 0);
		fputs(" | ", f);
		md_verdict_of(f, geo->verdict, geo->est);
		if (geo->aa)
			report_text_aa(f, &md_fmt);
		fputs(" | ", f);
		report_text_geo_counts(f, geo);
		fputs(" |\n", f);
	}
}

void
report_md_verdict(FILE *f, enum stats_verdict v, double ratio)
{
	md_verdict_of(f, v, ratio);
}

void
report_md_claims(FILE *f, const struct analysis *a)
{
	report_claims_table(f, &md_fmt, a);
}

/* The benchmark × host matrix and the geometric means. */
static void
md_across(FILE *f, const struct analysis *a)
{
	size_t	i, ncols = 0;

	for (i = 0; i < a->nhosts; i++)
		ncols += a->groups[a->hosts[i].group].known;
	fputs("## Across architectures\n\n", f);
	report_text_across(f, &md_fmt, a, ncols);
	if (ncols == 0)
		return;
	report_md_matrix(f, a, NULL);
	fputc('\n', f);
	report_text_geo_intro(f, &md_fmt, a, ":");
	report_md_geomeans(f, a);
	fputc('\n', f);
}

/*
 * Flags each variant of (host, bench b) retried in more than
 * REP_RETRY_FLAG of its runs: its good retries hide a crash rate.
 */
static void
md_retry_flags(FILE *f, const struct analysis *a, size_t host, size_t b)
{
	const struct rep_result	*res;
	size_t			 v;

	for (v = 0; v < a->ds->nvariants; v++) {
		res = analysis_result(a, host, b, 0, v);
		if (res == NULL || !res->retry_flag)
			continue;
		fprintf(f, "> **Retried in more than %.0f%% of its runs:** ",
		    100 * REP_RETRY_FLAG);
		md_name(f, a->ds->variants[v]);
		fprintf(f, ", %zu of %zu runs (%.0f%%): a crash rate its ratio "
		    "hides (a run killed by a signal, then good on a retry, "
		    "counts as good); `--fail-on=invalid` trips on it.\n\n",
		    res->runs_retried, res->runs, 100.0 *
		    (double)res->runs_retried / (double)res->runs);
	}
}

/* The benchmark tables of one host. */
static void
md_host_benches(FILE *f, const struct analysis *a, size_t hostidx)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	const struct rep_cmp	*c;
	char			 med[64], lo[64], hi[64], iqr[16], cv[16];
	size_t			 b, i;

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
			report_text_range(a, mn, res, med, lo, hi, sizeof med);
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
			report_text_spread(res, iqr, cv, sizeof iqr);
			fprintf(f, "%s | %s", iqr, cv);
			fputs(" | ", f);
			if (c == NULL) {
				fputs("reference | | |\n", f);
				continue;
			}
			report_text_ratio(f, c);
			fputs(" | ", f);
			if (isfinite(c->p))
				report_text_p(f, c->p);
			fputs(" | ", f);
			md_verdict_of(f, c->verdict, c->ratio);
			if (!c->family && c->verdict != VERDICT_INVALID)
				fputs(" *(per comparison, 95%)*", f);
			report_text_cmp_notes(f, &md_fmt, c);
			fputs(" |\n", f);
		}
		fputc('\n', f);
		report_text_no_ratio(f, &md_fmt, a, hostidx, b);
		report_text_bench_counts(f, &md_fmt, a, hostidx, b, 1);
		md_retry_flags(f, a, hostidx, b);
	}
}

/* Each Slurm host's node: the host name stays the inventory's. */
static void
md_slurm(FILE *f, const struct dataset *ds)
{
	const struct ds_slurm	*s;
	size_t			 i;

	for (i = 0; i < ds->nhosts; i++) {
		if ((s = ds->hosts[i].slurm) == NULL)
			continue;
		fputs("- Slurm: host ", f);
		md_code(f, ds->hosts[i].name);
		fputs(" ran on node ", f);
		md_code(f, s->node);
		fprintf(f, " (job %s, component %u, partition ", s->job_id,
		    s->component);
		md_code(f, s->partition);
		fputs(", cluster ", f);
		md_code(f, s->cluster);
		fprintf(f, "%s)\n", s->released ? ", released" : "");
	}
}

/* The metadata that lets the evidence stand alone. */
static void
md_run(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	size_t			 i, n;

	fputs("## Run\n\n", f);
	report_text_versions(f, &md_fmt, ds);
	fputs("- command: ", f);
	md_code(f, ds->cmdline);
	fputc('\n', f);
	/* Only with labels: a run without them renders as it always did. */
	for (i = 0; i < ds->nlabels; i++) {
		fputs(i == 0 ? "- labels: " : ", ", f);
		report_md_text(f, ds->label_keys[i]);
		fputc('=', f);
		md_code(f, ds->label_values[i]);
		if (i + 1 == ds->nlabels)
			fputc('\n', f);
	}
	report_text_resumed(f, &md_fmt, ds);
	md_slurm(f, ds);
	fprintf(f, "- seed: %llu (the plan's order and the geometric means' "
	    "bootstrap intervals follow from it)\n",
	    (unsigned long long)ds->seed);
	report_text_benches(f, &md_fmt, ds);
	if (ds->nfiles > 0) {
		fputs("\nFiles run, per host (SHA-256):\n\n| host | variant | "
		    "role | path | sha256 |\n|---|---|---|---|---|\n", f);
		for (i = 0; i < ds->nfiles; i++) {
			fprintf(f, "| %s | %s | ",
			    ds->hosts[ds->files[i].host].name,
			    ds->files[i].variant);
			report_md_text(f, ds->files[i].role);
			fputs(" | ", f);
			report_md_text(f, ds->files[i].path);
			report_text_host_prog(f, &md_fmt, &ds->files[i]);
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

/* The shared-machine note in Markdown, for answer.md. */
void
report_md_shared(FILE *f, const struct analysis *a)
{
	report_machines_shared(f, a, &md_fmt);
}

int
report_md(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	size_t			 i, j;

	fputs("# orch report: ", f);
	report_md_text(f, ds->suite_name);
	fprintf(f, "\n\nRun `%s` of suite ", ds->run_id);
	md_code(f, ds->suite_name);
	report_text_plan(f, &md_fmt, a);
	fputs(".\n\n", f);
	report_text_banners(f, &md_fmt, a);
	report_machines_shared(f, a, &md_fmt);
	report_claims_table(f, &md_fmt, a);
	report_text_answers(f, &md_fmt, a);
	if (report_quantity_lines(f, a, "- ", 1) > 0)
		fputc('\n', f);
	md_across(f, a);
	if (report_layout(f, a, 1) != 0)
		return (-1);
	report_sweep_md(f, a);

	for (i = 0; i < a->ngroups; i++) {
		g = &a->groups[i];
		fputs("## ", f);
		report_md_text(f, g->known ? g->label :
		    "Hosts that gave no facts");
		fputs("\n\n", f);
		if (!g->known) {
			/* Never said hello: nothing but the error to show. */
			report_text_no_facts(f, &md_fmt, a, g);
			continue;
		}
		report_text_host_table(f, &md_fmt, a, g->from, g->to);
		report_text_measures(f, &md_fmt, a, g);
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
